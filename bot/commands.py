"""Every command of the bot, in one list: the handler that runs it (``bot.app.HANDLERS`` registers one for each),
whether the command menu shows it (in this order, each with a ``cmd_<name>`` description in the catalogues:
``publish_commands``, deploy/botfather-commands.txt) and whether the /help text names it (tests/bot/test_commands.py
holds the text to it, in both languages).

    command_menu("en")      # -> [("newgame", "open a table"), …]: the menu, also the BotFather list
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, Final

from telegram import Update

from bot.context import BotContext
from bot.handlers import (
    info_commands,
    league_commands,
    ops_commands,
    quick_commands,
    replay_commands,
    review_commands,
    settings_commands,
    standings_commands,
    table_commands,
)
from bot.i18n import t

Callback = Callable[[Update, BotContext], Coroutine[Any, Any, None]]


@dataclass(frozen=True)
class Command:
    name: str
    handler: Callback
    menu: bool = True  # shown in the command menu
    in_help: bool = True  # named by /help


COMMANDS: Final = (
    Command("newgame", table_commands.newgame),
    Command("join", table_commands.join),
    Command("leave", table_commands.leave),
    Command("begin", table_commands.begin),
    Command("flee", table_commands.flee),
    Command("stop", table_commands.stop),
    Command("play", quick_commands.play_command),
    Command("me", standings_commands.me_command),
    Command("stats", standings_commands.stats_command, in_help=False),
    Command("top", standings_commands.top_command),
    Command("rank", standings_commands.rank_command),
    Command("history", standings_commands.history_command),
    Command("replay", replay_commands.replay_command, in_help=False),
    Command("verify", replay_commands.verify_command, in_help=False),
    Command("review", review_commands.review_command, in_help=False),
    Command("rules", info_commands.rules_command),
    Command("calc", info_commands.calc_command),
    Command("settings", settings_commands.settings_command),
    Command("lang", info_commands.lang_command),
    Command("league", league_commands.league_command),
    Command("help", info_commands.help_command, in_help=False),
    Command("start", table_commands.start, menu=False, in_help=False),  # Telegram's Start button
    Command("status", ops_commands.status_command, menu=False, in_help=False),  # the operator's
)


def command_menu(lang: str) -> list[tuple[str, str]]:
    """The command menu as (command, description) in ``lang``."""
    return [(c.name, t(f"cmd_{c.name}", lang)) for c in COMMANDS if c.menu]

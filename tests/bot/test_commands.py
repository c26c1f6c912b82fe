"""bot.commands, the one list of commands: the menu, the handlers and /help are made from it or held to it."""

from __future__ import annotations

import re

import pytest
from telegram.ext import CommandHandler

from bot.app import HANDLERS
from bot.commands import COMMANDS, command_menu
from bot.i18n import LANGUAGES, t


def test_command_menu_has_every_command_once_in_each_language() -> None:
    zh, en = command_menu("zh"), command_menu("en")
    assert [name for name, _ in zh] == [name for name, _ in en] == [c.name for c in COMMANDS if c.menu]
    assert len({c.name for c in COMMANDS}) == len(COMMANDS)
    # Telegram's limits: command 1-32 of a-z0-9_, description 1-256 characters.
    assert all(re.fullmatch(r"[a-z0-9_]{1,32}", name) and 1 <= len(about) <= 256 for name, about in zh + en)


def test_each_command_of_the_list_and_no_other_has_its_handler() -> None:
    handled = [(name, h.callback) for h in HANDLERS if isinstance(h, CommandHandler) for name in sorted(h.commands)]
    assert handled == [(c.name, c.handler) for c in COMMANDS]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_help_names_the_commands_the_list_says(lang: str) -> None:
    named = set(re.findall(r"/([a-z0-9_]+)", t("help", lang)))
    assert named == {c.name for c in COMMANDS if c.in_help}

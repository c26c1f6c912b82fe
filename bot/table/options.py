"""What the table's core reads besides its messages: the operator's options (``Options``, filled from the bot's
``Config`` by the shell: ``bot.host.edge.table_options``) and a group's /settings as a table follows them
(``GroupSettings``, the answer to ``ReadSettings``). The core's own types, so it imports neither the whole
configuration nor storage."""

from __future__ import annotations

from dataclasses import dataclass

from game.rules import Rules


@dataclass(frozen=True)
class Options:
    """The operator's options a table follows (``bot.config.Config`` holds them and their defaults)."""

    lang: str  # the bot's language, for someone with none known
    match_seed: int | None  # fixed: every match and hand dealt from it (tests); None: secret random seeds
    bot_delay: float  # how long an automatic player "thinks" on its turn
    claim_pause: float  # the longest a discard no person may claim is held (bot.table.held.hold)
    next_hand_seconds: float
    claim_seconds: float | None  # the operator's timers win over each group's; None: the group's
    turn_seconds: float | None


@dataclass(frozen=True)
class GroupSettings:
    """A group's /settings, as its table follows them (``storage.chats.ChatSettings`` keeps them)."""

    language: str
    auto_players: bool  # empty seats filled with automatic players
    auto_level: str
    claim_seconds: int
    turn_seconds: int
    hands_per_game: int
    rules: Rules

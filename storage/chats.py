"""Per-group settings: the rules preset and options, timers, language, automatic players, units.

A chat that never changed anything reads as the defaults below without a stored row.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from game.automatic import LEVELS as AUTO_LEVELS
from game.languages import LANGUAGES
from game.rules import PRESETS, Rules, RulesError
from storage.chat_moves import move_chat
from storage.codec import check_choice, check_int, dump_json, dump_rules, load_json
from storage.errors import CorruptDataError, InvalidInputError
from storage.gateway import Gateway, Row


@dataclass(frozen=True)
class ChatSettings:
    chat_id: int
    preset: str = "kaikoufan"
    rule_options: dict[str, Any] = field(default_factory=dict)  # RULES.md §9 options over the preset
    claim_seconds: int = 10  # RULES.md §5
    turn_seconds: int = 30
    language: str = "zh"
    auto_players: bool = True  # fill empty seats with automatic players
    auto_level: str = "normal"
    base_unit: int = 1  # what one point is worth in this group's own units
    hands_per_game: int = 8

    @property
    def rules(self) -> Rules:
        return Rules.from_json({"preset": self.preset, **self.rule_options})


# field -> (low, high) for the whole-number settings.
_RANGES = {"claim_seconds": (3, 600), "turn_seconds": (5, 3600), "base_unit": (1, 1_000_000), "hands_per_game": (1, 64)}
_FIELDS = [f.name for f in dataclasses.fields(ChatSettings)]
# The stored row read straight into ChatSettings' fields.
_SELECT = "SELECT id AS " + ", ".join(_FIELDS) + " FROM chats WHERE id = ?"


def _checked(current: ChatSettings, changes: dict[str, Any]) -> ChatSettings:
    for name, value in changes.items():
        if name not in _FIELDS or name == "chat_id":
            raise InvalidInputError(f"unknown chat setting {name!r}")
        if name in _RANGES:
            check_int(value, name, *_RANGES[name])
        elif name == "preset":
            check_choice(value, "preset", PRESETS)
        elif name == "language":
            check_choice(value, "language", LANGUAGES)
        elif name == "auto_level":
            check_choice(value, "auto_level", AUTO_LEVELS)
        elif name == "auto_players" and not isinstance(value, bool):
            raise InvalidInputError("auto_players must be true or false")
        elif name == "rule_options" and (not isinstance(value, dict) or "preset" in value):
            raise InvalidInputError("rule_options must be an object of rule options (without 'preset')")
    updated = dataclasses.replace(current, **changes)
    dump_rules({"preset": updated.preset, **updated.rule_options})  # raises InvalidInputError on bad options
    return updated


def _settings_from_rows(chat_id: int, rows: list[Row]) -> ChatSettings:
    if not rows:
        return ChatSettings(chat_id)
    values = dict(rows[0])
    values["rule_options"] = load_json(values["rule_options"], f"rule options of chat {chat_id}")
    values["auto_players"] = bool(values["auto_players"])
    settings = ChatSettings(**values)
    try:
        settings.rules  # noqa: B018 - options stored by older code may no longer be understood
    except RulesError as exc:
        raise CorruptDataError(f"chat {chat_id} holds rule options this code does not understand: {exc}") from None
    return settings


class Chats:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def get(self, chat_id: int) -> ChatSettings:
        check_int(chat_id, "chat id")
        return _settings_from_rows(chat_id, await self._db.fetchall(_SELECT, (chat_id,)))

    async def update(self, chat_id: int, **changes: Any) -> ChatSettings:
        """Change some settings (checked first; a bad one changes nothing) and return them all."""
        check_int(chat_id, "chat id")
        async with self._db.transaction() as tx:
            current = _settings_from_rows(chat_id, list(await tx.execute_fetchall(_SELECT, (chat_id,))))
            updated = _checked(current, changes)
            values = dataclasses.asdict(updated)
            values["rule_options"] = dump_json(updated.rule_options, "rule_options")
            values["auto_players"] = int(updated.auto_players)
            await tx.execute(
                f"""INSERT INTO chats (id, {", ".join(_FIELDS[1:])}) VALUES ({", ".join("?" * len(_FIELDS))})
                    ON CONFLICT (id) DO UPDATE SET {", ".join(f"{f} = excluded.{f}" for f in _FIELDS[1:])}""",
                [values[name] for name in _FIELDS],
            )
        return updated

    async def migrate(self, old: int, new: int) -> bool:
        """The group ``old`` became the supergroup ``new``: everything stored under it follows, in one
        transaction (``storage.chat_moves``); False when nothing was stored under ``old``."""
        check_int(old, "chat id")
        check_int(new, "chat id")
        async with self._db.transaction() as tx:
            return await move_chat(tx, old, new)

"""How values cross into SQLite and back: UTC timestamps, JSON text, checked integers and rules."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from game.rules import Rules, RulesError
from storage.errors import CorruptDataError, InvalidInputError

Clock = Callable[[], datetime]
SQLITE_INT_MAX = 2**63 - 1


def utc_now() -> datetime:
    return datetime.now(UTC)


def timestamp(moment: datetime) -> str:
    """Fixed-width UTC ISO-8601 text, so comparing the text compares the times."""
    if moment.tzinfo is None:
        raise InvalidInputError("times must carry a time zone (naive datetime given)")
    return moment.astimezone(UTC).isoformat(timespec="milliseconds")


def parse_timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


def dump_json(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{what} cannot be stored as JSON: {exc}") from None


def load_json(text: str, what: str) -> Any:
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        raise CorruptDataError(f"{what} holds bad JSON: {text[:60]!r}") from None


def check_int(value: Any, what: str, low: int = -SQLITE_INT_MAX - 1, high: int = SQLITE_INT_MAX) -> int:
    """An int (not a bool) within [low, high]; anything else is a clear InvalidInputError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidInputError(f"{what} must be a whole number, not {value!r}")
    if not low <= value <= high:
        raise InvalidInputError(f"{what} must be between {low} and {high}, not {value}")
    return value


def check_text(value: Any, what: str, max_len: int = 256) -> str:
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError(f"{what} must be a non-empty text")
    if len(value) > max_len:
        raise InvalidInputError(f"{what} is longer than {max_len} characters")
    return value


def check_choice(value: Any, what: str, choices: tuple[str, ...]) -> str:
    if value not in choices:
        raise InvalidInputError(f"{what} must be one of {', '.join(choices)}, not {value!r}")
    return str(value)


def dump_rules(rules: Rules | str | dict[str, Any]) -> str:
    """Rules (or their §11 JSON form), checked by the engine and stored in their short form (``to_stored``)."""
    try:
        parsed = rules if isinstance(rules, Rules) else Rules.from_json(rules)
    except RulesError as exc:
        raise InvalidInputError(f"bad rules: {exc}") from None
    return dump_json(parsed.to_stored(), "rules")


def load_rules(text: str, what: str) -> Rules:
    try:
        return Rules.from_stored(load_json(text, what))  # rules stored before an option's new default keep it
    except RulesError as exc:
        raise CorruptDataError(f"{what} holds rules this code does not understand: {exc}") from None

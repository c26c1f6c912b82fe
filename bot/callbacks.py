"""Callback data of the inline buttons: compact, versioned, at most 64 bytes.

``v1|<table>|<stamp>|<code>``: ``table`` is the group chat id, ``stamp`` says which prompt the button belongs to
(``<hand>.<counter>.<seat>``, or ``0`` for buttons outside a hand), ``code`` is the action or command.

>>> encode(-1001234567890, "7.42.1", action_code("discard", 4))
'v1|-1001234567890|7.42.1|d5m'
>>> decode('v1|-1001234567890|7.42.1|d5m')
Press(table=-1001234567890, stamp='7.42.1', code='d5m')
>>> parse_action_code("c3p", seat=2)
Action(seat=2, kind='chi', tile=11)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from game.table import TILE_ACTIONS, Action, ActionKind
from game.tiles import TileError, parse_tile, tile_name

VERSION: Final = "v1"
MAX_BYTES: Final = 64
# Codes of the buttons that are not game actions.
COMMANDS: Final = frozenset({"join", "start", "back", "ready"})

# One or two letters per action kind; the tile follows where the kind has one.
_KIND_CODE: Final[dict[str, str]] = {
    "discard": "d", "hu": "h", "hongzhong_gang": "hz", "laizi_gang": "lz", "an_gang": "a",
    "xu_gang": "x", "chong_gang": "g", "peng": "p", "chi": "c", "pass": "-",
}
_CODE_KIND: Final[dict[str, str]] = {v: k for k, v in _KIND_CODE.items()}
_STAMP = re.compile(r"^[0-9]{1,12}(\.[0-9]{1,6}\.[0-3])?$")


class BadCallback(ValueError):
    """Callback data this bot did not make (or made by an older version)."""


@dataclass(frozen=True)
class Press:
    table: int
    stamp: str
    code: str


def encode(table: int, stamp: str, code: str) -> str:
    data = f"{VERSION}|{table}|{stamp}|{code}"
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def decode(data: str | None) -> Press:
    parts = (data or "").split("|")
    if len(parts) != 4 or parts[0] != VERSION:
        raise BadCallback(f"not {VERSION} callback data: {data!r}")
    _, table, stamp, code = parts
    try:
        chat = int(table)
    except ValueError:
        raise BadCallback(f"bad table id in {data!r}") from None
    if not _STAMP.match(stamp) or not code:
        raise BadCallback(f"bad stamp or code in {data!r}")
    return Press(chat, stamp, code)


def action_code(kind: ActionKind, tile: int | None = None) -> str:
    return _KIND_CODE[kind] + ("" if tile is None else tile_name(tile))


def code_of(action: Action) -> str:
    return action_code(action.kind, action.tile)


def parse_action_code(code: str, seat: int) -> Action:
    """The action a code stands for, played by ``seat``; BadCallback if it is no action code."""
    for length in (2, 1):  # two-letter codes first ("hz" before "h")
        kind = _CODE_KIND.get(code[:length])
        if kind is None:
            continue
        rest = code[length:]
        if bool(rest) != (kind in TILE_ACTIONS):  # a tile exactly where the kind has one
            continue
        try:
            tile = parse_tile(rest) if rest else None
        except TileError:
            continue
        return Action(seat, kind, tile)  # type: ignore[arg-type]
    raise BadCallback(f"unknown action code {code!r}")

"""Callback data of every inline button the bot makes: compact, versioned, at most 64 bytes, one prefix a kind.

| kind      | data                                    | routed by               |
|-----------|-----------------------------------------|-------------------------|
| play      | ``v1|<table>|<stamp>|<code>``           | ``PLAY_PATTERN``        |
| settings  | ``st1|p|<page>`` · ``st1|s|<key>|<choice>`` | ``SETTINGS_PATTERN`` |
| standings | ``sd1|top|<period>`` · ``sd1|h|<hand>`` | ``STANDINGS_PATTERN``   |
| league    | ``lg1|<night>|in`` · ``lg1|<night>|out`` | ``LEAGUE_PATTERN``     |
| language  | ``ln1|<lang>``                          | ``LANGUAGE_PATTERN``    |
| replay    | ``rp1|<code>|<move>|<seat>`` · ``rp1|<code>|gif|<seat>`` | ``REPLAY_PATTERN`` |
| review    | ``rv1|<code>``                          | ``REVIEW_PATTERN``      |
| flee      | ``fl1|<table>|<hand>|<user>|yes`` · ``…|no`` | ``FLEE_PATTERN``   |
| quick     | ``qm1|go`` · ``qm1|p|<preset>`` · ``qm1|w|<seconds>`` · ``qm1|c`` | ``QUICK_PATTERN`` |

``bot.app`` routes each kind with ``CallbackQueryHandler(pattern=...)``; a press matching none is stale.
Play buttons are ``PlayButton``s: ``table`` is the table's key (``bot.table.key``: the group chat id, with
``_<topic>`` in a forum topic), ``stamp`` a ``Stamp`` that says which prompt the button belongs to
(``<hand>.<counter>.<seat>``, or ``0`` for buttons outside a hand), ``code`` is the action or command.
This module sits below the views and the handlers: both import it, it imports neither.

>>> PlayButton(TableKey(-1001234567890), Stamp(7, 42, 1), action_code("discard", 4)).encode()
'v1|-1001234567890|7.42.1|d5m'
>>> PlayButton.decode('v1|-1001234567890_42|7.42.1|d5m')
PlayButton(table=TableKey(chat_id=-1001234567890, thread_id=42), stamp=Stamp(hand=7, counter=42, seat=1), code='d5m')
>>> parse_action_code("c3p", seat=2)
Action(seat=2, kind='chi', tile=11)
>>> settings_data("s", "cap", "500"), league_data(12, "in"), standings_data("top", "month")
('st1|s|cap|500', 'lg1|12|in', 'sd1|top|month')
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from bot.table.key import TableKey
from game.actions import TILE_ACTIONS, Action, ActionKind
from game.languages import LANGUAGES
from game.tiles import TileError, parse_tile, tile_name
from game.verify import SHARE_ALPHABET, SHARE_CODE_LEN

VERSION: Final = "v1"
SETTINGS_PREFIX: Final = "st1"
STANDINGS_PREFIX: Final = "sd1"
LEAGUE_PREFIX: Final = "lg1"
LANGUAGE_PREFIX: Final = "ln1"
REPLAY_PREFIX: Final = "rp1"
REVIEW_PREFIX: Final = "rv1"
FLEE_PREFIX: Final = "fl1"
QUICK_PREFIX: Final = "qm1"
MAX_BYTES: Final = 64
AUTO: Final = "auto"  # a play button's code that asks for 托管 (stamped with the decision it was offered on)
_SEP: Final = "|"

PLAY_PATTERN: Final = rf"^{VERSION}\|"
SETTINGS_PATTERN: Final = rf"^{SETTINGS_PREFIX}\|"
STANDINGS_PATTERN: Final = rf"^{STANDINGS_PREFIX}\|(top\|(week|month|season|all)|h\|\d{{1,18}})$"
LEAGUE_PATTERN: Final = rf"^{LEAGUE_PREFIX}\|\d{{1,18}}\|(in|out)$"
LANGUAGE_PATTERN: Final = rf"^{LANGUAGE_PREFIX}\|({'|'.join(LANGUAGES)})$"
# A share code, a step (or gif) and a seat: 0-3, or a for all hands open.
# Quick match (bot.quick): /play's button, a preset chosen, a wait chosen, Cancel.
QUICK_PATTERN: Final = rf"^{QUICK_PREFIX}\|(go|c|p\|[a-z]{{1,16}}|w\|\d{{1,4}})$"
REVIEW_PATTERN: Final = rf"^{REVIEW_PREFIX}\|[{SHARE_ALPHABET}]{{{SHARE_CODE_LEN}}}$"
# /flee's Confirm or Cancel: the table, the hand it would leave, who asked.
FLEE_PATTERN: Final = rf"^{FLEE_PREFIX}\|-?\d{{1,18}}(_\d{{1,12}})?\|\d{{1,18}}\|\d{{1,18}}\|(yes|no)$"
# A replay move: ``<step>`` goes there (⏮ ⏭, a new replay); ``<step>+1`` / ``<step>-1`` / ``<step>=`` move one on,
# one back or stay (a seat) from the step the message shows now (``<step>``: what it showed when drawn).
REPLAY_PATTERN: Final = rf"^{REPLAY_PREFIX}\|[{SHARE_ALPHABET}]{{{SHARE_CODE_LEN}}}\|(\d{{1,4}}([+-]1|=)?|gif)\|[0-3a]$"

# One or two letters per action kind; the tile follows where the kind has one.
_KIND_CODE: Final[dict[str, str]] = {
    "discard": "d", "hu": "h", "hongzhong_gang": "hz", "laizi_gang": "lz", "an_gang": "a",
    "xu_gang": "x", "chong_gang": "g", "peng": "p", "chi": "c", "pass": "-",
}  # fmt: skip
_CODE_KIND: Final[dict[str, str]] = {v: k for k, v in _KIND_CODE.items()}
_STAMP = re.compile(r"^[0-9]{1,12}(\.[0-9]{1,6}\.[0-3])?$")


class BadCallback(ValueError):
    """Callback data this bot did not make (or made by an older version)."""


@dataclass(frozen=True)
class Stamp:
    """Which prompt a play button belongs to: a hand, the count of its actions when the decision was offered and
    the seat asked; ``Stamp()`` (``0``) marks a button outside any decision (Ready, I'm back, Start)."""

    hand: int = 0
    counter: int | None = None
    seat: int | None = None

    def encode(self) -> str:
        return str(self.hand) if self.counter is None else f"{self.hand}.{self.counter}.{self.seat}"

    @classmethod
    def decode(cls, text: str) -> Stamp:
        """The stamp ``text`` spells; BadCallback if it spells none."""
        if not _STAMP.match(text):
            raise BadCallback(f"bad stamp {text!r}")
        parts = [int(p) for p in text.split(".")]
        return cls(*parts)


@dataclass(frozen=True)
class PlayButton:
    """A play button's data: the table, the prompt it answers and what it does."""

    table: TableKey
    stamp: Stamp
    code: str

    def encode(self) -> str:
        return _checked(_SEP.join((VERSION, self.table.token, self.stamp.encode(), self.code)))

    @classmethod
    def decode(cls, data: str | None) -> PlayButton:
        """The button ``data`` names; BadCallback for data this bot did not make."""
        parts = (data or "").split(_SEP)
        if len(parts) != 4 or parts[0] != VERSION:
            raise BadCallback(f"not {VERSION} callback data: {data!r}")
        _, table, stamp, code = parts
        try:
            key = TableKey.parse(table)
        except ValueError:
            raise BadCallback(f"bad table id in {data!r}") from None
        if not code:
            raise BadCallback(f"no code in {data!r}")
        return cls(key, Stamp.decode(stamp), code)


def _checked(data: str) -> str:
    if len(data.encode()) > MAX_BYTES:
        raise ValueError(f"callback data over {MAX_BYTES} bytes: {data!r}")
    return data


def settings_data(*parts: str) -> str:
    return _checked(_SEP.join((SETTINGS_PREFIX, *parts)))


def standings_data(kind: str, value: str | int) -> str:
    return _checked(_SEP.join((STANDINGS_PREFIX, kind, str(value))))


def league_data(night_id: int, choice: str) -> str:
    return _checked(_SEP.join((LEAGUE_PREFIX, str(night_id), choice)))


def language_data(lang: str) -> str:
    return _checked(_SEP.join((LANGUAGE_PREFIX, lang)))


def replay_data(code: str, step: int | str, seat: int | None) -> str:
    """A replay button: ``step`` a move (see ``REPLAY_PATTERN``) or ``gif``; ``seat`` None: every hand open."""
    return _checked(_SEP.join((REPLAY_PREFIX, code, str(step), "a" if seat is None else str(seat))))


def review_data(code: str) -> str:
    return _checked(_SEP.join((REVIEW_PREFIX, code)))


@dataclass(frozen=True)
class FleeButton:
    """/flee's Confirm (``confirm``) or Cancel: only ``user_id`` may press it, for hand ``hand_id`` of ``table``."""

    table: TableKey
    hand_id: int
    user_id: int
    confirm: bool

    def encode(self) -> str:
        choice = "yes" if self.confirm else "no"
        return _checked(_SEP.join((FLEE_PREFIX, self.table.token, str(self.hand_id), str(self.user_id), choice)))

    @classmethod
    def decode(cls, data: str | None) -> FleeButton:
        """The button ``data`` names (it matched ``FLEE_PATTERN``)."""
        table, hand, user, choice = fields(data)
        return cls(TableKey.parse(table), int(hand), int(user), choice == "yes")


def quick_data(*parts: str) -> str:
    """A quick-match button's data: ``quick_data("go")``, ``("p", preset)``, ``("w", str(seconds))``, ``("c")``."""
    return _SEP.join((QUICK_PREFIX, *parts))


def fields(data: str | None) -> list[str]:
    """The parts of any button's data after its prefix (the router already matched the prefix)."""
    return (data or "").split(_SEP)[1:]


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

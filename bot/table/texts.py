"""The table's words: how seats are named, what the group is told of the hand's events, the closing summary.

Pure functions of the table's state (``bot.table.state``) and the catalogues (``bot.i18n``): the table's core
(``bot.table.core``) says them in its effects, and the views (``bot.views.game_views``) in their captions.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final

from bot.i18n import pick, t
from bot.table.state import Seat, Table
from game.patterns import PATTERNS
from game.table import Event
from game.tiles import parse_tile, tile_label

# The events the group's picture caption tells (besides the pictures).
_TOLD: Final = {
    "peng": "announce_peng",
    "chong_gang": "announce_gang",
    "an_gang": "announce_an_gang",
    "xu_gang": "announce_gang",
    "hongzhong_gang": "announce_hongzhong_gang",
    "laizi_gang": "announce_laizi_gang",
}


def automatic_name(seat: int, lang: str) -> str:
    """An automatic player's name: ``电脑 2`` / ``Bot 2``."""
    return f"{t('seat_bot', lang)} {seat + 1}"


def _shown_name(s: Seat, seat: int, lang: str) -> str:
    """A seated player's name as a reader of ``lang`` sees it: an automatic player is named in that language."""
    return automatic_name(seat, lang) if s.user_id is None else s.name


def seat_names(table: Table, lang: str) -> list[str]:
    """Every seat's name as a reader of ``lang`` sees it ("" for an empty seat), for the pictures."""
    return ["" if s is None else _shown_name(s, i, lang) for i, s in enumerate(table.seats)]


def seat_label(table: Table, seat: int, lang: str | None = None) -> str:
    """``东 Ann`` — the wind and the name of a seat, for captions and announcements (in the table's language
    unless ``lang`` says otherwise)."""
    lang = lang or table.lang
    s = table.seats[seat]
    name = _shown_name(s, seat, lang) if s is not None else t("seat_empty", lang)
    return f"{t(f'wind_{seat}', lang)} {name}"


def event_notices(table: Table, events: Sequence[Event]) -> Iterator[str]:
    """What the group's picture's caption tells of these events: 碰 and 杠; only what every player may see."""
    lang = table.lang
    for event in events:
        public = event.for_seat(None)
        key, seat = _TOLD.get(public.kind), public.seat
        if key is not None and seat is not None:
            raw = public.data.get("tile")
            tile = tile_label(parse_tile(raw), lang) if isinstance(raw, str) else ""
            yield t(key, lang, seat=seat_label(table, seat), tile=tile)


def end_lines(table: Table, lang: str) -> list[str]:
    """How the hand ended, as its result says it first: each win with its patterns, or a drawn hand."""
    assert table.hand is not None
    lines = []
    for event in table.hand.log:
        public = event.for_seat(None)
        if public.kind == "win" and public.seat is not None:
            settlement = public.data.get("settlement", {})
            names = " · ".join(pick(PATTERNS[p], lang) for p in settlement.get("patterns", ()))
            lines.append(t("announce_win", lang, seat=seat_label(table, public.seat, lang), patterns=names))
        elif public.kind == "exhausted":
            lines.append(t("announce_exhausted", lang))
    return lines


def _owner(table: Table, seat: int, lang: str) -> str:
    """Whose total a seat's is: the human who left it to an automatic player, else who sits there."""
    name = table.left_by.get(seat)
    return seat_label(table, seat, lang) if name is None else f"{t(f'wind_{seat}', lang)} {name}"


def stopped_text(table: Table, lang: str | None = None) -> str:
    """The closing summary: every seat's match total, best first (in the table's language unless ``lang``)."""
    lang = lang or table.lang
    totals = table.totals
    order = sorted(range(4), key=lambda s: -totals[s])
    lines = "\n".join(f"{_owner(table, s, lang)}: {totals[s]:+d}" for s in order)
    return t("stopped", lang, lines=lines)

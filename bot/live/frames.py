"""What a Mini App connection is sent: the table as one seat may see it, or as the group sees it, as JSON.

Built from the same data as the pictures: a seat's frame only ever from ``shown_view(hand, seat, held)`` (its
own concealed tiles, nobody else's; a draw the table holds back not yet drawn), a spectator's only from
``shown_view(hand, None, held)``. The buttons are the seat's current prompt with its stamp, exactly the play
buttons' codes (``bot.callbacks``): a press from the page is the same press as a button's. Nothing here reads
the wall or the seed; every concealed hand appears only once the hand is over (``revealed``).

    seat_frame(table, seat, now, config.bot_delay)   # {"type": "view", "hand": [...], "actions": [...], ...}
    spectator_frame(table)
"""

from __future__ import annotations

from typing import Any

from bot.callbacks import code_of
from bot.i18n import pick, t
from bot.table.state import Table
from bot.table.texts import seat_label, seat_names
from bot.views.game_views import button_label, ordered_actions, public_status, result_lines
from bot.views.public_view import shown_view
from game.melds import Meld
from game.tiles import HIDDEN, HONGZHONG, Tile, tile_label, tile_name
from game.view import SeatView


def _meld(meld: Meld) -> dict[str, Any]:
    tiles = [None if x == HIDDEN else tile_name(x) for x in meld.tiles]
    if meld.is_gang and len(tiles) == 1:
        tiles = tiles * 4
    elif len(tiles) == 1:
        tiles = tiles * 3
    return {"kind": meld.kind, "tiles": tiles, "from": meld.from_seat}


def _names(tiles: tuple[Tile, ...]) -> list[str]:
    return [tile_name(x) for x in tiles]


def _board(table: Table, view: SeatView, lang: str) -> dict[str, Any]:
    """What everyone at the table sees alike: seats, melds, rivers (a thrown 红中 or 赖子 marked), the wall."""
    thrown = (HONGZHONG, view.laizi)
    return {
        "title": table.title,
        "hand_number": table.hand_number,
        "names": seat_names(table, lang),
        "winds": [t(f"wind_{i}", lang) for i in range(4)],
        "totals": list(table.totals),
        "auto": [s is not None and s.automatic and not s.untold for s in table.seats],  # untold: not yet said
        "dealer": view.dealer,
        "laizi": tile_name(view.laizi),
        "laizi_label": tile_label(view.laizi, lang),
        "indicator": tile_name(view.indicator),
        "wall": view.wall_remaining,
        "phase": view.phase,
        "turn": view.turn,
        "hand_sizes": list(view.hand_sizes),
        "melds": [[_meld(m) for m in ms] for ms in view.melds],
        "rivers": [[{"tile": tile_name(x), "thrown": x in thrown} for x in river] for river in view.rivers],
        "last_discard": None if view.last_discard is None else [view.last_discard[0], tile_name(view.last_discard[1])],
        "gangs": [[view.hongzhong_gangs[i], view.laizi_gangs[i]] for i in range(4)],
        "revealed": None if view.revealed is None else [_names(h) for h in view.revealed],
    }


def _status(table: Table, view: SeatView, seat: int | None, lang: str) -> str:
    """The line over the hand: the seat's own decision, else whom the table waits for (never who is asked
    about a discard: a discard shows the same whether or not anybody may claim it)."""
    if table.state == "closed":
        return t("status_stopped", lang)
    if view.phase == "over":
        return t("status_over", lang)
    if seat is not None and seat in table.prompts and not table.seat(seat).auto:
        if view.phase == "turn":
            return t("live_your_turn", lang)
        if view.phase == "haidi":
            return t("live_your_haidi", lang)
        tile = view.claimable if view.claimable is not None else (view.last_discard or (0, 0))[1]
        key = "live_your_rob" if view.phase == "rob" else "live_your_claim"
        return t(key, lang, seat=seat_label(table, view.turn, lang), tile=tile_label(tile, lang))
    return public_status(table, view, lang)


def _result(table: Table, lang: str) -> dict[str, Any] | None:
    """The end of the hand: the same breakdown and amounts as the result picture and its caption."""
    hand = table.hand
    if hand is None or not hand.finished:
        return None
    result = hand.result
    payments = result.payments if result is not None else (0, 0, 0, 0)
    breakdown = pick(result.breakdown, lang) if result is not None else ()
    heading = t("announce_exhausted", lang) if result is None else t("live_result", lang, number=table.hand_number)
    return {
        "winner": None if result is None else result.winner,
        "exhausted": result is None,
        "payments": list(payments),
        "lines": result_lines(table, lang),
        "breakdown": list(breakdown),
        "heading": heading,
    }


def seat_frame(table: Table, seat: int, now: float, bot_delay: float, lang: str | None = None) -> dict[str, Any]:
    """The table from ``seat``: its own hand and drawn tile, its legal actions with their stamp, its deadline."""
    hand = table.hand
    assert hand is not None
    s = table.seat(seat)
    lang = lang or s.lang
    view = shown_view(hand, seat, table.held)
    prompt = table.prompts.get(seat) if table.state == "playing" and not hand.finished and not s.auto else None
    actions = [] if prompt is None else ordered_actions(prompt.legal)
    deadline = table.deadline(seat, bot_delay) if prompt is not None else None
    return {
        "type": "view",
        "seat": seat,
        "state": table.state,
        **_board(table, view, lang),
        "hand": _names(view.hand),
        "drawn": None if view.drawn is None else tile_name(view.drawn),
        "waits": _names(view.waits),
        "stamp": table.stamp(seat).encode() if prompt is not None else None,
        "actions": [{"code": code_of(a), "kind": a.kind, "label": button_label(a, hand.laizi, lang)} for a in actions],
        "seconds_left": None if deadline is None else max(0.0, round(deadline - now, 1)),
        "tuoguan": s.auto,
        "ready": table.state == "between" and not s.ready,
        "status": _status(table, view, seat, lang),
        "result": _result(table, lang),
    }


def spectator_frame(table: Table, lang: str | None = None) -> dict[str, Any]:
    """The table as the group sees it: no concealed tile of anyone until the hand is over."""
    hand = table.hand
    assert hand is not None
    lang = lang or table.lang
    view = shown_view(hand, None, table.held)
    return {
        "type": "view",
        "seat": None,
        "state": table.state,
        **_board(table, view, lang),
        "hand": [],
        "drawn": None,
        "waits": [],
        "stamp": None,
        "actions": [],
        "seconds_left": None,
        "tuoguan": False,
        "ready": False,
        "status": _status(table, view, None, lang),
        "result": _result(table, lang),
    }

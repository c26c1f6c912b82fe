"""bot.views.public_view: nothing shown is taken back. A claim window is shown to everyone as it is (the discard
on the table, nobody drawn; only the seats asked see that they may claim), and a discard (or 蓄杠) whose draw the
table holds back is shown exactly as a window on it that nobody is asked about: over whole seeded hands, every
held view equals the view of the same hand stopped before its draw with such a window open."""

from __future__ import annotations

import copy
from typing import Literal

from bot.table.state import Held
from bot.views.public_view import shown_view
from game.actions import Action
from game.match import Match
from game.rules import Rules
from game.table import Hand, _Pending
from tests.e2e.policy import pick

SEATS = (None, 0, 1, 2, 3)


def _stopped_before_the_draw(hand: Hand, action: Action) -> Hand:
    """A copy of ``hand`` that plays ``action`` but not the draw that follows it, its window left open with
    nobody asked: the table between the two, as the engine itself would show it."""
    frozen = copy.deepcopy(hand)
    frozen._next_draw = lambda seat: None  # type: ignore[method-assign]
    frozen._complete_xu_gang = lambda maker, tile: None  # type: ignore[method-assign]
    pending = frozen._pending
    frozen.apply(action)
    kind: Literal["claim", "rob"] = "rob" if action.kind == "xu_gang" or hand.phase == "rob" else "claim"
    by = action.seat if pending is None else pending.by
    tile = action.tile if pending is None else pending.tile
    assert tile is not None
    frozen._open_pending(_Pending(kind, tile, by, {}))
    return frozen


def test_a_held_draw_shows_everyone_the_table_before_it_as_a_window_nobody_is_asked_about_would() -> None:
    compared = {"claim": 0, "rob": 0}
    for seed in range(30):
        hand = Match(Rules(), seed).new_hand()
        while not hand.finished:
            seat = hand.waiting_on()[0]
            action = pick(hand.legal_actions(seat), lambda _a: False)
            if hand.phase in ("claim", "rob"):
                for s in SEATS:  # a window as it is: only the seats asked learn that they may claim
                    view = shown_view(hand, s)
                    assert view == hand.view(s) and view.phase == hand.phase
                    assert (view.claimable is not None) == (s in hand.waiting_on())
            window = hand.phase if hand.phase in ("claim", "rob") else ("rob" if action.kind == "xu_gang" else "claim")
            by, tile = (hand.claim_by, hand.claim_tile) if hand.phase in ("claim", "rob") else (seat, action.tile)
            frozen = _stopped_before_the_draw(hand, action) if action.kind in ("discard", "xu_gang", "pass") else None
            events = hand.apply(action)
            if frozen is None or not events or events[-1].kind != "draw" or by is None or tile is None:
                continue
            held = Held(window, by, tile, until=0.0)
            for s in SEATS:
                assert shown_view(hand, s, held) == frozen.view(s), (seed, len(hand.actions), s)
            compared[window] += 1
    assert compared["claim"] >= 500 and compared["rob"] >= 3, compared

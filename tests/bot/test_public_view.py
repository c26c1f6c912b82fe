"""bot.views.public_view: over whole seeded hands, whoever is not asked about a discard (or a 蓄杠 tile) sees
during its claim window exactly what a discard nobody could claim shows at once: the table after it closed
unclaimed. No claim phase, no claimable tile, no latest discard reaches them."""

from __future__ import annotations

import random
from dataclasses import replace

from bot.views.public_view import shown_view
from game.match import Match
from game.rules import Rules
from game.table import Hand
from game.tiles import parse_tile
from game.view import SeatView
from tests.e2e.policy import pick
from tests.game.test_table import ROB_SCRIPT, play, rob_hand


def _public(view: SeatView) -> SeatView:
    """What the others may see of a seat's view: its own tiles and decisions left out."""
    return replace(view, hand=(), drawn=None, legal=(), waits=())


def _window(hand: Hand) -> dict[int | None, SeatView]:
    """Every view of a seat not asked about the tile on the table (and the group's), as shown now."""
    return {s: shown_view(hand, s) for s in (None, 0, 1, 2, 3) if s not in hand.claim_asked}


def _check_closed(shown: dict[int | None, SeatView], hand: Hand, mover: int) -> int:
    """The window closed unclaimed: each shown view is the table as it now is (the mover's own tiles aside)."""
    for seat, view in shown.items():
        assert view.phase != "claim" and view.phase != "rob" and view.claimable is None
        assert view.last_discard is None
        if view.phase == "haidi":
            continue
        now = hand.view(seat)
        assert (_public(view), seat) == (_public(now), seat) if seat == mover else (view, seat) == (now, seat)
    return 1


def test_a_claim_window_looks_to_everyone_not_asked_as_a_discard_nobody_could_claim() -> None:
    rng = random.Random(24)
    compared = {"claim": 0, "rob": 0}
    for seed in range(30):
        hand = Match(Rules(), seed).new_hand()
        while not hand.finished:
            phase = hand.phase
            if phase not in ("claim", "rob"):
                seat = hand.waiting_on()[0]
                hand.apply(pick(hand.legal_actions(seat), lambda _a: False))
                continue
            shown = _window(hand)
            assert shown[None].phase != phase
            let_go = phase == "rob" or rng.random() < 0.5
            mover = shown[None].turn
            while hand.phase == phase:
                seat = hand.waiting_on()[0]
                acts = hand.legal_actions(seat)
                hand.apply(next(a for a in acts if a.kind == "pass") if let_go else pick(acts, lambda _a: False))
            if let_go:
                compared[phase] += _check_closed(shown, hand, mover)
    assert compared["claim"] >= 100, compared


def test_a_kong_that_may_be_robbed_looks_to_everyone_not_asked_as_one_nobody_could_rob() -> None:
    hand = rob_hand()
    play(hand, *ROB_SCRIPT, "1 xu_gang 5s")
    assert hand.phase == "rob" and hand.claim_asked == {2}
    shown = _window(hand)
    assert [m.kind for m in shown[None].melds[1]] == ["xu_gang"] and shown[None].turn == 1
    assert parse_tile("5s") not in (*shown[1].hand, shown[1].drawn)  # the maker's 4th tile went to the kong
    play(hand, "2 pass")
    assert _check_closed(shown, hand, mover=1)

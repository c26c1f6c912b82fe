"""The value network (game.value): its input after a discard is what the seat then sees, numpy gives what
torch gave, and the value player plays one of normal's best discards by its worth and the network's odds."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from game.ai import ranked, weighed_discards
from game.features import after_discard, features
from game.tiles import HONGZHONG
from game.value import CANDIDATES, ODDS_WEIGHT, choose_valued, discard_outlooks, value_network
from game.view import SeatView
from tests.game.test_search import play_until

# Inputs and torch's outputs for them, written with the weights by scripts/train_value.py (CI has no torch).
EXPECTED = Path(__file__).with_name("value_expected.json")
# Positions of play_until where the seat may throw a 赖子 (seed 0, 30 actions) or a 红中 (seed 1, 10 actions).
SEED_LAIZI, SEED_HONGZHONG = 0, 1


def check_every_discard(seed: int, decisions: int) -> SeatView:
    """After each discard the seat may play at this point of the hand, ``after_discard`` gives the features of
    the table's own view (the view of the position before, which it returns)."""
    view = play_until(seed, decisions).view(play_until(seed, decisions).waiting_on()[0])
    assert view.seat is not None
    for tile in sorted({a.tile for a in view.legal if a.kind == "discard" and a.tile is not None}):
        hand = play_until(seed, decisions)
        hand.apply(next(a for a in view.legal if a.kind == "discard" and a.tile == tile))
        # With nothing to claim the next seat has drawn already: one tile fewer in the wall, nothing else seen.
        real = dataclasses.replace(hand.view(view.seat), wall_remaining=view.wall_remaining)
        assert np.array_equal(features(after_discard(view, tile)), features(real))
    return view


@pytest.mark.parametrize(("seed", "decisions"), [(1, 20), (5, 60), (11, 80), (2, 30)])
def test_after_discard_is_what_the_seat_sees_once_its_tile_is_down(seed: int, decisions: int) -> None:
    check_every_discard(seed, decisions)


@pytest.mark.parametrize(("seed", "decisions"), [(SEED_LAIZI, 30), (SEED_HONGZHONG, 10)])
def test_after_discard_counts_a_thrown_laizi_or_hongzhong(seed: int, decisions: int) -> None:
    view = check_every_discard(seed, decisions)
    assert view.seat is not None
    thrown = view.laizi if seed == SEED_LAIZI else HONGZHONG
    assert any(a.kind == "discard" and a.tile == thrown for a in view.legal)  # the position has the throw
    after = after_discard(view, thrown)
    counted = after.laizi_thrown if seed == SEED_LAIZI else after.hongzhong_gangs
    before = view.laizi_thrown if seed == SEED_LAIZI else view.hongzhong_gangs
    assert counted[view.seat] == before[view.seat] + 1 and after.rivers[view.seat][-1] == thrown


def test_numpy_gives_what_torch_gave() -> None:
    expected = json.loads(EXPECTED.read_text())
    out = value_network()(np.asarray(expected["x"], dtype=np.float32))
    assert np.allclose(out, np.asarray(expected["out"]), atol=1e-4)


@pytest.mark.parametrize(("seed", "decisions"), [(1, 20), (5, 60), (11, 80)])
def test_the_value_player_picks_among_normals_best_discards_by_worth_and_odds(seed: int, decisions: int) -> None:
    hand = play_until(seed, decisions)
    view = hand.view(hand.waiting_on()[0])
    action = choose_valued(view, seed)
    assert action in view.legal and choose_valued(view, seed) == action
    weighed = weighed_discards(view)
    options = [(w, a.tile) for w, a in ranked(view, "normal", seed) if a.kind == "discard" and a.tile in weighed]
    options = options[:CANDIDATES]
    seen = discard_outlooks(view, [t for _, t in options if t is not None])
    score = {t: w + ODDS_WEIGHT * (seen[t].won - seen[t].dealt_in) for w, t in options if t is not None}
    assert action.kind == "discard" and action.tile in score
    assert score[action.tile] == max(score.values())
    every = discard_outlooks(view)
    assert set(every) == set(weighed)
    assert all(0 < o.won < 1 and 0 < o.dealt_in < 1 for o in every.values())

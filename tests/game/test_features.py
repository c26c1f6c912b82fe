"""The learned player's input (game.features) is a function of the seat's view: worlds that differ only in what
the seat cannot see give the same numbers, and what it can see changes them."""

from __future__ import annotations

import numpy as np
import pytest

from game.features import SIZE, features
from game.search import sample_worlds
from game.table import Hand
from tests.game.test_search import play_until


@pytest.mark.parametrize(("seed", "decisions"), [(1, 20), (7, 60), (11, 80)])
def test_two_worlds_with_the_same_view_give_the_same_features(seed: int, decisions: int) -> None:
    hand = play_until(seed, decisions)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    x = features(view)
    assert x.shape == (SIZE,) and x.dtype == np.float32
    for world in sample_worlds(view, 3, seed):
        other = Hand.from_view(view, world.hands, world.hidden_gangs, world.wall)
        hidden = [other.concealed_counts(s) for s in range(4) if s != seat]
        assert hidden != [hand.concealed_counts(s) for s in range(4) if s != seat]  # another world ...
        assert np.array_equal(features(other.view(seat)), x)  # ... the same numbers


def test_what_the_seat_sees_changes_them() -> None:
    hand = play_until(7, 60)
    seat = hand.waiting_on()[0]
    view = hand.view(seat)
    discard = next(a for a in view.legal if a.kind == "discard")
    hand.apply(discard)
    after = hand.view(seat)
    assert not np.array_equal(features(after), features(view))  # a tile left the hand for the river
    assert not np.array_equal(features(hand.view((seat + 1) % 4)), features(after))  # another seat's side

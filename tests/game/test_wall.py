"""The wall (game.wall): seeded shuffle, the deal, the 赖子皮, head and tail draws."""

from __future__ import annotations

import pytest

from game.tiles import NUM_KINDS, to_counts
from game.wall import Wall, WallError, deal, shuffled


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_deal_sizes_and_every_tile_once(dealer: int) -> None:
    d = deal(seed=2024, dealer=dealer)
    assert [len(h) for h in d.hands] == [14 if s == dealer else 13 for s in range(4)]
    assert d.wall.remaining == 82
    every = [t for h in d.hands for t in h] + [d.indicator] + d.wall.tiles_left()
    assert to_counts(every) == [4] * NUM_KINDS


def test_deal_follows_the_shuffle_from_the_dealer() -> None:
    order = shuffled(7)
    d = deal(seed=7, dealer=2)
    assert d.hands[2] == tuple(order[:14]) and d.hands[3] == tuple(order[14:27])
    assert d.hands[1] == tuple(order[40:53]) and d.indicator == order[53]
    assert d.wall.tiles_left() == order[54:]


def test_same_seed_same_wall_other_seed_other_wall() -> None:
    assert shuffled(11) == shuffled(11)
    assert shuffled(11) != shuffled(12)


def test_head_and_tail_draws() -> None:
    wall = Wall([1, 2, 3, 4])
    assert (wall.draw(), wall.draw_replacement(), wall.remaining) == (1, 4, 2)
    assert wall.tiles_left() == [2, 3]
    assert (wall.draw_replacement(), wall.draw()) == (3, 2)
    with pytest.raises(WallError):
        wall.draw()
    with pytest.raises(WallError):
        wall.draw_replacement()

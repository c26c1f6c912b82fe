"""The wall (RULES.md §3): a seeded shuffle, the deal, the 赖子皮, head draws and tail (replacement) draws.

>>> d = deal(seed=7, dealer=0)
>>> [len(h) for h in d.hands], d.wall.remaining
([14, 13, 13, 13], 82)
>>> head, tail = d.wall.tiles_left()[0], d.wall.tiles_left()[-1]
>>> (d.wall.draw(), d.wall.draw_replacement(), d.wall.remaining) == (head, tail, 80)
True

The shuffle is ``random.Random(seed).shuffle`` of the 136 tiles in kind order. The deal takes, in that
order, 14 tiles for the dealer, then 13 for each following seat in turn order, then one tile face up as
the 赖子皮; every other tile is drawable (82 at the start).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from game.tiles import Tile, all_tiles

DEALER_TILES = 14
HAND_TILES = 13


class WallError(ValueError):
    """A draw from an empty wall."""


class Wall:
    """The drawable tiles, head first. ``draw`` takes from the head, ``draw_replacement`` from the tail."""

    __slots__ = ("_head", "_tail", "_tiles")

    def __init__(self, tiles: Sequence[Tile]) -> None:
        self._tiles = list(tiles)
        self._head = 0
        self._tail = len(self._tiles)

    @property
    def remaining(self) -> int:
        """How many tiles are still drawable."""
        return self._tail - self._head

    def draw(self) -> Tile:
        if self._head >= self._tail:
            raise WallError("the wall is empty")
        self._head += 1
        return self._tiles[self._head - 1]

    def draw_replacement(self) -> Tile:
        if self._head >= self._tail:
            raise WallError("the wall is empty")
        self._tail -= 1
        return self._tiles[self._tail]

    def tiles_left(self) -> list[Tile]:
        """The drawable tiles, head first (for tests and for revealing the wall after a hand)."""
        return self._tiles[self._head : self._tail]


@dataclass(frozen=True)
class Deal:
    hands: tuple[tuple[Tile, ...], ...]  # by seat; the dealer's has 14 tiles
    indicator: Tile  # 赖子皮: face up, out of play
    wall: Wall


def shuffled(seed: int) -> list[Tile]:
    """The 136 tiles in the order the seed shuffles them."""
    order = all_tiles()
    random.Random(seed).shuffle(order)
    return order


def deal(seed: int, dealer: int) -> Deal:
    """Shuffle with ``seed`` and deal: 14 to the dealer, 13 to the others, then the 赖子皮."""
    order = shuffled(seed)
    hands: list[tuple[Tile, ...]] = [()] * 4
    pos = 0
    for i in range(4):
        seat = (dealer + i) % 4
        n = DEALER_TILES if i == 0 else HAND_TILES
        hands[seat] = tuple(order[pos : pos + n])
        pos += n
    return Deal(tuple(hands), order[pos], Wall(order[pos + 1 :]))

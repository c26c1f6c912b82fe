"""The simulated players' way of playing: a choice among the offered actions, the same whether it reads the
bot's buttons (end-to-end tests, bench) or the engine's legal actions (choosing seeds offline).

``pick(kinds_and_tiles, allow_hu)`` sees only what a button shows: each action's kind and tile. It wins when
``allow_hu`` says so, takes every gang and peng, never chows, and discards the most isolated tile.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from game.actions import Action

# Preference among the non-discard actions; anything not listed (chi) is never chosen.
_PREFERENCE = ("hu", "xu_gang", "chong_gang", "an_gang", "hongzhong_gang", "laizi_gang", "peng", "pass")


def _isolation(tile: int, kinds: set[int]) -> tuple[int, int]:
    """Higher = more useless: honors first, then suit tiles with fewer neighbours among the kinds held."""
    if tile >= 27:
        return (10, tile)
    same_suit = [t for t in kinds if t // 9 == tile // 9 and t < 27 and t != tile]
    neighbours = sum(1 for t in same_suit if abs(t - tile) <= 2)
    edge = 1 if tile % 9 in (0, 8) else 0
    return (5 - 2 * neighbours + edge, tile)


def pick(offered: Sequence[Action], allow_hu: Callable[[Action], bool]) -> Action:
    by_kind = {a.kind: a for a in offered}
    for kind in _PREFERENCE:
        action = by_kind.get(kind)
        if action is None or (kind == "hu" and not allow_hu(action)):
            continue
        return action
    discards = [a for a in offered if a.kind == "discard"]
    kinds = {a.tile for a in discards if a.tile is not None}
    return max(discards, key=lambda a: _isolation(a.tile or 0, kinds))

"""What the learned player's network reads: one seat's view as numbers, nothing hidden.

    x = features(view)          # shape (CHANNELS * 34 + SCALARS,), float32

Seats are taken from the viewer's side (0 = the viewer, 1 = the next seat to play, 2 = across, 3 = before
it), so the network learns one seat's play whatever its number. Per tile kind (34 columns) the channels are:
the own concealed tiles as 1, 2, 3, 4 or more (four planes), the drawn tile, each seat's melded tiles (a hidden
暗杠 shows nothing), each seat's river, the tiles this seat has not seen (``game.ai.unseen_counts``, / 4), the
赖子 and the indicator. The scalars: the wall left, the dealer, and per seat its melds, whether it is open,
its 红中杠, 赖子杠 and thrown 赖子, and its §9 multiplier (log2, as ``game.ai.factor_of`` computes it); the
match's running scores are not in a seat's view of a hand, and a hand's payments do not depend on them.
Everything comes from the ``SeatView``, so two worlds that look the same to the seat give the same numbers.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Final

import numpy as np
import numpy.typing as npt

from game.ai import factor_of, unseen_counts
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, Tile, to_counts
from game.view import SeatView

_WALL_AT_DEAL: Final = 82  # drawable tiles after the deal (game.ai's scale)
CHANNELS: Final = 4 + 1 + 4 + 4 + 1 + 2
SCALARS: Final = 2 + 4 * 7
SIZE: Final = CHANNELS * NUM_KINDS + SCALARS


def features(view: SeatView) -> npt.NDArray[np.float32]:
    """The network's input for the seat whose view this is."""
    me = view.seat
    if me is None:
        raise ValueError("a spectator's view has no seat to play")
    order = [(me + k) % 4 for k in range(4)]
    planes = np.zeros((CHANNELS, NUM_KINDS), dtype=np.float32)
    own = to_counts([*view.hand, *([view.drawn] if view.drawn is not None else [])])
    for n in range(4):
        planes[n] = [c > n for c in own]
    if view.drawn is not None:
        planes[4, view.drawn] = 1
    for k, s in enumerate(order):
        for m in view.melds[s]:
            for t in m.all_tiles():
                if t != HIDDEN:
                    planes[5 + k, t] += 0.25
        for t in view.rivers[s]:
            planes[9 + k, t] += 0.25
    planes[13] = np.asarray(unseen_counts(view), dtype=np.float32) / 4
    planes[14, view.laizi] = 1
    planes[15, view.indicator] = 1
    scalars = [view.wall_remaining / _WALL_AT_DEAL, float(view.dealer == me)]
    for s in order:
        ms = view.melds[s]
        factor = factor_of(view.rules, ms, view.hongzhong_gangs[s], view.laizi_gangs[s], view.laizi_thrown[s])
        scalars += [
            len(ms) / 4,
            float(any(m.opens for m in ms)),
            view.hongzhong_gangs[s] / 4,
            view.laizi_gangs[s] / 4,
            view.laizi_thrown[s] / 4,
            math.log2(max(1.0, factor)) / 8,
            float(view.dealer == s),
        ]
    return np.concatenate([planes.ravel(), np.asarray(scalars, dtype=np.float32)])


def after_discard(view: SeatView, tile: Tile) -> SeatView:
    """The seat's view just after it discards ``tile`` on its turn (before anyone claims it), as far as
    ``features`` reads it: the tile leaves the hand for the river, a thrown 红中 counts as a 红中杠 and a thrown
    赖子 as a 丢赖子 (RULES.md §4), as ``game.table`` plays them."""
    me = view.seat
    if me is None or view.phase != "turn":
        raise ValueError("only the seat whose turn it is discards")
    held = list(view.hand) + ([view.drawn] if view.drawn is not None else [])
    held.remove(tile)

    def bump(per_seat: tuple[int, ...], by: bool) -> tuple[int, ...]:
        return tuple(n + (s == me and by) for s, n in enumerate(per_seat))

    return dataclasses.replace(
        view,
        phase="claim",
        hand=tuple(sorted(held)),
        drawn=None,
        hand_sizes=tuple(n - (s == me) for s, n in enumerate(view.hand_sizes)),
        rivers=tuple((*r, tile) if s == me else r for s, r in enumerate(view.rivers)),
        hongzhong_gangs=bump(view.hongzhong_gangs, tile == HONGZHONG),
        laizi_thrown=bump(view.laizi_thrown, tile == view.laizi),
        last_discard=(me, tile),
        legal=(),
        waits=(),
    )

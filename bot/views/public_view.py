"""What a seat (or the group) is shown of the hand: ``Hand.view``, except that nobody but the seats asked
about a discard (or a 蓄杠 tile) learns that somebody may claim it.

The engine opens a claim window only when some seat can claim; shown as it is, the window would tell everyone
that somebody holds a pair, a run or a win on that tile. So everyone not asked sees the table as it will be
when the window closes unclaimed: after a discard the next seat has drawn, after a 蓄杠 the kong is made and
its replacement drawn. A discard nobody can claim shows exactly that at once, so the two look the same.
"""

from __future__ import annotations

from dataclasses import replace

from game.melds import Meld
from game.table import HAIDI_TILES, Hand
from game.view import SeatView


def shown_view(hand: Hand, seat: int | None) -> SeatView:
    """``hand.view(seat)``, a claim window hidden from a seat not asked about it (None: the group)."""
    view = hand.view(seat)
    if view.phase not in ("claim", "rob") or (seat is not None and seat in hand.claim_asked):
        return view
    tile = hand.claim_tile
    assert tile is not None
    return closed_unclaimed(view, tile)


def closed_unclaimed(view: SeatView, tile: int) -> SeatView:
    """The public part of ``view`` as it will be once its claim window on ``tile`` closes unclaimed."""
    if view.phase == "rob":  # the 蓄杠 is made and its replacement drawn: as many tiles in hand, one less wall
        maker = view.turn
        melds = tuple(
            tuple(Meld("xu_gang", (tile,), m.from_seat) if m.kind == "peng" and m.tile == tile else m for m in ms)
            if i == maker
            else ms
            for i, ms in enumerate(view.melds)
        )
        view = replace(view, phase="turn", melds=melds, wall_remaining=view.wall_remaining - 1, last_discard=None)
        if view.seat != maker:
            return view
        if view.drawn == tile:  # the maker's own 4th tile left the hand for the meld
            return replace(view, drawn=None)
        hand = list(view.hand)
        hand.remove(tile)
        return replace(view, hand=tuple(hand))
    nxt = (view.turn + 1) % 4
    if view.wall_remaining <= HAIDI_TILES:  # the 海底 comes next, drawn seat by seat
        return replace(view, phase="haidi", turn=nxt, last_discard=None)
    sizes = tuple(n + (i == nxt) for i, n in enumerate(view.hand_sizes))
    return replace(
        view, phase="turn", turn=nxt, hand_sizes=sizes, wall_remaining=view.wall_remaining - 1, last_discard=None
    )

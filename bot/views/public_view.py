"""What a seat (or the group) is shown of the hand: ``Hand.view``, except a draw the table holds back.

Nothing shown is ever taken back. A claim window is shown as it is: the discard (or the 蓄杠 tile) lies on the
table and nobody has drawn; only the seats asked see that they may claim it (``claimable``, their buttons).
So that such a window alone does not tell everyone that somebody holds a pair, a run or a win on the tile, a
discard (or a 蓄杠) that no person deciding could claim is shown the same way for a short moment (``Held``,
decided by ``bot.table.hand``): the engine has drawn already, but the draw is held back, and every view shows
the table as it was before it (``before_draw``) until the table releases it.
"""

from __future__ import annotations

from dataclasses import replace

from bot.table.state import Held
from game.analysis import waits
from game.melds import Meld
from game.table import Hand
from game.view import SeatView


def shown_view(hand: Hand, seat: int | None, held: Held | None = None) -> SeatView:
    """``hand.view(seat)`` (None: the group's), as before the draw the table holds back, if any."""
    view = hand.view(seat)
    return view if held is None else before_draw(view, held)


def before_draw(view: SeatView, held: Held) -> SeatView:
    """``view`` (the table just after the held draw) as it was between the discard or 蓄杠 and that draw: what
    a claim window on the tile that nobody is asked about shows (tests/bot/test_public_view.py)."""
    drawer, wall = view.turn, view.wall_remaining + 1
    if held.window == "claim":  # the next seat has not drawn: one tile less in its hand, one more in the wall
        sizes = tuple(n - (i == drawer) for i, n in enumerate(view.hand_sizes))
        before = replace(view, phase="claim", turn=held.by, hand_sizes=sizes, wall_remaining=wall,
                         last_discard=(held.by, held.tile), legal=())  # fmt: skip
        if view.seat != drawer:
            return before
        return replace(before, drawn=None, waits=tuple(waits(view.hand, view.melds[drawer], view.laizi)))
    # A 蓄杠 not yet made: its tile still in the maker's hand beside the peng, no replacement drawn.
    melds = tuple(
        tuple(Meld("peng", m.tiles, m.from_seat) if m.kind == "xu_gang" and m.tile == held.tile else m for m in ms)
        if i == drawer
        else ms
        for i, ms in enumerate(view.melds)
    )
    before = replace(view, phase="rob", melds=melds, wall_remaining=wall, legal=())
    if view.seat != drawer:
        return before
    return replace(before, hand=tuple(sorted((*view.hand, held.tile))), drawn=None, waits=())

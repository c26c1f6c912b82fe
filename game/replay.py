"""A stored hand step by step: the state after each action, from one seat or with every hand open.

>>> from game.rules import Rules
>>> from game.table import Hand
>>> hand = Hand(Rules(), seed=3, dealer=0)
>>> for _ in range(5):
...     _ = hand.apply(hand.legal_actions(hand.waiting_on()[0])[-1])
>>> views = list(replay_views(Rules(), 3, 0, hand.actions, open_hands=True))
>>> len(views), views[-1].wall_remaining == hand.wall.remaining
(6, True)
>>> all(len(t) > 0 for t in views[0].revealed or ())
True
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence

from game.actions import Action
from game.rules import Rules
from game.table import Hand
from game.view import SeatView


def open_view(hand: Hand, seat: int | None = None) -> SeatView:
    """``hand.view(seat)`` with every seat's concealed tiles and 暗杠 face up (a replay, never a live table).

    Each seat's tiles are its own view's hand with its fresh draw last, as the table shows its own hand.
    """
    views = [hand.view(s) for s in range(4)]
    revealed = tuple(v.hand + ((v.drawn,) if v.drawn is not None else ()) for v in views)
    melds = tuple(views[s].melds[s] for s in range(4))
    return dataclasses.replace(hand.view(seat), revealed=revealed, melds=melds)


def replay_views(
    rules: Rules, seed: int, dealer: int, actions: Sequence[Action], seat: int | None = None, open_hands: bool = False
) -> Iterator[SeatView]:
    """The view after the deal and after each action (len(actions) + 1 views), as ``seat`` saw it (None: the
    group) or, with ``open_hands``, with all hands face up. IllegalAction if the log does not fit the seed."""
    hand = Hand(rules, seed, dealer)
    yield open_view(hand, seat) if open_hands else hand.view(seat)
    for action in actions:
        hand.apply(action)
        yield open_view(hand, seat) if open_hands else hand.view(seat)

"""What a finished hand tells about each seat, for statistics: won, how, dealt in, open, patterns, hard, cap.

>>> from game.rules import Rules
>>> from game.table import Hand
>>> hand = Hand(Rules(), seed=1, dealer=0)
>>> while not hand.finished:
...     _ = hand.apply(hand.legal_actions(hand.waiting_on()[0])[-1])
>>> facts = hand_facts(hand)
>>> len(facts), sum(f.won for f in facts) == (hand.result is not None)
(4, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from game.melds import WinHow
from game.scoring import CapKind
from game.table import Hand


@dataclass(frozen=True)
class SeatFacts:
    won: bool
    how: WinHow | None  # how the hand was won, the same for every seat; None: nobody won
    dealt_in: bool  # this seat's discard, or its robbed 蓄杠, gave the winning tile
    opened: bool  # 开口 by the end of the hand: a chi, peng or 冲杠
    patterns: tuple[str, ...]  # the winner's patterns (game.patterns ids); () for the others
    hard: bool | None  # the winner's: no 赖子 standing for another tile; None for the others
    cap: CapKind | None  # the hand's cap; None: nobody won


def hand_facts(hand: Hand) -> tuple[SeatFacts, ...]:
    """The four seats' facts of a finished hand (ValueError while it is still being played)."""
    if not hand.finished:
        raise ValueError("the hand is not over yet")
    result = hand.result
    melds = hand.view(None).melds
    out = []
    for seat in range(4):
        won = result is not None and result.winner == seat
        out.append(
            SeatFacts(
                won=won,
                how=result.how if result else None,
                dealt_in=result is not None and result.from_seat == seat,
                opened=any(m.opens for m in melds[seat]),
                patterns=result.patterns if result and won else (),
                hard=(not result.soft) if result and won else None,
                cap=result.cap if result else None,
            )
        )
    return tuple(out)

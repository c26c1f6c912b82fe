"""A settled hand in the books: what each seat is due (its payment and the flee penalties held for the hand,
RULES.md §10) and what a player's record gains from it: skill, title (§10's table, ``game.titles``), a win and
the biggest win counted. Pure: storage (``storage.hands``' ``close``) reads what stood before, stores what these
return (the player, each standings period), all in the settlement's one transaction.

    shares = book(payments=(152, -8, -16, -128), penalties=(0, 0, 0, 0), winner=0)
    gain = gain_of(skill_before=1000, share=shares[0])   # Gain(points=152, skill_after=1152, title_after=..., ...)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from game.titles import Title, title_for


@dataclass(frozen=True)
class Share:
    """A seat's share of a settlement: ``points`` with the flee penalties; ``won``: the winner's own winnings
    (None for the others), the only points a biggest win counts (a flee's compensation is no win)."""

    points: int
    won: int | None


@dataclass(frozen=True)
class Gain:
    """What a player's record, and each standings period they play in, gains from their share."""

    points: int
    skill_after: int
    title_after: Title
    wins: int  # 1 for the winner, else 0
    biggest_win: int  # the winnings a biggest win counts (0: none)


def book(payments: Sequence[int], penalties: Sequence[int], winner: int | None) -> list[Share]:
    """Each seat's share of a hand settled with ``payments`` and the flee ``penalties`` stored for it."""
    return [
        Share(paid + penalty, paid if seat == winner else None)
        for seat, (paid, penalty) in enumerate(zip(payments, penalties, strict=True))
    ]


def gain_of(skill_before: int, share: Share) -> Gain:
    """A player's gain from their share: skill moves by the points, the title follows the skill."""
    after = skill_before + share.points
    won = share.won is not None
    return Gain(share.points, after, title_for(after), int(won), max(share.won or 0, 0))

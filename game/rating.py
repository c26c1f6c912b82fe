"""The rating across all play (docs/RATING.md): openskill's Plackett-Luce model over a match's four places.

A person's rating is a belief, ``mu`` and its uncertainty ``sigma``; they are ordered by ``ordinal``
(mu - 3 sigma: what they are surely at least), shown as mu with the range mu ± 2 sigma. Automatic players
take part with fixed ratings by level (never changed), so finishing above ``hard`` counts for more than above
``easy``. Only matches with at least ``MIN_PEOPLE`` people are rated (``storage.ratings`` decides); a person
who fled takes part below every seat.

    new = rated([START, START, automatic("hard"), START], totals=(120, -40, 10, -90))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from openskill.models import PlackettLuce

MODEL: Final = PlackettLuce()  # its defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
MIN_PEOPLE: Final = 2  # a match with fewer people is not rated
MIN_RATED_MATCHES: Final = 5  # /top global lists those with at least this many rated matches


@dataclass(frozen=True)
class Rating:
    mu: float
    sigma: float

    @property
    def ordinal(self) -> float:
        return self.mu - 3 * self.sigma

    @property
    def low(self) -> float:
        return self.mu - 2 * self.sigma

    @property
    def high(self) -> float:
        return self.mu + 2 * self.sigma


START: Final = Rating(MODEL.mu, MODEL.sigma)
# The automatic players' fixed ratings: easy < normal < hard (bench/ai.py measures that order), each sure of itself.
AUTOMATIC: Final[dict[str, Rating]] = {
    "easy": Rating(18.0, 1.0),
    "normal": Rating(25.0, 1.0),
    "hard": Rating(30.0, 1.0),
}


def automatic(level: str) -> Rating:
    return AUTOMATIC[level]


def places(totals: Sequence[int]) -> list[int]:
    """Each seat's place by its match total: 1 the most; equal totals share a place."""
    return [1 + sum(other > mine for other in totals) for mine in totals]


def rated(seats: Sequence[Rating], totals: Sequence[int], fled: Sequence[Rating] = ()) -> list[Rating]:
    """Every seat's rating after a match that ended with these totals (the automatic players' to be ignored),
    then those of the people who ``fled`` it: placed below every seat, sharing that place (leaving a match one is
    losing must not spare one's rating)."""
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in (*seats, *fled)]
    last = float(len(seats) + 1)
    after = MODEL.rate(teams, ranks=[float(p) for p in places(totals)] + [last] * len(fled))
    return [Rating(team[0].mu, team[0].sigma) for team in after]

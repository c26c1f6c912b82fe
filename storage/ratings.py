"""The rating across all play (``game.rating``, docs/RATING.md): one row a person, updated by every finished
match with at least two people, in the transaction that closes the match (``Matches.finish``).

    mine = await db.ratings.get(player_id)        # RatedPlayer (rating, matches, place) or None: never rated
    best = await db.ratings.top(limit=10)          # with at least MIN_RATED_MATCHES rated matches
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from game.rating import MIN_PEOPLE, MIN_RATED_MATCHES, START, Rating, automatic, rated
from storage.codec import check_int, timestamp
from storage.gateway import Gateway, Row, Tx


@dataclass(frozen=True)
class RatedPlayer:
    player_id: int
    name: str
    rating: Rating
    matches: int
    place: int  # among everyone rated, by ordinal (1: the best)


async def rate_match(
    tx: Tx,
    seats: tuple[tuple[int | None, str | None], ...],
    totals: tuple[int, ...],
    now: datetime,
    fled: tuple[int, ...] = (),
) -> bool:
    """Rate a finished match (``seats``: each one's player id, or None and the automatic level; ``fled``: the
    people who left it by /flee, rated below every seat), inside the transaction that closes it; whether it was
    rated (not with fewer than MIN_PEOPLE people)."""
    fled = tuple(pid for pid in fled if pid not in {p for p, _ in seats})  # one who fled and sat down again: as seated
    people = [pid for pid, _ in seats if pid is not None] + list(fled)
    if len(people) < MIN_PEOPLE:
        return False
    marks = ",".join("?" * len(people))
    rows = await tx.execute_fetchall(f"SELECT player_id, mu, sigma FROM ratings WHERE player_id IN ({marks})", people)
    known = {r["player_id"]: Rating(r["mu"], r["sigma"]) for r in rows}
    before = [known.get(pid, START) if pid is not None else automatic(level or "normal") for pid, level in seats]
    everyone = [*seats, *((pid, None) for pid in fled)]
    for (pid, _), after in zip(everyone, rated(before, totals, [known.get(pid, START) for pid in fled]), strict=True):
        if pid is None:
            continue  # an automatic player's rating is fixed
        await tx.execute(
            """INSERT INTO ratings (player_id, mu, sigma, ordinal, matches, updated_at) VALUES (?, ?, ?, ?, 1, ?)
               ON CONFLICT (player_id) DO UPDATE SET mu = excluded.mu, sigma = excluded.sigma,
                   ordinal = excluded.ordinal, matches = ratings.matches + 1, updated_at = excluded.updated_at""",
            (pid, after.mu, after.sigma, after.ordinal, timestamp(now)),
        )
    return True


class Ratings:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def get(self, player_id: int) -> RatedPlayer | None:
        """A person's rating and place among everyone; None if no match of theirs was rated."""
        check_int(player_id, "player id", 1)
        rows = await self._db.fetchall(
            """SELECT r.player_id, p.display_name, r.mu, r.sigma, r.matches,
                      (SELECT COUNT(*) FROM ratings o WHERE o.ordinal > r.ordinal) + 1 AS place
               FROM ratings r JOIN players p ON p.id = r.player_id WHERE r.player_id = ?""",
            (player_id,),
        )
        return _rated(rows[0]) if rows else None

    async def top(self, limit: int = 10, min_matches: int = MIN_RATED_MATCHES) -> list[RatedPlayer]:
        """The best by ordinal among those with at least ``min_matches`` rated matches."""
        check_int(limit, "limit", 1, 100)
        rows = await self._db.fetchall(
            """SELECT r.player_id, p.display_name, r.mu, r.sigma, r.matches,
                      (SELECT COUNT(*) FROM ratings o WHERE o.ordinal > r.ordinal) + 1 AS place
               FROM ratings r JOIN players p ON p.id = r.player_id
               WHERE r.matches >= ? ORDER BY r.ordinal DESC, r.player_id LIMIT ?""",
            (min_matches, limit),
        )
        return [_rated(r) for r in rows]


def _rated(r: Row) -> RatedPlayer:
    return RatedPlayer(r["player_id"], r["display_name"], Rating(r["mu"], r["sigma"]), r["matches"], r["place"])

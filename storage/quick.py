"""The quick-match queue (``bot.quick``): who waits, for which preset, since when and for how long at most;
the numbers of quick tables; the others of each person's last two quick tables (fair play).

    await db.quick.join(player_id, "kaikoufan", wait_s=60)   # False: already waiting
    for w in await db.quick.waiting(): ...                   # oldest first, with their rating
    number = await db.quick.seat([1, 2, 3])                  # None: one of them left the queue meanwhile
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from game.rating import START, Rating
from game.rules import PRESETS
from storage.codec import check_choice, check_int, parse_timestamp, timestamp
from storage.errors import InvalidInputError
from storage.gateway import Gateway, Tx

MAX_WAIT_S = 3600


@dataclass(frozen=True)
class Waiting:
    player_id: int
    name: str
    language: str
    preset: str
    wait_s: int
    joined_at: datetime
    rating: Rating
    last: frozenset[int] = frozenset()  # the other people of their last quick table
    earlier: frozenset[int] = frozenset()  # and of the one before


def _ids(text: str) -> frozenset[int]:
    return frozenset(int(x) for x in text.split(",") if x)


def _text(ids: Sequence[int]) -> str:
    return ",".join(str(i) for i in sorted(ids))


class _Changed(Exception):
    """Someone of a group left the queue while it was being seated: nothing is stored."""


class QuickQueue:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def join(self, player_id: int, preset: str, wait_s: int) -> bool:
        """Put a (stored) player in the queue; False if they wait already."""
        check_int(player_id, "player id", 1)
        check_choice(preset, "preset", PRESETS)
        check_int(wait_s, "wait", 1, MAX_WAIT_S)
        changed = await self._db.execute(
            """INSERT INTO quick_queue (player_id, preset, wait_s, joined_at) VALUES (?, ?, ?, ?)
               ON CONFLICT (player_id) DO NOTHING""",
            (player_id, preset, wait_s, timestamp(self._db.now())),
        )
        return changed == 1

    async def leave(self, player_id: int) -> bool:
        """Take a player out of the queue; False if they were not in it."""
        return await self._db.execute("DELETE FROM quick_queue WHERE player_id = ?", (player_id,)) == 1

    async def waits(self, player_id: int) -> bool:
        return bool(await self._db.fetchall("SELECT 1 FROM quick_queue WHERE player_id = ?", (player_id,)))

    async def waiting(self) -> list[Waiting]:
        """Everyone in the queue, oldest first, with their rating (the start's if never rated) and recent tables."""
        rows = await self._db.fetchall(
            """SELECT q.player_id, p.display_name, p.language, q.preset, q.wait_s, q.joined_at, r.mu, r.sigma,
                      c.last, c.earlier
               FROM quick_queue q JOIN players p ON p.id = q.player_id
               LEFT JOIN ratings r ON r.player_id = q.player_id
               LEFT JOIN quick_recent c ON c.player_id = q.player_id
               ORDER BY q.joined_at, q.player_id"""
        )
        return [
            Waiting(
                r["player_id"],
                r["display_name"],
                r["language"],
                r["preset"],
                r["wait_s"],
                parse_timestamp(r["joined_at"]),
                Rating(r["mu"], r["sigma"]) if r["mu"] is not None else START,
                _ids(r["last"] or ""),
                _ids(r["earlier"] or ""),
            )
            for r in rows
        ]

    async def seat(self, people: Sequence[int]) -> int | None:
        """Take these people out of the queue together and number their table, in one transaction; None (and
        nothing changed) if one of them is no longer waiting."""
        if not people or len(set(people)) != len(people):
            raise InvalidInputError("a quick table seats distinct people")

        try:
            async with self._db.transaction() as tx:
                return await self._seat(tx, people)
        except _Changed:
            return None

    async def _seat(self, tx: Tx, people: Sequence[int]) -> int:
        """In the transaction: out of the queue (all of them, or _Changed), a new number, their recent tables."""
        marks = ",".join("?" * len(people))
        taken = await tx.execute(f"DELETE FROM quick_queue WHERE player_id IN ({marks})", tuple(people))
        if taken.rowcount != len(people):
            raise _Changed
        number = await self._new_number(tx)
        for pid in people:
            others = _text([p for p in people if p != pid])
            await tx.execute(
                """INSERT INTO quick_recent (player_id, last, earlier) VALUES (?, ?, '')
                   ON CONFLICT (player_id) DO UPDATE SET earlier = quick_recent.last, last = excluded.last""",
                (pid, others),
            )
        return number

    async def set_wait(self, player_id: int, wait_s: int) -> bool:
        """A new wait for one already waiting; False if they are not."""
        check_int(wait_s, "wait", 1, MAX_WAIT_S)
        return await self._db.execute("UPDATE quick_queue SET wait_s = ? WHERE player_id = ?", (wait_s, player_id)) == 1

    async def number(self) -> int:
        """A new quick table's number (the one ``seat`` gave belongs to a shard another worker holds)."""
        async with self._db.transaction() as tx:
            return await self._new_number(tx)

    async def _new_number(self, tx: Tx) -> int:
        rows = list(
            await tx.execute_fetchall(
                "INSERT INTO quick_tables (created_at) VALUES (?) RETURNING id", (timestamp(self._db.now()),)
            )
        )
        return int(rows[0]["id"])

    async def seated(self, player_id: int) -> str | None:
        """The title of a running match (of any table, group or quick) where the player sits, or None."""
        rows = await self._db.fetchall(
            """SELECT m.title FROM matches m JOIN match_seats s ON s.match_id = m.id
               WHERE m.status = 'running' AND s.player_id = ? LIMIT 1""",
            (player_id,),
        )
        return (rows[0]["title"] or "?") if rows else None

"""Matches: a run of hands at one table (one group chat, or one topic of a forum group), with its seats and
running totals.

Seats hold a player id, or an automatic player: stored as player_id NULL with its level in auto_level.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final, Literal

from game.automatic import LEVELS as AUTO_LEVELS
from game.rules import Rules
from storage.codec import (
    SQLITE_INT_MAX,
    check_choice,
    check_int,
    dump_rules,
    load_rules,
    parse_timestamp,
    timestamp,
)
from storage.errors import AlreadyClosedError, InvalidInputError, NotFoundError
from storage.gateway import Gateway, Row, Tx
from storage.ratings import rate_match

MatchStatus = Literal["running", "done", "abandoned"]
SEATS = 4
MAX_MATCH_HANDS: Final = 1000  # the most hands one match (a league night included) may plan
MAX_TITLE: Final = 300  # a table's title: a group's (up to 128 characters) and a topic's name (128) with " · "


@dataclass(frozen=True)
class Seat:
    player_id: int | None = None  # None: an automatic player
    auto_level: str | None = None

    @classmethod
    def human(cls, player_id: int) -> Seat:
        return cls(player_id=player_id)

    @classmethod
    def auto(cls, level: str = "normal") -> Seat:
        return cls(auto_level=level)

    @property
    def is_auto(self) -> bool:
        return self.player_id is None

    def checked(self, what: str) -> Seat:
        if (self.player_id is None) == (self.auto_level is None):
            raise InvalidInputError(f"{what} must hold either a player id or an automatic player's level")
        if self.player_id is not None:
            check_int(self.player_id, f"{what}'s player id", 1, SQLITE_INT_MAX)
        else:
            check_choice(self.auto_level, f"{what}'s automatic level", AUTO_LEVELS)
        return self


def seat_from_row(row: Row) -> Seat:
    return Seat(player_id=row["player_id"], auto_level=row["auto_level"])


@dataclass(frozen=True)
class Match:
    id: int
    chat_id: int
    seed: int
    rules: Rules
    hands_planned: int
    status: MatchStatus
    seats: tuple[Seat, ...]
    totals: tuple[int, ...]  # per seat, the sum of every settled hand's payments
    league_night_id: int | None
    started_at: datetime
    ended_at: datetime | None
    thread_id: int | None = None  # the forum topic the table plays in; None: the General topic or no topics
    creator_id: int | None = None  # who opened the table (0: nobody's); None: not stored (an older match)
    title: str | None = None  # the table's name in private messages; None: not stored (an older match)


async def load_match(tx: Tx, match_id: int) -> Match:
    """The match as stored, read on a connection already held (inside a transaction)."""
    rows = list(await tx.execute_fetchall("SELECT * FROM matches WHERE id = ?", (match_id,)))
    if not rows:
        raise NotFoundError(f"no match {match_id}")
    row = rows[0]
    seats = list(
        await tx.execute_fetchall(
            "SELECT player_id, auto_level, total FROM match_seats WHERE match_id = ? ORDER BY seat", (match_id,)
        )
    )
    return Match(
        id=row["id"],
        chat_id=row["chat_id"],
        seed=row["seed"],
        rules=load_rules(row["rules"], f"match {match_id}"),
        hands_planned=row["hands_planned"],
        status=row["status"],
        seats=tuple(seat_from_row(s) for s in seats),
        totals=tuple(s["total"] for s in seats),
        league_night_id=row["league_night_id"],
        started_at=parse_timestamp(row["started_at"]),
        ended_at=parse_timestamp(row["ended_at"]) if row["ended_at"] else None,
        thread_id=row["thread_id"],
        creator_id=row["creator_id"],
        title=row["title"],
    )


def checked_seats(seats: Sequence[Seat]) -> list[Seat]:
    if len(seats) != SEATS:
        raise InvalidInputError(f"a match needs exactly {SEATS} seats, not {len(seats)}")
    checked = [seat.checked(f"seat {i}") for i, seat in enumerate(seats)]
    humans = [s.player_id for s in checked if s.player_id is not None]
    if len(set(humans)) != len(humans):
        raise InvalidInputError("a player cannot take two seats")
    return checked


def _check_ids(chat_id: int, thread_id: int | None, creator_id: int | None) -> None:
    check_int(chat_id, "chat id")
    for value, what, low in ((thread_id, "thread id", 1), (creator_id, "creator id", 0)):
        if value is not None:
            check_int(value, what, low)


class Matches:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def create(
        self,
        chat_id: int,
        seed: int,
        rules: Rules | str | dict[str, object],
        seats: Sequence[Seat],
        hands_planned: int,
        league_night_id: int | None = None,
        *,
        thread_id: int | None = None,
        creator_id: int | None = None,
        title: str | None = None,
    ) -> Match:
        """A running match (in the forum topic ``thread_id``, opened by ``creator_id``, called ``title``); every
        human seat must be a registered player."""
        _check_ids(chat_id, thread_id, creator_id)
        title = title[:MAX_TITLE] if title is not None and title.strip() else None  # a name, never a refusal
        check_int(seed, "seed", 0, SQLITE_INT_MAX)
        check_int(hands_planned, "hands planned", 1, MAX_MATCH_HANDS)
        rules_json = dump_rules(rules)
        seat_list = checked_seats(seats)
        async with self._db.transaction() as tx:
            await self._check_players(tx, seat_list)
            if league_night_id is not None:
                found = list(await tx.execute_fetchall("SELECT 1 FROM league_nights WHERE id = ?", (league_night_id,)))
                if not found:
                    raise NotFoundError(f"no league night {league_night_id}")
            new = await tx.execute_fetchall(
                """INSERT INTO matches (chat_id, seed, rules, hands_planned, status, started_at, league_night_id,
                       thread_id, creator_id, title)
                   VALUES (?, ?, ?, ?, 'running', ?, ?, ?, ?, ?) RETURNING id""",
                (
                    chat_id,
                    seed,
                    rules_json,
                    hands_planned,
                    timestamp(self._db.now()),
                    league_night_id,
                    thread_id,
                    creator_id,
                    title,
                ),
            )
            match_id = next(iter(new))["id"]
            await tx.executemany(
                "INSERT INTO match_seats (match_id, seat, player_id, auto_level, total) VALUES (?, ?, ?, ?, 0)",
                [(match_id, i, s.player_id, s.auto_level) for i, s in enumerate(seat_list)],
            )
            return await load_match(tx, match_id)

    async def get(self, match_id: int) -> Match:
        async with self._db.transaction(write=False) as tx:
            return await load_match(tx, match_id)

    async def running(self, chat_id: int) -> Match | None:
        """The chat's running match, if any (the newest, should there be several)."""
        async with self._db.transaction(write=False) as tx:
            rows = list(
                await tx.execute_fetchall(
                    "SELECT id FROM matches WHERE chat_id = ? AND status = 'running' ORDER BY id DESC LIMIT 1",
                    (chat_id,),
                )
            )
            return await load_match(tx, rows[0]["id"]) if rows else None

    async def all_running(self) -> list[Match]:
        """Every running match, oldest first (at start-up: the tables to take up again)."""
        async with self._db.transaction(write=False) as tx:
            rows = list(await tx.execute_fetchall("SELECT id FROM matches WHERE status = 'running' ORDER BY id"))
            return [await load_match(tx, row["id"]) for row in rows]

    async def replace_seat(self, match_id: int, seat: int, new: Seat) -> Match:
        """Put someone else in a seat for the match's next hands (e.g. an automatic player for one who fled)."""
        check_int(seat, "seat", 0, SEATS - 1)
        new.checked(f"seat {seat}")
        async with self._db.transaction() as tx:
            match = await load_match(tx, match_id)
            if match.status != "running":
                raise AlreadyClosedError(f"match {match_id} is {match.status}")
            seats = list(match.seats)
            seats[seat] = new
            checked_seats(seats)
            await self._check_players(tx, [new])
            await tx.execute(
                "UPDATE match_seats SET player_id = ?, auto_level = ? WHERE match_id = ? AND seat = ?",
                (new.player_id, new.auto_level, match_id, seat),
            )
            return await load_match(tx, match_id)

    async def set_rules(self, match_id: int, rules: Rules) -> Match:
        """Deal the running match's next hands under these rules (a group changed its /settings)."""
        rules_json = dump_rules(rules)
        async with self._db.transaction() as tx:
            match = await load_match(tx, match_id)
            if match.status != "running":
                raise AlreadyClosedError(f"match {match_id} is {match.status}")
            await tx.execute("UPDATE matches SET rules = ? WHERE id = ?", (rules_json, match_id))
            return await load_match(tx, match_id)

    async def finish(self, match_id: int, status: Literal["done", "abandoned"] = "done") -> Match:
        """End a running match. 'done' needs no hand in play; 'abandoned' abandons the hand in play."""
        check_choice(status, "status", ("done", "abandoned"))
        async with self._db.transaction() as tx:
            match = await load_match(tx, match_id)
            if match.status != "running":
                raise AlreadyClosedError(f"match {match_id} is already {match.status}")
            playing = list(
                await tx.execute_fetchall("SELECT id FROM hands WHERE match_id = ? AND status = 'playing'", (match_id,))
            )
            if playing and status == "done":
                raise InvalidInputError(f"match {match_id} still has hand {playing[0]['id']} in play")
            now = timestamp(self._db.now())
            await tx.execute(
                "UPDATE hands SET status = 'abandoned', ended_at = ? WHERE match_id = ? AND status = 'playing'",
                (now, match_id),
            )
            await tx.execute("UPDATE matches SET status = ?, ended_at = ? WHERE id = ?", (status, now, match_id))
            closed = await load_match(tx, match_id)
            if status == "done":  # an abandoned match is not rated; one with too few people neither (rate_match)
                seats = tuple((s.player_id, s.auto_level) for s in closed.seats)
                fled = await tx.execute_fetchall(  # who paid a flee penalty (its negative share) in one of its hands
                    """SELECT DISTINCT s.player_id FROM hand_penalties p
                       JOIN hand_seats s ON s.hand_id = p.hand_id AND s.seat = p.seat JOIN hands h ON h.id = p.hand_id
                       WHERE h.match_id = ? AND p.points < 0 AND s.player_id IS NOT NULL ORDER BY s.player_id""",
                    (match_id,),
                )
                gone = tuple(r["player_id"] for r in fled)
                await rate_match(tx, seats, closed.totals, self._db.now(), gone)
            return closed

    @staticmethod
    async def _check_players(tx: Tx, seats: Sequence[Seat]) -> None:
        for seat in seats:
            if seat.player_id is not None:
                found = list(await tx.execute_fetchall("SELECT 1 FROM players WHERE id = ?", (seat.player_id,)))
                if not found:
                    raise NotFoundError(f"no player {seat.player_id} (register players before seating them)")

"""Hands: one deal of a match, its action log, and the settlement that closes it.

    hand = await db.hands.start(match.id, seed=hand_seed, dealer=0)
    await db.hands.append_action(hand.id, seq, {"s": 0, "k": "discard", "t": "5m"})   # seq = 0, 1, 2, …
    closed = await db.hands.close(hand.id, payments=(152, -8, -16, -128), winner=0, summary={...},
                                  facts=game.facts.hand_facts(engine_hand), tuoguan=(0, 2, 0, 0))
    reveal = await db.hands.reveal(hand.id)          # seed and salt, only once the hand is settled
    shared = await db.hands.by_code(closed.share_code)  # everything a replay needs

close() writes the settlement rows (with each seat's facts for /stats), the players' skill and title, the
standings, the match totals, the hand's share code and status in ONE transaction: after a crash a hand is
either wholly settled or still in play.

Verifiable deals (game.verify): start() draws a salt and stores the commitment to the hand's seed, which
``HandRecord.commitment`` carries for the deal message. The salt never leaves storage before the hand is
settled: ``reveal`` returns None until then, and no other method returns it.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final, Literal

from game.facts import SeatFacts
from game.ledger import Share, book, gain_of
from game.rules import Rules
from game.titles import Title, title_named
from game.verify import SHARE_ALPHABET, SHARE_CODE_LEN, commitment, fresh_salt, reveal_text
from storage.codec import (
    SQLITE_INT_MAX,
    check_int,
    dump_json,
    load_json,
    load_rules,
    parse_timestamp,
    timestamp,
)
from storage.errors import (
    ActionOrderError,
    AlreadyClosedError,
    FencedError,
    InvalidInputError,
    NotFoundError,
    StorageError,
)
from storage.gateway import Gateway, Row, Tx
from storage.group_append import GroupAppends
from storage.matches import SEATS, Match, Seat, load_match, seat_from_row
from storage.standings import periods_of
from storage.stats import pattern_mask

HandStatus = Literal["playing", "done", "abandoned"]
_CODE_TRIES: Final = 8


@dataclass(frozen=True)
class HandRecord:
    id: int
    match_id: int
    chat_id: int
    hand_no: int  # 1, 2, … within the match
    seed: int
    dealer: int
    rules: Rules
    status: HandStatus
    seats: tuple[Seat, ...]
    started_at: datetime
    ended_at: datetime | None
    winner: int | None
    summary: Any  # the JSON summary given to close(), None until then
    commitment: str | None  # SHA-256 of the seed and salt (game.verify), for the deal; None: dealt before it
    share_code: str | None  # once settled ('done'); None before (and for hands settled before codes existed)


@dataclass(frozen=True)
class SeatResult:
    seat: int
    player_id: int | None  # None: an automatic player (no skill)
    points: int
    skill_before: int | None
    skill_after: int | None
    title_before: Title | None
    title_after: Title | None

    @property
    def title_changed(self) -> bool:
        return self.title_before != self.title_after


@dataclass(frozen=True)
class ClosedHand:
    hand_id: int
    winner: int | None
    results: tuple[SeatResult, ...]  # per seat
    match_totals: tuple[int, ...]  # per seat, after this hand
    share_code: str  # for /replay


@dataclass(frozen=True)
class Reveal:
    """What proves a settled hand's deal: anyone can check ``text`` against ``commitment`` (game.verify)."""

    seed: int
    salt: str
    commitment: str

    @property
    def text(self) -> str:
        """``"<seed>:<salt>"``, the first argument of ``python -m game.verify``."""
        return reveal_text(self.seed, self.salt)


@dataclass(frozen=True)
class SharedHand:
    """A settled hand found by its share code: everything a replay needs."""

    code: str
    hand: HandRecord  # rules, seed, dealer, seats, chat, winner, summary, times
    names: tuple[str | None, ...]  # display names by seat; None: an automatic player
    points: tuple[int, ...]  # per seat, as settled (flee penalties included)
    actions: list[Any]  # as stored: game.table.Action.from_json each
    reveal: Reveal | None  # None for a hand dealt before commitments existed


@dataclass(frozen=True)
class ResumableHand:
    """A hand still in play, with everything needed to rebuild it by replaying its actions."""

    hand: HandRecord
    match: Match
    actions: list[Any]


_HAND_SELECT = "SELECT h.*, m.chat_id FROM hands h JOIN matches m ON m.id = h.match_id"


async def _load_hand(tx: Tx, hand_id: int) -> HandRecord:
    rows = list(await tx.execute_fetchall(_HAND_SELECT + " WHERE h.id = ?", (hand_id,)))
    if not rows:
        raise NotFoundError(f"no hand {hand_id}")
    seats = list(
        await tx.execute_fetchall(
            "SELECT player_id, auto_level FROM hand_seats WHERE hand_id = ? ORDER BY seat", (hand_id,)
        )
    )
    return _hand_from_row(rows[0], tuple(seat_from_row(s) for s in seats))


def _zero_sum(values: Sequence[int], whole: str, each: str, bound: int) -> list[int]:
    """Four whole amounts within ±bound that add up to zero (``whole``/``each`` name them in the complaint)."""
    if len(values) != SEATS:
        raise InvalidInputError(f"{whole} must list {SEATS} seats, not {len(values)}")
    amounts = [check_int(v, f"{each} of seat {i}", -bound, bound) for i, v in enumerate(values)]
    if sum(amounts) != 0:
        raise InvalidInputError(f"{whole} must sum to zero, not {sum(amounts)}")
    return amounts


def _penalty_amounts(points: Sequence[int]) -> list[int]:
    return _zero_sum(points, "a penalty", "penalty", 10**9)


async def _insert_penalty(tx: Tx, hand_id: int, amounts: Sequence[int], created: str) -> None:
    await tx.executemany(
        "INSERT INTO hand_penalties (hand_id, seat, points, created_at) VALUES (?, ?, ?, ?)",
        [(hand_id, seat, pts, created) for seat, pts in enumerate(amounts) if pts],
    )


async def _penalty_totals(tx: Tx, hand_id: int) -> tuple[int, ...]:
    """The flee penalties stored with a hand, per seat."""
    totals = [0] * SEATS
    for row in await tx.execute_fetchall(
        "SELECT seat, SUM(points) AS points FROM hand_penalties WHERE hand_id = ? GROUP BY seat", (hand_id,)
    ):
        totals[row["seat"]] = row["points"]
    return tuple(totals)


async def _load_playing_hand(tx: Tx, hand_id: int) -> HandRecord:
    """The hand, which must still be in play: a closed or abandoned hand takes no more changes."""
    hand = await _load_hand(tx, hand_id)
    if hand.status != "playing":
        raise AlreadyClosedError(f"hand {hand_id} is already {hand.status}")
    return hand


def _hand_from_row(row: Row, seats: tuple[Seat, ...]) -> HandRecord:
    hand_id = row["id"]
    return HandRecord(
        id=hand_id,
        match_id=row["match_id"],
        chat_id=row["chat_id"],
        hand_no=row["hand_no"],
        seed=row["seed"],
        dealer=row["dealer"],
        rules=load_rules(row["rules"], f"hand {hand_id}"),
        status=row["status"],
        seats=seats,
        started_at=parse_timestamp(row["started_at"]),
        ended_at=parse_timestamp(row["ended_at"]) if row["ended_at"] else None,
        winner=row["winner"],
        summary=load_json(row["summary"], f"summary of hand {hand_id}") if row["summary"] is not None else None,
        commitment=row["commitment"],
        share_code=row["share_code"],
    )


def _actions_from_rows(hand_id: int, rows: Sequence[Row]) -> list[Any]:
    return [load_json(r["action"], f"action #{r['seq']} of hand {hand_id}") for r in rows]


def _checked_payments(payments: Sequence[int]) -> list[int]:
    return _zero_sum(payments, "payments", "payment", 10**12)


FactColumns = tuple[str | None, int | None, int | None, int, int | None, str | None, int]


def _fact_columns(facts: Sequence[SeatFacts] | None, tuoguan: Sequence[int], winner: int | None) -> list[FactColumns]:
    """Per seat, the settlement columns how, dealt_in, opened, patterns, hard, cap, tuoguan (migration 0007)."""
    if len(tuoguan) != SEATS:
        raise InvalidInputError(f"tuoguan must list {SEATS} seats, not {len(tuoguan)}")
    counts = [check_int(n, f"tuoguan of seat {i}", 0, 10**6) for i, n in enumerate(tuoguan)]
    if facts is None:
        return [(None, None, None, 0, None, None, n) for n in counts]
    if len(facts) != SEATS or any(f.won != (seat == winner) for seat, f in enumerate(facts)):
        raise InvalidInputError("facts must list the four seats, the winner's alone marked won")
    return [
        (
            f.how,
            int(f.dealt_in),
            int(f.opened),
            pattern_mask(f.patterns),
            None if f.hard is None else int(f.hard),
            f.cap,
            n,
        )
        for f, n in zip(facts, counts, strict=True)
    ]


async def _league_season(tx: Tx, match_id: int) -> tuple[int, int] | None:
    rows = list(
        await tx.execute_fetchall(
            """SELECT n.league_id, n.season FROM matches m JOIN league_nights n ON n.id = m.league_night_id
           WHERE m.id = ?""",
            (match_id,),
        )
    )
    return (rows[0]["league_id"], rows[0]["season"]) if rows else None


async def _settle_seat(tx: Tx, hand: HandRecord, seat_no: int, share: Share, periods: Sequence[str]) -> SeatResult:
    """One seat's share of a settlement stored: the player's skill, title and record, and their standings, as
    ``game.ledger`` reckons them."""
    player_id = hand.seats[seat_no].player_id
    if player_id is None:
        return SeatResult(seat_no, None, share.points, None, None, None, None)
    rows = list(await tx.execute_fetchall("SELECT skill, title FROM players WHERE id = ?", (player_id,)))
    before = rows[0]["skill"]
    gain = gain_of(before, share)
    await tx.execute(
        """UPDATE players SET skill = ?, title = ?, hands = hands + 1, wins = wins + ?,
              biggest_win = GREATEST(biggest_win, ?) WHERE id = ?""",
        (gain.skill_after, gain.title_after.zh, gain.wins, gain.biggest_win, player_id),
    )
    await tx.executemany(
        """INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)
           VALUES (?, ?, ?, ?, 1, ?, ?)
           ON CONFLICT (chat_id, period, player_id) DO UPDATE SET
               points = standings.points + excluded.points, hands = standings.hands + 1,
               wins = standings.wins + excluded.wins,
               biggest_win = GREATEST(standings.biggest_win, excluded.biggest_win)""",
        [(hand.chat_id, period, player_id, gain.points, gain.wins, gain.biggest_win) for period in periods],
    )
    title_before = title_named(rows[0]["title"])
    return SeatResult(seat_no, player_id, share.points, before, gain.skill_after, title_before, gain.title_after)


async def _insert_settlements(
    tx: Tx,
    hand: HandRecord,
    results: Sequence[SeatResult],
    winner: int | None,
    columns: Sequence[FactColumns],
    ended_at: str,
) -> None:
    await tx.executemany(
        """INSERT INTO settlements (hand_id, seat, player_id, chat_id, ended_at, points, won, skill_before,
               skill_after, how, dealt_in, opened, patterns, hard, cap, tuoguan)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        [
            (hand.id, r.seat, r.player_id, hand.chat_id, ended_at, r.points, int(r.seat == winner), r.skill_before,
             r.skill_after, *columns[r.seat])
            for r in results
        ],
    )  # fmt: skip


async def _give_share_code(tx: Tx, hand_id: int, settle: str = "", params: tuple[Any, ...] = ()) -> str:
    """A new share code for the hand, drawn again on the rare clash, with the ``settle`` assignments (if any).

    A code already taken changes nothing (the statement finds no row): a refused statement would end the whole
    transaction on PostgreSQL."""
    for _ in range(_CODE_TRIES):
        code = "".join(secrets.choice(SHARE_ALPHABET) for _ in range(SHARE_CODE_LEN))
        cursor = await tx.execute(
            f"""UPDATE hands SET {settle}share_code = ? WHERE id = ?
                AND NOT EXISTS (SELECT 1 FROM hands WHERE share_code = ?)""",
            (*params, code, hand_id, code),
        )
        if cursor.rowcount == 1:
            return code
    raise StorageError(f"no free share code for hand {hand_id} after {_CODE_TRIES} tries")


def _reveal_of(row: Row) -> Reveal | None:
    if row["status"] != "done" or row["salt"] is None:
        return None
    return Reveal(row["seed"], row["salt"], row["commitment"])


# One process's (SQLite, or PostgreSQL without workers); a worker's go together (storage.group_append).
_APPEND = """
INSERT INTO actions (hand_id, seq, action)
SELECT ?1, ?2, CAST(?3 AS TEXT) FROM hands
WHERE id = ?1 AND status = 'playing'
  AND ?2 = 1 + COALESCE((SELECT MAX(seq) FROM actions WHERE hand_id = ?1), -1)
ON CONFLICT DO NOTHING
"""


class Hands:
    def __init__(self, db: Gateway, appends: GroupAppends) -> None:
        self._db = db
        self._appends = appends  # a worker's fenced appends, many tables' in one statement

    async def start(self, match_id: int, seed: int, dealer: int) -> HandRecord:
        """The match's next hand (numbered after the last), seated as the match is now, with its rules."""
        check_int(seed, "seed", 0, SQLITE_INT_MAX)
        check_int(dealer, "dealer", 0, SEATS - 1)
        salt = fresh_salt()

        async def started(tx: Tx) -> HandRecord:
            match = await load_match(tx, match_id)
            if match.status != "running":
                raise AlreadyClosedError(f"match {match_id} is {match.status}")
            playing = list(
                await tx.execute_fetchall("SELECT id FROM hands WHERE match_id = ? AND status = 'playing'", (match_id,))
            )
            if playing:
                raise InvalidInputError(f"match {match_id} already has hand {playing[0]['id']} in play")
            new = await tx.execute_fetchall(
                """INSERT INTO hands (match_id, hand_no, seed, dealer, rules, status, started_at, salt, commitment)
                   SELECT ?1, 1 + COALESCE(MAX(hand_no), 0), CAST(?2 AS BIGINT), CAST(?3 AS BIGINT), m.rules,
                          'playing', CAST(?4 AS TEXT), CAST(?5 AS TEXT), CAST(?6 AS TEXT)
                   FROM matches m LEFT JOIN hands h ON h.match_id = m.id WHERE m.id = ?1 GROUP BY m.id, m.rules
                   RETURNING id""",
                (match_id, seed, dealer, timestamp(self._db.now()), salt, commitment(seed, salt)),
            )
            hand_id = next(iter(new))["id"]
            await tx.execute(
                """INSERT INTO hand_seats (hand_id, seat, player_id, auto_level)
                   SELECT ?, seat, player_id, auto_level FROM match_seats WHERE match_id = ?""",
                (hand_id, match_id),
            )
            return await _load_hand(tx, hand_id)

        return await self._db.write(started)

    async def get(self, hand_id: int) -> HandRecord:
        async with self._db.transaction(write=False) as tx:
            return await _load_hand(tx, hand_id)

    async def latest(self, match_id: int) -> HandRecord | None:
        """The match's newest hand (the highest hand_no), None before its first."""
        async with self._db.transaction(write=False) as tx:
            rows = list(
                await tx.execute_fetchall(
                    "SELECT id FROM hands WHERE match_id = ? ORDER BY hand_no DESC LIMIT 1", (match_id,)
                )
            )
            return await _load_hand(tx, rows[0]["id"]) if rows else None

    async def append_action(
        self, hand_id: int, seq: int, action: Mapping[str, Any], *, done: int | None = None
    ) -> None:
        """Store the hand's action number seq (0, 1, 2, … with no gaps), durably, before its effects are sent.
        ``done``: the inbox's update (bot.cluster) that asked for it, marked done in the same statement; only a
        worker's fenced view has an inbox to mark (in one process the update was claimed before it was handled).

        A duplicate or skipped seq raises ActionOrderError; a settled hand raises AlreadyClosedError.
        """
        check_int(seq, "seq", 0, SQLITE_INT_MAX)
        if not isinstance(action, Mapping):
            raise InvalidInputError(f"an action must be a JSON object, not {type(action).__name__}")
        text = dump_json(dict(action), "the action")
        fence = self._db.fence
        if done is not None and fence is None:
            raise InvalidInputError("an update is marked done with its action only by a worker's fenced view")
        if fence is not None:
            owned, appended = await self._appends.append(hand_id, seq, text, fence, done)
            if not owned:
                raise FencedError(f"shard {fence.shard} was taken over: hand {hand_id}'s action #{seq} refused")
            stored = int(appended)
        else:  # one statement, no transaction around it, on the hot path
            stored = await self._db.execute(_APPEND, (hand_id, seq, text))
        if stored == 1:
            return
        # Nothing was written: say why.
        rows = await self._db.fetchall(
            "SELECT status, (SELECT COUNT(*) FROM actions WHERE hand_id = ?1) AS stored FROM hands WHERE id = ?1",
            (hand_id,),
        )
        if not rows:
            raise NotFoundError(f"no hand {hand_id}")
        if rows[0]["status"] != "playing":
            raise AlreadyClosedError(f"hand {hand_id} is {rows[0]['status']}; no more actions")
        stored = rows[0]["stored"]
        what = "already stored" if seq < stored else "would leave a gap"
        raise ActionOrderError(f"hand {hand_id}: action #{seq} {what} (next is #{stored})")

    async def actions(self, hand_id: int) -> list[Any]:
        """The hand's actions as stored, in the order they were applied."""
        async with self._db.transaction(write=False) as tx:
            if not list(await tx.execute_fetchall("SELECT 1 FROM hands WHERE id = ?", (hand_id,))):
                raise NotFoundError(f"no hand {hand_id}")
            rows = list(
                await tx.execute_fetchall("SELECT seq, action FROM actions WHERE hand_id = ? ORDER BY seq", (hand_id,))
            )
        return _actions_from_rows(hand_id, rows)

    async def close(
        self,
        hand_id: int,
        payments: Sequence[int],
        winner: int | None,
        summary: Any = None,
        *,
        facts: Sequence[SeatFacts] | None = None,
        tuoguan: Sequence[int] = (0, 0, 0, 0),
    ) -> ClosedHand:
        """Settle a hand in play, all in one transaction, and give it its share code.

        payments: per seat, zero-sum (a 荒庄 is all zeros). Flee penalties stored with ``add_penalty`` are added
        to them here. winner: the winning seat or None. summary: any JSON (patterns, breakdown, …) kept with the
        hand for /history. facts: ``game.facts.hand_facts(hand)`` of the finished hand, for /stats (None: not
        known, e.g. a hand stopped before its end). tuoguan: per seat, how often 托管 took the seat over.
        """
        points = _checked_payments(payments)
        if winner is not None:
            check_int(winner, "winner", 0, SEATS - 1)
        columns = _fact_columns(facts, tuoguan, winner)
        summary_json = dump_json(summary, "the summary")
        ended = self._db.now()

        async def settled(tx: Tx) -> ClosedHand:
            hand = await _load_playing_hand(tx, hand_id)
            shares = book(points, await _penalty_totals(tx, hand_id), winner)
            periods = periods_of(ended, await _league_season(tx, hand.match_id))
            results = [await _settle_seat(tx, hand, seat_no, share, periods) for seat_no, share in enumerate(shares)]
            await _insert_settlements(tx, hand, results, winner, columns, timestamp(ended))
            await tx.executemany(
                "UPDATE match_seats SET total = total + ? WHERE match_id = ? AND seat = ?",
                [(share.points, hand.match_id, seat_no) for seat_no, share in enumerate(shares)],
            )
            settle = "status = 'done', ended_at = ?, winner = ?, summary = ?, "
            code = await _give_share_code(tx, hand_id, settle, (timestamp(ended), winner, summary_json))
            totals = await tx.execute_fetchall(
                "SELECT total FROM match_seats WHERE match_id = ? ORDER BY seat", (hand.match_id,)
            )
            return ClosedHand(hand_id, winner, tuple(results), tuple(t["total"] for t in totals), code)

        return await self._db.write(settled)

    async def reveal(self, hand_id: int) -> Reveal | None:
        """The seed and salt behind a settled hand's commitment; None while it is in play (or abandoned, or
        dealt before commitments existed). NotFoundError for no such hand."""
        async with self._db.transaction(write=False) as tx:
            rows = list(
                await tx.execute_fetchall("SELECT status, seed, salt, commitment FROM hands WHERE id = ?", (hand_id,))
            )
        if not rows:
            raise NotFoundError(f"no hand {hand_id}")
        return _reveal_of(rows[0])

    async def share_code(self, hand_id: int) -> str | None:
        """A settled hand's share code (one is given now to a hand settled before codes existed); None
        unless the hand is settled. NotFoundError for no such hand."""
        async with self._db.transaction() as tx:
            hand = await _load_hand(tx, hand_id)
            if hand.status != "done" or hand.share_code is not None:
                return hand.share_code
            return await _give_share_code(tx, hand_id)

    async def by_code(self, code: str) -> SharedHand | None:
        """The settled hand with this share code (any case, spaces around ignored), None if there is none."""
        wanted = code.strip().upper() if isinstance(code, str) else ""
        if len(wanted) != SHARE_CODE_LEN or any(c not in SHARE_ALPHABET for c in wanted):
            return None
        async with self._db.transaction(write=False) as tx:
            rows = list(
                await tx.execute_fetchall(
                    "SELECT id, status, seed, salt, commitment FROM hands WHERE share_code = ?", (wanted,)
                )
            )
            if not rows:
                return None
            hand = await _load_hand(tx, rows[0]["id"])
            seats = list(
                await tx.execute_fetchall(
                    """SELECT s.points, p.display_name FROM settlements s LEFT JOIN players p ON p.id = s.player_id
                   WHERE s.hand_id = ? ORDER BY s.seat""",
                    (hand.id,),
                )
            )
            actions = list(
                await tx.execute_fetchall("SELECT seq, action FROM actions WHERE hand_id = ? ORDER BY seq", (hand.id,))
            )
        return SharedHand(
            code=wanted,
            hand=hand,
            names=tuple(r["display_name"] for r in seats),
            points=tuple(r["points"] for r in seats),
            actions=_actions_from_rows(hand.id, actions),
            reveal=_reveal_of(rows[0]),
        )

    async def add_penalty(self, hand_id: int, points: Sequence[int]) -> None:
        """Store a flee penalty (per seat, zero-sum) with the hand in play; ``close`` settles it with the hand."""
        amounts = _penalty_amounts(points)
        async with self._db.transaction() as tx:
            await _load_playing_hand(tx, hand_id)
            await _insert_penalty(tx, hand_id, amounts, timestamp(self._db.now()))

    async def flee(self, hand_id: int, seat: int, points: Sequence[int], auto_level: str = "normal") -> None:
        """A player flees the hand in play (RULES.md §10), in one transaction: the penalty stored with the hand
        and the seat given to an automatic player in the match (for this hand's resumption and the next ones).
        A seat the match no longer gives a human is refused (AlreadyClosedError): nobody pays twice."""
        check_int(seat, "seat", 0, SEATS - 1)
        amounts = _penalty_amounts(points)
        new = Seat.auto(auto_level).checked(f"seat {seat}")
        async with self._db.transaction() as tx:
            hand = await _load_playing_hand(tx, hand_id)
            match = await load_match(tx, hand.match_id)
            if match.status != "running" or match.seats[seat].is_auto:
                raise AlreadyClosedError(f"seat {seat} of match {hand.match_id} has no player to flee")
            await _insert_penalty(tx, hand_id, amounts, timestamp(self._db.now()))
            await tx.execute(
                "UPDATE match_seats SET player_id = NULL, auto_level = ? WHERE match_id = ? AND seat = ?",
                (new.auto_level, hand.match_id, seat),
            )

    async def penalties(self, hand_id: int) -> tuple[int, ...]:
        """The flee penalties stored with a hand so far, per seat."""
        async with self._db.transaction(write=False) as tx:
            return await _penalty_totals(tx, hand_id)

    async def count_since(self, moment: datetime) -> int:
        """How many hands started at or after moment (e.g. today's, for the operators' /status)."""
        rows = await self._db.fetchall("SELECT COUNT(*) AS n FROM hands WHERE started_at >= ?", (timestamp(moment),))
        return int(rows[0]["n"])

    async def abandon(self, hand_id: int) -> None:
        """End a hand in play without a settlement (its actions stay stored)."""
        async with self._db.transaction() as tx:
            await _load_playing_hand(tx, hand_id)
            await tx.execute(
                "UPDATE hands SET status = 'abandoned', ended_at = ? WHERE id = ?",
                (timestamp(self._db.now()), hand_id),
            )

    async def unfinished(self) -> list[ResumableHand]:
        """Every hand still in play, oldest first, with its match and its actions: what to resume at start-up."""
        async with self._db.transaction(write=False) as tx:
            hand_rows = list(await tx.execute_fetchall(_HAND_SELECT + " WHERE h.status = 'playing' ORDER BY h.id"))
            # Driven by the playing hands' index: start-up reads only what it resumes, however long the log.
            seat_rows = list(
                await tx.execute_fetchall(
                    """SELECT hand_id, player_id, auto_level FROM hand_seats
                       WHERE hand_id IN (SELECT id FROM hands WHERE status = 'playing') ORDER BY hand_id, seat"""
                )
            )
            action_rows = list(
                await tx.execute_fetchall(
                    """SELECT hand_id, seq, action FROM actions
                       WHERE hand_id IN (SELECT id FROM hands WHERE status = 'playing') ORDER BY hand_id, seq"""
                )
            )
            matches = {row["match_id"]: await load_match(tx, row["match_id"]) for row in hand_rows}
        seats: dict[int, list[Seat]] = {}
        for row in seat_rows:
            seats.setdefault(row["hand_id"], []).append(seat_from_row(row))
        actions: dict[int, list[Row]] = {}
        for row in action_rows:
            actions.setdefault(row["hand_id"], []).append(row)
        return [
            ResumableHand(
                hand=_hand_from_row(row, tuple(seats[row["id"]])),
                match=matches[row["match_id"]],
                actions=_actions_from_rows(row["id"], actions.get(row["id"], [])),
            )
            for row in hand_rows
        ]

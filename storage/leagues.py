"""Leagues: a chat's weekly schedule of league nights, the nights themselves, and their sign-ups.

A night is stored once per (league, start time) and its status only moves forward
(scheduled → announced → reminded → running → done, or → called_off from any open state), and
advance_night() reports whether THIS call moved it: so two timers racing to start one night start it once.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, time, timedelta
from typing import Any, Final, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from game.rules import Rules
from storage.codec import (
    check_choice,
    check_int,
    check_text,
    dump_json,
    dump_rules,
    load_json,
    load_rules,
    parse_timestamp,
    timestamp,
)
from storage.errors import AlreadyClosedError, InvalidInputError, NotFoundError
from storage.gateway import CONSTRAINT_ERRORS, Gateway, Row, Tx
from storage.matches import MAX_MATCH_HANDS, Match, load_match
from storage.players import PLAYER_COLUMNS, Player, player_from_row
from storage.standings import LeaderboardEntry, ranked

MAX_NIGHT_MINUTES: Final = 24 * 60  # a timed night lasts at most a day

LeagueStatus = Literal["active", "paused", "ended"]
NightStatus = Literal["scheduled", "announced", "reminded", "running", "done", "called_off"]
LEAGUE_STATUSES: tuple[LeagueStatus, ...] = ("active", "paused", "ended")
# The forward order of a night; called_off may follow any status before done.
NIGHT_ORDER: tuple[NightStatus, ...] = ("scheduled", "announced", "reminded", "running", "done")
OPEN_NIGHT_STATUSES: tuple[NightStatus, ...] = NIGHT_ORDER[:-1]
UNSTARTED_NIGHT_STATUSES: tuple[NightStatus, ...] = NIGHT_ORDER[:3]
_UPDATABLE = frozenset(
    {"name", "weekdays", "start_time", "time_zone", "night_hands", "night_minutes", "rules", "auto_fill"}
)


@dataclass(frozen=True)
class League:
    id: int
    chat_id: int
    name: str
    weekdays: tuple[int, ...]  # 0 = Monday … 6 = Sunday
    start_time: time  # local time in time_zone
    time_zone: str
    night_hands: int | None  # a night lasts this many hands …
    night_minutes: int | None  # … or this many minutes (exactly one of the two is set)
    rules: Rules
    status: LeagueStatus
    season: int
    created_at: datetime
    auto_fill: bool = True  # fewer than four sign-ups: automatic players fill in (else the night is called off)

    def next_start(self, after: datetime) -> datetime:
        """The first scheduled start strictly after `after`, in UTC (local wall time, so DST is followed)."""
        zone = ZoneInfo(self.time_zone)
        local_day = after.astimezone(zone).date()
        for offset in range(8):
            day = local_day + timedelta(days=offset)
            if day.weekday() in self.weekdays:
                start = datetime.combine(day, self.start_time, tzinfo=zone).astimezone(UTC)
                if start > after:
                    return start
        raise AssertionError("a weekly schedule always has a start within 8 days")


@dataclass(frozen=True)
class LeagueNight:
    id: int
    league_id: int
    season: int
    starts_at: datetime
    status: NightStatus


def _league_from_row(row: Row) -> League:
    return League(
        id=row["id"],
        chat_id=row["chat_id"],
        name=row["name"],
        weekdays=tuple(load_json(row["weekdays"], f"weekdays of league {row['id']}")),
        start_time=time.fromisoformat(row["start_time"]),
        time_zone=row["time_zone"],
        night_hands=row["night_hands"],
        night_minutes=row["night_minutes"],
        rules=load_rules(row["rules"], f"league {row['id']}"),
        status=row["status"],
        season=row["season"],
        created_at=parse_timestamp(row["created_at"]),
        auto_fill=bool(row["auto_fill"]),
    )


def _night_from_row(row: Row) -> LeagueNight:
    return LeagueNight(row["id"], row["league_id"], row["season"], parse_timestamp(row["starts_at"]), row["status"])


def _checked_schedule(weekdays: Iterable[int], start_time: time | str, time_zone: str) -> tuple[list[int], str]:
    days = sorted({check_int(d, "weekday", 0, 6) for d in weekdays})
    if not days:
        raise InvalidInputError("a league needs at least one weekday")
    try:
        moment = start_time if isinstance(start_time, time) else time.fromisoformat(start_time)
    except (TypeError, ValueError):
        raise InvalidInputError(f"start time must be HH:MM, not {start_time!r}") from None
    try:
        ZoneInfo(check_text(time_zone, "time zone", 64))
    except (ZoneInfoNotFoundError, ValueError):
        raise InvalidInputError(f"unknown time zone {time_zone!r}") from None
    return days, moment.replace(second=0, microsecond=0, tzinfo=None).isoformat(timespec="minutes")


async def _load_league(tx: Tx, league_id: int) -> League:
    rows = list(await tx.execute_fetchall("SELECT * FROM leagues WHERE id = ?", (league_id,)))
    if not rows:
        raise NotFoundError(f"no league {league_id}")
    return _league_from_row(rows[0])


async def _load_night(tx: Tx, night_id: int) -> LeagueNight:
    rows = list(await tx.execute_fetchall("SELECT * FROM league_nights WHERE id = ?", (night_id,)))
    if not rows:
        raise NotFoundError(f"no league night {night_id}")
    return _night_from_row(rows[0])


def _checked_auto_fill(value: Any) -> bool:
    if not isinstance(value, bool):
        raise InvalidInputError(f"auto_fill must be true or false, not {value!r}")
    return value


async def _check_name_free(tx: Tx, chat_id: int, name: str) -> None:
    rows = list(await tx.execute_fetchall("SELECT 1 FROM leagues WHERE chat_id = ? AND name = ?", (chat_id, name)))
    if rows:
        raise InvalidInputError(f"this chat already has a league named {name!r}")


def _night_length(league: League, changes: dict[str, Any]) -> tuple[int | None, int | None]:
    """(night hands, night minutes) after ``changes``: giving one clears the other."""
    if "night_minutes" in changes:
        return None, check_int(changes["night_minutes"], "night minutes", 1, MAX_NIGHT_MINUTES)
    if "night_hands" in changes:
        return check_int(changes["night_hands"], "night hands", 1, MAX_MATCH_HANDS), None
    return league.night_hands, league.night_minutes


class Leagues:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def create(
        self,
        chat_id: int,
        name: str,
        weekdays: Iterable[int],
        start_time: time | str,
        time_zone: str,
        rules: Rules | str | dict[str, object],
        night_hands: int | None = None,
        night_minutes: int | None = None,
        auto_fill: bool = True,
    ) -> League:
        """An active league in season 1; a night lasts night_hands hands or night_minutes minutes."""
        check_int(chat_id, "chat id")
        check_text(name, "league name", 64)
        days, start = _checked_schedule(weekdays, start_time, time_zone)
        if (night_hands is None) == (night_minutes is None):
            raise InvalidInputError("give exactly one of night_hands and night_minutes")
        _checked_auto_fill(auto_fill)
        if night_hands is not None:
            check_int(night_hands, "night hands", 1, MAX_MATCH_HANDS)
        if night_minutes is not None:
            check_int(night_minutes, "night minutes", 1, MAX_NIGHT_MINUTES)
        rules_json = dump_rules(rules)
        async with self._db.transaction() as tx:
            await _check_name_free(tx, chat_id, name)
            new = await tx.execute_fetchall(
                """INSERT INTO leagues (chat_id, name, weekdays, start_time, time_zone, night_hands, night_minutes,
                                        rules, status, season, created_at, auto_fill)
                   VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'active', 1, ?, ?) RETURNING id""",
                (
                    chat_id,
                    name,
                    dump_json(days, "weekdays"),
                    start,
                    time_zone,
                    night_hands,
                    night_minutes,
                    rules_json,
                    timestamp(self._db.now()),
                    int(auto_fill),
                ),
            )
            return await _load_league(tx, next(iter(new))["id"])

    async def get(self, league_id: int) -> League:
        async with self._db.transaction(write=False) as tx:
            return await _load_league(tx, league_id)

    async def for_chat(self, chat_id: int) -> list[League]:
        rows = await self._db.fetchall("SELECT * FROM leagues WHERE chat_id = ? ORDER BY id", (chat_id,))
        return [_league_from_row(r) for r in rows]

    async def active(self) -> list[League]:
        """Every active league (to re-register their schedules at start-up)."""
        rows = await self._db.fetchall("SELECT * FROM leagues WHERE status = 'active' ORDER BY id")
        return [_league_from_row(r) for r in rows]

    async def set_status(self, league_id: int, status: LeagueStatus) -> League:
        """Pause, resume or end a league; ending it calls off its open nights in the same transaction."""
        check_choice(status, "league status", LEAGUE_STATUSES)
        async with self._db.transaction() as tx:
            league = await _load_league(tx, league_id)
            if league.status == "ended":
                raise AlreadyClosedError(f"league {league_id} has ended")
            await tx.execute("UPDATE leagues SET status = ? WHERE id = ?", (status, league_id))
            if status == "ended":
                await tx.execute(
                    f"""UPDATE league_nights SET status = 'called_off'
                        WHERE league_id = ? AND status IN ({_placeholders(OPEN_NIGHT_STATUSES)})""",
                    (league_id, *OPEN_NIGHT_STATUSES),
                )
            return await _load_league(tx, league_id)

    async def new_season(self, league_id: int) -> League:
        """Start the league's next season: nights not yet started (and all later ones) count towards it."""
        async with self._db.transaction() as tx:
            league = await _load_league(tx, league_id)
            if league.status == "ended":
                raise AlreadyClosedError(f"league {league_id} has ended")
            await tx.execute("UPDATE leagues SET season = season + 1 WHERE id = ?", (league_id,))
            await tx.execute(
                f"""UPDATE league_nights SET season = season + 1
                    WHERE league_id = ? AND status IN ({_placeholders(UNSTARTED_NIGHT_STATUSES)})""",
                (league_id, *UNSTARTED_NIGHT_STATUSES),
            )
            return await _load_league(tx, league_id)

    async def update(self, league_id: int, now: datetime, **changes: Any) -> League:
        """Change a league's name, weekdays, start_time, time_zone, night length, rules or auto_fill.

        Giving night_hands clears night_minutes and the other way round. If the schedule changed, nights not
        yet started move to the league's first start after `now` (keeping their sign-ups), in the same
        transaction. Bad input raises InvalidInputError and changes nothing.
        """
        unknown = set(changes) - _UPDATABLE
        if unknown:
            raise InvalidInputError(f"cannot change {', '.join(sorted(unknown))} of a league")
        async with self._db.transaction() as tx:
            league = await _load_league(tx, league_id)
            if league.status == "ended":
                raise AlreadyClosedError(f"league {league_id} has ended")
            name = check_text(changes.get("name", league.name), "league name", 64)
            days, start = _checked_schedule(
                changes.get("weekdays", league.weekdays),
                changes.get("start_time", league.start_time),
                changes.get("time_zone", league.time_zone),
            )
            hands, minutes = _night_length(league, changes)
            rules_json = dump_rules(changes.get("rules", league.rules))
            auto_fill = _checked_auto_fill(changes.get("auto_fill", league.auto_fill))
            if name != league.name:
                await _check_name_free(tx, league.chat_id, name)
            await tx.execute(
                """UPDATE leagues SET name = ?, weekdays = ?, start_time = ?, time_zone = ?, night_hands = ?,
                       night_minutes = ?, rules = ?, auto_fill = ? WHERE id = ?""",
                (
                    name,
                    dump_json(days, "weekdays"),
                    start,
                    changes.get("time_zone", league.time_zone),
                    hands,
                    minutes,
                    rules_json,
                    int(auto_fill),
                    league_id,
                ),
            )
            updated = await _load_league(tx, league_id)
            if (updated.weekdays, updated.start_time, updated.time_zone) != (
                league.weekdays,
                league.start_time,
                league.time_zone,
            ):
                await _move_unstarted_nights(tx, updated, now)
            return updated

    async def schedule_night(self, league_id: int, starts_at: datetime) -> LeagueNight:
        """The league's night starting at starts_at, created if new (so scheduling twice is harmless)."""
        start = timestamp(starts_at)
        async with self._db.transaction() as tx:
            league = await _load_league(tx, league_id)
            if league.status != "active":
                raise AlreadyClosedError(f"league {league_id} is {league.status}")
            rows = list(
                await tx.execute_fetchall(
                    """INSERT INTO league_nights (league_id, season, starts_at, status) VALUES (?, ?, ?, 'scheduled')
                   ON CONFLICT (league_id, starts_at) DO UPDATE SET starts_at = excluded.starts_at
                   RETURNING *""",
                    (league_id, league.season, start),
                )
            )
            return _night_from_row(rows[0])

    async def schedule_next(self, league_id: int, after: datetime) -> LeagueNight:
        """Schedule the league's first night starting after `after` (by its weekly schedule)."""
        league = await self.get(league_id)
        return await self.schedule_night(league_id, league.next_start(after))

    async def night(self, night_id: int) -> LeagueNight:
        async with self._db.transaction(write=False) as tx:
            return await _load_night(tx, night_id)

    async def open_nights(self) -> list[LeagueNight]:
        """Every night not yet done or called off, soonest first (to re-arm their timers at start-up)."""
        # Spelt as the partial index league_nights_open is, so the index serves it.
        rows = await self._db.fetchall(
            "SELECT * FROM league_nights WHERE status NOT IN ('done', 'called_off') ORDER BY starts_at, id"
        )
        return [_night_from_row(r) for r in rows]

    async def advance_night(self, night_id: int, status: NightStatus) -> bool:
        """Move the night forward to status; True if this call moved it, False if it was already there or past."""
        check_choice(status, "night status", (*NIGHT_ORDER, "called_off"))
        earlier = OPEN_NIGHT_STATUSES if status == "called_off" else NIGHT_ORDER[: NIGHT_ORDER.index(status)]
        if not earlier:
            return False  # nothing comes before 'scheduled'
        changed = await self._db.execute(
            f"UPDATE league_nights SET status = ? WHERE id = ? AND status IN ({_placeholders(earlier)})",
            (status, night_id, *earlier),
        )
        if changed:
            return True
        await self.night(night_id)  # NotFoundError for an unknown night
        return False

    async def sign_up(self, night_id: int, player_id: int) -> bool:
        """Sign a player up for a night; False if they already were. Refused once the night is over."""
        async with self._db.transaction() as tx:
            night = await _load_night(tx, night_id)
            if night.status in ("done", "called_off"):
                raise AlreadyClosedError(f"league night {night_id} is {night.status}; sign-ups are closed")
            if not list(await tx.execute_fetchall("SELECT 1 FROM players WHERE id = ?", (player_id,))):
                raise NotFoundError(f"no player {player_id}")
            cursor = await tx.execute(
                """INSERT INTO league_signups (night_id, player_id, signed_up_at) VALUES (?, ?, ?)
                   ON CONFLICT DO NOTHING""",
                (night_id, player_id, timestamp(self._db.now())),
            )
            return cursor.rowcount == 1

    async def withdraw(self, night_id: int, player_id: int) -> bool:
        """Take a player off a night's list; False if they were not on it."""
        changed = await self._db.execute(
            "DELETE FROM league_signups WHERE night_id = ? AND player_id = ?", (night_id, player_id)
        )
        return changed == 1

    async def night_match(self, night_id: int) -> Match | None:
        """The newest match played for a night, if one was opened."""
        async with self._db.transaction(write=False) as tx:
            rows = list(
                await tx.execute_fetchall(
                    "SELECT id FROM matches WHERE league_night_id = ? ORDER BY id DESC LIMIT 1", (night_id,)
                )
            )
            return await load_match(tx, rows[0]["id"]) if rows else None

    async def night_results(self, night_id: int) -> list[LeaderboardEntry]:
        """The night's players by the points they won over its settled hands (automatic players left out)."""
        rows = await self._db.fetchall(
            """SELECT p.id AS player_id, p.display_name, p.title, p.skill, SUM(s.points) AS points, COUNT(*) AS hands,
                      SUM(s.won) AS wins, MAX(GREATEST(s.points, 0)) AS biggest_win
               FROM settlements s JOIN hands h ON h.id = s.hand_id JOIN matches m ON m.id = h.match_id
                    JOIN players p ON p.id = s.player_id
               WHERE m.league_night_id = ? AND s.player_id IS NOT NULL
               GROUP BY p.id ORDER BY points DESC, wins DESC, hands, p.id""",
            (night_id,),
        )
        return ranked(rows)

    async def signups(self, night_id: int) -> list[Player]:
        """The players signed up for a night, in the order they signed up."""
        async with self._db.transaction(write=False) as tx:
            await _load_night(tx, night_id)
            rows = list(
                await tx.execute_fetchall(
                    f"""SELECT {", ".join("p." + c.strip() for c in PLAYER_COLUMNS.split(","))}
                    FROM league_signups s JOIN players p ON p.id = s.player_id
                    WHERE s.night_id = ? ORDER BY s.signed_up_at, s.player_id""",
                    (night_id,),
                )
            )
        return [player_from_row(r) for r in rows]


async def _move_unstarted_nights(tx: Tx, league: League, now: datetime) -> None:
    """Put the league's nights not yet started, in their order, on its next starts after now."""
    rows = list(
        await tx.execute_fetchall(
            f"""SELECT id FROM league_nights
                WHERE league_id = ? AND status IN ({_placeholders(UNSTARTED_NIGHT_STATUSES)})
                ORDER BY starts_at, id""",
            (league.id, *UNSTARTED_NIGHT_STATUSES),
        )
    )
    moves, start = [], now
    for row in rows:
        start = league.next_start(start)
        moves.append((timestamp(start), row["id"]))
    # Out of the way first, so two moved nights never hold one start at the same moment.
    await tx.executemany("UPDATE league_nights SET starts_at = 'moving ' || id WHERE id = ?", [(i,) for _, i in moves])
    try:
        await tx.executemany("UPDATE league_nights SET starts_at = ? WHERE id = ?", moves)
    except CONSTRAINT_ERRORS:
        raise InvalidInputError("the new schedule puts a night where one was already played") from None


def _placeholders(values: tuple[str, ...]) -> str:
    return ", ".join("?" for _ in values)

"""Standings: a player's card, a group's leaderboard over a period, and a player's recent hands.

Leaderboards read the `standings` table, which the hand-closing transaction keeps up to date per chat,
period and player, so they cost a few rows however many hands are stored. Periods: all time, a UTC week
(Monday to Sunday), a UTC calendar month, a UTC calendar quarter, a league season. A group's "season" is its
league's current season when it has an active league, else the calendar quarter (``season_of``).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from game.titles import Title, title_named
from storage.codec import check_int, load_json, parse_timestamp, timestamp
from storage.errors import NotFoundError
from storage.gateway import Gateway, Row
from storage.players import PLAYER_COLUMNS, Player, player_from_row


@dataclass(frozen=True)
class Period:
    key: str  # as stored: 'all', 'week:YYYY-MM-DD' (its Monday), 'month:YYYY-MM', 'quarter:YYYY-Qn', 'league:<id>:<n>'

    @classmethod
    def all_time(cls) -> Period:
        return cls("all")

    @classmethod
    def month_of(cls, moment: datetime) -> Period:
        """The UTC calendar month holding moment (e.g. this month: Period.month_of(now))."""
        return cls(f"month:{timestamp(moment)[:7]}")

    @classmethod
    def week_of(cls, moment: datetime) -> Period:
        """The UTC week (Monday to Sunday) holding moment."""
        day = moment.astimezone(UTC).date()
        return cls(f"week:{day - timedelta(days=day.weekday())}")

    @classmethod
    def quarter_of(cls, moment: datetime) -> Period:
        """The UTC calendar quarter holding moment: January–March is Q1."""
        utc = moment.astimezone(UTC)
        return cls(f"quarter:{utc.year:04d}-Q{(utc.month + 2) // 3}")

    @property
    def since(self) -> datetime | None:
        """When a calendar period begins (UTC); None for all time and a league season."""
        kind, _, value = self.key.partition(":")
        if kind == "week":
            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        if kind == "month":
            return datetime.fromisoformat(f"{value}-01").replace(tzinfo=UTC)
        if kind == "quarter":
            year, quarter = value.split("-Q")
            return datetime(int(year), 3 * int(quarter) - 2, 1, tzinfo=UTC)
        return None

    @property
    def league(self) -> tuple[int, int] | None:
        """(league id, season) of a league season, else None."""
        kind, _, value = self.key.partition(":")
        if kind != "league":
            return None
        league_id, season = value.split(":")
        return int(league_id), int(season)

    @classmethod
    def league_season(cls, league_id: int, season: int) -> Period:
        return cls(f"league:{league_id:d}:{season:d}")


def periods_of(ended: datetime, league_season: tuple[int, int] | None) -> list[str]:
    """The standings periods a hand ending at `ended` counts towards."""
    periods = [
        Period.all_time().key,
        Period.week_of(ended).key,
        Period.month_of(ended).key,
        Period.quarter_of(ended).key,
    ]
    if league_season is not None:
        periods.append(Period.league_season(*league_season).key)
    return periods


@dataclass(frozen=True)
class LeaderboardEntry:
    rank: int
    player_id: int
    display_name: str
    title: Title
    skill: int
    points: int
    hands: int
    wins: int
    biggest_win: int

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


def ranked(rows: Iterable[Row]) -> list[LeaderboardEntry]:
    """Leaderboard rows (player_id, display_name, title, skill, points, hands, wins, biggest_win), best first."""
    return [
        LeaderboardEntry(
            rank,
            r["player_id"],
            r["display_name"],
            title_named(r["title"]),
            r["skill"],
            r["points"],
            r["hands"],
            r["wins"],
            r["biggest_win"],
        )
        for rank, r in enumerate(rows, start=1)
    ]


@dataclass(frozen=True)
class SkillPoint:
    at: datetime
    skill: int  # after the hand ended at `at` (or the starting skill, at registration)


@dataclass(frozen=True)
class PlayerCard:
    player: Player  # skill, title, hands, wins, win_rate, biggest_win
    skill_history: tuple[SkillPoint, ...]  # oldest first


@dataclass(frozen=True)
class HistoryEntry:
    hand_id: int
    chat_id: int
    ended_at: datetime
    seat: int
    points: int
    won: bool
    skill_after: int
    winner: int | None
    summary: Any
    share_code: str | None  # for /replay; None for a hand settled before codes existed


class Standings:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def leaderboard(self, chat_id: int, period: Period, limit: int = 10) -> list[LeaderboardEntry]:
        """The chat's best players over period by points won (then wins, then fewer hands)."""
        check_int(limit, "limit", 1, 1000)
        rows = await self._db.fetchall(
            """SELECT s.player_id, p.display_name, p.title, p.skill, s.points, s.hands, s.wins, s.biggest_win
               FROM standings s JOIN players p ON p.id = s.player_id
               WHERE s.chat_id = ? AND s.period = ?
               ORDER BY s.points DESC, s.wins DESC, s.hands, s.player_id LIMIT ?""",
            (chat_id, period.key, limit),
        )
        return ranked(rows)

    async def season_of(self, chat_id: int, now: datetime) -> Period:
        """The chat's season for /top season: its active league's current season, else the quarter of now."""
        rows = await self._db.fetchall(
            "SELECT id, season FROM leagues WHERE chat_id = ? AND status = 'active' ORDER BY id DESC LIMIT 1",
            (chat_id,),
        )
        return Period.league_season(rows[0]["id"], rows[0]["season"]) if rows else Period.quarter_of(now)

    async def card(self, player_id: int, history_points: int = 100) -> PlayerCard:
        """The player's figures and their skill after each of their last history_points hands."""
        check_int(history_points, "history points", 1, 10_000)
        async with self._db.transaction(write=False) as tx:
            rows = list(await tx.execute_fetchall(f"SELECT {PLAYER_COLUMNS} FROM players WHERE id = ?", (player_id,)))
            if not rows:
                raise NotFoundError(f"no player {player_id}")
            player = player_from_row(rows[0])
            series = list(
                await tx.execute_fetchall(
                    """SELECT ended_at, skill_before, skill_after FROM settlements WHERE player_id = ?
                   ORDER BY ended_at DESC, hand_id DESC LIMIT ?""",
                    (player_id, history_points),
                )
            )
        points = [SkillPoint(parse_timestamp(r["ended_at"]), r["skill_after"]) for r in reversed(series)]
        if len(series) == player.hands:  # the whole history fits: start it at registration, where they started
            points.insert(0, SkillPoint(player.created_at, series[-1]["skill_before"] if series else player.skill))
        return PlayerCard(player, tuple(points))

    async def history(self, player_id: int, limit: int = 10) -> list[HistoryEntry]:
        """The player's last `limit` settled hands, newest first (for /history)."""
        check_int(limit, "limit", 1, 1000)
        rows = await self._db.fetchall(
            """SELECT s.hand_id, s.chat_id, s.ended_at, s.seat, s.points, s.won, s.skill_after, h.winner, h.summary,
                      h.share_code
               FROM settlements s JOIN hands h ON h.id = s.hand_id
               WHERE s.player_id = ? ORDER BY s.ended_at DESC, s.hand_id DESC LIMIT ?""",
            (player_id, limit),
        )
        return [
            HistoryEntry(
                r["hand_id"],
                r["chat_id"],
                parse_timestamp(r["ended_at"]),
                r["seat"],
                r["points"],
                bool(r["won"]),
                r["skill_after"],
                r["winner"],
                load_json(r["summary"], f"summary of hand {r['hand_id']}"),
                r["share_code"],
            )
            for r in rows
        ]

    async def rebuild(self) -> int:
        """Recompute every standings row from the settlements (a repair, or after a bulk import).

        Returns the number of rows written. The hand-closing transaction keeps the same figures incrementally.
        """
        async with self._db.transaction() as tx:
            # Each player's figures per chat, UTC day and league season; the periods are then counted by
            # periods_of, as the closing transaction counts them (tests check rebuild() == the running figures).
            days = await tx.execute_fetchall(
                """SELECT s.chat_id, s.player_id, substr(s.ended_at, 1, 10) AS day, n.league_id, n.season,
                          SUM(s.points) AS points, COUNT(*) AS hands, SUM(s.won) AS wins,
                          MAX(GREATEST(s.points, 0)) AS biggest_win
                   FROM settlements s JOIN hands h ON h.id = s.hand_id JOIN matches m ON m.id = h.match_id
                        LEFT JOIN league_nights n ON n.id = m.league_night_id
                   WHERE s.player_id IS NOT NULL
                   GROUP BY s.chat_id, s.player_id, substr(s.ended_at, 1, 10), n.league_id, n.season"""
            )
            figures: dict[tuple[int, str, int], list[int]] = {}
            for r in days:
                season = None if r["league_id"] is None else (r["league_id"], r["season"])
                moment = datetime.fromisoformat(r["day"]).replace(tzinfo=UTC)
                for period in periods_of(moment, season):
                    row = figures.setdefault((r["chat_id"], period, r["player_id"]), [0, 0, 0, 0])
                    row[0] += r["points"]
                    row[1] += r["hands"]
                    row[2] += r["wins"]
                    row[3] = max(row[3], r["biggest_win"])
            await tx.execute("DELETE FROM standings")
            await tx.executemany(
                """INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)
                   VALUES (?, ?, ?, ?, ?, ?, ?)""",
                [(*key, *values) for key, values in figures.items()],
            )
            return len(figures)

"""Statistics: a player's figures over all time, this month and this season, and per-pattern boards.

    card = await db.stats.player(42, now, chat_id)          # .all_time, .month, .season: PlayerStats
    card.season.win_rate, card.month.patterns["qing_yi_se"], card.season_label
    board = await db.stats.pattern_board(chat_id, "qing_yi_se", Period.month_of(now))

Read from the per-seat facts the closing transaction stores with each settlement row (migration 0007). The
season is the league season of the player's latest league sign-up (in ``chat_id`` when given) while that
league is active, else the UTC calendar quarter. A fact stored as NULL (not known for some hands settled
before the facts were kept) is left out of its rate: ``open_rate`` divides by the hands where it is known.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Final

from game.melds import SELF_DRAWN
from game.patterns import PATTERNS
from storage.codec import check_int, timestamp
from storage.errors import InvalidInputError
from storage.gateway import Gateway, Row, Tx
from storage.standings import Period

# The bit of each pattern in settlements.patterns. Stored data: never renumber, only add.
PATTERN_BITS: Final[dict[str, int]] = {
    "pi_hu": 0,
    "peng_peng_hu": 1,
    "qing_yi_se": 2,
    "jiang_yi_se": 3,
    "feng_yi_se": 4,
    "quan_qiu_ren": 5,
    "gang_shang_kai_hua": 6,
    "hai_di_lao": 7,
    "qiang_gang": 8,
}
assert set(PATTERN_BITS) == set(PATTERNS), "every pattern of game.patterns needs a bit"


def pattern_mask(patterns: Iterable[str]) -> int:
    """The bits of these pattern ids; InvalidInputError for an unknown one."""
    mask = 0
    for p in patterns:
        if p not in PATTERN_BITS:
            raise InvalidInputError(f"unknown pattern {p!r}")
        mask |= 1 << PATTERN_BITS[p]
    return mask


@dataclass(frozen=True)
class PlayerStats:
    hands: int
    wins: int
    self_draws: int  # wins on a tile the winner drew (自摸, 杠上开花, 海底捞)
    deal_ins: int
    deal_in_known: int  # hands where who dealt in is known
    opened: int
    open_known: int  # hands where whether the player opened is known
    losses: int  # hands that cost points
    win_points: int  # points won over all wins
    loss_points: int  # points lost over all losses (≤ 0)
    biggest_win: int
    hard_wins: int
    capped_wins: int  # wins where a loser paid the cap (封顶)
    golden_wins: int  # wins at the 金顶
    tuoguan: int  # times the automatic player took over (托管)
    patterns: dict[str, int]  # wins with each pattern id (every id of PATTERN_BITS, zeros included)

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0

    @property
    def self_draw_rate(self) -> float:
        """Of the wins, how many were self-drawn."""
        return self.self_draws / self.wins if self.wins else 0.0

    @property
    def deal_in_rate(self) -> float:
        return self.deal_ins / self.deal_in_known if self.deal_in_known else 0.0

    @property
    def open_rate(self) -> float:
        return self.opened / self.open_known if self.open_known else 0.0

    @property
    def average_win(self) -> float:
        return self.win_points / self.wins if self.wins else 0.0

    @property
    def average_loss(self) -> float:
        """Points lost per losing hand (≤ 0)."""
        return self.loss_points / self.losses if self.losses else 0.0


@dataclass(frozen=True)
class StatsCard:
    player_id: int
    all_time: PlayerStats
    month: PlayerStats  # the UTC calendar month of now
    season: PlayerStats
    season_period: Period  # a league season, or the calendar quarter of now
    season_label: str  # the league's name and season ("Friday S3"), or the quarter ("2026-Q4")


@dataclass(frozen=True)
class PatternBoardEntry:
    rank: int
    player_id: int
    display_name: str
    times: int  # wins with the pattern
    wins: int  # all the player's wins in the period (in this chat)


_SELF_DRAWN_SQL: Final = ", ".join(f"'{h}'" for h in sorted(SELF_DRAWN))
_AGGREGATE: Final = f"""
SELECT COUNT(*) AS hands, COALESCE(SUM(s.won), 0) AS wins,
       COALESCE(SUM(CASE WHEN s.won = 1 AND s.how IN ({_SELF_DRAWN_SQL}) THEN 1 ELSE 0 END), 0) AS self_draws,
       COALESCE(SUM(s.dealt_in), 0) AS deal_ins, COUNT(s.dealt_in) AS deal_in_known,
       COALESCE(SUM(s.opened), 0) AS opened, COUNT(s.opened) AS open_known,
       COALESCE(SUM(CASE WHEN s.points < 0 THEN 1 ELSE 0 END), 0) AS losses,
       COALESCE(SUM(CASE WHEN s.won = 1 THEN s.points END), 0) AS win_points,
       COALESCE(SUM(CASE WHEN s.points < 0 THEN s.points END), 0) AS loss_points,
       COALESCE(MAX(CASE WHEN s.won = 1 THEN s.points END), 0) AS biggest_win,
       COALESCE(SUM(CASE WHEN s.won = 1 AND s.hard = 1 THEN 1 ELSE 0 END), 0) AS hard_wins,
       COALESCE(SUM(CASE WHEN s.won = 1 AND s.cap = 'capped' THEN 1 ELSE 0 END), 0) AS capped_wins,
       COALESCE(SUM(CASE WHEN s.won = 1 AND s.cap = 'golden' THEN 1 ELSE 0 END), 0) AS golden_wins,
       COALESCE(SUM(s.tuoguan), 0) AS tuoguan,
       {", ".join(f"COALESCE(SUM((s.patterns >> {bit}) & 1), 0) AS p_{name}" for name, bit in PATTERN_BITS.items())}
FROM settlements s
"""
_LEAGUE_HANDS: Final = """s.hand_id IN (
    SELECT h.id FROM hands h JOIN matches m ON m.id = h.match_id JOIN league_nights n ON n.id = m.league_night_id
    WHERE n.league_id = ? AND n.season = ?)"""


def _period_filter(period: Period) -> tuple[str, list[object]]:
    """SQL conditions on settlements s (and their parameters) for the hands of a period."""
    league = period.league
    if league is not None:
        return _LEAGUE_HANDS, list(league)
    since = period.since
    return ("s.ended_at >= ?", [timestamp(since)]) if since is not None else ("1 = 1", [])


def _stats_from_row(row: Row) -> PlayerStats:
    return PlayerStats(
        **{k: row[k] for k in row.keys() if not k.startswith("p_")},  # noqa: SIM118 (Row)
        patterns={name: row[f"p_{name}"] for name in PATTERN_BITS},
    )


async def _aggregate(tx: Tx, player_id: int, period: Period) -> PlayerStats:
    where, params = _period_filter(period)
    rows = list(await tx.execute_fetchall(_AGGREGATE + f"WHERE s.player_id = ? AND {where}", (player_id, *params)))
    return _stats_from_row(rows[0])


async def _season(tx: Tx, player_id: int, now: datetime, chat_id: int | None) -> tuple[Period, str]:
    rows = list(
        await tx.execute_fetchall(
            """SELECT l.id, l.season, l.name FROM league_signups su
               JOIN league_nights n ON n.id = su.night_id JOIN leagues l ON l.id = n.league_id
               WHERE su.player_id = ?1 AND l.status = 'active' AND n.season = l.season
                 AND (CAST(?2 AS BIGINT) IS NULL OR l.chat_id = ?2)
               ORDER BY n.starts_at DESC LIMIT 1""",
            (player_id, chat_id),
        )
    )
    if rows:
        return Period.league_season(rows[0]["id"], rows[0]["season"]), f"{rows[0]['name']} S{rows[0]['season']}"
    quarter = Period.quarter_of(now)
    return quarter, quarter.key.partition(":")[2]


class Stats:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def player(self, player_id: int, now: datetime, chat_id: int | None = None) -> StatsCard:
        """The player's statistics over all time, the month of ``now`` and the season (module docstring)."""
        check_int(player_id, "player id", 1)
        async with self._db.transaction(write=False) as tx:
            season, label = await _season(tx, player_id, now, chat_id)
            all_time = await _aggregate(tx, player_id, Period.all_time())
            month = await _aggregate(tx, player_id, Period.month_of(now))
            in_season = await _aggregate(tx, player_id, season)
        return StatsCard(player_id, all_time, month, in_season, season, label)

    async def pattern_board(
        self, chat_id: int, pattern: str, period: Period | None = None, limit: int = 10
    ) -> list[PatternBoardEntry]:
        """Who in the chat won most often with ``pattern`` (a PATTERN_BITS id, or "hard" for hard wins) over
        ``period`` (None: all time), then fewer wins in all."""
        check_int(limit, "limit", 1, 1000)
        if pattern == "hard":
            condition, param = "s.hard = ?", 1
        else:
            condition, param = "(s.patterns & ?) != 0", pattern_mask([pattern])
        where, params = _period_filter(period or Period.all_time())
        rows = await self._db.fetchall(
            f"""SELECT p.id AS player_id, p.display_name, SUM(CASE WHEN {condition} THEN 1 ELSE 0 END) AS times,
                       COUNT(*) AS wins
                FROM settlements s JOIN players p ON p.id = s.player_id
                WHERE s.chat_id = ? AND s.won = 1 AND {where}
                GROUP BY p.id HAVING SUM(CASE WHEN {condition} THEN 1 ELSE 0 END) > 0
                ORDER BY times DESC, wins, p.id LIMIT ?""",
            (param, chat_id, *params, param, limit),
        )
        return _ranked(rows)


def _ranked(rows: Sequence[Row]) -> list[PatternBoardEntry]:
    return [
        PatternBoardEntry(rank, r["player_id"], r["display_name"], r["times"], r["wins"])
        for rank, r in enumerate(rows, start=1)
    ]

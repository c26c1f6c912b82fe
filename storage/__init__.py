"""Storage: the bot's database — players, chats, matches and hands with their action log, settlements,
standings and leagues — in SQLite (aiosqlite, the default) or PostgreSQL (asyncpg), as MAHJONG_DB names it.
The repositories here are the only code that writes SQL (one text per query, run by both: storage.dialect).

    from storage import Database, Period, Seat
    db = await Database.open("data/mahjong.sqlite3")          # WAL; migrates; refuses a newer schema
    db = await Database.open("postgresql://bot@db/mahjong")   # the same, on a server (storage.postgres)
    await db.players.upsert(42, "Ann")
    settings = await db.chats.get(chat_id)                    # defaults until changed with db.chats.update
    match = await db.matches.create(chat_id, seed, settings.rules, [Seat.human(42), Seat.auto(), ...], 8)
    hand = await db.hands.start(match.id, seed=hand_seed, dealer=0)
    await db.hands.append_action(hand.id, seq, action.to_json())       # before its effects are sent
    closed = await db.hands.close(hand.id, payments, winner, summary,  # settlement, skill, titles: one transaction
                                  facts=hand_facts(engine_hand), tuoguan=(0, 0, 1, 0))
    hand.commitment  # show at the deal;  await db.hands.reveal(hand.id) once settled (None before)
    shared = await db.hands.by_code(closed.share_code)                 # a settled hand for /replay
    for resumable in await db.hands.unfinished(): ...                  # at start-up: replay these
    await db.standings.leaderboard(chat_id, Period.month_of(now))      # or all_time(), league_season(id, n)
    await db.standings.card(42); await db.standings.history(42, 10)
    await db.standings.leaderboard(chat_id, await db.standings.season_of(chat_id, now))  # or week_of, quarter_of
    card = await db.stats.player(42, now, chat_id)                     # all time, month, season figures
    await db.stats.pattern_board(chat_id, "qing_yi_se", Period.month_of(now))
    league = await db.leagues.create(chat_id, "Friday", [4], "20:00", "Asia/Shanghai", rules, night_hands=8)
    night = await db.leagues.schedule_next(league.id, now)
    if await db.leagues.advance_night(night.id, "running"): ...       # True once: a night never starts twice
    await db.close()

Automatic players sit as player_id None (Seat.auto(level)). Times are aware UTC datetimes.
Errors are StorageError subclasses (storage.errors) with a short message; a failed call changes nothing.
Backups: `python -m storage.backup SRC DEST` or `await db.backup(DEST)` (SQLite; PostgreSQL: pg_dump).
SQLite to PostgreSQL: `python -m storage.copy_to_postgres SQLITE_PATH postgresql://…` (copies and checks).
"""

from storage.chats import ChatSettings
from storage.database import Database
from storage.errors import (
    ActionOrderError,
    AlreadyClosedError,
    CorruptDataError,
    InvalidInputError,
    MigrationError,
    NotFoundError,
    SchemaTooNewError,
    StorageError,
)
from storage.hands import ClosedHand, HandRecord, ResumableHand, Reveal, SeatResult, SharedHand
from storage.leagues import League, LeagueNight
from storage.matches import Match, Seat
from storage.players import Player
from storage.standings import HistoryEntry, LeaderboardEntry, Period, PlayerCard, SkillPoint
from storage.stats import PatternBoardEntry, PlayerStats, StatsCard

__all__ = [
    "ActionOrderError",
    "AlreadyClosedError",
    "ChatSettings",
    "ClosedHand",
    "CorruptDataError",
    "Database",
    "HandRecord",
    "HistoryEntry",
    "InvalidInputError",
    "LeaderboardEntry",
    "League",
    "LeagueNight",
    "Match",
    "MigrationError",
    "NotFoundError",
    "PatternBoardEntry",
    "Period",
    "Player",
    "PlayerCard",
    "PlayerStats",
    "ResumableHand",
    "Reveal",
    "SchemaTooNewError",
    "Seat",
    "SeatResult",
    "SharedHand",
    "SkillPoint",
    "StatsCard",
    "StorageError",
]

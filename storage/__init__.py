"""Storage: the bot's SQLite database through aiosqlite — players, chats, matches and hands with their action
log, settlements, standings and leagues. The repositories here are the only code that writes SQL.

    from storage import Database, Seat
    db = await Database.open("mahjong.sqlite3")             # WAL; migrates; refuses a newer schema
    await db.players.upsert(42, "Ann")
    match = await db.matches.create(chat_id, seed, rules, [Seat.human(42), Seat.auto(), ...], hands_planned=8)
    hand = await db.hands.start(match.id, seed=hand_seed, dealer=0)
    await db.hands.append_action(hand.id, 0, action.to_json())          # before its effects are sent
    closed = await db.hands.close(hand.id, payments, winner, summary)   # one transaction
    for resumable in await db.hands.unfinished(): ...                   # at start-up: replay these
    await db.standings.leaderboard(chat_id, Period.month_of(now))
    await db.close()

Automatic players sit as player_id None (Seat.auto(level)). Times are aware UTC datetimes.
Errors are StorageError subclasses (storage.errors) with a short message; a failed call changes nothing.
Backups: `python -m storage.backup SRC DEST` or `await db.backup(DEST)`.
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
from storage.hands import ClosedHand, HandRecord, ResumableHand, SeatResult
from storage.leagues import League, LeagueNight
from storage.matches import Match, Seat
from storage.players import Player
from storage.standings import HistoryEntry, LeaderboardEntry, Period, PlayerCard, SkillPoint

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
    "Period",
    "Player",
    "PlayerCard",
    "ResumableHand",
    "SchemaTooNewError",
    "Seat",
    "SeatResult",
    "SkillPoint",
    "StorageError",
]

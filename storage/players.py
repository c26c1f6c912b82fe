"""Players: a Telegram user with a display name, a language and the §10 skill and title."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from game.languages import LANGUAGES
from game.titles import START_SKILL, Title, title_for, title_named
from storage.codec import SQLITE_INT_MAX, check_choice, check_int, check_text, parse_timestamp, timestamp
from storage.errors import NotFoundError
from storage.gateway import Gateway, Row


@dataclass(frozen=True)
class Player:
    id: int
    display_name: str
    language: str
    skill: int
    title: Title
    hands: int
    wins: int
    biggest_win: int
    created_at: datetime

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0


def player_from_row(row: Row) -> Player:
    return Player(
        id=row["id"],
        display_name=row["display_name"],
        language=row["language"],
        skill=row["skill"],
        title=title_named(row["title"]),
        hands=row["hands"],
        wins=row["wins"],
        biggest_win=row["biggest_win"],
        created_at=parse_timestamp(row["created_at"]),
    )


PLAYER_COLUMNS = "id, display_name, language, skill, title, hands, wins, biggest_win, created_at"


# Case-blind, as Telegram's usernames are; "IS NOT NULL" lets SQLite use the partial index (migration 0013).
_USERNAME_IS = "username IS NOT NULL AND lower(username) = lower(?)"


class Players:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def upsert(self, player_id: int, display_name: str, language: str | None = None) -> Player:
        """Register a player (``START_SKILL``) or refresh their display name; language only changes when given."""
        check_int(player_id, "player id", 1, SQLITE_INT_MAX)
        check_text(display_name, "display name")
        if language is not None:
            check_choice(language, "language", LANGUAGES)
        start = START_SKILL
        async with self._db.transaction() as tx:
            rows = await tx.execute_fetchall(
                f"""INSERT INTO players ({PLAYER_COLUMNS}) VALUES (?, ?, ?, ?, ?, 0, 0, 0, ?)
                    ON CONFLICT (id) DO UPDATE SET display_name = excluded.display_name,
                        language = CASE WHEN CAST(? AS TEXT) IS NULL THEN players.language ELSE excluded.language END
                    RETURNING {PLAYER_COLUMNS}""",
                (
                    player_id,
                    display_name,
                    language or LANGUAGES[0],
                    start,
                    title_for(start).zh,
                    timestamp(self._db.now()),
                    language,
                ),
            )
            return player_from_row(next(iter(rows)))

    async def get(self, player_id: int) -> Player | None:
        rows = await self._db.fetchall(f"SELECT {PLAYER_COLUMNS} FROM players WHERE id = ?", (player_id,))
        return player_from_row(rows[0]) if rows else None

    async def require(self, player_id: int) -> Player:
        player = await self.get(player_id)
        if player is None:
            raise NotFoundError(f"no player {player_id}")
        return player

    async def set_language(self, player_id: int, language: str) -> Player:
        check_choice(language, "language", LANGUAGES)
        async with self._db.transaction() as tx:
            rows = list(
                await tx.execute_fetchall(
                    f"UPDATE players SET language = ? WHERE id = ? RETURNING {PLAYER_COLUMNS}", (language, player_id)
                )
            )
        if not rows:
            raise NotFoundError(f"no player {player_id}")
        return player_from_row(rows[0])

    async def set_username(self, player_id: int, username: str | None) -> None:
        """Remember a player's Telegram @username (None: they have none); a username moves to its new owner."""
        if username is not None:
            check_text(username, "username")
        async with self._db.transaction() as tx:
            if username is not None:
                await tx.execute(
                    f"UPDATE players SET username = NULL WHERE {_USERNAME_IS} AND id != ?",
                    (username, player_id),
                )
            await tx.execute("UPDATE players SET username = ? WHERE id = ?", (username, player_id))

    async def by_username(self, username: str) -> Player | None:
        """The player whose @username this is (any case, the @ optional)."""
        rows = await self._db.fetchall(
            f"SELECT {PLAYER_COLUMNS} FROM players WHERE {_USERNAME_IS}", (username.lstrip("@"),)
        )
        return player_from_row(rows[0]) if rows else None

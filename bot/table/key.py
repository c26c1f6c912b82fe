"""Which table: a group and, in a forum supergroup, the topic (``message_thread_id``) the table plays in.

A forum group holds a table per topic. Everywhere else, and in a forum's General topic, the thread is None
and a table is its group, as before topics. The key's ``token`` names the table in button data, join links
and its players' private slots: ``-100123`` for a group's own table (unchanged from before topics), and
``-100123_42`` for the table in topic 42.

    key = TableKey(-100123, 42)
    TableKey.parse(key.token) == key
    key.slot("spectator")        # "spectator_42": the table's picture in its group
    key.private_slot("hand")     # "hand-100123_42": a player's message of this table

A quick-match table (``bot.quick``) has no group: its key is ``TableKey.quick(n)``, n its stored number
(``storage.quick``), a chat id below any Telegram can give (they have at most 52 significant bits), so it is
never a chat, fits the same tokens and button data, and has a shard like any table. ``key.quick`` tells it;
its group-facing effects go to no chat (``bot.host.edge``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

# A chat id fits in 64 bits and a thread (a message id) in 32: a forged token cannot overflow anything.
_TOKEN: Final = re.compile(r"(-?[0-9]{1,18})(?:_([0-9]{1,10}))?")
# Quick-match tables: -(10**16) - n, beyond 2**53 (no chat id comes near) and within the token's 18 digits.
QUICK_BASE: Final = -(10**16)
QUICK_LAST: Final = 10**17 - 1 + QUICK_BASE  # the last n whose key keeps 18 digits


@dataclass(frozen=True)
class TableKey:
    chat_id: int
    thread_id: int | None = None  # the forum topic; None: the General topic, or a group without topics

    @classmethod
    def quick(cls, number: int) -> TableKey:
        """The key of quick-match table ``number`` (>= 1): no group, no topic."""
        if not 1 <= number <= QUICK_LAST:
            raise ValueError(f"not a quick table's number: {number}")
        return cls(QUICK_BASE - number)

    @property
    def is_quick(self) -> bool:
        """A quick-match table: no group chat behind it."""
        return self.chat_id < QUICK_BASE

    @property
    def token(self) -> str:
        return str(self.chat_id) if self.thread_id is None else f"{self.chat_id}_{self.thread_id}"

    @classmethod
    def parse(cls, token: str) -> TableKey:
        """The key a token names; ValueError if it is no token."""
        match = _TOKEN.fullmatch(token)
        if match is None:
            raise ValueError(f"not a table: {token!r}")
        chat, thread = match.groups()
        return cls(int(chat), int(thread) if thread is not None else None)

    def slot(self, name: str) -> str:
        """The outbox slot of one of the table's messages in its group (its lobby, picture or result)."""
        return name if self.thread_id is None else f"{name}_{self.thread_id}"

    def private_slot(self, name: str) -> str:
        """The outbox slot of one of the table's messages in a player's private chat."""
        return f"{name}{self.token}"

"""The bot's live messages: which Telegram message shows each chat's slot (``bot.outbox``), kept across restarts.

await db.live_messages.remember(chat_id, "spectator", message_id, is_photo=True)
for m in await db.live_messages.of_chats([chat_id]): ...
await db.live_messages.forget_chat(chat_id)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from storage.codec import check_int, check_text
from storage.gateway import Gateway


@dataclass(frozen=True)
class LiveMessage:
    chat_id: int
    slot: str
    message_id: int
    is_photo: bool


class LiveMessages:
    def __init__(self, db: Gateway) -> None:
        self._db = db

    async def remember(self, chat_id: int, slot: str, message_id: int, *, is_photo: bool) -> None:
        """The slot's message is now ``message_id`` (a new message replaced the old one)."""
        check_int(chat_id, "chat id")
        check_text(slot, "slot")
        check_int(message_id, "message id", 1)
        await self._db.execute(
            """INSERT INTO live_messages (chat_id, slot, message_id, is_photo) VALUES (?, ?, ?, ?)
               ON CONFLICT (chat_id, slot) DO UPDATE SET message_id = excluded.message_id,
                   is_photo = excluded.is_photo""",
            (chat_id, slot, message_id, int(is_photo)),
        )

    async def of_chats(self, chat_ids: Iterable[int]) -> list[LiveMessage]:
        """Every remembered slot of these chats."""
        ids = sorted(set(chat_ids))
        if not ids:
            return []
        marks = ",".join("?" * len(ids))
        rows = await self._db.fetchall(
            f"SELECT chat_id, slot, message_id, is_photo FROM live_messages WHERE chat_id IN ({marks})", tuple(ids)
        )
        return [LiveMessage(r["chat_id"], r["slot"], r["message_id"], bool(r["is_photo"])) for r in rows]

"""A group upgraded to a supergroup gets a new chat id: everything stored under the old one follows, at once.

    await db.chats.migrate(old_id, new_id)

One transaction moves the chat's settings, its matches (and so their hands), settlements, standings (added
to any the new id already has), leagues, and the live messages of its table's players (the group's own live
messages are dropped: they stay behind in the old chat). A second call for the same ids changes nothing.
"""

from __future__ import annotations

from storage.gateway import Tx

_MOVES = (
    "UPDATE matches SET chat_id = :new WHERE chat_id = :old",
    "UPDATE settlements SET chat_id = :new WHERE chat_id = :old",
    "UPDATE leagues SET chat_id = :new WHERE chat_id = :old",
    """INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)
       SELECT :new, period, player_id, points, hands, wins, biggest_win FROM standings WHERE chat_id = :old
       ON CONFLICT (chat_id, period, player_id) DO UPDATE SET points = points + excluded.points,
           hands = hands + excluded.hands, wins = wins + excluded.wins,
           biggest_win = MAX(biggest_win, excluded.biggest_win)""",
    "DELETE FROM standings WHERE chat_id = :old",
    "DELETE FROM live_messages WHERE chat_id = :old",
    "UPDATE OR REPLACE live_messages SET slot = 'hand' || :new WHERE slot = 'hand' || :old",
)


async def move_chat(tx: Tx, old: int, new: int) -> bool:
    """Move what is stored under ``old`` to ``new`` inside ``tx``; whether there was anything to move."""
    ids = {"old": old, "new": new}
    rows = await tx.execute_fetchall(
        "SELECT 1 FROM chats WHERE id = :old UNION ALL SELECT 1 FROM matches WHERE chat_id = :old LIMIT 1", ids
    )
    if not list(rows):
        return False
    if list(await tx.execute_fetchall("SELECT 1 FROM chats WHERE id = :old", ids)):
        # The old group's /settings win over defaults the new id may have been given meanwhile.
        await tx.execute("DELETE FROM chats WHERE id = :new", ids)
        await tx.execute("UPDATE chats SET id = :new WHERE id = :old", ids)
    for sql in _MOVES:
        await tx.execute(sql, ids)
    return True

"""A group upgraded to a supergroup gets a new chat id: everything stored under the old one follows, at once.

    await db.chats.migrate(old_id, new_id)

One transaction moves the chat's settings, its matches (and so their hands), settlements, standings (added
to any the new id already has), leagues, and the live messages of its table's players (the group's own live
messages are dropped: they stay behind in the old chat). A second call for the same ids changes nothing.
"""

from __future__ import annotations

from storage.gateway import Tx


async def move_chat(tx: Tx, old: int, new: int) -> bool:
    """Move what is stored under ``old`` to ``new`` inside ``tx``; whether there was anything to move."""
    rows = await tx.execute_fetchall(
        "SELECT 1 FROM chats WHERE id = ?1 UNION ALL SELECT 1 FROM matches WHERE chat_id = ?1 LIMIT 1", (old,)
    )
    if not list(rows):
        return False
    if list(await tx.execute_fetchall("SELECT 1 FROM chats WHERE id = ?", (old,))):
        # The old group's /settings win over defaults the new id may have been given meanwhile.
        await tx.execute("DELETE FROM chats WHERE id = ?", (new,))
        await tx.execute("UPDATE chats SET id = ? WHERE id = ?", (new, old))
    for table in ("matches", "settlements", "leagues"):
        await tx.execute(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?", (new, old))
    await tx.execute(
        """INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)
           SELECT ?, period, player_id, points, hands, wins, biggest_win FROM standings WHERE chat_id = ?
           ON CONFLICT (chat_id, period, player_id) DO UPDATE SET points = standings.points + excluded.points,
               hands = standings.hands + excluded.hands, wins = standings.wins + excluded.wins,
               biggest_win = GREATEST(standings.biggest_win, excluded.biggest_win)""",
        (new, old),
    )
    await tx.execute("DELETE FROM standings WHERE chat_id = ?", (old,))
    await tx.execute("DELETE FROM live_messages WHERE chat_id = ?", (old,))
    # The players' slots of the group follow it; one a player already had for the new id is replaced.
    slots = (f"hand{old}", f"hand{new}")
    await tx.execute(
        "DELETE FROM live_messages WHERE slot = ?2 AND chat_id IN (SELECT chat_id FROM live_messages WHERE slot = ?1)",
        slots,
    )
    await tx.execute("UPDATE live_messages SET slot = ?2 WHERE slot = ?1", slots)
    return True

"""One person sits at one table at a time: a second table (another group, or another topic of a forum) would
share their one private chat with the first, and 托管 would play one while they play the other."""

from __future__ import annotations

from collections.abc import Mapping

from bot.i18n import t
from bot.play.table_key import TableKey
from bot.play.table_state import Table


def seated_elsewhere(tables: Mapping[TableKey, Table], here: Table, user_id: int, lang: str) -> str | None:
    """Why the user may not sit at ``here`` (naming the table they sit at), or None when they may."""
    other = next((tb for tb in tables.values() if tb is not here and tb.seat_of(user_id) is not None), None)
    if other is None:
        return None
    name = other.title if other.key.thread_id is None else f"{other.title} · #{other.key.thread_id}"
    return t("seated_elsewhere", lang, table=name)

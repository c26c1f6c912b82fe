"""One person sits at one table at a time: a second table (another group, or another topic of a forum) would
share their one private chat with the first, and 托管 would play one while they play the other. The registry
(``bot.host.registry``) knows every table, so it names the other one in the ``Join`` it hands the table."""

from __future__ import annotations

from collections.abc import Iterable

from bot.table.key import TableKey
from bot.table.state import Table


def table_of(tables: Iterable[Table], user_id: int, *, other_than: TableKey | None = None) -> Table | None:
    """The table (other than ``other_than``) where the user sits, or None."""
    return next((tb for tb in tables if tb.key != other_than and tb.seat_of(user_id) is not None), None)


def seated_elsewhere(tables: Iterable[Table], here: TableKey, user_id: int) -> str | None:
    """The name of the table other than ``here`` where the user sits ("group · #topic"), or None."""
    other = table_of(tables, user_id, other_than=here)
    if other is None:
        return None
    return other.title if other.key.thread_id is None else f"{other.title} · #{other.key.thread_id}"

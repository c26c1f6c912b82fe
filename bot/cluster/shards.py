"""Which shard a table, or an update, belongs to: the unit of ownership between workers (bot.cluster.ownership).

    shard_of(TableKey(-100123))       # 0 … SHARDS - 1, the same in every worker and every release
    update_shard(update)              # the shard of the table an update is for; None: of no table (/me, /calc…)

A table is spread by its group's id (crc32, stable across processes and Python versions). Everything said in a
group (its commands, its buttons, its members coming and going) belongs to the group's table's shard, so one
worker paces each group; a play button pressed in a private chat names its table in its data; so does the
lobby's Join link (/start join_<table>). Everything else said privately belongs to no table: whichever worker
claims it first from the inbox handles it (bot.cluster.consumer): what it needs of a table it reads from storage
(the table in memory is its shard owner's; /status, asked privately, counts the answering worker's own).
"""

from __future__ import annotations

import zlib
from typing import Final

from telegram import Message, Update

from bot.callbacks import BadCallback, PlayButton
from bot.handlers.chat_checks import topic_of
from bot.table.key import TableKey

SHARDS: Final = 64  # fixed: changing it moves tables between owners, so only with every worker stopped
JOIN_COMMAND: Final = "/start join_"


def shard_of(key: TableKey) -> int:
    """By the group alone (crc32 of its id): a forum group's tables, one per topic, share their group's shard,
    so one worker writes to each group and keeps to its pace (about 20 writes a minute)."""
    return zlib.crc32(str(key.chat_id).encode()) % SHARDS


def update_shard(update: Update) -> int | None:
    key = update_table(update)
    return shard_of(key) if key is not None else None


def update_table(update: Update) -> TableKey | None:
    """The table an update concerns, as far as its routing goes (the handlers decide the rest)."""
    query = update.callback_query
    if query is not None and query.data:
        try:
            return PlayButton.decode(query.data).table
        except BadCallback:
            pass
    chat = update.effective_chat
    if chat is not None and chat.type != chat.PRIVATE:
        return TableKey(chat.id, topic_of(update))
    message = update.effective_message
    if isinstance(message, Message) and message.text and message.text.startswith(JOIN_COMMAND):
        try:
            return TableKey.parse(message.text[len(JOIN_COMMAND) :].split()[0])
        except (ValueError, IndexError):
            return None
    return None

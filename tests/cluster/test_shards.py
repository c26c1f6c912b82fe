"""Which shard an update belongs to (bot.cluster.shards): everything said in a group goes to its table's shard, a
play button pressed privately and a join link to the table they name, the rest said privately to no table."""

from __future__ import annotations

from typing import Any

from telegram import Update

from bot.callbacks import PlayButton, Stamp
from bot.cluster.shards import update_shard, update_table
from bot.table.key import TableKey

ANN = {"id": 7, "is_bot": False, "first_name": "Ann"}
PRIVATE = {"id": 7, "type": "private", "first_name": "Ann"}
GROUP = {"id": -100123, "type": "supergroup", "title": "g"}
FORUM = {"id": -100123, "type": "supergroup", "title": "g", "is_forum": True}


def _message(chat: dict[str, Any], text: str, **more: Any) -> Update:
    message = {"message_id": 1, "date": 0, "chat": chat, "from": ANN, "text": text} | more
    return Update.de_json({"update_id": 1, "message": message}, None)


def _press(chat: dict[str, Any], data: str) -> Update:
    message = {"message_id": 1, "date": 0, "chat": chat, "text": "…"}
    query = {"id": "q", "from": ANN, "chat_instance": "c", "data": data, "message": message}
    return Update.de_json({"update_id": 1, "callback_query": query}, None)


def test_updates_go_to_their_tables() -> None:
    group = TableKey(-100123)
    assert update_table(_message(GROUP, "/join")) == group
    assert update_table(_message(GROUP, "/top")) == group  # said in the group: its owner paces the answer
    topic = _message(FORUM, "/newgame", message_thread_id=42, is_topic_message=True)
    assert update_table(topic) == TableKey(-100123, 42) and update_shard(topic) == update_shard(_message(GROUP, "/x"))
    play = PlayButton(TableKey(-100456), Stamp(3, 5, 1), "d5m").encode()
    assert update_table(_press(PRIVATE, play)) == TableKey(-100456)  # a player's own message names its table
    assert update_table(_press(GROUP, "st1|p|rules")) == group  # a group's settings menu: the group's
    assert update_table(_message(PRIVATE, "/start join_-100456_42")) == TableKey(-100456, 42)


def test_what_is_said_privately_belongs_to_no_table() -> None:
    for text in ("/me", "/calc 1m", "/start", "/start join_nonsense", "hello"):
        assert update_shard(_message(PRIVATE, text)) is None
    assert update_shard(_press(PRIVATE, "sd1|top|week")) is None
    assert update_shard(_press(PRIVATE, "v1|garbage")) is None

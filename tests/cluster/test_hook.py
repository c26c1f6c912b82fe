"""Telegram's webhook on a worker (bot.cluster.hook) against the real PostgreSQL: a post with the secret is stored
in the inbox, under its table's shard, before the 200 (one posted again stored once); a post without it, or a
body that is no update, stores nothing; /healthz says whether the worker holds its place among the workers."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Bot
from tornado.httpclient import AsyncHTTPClient, HTTPClientError

from bot.cluster.hook import SECRET_HEADER, HookServer
from bot.cluster.shards import shard_of
from bot.config import Config
from bot.table.key import TableKey
from storage.database import Database
from tests.sandbox.page_client import free_port

SECRET = "hook-secret"


@pytest.fixture
async def hook(cluster_db: Database) -> AsyncIterator[tuple[str, list[bool]]]:
    port = free_port()
    config = Config(
        token="1:test",
        webhook_url="https://bot.example.org/telegram-hook",
        webhook_listen=("127.0.0.1", port),
        webhook_secret=SECRET,
    )
    well = [True]
    server = HookServer(config, Bot("1:test"), cluster_db, lambda: well[0])
    server.start()
    yield f"http://127.0.0.1:{port}", well
    server.stop()


async def _post(url: str, body: bytes, secret: str | None) -> int:
    headers = {"Content-Type": "application/json"} | ({SECRET_HEADER: secret} if secret is not None else {})
    try:
        response = await AsyncHTTPClient().fetch(f"{url}/telegram-hook", method="POST", body=body, headers=headers)
    except HTTPClientError as e:
        return e.code
    return response.code


def _update(update_id: int, chat_id: int) -> dict[str, Any]:
    chat = {"id": chat_id, "type": "supergroup", "title": "g"}
    sender = {"id": 7, "is_bot": False, "first_name": "Ann"}
    message = {"message_id": 1, "date": 0, "chat": chat, "from": sender, "text": "/newgame"}
    return {"update_id": update_id, "message": message}


async def test_a_post_with_the_secret_is_stored_once_under_its_tables_shard(
    hook: tuple[str, list[bool]], cluster_db: Database
) -> None:
    url, _ = hook
    body = json.dumps(_update(41, -1004)).encode()
    assert await _post(url, body, SECRET) == 200
    assert await _post(url, body, SECRET) == 200  # Telegram posts it again: stored once
    rows = await cluster_db.fetchall("SELECT update_id, shard, body FROM inbox")
    assert [(r["update_id"], r["shard"]) for r in rows] == [(41, shard_of(TableKey(-1004)))]
    assert json.loads(rows[0]["body"]) == _update(41, -1004)


async def test_a_forged_or_broken_post_stores_nothing(hook: tuple[str, list[bool]], cluster_db: Database) -> None:
    url, _ = hook
    body = json.dumps(_update(42, -1004)).encode()
    assert await _post(url, body, None) == 403
    assert await _post(url, body, "guessed") == 403
    assert await _post(url, b"{not json", SECRET) == 400
    assert await _post(url, b'{"no": "update"}', SECRET) == 400
    assert await _post(url, b"[1, 2]", SECRET) == 400
    assert await cluster_db.fetchall("SELECT update_id FROM inbox") == []


async def test_healthz_says_whether_the_worker_holds_its_place(hook: tuple[str, list[bool]]) -> None:
    url, well = hook
    assert (await AsyncHTTPClient().fetch(f"{url}/healthz")).code == 200
    well[0] = False
    with pytest.raises(HTTPClientError) as refused:
        await AsyncHTTPClient().fetch(f"{url}/healthz")
    assert refused.value.code == 503

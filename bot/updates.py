"""What arrives: every update handled at most once, and one the library cannot read skipped.

Telegram sends an update again when it did not see it confirmed (a webhook answered late, a crash before the
polling offset was confirmed): ``once`` runs before every handler and stops an update whose id is already
stored (``storage.handled_updates``). The id is stored, committed, before any handler runs, so no effect of an update
is ever visible before its mark; a crash between the two loses that one update (at most once, never twice).

On a worker (bot.cluster) an update reaches the handlers from the inbox, stored there once however often
Telegram sends it. A play press is then not claimed here: its update is marked done in the inbox in the very
transaction that stores its action (``Edge`` and ``storage.hands``), so a worker that dies before that leaves it
waiting for the shard's next owner, and one that dies after has stored it (exactly once). Handled again, a
press whose action went in meets a prompt that has moved on and changes nothing.

``UpdatesRequest`` is getUpdates' connection: an update PTB cannot parse would fail its whole batch, and the
polling would ask for the same batch again and again; it is passed on as an empty update (its id alone), which
no handler takes, so the offset moves past it. Both connections, getUpdates' and the rest's, share one TLS
context (``tls_context``).

    application.add_handler(TypeHandler(Update, once), group=-3)
    Application.builder().get_updates_request(UpdatesRequest())
"""

from __future__ import annotations

import logging
import re
import ssl
from functools import cache
from typing import Any

import httpx
from telegram import Update
from telegram.ext import ApplicationHandlerStop
from telegram.request import HTTPXRequest

from bot.callbacks import PLAY_PATTERN
from bot.context import BotContext

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]


async def once(update: Update, context: BotContext) -> None:
    """Before any handler: an update taken up before (now or before a restart) goes no further."""
    if context.config.workers and _plays(update):  # done with its action (above)
        return
    if not await context.db.updates.claim(update.update_id):
        log.info("update %s was sent again; skipped", update.update_id)
        raise ApplicationHandlerStop


def _plays(update: Update) -> bool:
    query = update.callback_query
    return query is not None and re.match(PLAY_PATTERN, query.data or "") is not None


@cache
def tls_context() -> ssl.SSLContext:
    """The process's one TLS context for Telegram (certificates verified against httpx's CA bundle): each HTTPX
    client would otherwise load the bundle again, tens of milliseconds of CPU at every start."""
    return httpx.create_ssl_context()


class UpdatesRequest(HTTPXRequest):
    def __init__(self) -> None:
        # one connection, as PTB's own getUpdates connection
        super().__init__(connection_pool_size=1, httpx_kwargs={"verify": tls_context()})

    @staticmethod
    def parse_json_payload(payload: bytes) -> JSONDict:
        data: JSONDict = HTTPXRequest.parse_json_payload(payload)
        result = data.get("result")
        if isinstance(result, list):
            data["result"] = [u for u in map(_readable, result) if u is not None]
        return data


def _readable(raw: Any) -> JSONDict | None:
    """The update as sent if PTB can read it; else its id alone (None without an id: nothing to skip past)."""
    try:
        Update.de_json(raw, None)
        return dict(raw)
    except Exception:
        update_id = raw.get("update_id") if isinstance(raw, dict) else None
        if not isinstance(update_id, int):
            log.warning("an update without an id cannot be read; dropped")
            return None
        log.warning("update %s cannot be read; skipped", update_id)  # its content is never logged
        return {"update_id": update_id}

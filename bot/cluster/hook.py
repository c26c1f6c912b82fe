"""Telegram's webhook on every worker (MAHJONG_WORKERS=1 with MAHJONG_WEBHOOK_URL): a reverse proxy spreads
Telegram's posts over the workers, and whichever receives one stores it in the durable inbox (storage.inbox, the
table the poller fills in polling mode), committed before it answers 200; the shard's owner handles it as it
handles a polled update. An update Telegram posts again (a 500, a timeout) is stored once.

    server = HookServer(config, bot, db, healthy); server.start(); ...; server.stop()
    await register(bot, config)       # setWebhook: every worker registers the same URL and secret

The listener (``MAHJONG_WEBHOOK_LISTEN``) holds to ``bot.listeners.WEBHOOK`` as PTB's does in one process; a post
without the configured secret is refused (403) before its body is read. It also answers ``GET /healthz`` (200
while this worker holds its place among the workers, 503 otherwise): what the proxy's health checks ask.
"""

from __future__ import annotations

import hmac
import json
import logging
from collections.abc import Callable
from urllib.parse import urlsplit

import tornado.web
from telegram import Bot, Update
from tornado.routing import URLSpec

from bot.cluster.shards import update_shard
from bot.config import Config
from bot.listeners import WEBHOOK, BoundedHTTPServer, HealthHandler
from bot.startup import retried
from storage.database import Database
from storage.errors import StorageError

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


class Post(tornado.web.RequestHandler):
    def initialize(self, bot: Bot, db: Database, secret: str) -> None:
        self.bot, self.db, self.secret = bot, db, secret

    def prepare(self) -> None:
        given = self.request.headers.get(SECRET_HEADER, "")
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            raise tornado.web.HTTPError(403)

    async def post(self) -> None:
        try:
            data = json.loads(self.request.body)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            update = Update.de_json(data, self.bot)
        except (ValueError, TypeError, KeyError):
            raise tornado.web.HTTPError(400) from None
        try:
            await self.db.inbox.store([(update.update_id, update_shard(update), json.dumps(data))])
        except StorageError as e:  # not stored: Telegram posts it again
            log.warning("webhook: update %s not stored (%s)", update.update_id, e)
            raise tornado.web.HTTPError(503) from None
        self.set_status(200)


def routes(config: Config, bot: Bot, db: Database, healthy: Callable[[], bool]) -> list[URLSpec]:
    assert config.webhook_url is not None and config.webhook_secret is not None  # bot.config: both, with workers
    path = urlsplit(config.webhook_url).path or "/"
    return [
        tornado.web.url("/healthz", HealthHandler, {"healthy": healthy}),
        tornado.web.url(path, Post, {"bot": bot, "db": db, "secret": config.webhook_secret}),
    ]


class HookServer:
    def __init__(self, config: Config, bot: Bot, db: Database, healthy: Callable[[], bool]) -> None:
        self.config = config
        self.app = tornado.web.Application(routes(config, bot, db, healthy))
        self.http: BoundedHTTPServer | None = None

    def start(self) -> None:
        host, port = self.config.webhook_listen
        self.http = BoundedHTTPServer(self.app, limits=WEBHOOK)
        self.http.listen(port, host)
        log.info("webhook listening on %s:%s for %s", host, port, self.config.webhook_url)

    def stop(self) -> None:
        if self.http is not None:
            self.http.stop()


async def register(bot: Bot, config: Config) -> None:
    """setWebhook with the one URL and secret (retried while Telegram fails for a moment): every worker does it,
    the same each time, so whichever starts first or last leaves it as it should be."""
    await retried(
        lambda: bot.set_webhook(
            config.webhook_url or "", secret_token=config.webhook_secret, allowed_updates=Update.ALL_TYPES
        ),
        "registering the webhook (setWebhook)",
    )

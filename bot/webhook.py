"""How updates arrive: long polling (the default) or a webhook when ``MAHJONG_WEBHOOK_URL`` is set.

    serve(application, config)       # blocks until SIGINT/SIGTERM

Webhook mode listens on ``MAHJONG_WEBHOOK_LISTEN`` (host:port, default 127.0.0.1:8443) at the URL's path and
registers ``MAHJONG_WEBHOOK_URL`` with Telegram (setWebhook). Telegram only posts to https on ports 443, 80,
88 or 8443, so the URL is usually a TLS-terminating reverse proxy on the same host forwarding that path to the
listener. The listener holds to ``bot.listeners.WEBHOOK``: a body of at most 256 KB (an update is a few KB),
headers and body within 10 s each, at most 100 connections.
Telegram sends a secret in the ``X-Telegram-Bot-Api-Secret-Token`` header and PTB refuses any request without
it (403): ``MAHJONG_WEBHOOK_SECRET``, or one generated at every start (and registered with setWebhook) when
none is configured, so forged updates from the network never reach the bot.
Needs ``python-telegram-bot[webhooks]`` (tornado).
"""

from __future__ import annotations

import logging
import secrets
from typing import Any
from urllib.parse import urlsplit

from telegram import Update
from telegram.ext import Application

from bot.config import Config
from bot.listeners import WEBHOOK, bound_http_servers

log = logging.getLogger(__name__)


def serve(application: Application[Any, Any, Any, Any, Any, Any], config: Config) -> None:
    if config.webhook_url is None:
        application.run_polling(allowed_updates=Update.ALL_TYPES, bootstrap_retries=-1)
        return
    host, port = config.webhook_listen
    secret = config.webhook_secret
    if secret is None:
        secret = secrets.token_urlsafe(32)
        log.info("no MAHJONG_WEBHOOK_SECRET: registering a secret generated for this run")
    bound_http_servers(WEBHOOK)  # PTB makes its tornado HTTPServer without limits
    application.run_webhook(
        listen=host,
        port=port,
        url_path=urlsplit(config.webhook_url).path.lstrip("/"),
        webhook_url=config.webhook_url,
        secret_token=secret,
        allowed_updates=Update.ALL_TYPES,
        bootstrap_retries=-1,  # setWebhook retried while Telegram fails for a moment
    )

"""PTB clients of the loopback fake Bot API made in a test's own process share the bot's TLS context:

    Bot(tg.token, base_url=tg.base_url, **shared_tls())

A PTB client builds two HTTPX clients, and each would load the CA bundle again (about 30 ms of CPU; some 110
clients a run).
"""

from __future__ import annotations

from telegram.request import HTTPXRequest

from bot.updates import tls_context


def shared_tls() -> dict[str, HTTPXRequest]:
    """``request`` and ``get_updates_request`` for ``Bot(...)``, both on ``bot.updates.tls_context``."""
    return {name: HTTPXRequest(httpx_kwargs={"verify": tls_context()}) for name in ("request", "get_updates_request")}

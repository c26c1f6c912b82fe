"""The local sandbox as `make run` starts it without a token: the Bot API and the page on one port, in threads
of the bot's own process (bot.local_sandbox decides when).

    sandbox = start_sandbox(("127.0.0.1", 8080), fast=False)
    sandbox.page_url                  # "http://127.0.0.1:8080"
    sandbox.environment               # TELEGRAM_BOT_TOKEN, TELEGRAM_API_BASE_URL: the bot talks to it
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sandbox.pages import Pages
from sandbox.server import FakeTelegram
from sandbox.world import World

BOT_USERNAME = "wuhan_mahjong_sandbox_bot"
GROUP_WRITES_PER_MINUTE = 20  # Telegram's limit for one group: beyond it, 429 Too Many Requests


@dataclass(frozen=True)
class LocalSandbox:
    server: FakeTelegram
    world: World
    page_url: str
    fast: bool  # no flood limit (and, in the bot, quick pacing)

    @property
    def environment(self) -> dict[str, str]:
        return self.server.bot_environment()

    def stop(self) -> None:
        self.server.stop()


def start_sandbox(address: tuple[str, int], *, fast: bool) -> LocalSandbox:
    """Serves the sandbox on `address` (OSError when it is taken) with a new token. Telegram's flood limit for
    groups applies unless `fast`."""
    token = f"{secrets.randbelow(9 * 10**9) + 10**9}:{secrets.token_urlsafe(30)}"
    server = FakeTelegram(
        token=token,
        bot_username=BOT_USERNAME,
        group_writes_per_minute=None if fast else GROUP_WRITES_PER_MINUTE,
    )
    world = World(server)
    server.start(address, Pages(world))
    return LocalSandbox(server, world, server.url, fast)

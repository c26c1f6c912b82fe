"""No token: the bot plays in the local sandbox (``sandbox/``) instead of Telegram, on the same code path.

``open_sandbox(env)`` returns None when ``TELEGRAM_BOT_TOKEN`` is set. Otherwise it starts the sandbox's Bot API
and web page on ``MAHJONG_SANDBOX_LISTEN`` (default 127.0.0.1:8080; loopback unless set otherwise) and returns
the environment that points the bot at it: a token made for this run, the sandbox's API address, a database of
its own unless ``MAHJONG_DB`` is set (a fresh temporary one: the sandbox's people live only as long as the run),
the live table (the Mini App, ``bot.live``) on a free port beside it, whose buttons the page opens signed in as
its person, and, with ``MAHJONG_SANDBOX_FAST=1``, pacing far quicker than Telegram allows. Variables the
environment sets win over all of these but the token and the address.
"""

from __future__ import annotations

import asyncio
import atexit
import shutil
import socket
import tempfile
from collections.abc import Mapping
from pathlib import Path

from bot.config import ConfigError, host_port
from bot.context import BotApplication, BotContext
from bot.host.one_table import table_of
from sandbox.launch import LocalSandbox, start_sandbox
from sandbox.world import World

SEATS_ANSWER_SECONDS = 5.0  # how long the page's "Play against the bot" waits to learn where its person sits

DEFAULT_LISTEN = ("127.0.0.1", 8080)
# Fast mode: the outbox's pauses between writes (Telegram's: 3.1 s a group, 1 s a private chat, 4 s a
# refresh for a player who need not act) shrink to what a local page keeps up with.
FAST_PACING = {"MAHJONG_GROUP_INTERVAL": "0.1", "MAHJONG_PRIVATE_INTERVAL": "0.05", "MAHJONG_PASSIVE_INTERVAL": "0.5"}


def _flag(env: Mapping[str, str], key: str) -> bool:
    raw = env.get(key, "").strip().lower()
    if raw not in ("", "0", "1", "false", "true", "no", "yes", "off", "on"):
        raise ConfigError(f"{key} must be 1 or 0, got {raw!r}")
    return raw in ("1", "true", "yes", "on")


def open_sandbox(env: Mapping[str, str]) -> tuple[LocalSandbox, dict[str, str]] | None:
    """The running sandbox and the bot's environment for it; None when a token is set (Telegram it is)."""
    if env.get("TELEGRAM_BOT_TOKEN", "").strip():
        return None
    address = host_port(env, "MAHJONG_SANDBOX_LISTEN", DEFAULT_LISTEN)
    fast = _flag(env, "MAHJONG_SANDBOX_FAST")
    try:
        sandbox = start_sandbox(address, fast=fast)
    except OSError as e:
        raise ConfigError(
            f"the sandbox cannot listen on {address[0]}:{address[1]} ({e.strerror}): "
            "set MAHJONG_SANDBOX_LISTEN=127.0.0.1:<another port>"
        ) from None
    defaults = (FAST_PACING if fast else {}) | _live_table(address[0])
    if not env.get("MAHJONG_DB", "").strip():
        directory = tempfile.mkdtemp(prefix="mahjong-sandbox-")
        atexit.register(shutil.rmtree, directory, ignore_errors=True)
        defaults = defaults | {"MAHJONG_DB": str(Path(directory) / "sandbox.sqlite3")}
    environment = {**defaults, **env, **sandbox.environment}
    return sandbox, environment


def follow_seats(application: BotApplication, world: World) -> None:
    """The page's "Play against the bot" asks the bot where its person sits (one table a person): the registry
    answers, read in the bot's loop (the page's requests come on the sandbox's threads)."""

    async def connect(context: BotContext) -> None:
        loop, tables = asyncio.get_running_loop(), context.tables

        async def where(user_id: int) -> int | None:
            table = table_of(tables.all(), user_id)
            return None if table is None else table.key.chat_id

        def seated_at(user_id: int) -> int | None:
            return asyncio.run_coroutine_threadsafe(where(user_id), loop).result(SEATS_ANSWER_SECONDS)

        world.ask_seats(seated_at)

    assert application.job_queue is not None, "install python-telegram-bot[job-queue]"
    # However late the start-up runs it (a job missed by over a second would be dropped otherwise).
    application.job_queue.run_once(connect, 0, name="the sandbox's seats", job_kwargs={"misfire_grace_time": None})


def _live_table(host: str) -> dict[str, str]:
    """The Mini App (bot.live) on a free port beside the sandbox: its web_app buttons open it from the page."""
    with socket.socket() as probe:
        probe.bind((host, 0))
        port = int(probe.getsockname()[1])
    shown = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    return {"MAHJONG_WEBAPP_URL": f"http://{shown}:{port}/", "MAHJONG_WEBAPP_LISTEN": f"{host}:{port}"}


def banner(sandbox: LocalSandbox) -> str:
    """What `make run` prints: where the page is, and how the bot becomes a Telegram bot."""
    pacing = (
        "fast mode (MAHJONG_SANDBOX_FAST=1)" if sandbox.fast else "Telegram's pacing (MAHJONG_SANDBOX_FAST=1: faster)"
    )
    return (
        f"No TELEGRAM_BOT_TOKEN: the bot runs in the local sandbox, {pacing}.\n"
        f"  Open {sandbox.page_url} in a browser: pick a name, then play against the bot, or with friends.\n"
        "  A real token from @BotFather (TELEGRAM_BOT_TOKEN in the environment or .env) turns it into a Telegram bot."
    )

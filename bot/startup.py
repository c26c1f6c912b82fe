"""Start-up that survives Telegram's hiccups: a transient error (a 429, a 5xx, a timeout, a dropped connection)
is retried with backoff instead of ending the process, and nothing that can wait holds the polling back.

``StartingApplication`` (the application's class) retries its ``initialize`` (getMe) until Telegram answers;
a refusal that will not change (a wrong token: 401) still ends the process at once. ``in_background`` runs what
may come later (the command menu, the titles of older tables) as a task the stop cancels. ``stop_once`` makes a
stop signal (Ctrl-C, SIGTERM) that comes again while the bot stops wait for the stop under way.

    await retried(lambda: bot.set_my_commands(commands), "the command menu")
"""

from __future__ import annotations

import asyncio
import logging
import signal
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, Final, TypeVar

from telegram import Bot, BotCommand
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application, ExtBot, JobQueue

from bot.commands import command_menu
from bot.context import BotContext, BotData
from bot.limits import retry_seconds

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_WAIT: Final = 1.0  # seconds before the first retry; doubled each time
MOST_WAIT: Final = 60.0  # the longest wait between two tries
STOP_SIGNALS: Final = (signal.SIGINT, signal.SIGTERM)  # PTB's run_polling and run_webhook stop on these


def stop_once(loop: asyncio.AbstractEventLoop) -> None:
    """The first stop signal stops the bot as PTB's own handler does (SystemExit out of the loop, then PTB's
    orderly stop); another one during that stop is only logged. PTB's handler would raise again in the middle of
    its stop, which then never closed the database: the database's threads kept the process alive for good. Two
    signals read by the loop at once run this handler twice: only the first call stops."""
    stopping = False

    def on_signal() -> None:
        nonlocal stopping
        if stopping:
            log.warning("already stopping: the tables, the outbox and the database close first (SIGKILL: at once)")
            return
        stopping = True
        raise SystemExit

    for sig in STOP_SIGNALS:
        loop.add_signal_handler(sig, on_signal)


def transient(e: BaseException) -> bool:
    """A failure worth trying again: flood control, a server error, a timeout or a lost connection (PTB raises
    NetworkError for all but the first; BadRequest, a NetworkError too, is a refusal that will not change)."""
    return isinstance(e, RetryAfter) or (isinstance(e, NetworkError) and not isinstance(e, BadRequest))


async def retried(call: Callable[[], Awaitable[T]], what: str) -> T:
    """``call()`` until it succeeds or fails for good; waits 1, 2, 4 … up to 60 s between tries (at least as
    long as a 429 asks)."""
    wait = FIRST_WAIT
    while True:
        try:
            return await call()
        except TelegramError as e:
            if not transient(e):
                raise
            delay = max(wait, retry_seconds(e)) if isinstance(e, RetryAfter) else wait
            log.warning("start-up: %s failed (%s); trying again in %.0f s", what, e, delay)
            await asyncio.sleep(delay)
            wait = min(MOST_WAIT, wait * 2)


class StartingApplication(Application[ExtBot[Any], BotContext, dict[Any, Any], dict[Any, Any], BotData, JobQueue[Any]]):
    async def initialize(self) -> None:
        await retried(super().initialize, "connecting to Telegram (getMe)")


def in_background(data: BotData, work: Coroutine[Any, Any, None], name: str) -> None:
    """Run ``work`` beside the polling; an error it ends with is logged; the stop cancels it (``cancel_all``)."""

    async def guarded() -> None:
        try:
            await work
        except Exception:  # a refusal that will not change, or a bug: the bot goes on without it
            log.exception("%s failed for good", name)

    task = asyncio.create_task(guarded(), name=name)
    data.tasks.add(task)
    task.add_done_callback(data.tasks.discard)


async def cancel_all(data: BotData) -> None:
    tasks = list(data.tasks)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def publish_commands(bot: Bot) -> None:
    """The command menu: Chinese for everyone, English for Telegram clients set to English; each retried."""
    zh = [BotCommand(name, about) for name, about in command_menu("zh")]
    en = [BotCommand(name, about) for name, about in command_menu("en")]
    await retried(lambda: bot.set_my_commands(zh), "publishing the command menu")
    await retried(lambda: bot.set_my_commands(en, language_code="en"), "publishing the English command menu")

"""Telegram's limits: the size of a write (and the helpers that keep every write within it), and the rate of
writes overall (``Throttle``, the outbox's global budget).

fit(text, MAX_TEXT)                      # cut, with an ellipsis, to 4,096 (UTF-16) characters
with_lines(caption, news, MAX_CAPTION)   # the caption and as many of the newest lines as fit
"""

from __future__ import annotations

import asyncio
import datetime as dtm
import heapq
import warnings
from typing import Final, Protocol

from telegram.error import BadRequest, ChatMigrated, NetworkError, RetryAfter, TelegramError
from telegram.warnings import PTBDeprecationWarning

from bot.waits import CLOCK, Clock

MAX_TEXT: Final = 4096  # Telegram's limits, counted in UTF-16 code units
MAX_CAPTION: Final = 1024
MAX_BUTTONS_PER_ROW: Final = 8  # of an inline keyboard
# Connections to the Bot API at once. The outbox uses all but ANSWER_CONNECTIONS of them, so an answer to a press
# never waits for a free connection behind the pictures being uploaded. httpcore walks the whole pool on every
# request: 32 answered presses under load faster than 64 (bench/RESULTS.md) and still carry 30 writes a second.
CONNECTIONS: Final = 32
ANSWER_CONNECTIONS: Final = 8


def length(text: str) -> int:
    """The length Telegram counts: UTF-16 code units."""
    return len(text.encode("utf-16-le")) // 2


def fit(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` (UTF-16) characters, an ellipsis where it was cut."""
    if length(text) <= limit:
        return text
    cut = text[: limit - 1]
    while length(cut) > limit - 1:
        cut = cut[:-1]
    return cut + "…"


def with_lines(text: str, lines: list[str], limit: int) -> tuple[str, list[str]]:
    """``text`` followed by as many of the newest ``lines`` as fit in ``limit``: (the whole, the lines kept)."""
    kept = list(lines)
    while kept and length("\n".join([text, *kept])) > limit:
        kept.pop(0)
    return fit("\n".join([text, *kept]), limit), kept


class SharedRate(Protocol):
    """A budget of writes shared with other processes (bot.cluster.shared_rate: Redis): ``take`` returns when
    this process may write once more."""

    async def take(self) -> None: ...

    async def take_chat(self, chat_id: int, interval: float) -> None:
        """Returns when this process may write to the private chat ``chat_id``, ``interval`` after any process's
        last write there."""
        ...


class Throttle:
    """At most ``rate`` grants per second, and ``in_flight`` grants not yet released; callers waiting for the rate
    with a lower ``priority`` number go first. With ``shared``, each grant also takes one write of the budget that
    every worker shares (the overall 30 a second holds for the bot as a whole, bot.cluster)."""

    def __init__(
        self,
        rate: float,
        in_flight: int = CONNECTIONS - ANSWER_CONNECTIONS,
        shared: SharedRate | None = None,
        clock: Clock = CLOCK,
    ) -> None:
        self._clock = clock
        self._gap = 1.0 / rate if rate > 0 else 0.0
        self._next = 0.0
        self._waiters: list[tuple[int, int, asyncio.Future[None]]] = []
        self._seq = 0
        self._task: asyncio.Task[None] | None = None
        self._in_flight = asyncio.Semaphore(in_flight)
        self._shared = shared

    async def acquire(self, priority: int, private: tuple[int, float] | None = None) -> None:
        """A grant to write once; ``private``: (chat id, interval) of a private chat, whose pace is shared too."""
        # The rate first: waiting there, urgent writes overtake lazy ones (a connection is rarely what they lack).
        await self._rate(priority)
        await self._in_flight.acquire()
        if private is not None and self._shared is not None:  # a person's chat may be written to by two workers
            # Last, right before the write: a turn taken earlier and then held up by the rate would bring this
            # write closer to the other worker's next one than the chat's pace.
            try:
                await self._shared.take_chat(*private)
            except BaseException:
                self._in_flight.release()
                raise

    def release(self) -> None:
        """The granted write is done (sent or refused)."""
        self._in_flight.release()

    async def _rate(self, priority: int) -> None:
        now = self._clock.monotonic()
        if not self._waiters and now >= self._next and self._shared is None:
            self._next = now + self._gap
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._seq += 1
        heapq.heappush(self._waiters, (priority, self._seq, fut))
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._grant())
        await fut

    async def _grant(self) -> None:
        while self._waiters:
            delay = self._next - self._clock.monotonic()
            if delay > 0:
                await self._clock.sleep(delay)
            if self._shared is not None:
                await self._shared.take()  # the most urgent waiter then, not the one that came first
            _, _, fut = heapq.heappop(self._waiters)
            if fut.done():  # its caller was cancelled
                continue
            fut.set_result(None)
            self._next = max(self._clock.monotonic(), self._next) + self._gap


def final_refusal(e: TelegramError) -> bool:
    """A refusal that will not change by retrying (400, 403, …): not a 429, a timeout or a lost connection, nor
    a group that became a supergroup (what waits for it is sent there)."""
    return isinstance(e, BadRequest) or not isinstance(e, (RetryAfter, NetworkError, ChatMigrated))


def retry_seconds(e: RetryAfter) -> float:
    with warnings.catch_warnings():  # PTB 22 warns that the int form will become a timedelta: both are read
        warnings.simplefilter("ignore", PTBDeprecationWarning)
        value = e.retry_after
    return value.total_seconds() if isinstance(value, dtm.timedelta) else float(value)

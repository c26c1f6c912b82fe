"""Flood control per chat, in PTB's rate-limiter slot: a 429 pauses the writes to its own chat only.

PTB's ``AIORateLimiter`` sleeps out any RetryAfter with every request of the bot held behind it, so one group's
"retry after 20" froze the answers to presses and the pictures of every other table for 20 s. Here a
RetryAfter is remembered for its chat alone: a later request to that chat waits when the pause is short
(``max_wait``), else it is refused at once with a RetryAfter for what is left (the outbox, which sends nearly
every write, then tries again when the pause is over). Requests to other chats, and requests naming no chat
(answers to presses), go straight on. The global budget (30 writes a second) is the outbox's ``Throttle``.

    Application.builder().rate_limiter(ChatRateLimiter())
"""

from __future__ import annotations

import datetime as dtm
import logging
from collections.abc import Callable, Coroutine
from typing import Any

from telegram.error import RetryAfter
from telegram.ext import BaseRateLimiter

from bot.limits import retry_seconds
from bot.waits import CLOCK, Clock

log = logging.getLogger(__name__)

JSONDict = dict[str, Any]
Result = bool | JSONDict | list[JSONDict]


class ChatRateLimiter(BaseRateLimiter[int]):
    def __init__(self, *, max_wait: float = 3.0, max_retries: int = 1, clock: Clock = CLOCK) -> None:
        self._clock = clock
        self.max_wait = max_wait
        self.max_retries = max_retries
        self._until: dict[int | str, float] = {}  # chat → no request before this (monotonic); pruned as it passes

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        self._until.clear()

    def paused(self, chat: int | str) -> float:
        """Seconds left of ``chat``'s pause (0 when it may be written to)."""
        until = self._until.get(chat)
        if until is None:
            return 0.0
        left = until - self._clock.monotonic()
        if left <= 0:
            del self._until[chat]
            return 0.0
        return left

    def _prune(self) -> None:
        now = self._clock.monotonic()
        for chat in [c for c, until in self._until.items() if until <= now]:
            del self._until[chat]

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, Result]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: int | None,
    ) -> Result:
        chat = data.get("chat_id")
        if not isinstance(chat, int | str):
            return await callback(*args, **kwargs)  # no chat (an answer to a press): never held by any pause
        retries = self.max_retries if rate_limit_args is None else rate_limit_args
        attempt = 0
        while True:
            left = self.paused(chat)
            if left > self.max_wait or (left > 0 and attempt > retries):
                raise RetryAfter(dtm.timedelta(seconds=left))
            if left > 0:
                await self._clock.sleep(left)
            try:
                return await callback(*args, **kwargs)
            except RetryAfter as e:
                seconds = retry_seconds(e)
                self._prune()
                self._until[chat] = self._clock.monotonic() + seconds
                log.info("chat %s: %s flood control for %.0f s (this chat only)", chat, endpoint, seconds)
                if attempt >= retries or seconds > self.max_wait:
                    raise
            attempt += 1

"""The overall write rate (Telegram's ~30 a second for a bot) shared by every worker: one token bucket in Redis,
taken by a Lua script (atomic in Redis, on Redis's own clock, so the workers' clocks need not agree).

    rate = RedisRate.connect("redis://127.0.0.1:6379/0", key="mahjong:writes:123456", rate=30.0, fallback_rate=10.0)
    await rate.take()            # returns when this worker may write once more; the bucket is the bot's
    await rate.take_chat(chat_id, interval=1.0)   # and once more to this private chat, whichever worker wrote last
    Outbox(bot, ..., shared_rate=rate)

A person's private chat may be written to by two workers (a table on one, ``/me`` answered by another, or
tables of two groups): each private chat has a bucket of its own too (``take_chat``), so the ~1 a second a chat
holds for the bot as a whole. A group needs none: its shard is one worker's, which paces it alone.

The script reserves: each call takes one token, the count going below zero, and answers how long its caller
must wait for that token to exist (a burst of one, the writes ``1 / rate`` apart, as bot.limits.Throttle
spaces one process's). No retry loop, no lost wake-ups; a caller cancelled while waiting spends its token.

A worker that Redis does not answer (``TIMEOUT_S``) says so, once, and keeps the total within the rate with the
others through PostgreSQL (bot.cluster.ownership, every round: ``shared``): it marks itself there, writes
nothing until every other worker has had a round to see the mark (``ownership.HOLD_S``), then at its share,
``rate / live workers``; the workers Redis answers fill the bucket at the rest, ``rate x (workers - marked) /
workers`` (each part ``HEADROOM`` below). So the total holds whoever loses Redis, all of them included. Redis
answering again, it takes from the bucket at once (the others, still counting its mark, leave it room until
their next round).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Final

import redis.asyncio as redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

TIMEOUT_S: Final = 0.5
RETRY_S: Final = 1.0  # how often a worker that lost Redis asks it again
# While the rate is split, each part (the bucket, each worker without Redis) keeps one write a second below its
# share: writes paced 1/r apart, a timer woken a little early brings one more into some second.
HEADROOM: Final = 1.0
_RESERVE: Final = """
local rate = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1]) or 1
local at = tonumber(stored[2]) or now
tokens = math.min(1, tokens + (now - at) * rate) - 1
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], 60000)
if tokens >= 0 then return '0' end
return tostring(-tokens / rate)
"""


class RedisRate:
    """``fallback_rate``: this worker's share while the database has not said how many workers live."""

    def __init__(self, client: redis.Redis, key: str, rate: float, fallback_rate: float) -> None:
        self._client, self.key, self.rate = client, key, rate
        self._script = client.register_script(_RESERVE)
        self._workers = max(round(rate / fallback_rate), 1)  # live, as the database last said
        self._without_redis = 0  # of them, those marked there as not reaching Redis
        self._own_share = False  # without Redis, it may write at its share: the others leave it room
        self.failing = False  # Redis did not answer this worker's last call
        self._retry_at = 0.0  # while failing, Redis is asked again from then on (each try may take TIMEOUT_S)
        self._own_next = 0.0  # without Redis: when its share allows the next write

    def shared(self, workers: int, without_redis: int, own_share: bool) -> None:
        """What the database says now (bot.cluster.ownership's round): the live workers, how many of them are
        marked as not reaching Redis, and whether this worker's mark is old enough for the others to know it."""
        self._workers, self._without_redis = max(workers, 1), min(without_redis, workers)
        self._own_share = own_share

    def unmarked(self) -> None:
        """This worker's mark is gone (with its connection to the database): without Redis it holds its writes."""
        self._own_share = False

    def _bucket_rate(self) -> float:
        """The rate of the bucket the workers Redis answers share: the rate less the others' shares."""
        return self._split(self._workers - self._without_redis) if self._without_redis else self.rate

    def _split(self, workers: int) -> float:
        """The part of the rate of ``workers`` of the live ones, less HEADROOM."""
        return max(self.rate * workers / self._workers - HEADROOM, 1.0)

    def _own_share_wait(self) -> float | None:
        """How long this worker without Redis waits for its next write, at its share; None: it may not write yet
        (the others may not know)."""
        if not self._own_share:
            return None
        now = time.monotonic()
        at = max(now, self._own_next)  # this write's turn
        self._own_next = at + 1 / self._split(1)
        return at - now

    @classmethod
    def connect(cls, url: str, key: str, rate: float, fallback_rate: float) -> RedisRate:
        client = redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S)
        return cls(client, key, rate, fallback_rate)

    async def take(self) -> None:
        while True:
            wait = await self._reserve(self.key, self._bucket_rate())
            if wait is None:
                wait = self._own_share_wait()
            if wait is not None:
                break
            await asyncio.sleep(RETRY_S)  # nothing written until the others know; Redis asked again meanwhile
        if wait > 0:
            await asyncio.sleep(wait)

    async def take_chat(self, chat_id: int, interval: float) -> None:
        """Returns when this worker may write to ``chat_id`` once more, ``interval`` after any worker's last
        write there. Redis not answering: no wait here (the worker's own pacing of the chat still holds)."""
        wait = await self._reserve(f"{self.key}:chat:{chat_id}", 1 / interval)
        if wait:
            await asyncio.sleep(wait)

    async def _reserve(self, key: str, rate: float) -> float | None:
        """How long to wait for the token reserved in Redis; None: Redis did not answer (or was not asked)."""
        if self.failing and time.monotonic() < self._retry_at:
            return None
        try:
            wait = float(await self._script(keys=[key], args=[rate]))
        except (RedisError, OSError, ValueError) as e:
            if not self.failing:
                log.warning("Redis does not answer (%s): this worker keeps to its share of the rate", type(e).__name__)
            self.failing, self._retry_at = True, time.monotonic() + RETRY_S
            return None
        if self.failing:
            log.info("Redis answers again: the rate is shared again")
        self.failing = False
        return wait

    async def close(self) -> None:
        await self._client.aclose()

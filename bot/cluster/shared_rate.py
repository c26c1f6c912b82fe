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
Redis not answering (``TIMEOUT_S``) does not stop the writes: the worker falls back to its share of the rate
(``fallback_rate``: ``Config.worker_rate``, the split that holds while at most the expected workers run) and says
so, once.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Final

import redis.asyncio as redis
from redis.exceptions import RedisError

log = logging.getLogger(__name__)

TIMEOUT_S: Final = 0.5
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
    def __init__(self, client: redis.Redis, key: str, rate: float, fallback_rate: float) -> None:
        self._client, self.key, self.rate = client, key, rate
        self._script = client.register_script(_RESERVE)
        self._fallback_gap = 1 / fallback_rate
        self._failing = False

    @classmethod
    def connect(cls, url: str, key: str, rate: float, fallback_rate: float) -> RedisRate:
        client = redis.Redis.from_url(url, socket_timeout=TIMEOUT_S, socket_connect_timeout=TIMEOUT_S)
        return cls(client, key, rate, fallback_rate)

    async def take(self) -> None:
        await self._reserve(self.key, self.rate, self._fallback_gap)

    async def take_chat(self, chat_id: int, interval: float) -> None:
        """Returns when this worker may write to ``chat_id`` once more, ``interval`` after any worker's last
        write there. Redis not answering: no wait here (the worker's own pacing of the chat still holds)."""
        await self._reserve(f"{self.key}:chat:{chat_id}", 1 / interval, 0.0)

    async def _reserve(self, key: str, rate: float, fallback_wait: float) -> None:
        try:
            wait = float(await self._script(keys=[key], args=[rate]))
        except (RedisError, OSError, ValueError) as e:
            if not self._failing:
                log.warning("Redis does not answer (%s): this worker writes at its share of the rate", type(e).__name__)
            self._failing, wait = True, fallback_wait
        else:
            if self._failing:
                log.info("Redis answers again: the rate is shared again")
            self._failing = False
        if wait > 0:
            await asyncio.sleep(wait)

    async def close(self) -> None:
        await self._client.aclose()

"""League tests: a controlled UTC clock and the real bot application, in-process, against FakeTelegram."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from telegram.ext import Application

import bot.app as bot_main
from bot.config import Config
from bot.league.nights import LeagueNights
from sandbox import FakeTelegram
from storage.database import Database


class Clock:
    """The time the league nights see; tests move it."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@contextlib.asynccontextmanager
async def running_bot(
    tg: FakeTelegram, db_path: Path, clock: Clock, **settings: Any
) -> AsyncIterator[Application[Any, Any, Any, Any, Any, Any]]:
    """The bot as `python -m bot` builds it (polling the fake server), with fast timers and a short pacing: the
    outbox sends each chat's latest state 0.2 s apart (at 0 s it sent every state of every hand, some 10,000
    requests in the six players' nights, which no test here reads: they read the stored results and the
    messages' last content)."""
    config = Config(
        token=tg.token,
        db_path=str(db_path),
        api_base_url=tg.base_url,
        file_base_url=tg.base_file_url,
        claim_seconds=0.05,
        turn_seconds=0.05,
        bot_delay=0.0,
        next_hand_seconds=0.05,
        group_interval=0.2,
        private_interval=0.2,
        passive_interval=0.2,
        global_rate=1000.0,
        match_seed=7,
        **settings,
    )
    app = bot_main.build_application(config)  # the pacing is the outbox's, fast here
    app.bot_data.clock = clock
    await app.initialize()
    assert app.post_init is not None and app.updater is not None
    await app.post_init(app)
    await app.updater.start_polling(poll_interval=0, timeout=1)
    await app.start()
    await asyncio.wait_for(nights_of(app).ready.wait(), 10)  # the league nights caught up at start-up
    try:
        yield app
    finally:
        await app.updater.stop()
        await app.stop()
        assert app.post_shutdown is not None
        await app.post_shutdown(app)
        await app.shutdown()


def nights_of(app: Application[Any, Any, Any, Any, Any, Any]) -> LeagueNights:
    nights = app.bot_data.nights
    assert isinstance(nights, LeagueNights)
    return nights


def db_of(app: Application[Any, Any, Any, Any, Any, Any]) -> Database:
    db = app.bot_data.db
    assert isinstance(db, Database)
    return db

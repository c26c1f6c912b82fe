"""The bot's logs: ``setup_logging(level)`` writes one line per record, ``time level logger: message``; the game's own
lines (logger ``bot.play``) are ``key=value`` pairs, one per action, with the table, hand and seat and never a
hidden tile (an 暗杠's tile and the hand seeds are left out)::

    2026-11-29 12:00:01,234 INFO bot.play: event=action table=-1001000000001 hand=7 seq=12 seat=2 kind=peng tile=5m

``log_event("hand_start", table=..., hand=...)`` writes one such line. ``errors`` (an ``ErrorCounter``
installed by ``setup_logging``) counts ERROR records since start-up for /status.
"""

from __future__ import annotations

import logging
import re
import time
from typing import Final

from game.actions import Action
from game.tiles import tile_name

play_log = logging.getLogger("bot.play")
_SAFE_VALUE = re.compile(r"^[^\s\"=]+$")
_HIDDEN_TILE_KINDS: Final = frozenset({"an_gang"})


def _value(v: object) -> str:
    s = str(v)
    return s if _SAFE_VALUE.match(s) else '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def log_event(event: str, **fields: object) -> None:
    """One ``key=value`` line on the ``bot.play`` logger (None values are left out)."""
    if play_log.isEnabledFor(logging.INFO):
        pairs = " ".join(f"{k}={_value(v)}" for k, v in fields.items() if v is not None)
        play_log.info("event=%s %s", event, pairs)


def log_action(table: int, hand: int, seq: int, action: Action) -> None:
    """The line for one stored action; an 暗杠's tile is a secret and stays out."""
    tile = None if action.tile is None or action.kind in _HIDDEN_TILE_KINDS else tile_name(action.tile)
    log_event("action", table=table, hand=hand, seq=seq, seat=action.seat, kind=action.kind, tile=tile)


class ErrorCounter(logging.Handler):
    """Counts ERROR (and worse) records: /status shows how many since start-up."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.count = 0
        self.started = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


errors = ErrorCounter()


def setup_logging(level: str) -> None:
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("httpx", "apscheduler"):  # a line per request or timer would drown the game's lines
        logging.getLogger(chatty).setLevel(logging.WARNING)
    root = logging.getLogger()
    if errors not in root.handlers:
        root.addHandler(errors)

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
from collections.abc import Mapping, Sequence
from typing import Final

import httpx

from game.actions import Action
from game.tiles import tile_name

play_log = logging.getLogger("bot.play")
_SAFE_VALUE = re.compile(r"^[^\s\"=]+$")
_HIDDEN_TILE_KINDS: Final = frozenset({"an_gang"})
_OWN_LOGGERS: Final = frozenset({"bot", "storage", "game", "rendering"})
_FORMATTER: Final = logging.Formatter()


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


class Redact(logging.Filter):
    """On every handler: no line carries a secret (the bot token, the webhook's secret), and a library's line
    carries no payload. At DEBUG, PTB logs each request's parameters (a private keyboard has a button per
    concealed tile, a caption the player's waits) and each update; those arguments are shown as ``<…>``, the
    plain ones (an endpoint's name, a URL, a number) are kept. Our own lines (``bot``, ``storage``, ``game``,
    ``rendering``) are written never to carry a hidden tile or a seed (see ``log_action``)."""

    def __init__(self, secrets: Sequence[str]) -> None:
        super().__init__()
        self.secrets = [s for s in secrets if s]

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and record.name.split(".")[0] not in _OWN_LOGGERS:
            if isinstance(record.args, Mapping):
                record.args = ()  # the line's bare format, without its values
            else:
                record.args = tuple(_plain(a) for a in record.args)
        record.msg, record.args = self._clean(record.getMessage()), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = self._clean(_FORMATTER.formatException(record.exc_info))
        return True

    def _clean(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, "<secret>")
        return text


def _plain(value: object) -> object:
    return value if isinstance(value, (str, int, float, bool, type(None), httpx.URL)) else "<…>"


def setup_logging(level: str, secrets: Sequence[str] = ()) -> None:
    """Log at ``level``; ``secrets`` (the token) never appear in a line, whatever the level."""
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("httpx", "httpcore", "apscheduler"):  # a line per request or timer would drown the game's lines
        logging.getLogger(chatty).setLevel(logging.WARNING)
    root = logging.getLogger()
    redact = Redact(secrets)
    for handler in root.handlers:
        handler.filters = [f for f in handler.filters if not isinstance(f, Redact)] + [redact]
    if errors not in root.handlers:
        root.addHandler(errors)

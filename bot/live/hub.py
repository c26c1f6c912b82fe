"""The Mini App's live connections, by table: what the table shows, each connection is sent at once.

The table's edge (``bot.host.edge``) hands every show effect to ``Hub.shown`` as it carries it out, so the page
follows the same effects as the pictures, at the same moments: a seat's own view when its picture is shown
(``ShowSeat``, ``ShowResult``), everyone's when the group's picture is (``ShowGroup``). The 海底 rule holds
by construction: while one seat decides the 海底, only that seat is shown anything, on the page as in the chats.
Each frame is built when its effect is carried out (the table as it is then) and sent when the loop is next
free; a newer frame for the same connection replaces one not yet sent.

While a person has the page open at a table, their private picture need not follow every step (``live``): the
edge shows it lazily, within Telegram's pace for a player with nothing to decide, and remembers that it may lag
behind (``owe``, ``owed``); when their last connection closes, or they press in the chat, it is shown at once
(``leave`` says so: the page's server then asks the table to).

    hub = Hub(config, clock)
    hub.join(connection); hub.shown(table, effect)
    if hub.leave(connection): tables.post(connection.key, Refresh(connection.user_id))
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, Protocol

from bot.config import Config
from bot.live.frames import seat_frame, spectator_frame
from bot.table import effects as fx
from bot.table.key import TableKey
from bot.table.state import Table

log = logging.getLogger(__name__)


class Connection(Protocol):
    """One open page: whose, at which table, in which language; it sends a text frame."""

    key: TableKey
    user_id: int
    lang: str

    def send(self, text: str) -> None: ...


def frame_for(table: Table, user_id: int, lang: str, now: float, bot_delay: float) -> dict[str, Any] | None:
    """What ``user_id`` may see of ``table`` now: their seat's view if they sit there, else the group's; None
    while a 海底 is decided by another seat (that it can be won is the deciding seat's alone to know)."""
    seat = table.seat_of(user_id)
    hand = table.hand
    if hand is None:
        return {"type": "waiting", "state": table.state, "title": table.title}
    if table.hidden_from(seat):
        return None
    if seat is None:
        return spectator_frame(table, lang)
    return seat_frame(table, seat, now, bot_delay, lang)


class Hub:
    def __init__(self, config: Config, clock: Callable[[], float]) -> None:
        self.config, self.clock = config, clock
        self._tables: dict[TableKey, set[Connection]] = {}
        self._pending: dict[Connection, str] = {}
        self._owed: set[tuple[TableKey, int]] = set()  # a picture shown lazily while the page was open
        self._flushing = False

    # --- connections --------------------------------------------------------------------------------------------
    def join(self, connection: Connection, table: Table | None) -> None:
        """A page opened at a table: it is sent where the table stands at once."""
        self._tables.setdefault(connection.key, set()).add(connection)
        if table is not None:
            self._queue(connection, table)

    def leave(self, connection: Connection) -> bool:
        """A page closed; True when it was the person's last at that table and their picture may lag behind: it is
        to be brought up to date."""
        key, user_id = connection.key, connection.user_id
        self._pending.pop(connection, None)
        connections = self._tables.get(key, set())
        connections.discard(connection)
        if not connections:
            self._tables.pop(key, None)
        return not self.live(key, user_id) and (key, user_id) in self._owed

    def live(self, key: TableKey, user_id: int) -> bool:
        return any(c.user_id == user_id for c in self._tables.get(key, ()))

    def owe(self, key: TableKey, user_id: int) -> None:
        """A picture of this person's was shown lazily while they played on the page: it may lag behind."""
        self._owed.add((key, user_id))

    def owed(self, key: TableKey, user_id: int) -> bool:
        """Whether the person's picture may lag behind; now paid (it is shown at once)."""
        if (key, user_id) not in self._owed:
            return False
        self._owed.discard((key, user_id))
        return True

    def count(self) -> int:
        return sum(len(c) for c in self._tables.values())

    # --- what the table shows --------------------------------------------------------------------------------
    def shown(self, table: Table, effect: fx.Effect) -> None:
        """The table shows ``effect``: the connections it concerns get the table as they may see it now."""
        connections = self._tables.get(table.key)
        if not connections:
            return
        match effect:
            case fx.ShowSeat(seat=seat, user_id=user_id):
                who = user_id or table.seat(seat).user_id
                targets = [c for c in connections if c.user_id == who]
            case fx.ShowResult(seat=seat):
                targets = [c for c in connections if c.user_id == table.seat(seat).user_id]
            case fx.ShowGroup():
                targets = list(connections)
            case _:
                return
        for connection in targets:
            self._queue(connection, table)

    def rekey(self, old: TableKey, new: TableKey) -> None:
        """The table is known by a new key (its group migrated): its pages follow it, presses included."""
        connections = self._tables.pop(old, set())
        for connection in connections:
            connection.key = new
        if connections:
            self._tables.setdefault(new, set()).update(connections)
        self._owed = {(new if k == old else k, user) for k, user in self._owed}

    def closed(self, key: TableKey) -> None:
        """The table has ended: its pages are told so, and hear nothing more (a new table there is not theirs)."""
        for connection in self._tables.pop(key, set()):
            self._pending[connection] = json.dumps({"type": "closed"})
        self._owed = {k for k in self._owed if k[0] != key}
        self._schedule()

    def _queue(self, connection: Connection, table: Table) -> None:
        frame = frame_for(table, connection.user_id, connection.lang, self.clock(), self.config.bot_delay)
        if frame is None:
            return
        self._pending[connection] = json.dumps(frame, ensure_ascii=False)
        self._schedule()

    def _schedule(self) -> None:
        if not self._flushing and self._pending:
            self._flushing = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flushing = False
        pending, self._pending = self._pending, {}
        for connection, text in pending.items():
            try:
                connection.send(text)
            except Exception:  # a page gone mid-send closes on its own; the others still get theirs
                log.info("live: a frame could not be sent to a page of table %s", connection.key.token)

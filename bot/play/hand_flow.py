"""The hand in motion: apply → store → show, the timers' ticks, the end of a hand and closing a table.

``HandFlow`` is the part of the TableManager (``bot.play.manager``) that runs once a hand is dealt; the
manager adds the lobby and the presses. Everything here runs under the table's lock (``locked``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from concurrent.futures import Executor
from dataclasses import replace
from typing import Any, Protocol

from telegram import Bot
from telegram.ext import Job, JobQueue

from bot.config import Config
from bot.i18n import t
from bot.logs import log_action, log_event
from bot.outbox import Content, Outbox
from bot.play.old_buttons import retire_ready
from bot.play.table_key import TableKey
from bot.play.table_state import Seat, Table
from bot.play.timers import TableTimers
from bot.views.game_views import (
    automatic_name,
    event_notices,
    result_content,
    seat_content,
    seat_label,
    spectator_content,
    stopped_text,
)
from game.actions import Action
from game.automatic import choose
from game.facts import hand_facts
from game.table import Hand
from game.verify import fresh_seed
from storage.database import Database
from storage.errors import StorageError
from storage.matches import Seat as StoredSeat

log = logging.getLogger(__name__)

_RETRY_SECONDS = 5.0  # after a timed step failed unexpectedly


class TableSession(Protocol):
    """A table opened by ``open_table`` (a league night) decides who sits for each hand and when it ends."""

    def seating(self, table: Table) -> Sequence[Seat | None]:
        """The four seats for the hand about to start (None: an automatic player)."""
        ...

    def over(self, table: Table) -> bool:
        """Whether the table ends after the hand just settled (besides its planned number of hands)."""
        ...

    async def closed(self, table: Table, status: str) -> None:
        """The table has finished ('done' or 'abandoned'); its match is closed in storage."""
        ...


class HandFlow:
    def __init__(
        self, config: Config, db: Database, outbox: Outbox, jobs: JobQueue[Any], bot: Bot, pool: Executor | None = None
    ) -> None:
        self.config = config
        self.pool = pool  # the processes the search (hard level) runs in; None: a thread, as the other levels
        self.db = db
        self.outbox = outbox
        self.bot = bot
        self.timers = TableTimers(jobs, config, self.tick)
        self.tables: dict[TableKey, Table] = {}
        self._locks: dict[TableKey, tuple[asyncio.Lock, list[int]]] = {}  # table → its lock, [holders and waiters]
        self.sessions: dict[TableKey, TableSession] = {}  # per table opened by open_table
        self.max_wait_ms = 0.0  # the longest any update waited for its table's lock (the bench reads it)

    @contextlib.asynccontextmanager
    async def locked(self, key: TableKey) -> AsyncIterator[None]:
        """The table to oneself. The lock lives while someone holds or awaits it or the table is open: a press
        naming a forged id, or a closed table, leaves nothing behind."""
        lock, users = self._locks.setdefault(key, (asyncio.Lock(), [0]))
        users[0] += 1
        started = time.monotonic()
        try:
            async with lock:
                self.max_wait_ms = max(self.max_wait_ms, (time.monotonic() - started) * 1000)
                yield
        finally:
            users[0] -= 1
            if not users[0] and key not in self.tables:
                del self._locks[key]

    def state_size(self) -> dict[str, int]:
        """How much per-id state is kept (logged at shutdown; the tests and the bench read it)."""
        return {
            "tables": len(self.tables),
            "locks": len(self._locks),
            "sessions": len(self.sessions),
            "outbox_chats": self.outbox.chats(),
        }

    def show_group(self, table: Table, slot: str, content: Content, *, fresh: bool = False) -> None:
        """One of the table's messages in its group, in the table's forum topic."""
        self.outbox.show(table.chat_id, table.key.slot(slot), replace(content, thread=table.thread_id), fresh=fresh)

    def announce(self, table: Table, text: str) -> None:
        """A message to the table's group, in the table's forum topic."""
        self.outbox.announce(table.chat_id, text, thread=table.thread_id)

    # --- a new hand ---------------------------------------------------------------------------------------
    async def start_hand(self, table: Table) -> None:
        assert table.match is not None and table.match_id is not None
        retire_ready(self.outbox, table)
        session = self.sessions.get(table.key)
        if session is not None:
            for seat, new in enumerate(session.seating(table)):
                if new is None or new.user_id != table.seat(seat).user_id:
                    await self._replace_seat(table, seat, new, "sitting_out")
        else:  # a group's own table: the group's /settings as they are now
            await self.follow_settings(table)
        # Each hand its own secret seed (a fixed MAHJONG_SEED derives them, so a test match replays exactly).
        hand = table.match.new_hand(None if self.config.match_seed is not None else fresh_seed())
        record = await self.db.hands.start(table.match_id, hand.seed, hand.dealer)
        table.hand_number, table.commitment = record.hand_no, record.commitment
        log_event(
            "hand_start",
            table=table.chat_id,
            hand=record.id,
            number=record.hand_no,
            dealer=hand.dealer,
            rules=hand.rules.preset,
        )
        await self.learn_languages(table)
        changed = table.start_hand(hand, record.id, time.monotonic())
        self._publish(table, changed, new_hand=True)
        self.timers.arm(table)

    async def learn_languages(self, table: Table) -> None:
        """Each human's own language (their /lang, else their Telegram one) for their private messages; read
        before every hand, so a /lang between hands applies to the next one."""
        for _, s in table.humans():
            player = await self.db.players.get(s.user_id or 0)
            if player is not None:
                s.lang = player.language

    async def follow_settings(self, table: Table) -> None:
        """Bring a group's own table up to the group's /settings: language, timers, automatic players, rules.

        Called before each hand (and by /settings while the table is a lobby), so a change applies from the
        next hand; the match's stored rules follow, so a resumed match deals under them too."""
        settings = await self.db.chats.get(table.chat_id)
        table.follow(settings, self.config)
        if table.match is None:  # a lobby: its game is not stored yet, so it is played as long as set now
            table.hands_planned = settings.hands_per_game
        if table.match is not None and table.match_id is not None and table.match.rules != settings.rules:
            await self.db.matches.set_rules(table.match_id, settings.rules)
            table.match.rules = settings.rules

    # --- playing --------------------------------------------------------------------------------------------
    async def play(self, table: Table, action: Action, also_urgent: Sequence[int] = ()) -> bool:
        """Apply, store, then show; False when storage refused it: the action is undone (nothing was shown yet)
        and may be played again once the fault clears."""
        hand = table.hand
        assert hand is not None and table.hand_id is not None
        now = time.monotonic()
        events, changed = table.apply(action, now)
        try:
            await self.db.hands.append_action(table.hand_id, len(hand.actions) - 1, action.to_json())
        except (StorageError, OSError) as e:
            log.error(
                "table %s hand %s: could not store action %d (%s); undone",
                table.chat_id,
                table.hand_id,
                len(hand.actions) - 1,
                e,
            )
            table.hand = Hand.replay(hand.rules, hand.seed, hand.dealer, hand.actions[:-1])
            table.refresh_prompts(now)
            self.timers.arm(table, not_before=time.monotonic() + _RETRY_SECONDS)
            return False
        log_action(table.chat_id, table.hand_id, len(hand.actions) - 1, action)
        for kind, notice in event_notices(table, events):
            if kind == "tell":  # the group's picture is edited after every action anyway: its caption tells it
                self.outbox.tell(table.chat_id, table.key.slot("spectator"), notice, thread=table.thread_id)
            else:
                self.announce(table, notice)
        if hand.finished:
            try:
                await self.end_hand(table)
            except Exception:  # a storage failure: the settlement is tried again by the table's timer
                log.exception("table %s: hand %s could not be settled; retrying", table.chat_id, table.hand_id)
                self.timers.arm(table, not_before=time.monotonic() + _RETRY_SECONDS)
            return True
        self._publish(table, changed | set(also_urgent), actor=action.seat)
        self.timers.arm(table)
        return True

    def _publish(self, table: Table, changed: set[int], *, new_hand: bool = False, actor: int | None = None) -> None:
        """Queue the views that changed: a player's picture when their decision changed (urgent when they must
        act now or have just acted, so a press shows at once; lazily when their buttons only went away), and
        the group's picture. A player with nothing to decide sees the table again at their next decision (and
        live in the group): that keeps the writes near one per action."""
        for seat, s in table.humans():
            if seat in changed or new_hand:
                # A new hand's other players see it lazily; the one who just acted sees their move at once. Each
                # hand has a message of its own: the last one's result stays readable above it.
                urgent = seat in table.prompts or s.auto or seat == actor
                content = seat_content(table, seat)
                slot = table.key.private_slot("hand")
                self.outbox.show(s.user_id or 0, slot, content, urgent=urgent, fresh=new_hand)
        self.show_group(table, "spectator", spectator_content(table), fresh=new_hand)

    async def _automatic_action(self, table: Table, seat: int) -> Action:
        hand = table.hand
        assert hand is not None
        view, seed = hand.view(seat), hand.seed ^ len(hand.actions)
        # 托管 plays at the group's level too. The search (hard) thinks in another process, the others in a
        # thread: a slow decision never stalls the other tables.
        if table.auto_level == "hard" and self.pool is not None:
            return await asyncio.get_running_loop().run_in_executor(self.pool, choose, view, "hard", seed)
        return await asyncio.to_thread(choose, view, table.auto_level, seed)

    async def tick(self, key: TableKey, job: Job[Any] | None = None) -> None:
        """The table's timer: play every decision that is due (automatic players, timeouts), start hands."""
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return
            self.timers.fired(key, job)
            try:
                await self._play_due(table)
            except Exception:  # a bug or a storage failure must not leave the table without a timer
                log.exception("table %s: a timed step failed; trying again in %.0f s", key.token, _RETRY_SECONDS)
                if self.tables.get(key) is table:
                    self.timers.arm(table, not_before=time.monotonic() + _RETRY_SECONDS)

    async def _play_due(self, table: Table) -> None:
        if table.state == "playing" and table.hand is not None and table.hand.finished:
            await self.end_hand(table)  # its settlement failed before
            return
        if table.state == "between":
            if time.monotonic() >= table.between_since + self.config.next_hand_seconds - 0.01:
                await self.start_hand(table)
            else:
                self.timers.arm(table)
            return
        while table.state == "playing" and table.hand is not None:
            due = table.next_due(self.config.bot_delay)
            if due is None or due[0] > time.monotonic() + 0.01:
                break
            if not await self.play(table, *await self._due_action(table, due[1])):
                return  # storage refused it: tried again by the timer play() armed
        if self.tables.get(table.key) is table:
            self.timers.arm(table)

    async def _due_action(self, table: Table, seat: int) -> tuple[Action, tuple[int, ...]]:
        """What a due seat plays: the automatic player's choice, a timed-out claim's pass, or 托管."""
        hand = table.hand
        assert hand is not None
        s = table.seat(seat)
        if s.automatic:
            return await self._automatic_action(table, seat), ()
        if hand.phase != "turn":  # silence on a claim is a pass (RULES.md §5)
            return Action(seat, "pass"), ()
        s.auto = True
        table.tuoguan[seat] += 1
        self.announce(table, t("announce_tuoguan", table.lang, seat=seat_label(table, seat)))
        return await self._automatic_action(table, seat), (seat,)

    # --- the end of a hand, seats changing hands, closing ---------------------------------------------------
    async def end_hand(self, table: Table) -> None:
        hand, match = table.hand, table.match
        assert hand is not None and match is not None and table.hand_id is not None
        # Settled in storage first: should that fail, nothing has changed and the next tick tries again.
        result = hand.result
        payments = result.payments if result is not None else (0, 0, 0, 0)
        winner = result.winner if result is not None else None
        summary = result.to_json() if result is not None else {"exhausted": True}
        # Storage adds the flee penalties it holds for this hand: its totals are the one truth.
        closed = await self.db.hands.close(
            table.hand_id, payments, winner, summary, facts=hand_facts(hand), tuoguan=table.tuoguan
        )
        reveal = await self.db.hands.reveal(table.hand_id)
        match.finish_hand(hand)
        table.totals = list(closed.match_totals)
        table.proof = (closed.share_code, reveal.text if reveal is not None else "")
        log_event(
            "hand_end",
            table=table.chat_id,
            hand=table.hand_id,
            winner=winner,
            payments=",".join(str(r.points) for r in closed.results),
            patterns=",".join(result.patterns) if result else None,
            exhausted=hand.exhausted or None,
        )
        table.state, table.between_since, table.prompts = "between", time.monotonic(), {}
        # Shown in the results (a player's own change privately, promotions in the group's): no messages.
        table.title_changes = {
            r.seat: (r.title_before, r.title_after)
            for r in closed.results
            if r.title_changed and r.title_before is not None and r.title_after is not None
        }
        session = self.sessions.get(table.key)
        last = match.hands_played >= table.hands_planned or (session is not None and session.over(table))
        self.show_group(table, "spectator", spectator_content(table))  # its end: nobody is waited for
        self.show_group(table, "result", result_content(table, None), fresh=True)
        for seat, s in table.humans():
            # The hand's last picture loses its buttons; the result is a message of its own that stays.
            self.outbox.show(s.user_id or 0, table.key.private_slot("hand"), seat_content(table, seat))
            content = result_content(table, None if last else self.config.next_hand_seconds, s.lang, seat)
            self.outbox.show(s.user_id or 0, table.key.private_slot("result"), content, urgent=True, fresh=True)
        if last:
            await self.finish(table, "done")
        else:
            self.timers.arm(table)

    async def seat_automatic(self, table: Table, seat: int, *, stored: bool = False) -> None:
        """An automatic player takes a human's seat for the rest of the match; their message is closed.
        ``stored``: storage gave the seat away already (a flight, with its penalty)."""
        await self._replace_seat(table, seat, None, "left", stored=stored)

    async def _replace_seat(
        self, table: Table, seat: int, new: Seat | None, farewell: str, *, stored: bool = False
    ) -> None:
        """Someone else (None: an automatic player) takes a seat for the next hands; the one leaving it is told
        (the text ``farewell``, in their own language)."""
        old = table.seat(seat)
        if new is None and old.user_id is None:
            return  # an automatic player stays an automatic player
        if table.match_id is not None and not stored:  # stored before the table changes: a refusal changes nothing
            record = StoredSeat.human(new.user_id) if new and new.user_id else StoredSeat.auto(table.auto_level)
            await self.db.matches.replace_seat(table.match_id, seat, record)
        retire_ready(self.outbox, table, seat)
        if old.user_id is not None and table.state == "playing" and table.hand is not None:
            # Their picture keeps its last state without buttons; the seat is no longer theirs to play.
            self.outbox.show(old.user_id, table.key.private_slot("hand"), seat_content(table, seat, left=True))
        table.seats[seat] = new or Seat(None, automatic_name(seat, table.lang))
        if new is None and old.user_id is not None:
            table.left_by.setdefault(seat, old.name)
        if old.user_id is not None:
            self.outbox.announce(old.user_id, t(farewell, old.lang, name=old.name))
            self.outbox.forget(old.user_id, table.key.private_slot("hand"))

    async def end_if_no_humans(self, table: Table) -> bool:
        if table.humans():
            return False
        await self.finish(table, "abandoned" if table.state == "playing" else "done")
        return True

    async def finish(self, table: Table, status: str) -> None:
        """End the table: storage's match closed, the summary in the group, every private message closed."""
        self.timers.cancel(table.key)
        retire_ready(self.outbox, table)
        self.tables.pop(table.key, None)
        session = self.sessions.pop(table.key, None)
        if table.match is None or table.match_id is None:
            self.show_group(table, "lobby", Content(t("closed", table.lang)))
        else:
            if table.state == "playing" and table.hand is not None:  # every picture of the hand: its last state
                self.show_group(table, "spectator", spectator_content(table, stopped=True))
                for seat, s in table.humans():
                    slot = table.key.private_slot("hand")
                    self.outbox.show(s.user_id or 0, slot, seat_content(table, seat, stopped=True))
            status = await self._close_match(table, status)
            if session is None:  # a session's seats change hands, so it tells the results its own way
                self.announce(table, stopped_text(table))
            for _, s in table.humans():  # in each one's own language
                self.outbox.announce(s.user_id or 0, stopped_text(table, s.lang))
        self._forget(table)
        if session is not None:
            await session.closed(table, status)

    def _forget(self, table: Table) -> None:
        """A closed table's messages keep no state in the outbox once their last writes are out."""
        for _, s in table.humans():
            self.outbox.forget(s.user_id or 0, table.key.private_slot("hand"))
        for slot in ("lobby", "spectator", "result"):
            self.outbox.forget(table.chat_id, table.key.slot(slot))

    async def _close_match(self, table: Table, status: str) -> str:
        """Close the match in storage; the status it closed with."""
        assert table.match_id is not None
        if table.state == "playing" and table.hand_id is not None:
            flee = await self.db.hands.penalties(table.hand_id)
            if any(flee):
                # A stopped hand with a flight in it is settled with the penalty alone, so nobody escapes it.
                closed = await self.db.hands.close(
                    table.hand_id, (0, 0, 0, 0), None, {"stopped": True, "flee": list(flee)}
                )
                table.totals = list(closed.match_totals)
                status = "done"
        await self.db.matches.finish(table.match_id, "done" if status == "done" else "abandoned")
        return status

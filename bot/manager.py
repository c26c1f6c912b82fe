"""The TableManager: every group's table, driven by commands, button presses and timers.

Each table has its own ``asyncio.Lock``; everything that reads or changes a table runs under it, so tables
run concurrently and each one serially. Within the lock an action is applied to the hand, then appended
to storage, and only then are its effects handed to the outbox (which sends them later, outside the lock):
a crash loses no move, and a slow Telegram never holds a table. One JobQueue job per table fires at the
table's next deadline: an automatic player's move, a human's claim window or turn timer, the next hand.

    manager = TableManager(config, db, outbox, job_queue, bot)
    await manager.resume()                               # at start-up: every unfinished hand goes on
    reply = await manager.new_table(chat_id, title, user_id, name)
    notice = await manager.press(chat_id, user_id, stamp, code)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from apscheduler.jobstores.base import JobLookupError  # type: ignore[import-untyped]
from telegram import Bot, InlineKeyboardMarkup
from telegram.error import Forbidden, TelegramError
from telegram.ext import CallbackContext, Job, JobQueue

from bot.callbacks import BadCallback, parse_action_code
from bot.config import Config
from bot.ops import log_action, log_event
from bot.outbox import Content, Outbox
from bot.table import Seat, Table
from bot.texts import text
from bot.views import (
    join_markup,
    lobby_content,
    result_content,
    seat_content,
    seat_label,
    spectator_content,
)
from game.ai import LEVELS, choose
from game.match import Match
from game.patterns import PATTERNS
from game.rules import Rules
from game.table import Action, Event, Hand, IllegalAction
from game.tiles import parse_tile, tile_label
from storage.database import Database
from storage.errors import StorageError
from storage.hands import HandRecord
from storage.matches import Match as StoredMatch
from storage.matches import Seat as StoredSeat

log = logging.getLogger(__name__)

_RETRY_SECONDS = 5.0  # after a timed step failed unexpectedly

# The events the group's picture caption tells (besides the pictures).
_ANNOUNCED = {"peng": "announce_peng", "chong_gang": "announce_gang", "an_gang": "announce_gang",
              "xu_gang": "announce_gang", "hongzhong_gang": "announce_hongzhong_gang",
              "laizi_gang": "announce_laizi_gang"}


@dataclass(frozen=True)
class Reply:
    """What a command answers in the chat it came from (None text = nothing to say)."""

    text: str | None
    markup: InlineKeyboardMarkup | None = None


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


class TableManager:
    def __init__(self, config: Config, db: Database, outbox: Outbox, jobs: JobQueue[Any], bot: Bot) -> None:
        self.config = config
        self.db = db
        self.outbox = outbox
        self.job_queue = jobs
        self.bot = bot
        self.tables: dict[int, Table] = {}
        self._locks: dict[int, asyncio.Lock] = {}
        self._jobs: dict[int, Job[Any]] = {}
        self.sessions: dict[int, TableSession] = {}  # per table opened by open_table
        self.max_wait_ms = 0.0  # the longest any update waited for its table's lock (the bench reads it)

    @property
    def bot_username(self) -> str:
        return self.bot.username

    @contextlib.asynccontextmanager
    async def _locked(self, chat_id: int) -> AsyncIterator[None]:
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        started = time.monotonic()
        async with lock:
            self.max_wait_ms = max(self.max_wait_ms, (time.monotonic() - started) * 1000)
            yield

    # --- the lobby ----------------------------------------------------------------------------------------
    async def new_table(self, chat_id: int, title: str, user_id: int, name: str) -> Reply:
        """Open the group's table, its creator seated (if the bot can reach them privately)."""
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is not None:
                return Reply(text("table_exists", table.lang))
            settings = await self.db.chats.get(chat_id)
            table = Table(
                chat_id=chat_id,
                title=title,
                creator_id=user_id,
                creator_name=name,
                lang=settings.language,
                auto_players=settings.auto_players,
                auto_level=settings.auto_level if settings.auto_level in LEVELS else "normal",
                claim_seconds=self.config.claim_seconds or settings.claim_seconds,
                turn_seconds=self.config.turn_seconds or settings.turn_seconds,
                hands_planned=settings.hands_per_game,
            )
            self.tables[chat_id] = table
            reply = await self._join(table, user_id, name, from_private=False)  # the creator sits down first
            self._show_lobby(table)
            return reply

    async def join(self, chat_id: int, user_id: int, name: str, *, from_private: bool = False) -> Reply:
        """Seat a player. From the group, only once a private message reached them (else: how to start me)."""
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is None:
                return Reply(text("start_no_table" if from_private else "no_table", self.config.lang))
            return await self._join(table, user_id, name, from_private)

    async def _join(self, table: Table, user_id: int, name: str, from_private: bool) -> Reply:
        lang = table.lang
        if table.seat_of(user_id) is not None:
            return Reply(text("already_seated", lang))
        if table.state != "lobby":
            return Reply(text("already_playing", lang))
        if None not in table.seats:
            return Reply(text("table_full", lang))
        player = await self.db.players.get(user_id)  # the handler registered them with their own language
        hello = text("joined_private", player.language if player else lang, group=table.title)
        if from_private:
            self.outbox.announce(user_id, hello)
        elif not await self._reaches(user_id, hello):
            return Reply(text("not_reachable", lang, name=name), join_markup(table, self.bot_username))
        await self.db.players.upsert(user_id, name)
        seat = table.sit(user_id, name)
        assert seat is not None
        self._show_lobby(table)
        return Reply(None if from_private else text("joined", lang, name=name, wind=text(f"wind_{seat}", lang)))

    async def _reaches(self, user_id: int, message: str) -> bool:
        """Whether the bot can write to the user privately: it tries (403 = they never started it)."""
        if user_id in self.outbox.unreachable:
            self.outbox.unreachable.discard(user_id)  # they may have started the bot since
        try:
            await self.bot.send_message(user_id, message)
        except Forbidden:
            return False
        except TelegramError as e:  # a flood limit or a network error: say "not now" rather than break
            log.warning("could not reach user %s: %s", user_id, e)
            return False
        return True

    async def leave(self, chat_id: int, user_id: int) -> Reply:
        """/leave: free a seat when no hand is running (a running hand needs /flee)."""
        return await self._leave(chat_id, user_id, flee=False)

    async def flee(self, chat_id: int, user_id: int) -> Reply:
        """/flee: leave even a running hand, with the flee penalty (RULES.md §10)."""
        return await self._leave(chat_id, user_id, flee=True)

    async def _leave(self, chat_id: int, user_id: int, flee: bool) -> Reply:
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is None:
                return Reply(text("no_table", self.config.lang))
            seat = table.seat_of(user_id)
            if seat is None:
                return Reply(text("not_seated", table.lang))
            if table.state != "playing":
                return await self._leave_unplayed(table, seat, user_id)
            if not flee or table.hand_id is None or table.match is None:
                penalty = table.match.rules.flee_penalty if table.match else 0
                return Reply(text("hand_running", table.lang, penalty=penalty))
            label = seat_label(table, seat)
            # Stored before anyone is told, and settled with this hand by storage (nothing lost in a crash).
            await self.db.hands.add_penalty(table.hand_id, table.match.flee(seat))
            await self._seat_automatic(table, seat)
            self.outbox.announce(chat_id, text("announce_flee", table.lang, seat=label,
                                               penalty=table.match.rules.flee_penalty))
            if not await self._end_if_no_humans(table) and table.state == "playing":
                self._publish(table, set())
                self._arm(table)
            return Reply(None)

    async def _leave_unplayed(self, table: Table, seat: int, user_id: int) -> Reply:
        """Leave a table with no hand running: no penalty (RULES.md §10 charges leaving a running hand)."""
        name = table.seat(seat).name
        if table.state == "lobby":
            table.stand(user_id)
            self._show_lobby(table)
        else:  # between hands: an automatic player takes the seat
            await self._seat_automatic(table, seat)
            await self._end_if_no_humans(table)
        return Reply(text("left", table.lang, name=name))

    def _show_lobby(self, table: Table) -> None:
        self.outbox.show(table.chat_id, "lobby", lobby_content(table, self.bot_username))

    # --- starting -----------------------------------------------------------------------------------------
    async def begin(self, chat_id: int, user_id: int) -> Reply:
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is None:
                return Reply(text("no_table", self.config.lang))
            return Reply(await self._begin(table, user_id))

    async def _begin(self, table: Table, user_id: int) -> str | None:
        """Deal the first hand: empty seats get automatic players; a notice when it cannot start."""
        lang = table.lang
        if table.state != "lobby":
            return text("already_playing", lang)
        if table.seat_of(user_id) is None and user_id != table.creator_id:
            return text("not_seated", lang)
        if not table.humans():
            return text("need_human", lang)
        if None in table.seats:
            if not table.auto_players:
                return text("need_players", lang)
            table.fill_with_automatic(text("seat_bot", lang))
        settings = await self.db.chats.get(table.chat_id)
        await self._deal(table, settings.rules)
        return None

    async def _deal(self, table: Table, rules: Rules, league_night_id: int | None = None) -> None:
        """Store the match with the table's seats (all taken) and deal its first hand."""
        seed = self.config.match_seed if self.config.match_seed is not None else secrets.randbits(62)
        seats = [
            StoredSeat.human(s.user_id) if s.user_id is not None else StoredSeat.auto(table.auto_level)
            for s in (table.seat(i) for i in range(4))
        ]
        record = await self.db.matches.create(table.chat_id, seed, rules, seats, table.hands_planned, league_night_id)
        table.match, table.match_id = Match(rules, seed), record.id
        await self._start_hand(table)
        self._show_lobby(table)  # the seats as dealt, without the buttons

    async def open_table(
        self,
        chat_id: int,
        title: str,
        seats: Sequence[Seat | None],
        rules: Rules,
        hands_planned: int,
        session: TableSession,
        league_night_id: int | None = None,
    ) -> bool:
        """Open a table with these seats (None: an automatic player) and deal at once; False if the chat has one.

        Every human must be a stored player the bot can write to privately. The session is asked for the
        seats before each hand and whether to stop after each, and told when the table has finished.
        """
        async with self._locked(chat_id):
            if chat_id in self.tables:
                return False
            settings = await self.db.chats.get(chat_id)
            table = Table(
                chat_id=chat_id,
                title=title,
                creator_id=0,  # nobody's table: only group admins may /stop it
                creator_name="",
                lang=settings.language,
                auto_level=settings.auto_level if settings.auto_level in LEVELS else "normal",
                claim_seconds=self.config.claim_seconds or settings.claim_seconds,
                turn_seconds=self.config.turn_seconds or settings.turn_seconds,
                hands_planned=hands_planned,
                seats=list(seats),
            )
            table.fill_with_automatic(text("seat_bot", table.lang))
            self.tables[chat_id] = table
            self.sessions[chat_id] = session
            await self._deal(table, rules, league_night_id)
            return True

    async def _start_hand(self, table: Table) -> None:
        assert table.match is not None and table.match_id is not None
        session = self.sessions.get(table.chat_id)
        if session is not None:
            for seat, new in enumerate(session.seating(table)):
                if new is None or new.user_id != table.seat(seat).user_id:
                    await self._replace_seat(table, seat, new, text("sitting_out", table.lang))
        else:  # a group's own table: the group's /settings as they are now
            await self.follow_settings(table)
        hand = table.match.new_hand()
        record = await self.db.hands.start(table.match_id, hand.seed, hand.dealer)
        table.hand_number = record.hand_no
        log_event("hand_start", table=table.chat_id, hand=record.id, number=record.hand_no, dealer=hand.dealer,
                  rules=hand.rules.preset)
        await self._learn_languages(table)
        changed = table.start_hand(hand, record.id, time.monotonic())
        self._publish(table, changed, new_hand=True)
        self._arm(table)

    async def _learn_languages(self, table: Table) -> None:
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
        table.lang = settings.language
        table.auto_players = settings.auto_players
        table.auto_level = settings.auto_level if settings.auto_level in LEVELS else "normal"
        table.claim_seconds = self.config.claim_seconds or settings.claim_seconds
        table.turn_seconds = self.config.turn_seconds or settings.turn_seconds
        if table.match is not None and table.match_id is not None and table.match.rules != settings.rules:
            await self.db.matches.set_rules(table.match_id, settings.rules)
            table.match.rules = settings.rules

    # --- presses ------------------------------------------------------------------------------------------
    async def press(self, chat_id: int, user_id: int, stamp: str, code: str) -> str | None:
        """Handle a button press; the short notice to answer it with (None = no notice)."""
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            lang = table.lang if table is not None else self.config.lang
            if table is None:
                return text("press_stale", lang)
            if code == "start":
                return await self._begin(table, user_id)
            seat = table.seat_of(user_id)
            if seat is None:
                return text("press_foreign", lang)
            if code == "ready":
                return await self._ready(table, seat)
            if code == "back":
                return self._back(table, seat)
            return await self._press_action(table, seat, stamp, code)

    async def _press_action(self, table: Table, seat: int, stamp: str, code: str) -> str | None:
        lang = table.lang
        if table.state != "playing" or table.hand is None:
            return text("press_stale", lang)
        if stamp.count(".") == 2 and stamp.rsplit(".", 1)[1] != str(seat):
            return text("press_foreign", lang)  # another seat's button, forwarded or forged
        try:
            action = parse_action_code(code, seat)
        except BadCallback:
            return text("press_stale", lang)
        if table.seat(seat).auto or not table.accepts(seat, stamp, action):
            return text("press_stale", lang)
        await self._play(table, action)
        return None

    async def _ready(self, table: Table, seat: int) -> str | None:
        if table.state != "between":
            return text("press_stale", table.lang)
        s = table.seat(seat)
        s.ready, s.auto = True, False  # pressing Ready is being back
        if all(s.ready for _, s in table.humans() if not s.auto):
            await self._start_hand(table)
        return text("press_ok", table.lang)

    def _back(self, table: Table, seat: int) -> str | None:
        s = table.seat(seat)
        if not s.auto:
            return text("press_stale", table.lang)
        s.auto = False
        if table.state == "playing":
            now = time.monotonic()
            prompt = table.prompts.get(seat)
            if prompt is not None:
                prompt.since = now  # a fresh timer for the decision in front of them
            self._publish(table, {seat})
            self._arm(table)
        return text("back_ok", table.lang)

    # --- playing --------------------------------------------------------------------------------------------
    async def _play(self, table: Table, action: Action, also_urgent: Sequence[int] = ()) -> None:
        """Apply, store, then show. A storage failure undoes the action (nothing was shown yet)."""
        hand = table.hand
        assert hand is not None and table.hand_id is not None
        now = time.monotonic()
        events, changed = table.apply(action, now)
        try:
            await self.db.hands.append_action(table.hand_id, len(hand.actions) - 1, action.to_json())
        except (StorageError, OSError) as e:
            log.error("table %s: could not store %s (%s); undoing it", table.chat_id, action, e)
            table.hand = Hand.replay(hand.rules, hand.seed, hand.dealer, hand.actions[:-1])
            changed = table.refresh_prompts(now)
            self._publish(table, changed)
            self._arm(table)
            return
        log_action(table.chat_id, table.hand_id, len(hand.actions) - 1, action)
        self._announce(table, events)
        if hand.finished:
            try:
                await self._end_hand(table)
            except Exception:  # a storage failure: the settlement is tried again by the table's timer
                log.exception("table %s: hand %s could not be settled; retrying", table.chat_id, table.hand_id)
                self._arm(table, not_before=time.monotonic() + _RETRY_SECONDS)
            return
        self._publish(table, changed | set(also_urgent))
        self._arm(table)

    def _publish(self, table: Table, changed: set[int], *, new_hand: bool = False) -> None:
        """Queue the views that changed: a player's picture when their decision changed (urgent when they must
        act now, lazily when their buttons only went away), and the group's picture. A player with nothing to
        decide sees the table again at their next decision (and live in the group): that keeps the writes
        near one per action."""
        assert table.match is not None
        scores = list(table.match.totals)
        for seat, s in table.humans():
            if seat in changed or new_hand:
                urgent = seat in table.prompts or s.auto  # a new hand's other players see it lazily
                content = seat_content(table, seat, scores)
                self.outbox.show(s.user_id or 0, f"hand{table.chat_id}", content, urgent=urgent)
        self.outbox.show(table.chat_id, "spectator", spectator_content(table, scores), fresh=new_hand)

    def _announce(self, table: Table, events: Sequence[Event]) -> None:
        lang = table.lang
        for event in events:
            public = event.for_seat(None)
            key = _ANNOUNCED.get(public.kind)
            seat = public.seat
            if key is not None and seat is not None:
                raw = public.data.get("tile")
                tile = tile_label(parse_tile(raw), lang) if isinstance(raw, str) else ""
                # The group's picture is edited after every action anyway: its caption tells it, no message.
                self.outbox.tell(table.chat_id, "spectator", text(key, lang, seat=seat_label(table, seat), tile=tile))
            elif public.kind == "win" and seat is not None:
                settlement = public.data.get("settlement", {})
                names = " · ".join(
                    PATTERNS[p].zh if lang == "zh" else PATTERNS[p].en for p in settlement.get("patterns", ())
                )
                self.outbox.announce(table.chat_id, text("announce_win", lang, seat=seat_label(table, seat),
                                                         patterns=names))
            elif public.kind == "exhausted":
                self.outbox.announce(table.chat_id, text("announce_exhausted", lang))

    async def _automatic_action(self, table: Table, seat: int) -> Action:
        hand = table.hand
        assert hand is not None
        level = table.auto_level if table.seat(seat).user_id is None else "normal"
        view = hand.view(seat)
        # The automatic player thinks in a thread: a slow decision never stalls the other tables.
        return await asyncio.to_thread(choose, view, level, hand.seed ^ len(hand.actions))

    async def tick(self, chat_id: int, job: Job[Any] | None = None) -> None:
        """The table's timer: play every decision that is due (automatic players, timeouts), start hands."""
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is None:
                return
            if self._jobs.get(chat_id) is job:
                self._jobs.pop(chat_id, None)
            try:
                await self._play_due(table)
            except Exception:  # a bug or a storage failure must not leave the table without a timer
                log.exception("table %s: a timed step failed; trying again in %.0f s", chat_id, _RETRY_SECONDS)
                if self.tables.get(chat_id) is table:
                    self._arm(table, not_before=time.monotonic() + _RETRY_SECONDS)

    async def _play_due(self, table: Table) -> None:
        if table.state == "playing" and table.hand is not None and table.hand.finished:
            await self._end_hand(table)  # its settlement failed before
            return
        if table.state == "between":
            if time.monotonic() >= table.between_since + self.config.next_hand_seconds - 0.01:
                await self._start_hand(table)
            else:
                self._arm(table)
            return
        while table.state == "playing" and table.hand is not None:
            due = table.next_due(self.config.bot_delay)
            if due is None or due[0] > time.monotonic() + 0.01:
                break
            await self._play(table, *await self._due_action(table, due[1]))
        if self.tables.get(table.chat_id) is table:
            self._arm(table)

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
        self.outbox.announce(table.chat_id, text("announce_tuoguan", table.lang, seat=seat_label(table, seat)))
        return await self._automatic_action(table, seat), (seat,)

    def _arm(self, table: Table, not_before: float = 0.0) -> None:
        """(Re)schedule the table's one timer job at its next deadline (not before ``not_before``)."""
        self._cancel_job(table.chat_id)
        now = time.monotonic()
        if table.state == "playing" and table.hand is not None and table.hand.finished:
            when = now  # a settlement to try again
        elif table.state == "playing":
            due = table.next_due(self.config.bot_delay)
            if due is None:
                return
            when = due[0]
        elif table.state == "between":
            when = table.between_since + self.config.next_hand_seconds
        else:
            return
        # A timer that fires late (a loaded machine, start-up) must still fire: APScheduler drops it by default.
        self._jobs[table.chat_id] = self.job_queue.run_once(
            self._on_job,
            max(0.0, when - now, not_before - now),
            data=table.chat_id,
            name=f"table {table.chat_id}",
            job_kwargs={"misfire_grace_time": None},
        )

    def _cancel_job(self, chat_id: int) -> None:
        job = self._jobs.pop(chat_id, None)
        if job is not None:
            with contextlib.suppress(JobLookupError):  # it has just fired: its tick finds nothing due
                job.schedule_removal()

    async def _on_job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        job = context.job
        assert job is not None and isinstance(job.data, int)
        await self.tick(job.data, job)

    # --- the end of a hand, fleeing, stopping ---------------------------------------------------------------
    async def _end_hand(self, table: Table) -> None:
        hand, match = table.hand, table.match
        assert hand is not None and match is not None and table.hand_id is not None
        # Settled in storage first: should that fail, nothing has changed and the next tick tries again.
        payments = hand.result.payments if hand.result is not None else (0, 0, 0, 0)
        winner = hand.result.winner if hand.result is not None else None
        summary = hand.result.to_json() if hand.result is not None else {"exhausted": True}
        # Storage adds the flee penalties it holds for this hand: its totals are the truth.
        closed = await self.db.hands.close(table.hand_id, payments, winner, summary)
        total = [r.points for r in closed.results]
        match.finish_hand(hand)
        match.totals = list(closed.match_totals)
        log_event("hand_end", table=table.chat_id, hand=table.hand_id, winner=winner,
                  payments=",".join(map(str, total)), patterns=",".join(hand.result.patterns) if hand.result else None,
                  exhausted=hand.exhausted or None)
        table.state = "between"
        table.between_since = time.monotonic()
        table.prompts = {}
        totals = list(match.totals)
        session = self.sessions.get(table.chat_id)
        last = match.hands_played >= table.hands_planned or (session is not None and session.over(table))
        self.outbox.show(table.chat_id, "result", result_content(table, totals, None), fresh=True)
        for _, s in table.humans():
            content = result_content(table, totals, None if last else self.config.next_hand_seconds, s.lang)
            self.outbox.show(s.user_id or 0, f"hand{table.chat_id}", content, urgent=True)
        for r in closed.results:
            if r.title_changed and r.title_after is not None:
                title = r.title_after.zh if table.lang == "zh" else r.title_after.en
                self.outbox.announce(table.chat_id, text("title_changed", table.lang,
                                                         seat=seat_label(table, r.seat), title=title))
        if last:
            await self._finish(table, "done")
        else:
            self._arm(table)

    async def _seat_automatic(self, table: Table, seat: int) -> None:
        """An automatic player takes a human's seat for the rest of the match; their message is closed."""
        await self._replace_seat(table, seat, None, text("left", table.lang, name=table.seat(seat).name))

    async def _replace_seat(self, table: Table, seat: int, new: Seat | None, farewell: str) -> None:
        """Someone else (None: an automatic player) takes a seat for the next hands; the one leaving it is told."""
        old = table.seat(seat)
        if new is None and old.user_id is None:
            return  # an automatic player stays an automatic player
        table.seats[seat] = new or Seat(None, f"{text('seat_bot', table.lang)} {seat + 1}")
        if table.match_id is not None:
            stored = StoredSeat.human(new.user_id) if new and new.user_id else StoredSeat.auto(table.auto_level)
            await self.db.matches.replace_seat(table.match_id, seat, stored)
        if old.user_id is not None:
            self.outbox.show(old.user_id, f"hand{table.chat_id}", Content(farewell))

    async def _end_if_no_humans(self, table: Table) -> bool:
        if table.humans():
            return False
        await self._finish(table, "abandoned" if table.state == "playing" else "done")
        return True

    async def stop(self, chat_id: int, user_id: int, is_admin: bool) -> Reply:
        async with self._locked(chat_id):
            table = self.tables.get(chat_id)
            if table is None:
                return Reply(text("no_table", self.config.lang))
            if user_id != table.creator_id and not is_admin:
                return Reply(text("stop_denied", table.lang))
            await self._finish(table, "abandoned" if table.state == "playing" else "done")
            return Reply(None)

    async def _finish(self, table: Table, status: str) -> None:
        """End the table: storage's match closed, the summary in the group, every private message closed."""
        self._cancel_job(table.chat_id)
        self.tables.pop(table.chat_id, None)
        session = self.sessions.pop(table.chat_id, None)
        lang = table.lang
        if table.match is not None and table.match_id is not None:
            if table.state == "playing" and table.hand_id is not None:
                flee = await self.db.hands.penalties(table.hand_id)
                if any(flee):
                    # A stopped hand with a flight in it is settled with the penalty alone, so nobody escapes it.
                    await self.db.hands.close(table.hand_id, (0, 0, 0, 0), None, {"stopped": True, "flee": list(flee)})
                    status = "done"
            await self.db.matches.finish(table.match_id, "done" if status == "done" else "abandoned")
            totals = table.match.totals
            order = sorted(range(4), key=lambda s: -totals[s])
            lines = "\n".join(f"{seat_label(table, s)}: {totals[s]:+d}" for s in order)
            if session is None:  # a session's seats change hands, so it tells the results its own way
                self.outbox.announce(table.chat_id, text("stopped", lang, lines=lines))
            closing = Content(text("stopped", lang, lines=lines))
            for _, s in table.humans():  # their message may still have buttons: close it
                self.outbox.show(s.user_id or 0, f"hand{table.chat_id}", closing)
        else:
            self.outbox.show(table.chat_id, "lobby", Content(text("closed", lang)))
        if session is not None:
            await session.closed(table, status)

    # --- start-up -----------------------------------------------------------------------------------------
    async def resume(self) -> int:
        """Take up every table that was playing: unfinished hands are rebuilt from their stored actions, matches
        between two hands wait for the next one; every player's view is re-sent. How many tables resumed."""
        resumed = 0
        for stored in await self.db.hands.unfinished():
            record, match_record = stored.hand, stored.match
            try:
                await self._resume_hand(match_record, record, [Action.from_json(a) for a in stored.actions])
                resumed += 1
            except (IllegalAction, ValueError, StorageError, TelegramError) as e:
                log.error("hand %s of chat %s cannot be resumed (%s); abandoning it", record.id, record.chat_id, e)
                with contextlib.suppress(StorageError):
                    await self.db.matches.finish(match_record.id, "abandoned")
        for match_record in await self.db.matches.all_running():
            if match_record.chat_id in self.tables:
                continue
            try:
                if await self._resume_between(match_record):
                    resumed += 1
            except (IllegalAction, ValueError, StorageError, TelegramError) as e:
                log.error("match %s of chat %s cannot be resumed (%s); abandoning it", match_record.id,
                          match_record.chat_id, e)
                with contextlib.suppress(StorageError):
                    await self.db.matches.finish(match_record.id, "abandoned")
        return resumed

    async def _rebuilt_table(self, match_record: StoredMatch, record: HandRecord, actions: list[Action]) -> Table:
        """The table of a stored match, with ``record``'s hand replayed from ``actions``."""
        chat_id = match_record.chat_id
        settings = await self.db.chats.get(chat_id)
        try:
            title = (await self.bot.get_chat(chat_id)).title or ""
        except TelegramError:
            title = ""
        seats: list[Seat | None] = []
        for i, stored_seat in enumerate(match_record.seats):
            if stored_seat.player_id is None:
                seats.append(Seat(None, f"{text('seat_bot', settings.language)} {i + 1}"))
            else:
                player = await self.db.players.get(stored_seat.player_id)
                seats.append(Seat(stored_seat.player_id, player.display_name if player else "?"))
        humans = [s for s in seats if s is not None and s.user_id is not None]
        creator = humans[0] if humans else None  # who opened it is not stored: the first human may /stop it
        table = Table(
            chat_id=chat_id,
            title=title,
            creator_id=creator.user_id or 0 if creator else 0,
            creator_name=creator.name if creator else "",
            lang=settings.language,
            auto_players=settings.auto_players,
            auto_level=settings.auto_level if settings.auto_level in LEVELS else "normal",
            claim_seconds=self.config.claim_seconds or settings.claim_seconds,
            turn_seconds=self.config.turn_seconds or settings.turn_seconds,
            hands_planned=match_record.hands_planned,
            seats=seats,
        )
        match = Match(match_record.rules, match_record.seed, record.dealer)
        match.hands_played = record.hand_no - 1
        table.match, table.match_id = match, match_record.id
        table.hand_number = record.hand_no
        await self._learn_languages(table)
        table.start_hand(Hand.replay(record.rules, record.seed, record.dealer, actions), record.id, time.monotonic())
        return table

    async def _resume_hand(self, match_record: StoredMatch, record: HandRecord, actions: list[Action]) -> None:
        chat_id = record.chat_id
        async with self._locked(chat_id):
            table = await self._rebuilt_table(match_record, record, actions)
            assert table.match is not None and table.hand is not None
            table.match.totals = list(match_record.totals)
            self.tables[chat_id] = table
            if table.hand.finished:  # stored to the last action, stopped before the settlement
                await self._end_hand(table)
                return
            self.outbox.announce(chat_id, text("resumed", table.lang))
            # Re-sent as new messages: the old ones may be far up the chat, and their buttons are stale.
            for seat, s in table.humans():
                content = seat_content(table, seat, table.match.totals)
                urgent = seat in table.prompts
                self.outbox.show(s.user_id or 0, f"hand{chat_id}", content, urgent=urgent, fresh=True)
            self.outbox.show(chat_id, "spectator", spectator_content(table, table.match.totals), fresh=True)
            self._arm(table)

    async def _resume_between(self, match_record: StoredMatch) -> bool:
        """A match stopped between two hands: its last result shown again, the next hand on its way."""
        chat_id = match_record.chat_id
        async with self._locked(chat_id):
            last = await self.db.hands.latest(match_record.id)
            if last is None or last.status != "done":  # stopped before its first deal: nothing to take up
                await self.db.matches.finish(match_record.id, "abandoned")
                return False
            actions = [Action.from_json(a) for a in await self.db.hands.actions(last.id)]
            table = await self._rebuilt_table(match_record, last, actions)
            assert table.match is not None and table.hand is not None
            table.match.finish_hand(table.hand)  # the dealer rotates as it did before the restart
            table.match.totals = list(match_record.totals)  # stored totals include every settled hand
            self.tables[chat_id] = table
            if table.match.hands_played >= table.hands_planned:
                await self._finish(table, "done")
                return False
            table.state, table.between_since, table.prompts = "between", time.monotonic(), {}
            seconds = round(self.config.next_hand_seconds)
            self.outbox.announce(chat_id, text("resumed_between", table.lang, seconds=seconds))
            for _, s in table.humans():
                content = result_content(table, table.match.totals, self.config.next_hand_seconds)
                self.outbox.show(s.user_id or 0, f"hand{chat_id}", content, urgent=True, fresh=True)
            self._arm(table)
            return True

"""The TableManager: every group's table, driven by commands, button presses and timers (orchestration only).

Each table has its own ``asyncio.Lock``; everything that reads or changes a table runs under it, so tables
run concurrently and each one serially. Within the lock an action is applied to the hand, then appended
to storage, and only then are its effects handed to the outbox (which sends them later, outside the lock):
a crash loses no move, and a slow Telegram never holds a table. What each chat is shown comes from
``bot.views.game_views``; the timers are ``bot.play.timers``; resuming after a restart is ``bot.play.resume``.

    manager = TableManager(config, db, outbox, job_queue, bot)
    await resume_tables(manager)                         # at start-up: every unfinished hand goes on
    reply = await manager.new_table(TableKey(chat_id, topic), title, user_id, name)
    notice = await manager.press(key, user_id, stamp, code, lang)        # lang: the presser's own
"""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass

from telegram import InlineKeyboardMarkup
from telegram.error import Forbidden, TelegramError

from bot.i18n import t
from bot.play.callback_data import BadCallback, parse_action_code
from bot.play.hand_flow import HandFlow, TableSession
from bot.play.one_table import seated_elsewhere
from bot.play.table_key import TableKey
from bot.play.table_state import Seat, Table, short_name
from bot.views.game_views import automatic_name, join_markup, lobby_content, seat_label
from game.match import Match, flee_amounts
from game.rules import Rules
from storage.matches import Seat as StoredSeat

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reply:
    """What a command answers in the chat it came from (None text = nothing to say)."""

    text: str | None
    markup: InlineKeyboardMarkup | None = None


class TableManager(HandFlow):
    """The lobby, dealing and presses; the hand in motion is ``HandFlow``."""

    # --- the lobby ----------------------------------------------------------------------------------------
    async def new_table(self, key: TableKey, title: str, user_id: int, name: str) -> Reply:
        """Open the table of a group (or of its forum topic), its creator seated (if the bot can reach them
        privately)."""
        async with self.locked(key):
            table = self.tables.get(key)
            if table is not None:
                return Reply(t("table_exists", table.lang))
            settings = await self.db.chats.get(key.chat_id)
            table = Table(
                key=key,
                title=title,
                creator_id=user_id,
                creator_name=short_name(name),
                hands_planned=settings.hands_per_game,
            )
            table.follow(settings, self.config)
            self.tables[key] = table
            reply = await self._join(table, user_id, name, from_private=False)  # the creator sits down first
            self._show_lobby(table)
            return reply

    async def join(
        self, key: TableKey, user_id: int, name: str, *, from_private: bool = False, lang: str | None = None
    ) -> Reply:
        """Seat a player. From the group, only once a private message reached them (else: how to start me).
        From a private chat (``from_private``), the reply is in ``lang``, the player's own."""
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return Reply(t("start_no_table" if from_private else "no_table", lang or self.config.lang))
            return await self._join(table, user_id, name, from_private)

    async def _join(self, table: Table, user_id: int, name: str, from_private: bool) -> Reply:
        player = await self.db.players.get(user_id)  # the handler registered them with their own language
        own = player.language if player else table.lang
        lang = own if from_private else table.lang  # a private reply speaks theirs, a group's reply the group's
        if table.seat_of(user_id) is not None:
            return Reply(t("already_seated", lang))
        if (elsewhere := seated_elsewhere(self.tables, table, user_id, lang)) is not None:
            return Reply(elsewhere)
        if table.state != "lobby":
            return Reply(t("already_playing", lang))
        if None not in table.seats:
            return Reply(t("table_full", lang))
        hello = t("joined_private", own, group=table.title)
        if from_private:
            self.outbox.announce(user_id, hello)
        elif not await self.reaches(user_id, hello):
            return Reply(t("not_reachable", lang, name=name), join_markup(table, self.bot.username))
        await self.db.players.upsert(user_id, name)
        seat = table.sit(user_id, name)
        assert seat is not None
        self._show_lobby(table)
        return Reply(None if from_private else t("joined", lang, name=name, wind=t(f"wind_{seat}", lang)))

    async def reaches(self, user_id: int, message: str) -> bool:
        """Whether the bot can write to the user privately: it tries (403 = they never started it)."""
        self.outbox.unreachable.discard(user_id)  # they may have started the bot since
        try:
            await self.bot.send_message(user_id, message)
        except Forbidden:
            return False
        except TelegramError as e:  # a flood limit or a network error: say "not now" rather than break
            log.warning("could not reach user %s: %s", user_id, e)
            return False
        return True

    async def leave(self, key: TableKey, user_id: int, *, flee: bool = False) -> Reply:
        """/leave frees a seat when no hand is running; /flee (``flee``) leaves even a running hand, with the
        flee penalty (RULES.md §10)."""
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return Reply(t("no_table", self.config.lang))
            seat = table.seat_of(user_id)
            if seat is None:
                return Reply(t("not_seated", table.lang))
            if table.state != "playing":
                return await self._leave_unplayed(table, seat, user_id)
            if not flee or table.hand_id is None or table.match is None:
                penalty = table.match.rules.flee_penalty if table.match else 0
                return Reply(t("hand_running", table.lang, penalty=penalty))
            await self._flee(table, seat)
            return Reply(None)

    async def _flee(self, table: Table, seat: int) -> None:
        assert table.match is not None and table.hand_id is not None
        label = seat_label(table, seat)
        penalty = table.match.rules.flee_penalty
        # The penalty and the freed seat in one transaction, before anyone is told (settled with this hand by
        # storage): a crash leaves either both or neither, and the seat, given away, cannot flee twice.
        await self.db.hands.flee(table.hand_id, seat, flee_amounts(penalty, seat), table.auto_level)
        await self.seat_automatic(table, seat, stored=True)
        self.announce(table, t("announce_flee", table.lang, seat=label, penalty=penalty))
        if not await self.end_if_no_humans(table) and table.state == "playing":
            self._publish(table, set())
            self.timers.arm(table)

    async def _leave_unplayed(self, table: Table, seat: int, user_id: int) -> Reply:
        """Leave a table with no hand running: no penalty (RULES.md §10 charges leaving a running hand)."""
        name = table.seat(seat).name
        if table.state == "lobby":
            table.stand(user_id)
            self._show_lobby(table)
        else:  # between hands: an automatic player takes the seat
            await self.seat_automatic(table, seat)
            await self.end_if_no_humans(table)
        return Reply(t("left", table.lang, name=name))

    def _show_lobby(self, table: Table) -> None:
        self.show_group(table, "lobby", lobby_content(table, self.bot.username))

    # --- starting -----------------------------------------------------------------------------------------
    async def begin(self, key: TableKey, user_id: int) -> Reply:
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return Reply(t("no_table", self.config.lang))
            return Reply(await self._begin(table, user_id, table.lang))

    async def _begin(self, table: Table, user_id: int, lang: str) -> str | None:
        """Deal the first hand: empty seats get automatic players; a notice (in ``lang``) when it cannot start."""
        if table.state != "lobby":
            return t("already_playing", lang)
        if table.seat_of(user_id) is None and user_id != table.creator_id:
            return t("not_seated", lang)
        if not table.humans():
            return t("need_human", lang)
        if None in table.seats and not table.auto_players:
            return t("need_players", lang)
        table.fill_with_automatic(lambda seat: automatic_name(seat, table.lang))
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
        record = await self.db.matches.create(
            table.chat_id, seed, rules, seats, table.hands_planned, league_night_id, thread_id=table.thread_id
        )
        table.match, table.match_id = Match(rules, seed), record.id
        await self.start_hand(table)
        self._show_lobby(table)  # the seats as dealt, without the buttons

    async def open_table(
        self,
        key: TableKey,
        title: str,
        seats: Sequence[Seat | None],
        rules: Rules,
        hands_planned: int,
        session: TableSession,
        league_night_id: int | None = None,
    ) -> bool:
        """Open a table with these seats (None: an automatic player) and deal at once; False if one is open there.

        Every human must be a stored player the bot can write to privately. The session is asked for the
        seats before each hand and whether to stop after each, and told when the table has finished.
        """
        async with self.locked(key):
            if key in self.tables:
                return False
            settings = await self.db.chats.get(key.chat_id)
            # Nobody's table (creator 0): only group admins may /stop it.
            table = Table(
                key=key,
                title=title,
                creator_id=0,
                creator_name="",
                hands_planned=hands_planned,
                seats=list(seats),
            )
            table.follow(settings, self.config)
            table.fill_with_automatic(lambda seat: automatic_name(seat, table.lang))
            self.tables[key] = table
            self.sessions[key] = session
            await self._deal(table, rules, league_night_id)
            return True

    # --- presses ------------------------------------------------------------------------------------------
    async def press(self, key: TableKey, user_id: int, stamp: str, code: str, lang: str) -> str | None:
        """Handle a button press; the short notice to answer it with, in ``lang``, the presser's own language
        (None = no notice)."""
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return t("press_stale", lang)
            if code == "start":
                return await self._begin(table, user_id, lang)
            seat = table.seat_of(user_id)
            if seat is None:
                return t("press_foreign", lang)
            if code == "ready":
                return await self._ready(table, seat, lang)
            if code == "back":
                return self._back(table, seat, lang)
            return await self._press_action(table, seat, stamp, code, lang)

    async def _press_action(self, table: Table, seat: int, stamp: str, code: str, lang: str) -> str | None:
        if table.state != "playing" or table.hand is None:
            return t("press_stale", lang)
        if stamp.count(".") == 2 and stamp.rsplit(".", 1)[1] != str(seat):
            return t("press_foreign", lang)  # another seat's button, forwarded or forged
        try:
            action = parse_action_code(code, seat)
        except BadCallback:
            return t("press_stale", lang)
        if table.seat(seat).auto or not table.accepts(seat, stamp, action):
            return t("press_stale", lang)
        return None if await self.play(table, action) else t("storage_busy", lang)

    async def _ready(self, table: Table, seat: int, lang: str) -> str | None:
        if table.state != "between":
            return t("press_stale", lang)
        s = table.seat(seat)
        s.ready, s.auto = True, False  # pressing Ready is being back
        if all(s.ready for _, s in table.humans() if not s.auto):
            await self.start_hand(table)
        return t("press_ok", lang)

    def _back(self, table: Table, seat: int, lang: str) -> str | None:
        s = table.seat(seat)
        if not s.auto:
            return t("press_stale", lang)
        s.auto = False
        if table.state == "playing":
            prompt = table.prompts.get(seat)
            if prompt is not None:
                prompt.since = time.monotonic()  # a fresh timer for the decision in front of them
            self._publish(table, {seat})
            self.timers.arm(table)
        return t("back_ok", lang)

    async def stop(self, key: TableKey, user_id: int, is_admin: bool) -> Reply:
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return Reply(t("no_table", self.config.lang))
            if user_id != table.creator_id and not is_admin:
                return Reply(t("stop_denied", table.lang))
            await self.finish(table, "abandoned" if table.state == "playing" else "done")
            return Reply(None)

    # --- a group upgraded to a supergroup -----------------------------------------------------------------
    async def migrate(self, old: int, new: int) -> None:
        """The group ``old`` is the supergroup ``new`` now: storage first (one transaction), then the table,
        its session, timer and messages follow; play goes on there (old buttons are stale, new ones come).
        A group that can be upgraded has no topics: its one table is keyed by the group alone."""
        before, after = TableKey(old), TableKey(new)
        async with self.locked(before), self.locked(after):
            if after in self.tables:  # already followed (Telegram tells both chats): late writes follow too
                self.outbox.move(old, new, {})
                return
            moved = await self.db.chats.migrate(old, new)
            table = self.tables.pop(before, None)
            self.timers.cancel(before)
            slots = {
                s.user_id: (before.private_slot("hand"), after.private_slot("hand"))
                for _, s in (table.humans() if table else [])
                if s.user_id
            }
            self.outbox.move(old, new, slots)
            log.info("chat %s migrated to %s (stored: %s, table: %s)", old, new, moved, table is not None)
            if table is None:
                return
            table.key = after
            self.tables[after] = table
            session = self.sessions.pop(before, None)
            if session is not None:
                self.sessions[after] = session
            if table.state == "lobby":
                self._show_lobby(table)
            elif table.state == "playing" and table.hand is not None:
                self._publish(table, set(range(4)))  # buttons naming the new chat
            self.timers.arm(table)

    def group_tables(self, chat_id: int) -> list[Table]:
        """The group's tables: one, or in a forum group one per topic."""
        return [table for key, table in self.tables.items() if key.chat_id == chat_id]

    async def removed(self, chat_id: int) -> None:
        """The bot was removed from the group or may no longer write there: nothing more is written to it, and
        its tables close cleanly (a running hand stored as abandoned, without payments)."""
        self.outbox.drop(chat_id)
        for table in self.group_tables(chat_id):
            await self._close_unwritable(table.key)

    async def topic_gone(self, chat_id: int, thread: int) -> None:
        """The forum topic of a table was closed or deleted: that table closes as if the bot had been removed
        (the group's other topics play on)."""
        await self._close_unwritable(TableKey(chat_id, thread))
        self.outbox.drop_topic(chat_id, thread)  # the closing's own notices there would only be refused

    async def _close_unwritable(self, key: TableKey) -> None:
        async with self.locked(key):
            table = self.tables.get(key)
            if table is None:
                return
            log.info("table %s: the bot can no longer write there; closing it", key.token)
            await self.finish(table, "abandoned" if table.state == "playing" else "done")

    async def unreachable(self, chat_id: int) -> None:
        """A chat refused the bot's write (403). A group: ``removed``. A player who blocked the bot: 托管 at each
        of their running tables, told in the group; they take their seat back with 我回来了 once they unblock it
        (the outbox writes to them again when they write or press)."""
        if chat_id < 0:
            await self.removed(chat_id)
            return
        for table in list(self.tables.values()):
            async with self.locked(table.key):
                seat = table.seat_of(chat_id)
                if seat is None or table.state != "playing" or self.tables.get(table.key) is not table:
                    continue
                if not table.seat(seat).auto:
                    table.seat(seat).auto = True
                    self.announce(table, t("announce_unreachable", table.lang, seat=seat_label(table, seat)))
                    self.timers.arm(table)

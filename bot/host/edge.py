"""Where a table's effects meet the world: storage, the outbox, the views, the automatic players' threads.

``Edge.carry_out(table, effect)`` does one effect (``bot.table.effects``) and returns its answer; the runner
(``bot.host.runner``) calls it in the order the core yields them, so a store is done before what follows it
is shown. What a chat is shown is built here, from the table as it is when the effect is carried out, by the
views (``bot.views.game_views``); the outbox paces it.

    edge = Edge(config, db, outbox, bot, pool)   # a worker's: Edge(..., fences=Fences(shard_of)), storage.fencing
    answer = await edge.carry_out(table, StartHand(match_id, seed, dealer))   # HandStarted(id, hand_no, ...)

The core's inputs are its own types (``bot.table.options``, ``bot.table.effects``): they are filled here, from
the bot's ``Config`` (``table_options``) and from storage's records (``group_settings``, the store answers).
"""

from __future__ import annotations

import logging
import secrets
from concurrent.futures import Executor
from dataclasses import fields, replace
from typing import Any, TypeVar

from telegram import Bot
from telegram.error import Forbidden, TelegramError

from bot.config import Config
from bot.i18n import t
from bot.live.hub import Hub
from bot.live.links import with_group_link, with_page_button
from bot.logs import log_action, log_event
from bot.outbox import Content, Outbox
from bot.search_pool import SearchPool, automatic_choice
from bot.table import effects as fx
from bot.table.key import TableKey
from bot.table.options import GroupSettings, Options
from bot.table.state import Table
from bot.views.game_views import join_markup, lobby_content, result_content, seat_content, spectator_content
from game.actions import Action
from storage.chats import ChatSettings
from storage.database import Database
from storage.fencing import Fences
from storage.hands import ClosedHand
from storage.matches import Seat

log = logging.getLogger(__name__)
T = TypeVar("T")


def table_options(config: Config) -> Options:
    """The options a table's core follows, from the bot's configuration (the fields of one name)."""
    return _read(Options, config)


def group_settings(settings: ChatSettings) -> GroupSettings:
    """A group's stored /settings, as its table follows them (the fields of one name; ``rules`` built)."""
    return _read(GroupSettings, settings)


def _read(kind: type[T], source: object) -> T:
    """A ``kind`` (a dataclass) whose every field is ``source``'s attribute of that name."""
    return kind(**{f.name: getattr(source, f.name) for f in fields(kind)})  # type: ignore[arg-type]


def settled(closed: ClosedHand, reveal: str) -> fx.Settled:
    """A stored settlement, as the core reads it."""
    return fx.Settled(
        totals=closed.match_totals,
        points=tuple(r.points for r in closed.results),
        title_changes={
            r.seat: (r.title_before, r.title_after)
            for r in closed.results
            if r.title_changed and r.title_before is not None and r.title_after is not None
        },
        share_code=closed.share_code,
        reveal=reveal,
    )


def _stored(sitter: fx.Sitter) -> Seat:
    return Seat.human(sitter.user_id) if sitter.user_id is not None else Seat.auto(sitter.auto_level)


async def reaches(bot: Bot, outbox: Outbox, user_id: int, message: str) -> bool:
    """Whether the bot can write to the user privately: it tries (403 = they never started it)."""
    outbox.came_back(user_id)  # they may have started the bot since
    try:
        await bot.send_message(user_id, message)
    except Forbidden:
        return False
    except TelegramError as e:  # a flood limit or a network error: say "not now" rather than break
        log.warning("could not reach user %s: %s", user_id, e)
        return False
    return True


async def members(bot: Bot, chat_id: int) -> int:
    """How many members the group has, the bot among them; 0 when Telegram does not say (any error)."""
    try:
        return await bot.get_chat_member_count(chat_id)
    except TelegramError as e:
        log.info("chat %s: no member count (%s)", chat_id, e)
        return 0


class Edge:
    def __init__(
        self,
        config: Config,
        db: Database,
        outbox: Outbox,
        bot: Bot,
        pool: Executor | None = None,
        hub: Hub | None = None,
        fences: Fences[TableKey] | None = None,
        quick: SearchPool | None = None,
    ) -> None:
        self.config, self.db, self.outbox, self.bot = config, db, outbox, bot
        self.pool = pool  # the processes the search (hard level) runs in; None: a thread, as the other levels
        self.hub = hub  # the Mini App's live pages (bot.live); None when it is off
        self.fences = fences  # a worker's (bot.cluster): its shards' fences, which its tables' writes carry
        self.quick = quick  # the processes the other levels run in once several tables' decisions overlap

    def storage(self, table: Table) -> Database:
        """Where the table's writes go: the database, fenced by the table's shard on a worker (storage.fencing)."""
        return self.db if self.fences is None else self.db.fenced(self.fences.fence(table.key))

    async def carry_out(self, table: Table, effect: fx.Effect) -> object:
        """Do ``effect`` for ``table``; its answer (None for effects without one)."""
        if isinstance(effect, fx.ShowSeat | fx.ShowGroup | fx.ShowResult | fx.Announce | fx.Tell | fx.Forget):
            self.show(table, effect)
            return None
        if isinstance(effect, fx.Decide):
            return await self._decide(effect)
        if isinstance(effect, fx.Reach):
            return await reaches(self.bot, self.outbox, effect.user_id, effect.text)
        if isinstance(effect, fx.CountMembers):
            return await members(self.bot, effect.chat_id)
        if isinstance(effect, fx.NewSeed):
            return secrets.randbits(effect.bits)
        if isinstance(effect, fx.MoveMessages):
            self.outbox.move(effect.old, effect.new, {uid: (a, b) for uid, a, b in effect.slots})
            return None
        if isinstance(effect, fx.DropGroup):
            self.outbox.drop_topic(table.chat_id, table.thread_id or 0)
            return None
        if isinstance(effect, fx.Log):
            log_event(effect.event, **effect.fields)
            return None
        return await self._store(table, effect)

    async def _store(self, table: Table, effect: fx.Effect) -> object:
        db = self.storage(table)
        match effect:
            case fx.StartHand(match_id, seed, dealer):
                record = await db.hands.start(match_id, seed, dealer)
                return fx.HandStarted(record.id, record.hand_no, record.commitment)
            case fx.AppendAction(hand_id, index, action, update_id):
                # On a worker, the press's update is done in the inbox with its action; in one process its id
                # was stored before it was handled (bot.updates.once).
                done = update_id if self.fences is not None else None
                await db.hands.append_action(hand_id, index, action.to_json(), done=done)
                log_action(table.chat_id, hand_id, index, action)
                return None
            case fx.StoreFlee(hand_id, seat, amounts, level):
                await db.hands.flee(hand_id, seat, amounts, level)
                return None
            case fx.ReadPenalties(hand_id):
                return await db.hands.penalties(hand_id)
            case fx.CloseHand(hand_id, payments, winner, summary, facts, tuoguan):
                closed = await db.hands.close(
                    hand_id, payments, winner, summary, facts=facts, tuoguan=tuoguan or (0, 0, 0, 0)
                )
                reveal = await db.hands.reveal(hand_id)
                return settled(closed, reveal.text if reveal is not None else "")
        return await self._store_match(db, effect)

    @staticmethod
    async def _store_match(db: Database, effect: fx.Effect) -> object:
        match effect:
            case fx.ReadSettings(chat_id):
                return group_settings(await db.chats.get(chat_id))
            case fx.ReadLanguages(user_ids):
                players = [await db.players.get(uid) for uid in user_ids]
                return {p.id: p.language for p in players if p is not None}
            case fx.SavePlayer(user_id, name):
                await db.players.upsert(user_id, name)
            case fx.CreateMatch(chat_id, seed, rules, seats, hands, night, thread, creator, title):
                stored = tuple(_stored(s) for s in seats)
                created = await db.matches.create(
                    chat_id, seed, rules, stored, hands, night, thread_id=thread, creator_id=creator, title=title
                )
                return created.id
            case fx.SetRules(match_id, rules):
                await db.matches.set_rules(match_id, rules)
            case fx.ReplaceSeat(match_id, seat, new):
                await db.matches.replace_seat(match_id, seat, _stored(new))
            case fx.FinishMatch(match_id, status):
                await db.matches.finish(match_id, status)
            case fx.MoveChat(old, new):
                return await db.chats.migrate(old, new)
            case _:
                raise TypeError(f"no way to carry out {effect!r}")
        return None

    async def _decide(self, effect: fx.Decide) -> Action:
        # The search (hard) thinks in another process, the others in a thread or (many tables) other processes: a
        # slow decision never stalls the other tables, and a dead search process never stops one (bot.search_pool).
        return await automatic_choice(self.pool, effect.view, effect.level, effect.seed, self.quick)

    def show(self, table: Table, effect: fx.Effect) -> None:
        """Hand what a chat is to see to the outbox (built now, from the table as it is)."""
        outbox, key = self.outbox, table.key
        self._show_pages(table, effect)
        if key.is_quick and self._no_group(table, effect):
            return
        match effect:
            case fx.ShowSeat():
                self._show_seat(table, effect)
            case fx.ShowGroup(view, fresh, stopped, idle):
                content = replace(self._group_content(table, view, stopped), thread=table.thread_id, idle=idle)
                slot = key.slot({"closed": "lobby", "result": "spectator"}.get(view, view))
                outbox.show(table.chat_id, slot, content, fresh=fresh)
            case fx.ShowResult(seat, next_seconds, picture):
                s = table.seat(seat)
                # The hand's message becomes the result; later edits change its words and buttons (Ready going
                # away), never its picture.
                content = replace(result_content(table, next_seconds, s.lang, seat), keep_picture=not picture)
                outbox.show(s.user_id or 0, key.private_slot("hand"), content, urgent=True)
            case fx.Announce(text, None):
                outbox.announce(table.chat_id, text, thread=table.thread_id)
            case fx.Announce(text, user_id):
                outbox.announce(user_id or 0, text)
            case fx.Tell(text, idle):
                outbox.tell(table.chat_id, key.slot("spectator"), text, thread=table.thread_id, idle=idle)
            case fx.Forget(slot, user_id):
                outbox.forget(table.chat_id if user_id is None else user_id, slot)

    def _show_pages(self, table: Table, effect: fx.Effect) -> None:
        if self.hub is not None:
            try:
                self.hub.shown(table, effect)
            except Exception:  # a page's frame never stops its table
                log.exception("table %s: the live pages could not be shown %s", table.key.token, type(effect).__name__)

    def _no_group(self, table: Table, effect: fx.Effect) -> bool:
        """A quick-match table has no group (``TableKey.quick``): its group's messages go nowhere, but what its
        players must know (a win, a flight, 托管) is said to each of them privately. Whether ``effect`` is done."""
        match effect:
            case fx.ShowGroup() | fx.Tell() | fx.Forget(_, None):
                return True
            case fx.Announce(text, None):
                for _, s in table.humans():
                    self.outbox.announce(s.user_id or 0, text)
                return True
        return False

    def _show_seat(self, table: Table, effect: fx.ShowSeat) -> None:
        """A player's picture; lazily while they play on the Mini App's page (it may lag behind until they leave
        it or press in the chat: then at once)."""
        seat, urgent, lang, key = effect.seat, effect.urgent, effect.lang, table.key
        who = effect.user_id or table.seat(seat).user_id or 0
        # Its last state stays in the chat whatever the page shows: a hand over, the game stopped, a seat left.
        last = effect.stopped or effect.left or (table.hand is not None and table.hand.finished)
        if self.hub is not None and not last:
            if effect.chat or not self.hub.live(key, who):
                if not self.hub.owed(key, who) and effect.chat and not effect.refused:
                    return  # a press in the chat: its picture is up to date already
            else:
                self.hub.owe(key, who)
                urgent = False  # the page shows it at once; the chat within Telegram's pace
        elif effect.chat and not effect.refused:
            return  # no page: the picture never lags behind (but for another worker's stale write)
        content = seat_content(table, seat, lang=lang, stopped=effect.stopped, left=effect.left)
        if not last:
            content = with_page_button(content, self.config, key, lang or table.seat(seat).lang)
        self.outbox.show(who, key.private_slot("hand"), content, urgent=urgent, fresh=effect.fresh)

    def closed(self, table_key: TableKey) -> None:
        """The table has ended: its live pages are told."""
        if self.hub is not None:
            self.hub.closed(table_key)

    def rekeyed(self, old: TableKey, new: TableKey) -> None:
        """The table is known by a new key: its live pages follow it."""
        if self.hub is not None:
            self.hub.rekey(old, new)

    def _group_content(self, table: Table, view: str, stopped: bool) -> Content:
        if view == "lobby":  # its first message answers the command that opened the table
            return replace(lobby_content(table, self.bot.username), reply_to=table.command_id)
        if view == "spectator":  # the live table's link while it plays
            content = spectator_content(table, stopped=stopped)
            if stopped:
                return content
            return with_group_link(content, self.config, self.bot.username, table.key, table.lang)
        if view == "result":  # the hand's last state: the next hand waits for the group to be shown it
            return replace(result_content(table, None), last=True)
        return Content(t("closed", table.lang))

    def reply_markup(self, table: Table, reply: fx.Reply) -> Any:
        """The buttons of a command's answer: the Join link when the bot must first be started privately."""
        return join_markup(table, self.bot.username) if reply.join_link else None

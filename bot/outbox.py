"""The outbox: every message the bot writes goes through here — coalesced, paced, prioritised, retried.

Each chat has named *slots* (a player's one private message, the group's lobby or spectator message), each
shown by one Telegram message that later writes edit in place; ``show`` replaces what a slot should show
and only the latest content is ever sent (pictures are rendered when sent, so skipped states cost nothing).
``announce`` posts a new message; announcements waiting in the same chat are merged into one, except a reply
(``reply_to``: the id of the message it answers, a command's), which is always sent alone. ``tell`` puts
a line in a slot's caption instead (the group's 碰 and 杠 ride on its picture's next edit).

Pacing: writes to one group at least ``group_interval`` apart (Telegram allows about 20 a minute), to one private
chat at least ``private_interval`` apart, at most ``global_rate`` per second overall and never on all the
connections at once (``Throttle``: answers to presses keep theirs; several workers share the overall rate and
each private chat's pace in Redis). An *urgent* slot (a player who must act) goes first, in its chat and in the
global queue; a non-urgent private slot waits ``passive_interval`` after its state arrived and after its last
write (an urgent state arriving meanwhile replaces it: one write, not two); an idle one (``Content.idle``) waits
``idle_interval`` after the slot's last write. A 429 or a network error is logged and retried, never raised.

    outbox = Outbox(bot)
    outbox.show(user_id, "hand", Content(caption, markup, render=lambda: png_bytes), urgent=True)
    outbox.announce(group_id, "东 碰 五万")
    await outbox.close()
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import replace
from typing import Final

from telegram import Bot, InlineKeyboardMarkup
from telegram.error import BadRequest, ChatMigrated, Forbidden, NetworkError, RetryAfter, TelegramError

from bot import limits
from bot.fair_replies import add_reply
from bot.limits import MAX_CAPTION, MAX_TEXT, Throttle, final_refusal, fit, length, retry_seconds, with_lines
from bot.outbox_state import ChatQueue, Content, Refusal, Remember, Slot, TopicGone, Waiting, send_new, write
from bot.waits import CLOCK, Clock

__all__ = ["Content", "Outbox", "Refusal", "Remember"]

log = logging.getLogger(__name__)

_MAX_BACKOFF = 30.0
_MAX_NEWS: Final = 20  # lines waiting for a slot's next caption: older ones are dropped


class Outbox:
    def __init__(
        self,
        bot: Bot,
        *,
        group_interval: float = 3.1,
        private_interval: float = 1.0,
        passive_interval: float = 4.0,
        idle_interval: float = 30.0,
        global_rate: float = 30.0,
        remember: Remember | None = None,
        shared_rate: limits.SharedRate | None = None,
        clock: Clock = CLOCK,
    ) -> None:
        self.bot, self._clock = bot, clock  # clock: all its pacing's time (a test's lets intervals pass at once)
        self._remember = remember  # told of every slot's new message, so a restart can edit it in place
        self.refusals: asyncio.Queue[Refusal] = asyncio.Queue()  # what Telegram refused for good: its reader acts
        self.group_interval, self.private_interval = group_interval, private_interval
        self.passive_interval, self.idle_interval = passive_interval, idle_interval
        self._throttle = Throttle(global_rate, shared=shared_rate, clock=clock)  # shared: bot.cluster's workers
        self._chats: dict[int, ChatQueue] = {}
        self.writes = 0  # successful Bot API writes, for the bench and the logs
        self.unreachable: set[int] = set()  # chats that answered 403 (changed by its own methods only)

    # --- what callers use -------------------------------------------------------------------------------
    def show(self, chat_id: int, slot: str, content: Content, *, urgent: bool = False, fresh: bool = False) -> None:
        """Make ``slot`` in ``chat_id`` show ``content`` (edited in place; ``fresh`` = as a new message)."""
        if chat_id in self.unreachable:
            return
        chat = self._chat(chat_id)
        s = chat.slots.setdefault(slot, Slot())
        if fresh and s.pending is not None:  # a new message: what waits for the one before goes out first
            chat.retire(slot)
            s = chat.slots[slot]
        s.wait_idle(content.idle)
        if s.pending is None:
            s.pending_since, s.number = self._clock.monotonic(), chat.number()
        s.pending = content
        s.urgent = s.urgent or urgent  # a newer state of an urgent slot stays urgent
        s.fresh = s.fresh or fresh
        s.forgotten = False
        self._kick(chat)

    def announce(
        self,
        chat_id: int,
        text: str,
        markup: InlineKeyboardMarkup | None = None,
        *,
        reply_to: int | None = None,
        thread: int | None = None,
        asker: int | None = None,
        in_order: bool = False,
    ) -> None:
        """Post ``text`` as a new message (in the forum topic ``thread``); with ``reply_to``, as a reply to that
        message, alone: the answer to ``asker``'s command. An answer waits aside (``bot.fair_replies``) unless it
        is part of what the table did (``in_order``: "X sits down" before the deal)."""
        if chat_id in self.unreachable:  # it answered 403: nothing more until it comes back (``came_back``)
            return
        chat = self._chat(chat_id)
        if not chat.waiting:
            chat.announced_at = self._clock.monotonic()
        content = Content(text, markup, reply_to=reply_to, thread=thread, asker=asker)
        if reply_to is not None and not in_order:  # an answer aside from the table's story: bot.fair_replies
            add_reply(chat.waiting, Waiting(chat.number(), content, aside=True))
        else:
            chat.waiting.append(Waiting(chat.number(), content))
        self._kick(chat)

    def tell(self, chat_id: int, slot: str, text: str, *, thread: int | None = None, idle: bool = False) -> None:
        """Tell ``text`` in the caption of ``slot``'s next write instead of a message of its own (the slot is
        rewritten with it if nothing newer is on its way; ``idle``: at the idle pace); the write after that shows the
        table's state alone, so news never lingers. A slot not shown yet: an announcement (forum topic ``thread``)."""
        if chat_id in self.unreachable:
            return
        chat = self._chat(chat_id)
        s = chat.slots.get(slot)
        if s is None or (s.shown is None and s.pending is None):
            self.announce(chat_id, text, thread=thread)
            return
        s.news.append(text)
        del s.news[:-_MAX_NEWS]
        s.wait_idle(idle)
        if s.pending is None:
            s.pending, s.pending_since, s.number = s.shown, self._clock.monotonic(), chat.number()
        self._kick(chat)

    def forget(self, chat_id: int, slot: str) -> None:
        """The slot is done with: dropped once its last write is out (and the chat once empty)."""
        chat = self._chats.get(chat_id)
        s = chat.slots.get(slot) if chat else None
        if chat is None or s is None:
            return
        s.forgotten = True
        if s.pending is None:
            del chat.slots[slot]
        self._kick(chat)

    def chats(self) -> int:  # how many chats the outbox keeps state for
        return len(self._chats)

    def behind(self, chat_id: int, thread: int | None = None) -> bool:
        """Whether a new message (an announcement, a hand's first picture) or a hand's last state (``Content.last``)
        asked for in the chat's topic ``thread`` is not out yet: a table between hands waits for it (``TableRunner``),
        so a chat that Telegram's limits hold back slows its table down instead of piling up hands it has not shown."""
        chat = self._chats.get(chat_id)
        if chat is None:
            return False
        waiting = [w.content for w in chat.waiting if not w.aside]
        new = [s.pending for s in chat.slots.values() if s.pending and (s.new_message or s.pending.last)]
        return any(c.thread == thread for c in [*waiting, *new])

    def move(self, old: int, new: int, slots: dict[int, tuple[str, str]]) -> None:
        """The group ``old`` is the supergroup ``new``: its waiting announcements and answers go there (the commands
        answered stay behind), its messages too (new slots); ``slots`` renames, per private chat, a table's slot."""
        chat = self._chats.pop(old, None)
        if chat is not None and chat.task is not None:
            chat.task.cancel()
        for w in chat.waiting if chat else []:
            self.announce(new, w.content.text, w.content.markup, thread=w.content.thread)
        for chat_id, (before, after) in slots.items():
            private = self._chats.get(chat_id)
            if private is not None and before in private.slots:
                private.slots[after] = private.slots.pop(before)
                private.slots[after].remembered = None  # stored again under its new name

    def drop(self, chat_id: int, *, for_good: bool = True, slot: str | None = None) -> None:
        """Nothing more to the chat (the bot was removed from it; not for good: another worker writes to it now,
        bot.cluster), or to its ``slot`` alone (the table moved to another worker): what waits there is dropped."""
        if for_good:
            self.unreachable.add(chat_id)
        if slot is not None and chat_id in self._chats:
            self._chats[chat_id].slots.pop(slot, None)
            return
        chat = self._chats.pop(chat_id, None)
        if chat is not None and chat.task is not None:
            chat.task.cancel()

    def came_back(self, chat_id: int) -> None:
        """The chat may be written to again: a person heard from since their 403, a group that added the bot back."""
        self.unreachable.discard(chat_id)

    def drop_topic(self, chat_id: int, thread: int) -> None:
        if chat_id in self._chats:
            self._chats[chat_id].drop_topic(thread)

    def adopt(self, chat_id: int, slot: str, message_id: int, *, is_photo: bool) -> None:
        """Take up a message sent before a restart: the slot's next write edits it instead of adding one."""
        s = self._chat(chat_id).slots.setdefault(slot, Slot())
        if s.message_id is None:
            s.message_id, s.is_photo, s.remembered = message_id, is_photo, message_id

    def taken_up(self, chat_id: int) -> None:  # a table of the chat taken up here (ChatQueue.taken_up)
        self._chat(chat_id).taken_up(self._clock.monotonic())

    def message_id(self, chat_id: int, slot: str) -> int | None:
        chat = self._chats.get(chat_id)
        s = chat.slots.get(slot) if chat else None
        return s.message_id if s else None

    def pending(self) -> int:
        """Writes still waiting or on their way (for tests and the bench)."""
        return sum(c.pending() for c in self._chats.values())

    async def close(self) -> None:
        tasks = [c.task for c in self._chats.values() if c.task is not None]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task

    # --- the per-chat worker -------------------------------------------------------------------------------
    def _chat(self, chat_id: int) -> ChatQueue:
        chat = self._chats.get(chat_id)
        if chat is None:
            interval = self.group_interval if chat_id < 0 else self.private_interval
            chat = self._chats[chat_id] = ChatQueue(chat_id, interval)
        return chat

    def _kick(self, chat: ChatQueue) -> None:
        chat.wakeup.set()
        if chat.task is None or chat.task.done():
            chat.task = asyncio.create_task(self._run(chat), name=f"outbox {chat.chat_id}")

    def _next_job(self, chat: ChatQueue, now: float) -> tuple[float, str | None] | None:
        """(when, slot) of the next write, slot None = the announcements; None when nothing waits.

        A new message only once all asked before it is out (the chat's order); edits in place may go earlier.
        Urgent slots first, then whatever was asked first, so neither announcements nor pictures starve."""
        ready = max(chat.last_write + chat.interval, now, chat.resume_at)
        head = chat.head()
        best: tuple[float, int, int, str] | None = None
        waiting = chat.next_waiting()
        if waiting and (waiting[0].aside or waiting[0].number == head):
            best = (ready, 1, waiting[0].number, "")
        queued = bool(chat.waiting) or any(s.pending is not None and s.new_message for s in chat.slots.values())
        for name, s in chat.slots.items():
            if s.pending is None or (s.new_message and s.number != head):
                continue
            behind = queued and s.number == head  # a player with nothing to decide, an idle group: lazily
            when = s.due(ready, chat.chat_id > 0, behind, self.passive_interval, self.idle_interval)
            key = (when, 0 if s.urgent else 1, s.number, name)
            if best is None or key < best:
                best = key
        return None if best is None else (best[0], best[3] or None)

    async def _run(self, chat: ChatQueue) -> None:
        while True:
            chat.wakeup.clear()
            job = self._next_job(chat, self._clock.monotonic())
            if job is None:
                if await self._idle(chat):
                    return
                continue
            when, slot = job
            delay = when - self._clock.monotonic()
            if delay > 0:
                await self._clock.wait(chat.wakeup, delay)  # something more urgent may come: then choose again
                continue
            chosen = chat.slots.get(slot) if slot is not None else None
            private = (chat.chat_id, chat.interval) if chat.chat_id > 0 else None  # its pace: shared by workers
            await self._throttle.acquire(0 if chosen is None or chosen.urgent else 1, private)
            if slot is not None and chat.slots.get(slot) is not chosen:  # retired meanwhile: choose again
                self._throttle.release()
                continue
            chat.in_flight += 1
            try:
                await (self._send_announcements(chat) if slot is None else self._send_slot(chat, slot))
                chat.backoff = 0.0
            except TelegramError as e:
                if await self._refused(chat, e):
                    return
            finally:
                self._throttle.release()
                chat.in_flight, chat.last_write = chat.in_flight - 1, self._clock.monotonic()

    async def _refused(self, chat: ChatQueue, e: TelegramError) -> bool:
        """Handle a write Telegram refused: retried later (429, network), dropped (400), the chat given up (403),
        its topic's table closed (a topic closed or deleted) or followed (migrated); True to end the chat's worker."""
        if isinstance(e, ChatMigrated):  # the group is a supergroup now: everything follows it there
            log.info("chat %s migrated to %s", chat.chat_id, e.new_chat_id)
            self.refusals.put_nowait(Refusal(chat.chat_id, new_chat_id=int(e.new_chat_id)))
            return True
        if isinstance(e, RetryAfter):
            log.warning("chat %s: flood control, retrying in %.0f s", chat.chat_id, retry_seconds(e))
            chat.resume_at = self._clock.monotonic() + retry_seconds(e)
        elif isinstance(e, Forbidden):
            self._lost(chat, e)
        elif isinstance(e, TopicGone):
            log.info("chat %s: topic %s closed or deleted (%s)", chat.chat_id, e.thread, e.message)
            self.refusals.put_nowait(Refusal(chat.chat_id, thread=e.thread))
        elif isinstance(e, BadRequest):
            log.error("chat %s: write refused and dropped: %s", chat.chat_id, e.message)
        elif isinstance(e, NetworkError):  # a timeout or a lost connection
            chat.backoff = min(_MAX_BACKOFF, max(1.0, chat.backoff * 2))
            chat.resume_at = self._clock.monotonic() + chat.backoff
            log.warning("chat %s: %s; retrying in %.0f s", chat.chat_id, e, chat.backoff)
        else:
            log.error("chat %s: write dropped: %s", chat.chat_id, e)
        return False

    def _lost(self, chat: ChatQueue, e: Forbidden) -> None:
        log.info("chat %s unreachable (%s); dropping its messages", chat.chat_id, e.message)
        self.unreachable.add(chat.chat_id)
        chat.clear()
        self.refusals.put_nowait(Refusal(chat.chat_id))

    async def _idle(self, chat: ChatQueue) -> bool:
        """Nothing waits in the chat: True to end its worker. A chat with no slot left is dropped, once its
        pacing has run out (a new write then starts afresh without breaking the chat's limit)."""
        for name in [n for n, s in chat.slots.items() if s.forgotten and s.pending is None]:
            del chat.slots[name]
        if chat.slots or chat.waiting or chat.in_flight:
            return True
        wait = max(chat.last_write + chat.interval, chat.resume_at) - self._clock.monotonic()
        if wait > 0:
            await self._clock.wait(chat.wakeup, wait)
            return False
        if self._chats.get(chat.chat_id) is chat:
            del self._chats[chat.chat_id]
        return True

    async def _send_announcements(self, chat: ChatQueue) -> None:
        """Send the oldest waiting announcements as one message: consecutive plain texts of one forum topic, with
        nothing else asked between them, merged up to Telegram's 4,096 characters (a text repeated in it told
        once); one with buttons, or a command's answer, alone. The table's own messages go before the answers
        aside (``bot.fair_replies``). A refusal that retrying will not change drops them (and is logged by the
        caller): it never blocks the writes behind it."""
        batch = chat.next_waiting()
        first = batch[0].content
        later = [s.number for s in chat.slots.values() if s.pending is not None]
        limit = min([n for n in later if n > batch[0].number], default=chat.numbers + 1)
        texts: list[str] = []
        markup: InlineKeyboardMarkup | None = None
        taken = size = 0
        for w in batch:
            c, part = w.content, fit(w.content.text, MAX_TEXT)
            alone = c.markup is not None or c.reply_to is not None
            if texts and (alone or w.number > limit or c.thread != first.thread or size + 1 + length(part) > MAX_TEXT):
                break
            taken += 1
            if part not in texts:
                texts.append(part)
                size += length(part) + 1
            if alone:
                markup = c.markup
                break
        sent = batch[:taken]
        try:
            await send_new(self.bot, chat.chat_id, replace(first, text="\n".join(texts), markup=markup))
        except TelegramError as e:
            if final_refusal(e):
                chat.forget_waiting(sent)
            raise
        chat.forget_waiting(sent)
        chat.announced_at = self._clock.monotonic()
        self.writes += 1

    async def _send_slot(self, chat: ChatQueue, name: str) -> None:
        s = chat.slots.get(name)  # None: renamed while this write waited (a group migrated): chosen anew
        content = s.pending if s is not None else None
        if s is None or content is None:
            return
        # A fresh request made while this write is on its way is kept for the next write (it is another message).
        s.pending, s.urgent, s.idle, fresh, s.fresh = None, False, False, s.fresh, False
        news = list(s.news)
        limit = MAX_CAPTION if content.is_photo else MAX_TEXT
        text, _ = with_lines(content.text, news, limit)
        s.shown = content  # from now on: a line told while this write is on its way rides on the next one
        try:
            await write(self.bot, chat.chat_id, s, replace(content, text=text), fresh)
            await self._remembered(chat.chat_id, name, s)
        except (RetryAfter, NetworkError) as e:
            if s.pending is None and not isinstance(e, BadRequest):  # nothing newer arrived: retry this one
                s.pending = content
            s.fresh = s.fresh or fresh
            raise
        del s.news[: len(news)]  # lines told meanwhile wait for the next write
        s.last_sent = self._clock.monotonic()
        self.writes += 1
        if s.forgotten and s.pending is None and chat.slots.get(name) is s:  # its last write: done with it
            del chat.slots[name]  # (a retired message's, in a chat never idle, would otherwise stay for good)

    async def _remembered(self, chat_id: int, name: str, s: Slot) -> None:
        if self._remember is None or s.forgotten or s.message_id is None or s.message_id == s.remembered:
            return  # (a forgotten slot's message is not taken up after a restart)
        try:
            await self._remember(chat_id, name, s.message_id, s.is_photo)
            s.remembered = s.message_id
        except Exception:  # a lost note costs a duplicate message after a restart, never a write
            log.exception("chat %s: could not remember the message of slot %s", chat_id, name)

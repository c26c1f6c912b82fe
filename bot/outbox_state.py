"""What the outbox (``bot.outbox``) holds: the content a slot should show, each slot's message and pending
state, and each chat's queue of writes with its pacing and its order.

Order: every request in a chat takes the next number of that chat (``ChatQueue.number``). A new message (an
announcement, a reply, a slot's first or ``fresh`` message) goes out only once everything asked before it in
the chat is out, so a chat reads in the order things happened; an edit of a message already there may go out
early (it changes nothing in the order), and a newer state of the same message replaces the one waiting.
A ``fresh`` message asked for while the slot's old message still waits for its last state is queued behind
it: the old message is *retired* into a slot of its own that gets that state first (a hand's last picture,
then the next hand's)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Bot, InlineKeyboardMarkup, InputMediaPhoto, Message, ReplyParameters
from telegram.error import BadRequest

log = logging.getLogger(__name__)

# (chat id, slot, message id, is a photo): a slot is shown by a new message.
Remember = Callable[[int, str, int, bool], Awaitable[None]]


@dataclass(frozen=True)
class Content:
    text: str  # the caption of a picture, or the text of a text message
    markup: InlineKeyboardMarkup | None = None
    render: Callable[[], bytes] | None = None  # a picture, rendered only when sent; None = a text message
    animated: bool = False  # the picture is an animation (a replay), always sent as a new message
    keep_picture: bool = False  # an edit of its caption and buttons alone: the picture already shown stays
    idle: bool = False  # nobody waits for this state (a group of the seated people alone): see ``Slot.due``
    last: bool = False  # a hand's last state (its result): the table waits for it as for a new message (``behind``)
    reply_to: int | None = None  # a new message answers this one (a command's): a reply in the group
    thread: int | None = None  # the forum topic a new message goes to (None: the General topic, or no topics)
    asker: int | None = None  # whose command a reply answers (a person's waiting answers are bounded)

    @property
    def is_photo(self) -> bool:
        return self.render is not None


@dataclass
class Slot:
    message_id: int | None = None
    is_photo: bool = False
    pending: Content | None = None
    pending_since: float = 0.0  # when the oldest state not yet sent arrived
    number: int = 0  # the chat's number of the oldest state not yet sent (its place in the chat's order)
    urgent: bool = False
    idle: bool = False  # every state waiting is idle (``Content.idle``, or a line told at the idle pace)
    fresh: bool = False  # send a new message instead of editing the old one
    last_sent: float = float("-inf")
    shown: Content | None = None  # what the message shows now (before any news)
    remembered: int | None = None  # the message id last handed to ``remember``
    news: list[str] = field(default_factory=list)  # lines to tell in the caption of the next write
    forgotten: bool = False  # dropped once its last write is out (``forget``)

    def wait_idle(self, idle: bool) -> None:
        """A new state or line is waiting (before ``pending`` is set): the slot stays idle only while all are."""
        self.idle = idle if self.pending is None else self.idle and idle

    def due(self, ready: float, private: bool, behind: bool, passive: float, idle: float) -> float:
        """When its waiting state may be written, ``ready`` being when the chat's pace allows it: a private one that
        is not urgent (a player with nothing to decide) waits ``passive`` after it arrived and after the last write
        (their next prompt may carry it for free), an idle one ``idle`` after the last write; neither when a new
        message waits behind it (``behind``: it goes first, at once)."""
        if behind:
            return ready
        when = max(ready, max(self.last_sent, self.pending_since) + passive) if private and not self.urgent else ready
        return max(when, self.last_sent + idle) if self.idle else when

    @property
    def new_message(self) -> bool:
        """Whether its waiting state is sent as a new message (rather than an edit in place)."""
        return self.fresh or self.message_id is None or (self.pending is not None and self.pending.animated)


@dataclass(frozen=True)
class Waiting:
    """An announcement or a command's answer waiting to be posted (an answer, ``reply_to`` set, goes alone).
    ``aside``: an answer outside the table's story (/rules, /verify …): it never holds the table's messages back,
    which go first, and takes no place in the chat's order (``bot.fair_replies`` bounds how many wait)."""

    number: int
    content: Content
    aside: bool = False


@dataclass
class ChatQueue:
    chat_id: int
    interval: float
    slots: dict[str, Slot] = field(default_factory=dict)
    waiting: list[Waiting] = field(default_factory=list)  # announcements and answers, in their order
    announced_at: float = 0.0  # when the oldest waiting announcement arrived
    numbers: int = 0  # the last number given to a request in this chat
    last_write: float = float("-inf")
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    backoff: float = 0.0  # the last wait after an error (doubled on each further network error)
    resume_at: float = float("-inf")  # no write before this (after a 429 or a network error)
    in_flight: int = 0

    def number(self) -> int:
        self.numbers += 1
        return self.numbers

    def taken_up(self, now: float) -> None:
        """A table of this chat is taken up here (resumed after a restart, or from a worker that died or let it go),
        whose last owner may have written to it a moment ago: its next write here waits one interval from ``now``."""
        self.last_write = max(self.last_write, now)

    def pending(self) -> int:
        """Writes still waiting or on their way."""
        return self.in_flight + len(self.waiting) + sum(s.pending is not None for s in self.slots.values())

    def head(self) -> int | None:
        """The number of the oldest request still waiting in the chat (answers aside left out)."""
        ordered = [w.number for w in self.waiting if not w.aside][:1]
        numbers = ordered + [s.number for s in self.slots.values() if s.pending]
        return min(numbers) if numbers else None

    def next_waiting(self) -> list[Waiting]:
        """The waiting posts to take the next one from: the table's own in their order, else the answers aside."""
        ordered = [w for w in self.waiting if not w.aside]
        return ordered or self.waiting

    def forget_waiting(self, sent: list[Waiting]) -> None:
        self.waiting = [w for w in self.waiting if all(w is not s for s in sent)]

    def retire(self, name: str) -> None:
        """A fresh message is asked for while the slot's state waits to be sent: the slot, with that state (the
        old message's last one, or a message of its own not sent yet, such as a hand's result) and any write of
        it on its way, goes on under a name of its own, ahead of the fresh message, and is dropped once sent."""
        s = self.slots[name]
        s.forgotten = True
        self.slots[f"{name}~{s.number}"] = s
        self.slots[name] = Slot()

    def clear(self) -> None:
        """Nothing of what waits is sent (the chat answered 403)."""
        self.waiting.clear()
        for s in self.slots.values():
            s.pending = None

    def drop_topic(self, thread: int) -> None:
        """Nothing more to the forum topic ``thread`` (closed or deleted): what waits for it is dropped."""
        self.waiting = [w for w in self.waiting if w.content.thread != thread]
        for s in self.slots.values():
            if s.pending is not None and s.pending.thread == thread:
                s.pending = None


@dataclass(frozen=True)
class Refusal:
    """A write Telegram refused for good, told to whoever follows ``Outbox.refusals`` (the tables' registry): the
    group migrated to ``new_chat_id``, the forum topic ``thread`` was closed or deleted, or else the chat answered
    403 (a person blocked the bot, or a group removed it)."""

    chat_id: int
    new_chat_id: int | None = None
    thread: int | None = None


def replying(message_id: int | None) -> ReplyParameters | None:
    """A reply to ``message_id`` (sent even if that message was deleted meanwhile)."""
    return None if message_id is None else ReplyParameters(message_id, allow_sending_without_reply=True)


class TopicGone(BadRequest):
    """A new message refused because its forum topic was closed or deleted: that topic's table is over."""

    def __init__(self, message: str, thread: int) -> None:
        super().__init__(message)
        self.thread = thread


_TOPIC_GONE = ("topic_closed", "topic_deleted", "message thread not found")


async def send_new(bot: Bot, chat_id: int, content: Content, photo: bytes | None = None) -> Message:
    """Send ``content`` as a new message (``photo``: its rendered picture), in its reply and forum topic;
    TopicGone when that topic is closed or deleted."""
    try:
        return await _send(bot, chat_id, content, photo)
    except BadRequest as e:
        if content.thread is not None and any(words in e.message.lower() for words in _TOPIC_GONE):
            raise TopicGone(e.message, content.thread) from e
        raise


async def _send(bot: Bot, chat_id: int, content: Content, photo: bytes | None) -> Message:
    where, topic = replying(content.reply_to), content.thread
    if photo is None:
        return await bot.send_message(
            chat_id, content.text, reply_markup=content.markup, reply_parameters=where, message_thread_id=topic
        )
    send = bot.send_animation if content.animated else bot.send_photo
    return await send(
        chat_id,
        photo,
        caption=content.text,
        reply_markup=content.markup,
        reply_parameters=where,
        message_thread_id=topic,
    )


async def write(bot: Bot, chat_id: int, s: Slot, content: Content, fresh: bool) -> None:
    """Show ``content`` in the slot's message: an edit in place, or a new message (``fresh``, none yet, or one that
    can no longer be edited)."""
    editing = s.message_id is not None and not fresh and not content.animated
    if editing and s.is_photo and content.keep_picture:  # no need to draw and upload the picture again
        with contextlib.suppress(BadRequest):  # "not modified", or gone: nothing to change then
            await bot.edit_message_caption(chat_id, s.message_id, caption=content.text, reply_markup=content.markup)
        return
    photo = await asyncio.to_thread(content.render) if content.render is not None else None
    if editing and s.message_id is not None and s.is_photo == (photo is not None):
        try:
            if photo is not None:
                media = InputMediaPhoto(photo, caption=content.text)
                await bot.edit_message_media(media, chat_id, s.message_id, reply_markup=content.markup)
            else:
                await bot.edit_message_text(content.text, chat_id, s.message_id, reply_markup=content.markup)
            return
        except BadRequest as e:
            if "not modified" in e.message.lower():
                return
            log.info("chat %s: cannot edit message %s (%s); sending a new one", chat_id, s.message_id, e.message)
    msg = await send_new(bot, chat_id, content, photo)
    s.message_id, s.is_photo = msg.message_id, photo is not None

"""What the outbox (``bot.outbox``) holds: the content a slot should show, each slot's message and pending
state, and each chat's queue of writes with its pacing."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.error import BadRequest

# (chat id, slot, message id, is a photo): a slot is shown by a new message.
Remember = Callable[[int, str, int, bool], Awaitable[None]]


@dataclass(frozen=True)
class Content:
    text: str  # the caption of a picture, or the text of a text message
    markup: InlineKeyboardMarkup | None = None
    render: Callable[[], bytes] | None = None  # a picture, rendered only when sent; None = a text message
    animated: bool = False  # the picture is an animation (a replay), always sent as a new message
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
    urgent: bool = False
    fresh: bool = False  # send a new message instead of editing the old one
    last_sent: float = float("-inf")
    shown: Content | None = None  # what the message shows now (before any news)
    remembered: int | None = None  # the message id last handed to ``remember``
    news: list[str] = field(default_factory=list)  # lines to tell in the caption of the next write
    forgotten: bool = False  # dropped once its last write is out (``forget``)


@dataclass
class ChatQueue:
    chat_id: int
    interval: float
    slots: dict[str, Slot] = field(default_factory=dict)
    # (text, buttons, forum topic) of each announcement waiting
    announcements: list[tuple[str, InlineKeyboardMarkup | None, int | None]] = field(default_factory=list)
    replies: list[Content] = field(default_factory=list)  # answers to commands: never merged, each alone
    announced_at: float = 0.0  # when the oldest waiting announcement arrived
    last_write: float = float("-inf")
    wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None
    backoff: float = 0.0  # the last wait after an error (doubled on each further network error)
    resume_at: float = float("-inf")  # no write before this (after a 429 or a network error)
    in_flight: int = 0

    def drop_topic(self, thread: int) -> None:
        """Nothing more to the forum topic ``thread`` (closed or deleted): what waits for it is dropped."""
        self.announcements = [a for a in self.announcements if a[2] != thread]
        self.replies = [r for r in self.replies if r.thread != thread]
        for s in self.slots.values():
            if s.pending is not None and s.pending.thread == thread:
                s.pending = None


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

"""The state of the fake Telegram world (`ApiState`): one bot, its users, chats, messages, files and updates,
behind one lock, and the helpers that read and change it as Telegram does (a message as the Bot API shows it,
the chats a call may name, a new message stored, an update queued). The roles over it live beside it: the Bot API
methods (`sandbox.api_methods`) and what tests and simulated users do (`sandbox.bot_api.BotApi`).
"""

from __future__ import annotations

import itertools
import json
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from sandbox import api_limits
from sandbox.records import JSON, ApiCall, ApiError, CallbackAnswer, Chat, Fault, Message, Photo, bad_request
from sandbox.request_body import Params
from sandbox.users import SimUser

WINDOW_SECONDS = 60.0  # Telegram's per-group write limit counts the writes of a minute
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same as a current "
    "content and reply markup of the message"
)
ADMIN_RIGHTS = dict.fromkeys(
    (
        "can_be_edited",
        "is_anonymous",
        "can_manage_chat",
        "can_delete_messages",
        "can_manage_video_chats",
        "can_restrict_members",
        "can_promote_members",
        "can_change_info",
        "can_invite_users",
        "can_post_stories",
        "can_edit_stories",
        "can_delete_stories",
        "can_pin_messages",
    ),
    True,
) | {"can_be_edited": False, "is_anonymous": False}


class ApiState:
    """The state of a small Telegram world — one bot, its users and chats — and how Telegram changes it."""

    def __init__(
        self,
        *,
        token: str = "123456789:FAKE-token-for-end-to-end-tests",
        bot_username: str = "wuhan_mahjong_test_bot",
        bot_name: str = "武汉麻将",
        privacy_mode: bool = True,
        group_writes_per_minute: int | None = None,
        callback_answer_timeout: float = 15.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """`privacy_mode`: in groups the bot only receives commands, mentions and replies to it (Telegram's
        default). `group_writes_per_minute`: answer 429 once a group got that many writes in 60 s (off by
        default; `max_writes_per_minute` reports the peak either way). `clock` times calls and windows."""
        self.token = token
        self.bot_id = int(token.split(":", 1)[0])
        self.bot_username = bot_username
        self.bot_name = bot_name
        self.privacy_mode = privacy_mode
        self.group_writes_per_minute = group_writes_per_minute
        self.callback_answer_timeout = callback_answer_timeout
        self.clock = clock
        self.webhook_url = ""
        self.version = 0  # counts every change: a page polling the world asks whether it moved since it looked
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._users: dict[int, SimUser] = {}
        self._chats: dict[int, Chat] = {}
        self._messages: dict[int, dict[int, Message]] = defaultdict(dict)
        self._files: dict[str, Photo] = {}
        self._updates: list[JSON] = []
        self._sent_updates: dict[int, JSON] = {}  # every update ever queued, by id (for ``redeliver``)
        self._redelivered: list[JSON] = []  # copies sent again, delivered once whatever offset was confirmed
        self._allowed_updates: list[str] | None = None
        self._poll_generation = 0
        self._stopping = False
        self._calls: list[ApiCall] = []
        self._write_times: dict[int, list[float]] = defaultdict(list)
        self._faults: list[Fault] = []
        self._delays: dict[str, float] = {}  # method (lower case) → seconds each call waits before its answer
        self._queries: dict[str, tuple[float, CallbackAnswer | None]] = {}
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._update_ids = itertools.count(1)
        self._user_ids = itertools.count(100001)
        self._group_numbers = itertools.count(1)
        self._file_numbers = itertools.count(1)
        self._query_numbers = itertools.count(1)

    @staticmethod
    def _chat_id_of(values: JSON) -> int | None:
        try:
            return int(values["chat_id"])
        except (KeyError, TypeError, ValueError):
            return None

    # ----- reading and changing the state as Telegram does -------------------------------------------------

    def _bot_user_json(self) -> JSON:
        return {
            "id": self.bot_id,
            "is_bot": True,
            "first_name": self.bot_name,
            "username": self.bot_username,
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
        }

    def _bot_receives(self, chat: Chat, message: Message) -> bool:
        """Privacy mode: in groups only commands for this bot, mentions of it and replies to it arrive."""
        if not chat.is_group or not self.privacy_mode:
            return True
        text = message.text or ""
        if text.startswith("/"):
            _, at, addressee = text.split(maxsplit=1)[0].partition("@")
            return not at or addressee.lower() == self.bot_username.lower()
        replied = self._messages[chat.id].get(message.reply_to_message_id or 0)
        return f"@{self.bot_username}".lower() in text.lower() or (replied is not None and replied.from_bot)

    def _enqueue(self, kind: str, payload: JSON) -> None:
        if self._allowed_updates and kind not in self._allowed_updates:
            return
        update_id = next(self._update_ids)
        update: JSON = {"update_id": update_id, kind: payload}
        self._sent_updates[update_id] = update
        self._updates.append(update)
        self._notify()

    def _notify(self) -> None:
        """Something changed (the lock is held): wake every waiter."""
        self.version += 1
        self._changed.notify_all()

    def _store_new(self, chat_id: int, sender_id: int, *, from_bot: bool, **fields: Any) -> Message:
        """A new message in the chat, sent now, numbered after the chat's last."""
        in_chat = self._messages[chat_id]
        number = max(in_chat, default=0) + 1
        stored = Message(chat_id, number, sender_id, from_bot, date=int(time.time()), **fields)
        in_chat[stored.message_id] = stored
        self._notify()
        return stored

    def _message_json(self, message: Message, *, with_reply: bool = True) -> JSON:
        sender = self._bot_user_json() if message.from_bot else self._users[message.sender_id].to_api()
        answer: JSON = {
            "message_id": message.message_id,
            "date": message.date,
            "chat": self._chats[message.chat_id].to_api(),
            "from": sender,
        }
        optional = {
            "text": message.text,
            "entities": list(message.entities) or None,
            "photo": message.photo.to_api() if message.photo and not message.animated else None,
            "animation": message.photo.animation_api() if message.photo and message.animated else None,
            "caption": message.caption,
            "reply_markup": message.reply_markup,
            "edit_date": message.edit_date,
            "message_thread_id": message.thread_id,
            "is_topic_message": True if message.thread_id is not None else None,
        }
        answer.update({key: value for key, value in optional.items() if value is not None})
        chat = self._chats[message.chat_id]
        if message.thread_id == message.message_id and message.thread_id in chat.topics:  # a topic's first message
            answer["forum_topic_created"] = {"name": chat.topics[message.thread_id], "icon_color": 7322096}
        # As on Telegram, a message in a topic that answers nothing else answers the topic's first message.
        opening = message.thread_id if message.thread_id != message.message_id else None
        replied = self._messages[message.chat_id].get(message.reply_to_message_id or opening or 0)
        if with_reply and replied is not None:
            answer["reply_to_message"] = self._message_json(replied, with_reply=False)
        return answer

    def _known_chat(self, params: Params) -> Chat:
        chat = self._chats.get(self._chat_id_of(params.values) or 0)
        if chat is None:
            raise bad_request("chat not found")
        if chat.migrated_to is not None:
            raise ApiError(
                400, "Bad Request: group chat was upgraded to a supergroup chat", migrate_to_chat_id=chat.migrated_to
            )
        return chat

    def _writable_chat(self, params: Params) -> Chat:
        chat = self._known_chat(params)
        if not chat.is_group:
            user = self._users[chat.id]
            if user.blocked:
                raise ApiError(403, "Forbidden: bot was blocked by the user")
            if not user.started:
                raise ApiError(403, "Forbidden: bot can't initiate conversation with a user")
        return chat

    def _editable(self, params: Params) -> Message:
        if params.has("inline_message_id"):
            raise bad_request("inline messages are not supported by the fake server")
        chat = self._writable_chat(params)
        message = self._messages[chat.id].get(params.integer("message_id"))
        if message is None or message.deleted:
            raise bad_request("message to edit not found")
        if not message.from_bot:
            raise bad_request("message can't be edited")
        return message

    def _edit(self, message: Message, **changes: Any) -> JSON:
        edited = replace(message, **changes)
        if edited == message:
            raise bad_request(NOT_MODIFIED)
        edited = replace(edited, edit_date=int(time.time()), edits=message.edits + 1)
        self._messages[message.chat_id][message.message_id] = edited
        return self._message_json(edited)

    def _post_bot_message(self, chat: Chat, params: Params, **content: Any) -> JSON:
        reply = params.structure("reply_parameters") or {}
        reply_to = reply.get("message_id") if isinstance(reply, dict) else None
        reply_to = reply_to or params.optional_integer("reply_to_message_id")
        if reply_to is not None and reply_to not in self._messages[chat.id]:
            raise bad_request("message to be replied not found")
        thread = params.optional_integer("message_thread_id")
        if thread is not None and thread not in chat.topics:
            raise bad_request("message thread not found")
        if thread in chat.closed_topics:
            raise bad_request("TOPIC_CLOSED")
        if thread is None and reply_to is not None:  # a reply goes where what it answers is
            thread = self._messages[chat.id][reply_to].thread_id
        message = self._store_new(
            chat.id,
            self.bot_id,
            from_bot=True,
            reply_markup=api_limits.reply_markup(params.structure("reply_markup"), private=chat.id > 0),
            reply_to_message_id=reply_to,
            thread_id=thread,
            **content,
        )
        return self._message_json(message)

    def _photo(self, params: Params, reference: str | None, own_part: str | None) -> Photo:
        """The photo a request names: an uploaded part (its own or `attach://`) or a known file_id."""
        upload = params.upload(reference) if reference else params.files.get(own_part or "")
        if upload is None:
            known = self._files.get(reference or "")
            if known is None:
                raise bad_request("wrong file identifier/HTTP URL specified")
            return known
        width, height = api_limits.photo_size(upload.data)
        number = next(self._file_numbers)
        # A file_id fetches the picture (the page's /api/photo): unguessable, unlike the running number.
        photo = Photo(f"AgACAgIAAxkFAK{secrets.token_urlsafe(24)}", f"AQAD{number:06d}", upload.data, width, height)
        self._files[photo.file_id] = photo
        return photo

    @staticmethod
    def _commands_key(scope: Any, language_code: str) -> tuple[str, str]:
        return json.dumps(scope or {"type": "default"}, sort_keys=True), language_code

    def _member_json(self, chat: Chat, user_id: int) -> JSON:
        if user_id == self.bot_id:
            user = self._bot_user_json()
        elif user_id in self._users:
            user = self._users[user_id].to_api()
        else:
            raise bad_request("user not found")
        is_bot = user_id == self.bot_id
        if not chat.is_group:
            status = "member" if user_id in (chat.id, self.bot_id) else "left"
            return {"status": status, "user": user}
        if user_id == chat.owner_id:
            return {"status": "creator", "user": user, "is_anonymous": False}
        if user_id in chat.admin_ids or (is_bot and chat.bot_is_admin):
            return {"status": "administrator", "user": user, **ADMIN_RIGHTS}
        if user_id in chat.member_ids or is_bot:
            return {"status": "member", "user": user}
        return {"status": "left", "user": user}

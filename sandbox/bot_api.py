"""The fake Bot API itself — state and methods, no HTTP (`server.FakeTelegram` puts it on a socket).

`BotApi.call(token, method, params, files)` answers one request as Telegram would: `(status, json)`,
or None to hang up. Everything is guarded by one lock, so the HTTP threads, the simulated users and
the test's assertions see one consistent world; every change wakes the `wait_*` helpers.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import math
import secrets
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any, TypeVar

from sandbox import api_limits
from sandbox.records import (
    JSON,
    ApiCall,
    ApiError,
    Button,
    CallbackAnswer,
    Chat,
    Fault,
    FaultKind,
    Message,
    Photo,
    bad_request,
    too_many_requests,
)
from sandbox.request_body import Params, Upload
from sandbox.users import SimUser

T = TypeVar("T")
MethodHandler = Callable[["BotApi", Params], Any]
# lower-case method name -> (the name as documented, its implementation); Bot API names are case-insensitive.
_METHODS: dict[str, tuple[str, MethodHandler]] = {}

# Calls that put something in a chat; they are what Telegram's per-chat flood limits count.
WRITE_METHODS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendAnimation",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageReplyMarkup",
        "deleteMessage",
    }
)
WINDOW_SECONDS = 60.0
NOT_MODIFIED = (
    "message is not modified: specified new message content and reply markup are exactly the same as a current "
    "content and reply markup of the message"
)
STALE_QUERY = "query is too old and response timeout expired or query ID is invalid"
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


def _method(name: str) -> Callable[[MethodHandler], MethodHandler]:
    def register(handler: MethodHandler) -> MethodHandler:
        _METHODS[name.lower()] = (name, handler)
        return handler

    return register


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class BotApi:
    """The state of a small Telegram world — one bot, its users and chats — and the Bot API over it."""

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

    # ----- building the world -------------------------------------------------------------------------

    def add_user(
        self,
        first_name: str,
        *,
        username: str | None = None,
        language_code: str = "zh-hans",
        started: bool = True,
    ) -> SimUser:
        """A new user. `started=False`: they never pressed START, so the bot cannot write to them yet."""
        with self._changed:
            user = SimUser(self, next(self._user_ids), first_name, username, language_code, started=started)
            self._users[user.id] = user
            self._chats[user.id] = Chat(id=user.id, type="private", first_name=first_name, username=username)
            self._notify()
            return user

    def add_group(
        self,
        title: str,
        *,
        members: Iterable[SimUser] = (),
        admins: Iterable[SimUser] = (),
        owner: SimUser | None = None,
        supergroup: bool = True,
        bot_is_admin: bool = False,
        forum: bool = False,
    ) -> Chat:
        """A group the bot is in. Owner and admins count as members; anyone who writes there becomes one.
        `forum`: a supergroup with topics (`create_topic`)."""
        if forum and not supergroup:
            raise ValueError("only a supergroup can have topics")
        number = next(self._group_numbers)
        with self._changed:
            chat = Chat(
                id=-(1001000000000 + number) if supergroup else -(4000000000 + number),
                type="supergroup" if supergroup else "group",
                title=title,
                owner_id=owner.id if owner else None,
                admin_ids={user.id for user in admins},
                bot_is_admin=bot_is_admin,
                is_forum=forum,
            )
            chat.member_ids = {user.id for user in members} | chat.admin_ids | ({owner.id} if owner else set())
            self._chats[chat.id] = chat
            self._notify()
            return chat

    def create_topic(self, chat: Chat, name: str, *, by: SimUser) -> int:
        """`by` opens a topic in a forum group, as createForumTopic does: its id (message_thread_id) is the id of
        the service message that opens it."""
        with self._changed:
            if not chat.is_forum:
                raise ValueError(f"chat {chat.id} is not a forum")
            opened = self._store_new(
                Message(chat_id=chat.id, message_id=0, sender_id=by.id, from_bot=False, date=int(time.time()))
            )
            self._messages[chat.id][opened.message_id] = replace(opened, thread_id=opened.message_id)
            chat.topics[opened.message_id] = name
            return opened.message_id

    def close_topic(self, chat: Chat, topic: int, *, deleted: bool = False) -> None:
        """An admin closes a topic (the bot's new messages there: 400 TOPIC_CLOSED) or deletes it (400 message
        thread not found, its messages gone)."""
        with self._changed:
            if topic not in chat.topics:
                raise ValueError(f"chat {chat.id} has no topic {topic}")
            if not deleted:
                chat.closed_topics.add(topic)
                return
            del chat.topics[topic]
            for message_id, message in list(self._messages[chat.id].items()):
                if message.thread_id == topic:
                    self._messages[chat.id][message_id] = replace(message, deleted=True)

    def migrate_group(self, chat: Chat) -> Chat:
        """A group becomes a supergroup: a new chat with its title and people; from now on a call naming the old
        id answers 400 with parameters.migrate_to_chat_id (no service message is sent: tests post one if they
        want the bot to hear of it that way)."""
        if chat.type != "group":
            raise ValueError(f"chat {chat.id} is not a basic group")
        owner = self._users.get(chat.owner_id or 0)
        new = self.add_group(chat.title or "", owner=owner, bot_is_admin=chat.bot_is_admin)
        with self._changed:
            new.admin_ids, new.member_ids = set(chat.admin_ids), set(chat.member_ids)
            chat.migrated_to = new.id
            self._notify()
        return new

    def add_member(self, chat: Chat, user: SimUser) -> None:
        """`user` joins the group `chat` (someone added them, or they followed its invite link)."""
        with self._changed:
            chat.member_ids.add(user.id)
            self._notify()

    def user_name(self, user_id: int) -> str:
        with self._lock:
            return self._users[user_id].first_name

    def chat(self, chat_id: int) -> Chat:
        with self._lock:
            chat = self._chats.get(chat_id)
            if chat is None:
                raise KeyError(f"no chat {chat_id}")
            return chat

    # ----- what the users do (called through SimUser) ------------------------------------------------------

    def post_user_message(
        self, user: SimUser, chat_id: int, text: str, reply_to: Message | None, topic: int | None = None
    ) -> Message:
        """`user` writes `text` in a chat (in the forum topic `topic`); the bot gets the update if Telegram would
        deliver it."""
        with self._changed:
            chat = self.chat(chat_id)
            if chat.migrated_to is not None:
                raise ValueError(f"chat {chat.id} is the supergroup {chat.migrated_to} now")
            if topic is not None and topic not in chat.topics:
                raise ValueError(f"chat {chat.id} has no topic {topic}")
            if topic is None and reply_to is not None:  # a reply is where what it answers is, as on Telegram
                topic = reply_to.thread_id
            if not chat.is_group and chat.id != user.id:
                raise ValueError(f"{user.first_name} can only write in their own private chat with the bot")
            if not chat.is_group and not user.started:
                raise ValueError(f"{user.first_name} must press START first: user.start() or user.open_link(url)")
            if chat.is_group:
                chat.member_ids.add(user.id)
            entities: tuple[JSON, ...] = ()
            if text.startswith("/"):
                command = text.split(maxsplit=1)[0]
                entities = ({"type": "bot_command", "offset": 0, "length": _utf16_length(command)},)
            message = self._store_new(
                Message(
                    chat_id=chat.id,
                    message_id=0,
                    sender_id=user.id,
                    from_bot=False,
                    date=int(time.time()),
                    text=text,
                    entities=entities,
                    reply_to_message_id=reply_to.message_id if reply_to else None,
                    thread_id=topic,
                )
            )
            if self._bot_receives(chat, message):
                self._enqueue("message", self._message_json(message))
            return message

    def start_private_chat(self, user: SimUser, payload: str | None) -> Message:
        """`user` presses START (or opens a deep link): the bot may write to them from now on."""
        with self._changed:
            user.started = True
            user.blocked = False
            return self.post_user_message(user, user.id, f"/start {payload}" if payload else "/start", None)

    def post_update(self, kind: str, payload: JSON) -> None:
        """Any update as Telegram would send it, written out by the test: an edited message, a channel post, an
        automatic forward, a message sent as a chat."""
        with self._changed:
            self._enqueue(kind, payload)

    def delete_by_user(self, chat_id: int, message_id: int) -> None:
        """A person deletes a message in their chat (the bot's too, in a private chat): later edits of it fail."""
        with self._changed:
            message = self._messages[chat_id][message_id]
            self._messages[chat_id][message_id] = replace(message, deleted=True)

    def block_bot(self, user: SimUser) -> None:
        with self._changed:
            user.blocked = True
            self._notify()

    def press_button(self, user: SimUser, shown: Message, button: Button) -> str:
        """`user` presses `button` on the message as they saw it (`shown` may be an older snapshot)."""
        with self._changed:
            chat = self.chat(shown.chat_id)
            if not chat.is_group and chat.id != user.id:
                raise ValueError(f"{user.first_name} cannot see private chat {chat.id}")
            current = self._messages[chat.id].get(shown.message_id)
            if current is None or current.deleted:
                raise LookupError(f"message {shown.message_id} in chat {chat.id} is gone")
            query_id = f"{self.bot_id}{next(self._query_numbers):08d}"
            self._queries[query_id] = (self.clock(), None)
            self._enqueue(
                "callback_query",
                {
                    "id": query_id,
                    "from": user.to_api(),
                    "message": self._message_json(current),
                    "chat_instance": str(abs(chat.id) * 7919 % 10**12),
                    "data": button.callback_data,
                },
            )
            return query_id

    def press_inline(self, user: SimUser, data: str) -> str:
        """`user` presses a button carrying `data` on an inline message (one sent through inline mode, known
        by its ``inline_message_id`` alone: the query carries no message)."""
        with self._changed:
            query_id = f"{self.bot_id}{next(self._query_numbers):08d}"
            self._queries[query_id] = (self.clock(), None)
            self._enqueue(
                "callback_query",
                {"id": query_id, "from": user.to_api(), "inline_message_id": f"AAE{query_id}", "chat_instance": "1",
                 "data": data},
            )  # fmt: skip
            return query_id

    # ----- what tests read ---------------------------------------------------------------------------

    def messages(self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False) -> list[Message]:
        """The chat's messages, oldest first: the bot's by default, `from_bot=None` for everyone's (in a forum,
        each message's `thread_id` is the topic it landed in)."""
        with self._lock:
            return [
                message
                for message in self._messages[chat_id].values()
                if (from_bot is None or message.from_bot == from_bot) and (include_deleted or not message.deleted)
            ]

    def last_bot_message(self, chat_id: int) -> Message | None:
        """The newest message from the bot still in the chat: what the user sees at the bottom."""
        sent = self.messages(chat_id)
        return sent[-1] if sent else None

    def message(self, chat_id: int, message_id: int) -> Message:
        """The current state of one message (KeyError if it never existed)."""
        with self._lock:
            return self._messages[chat_id][message_id]

    def callback_answer(self, query_id: str) -> CallbackAnswer | None:
        """The bot's answer to a press, None while unanswered."""
        with self._lock:
            return self._queries[query_id][1]

    def writes_to(self, chat_id: int) -> int:
        """How many writes (sends, edits, deletes) to the chat have succeeded: a cheap "has it changed?"."""
        with self._lock:
            return len(self._write_times.get(chat_id, ()))

    def calls(self, method: str | None = None, *, chat_id: int | None = None) -> list[ApiCall]:
        """Every request so far (all answers, errors included), optionally one method's or one chat's."""
        with self._lock:
            return [
                call
                for call in self._calls
                if (method is None or call.method.lower() == method.lower())
                and (chat_id is None or call.chat_id == chat_id)
            ]

    def my_commands(self, *, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """The command list the bot registered for a scope (default scope) and language ('' = all)."""
        with self._lock:
            return list(self._commands.get(self._commands_key(scope, language_code), []))

    def pending_updates(self) -> int:
        """Updates not yet confirmed by the bot (getUpdates with a higher offset)."""
        with self._lock:
            return len(self._updates)

    def max_writes_per_minute(self, chat_id: int) -> int:
        """The most successful writes (sends, edits, deletes) to the chat within any 60-second window."""
        with self._lock:
            times = self._write_times[chat_id]
            peak = start = 0
            for end, at in enumerate(times):
                while at - times[start] >= WINDOW_SECONDS:
                    start += 1
                peak = max(peak, end - start + 1)
            return peak

    # ----- making the server misbehave ----------------------------------------------------------------

    def fail_next(
        self,
        method: str,
        kind: FaultKind = FaultKind.RETRY_AFTER,
        *,
        times: int = 1,
        chat_id: int | None = None,
        retry_after: int = 1,
    ) -> None:
        """The next `times` calls of `method` (to `chat_id`, or any chat) fail with `kind` instead of running."""
        with self._lock:
            self._faults.append(Fault(kind, method.lower(), chat_id, times, retry_after))

    def updates_sent(self) -> list[JSON]:
        """Every update queued for the bot so far, oldest first (copies sent again not repeated)."""
        with self._lock:
            return list(self._sent_updates.values())

    def redeliver(self, update_id: int, copies: int = 1) -> None:
        """Telegram sends an update again, with its id (a webhook retry; a crash before the polling offset was
        confirmed): the copies go out with the next getUpdates even if that id was confirmed meanwhile."""
        with self._changed:
            for _ in range(copies):
                copy = json.loads(json.dumps(self._sent_updates[update_id]))
                self._redelivered.append(copy)
                self._updates.append(copy)
            self._changed.notify_all()

    def take_for_webhook(self, timeout: float) -> list[JSON]:
        """With a webhook set, Telegram posts each update instead of waiting to be asked: the updates queued (waited
        for up to ``timeout`` s), handed over to the caller, who posts them to the webhook's URL as Telegram would
        (and posts again what is not answered 200: the test's part)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while not self._updates and not self._stopping and (remaining := deadline - time.monotonic()) > 0:
                self._changed.wait(remaining)
            taken, self._updates = self._updates, []
            self._redelivered = []
            return taken

    def slow(self, method: str, seconds: float) -> None:
        """Every later call of `method` waits `seconds` before it is answered (a slow Bot API); 0 ends that."""
        with self._lock:
            self._delays[method.lower()] = seconds

    # ----- waiting ---------------------------------------------------------------------------------

    def wait_until(
        self, predicate: Callable[[], T | None], *, timeout: float = 5.0, what: str | Callable[[], str] = "condition"
    ) -> T:
        """Blocks until `predicate()` (run under the state lock) is truthy, and returns its value.
        On timeout, TimeoutError says `what` was awaited (a callable is asked then, to show the state)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                result = predicate()
                if result:
                    return result
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise TimeoutError(f"timed out after {timeout} s waiting for {what() if callable(what) else what}")
                self._changed.wait(remaining)

    async def wait_until_async(
        self, predicate: Callable[[], T | None], *, timeout: float = 5.0, what: str | Callable[[], str] = "condition"
    ) -> T:
        """`wait_until` for async tests: waits in a worker thread so the event loop (and the bot) keep running."""
        return await asyncio.to_thread(self.wait_until, predicate, timeout=timeout, what=what)

    def wait_for_change(self, since: int, *, timeout: float) -> int:
        """The world's `version` once it is past `since`, or after `timeout` seconds whatever it is."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != since or self._stopping, timeout)
            return self.version

    def wait_for_message(
        self,
        chat_id: int,
        where: Callable[[Message], bool] | None = None,
        *,
        from_bot: bool | None = True,
        timeout: float = 5.0,
    ) -> Message:
        """The newest message in the chat (the bot's by default) matching `where`, once there is one."""
        newest_match, what = self._message_finder(chat_id, where, from_bot)
        return self.wait_until(newest_match, timeout=timeout, what=what)

    async def wait_for_message_async(
        self,
        chat_id: int,
        where: Callable[[Message], bool] | None = None,
        *,
        from_bot: bool | None = True,
        timeout: float = 5.0,
    ) -> Message:
        newest_match, what = self._message_finder(chat_id, where, from_bot)
        return await self.wait_until_async(newest_match, timeout=timeout, what=what)

    def wait_for_callback_answer(self, query_id: str, *, timeout: float = 5.0) -> CallbackAnswer:
        return self.wait_until(lambda: self.callback_answer(query_id), timeout=timeout, what=f"answer to {query_id}")

    async def wait_for_callback_answer_async(self, query_id: str, *, timeout: float = 5.0) -> CallbackAnswer:
        return await self.wait_until_async(
            lambda: self.callback_answer(query_id), timeout=timeout, what=f"answer to {query_id}"
        )

    def _message_finder(
        self, chat_id: int, where: Callable[[Message], bool] | None, from_bot: bool | None
    ) -> tuple[Callable[[], Message | None], Callable[[], str]]:
        def newest_match() -> Message | None:
            for message in reversed(self.messages(chat_id, from_bot=from_bot)):
                if where is None or where(message):
                    return message
            return None

        def what() -> str:
            seen = "; ".join(
                f"#{m.message_id} {m.content[:40]!r} {[b.text for b in m.buttons]}" for m in self.messages(chat_id)
            )
            return f"a matching message in chat {chat_id} (the bot's messages there: {seen or 'none'})"

        return newest_match, what

    # ----- answering requests ------------------------------------------------------------------------

    def call(self, token: str, method: str, values: JSON, files: dict[str, Upload]) -> tuple[int, JSON] | None:
        """One Bot API request: (HTTP status, answer), or None when a fault says to drop the connection."""
        if token != self.token:
            return 401, ApiError(401, "Unauthorized").to_api()
        name, handler = _METHODS.get(method.lower(), (method, None))
        chat_id = self._chat_id_of(values)
        with self._lock:
            delay = self._delays.get(name.lower(), 0.0)
        if delay > 0:
            time.sleep(delay)  # this request's own server thread: the others are answered meanwhile
        with self._changed:
            fault = next((f for f in self._faults if f.matches(name.lower(), chat_id)), None)
            try:
                if handler is None:
                    raise ApiError(404, "Not Found")
                if fault is not None:
                    fault.remaining -= 1
                    if fault.kind is FaultKind.DROP_CONNECTION:
                        self._record(name, chat_id, values, files, 0, "connection dropped")
                        return None
                    if fault.kind is FaultKind.RETRY_AFTER:
                        raise too_many_requests(fault.retry_after)
                    raise ApiError(500, "Internal Server Error")
                self._check_flood(name, chat_id)
                status, answer = 200, {"ok": True, "result": handler(self, Params(values, files))}
            except ApiError as error:
                status, answer = error.status, error.to_api()
            self._record(name, chat_id, values, files, status, answer.get("description"))
            return status, answer

    def file_content(self, file_path: str) -> bytes | None:
        """The bytes behind a getFile path (what base_file_url downloads)."""
        with self._lock:
            photo = self._files.get(file_path.removeprefix("photos/").removesuffix(".jpg"))
            return photo.data if photo else None

    def stop_waiting(self) -> None:
        """Ends every long poll at once (the server is shutting down)."""
        with self._changed:
            self._stopping = True
            self._notify()

    @staticmethod
    def _chat_id_of(values: JSON) -> int | None:
        try:
            return int(values["chat_id"])
        except (KeyError, TypeError, ValueError):
            return None

    def _record(
        self,
        name: str,
        chat_id: int | None,
        values: JSON,
        files: dict[str, Upload],
        status: int,
        description: str | None,
    ) -> None:
        now = self.clock()
        self._calls.append(
            ApiCall(name, chat_id, dict(values), {k: len(v.data) for k, v in files.items()}, now, status, description)
        )
        if status == 200 and name in WRITE_METHODS and chat_id is not None:
            self._write_times[chat_id].append(now)
        self._notify()

    def _check_flood(self, name: str, chat_id: int | None) -> None:
        limit = self.group_writes_per_minute
        chat = self._chats.get(chat_id) if chat_id is not None else None
        if limit is None or chat is None or not chat.is_group or name not in WRITE_METHODS:
            return
        now = self.clock()
        recent = [at for at in self._write_times[chat.id] if now - at < WINDOW_SECONDS]
        if len(recent) >= limit:
            raise too_many_requests(max(1, math.ceil(recent[-limit] + WINDOW_SECONDS - now)))

    # ----- state helpers -------------------------------------------------------------------------------

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

    def _store_new(self, message: Message) -> Message:
        in_chat = self._messages[message.chat_id]
        stored = replace(message, message_id=max(in_chat, default=0) + 1)
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
            Message(
                chat_id=chat.id,
                message_id=0,
                sender_id=self.bot_id,
                from_bot=True,
                date=int(time.time()),
                reply_markup=api_limits.reply_markup(params.structure("reply_markup"), private=chat.id > 0),
                reply_to_message_id=reply_to,
                thread_id=thread,
                **content,
            )
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

    # ----- the Bot API methods --------------------------------------------------------------------------

    @_method("getMe")
    def _get_me(self, params: Params) -> JSON:
        return self._bot_user_json()

    @_method("logOut")
    @_method("close")
    # Profile settings are only recorded (see `calls`): nothing a user sees in a test depends on them.
    @_method("setMyDescription")
    @_method("setMyShortDescription")
    @_method("setMyName")
    @_method("setChatMenuButton")
    def _accept(self, params: Params) -> bool:
        return True

    @_method("getUpdates")
    def _get_updates(self, params: Params) -> list[JSON]:
        """Long polling: confirms updates below `offset`, then waits up to `timeout` s for one to arrive."""
        if self.webhook_url:
            raise ApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the "
                "webhook first",
            )
        offset = params.optional_integer("offset")
        limit = min(max(params.optional_integer("limit") or 100, 1), 100)
        timeout = max(params.number("timeout", 0.0), 0.0)
        allowed = params.structure("allowed_updates")
        if allowed is not None:
            self._allowed_updates = list(allowed) or None
        if offset is not None:
            self._updates = (
                self._updates[offset:]
                if offset < 0
                else [u for u in self._updates if u["update_id"] >= offset or any(u is r for r in self._redelivered)]
            )
        self._poll_generation += 1
        generation = self._poll_generation
        deadline = time.monotonic() + timeout
        while not self._updates and not self._stopping:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            self._changed.wait(remaining)
            if generation != self._poll_generation:
                raise ApiError(
                    409,
                    "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
                )
        batch = self._updates[:limit]
        # A copy sent again is delivered once: the next confirmation drops it like any other.
        self._redelivered = [r for r in self._redelivered if not any(r is u for u in batch)]
        return batch

    @_method("setWebhook")
    def _set_webhook(self, params: Params) -> bool:
        self.webhook_url = params.text("url") or ""
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    @_method("deleteWebhook")
    def _delete_webhook(self, params: Params) -> bool:
        self.webhook_url = ""
        if params.flag("drop_pending_updates"):
            self._updates.clear()
        return True

    @_method("getWebhookInfo")
    def _get_webhook_info(self, params: Params) -> JSON:
        return {"url": self.webhook_url, "has_custom_certificate": False, "pending_update_count": len(self._updates)}

    @_method("setMyCommands")
    def _set_my_commands(self, params: Params) -> bool:
        key = self._commands_key(params.structure("scope"), params.text("language_code") or "")
        self._commands[key] = api_limits.bot_commands(params.structure("commands"))
        return True

    @_method("getMyCommands")
    def _get_my_commands(self, params: Params) -> list[JSON]:
        return self._commands.get(self._commands_key(params.structure("scope"), params.text("language_code") or ""), [])

    @_method("deleteMyCommands")
    def _delete_my_commands(self, params: Params) -> bool:
        self._commands.pop(self._commands_key(params.structure("scope"), params.text("language_code") or ""), None)
        return True

    @_method("sendMessage")
    def _send_message(self, params: Params) -> JSON:
        chat = self._writable_chat(params)
        source = params.text("text")
        text = api_limits.message_text(source, params.text("parse_mode"))
        return self._post_bot_message(chat, params, text=text, source=source)

    @_method("sendPhoto")
    def _send_photo(self, params: Params) -> JSON:
        chat = self._writable_chat(params)
        source = params.text("caption")
        caption = api_limits.caption(source, params.text("parse_mode"))
        photo = self._photo(params, params.text("photo"), "photo")
        return self._post_bot_message(chat, params, photo=photo, caption=caption, source=source)

    @_method("sendAnimation")
    def _send_animation(self, params: Params) -> JSON:
        chat = self._writable_chat(params)
        source = params.text("caption")
        caption = api_limits.caption(source, params.text("parse_mode"))
        animation = self._photo(params, params.text("animation"), "animation")
        return self._post_bot_message(chat, params, photo=animation, animated=True, caption=caption, source=source)

    @_method("sendChatAction")
    def _send_chat_action(self, params: Params) -> bool:
        self._writable_chat(params)
        return True

    @_method("editMessageText")
    def _edit_message_text(self, params: Params) -> JSON:
        message = self._editable(params)
        if message.photo is not None:
            raise bad_request("there is no text in the message to edit")
        source = params.text("text")
        text = api_limits.message_text(source, params.text("parse_mode"))
        markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
        return self._edit(message, text=text, source=source, reply_markup=markup)

    @_method("editMessageCaption")
    def _edit_message_caption(self, params: Params) -> JSON:
        message = self._editable(params)
        if message.photo is None:
            raise bad_request("there is no caption in the message to edit")
        source = params.text("caption")
        caption = api_limits.caption(source, params.text("parse_mode"))
        markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
        return self._edit(message, caption=caption, source=source, reply_markup=markup)

    @_method("editMessageMedia")
    def _edit_message_media(self, params: Params) -> JSON:
        message = self._editable(params)
        if message.photo is None:
            raise bad_request("there is no media in the message to edit")
        media = params.structure("media")
        if not isinstance(media, dict) or media.get("type") != "photo":
            raise bad_request("the fake server only edits media to InputMediaPhoto")
        source = media.get("caption")
        caption = api_limits.caption(source, media.get("parse_mode"))
        photo = self._photo(params, str(media.get("media") or ""), None)
        markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
        return self._edit(message, photo=photo, caption=caption, source=source, reply_markup=markup)

    @_method("editMessageReplyMarkup")
    def _edit_message_reply_markup(self, params: Params) -> JSON:
        message = self._editable(params)
        markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
        return self._edit(message, reply_markup=markup)

    @_method("deleteMessage")
    def _delete_message(self, params: Params) -> bool:
        chat = self._known_chat(params)
        message = self._messages[chat.id].get(params.integer("message_id"))
        if message is None or message.deleted:
            raise bad_request("message to delete not found")
        if not message.from_bot and chat.is_group and not chat.bot_is_admin:
            raise bad_request("message can't be deleted")
        self._messages[chat.id][message.message_id] = replace(message, deleted=True)
        return True

    @_method("answerCallbackQuery")
    def _answer_callback_query(self, params: Params) -> bool:
        query_id = params.text("callback_query_id") or ""
        asked_at, answered = self._queries.get(query_id, (float("-inf"), None))
        if answered is not None or self.clock() - asked_at > self.callback_answer_timeout:
            raise bad_request(STALE_QUERY)
        text = api_limits.callback_answer_text(params.text("text"))
        self._queries[query_id] = (asked_at, CallbackAnswer(text, params.flag("show_alert"), params.text("url")))
        return True

    @_method("getChat")
    def _get_chat(self, params: Params) -> JSON:
        gifts = dict.fromkeys(
            ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription", "gifts_from_channels"), False
        )
        return self._known_chat(params).to_api() | {
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": gifts,
        }

    @_method("getChatMember")
    def _get_chat_member(self, params: Params) -> JSON:
        return self._member_json(self._known_chat(params), params.integer("user_id"))

    @_method("getChatAdministrators")
    def _get_chat_administrators(self, params: Params) -> list[JSON]:
        chat = self._known_chat(params)
        if not chat.is_group:
            raise bad_request("there are no administrators in the private chat")
        admins = ([chat.owner_id] if chat.owner_id else []) + sorted(chat.admin_ids - {chat.owner_id})
        admins += [self.bot_id] if chat.bot_is_admin else []
        return [self._member_json(chat, user_id) for user_id in admins]

    @_method("getChatMemberCount")
    def _get_chat_member_count(self, params: Params) -> int:
        chat = self._known_chat(params)
        return len(chat.member_ids) + 1 if chat.is_group else 2

    @_method("getFile")
    def _get_file(self, params: Params) -> JSON:
        photo = self._files.get(params.text("file_id") or "")
        if photo is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": photo.file_id,
            "file_unique_id": photo.file_unique_id,
            "file_size": len(photo.data),
            "file_path": f"photos/{photo.file_id}.jpg",
        }

"""The fake Bot API as tests and simulated users use it — no HTTP (`server.FakeTelegram` puts it on a socket).

`BotApi` is the world's state (`sandbox.api_state.ApiState`) with its roles: building the world (users, groups,
topics), what the users do (called through `SimUser`), what tests read, making the server misbehave, waiting
for the world to change, and answering requests: `call(token, method, params, files)` answers one as Telegram
would (the methods: `sandbox.api_methods`), `(status, json)`, or None to hang up. Everything is guarded by one
lock, so the HTTP threads, the simulated users and the test's assertions see one consistent world; every change
wakes the `wait_*` helpers.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TypeVar

from sandbox.api_methods import answer
from sandbox.api_state import WINDOW_SECONDS, ApiState
from sandbox.records import JSON, ApiCall, Button, CallbackAnswer, Chat, Fault, FaultKind, Message
from sandbox.request_body import Upload
from sandbox.users import SimUser

T = TypeVar("T")


def _utf16_length(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


class BotApi(ApiState):
    """The state of a small Telegram world — one bot, its users and chats — and what is done with it."""

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
            opened = self._store_new(chat.id, by.id, from_bot=False)
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
                chat.id,
                user.id,
                from_bot=False,
                text=text,
                entities=entities,
                reply_to_message_id=reply_to.message_id if reply_to else None,
                thread_id=topic,
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
        return answer(self, token, method, values, files)

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

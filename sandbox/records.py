"""What the fake Bot API remembers, as plain records tests can read.

Messages and photos are frozen: the server replaces a message's record when the bot edits it, so a
`Message` a test holds is a snapshot of what the user saw at that moment (pressing a button on an old
snapshot is how a stale press is simulated). Chats are mutable settings owned by the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

JSON = dict[str, Any]


class ApiError(Exception):
    """A Bot API error answer: HTTP status, Telegram's description and its parameters: for 429 retry_after
    seconds, for a group that became a supergroup the new chat's id (PTB raises ChatMigrated)."""

    def __init__(
        self, status: int, description: str, *, retry_after: int | None = None, migrate_to_chat_id: int | None = None
    ) -> None:
        super().__init__(description)
        self.status = status
        self.description = description
        self.retry_after = retry_after
        self.migrate_to_chat_id = migrate_to_chat_id

    def to_api(self) -> JSON:
        answer: JSON = {"ok": False, "error_code": self.status, "description": self.description}
        parameters = {"retry_after": self.retry_after, "migrate_to_chat_id": self.migrate_to_chat_id}
        if any(v is not None for v in parameters.values()):
            answer["parameters"] = {k: v for k, v in parameters.items() if v is not None}
        return answer


def bad_request(detail: str) -> ApiError:
    return ApiError(400, f"Bad Request: {detail}")


def too_many_requests(retry_after: int) -> ApiError:
    return ApiError(429, f"Too Many Requests: retry after {retry_after}", retry_after=retry_after)


@dataclass(frozen=True)
class Button:
    """One inline keyboard button as the bot sent it."""

    text: str
    callback_data: str | None = None
    url: str | None = None
    web_app: str | None = None  # the Mini App's address of a web_app button


@dataclass(frozen=True)
class Photo:
    """An uploaded picture: its bytes as received, its pixel size and the file_id the server gave it."""

    file_id: str
    file_unique_id: str
    data: bytes
    width: int
    height: int

    def to_api(self) -> list[JSON]:
        return [
            {
                "file_id": self.file_id,
                "file_unique_id": self.file_unique_id,
                "width": self.width,
                "height": self.height,
                "file_size": len(self.data),
            }
        ]

    def animation_api(self) -> JSON:
        """The same upload as a Bot API Animation (a replay)."""
        return {
            "file_id": self.file_id,
            "file_unique_id": self.file_unique_id,
            "width": self.width,
            "height": self.height,
            "duration": 0,
            "file_size": len(self.data),
        }


@dataclass(frozen=True)
class Message:
    """A message in a chat as users currently see it (text is shown text: HTML tags already applied)."""

    chat_id: int
    message_id: int
    sender_id: int
    from_bot: bool
    date: int
    text: str | None = None
    caption: str | None = None
    # The text or caption as the bot wrote it, before parse_mode: formatting-only edits still count as edits.
    source: str | None = None
    photo: Photo | None = None  # a picture, or the animation when ``animated``
    animated: bool = False
    reply_markup: JSON | None = None
    entities: tuple[JSON, ...] = ()
    reply_to_message_id: int | None = None
    thread_id: int | None = None  # the forum topic it is in (message_thread_id); None: General, or no topics
    edit_date: int | None = None
    edits: int = 0
    deleted: bool = False

    @property
    def content(self) -> str:
        """The text or the caption, whichever the message has ('' for neither)."""
        return self.text if self.text is not None else (self.caption or "")

    @property
    def keyboard(self) -> list[list[Button]]:
        """The inline keyboard row by row ([] when the message has none)."""
        rows = (self.reply_markup or {}).get("inline_keyboard", [])
        return [
            [Button(b["text"], b.get("callback_data"), b.get("url"), (b.get("web_app") or {}).get("url")) for b in row]
            for row in rows
        ]

    @property
    def buttons(self) -> list[Button]:
        return [button for row in self.keyboard for button in row]

    def button(self, label: str) -> Button:
        """The button whose text or callback_data is `label`; LookupError naming the buttons there are."""
        for button in self.buttons:
            if label in (button.text, button.callback_data):
                return button
        shown = ", ".join(repr(b.text) for b in self.buttons) or "none"
        raise LookupError(f"no button {label!r} on message {self.message_id} in chat {self.chat_id} (buttons: {shown})")


@dataclass
class Chat:
    """A chat the server knows. Private chats have the user's id; groups have negative ids. A forum supergroup
    has topics (thread id -> name), some perhaps closed; a group upgraded to a supergroup names it in `migrated_to`."""

    id: int
    type: str
    title: str | None = None
    first_name: str | None = None
    username: str | None = None
    owner_id: int | None = None
    admin_ids: set[int] = field(default_factory=set)
    member_ids: set[int] = field(default_factory=set)
    bot_is_admin: bool = False
    is_forum: bool = False
    topics: dict[int, str] = field(default_factory=dict)
    closed_topics: set[int] = field(default_factory=set)  # closed: new messages there are refused
    migrated_to: int | None = None

    @property
    def is_group(self) -> bool:
        return self.type in ("group", "supergroup")

    def to_api(self) -> JSON:
        if self.is_group:
            forum: JSON = {"is_forum": True} if self.is_forum else {}
            return {"id": self.id, "type": self.type, "title": self.title, **forum}
        chat: JSON = {"id": self.id, "type": self.type, "first_name": self.first_name}
        if self.username:
            chat["username"] = self.username
        return chat


@dataclass(frozen=True)
class ApiCall:
    """One request the bot made: when it was answered (server clock), to which chat, its parameters, the answer.

    `params` are as sent: PTB posts form fields, so numbers arrive as strings and markups as JSON text."""

    method: str
    chat_id: int | None
    params: JSON
    files: dict[str, int]
    at: float
    status: int
    description: str | None = None

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True)
class CallbackAnswer:
    """The bot's answerCallbackQuery for one press."""

    text: str | None
    show_alert: bool
    url: str | None


class FaultKind(Enum):
    """What the server does instead of answering: flood control, an internal error, or hanging up."""

    RETRY_AFTER = 429
    SERVER_ERROR = 500
    DROP_CONNECTION = 0


@dataclass
class Fault:
    kind: FaultKind
    method: str
    chat_id: int | None
    remaining: int
    retry_after: int

    def matches(self, method: str, chat_id: int | None) -> bool:
        return self.remaining > 0 and self.method == method and self.chat_id in (None, chat_id)

"""Simulated Telegram users: they write in chats, press START or deep links, press inline buttons.

A `SimUser` comes from `FakeTelegram.add_user`; every action becomes the update the real Telegram
would send the bot (or none, when Telegram would not deliver it — see privacy mode in `BotApi`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol
from urllib.parse import parse_qs, urlparse

from sandbox.api_limits import DEEP_LINK_PAYLOAD
from sandbox.records import JSON, Button, Chat, Message


class World(Protocol):
    """What a user acts on: `BotApi` (named by this protocol so that the two modules do not import each other)."""

    bot_username: str

    def post_user_message(
        self, user: SimUser, chat_id: int, text: str, reply_to: Message | None, topic: int | None = None
    ) -> Message: ...

    def start_private_chat(self, user: SimUser, payload: str | None) -> Message: ...

    def press_button(self, user: SimUser, shown: Message, button: Button) -> str: ...

    def block_bot(self, user: SimUser) -> None: ...

    def messages(
        self, chat_id: int, *, from_bot: bool | None = True, include_deleted: bool = False
    ) -> list[Message]: ...

    def wait_for_message(
        self,
        chat_id: int,
        where: Callable[[Message], bool] | None = None,
        *,
        from_bot: bool | None = True,
        timeout: float = 5.0,
    ) -> Message: ...


class SimUser:
    """A person using Telegram. `started`: pressed START in the bot's private chat; `blocked`: blocked the bot."""

    def __init__(
        self, api: World, user_id: int, first_name: str, username: str | None, language_code: str, *, started: bool
    ) -> None:
        self._api = api
        self.id = user_id
        self.first_name = first_name
        self.username = username
        self.language_code = language_code
        self.started = started
        self.blocked = False

    def __repr__(self) -> str:
        return f"SimUser({self.first_name!r}, id={self.id})"

    def to_api(self) -> JSON:
        user: JSON = {"id": self.id, "is_bot": False, "first_name": self.first_name}
        user["language_code"] = self.language_code
        if self.username:
            user["username"] = self.username
        return user

    def say(self, chat: Chat | int, text: str, *, reply_to: Message | None = None, topic: int | None = None) -> Message:
        """Sends `text` to a group (in its forum topic `topic`) or to the bot privately (`chat=user.id`);
        commands get their entity."""
        chat_id = chat.id if isinstance(chat, Chat) else chat
        return self._api.post_user_message(self, chat_id, text, reply_to, topic)

    def start(self, payload: str | None = None) -> Message:
        """Presses START in the private chat (the bot receives `/start` or `/start <payload>`)."""
        return self._api.start_private_chat(self, payload)

    def open_link(self, url: str) -> Message:
        """Opens a `https://t.me/<bot>?start=<payload>` link: as Telegram clients do, that starts the bot."""
        link = urlparse(url)
        if link.netloc not in ("t.me", "telegram.me") or link.path.strip("/").lower() != self._api.bot_username.lower():
            raise ValueError(f"{url!r} is not a link to @{self._api.bot_username}")
        payload = parse_qs(link.query).get("start", [None])[0]
        if payload is not None and not DEEP_LINK_PAYLOAD.fullmatch(payload):
            raise ValueError(f"start parameter {payload!r} is not [A-Za-z0-9_-]{{1,64}}: Telegram clients drop it")
        return self.start(payload)

    def press(self, message: Message, label: str) -> str:
        """Presses the callback button labelled (or carrying data) `label` on `message` as this user saw it.

        Returns the callback query id, for `callback_answer`. A URL button is followed with `open_link`."""
        button = message.button(label)
        if button.callback_data is None:
            raise ValueError(f"button {button.text!r} is not a callback button (url={button.url!r})")
        return self._api.press_button(self, message, button)

    def block_bot(self) -> None:
        """Blocks the bot: its sends to this user now answer 403 until the user presses START again."""
        self._api.block_bot(self)

    def private_messages(self) -> list[Message]:
        """The bot's messages in this user's private chat, oldest first."""
        return self._api.messages(self.id)

    def wait_for_private_message(
        self, where: Callable[[Message], bool] | None = None, *, timeout: float = 5.0
    ) -> Message:
        """The newest private message from the bot matching `where`, waiting for it if need be."""
        return self._api.wait_for_message(self.id, where, timeout=timeout)

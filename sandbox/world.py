"""The sandbox's people and chats: what a browser tab is in the local Telegram world of `BotApi`.

Everyone who opens the page picks a name and a language and becomes a user of the world, their private chat with
the bot started (they pressed START). Everyone is a member of two shared groups: a club (one table for four
friends) and a forum group whose topics each hold a table; the first person to come is their owner (their
creator, as Telegram's getChatMember says: an admin who may change their /settings and run a league). "Play
against the bot" gives its player a group of their own, opens a table there and starts it at once: the three
empty seats get automatic players; the group takes its maker's language from the bot, as a group made for a
game does (no /settings). One table a person: someone seated already is sent back to their table instead.

    world = World(api)
    alice = world.join("Alice", "en")          # a Person: alice.key identifies her browser tab
    world.play_against_bot(alice)              # (her own group's id, None); /newgame and Start follow in a thread
                                               # or (None, the group she sits in): nothing is made
    world.view(alice)                          # what her Telegram would show: her chats and their messages
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from sandbox.bot_api import BotApi
from sandbox.records import JSON, Button, Chat, Message, Photo
from sandbox.users import SimUser

LANGUAGE_CODES = {"zh": "zh-hans", "en": "en"}  # the page's choice -> the Telegram client's language_code
MAX_NAME = 32
SHOWN_MESSAGES = 120  # the newest messages of a chat the page shows (a long match has hundreds)
OPEN_TIMEOUT = 60.0  # how long "Play against the bot" waits for the lobby (Telegram pacing included)


class SandboxError(ValueError):
    """A request the sandbox refuses: the message says why."""


@dataclass
class Person:
    """Someone at the page: their Telegram user, the secret their tab sends, the groups they see."""

    key: str
    user: SimUser
    lang: str
    own_groups: list[int] = field(default_factory=list)


class World:
    """The people and the shared groups of one sandbox, over one `BotApi`."""

    def __init__(self, api: BotApi) -> None:
        self.api = api
        self.club = api.add_group("麻将俱乐部 · Mahjong club")
        self.forum = api.add_group("麻将论坛 · Mahjong forum", forum=True)
        self._people: dict[str, Person] = {}
        self._lock = threading.Lock()
        # The group where a user sits at a table, as the bot knows it (``ask_seats``; with no bot to ask: nowhere).
        self._seated_at: Callable[[int], int | None] = lambda user_id: None

    def ask_seats(self, seated_at: Callable[[int], int | None]) -> None:
        """Where a user sits is asked of ``seated_at`` from now on: the bot's answer (bot.local_sandbox.follow_seats),
        once the bot runs (the world is built before it)."""
        self._seated_at = seated_at

    def join(self, name: str, lang: str) -> Person:
        """A new person: a user who pressed START in the bot's private chat, a member of the shared groups."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_NAME:
            raise SandboxError(f"a name is 1 to {MAX_NAME} characters")
        if lang not in LANGUAGE_CODES:
            raise SandboxError(f"the language is one of {', '.join(LANGUAGE_CODES)}")
        user = self.api.add_user(name, language_code=LANGUAGE_CODES[lang], started=False)
        person = Person(secrets.token_urlsafe(18), user, lang)
        with self._lock:
            for group in (self.club, self.forum):
                if group.owner_id is None:  # the first to come made it
                    group.owner_id = user.id
                self.api.add_member(group, user)
            self._people[person.key] = person
        user.start()
        return person

    def person(self, key: str) -> Person | None:
        with self._lock:
            return self._people.get(key)

    def play_against_bot(self, person: Person) -> tuple[int | None, int | None]:
        """(a group of the person's own, None): a table started there against three automatic players, its id at
        once, the table a few seconds later (/newgame, Start: paced as in Telegram); or (None, the group they
        sit in) when they play already (one table a person): nothing is made, the way back is that group."""
        try:
            seated = self._seated_at(person.user.id)
        except TimeoutError as e:  # the bot is too busy to say now
            raise SandboxError("the bot did not answer: try again") from e
        if seated is not None and seated in self._chat_ids(person):
            return None, seated
        title = f"{person.user.first_name} · {'对局' if person.lang == 'zh' else 'table'}"
        group = self.api.add_group(title, members=[person.user], owner=person.user)
        person.own_groups.append(group.id)
        threading.Thread(target=self._open_table, args=(person, group), daemon=True).start()
        return group.id, None

    def _open_table(self, person: Person, group: Chat) -> None:
        """What the person would do by hand: /newgame (the group, theirs, takes their language), Start."""
        user = person.user
        user.say(group, "/newgame")
        try:
            lobby = self.api.wait_for_message(group.id, _has_start_button, timeout=OPEN_TIMEOUT)
        except TimeoutError:  # the bot never answered: the group shows that, and the person can go on by hand
            return
        user.press(lobby, next(b.callback_data for b in lobby.buttons if b.callback_data))

    def new_topic(self, person: Person, name: str) -> int:
        """A topic opened by the person in the forum group: its message_thread_id."""
        name = " ".join(name.split())
        if not 1 <= len(name) <= 128:
            raise SandboxError("a topic's name is 1 to 128 characters")
        return self.api.create_topic(self.forum, name, by=person.user)

    def chat_of(self, person: Person, chat_id: int) -> Chat:
        """A chat the person sees (their private chat or one of their groups); SandboxError otherwise."""
        if chat_id not in self._chat_ids(person):
            raise SandboxError("not a chat of yours")
        return self.api.chat(chat_id)

    def photo(self, person: Person, file_id: str) -> Photo | None:
        """A picture shown in one of the person's chats (pictures are as private as the chats they are in)."""
        for chat_id in self._chat_ids(person):
            for message in self.api.messages(chat_id, from_bot=None):
                if message.photo is not None and message.photo.file_id == file_id:
                    return message.photo
        return None

    def _chat_ids(self, person: Person) -> list[int]:
        return [person.user.id, self.club.id, self.forum.id, *person.own_groups]

    def view(self, person: Person) -> JSON:
        """What the person's Telegram shows now: their chats with their messages, the bot's command menu."""
        commands = self.api.my_commands(language_code=person.lang) or self.api.my_commands()
        return {
            "version": self.api.version,
            "me": {"id": person.user.id, "name": person.user.first_name, "lang": person.lang},
            "bot": {"name": self.api.bot_name, "username": self.api.bot_username},
            "commands": commands,
            "chats": [self._chat_view(person, self.api.chat(chat_id)) for chat_id in self._chat_ids(person)],
        }

    def _chat_view(self, person: Person, chat: Chat) -> JSON:
        messages = self.api.messages(chat.id, from_bot=None)[-SHOWN_MESSAGES:]
        by_id = {m.message_id: m for m in messages}
        return {
            "id": chat.id,
            "type": chat.type,
            "title": chat.title if chat.is_group else self.api.bot_name,
            "owner": self.api.user_name(chat.owner_id) if chat.is_group and chat.owner_id else None,
            "topics": [{"id": topic, "name": name} for topic, name in chat.topics.items()] if chat.is_forum else None,
            "messages": [self._message_view(person, m, by_id, chat.owner_id) for m in messages if m.content or m.photo],
        }

    def _message_view(self, person: Person, message: Message, by_id: dict[int, Message], owner: int | None) -> JSON:
        replied = by_id.get(message.reply_to_message_id or 0)
        photo = message.photo
        return {
            "id": message.message_id,
            "from": self.api.bot_name if message.from_bot else self.api.user_name(message.sender_id),
            "mine": message.sender_id == person.user.id,
            "owner": not message.from_bot and message.sender_id == owner,  # Telegram marks the owner's messages
            "text": _shown_text(message),
            "photo": f"/api/photo/{photo.file_id}?key={person.key}" if photo else None,  # <img src> sends no header
            "size": [photo.width, photo.height] if photo else None,
            "keyboard": [[_button_view(b) for b in row] for row in message.keyboard],
            "reply": {"id": replied.message_id, "text": replied.content[:80]} if replied else None,
            "topic": message.thread_id,
            "edits": message.edits,
            "date": message.date,
        }


def _shown_text(message: Message) -> str:
    """The text as the person's Telegram shows it: a deep link's START is "/start", its payload unseen (only
    the bot receives it)."""
    text = message.content
    private = message.chat_id == message.sender_id
    return "/start" if private and text.startswith("/start ") else text


def _has_start_button(message: Message) -> bool:
    return any(b.url for b in message.buttons) and any(b.callback_data for b in message.buttons)


def _button_view(button: Button) -> JSON:
    if button.callback_data is not None:
        return {"text": button.text, "data": button.callback_data}
    if button.web_app is not None:
        return {"text": button.text, "web_app": button.web_app}
    return {"text": button.text, "url": button.url}

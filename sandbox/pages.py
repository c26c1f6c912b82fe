"""The sandbox's web page and the small JSON API it calls, served beside the Bot API (sandbox.server).

    GET  /                      the page (sandbox/static/index.html, with app.js and style.css)
    POST /api/join              {"name", "lang"} -> {"key"}: a new person (the key goes in X-Sandbox-Key)
    GET  /api/state?since=N     what the person's Telegram shows, once the world changed after version N
    POST /api/say               {"chat", "text", "topic"?, "reply_to"?}: a message from the person
    POST /api/press             {"chat", "message", "data"} -> {"answer": {"text", "alert"} | null}: the data of
                                a button as the page drew it, whatever the message shows now (a Telegram client
                                sends the button it shows: a quick tap after an edit is still a press)
    POST /api/link              {"url"}: a t.me link to the bot opened (a deep link starts the private chat)
    POST /api/play              -> {"chat"}: "Play against the bot"; {"seated": chat} instead when the person
                                sits at a table already (nothing is made: the page offers the way back)
    POST /api/topic             {"name"} -> {"chat", "topic"}: a new topic in the forum group
    POST /api/webapp            {"url"} -> {"url"}: a web_app button opened: its address with the person's
                                initData signed as Telegram signs it (sandbox.web_apps)
    GET  /api/photo/<file_id>?key=K   a picture the bot sent in one of the person's chats (the view gives its
                                address; an <img> sends no header, so the key comes in the query)

Bad requests answer 400 with {"error": "..."}; a request without a known key answers 401 (the page asks for a
name again); a picture of someone else's chats answers 404, as one that does not exist. A body is at most
MAX_BODY bytes (sandbox.server refuses a longer one from its Content-Length).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from sandbox.api_limits import MAX_CALLBACK_DATA_BYTES
from sandbox.records import JSON, ApiError, Button
from sandbox.web_apps import launch_url
from sandbox.world import Person, SandboxError, World

# (status, body, content type, Cache-Control)
Answer = tuple[int, bytes, str, str]
STATIC = {"index.html": "text/html", "app.js": "text/javascript", "style.css": "text/css"}
LONG_POLL_SECONDS = 20.0
ANSWER_WAIT_SECONDS = 15.0  # Telegram shows a pressed button's spinner until the bot answers, at most this long
IMMUTABLE = "private, max-age=31536000, immutable"  # a file_id names one picture forever; the person's own
MAX_BODY = 64 * 1024  # bytes of a request's body: the biggest is a message of 4,096 characters


def _json(status: int, value: JSON) -> Answer:
    return status, json.dumps(value, ensure_ascii=False).encode(), "application/json", "no-store"


def _image_type(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    return "image/gif" if data.startswith(b"GIF8") else "image/jpeg"


class Pages:
    """Answers the page's requests; `answer` returns None for a path that is not the page's (the Bot API's)."""

    def __init__(self, world: World) -> None:
        self.world = world
        self._posts: dict[str, Callable[[Person, JSON], JSON]] = {
            "/api/say": self._say,
            "/api/press": self._press,
            "/api/link": self._link,
            "/api/play": self._play,
            "/api/topic": self._topic,
            "/api/webapp": self._web_app,
        }

    def answer(self, method: str, path: str, query: str, body: bytes, key: str) -> Answer | None:
        """`key`: the X-Sandbox-Key header, the person's."""
        if path.startswith(("/bot", "/file/")):
            return None
        if method == "GET" and (path == "/" or path.removeprefix("/static/") in STATIC):
            name = "index.html" if path == "/" else path.removeprefix("/static/")
            content = resources.files("sandbox").joinpath("static", name).read_bytes()
            return 200, content, f"{STATIC[name]}; charset=utf-8", "no-cache"
        if method == "GET" and path.startswith("/api/photo/"):
            person = self.world.person(key or parse_qs(query).get("key", [""])[0])
            if person is None:
                return _json(401, {"error": "who are you?"})
            photo = self.world.photo(person, path.removeprefix("/api/photo/"))
            return (200, photo.data, _image_type(photo.data), IMMUTABLE) if photo else _json(404, {"error": "no photo"})
        try:
            return self._api(method, path, query, body, key)
        except (SandboxError, ValueError, LookupError) as error:
            return _json(400, {"error": str(error)})
        except ApiError as error:
            return _json(400, {"error": error.description})

    def _api(self, method: str, path: str, query: str, body: bytes, key: str) -> Answer:
        if method == "POST" and path == "/api/join":
            fields = _fields(body)
            joined = self.world.join(str(fields.get("name", "")), str(fields.get("lang", "")))
            return _json(200, {"key": joined.key})
        person = self.world.person(key)
        if path == "/api/state" and method == "GET":
            if person is None:
                return _json(401, {"error": "who are you?"})
            since = int(parse_qs(query).get("since", ["-1"])[0])
            self.world.api.wait_for_change(since, timeout=LONG_POLL_SECONDS)
            return _json(200, self.world.view(person))
        handler = self._posts.get(path) if method == "POST" else None
        if handler is None:
            return _json(404, {"error": "not found"})
        if person is None:
            return _json(401, {"error": "who are you?"})
        return _json(200, handler(person, _fields(body)))

    def _say(self, person: Person, fields: JSON) -> JSON:
        chat = self.world.chat_of(person, int(fields["chat"]))
        text = str(fields.get("text", "")).strip()
        if not text:
            raise SandboxError("nothing to send")
        topic = _optional_int(fields.get("topic"))
        reply_id = _optional_int(fields.get("reply_to"))
        reply_to = self.world.api.message(chat.id, reply_id) if reply_id is not None else None
        sent = person.user.say(chat, text[:4096], reply_to=reply_to, topic=topic)
        return {"message": sent.message_id}

    def _press(self, person: Person, fields: JSON) -> JSON:
        chat = self.world.chat_of(person, int(fields["chat"]))
        shown = self.world.api.message(chat.id, int(fields["message"]))
        data = str(fields.get("data", ""))
        if not 1 <= len(data.encode()) <= MAX_CALLBACK_DATA_BYTES:
            raise SandboxError("not a button's data")
        query = self.world.api.press_button(person.user, shown, Button("", callback_data=data))
        try:
            answer = self.world.api.wait_for_callback_answer(query, timeout=ANSWER_WAIT_SECONDS)
        except TimeoutError:
            return {"answer": None}
        return {"answer": {"text": answer.text, "alert": answer.show_alert}}

    def _link(self, person: Person, fields: JSON) -> JSON:
        person.user.open_link(str(fields.get("url", "")))
        return {"chat": person.user.id}

    def _play(self, person: Person, fields: JSON) -> JSON:
        made, seated = self.world.play_against_bot(person)
        return {"chat": made} if seated is None else {"seated": seated}

    def _topic(self, person: Person, fields: JSON) -> JSON:
        topic = self.world.new_topic(person, str(fields.get("name", "")))
        return {"chat": self.world.forum.id, "topic": topic}

    def _web_app(self, person: Person, fields: JSON) -> JSON:
        url = str(fields.get("url", ""))
        if not url.startswith(("https://", "http://")):
            raise SandboxError("not a Mini App's address")
        return {"url": launch_url(url, person.user, self.world.api.token)}


def _fields(body: bytes) -> JSON:
    try:
        value: Any = json.loads(body or b"{}")
    except ValueError as error:
        raise SandboxError("the body is not JSON") from error
    if not isinstance(value, dict):
        raise SandboxError("the body is not a JSON object")
    return value


def _optional_int(value: Any) -> int | None:
    return None if value in (None, "") else int(value)

"""Telegram's limits and formatting rules, checked the way the real Bot API rejects a request.

Each check raises `ApiError` (400 Bad Request, Telegram's wording where it is known) and returns the
cleaned value otherwise. HTML (`parse_mode="HTML"`) is parsed like Telegram does — only its supported
tags, properly nested — and lengths are counted on the text users see, after the tags are removed.
Markdown is not parsed: its text counts as written.
"""

from __future__ import annotations

import io
import re
from html.parser import HTMLParser
from typing import Any

from PIL import Image, UnidentifiedImageError

from sandbox.records import JSON, bad_request

MAX_TEXT = 4096
MAX_CAPTION = 1024
MAX_CALLBACK_DATA_BYTES = 64
MAX_CALLBACK_ANSWER = 200
MAX_PHOTO_BYTES = 10 * 1024 * 1024
# A request's body: the biggest a bot sends is one photo with its caption and keyboard (multipart); a bigger body
# is refused from its Content-Length, before it is read.
MAX_REQUEST_BYTES = MAX_PHOTO_BYTES + 1024 * 1024
MAX_PHOTO_SIDES = 10000
MAX_PHOTO_RATIO = 20
MAX_BUTTONS = 100
MAX_BUTTONS_PER_ROW = 8
MAX_COMMANDS = 100
# The button kinds a bot may send in an inline keyboard; exactly one per button.
BUTTON_ACTIONS = (
    "callback_data",
    "url",
    "login_url",
    "switch_inline_query",
    "switch_inline_query_current_chat",
    "switch_inline_query_chosen_chat",
    "copy_text",
    "web_app",
    "callback_game",
    "pay",
)
HTML_TAGS = frozenset(
    {
        "b",
        "strong",
        "i",
        "em",
        "u",
        "ins",
        "s",
        "strike",
        "del",
        "span",
        "tg-spoiler",
        "a",
        "tg-emoji",
        "code",
        "pre",
        "blockquote",
    }
)
COMMAND_NAME = re.compile(r"[a-z0-9_]{1,32}")
DEEP_LINK_PAYLOAD = re.compile(r"[A-Za-z0-9_-]{1,64}")


class _TelegramHtml(HTMLParser):
    """Collects the visible text of Telegram HTML and rejects what Telegram would not parse."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.visible: list[str] = []
        self.open_tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in HTML_TAGS:
            raise bad_request(f'can\'t parse entities: Unsupported start tag "{tag}"')
        self.open_tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if not self.open_tags or self.open_tags[-1] != tag:
            raise bad_request(f'can\'t parse entities: Unmatched end tag "{tag}"')
        self.open_tags.pop()

    def handle_data(self, data: str) -> None:
        self.visible.append(data)


def visible_text(raw: str, parse_mode: str | None) -> str:
    """The text users see for `raw` sent with `parse_mode` (HTML checked and stripped)."""
    if (parse_mode or "").upper() != "HTML":
        return raw
    parser = _TelegramHtml()
    parser.feed(raw)
    parser.close()
    if parser.open_tags:
        unclosed = parser.open_tags[-1]
        raise bad_request(f"can't parse entities: Can't find end tag corresponding to start tag \"{unclosed}\"")
    return "".join(parser.visible)


def message_text(raw: Any, parse_mode: str | None) -> str:
    """A sendMessage/editMessageText text: non-empty and at most 4096 characters once formatted."""
    text = visible_text(str(raw or ""), parse_mode)
    if not text.strip():
        raise bad_request("message text is empty")
    if len(text) > MAX_TEXT:
        raise bad_request("message is too long")
    return text


def caption(raw: Any, parse_mode: str | None) -> str | None:
    """A photo caption (None when absent): at most 1024 characters once formatted."""
    if raw is None or raw == "":
        return None
    text = visible_text(str(raw), parse_mode)
    if len(text) > MAX_CAPTION:
        raise bad_request("message caption is too long")
    return text


def reply_markup(markup: Any, *, private: bool = True) -> JSON | None:
    """The inline keyboard the message will show, checked; None for none (reply keyboards are not shown on it).
    A ``web_app`` button is refused outside private chats, as Telegram refuses it."""
    if markup is None:
        return None
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    if "inline_keyboard" not in markup:
        return None
    rows = markup["inline_keyboard"]
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise bad_request('field "inline_keyboard" of the InlineKeyboardMarkup must be an Array of Arrays')
    if sum(len(row) for row in rows) > MAX_BUTTONS or any(len(row) > MAX_BUTTONS_PER_ROW for row in rows):
        raise bad_request("reply markup is too long")
    keyboard = [[_button(button) for button in row] for row in rows]
    if not private and any("web_app" in button for row in keyboard for button in row):
        raise bad_request("BUTTON_TYPE_INVALID")
    return {"inline_keyboard": keyboard}


def _button(button: Any) -> JSON:
    if not isinstance(button, dict) or not str(button.get("text", "")).strip():
        raise bad_request("BUTTON_TEXT_INVALID")
    actions = [name for name in BUTTON_ACTIONS if button.get(name) is not None]
    if len(actions) != 1:
        raise bad_request("BUTTON_TYPE_INVALID")
    data = button.get("callback_data")
    if data is not None and not 1 <= len(str(data).encode()) <= MAX_CALLBACK_DATA_BYTES:
        raise bad_request("BUTTON_DATA_INVALID")
    url = button.get("url")
    if url is not None and not re.match(r"(https?|tg)://\S+$", str(url)):
        raise bad_request("BUTTON_URL_INVALID")
    return {key: value for key, value in button.items() if value is not None}


def photo_size(data: bytes) -> tuple[int, int]:
    """The width and height of an uploaded photo after Telegram's size checks."""
    if not data:
        raise bad_request("file must be non-empty")
    if len(data) > MAX_PHOTO_BYTES:
        raise bad_request("PHOTO_INVALID: photo must be at most 10 MB")
    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError) as error:
        raise bad_request("IMAGE_PROCESS_FAILED") from error
    if width + height > MAX_PHOTO_SIDES or max(width, height) > MAX_PHOTO_RATIO * min(width, height):
        raise bad_request("PHOTO_INVALID_DIMENSIONS")
    return width, height


def callback_answer_text(text: Any) -> str | None:
    if text is None or text == "":
        return None
    if len(str(text)) > MAX_CALLBACK_ANSWER:
        raise bad_request("MESSAGE_TOO_LONG")
    return str(text)


def bot_commands(commands: Any) -> list[JSON]:
    """A setMyCommands list: at most 100 commands, names [a-z0-9_]{1,32}, descriptions 1-256 characters."""
    if not isinstance(commands, list) or len(commands) > MAX_COMMANDS:
        raise bad_request("commands must be an Array of at most 100 BotCommand")
    checked = []
    for command in commands:
        if not isinstance(command, dict) or not COMMAND_NAME.fullmatch(str(command.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", "")).strip()) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        checked.append({"command": command["command"], "description": command["description"]})
    return checked

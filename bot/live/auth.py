"""Who opens the Mini App, and at which table: Telegram's signed ``initData`` and the bot's signed table tokens.

``initData`` is checked exactly as Telegram's Mini App documentation says ("Validating data received via the
Mini App"): ``secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)``; the data-check-string is every
received field but ``hash``, as ``key=value`` (values URL-decoded), sorted by key and joined by ``\\n``; its
HMAC-SHA256 under ``secret_key``, in hex, must equal ``hash``. An ``auth_date`` older than ``MAX_AGE`` is refused
(a copied link cannot be used for ever).

A table token names a table (its ``TableKey``) behind a MAC made with a key derived from the bot's token: it
cannot be forged or guessed, carries no seed, and fits a ``startapp`` parameter (A-Z a-z 0-9 _ -).

>>> from sandbox.web_apps import sign      # the sandbox signs as Telegram does
>>> init = sign({"user": '{"id":7,"first_name":"Ann"}', "auth_date": "1000"}, "1:abc")
>>> check_init_data(init, "1:abc", now=1000.0).user_id
7
>>> token = table_token(TableKey(-100123, 42), "1:abc")
>>> table_of(token, "1:abc")
TableKey(chat_id=-100123, thread_id=42)
>>> table_of("A" + token[1:], "1:abc") is None
True
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final
from urllib.parse import parse_qsl

from bot.table.key import TableKey

MAX_AGE: Final = 24 * 3600.0  # seconds an initData stays good after Telegram made it
_MAC_CHARS: Final = 16  # base64url characters of a table token's MAC (96 bits)


class InitDataError(ValueError):
    """initData that does not prove who sent it: unsigned, forged, too old or malformed."""


@dataclass(frozen=True)
class WebAppUser:
    """The person ``initData`` proves, and what else Telegram signed with it."""

    user_id: int
    first_name: str
    language_code: str | None
    start_param: str | None  # the ``startapp`` parameter of a t.me link: a table token


def _secret_key(bot_token: str) -> bytes:
    return hmac.new(b"WebAppData", bot_token.encode(), hashlib.sha256).digest()


def _check_string(fields: Mapping[str, str]) -> str:
    return "\n".join(f"{key}={fields[key]}" for key in sorted(fields) if key != "hash")


def check_init_data(init_data: str, bot_token: str, now: float, max_age: float = MAX_AGE) -> WebAppUser:
    """The person a genuine, fresh ``init_data`` names; InitDataError otherwise."""
    try:
        pairs = parse_qsl(init_data, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise InitDataError("initData is not a query string") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise InitDataError("a field is given twice")
    received = fields.get("hash", "")
    expected = hmac.new(_secret_key(bot_token), _check_string(fields).encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(received.encode(), expected.encode()):
        raise InitDataError("the hash does not match")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, ValueError, TypeError):
        raise InitDataError("no auth_date or user") from None
    if not now - max_age <= auth_date <= now + 300:
        raise InitDataError("auth_date is too old")
    language = user.get("language_code")
    language = language if isinstance(language, str) else None
    return WebAppUser(user_id, str(user.get("first_name", "")), language, fields.get("start_param"))


def _mac(key: TableKey, bot_token: str) -> str:
    secret = hmac.new(bot_token.encode(), b"mahjong live table", hashlib.sha256).digest()
    digest = hmac.new(secret, key.token.encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).decode()[:_MAC_CHARS]


def table_token(key: TableKey, bot_token: str) -> str:
    """The token naming ``key`` in Mini App links: its MAC, then the key's own token."""
    return _mac(key, bot_token) + key.token


def table_of(token: str, bot_token: str) -> TableKey | None:
    """The table a genuine token names; None for anything else."""
    mac, rest = token[:_MAC_CHARS], token[_MAC_CHARS:]
    try:
        key = TableKey.parse(rest)
    except ValueError:
        return None
    return key if hmac.compare_digest(mac.encode(), _mac(key, bot_token).encode()) else None

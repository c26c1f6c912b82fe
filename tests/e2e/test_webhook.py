"""Webhook mode with a configured secret, against the real bot process and the loopback Bot API: the URL and the
secret are registered and updates are taken only with the secret; a retry of an update Telegram already
posted is handled once; a huge body and half-sent requests hold nothing. (Without a configured secret:
tests/e2e/test_hardening.)

The module's tests share one bot process in webhook mode (a module fixture), each with its own person.
"""

from __future__ import annotations

import socket
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from bot.i18n import t
from bot.listeners import WEBHOOK
from sandbox import FakeTelegram
from tests.e2e.players import BotProcess, SharedBot, post_update, private_command, webhook_address

SECRET = "s3cret-token"


@dataclass
class Hooked:
    shared: SharedBot
    url: str  # where the bot listens for Telegram's posts


@pytest.fixture(scope="module")
def hooked_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Hooked]:
    url, listen = webhook_address()
    env = {"MAHJONG_WEBHOOK_URL": url, "MAHJONG_WEBHOOK_LISTEN": listen, "MAHJONG_WEBHOOK_SECRET": SECRET}
    with FakeTelegram() as tg:
        db = tmp_path_factory.mktemp("webhook") / "db.sqlite3"
        with BotProcess(tg, db, **env) as bot:
            yield Hooked(SharedBot(tg, bot, db), url)


@pytest.fixture
def hooked(hooked_bot: Hooked) -> Hooked:
    hooked_bot.shared.begin()
    return hooked_bot


def test_webhook_mode_registers_the_url_and_takes_updates_with_the_secret(hooked: Hooked) -> None:
    tg, url = hooked.shared.tg, hooked.url
    emma = tg.add_user("Emma", language_code="en")
    registered = tg.wait_until(lambda: tg.calls("setWebhook"), timeout=15, what="setWebhook")[-1]
    assert registered.params["url"] == url and registered.params["secret_token"] == SECRET
    update = private_command(emma, "/rank")
    assert post_update(url, update, "wrong", wait=10) == 403
    assert post_update(url, update, SECRET) == 200
    answer = emma.wait_for_private_message(lambda m: "Titles" in (m.text or ""), timeout=10)
    assert "Undergraduate" in (answer.text or "")
    assert tg.calls("getUpdates") == []  # no polling beside the webhook


def test_a_webhook_retry_is_handled_once(hooked: Hooked) -> None:
    """Telegram posts an update again when the webhook answered late: "/lang en", then "/lang zh", then the first
    one posted again (its id unchanged) leaves the language at zh."""
    tg, url, bot = hooked.shared.tg, hooked.url, hooked.shared.bot
    emma = tg.add_user("Emma", language_code="en")
    tg.wait_until(lambda: tg.calls("setWebhook"), timeout=15, what="setWebhook")
    english = private_command(emma, "/lang en") | {"update_id": 501}
    chinese = private_command(emma, "/lang zh") | {"update_id": 502}
    assert post_update(url, english, SECRET, wait=10) == 200
    emma.wait_for_private_message(lambda m: m.text == t("lang_set", "en"), timeout=10)
    assert post_update(url, chinese, SECRET) == 200
    emma.wait_for_private_message(lambda m: m.text == t("lang_set", "zh"), timeout=10)
    assert post_update(url, english, SECRET) == 200  # the retry
    bot.wait_for_log("501 was sent again", timeout=10)  # the retry skipped
    with sqlite3.connect(hooked.shared.db) as conn:
        assert conn.execute("SELECT language FROM players WHERE id = ?", (emma.id,)).fetchone()[0] == "zh"
    assert [m.text for m in emma.private_messages()].count(t("lang_set", "en")) == 1


def _rss(pid: int) -> int:
    """The process's resident memory, in bytes."""
    status = Path(f"/proc/{pid}/status").read_text()
    return int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) * 1024


def _connect(url: str, head: bytes) -> socket.socket:
    parts = urlsplit(url)
    sock = socket.create_connection((parts.hostname or "", parts.port or 0))
    sock.sendall(head)
    sock.settimeout(30)
    return sock


def test_a_100_mb_body_is_refused_from_its_headers_without_the_process_growing(hooked: Hooked) -> None:
    """Refused (400) and closed as soon as the headers say 100 MB, before the body: sending it fails early, and
    the bot's memory stays as it was (the listener took 85 MB to 809 MB with four such posts before)."""
    tg, url, bot = hooked.shared.tg, hooked.url, hooked.shared.bot
    tg.wait_until(lambda: tg.calls("setWebhook"), timeout=15, what="setWebhook")
    assert post_update(url, {}, "wrong", wait=10) == 403  # listening
    assert bot.proc is not None
    before, size = _rss(bot.proc.pid), 100 * 1024 * 1024
    head = f"POST {urlsplit(url).path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    with _connect(url, f"{head}Content-Length: {size}\r\n\r\n".encode()) as sock:
        assert sock.recv(100).startswith(b"HTTP/1.1 400")  # before any of the body
        sent, chunk = 0, b"[" * (1024 * 1024)
        with pytest.raises(OSError):  # the listener has hung up
            while sent < size:
                sent += sock.send(chunk)
        assert sent < size // 2
    assert _rss(bot.proc.pid) - before < 20 * 1024 * 1024


def test_half_sent_requests_to_the_webhook_are_closed_after_its_timeouts(hooked: Hooked) -> None:
    """Headers that stop half-way, or a body, are closed after the listener's 10 s (they stayed open for ever)."""
    tg, url = hooked.shared.tg, hooked.url
    tg.wait_until(lambda: tg.calls("setWebhook"), timeout=15, what="setWebhook")
    assert post_update(url, {}, "wrong", wait=10) == 403  # listening
    path = urlsplit(url).path
    half_headers = _connect(url, f"POST {path} HTTP/1.1\r\nHost: x\r\n".encode())
    half_body = _connect(url, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{".encode())
    started = time.monotonic()
    for sock in (half_headers, half_body):
        with sock:
            assert sock.recv(100) == b""  # closed, within the socket's 30 s
    assert time.monotonic() - started < WEBHOOK.header_seconds + 10

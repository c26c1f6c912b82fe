"""Webhook mode with a configured secret, against the real bot process and the loopback Bot API: the URL and the
secret are registered and updates are taken only with the secret; a retry of an update Telegram already
posted is handled once. (Without a configured secret: tests/e2e/test_hardening.)

The module's tests share one bot process in webhook mode (a module fixture), each with its own person.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from bot.i18n import t
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

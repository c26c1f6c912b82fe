"""Start-up survives Telegram's hiccups, and the resume asks Telegram nothing before polling starts.

The real bot process meets dropped getMe requests, a 500 and a 429 on setMyCommands: it retries them and
answers its first command without a restart. After a SIGKILL, the resume rebuilds two tables from storage
while getChat takes 10 s: polling starts at once (the title of the table from an older schema, which stored
none, is asked for afterwards), and /stop stays with the person who opened the table, not the first seat.

Both tests use one bot process (``starting``), started against those hiccups: the first reads how it got through,
the second kills and restarts it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import FaultKind
from tests.e2e.players import BotProcess, SharedBot

SLOW_GETCHAT = 10.0


@pytest.fixture(scope="module")
def starting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedBot]:
    """The bot started while Telegram drops getMe twice and fails setMyCommands twice (a 500, a 429)."""
    with FakeTelegram() as tg:
        tg.fail_next("getMe", FaultKind.DROP_CONNECTION, times=2)
        tg.fail_next("setMyCommands", FaultKind.SERVER_ERROR)
        tg.fail_next("setMyCommands", FaultKind.RETRY_AFTER, retry_after=2)
        db = tmp_path_factory.mktemp("startup") / "db.sqlite3"
        with BotProcess(tg, db, MAHJONG_TURN_SECONDS="300", MAHJONG_CLAIM_SECONDS="300") as bot:
            yield SharedBot(tg, bot, db)


def test_transient_faults_at_start_up_are_retried(starting: SharedBot) -> None:
    tg, bot = starting.tg, starting.bot
    alice = tg.add_user("Alice")
    alice.say(alice.id, "/help")
    alice.wait_for_private_message(lambda m: "/newgame" in (m.text or ""), timeout=30)
    tg.wait_until(lambda: tg.my_commands() and tg.my_commands(language_code="en"), timeout=30, what="the menu")
    assert bot.proc is not None and bot.proc.poll() is None
    log = bot.log()
    failed = [c.method for c in tg.calls() if c.status != 200]
    assert failed.count("getMe") == 2 and failed.count("setMyCommands") == 2
    assert log.count("trying again") >= 4 and "Traceback" not in log


def test_the_resume_waits_on_no_request_and_keeps_who_opened_the_table(starting: SharedBot) -> None:
    tg, bot, db = starting.tg, starting.bot, starting.db
    alice, bob, carol = tg.add_user("Alice"), tg.add_user("Bob"), tg.add_user("Carol")
    first = tg.add_group("一桌", members=[alice, bob])
    second = tg.add_group("二桌", members=[carol])
    try:
        # Alice opens the first table and leaves her seat: Bob, seated after her, plays; Carol plays the second.
        alice.say(first, "/newgame")
        tg.wait_for_message(first.id, lambda m: "Alice" in (m.text or "") and bool(m.buttons), timeout=15)
        bob.say(first, "/join")
        tg.wait_for_message(first.id, lambda m: "Bob" in (m.text or "") and bool(m.buttons), timeout=15)
        alice.say(first, "/leave")
        tg.wait_for_message(first.id, lambda m: m.text == t("left", "zh", name="Alice"), timeout=15)
        bob.say(first, "/begin")
        carol.say(second, "/newgame")
        tg.wait_for_message(second.id, lambda m: "Carol" in (m.text or "") and bool(m.buttons), timeout=15)
        carol.say(second, "/begin")
        for user in (bob, carol):
            user.wait_for_private_message(lambda m: m.photo is not None and bool(m.buttons), timeout=30)
        bot.kill()
        with sqlite3.connect(db) as conn:  # the second table's match as an older schema stored it: no title
            conn.execute("UPDATE matches SET title = NULL, creator_id = NULL WHERE chat_id = ?", (second.id,))
        tg.slow("getChat", SLOW_GETCHAT)
        before = len(tg.calls())
        bot.start()
        bob.say(bob.id, "/help")  # sent as the process starts: answered long before any getChat is
        answered = bob.wait_for_private_message(lambda m: "/newgame" in (m.text or ""), timeout=30)
        resumed = t("resumed", "zh")
        tg.wait_for_message(first.id, lambda m: resumed in (m.text or "") or resumed in (m.caption or ""), timeout=30)
        titled = tg.wait_until(lambda: [c for c in tg.calls()[before:] if c.method == "getChat"], timeout=30)
        help_at = next(c.at for c in tg.calls()[before:] if c.method == "sendMessage" and c.chat_id == bob.id)
        assert answered.text and help_at < titled[0].at  # the old resume answered it only after every getChat
        assert {c.chat_id for c in titled} == {second.id}  # only the table with no title stored was asked for
        # /stop is still Alice's (who opened it), not Bob's (its first human seat); Carol's table is hers.
        bob.say(first, "/stop")
        tg.wait_for_message(first.id, lambda m: m.text == t("stop_denied", "zh"), timeout=15)
        alice.say(first, "/stop")
        tg.wait_until(lambda: _status(db, first.id) == "abandoned", timeout=15, what="the first table stopped")
        carol.say(second, "/stop")
        tg.wait_until(lambda: _status(db, second.id) == "abandoned", timeout=15, what="the second table stopped")
        assert "Traceback" not in bot.log()
    finally:
        tg.slow("getChat", 0)


def _status(db: Path, chat_id: int) -> str:
    with sqlite3.connect(db) as conn:
        return str(
            conn.execute("SELECT status FROM matches WHERE chat_id = ? ORDER BY id DESC", (chat_id,)).fetchone()[0]
        )

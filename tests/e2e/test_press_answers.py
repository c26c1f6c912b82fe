"""A press whose answer Telegram refuses (answered late, answered twice, a server error) changes nothing and is
logged as a line, never an ERROR with a traceback carrying the update: the real bot process, with the loopback
Bot API failing its answerCallbackQuery, for the settings, language and play buttons."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import FaultKind
from tests.e2e.players import BotProcess, Players


def test_refused_press_answers_are_logged_not_raised(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("牌友群", members=[alice], admins=[alice])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_TURN_SECONDS="300") as bot:
        alice.say(alice.id, "/lang")
        menu = alice.wait_for_private_message(lambda m: "ln1|en" in str(m.reply_markup), timeout=15)
        tg.fail_next("answerCallbackQuery", FaultKind.SERVER_ERROR)
        alice.press(menu, "ln1|en")
        tg.wait_until(lambda: [c for c in tg.calls("answerCallbackQuery") if c.status == 500], timeout=15)
        alice.say(group, "/settings")
        settings = tg.wait_for_message(group.id, lambda m: "st1|p|rules" in str(m.reply_markup), timeout=15)
        tg.fail_next("answerCallbackQuery", FaultKind.DROP_CONNECTION)
        alice.press(settings, "st1|p|rules")
        tg.wait_for_message(group.id, lambda m: "st1|p|liable_yi_se" in str(m.reply_markup), timeout=15)
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/begin")
        alice.wait_for_private_message(lambda m: m.photo is not None and bool(m.buttons), timeout=30)
        tg.fail_next("answerCallbackQuery", FaultKind.SERVER_ERROR)
        players = Players(tg, group, [alice])
        tg.wait_until(lambda: players.step(), timeout=15, what="a play press")
        tg.wait_until(lambda: len([c for c in tg.calls("answerCallbackQuery") if c.status != 200]) == 3, timeout=15)
        alice.say(alice.id, "/help")  # still answering, in the language she chose
        alice.wait_for_private_message(lambda m: "/newgame" in (m.text or "") and "Wuhan" in (m.text or ""), timeout=15)
        log = bot.log()
    with sqlite3.connect(db) as conn:
        language = conn.execute("SELECT language FROM players WHERE id = ?", (alice.id,)).fetchone()[0]
        actions = conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0]
    assert language == "en" and actions >= 1  # the presses took effect
    assert log.count("could not answer a press") == 3
    assert "Traceback" not in log and " ERROR " not in log


def test_a_press_on_an_inline_message_plays_nothing_and_says_so(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """A callback with a real play button's data but only an ``inline_message_id`` (the bot sends no inline
    messages: it is none of its own) changes nothing and gets a clear answer; the same button on her own
    message then plays."""
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("牌友群", members=[alice])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_TURN_SECONDS="300") as bot:
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/begin")
        picture = alice.wait_for_private_message(lambda m: m.photo is not None and bool(m.buttons), timeout=30)
        data = next(d for b in picture.buttons if (d := b.callback_data or "").rsplit("|", 1)[-1].startswith("d"))
        query = tg.press_inline(alice, data)
        answer = tg.wait_until(lambda: tg.callback_answer(query), timeout=15, what="the inline press answered")
        assert answer.text == t("press_inline", "zh")
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0] == 0
        query = alice.press(picture, data)
        assert tg.wait_until(lambda: tg.callback_answer(query), timeout=15).text is None
        with sqlite3.connect(db) as conn:
            assert conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0] >= 1
        assert "Traceback" not in bot.log()

"""/help, /rules, /calc, /lang, /status, the command menu and ``--check-config``, against the real bot process
and the loopback Bot API server, in Chinese and English (webhook mode: tests/e2e/test_webhook).

One bot process serves the module's command tests (they only read, or change a player's own language).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.commands import command_menu
from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Chat
from sandbox.users import SimUser
from tests.e2e.players import BotProcess
from tests.game.test_calc import EXAMPLE_A  # RULES.md §12 example A, the calculator's own example


class World:
    def __init__(self, tg: FakeTelegram) -> None:
        self.tg = tg
        self.zh = tg.add_user("小明")  # Telegram language zh-hans
        self.en = tg.add_user("Emma", language_code="en")
        self.admin = tg.add_user("Olga", language_code="en-GB")
        self.group = tg.add_group("牌友群", members=[self.zh, self.en], admins=[self.zh])
        self.bot: BotProcess | None = None

    def ask(self, user: SimUser, text: str, chat: Chat | None = None, expect: str = "") -> str:
        """``user`` says ``text`` (privately unless ``chat``); the bot's newest answer there containing ``expect``."""
        chat_id = chat.id if chat is not None else user.id
        before = len(self.tg.messages(chat_id))
        user.say(chat_id, text)
        answer = self.tg.wait_until(
            lambda: next((m for m in self.tg.messages(chat_id)[before:] if expect in (m.text or "")), None),
            timeout=10,
            what=f"an answer to {text!r} containing {expect!r}",
        )
        return answer.text or ""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    with FakeTelegram() as tg:
        w = World(tg)
        db = tmp_path_factory.mktemp("info") / "db.sqlite3"
        with BotProcess(tg, db, MAHJONG_ADMIN_IDS=str(w.admin.id)) as bot:
            w.bot = bot
            tg.wait_until(lambda: tg.my_commands(language_code="en"), timeout=15, what="the command menu")
            yield w
            assert "Traceback" not in bot.log()


def test_command_menu_in_both_languages(world: World) -> None:
    tg = world.tg
    assert [(c["command"], c["description"]) for c in tg.my_commands()] == command_menu("zh")
    english = [(c["command"], c["description"]) for c in tg.my_commands(language_code="en")]
    assert english == command_menu("en") and ("settings", "group settings (admins)") in english


def test_help_and_rules_in_the_group_language_and_the_players_own(world: World) -> None:
    assert "/newgame" in world.ask(world.zh, "/help", world.group, "入座")
    rules = world.ask(world.zh, "/rules", world.group, "红中赖子杠")
    assert "开口翻" in rules and "封顶 300" in rules and "吃碰 10 秒" in rules
    assert "/settings" in world.ask(world.en, "/help", expect="group settings")
    english = world.ask(world.en, "/rules", expect="Wildcard Kong")
    assert "Cap 300; golden cap 400" in english and "minimum payment 20" in english


def test_calc_explains_a_settlement_and_refuses_malformed_input_briefly(world: World) -> None:
    answer = world.ask(world.en, "/calc " + json.dumps(EXAMPLE_A), expect="Payments")
    assert answer.startswith("✅") and "Payments: East -32 · South +56 · West -8 · North -16" in answer
    # The JSON alone, without /calc, in Chinese.
    zh = world.ask(world.zh, json.dumps(EXAMPLE_A | {"rules": "koukoufan"}, ensure_ascii=False), expect="结算")
    assert "结算: 东 -32 · 南 +56 · 西 -8 · 北 -16" in zh  # seats by their winds
    bad = world.ask(world.en, "/calc " + json.dumps(EXAMPLE_A | {"dealer": 7}), expect="Cannot settle")
    assert bad == "⚠️ Cannot settle that: dealer must be a seat number 0-3"
    bad_zh = world.ask(world.zh, "/calc " + json.dumps(EXAMPLE_A | {"dealer": 7}), expect="算不了")
    assert bad_zh == t("calc_error", "zh", error=t("calc_err_seat", "zh", key="dealer"))  # no English inside
    bad_json = world.ask(world.zh, "/calc {oops", expect="JSON")
    assert bad_json == t("calc_bad_json", "zh", line=1, column=2, near="oops")  # quoted, in the asker's language
    assert "/calc" in world.ask(world.zh, "/calc " + json.dumps(EXAMPLE_A), world.group, "私聊")


def test_lang_switches_a_players_private_language(world: World) -> None:
    user = world.tg.add_user("Lin")  # zh-hans: Chinese until chosen
    assert "头衔表" in world.ask(user, "/rank", expect="头衔")
    assert world.ask(user, "/lang en", expect="Language") == "Language: English"
    assert "Undergraduate" in world.ask(user, "/rank", expect="Titles")
    chooser = world.ask(user, "/lang", expect="Choose")
    shown = world.tg.wait_until(lambda: next(m for m in reversed(user.private_messages()) if m.text == chooser))
    query = user.press(shown, "中文")
    assert world.tg.wait_for_callback_answer(query).text == "语言: 中文"
    assert "本科生" in world.ask(user, "/rank", expect="头衔")
    assert "/settings" in world.ask(user, "/lang en", world.group, "settings")  # a group's language is a setting


def test_status_only_for_the_bots_admins(world: World) -> None:
    status = world.ask(world.admin, "/status", expect="Tables")
    assert "Tables: 0 (0 playing)" in status and "Hands today (UTC): 0" in status and "Errors since start: 0" in status
    assert world.ask(world.zh, "/status", expect="管理员") == "只有机器人的管理员可以看运行状态。"


def test_sigusr1_shows_where_every_thread_is_and_the_bot_goes_on(world: World) -> None:
    """An operator's ``kill -USR1`` (README: when the bot stops answering) writes every thread's stack to the log,
    the event loop's among them; the bot answers as before."""
    assert world.bot is not None and world.bot.proc is not None
    world.bot.proc.send_signal(signal.SIGUSR1)
    # The dump ends with the thread that took the signal, the main one: its event loop is the last thing written.
    world.bot.wait_for_log("Current thread", timeout=10)
    world.bot.wait_for_log("in run_forever", timeout=10)
    assert "Mahjong" in world.ask(world.en, "/help", expect="/newgame")


def test_a_crash_in_c_code_leaves_every_thread_s_stack_in_the_log(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """A bot that dies of a fatal signal (a segfault in a C library) says where each thread was, the main one's
    (running the bot's loop) among them, instead of vanishing from its log without a word."""
    bot = BotProcess(fake_telegram, tmp_path / "db.sqlite3").start()
    assert bot.proc is not None
    bot.proc.send_signal(signal.SIGSEGV)
    assert bot.proc.wait(10) == -signal.SIGSEGV
    log = bot.log()
    assert "Fatal Python error: Segmentation fault" in log
    assert "Current thread" in log and "in run_polling" in log  # the loop may still be finishing its start-up


def _check(env: dict[str, str], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "MAHJONG_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", "--check-config"],
        cwd=tmp_path,
        env=base | env,
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


def test_check_config_validates_without_connecting(tmp_path: Path) -> None:
    token = "123456:" + "A" * 35
    good = _check(
        {"TELEGRAM_BOT_TOKEN": token, "MAHJONG_DB": str(tmp_path / "data" / "db.sqlite3"), "MAHJONG_ADMIN_IDS": "7,8"},
        tmp_path,
    )
    assert good.returncode == 0 and "configuration OK: long polling" in good.stdout and "7, 8" in good.stdout
    assert not (tmp_path / "data").exists()  # checked, not created
    missing = _check({}, tmp_path)
    assert missing.returncode == 2 and "TELEGRAM_BOT_TOKEN is not set" in missing.stderr
    listen = _check(
        {
            "TELEGRAM_BOT_TOKEN": token,
            "MAHJONG_WEBHOOK_URL": "https://bot.example.org/tg",
            "MAHJONG_WEBHOOK_LISTEN": "8443",
        },
        tmp_path,
    )
    assert listen.returncode == 2 and "MAHJONG_WEBHOOK_LISTEN must be host:port" in listen.stderr
    assert "Traceback" not in good.stderr + missing.stderr + listen.stderr


@pytest.mark.parametrize("second", ["at once", "while it stops"])
def test_a_second_stop_signal_while_stopping_still_stops_the_bot_whole(
    fake_telegram: FakeTelegram, tmp_path: Path, second: str
) -> None:
    """Ctrl-C pressed twice, or SIGTERM sent to `make run`'s whole process group (make and the bot): the bot
    finishes the stop under way, its database closed, and exits. PTB's own handler raised in the middle of the
    stop instead, and the database's threads, never closed, kept the process alive for good (seen when
    .ci/newcomer stopped `make run`). Two signals at once reach the loop's handler twice in one go."""
    with BotProcess(fake_telegram, tmp_path / "db.sqlite3") as bot:  # killed at the end if it hung
        assert bot.proc is not None
        bot.wait_for_log("Application started", timeout=10)  # polling: PTB's run_forever, where a signal lands
        bot.proc.send_signal(signal.SIGTERM)
        if second == "while it stops":
            bot.wait_for_log("Application is stopping", timeout=10)  # PTB's stop has begun
        bot.proc.send_signal(signal.SIGTERM)
        # It exits: 0, or killed by the second signal's default action when that lands after the loop has closed
        # (its handlers gone, everything already stopped); the old code hung here for good.
        assert bot.proc.wait(20) in (0, -signal.SIGTERM)
        assert "stopping; state" in bot.log()  # bot.app._stop ran: the tables, the outbox and the database closed

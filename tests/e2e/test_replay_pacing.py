"""Pictures a person asks for in private come at once, and replay taps add up, through the real bot process at
production pacing (a write a second per private chat, a four-second wait for pictures nobody asked for).

Alice plays one hand against three automatic players (she idles: 托管 plays for her); then, in a bot restarted
at production pacing, she replays it: the first picture and each step within a second, ten quick ▶ taps end
ten steps on, ⏭ then ◀ ends one before the end; her /me card comes within a second too.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess

PROOF = re.compile(r"复盘码 ([2-9A-Z]{6})")
STEP = re.compile(r"第 (\d+)/(\d+) 步")
PRODUCTION = {"MAHJONG_PRIVATE_INTERVAL": "1.0", "MAHJONG_PASSIVE_INTERVAL": "4.0"}


def _step(message: Message) -> tuple[int, int]:
    found = STEP.search(message.caption or "")
    assert found is not None, message.caption
    return int(found[1]), int(found[2])


def _newest(user: SimUser) -> int:
    return max((m.message_id for m in user.private_messages()), default=0)


def _pressed(tg: FakeTelegram, alice: SimUser, replay: Message, label: str) -> tuple[Message, float]:
    """Press once; the replay message once edited, and how long that took."""
    was = tg.message(replay.chat_id, replay.message_id)
    at = time.monotonic()
    alice.press(was, label)
    shown = tg.wait_until(
        lambda: (m := tg.message(was.chat_id, was.message_id)).edits > was.edits and m, timeout=10, what="a step"
    )
    return shown, time.monotonic() - at


def test_replay_steps_come_within_a_second_and_quick_taps_add_up(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("回放群", members=[alice])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_TURN_SECONDS="0.3", MAHJONG_CLAIM_SECONDS="0.3"):
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/begin")
        result = tg.wait_for_message(group.id, lambda m: bool(PROOF.search(m.caption or "")), timeout=120)
        found = PROOF.search(result.caption or "")
        assert found is not None
        code = found[1]
    with BotProcess(tg, db, **PRODUCTION):  # up when entered (not timed: a start-up is not an answer)
        time.sleep(1.5)  # the private chat's last write long past
        before, at = _newest(alice), time.monotonic()
        alice.say(alice.id, f"/replay {code}")
        replay = alice.wait_for_private_message(
            lambda m: m.message_id > before and m.photo is not None and code in (m.caption or ""), timeout=10
        )
        assert time.monotonic() - at <= 4.0  # a fresh process loads its fonts for its first picture
        time.sleep(1.5)
        before, at = _newest(alice), time.monotonic()
        alice.say(alice.id, f"/replay {code}")
        replay = alice.wait_for_private_message(
            lambda m: m.message_id > before and m.photo is not None and code in (m.caption or ""), timeout=10
        )
        assert time.monotonic() - at <= 1.0
        assert _step(replay)[0] == 0
        time.sleep(1.1)
        replay, took = _pressed(tg, alice, replay, "▶")
        assert _step(replay)[0] == 1 and took <= 1.0, took
        time.sleep(1.1)
        for _ in range(10):  # quicker than the chat's pace: the pictures between coalesce, the steps add up
            alice.press(tg.message(replay.chat_id, replay.message_id), "▶")
        tg.wait_until(lambda: _step(tg.message(replay.chat_id, replay.message_id))[0] == 11, timeout=10, what="11")
        time.sleep(2.5)  # nothing further arrives
        replay = tg.message(replay.chat_id, replay.message_id)
        total = _step(replay)[1]
        assert _step(replay)[0] == 11
        alice.press(replay, "⏭")
        alice.press(replay, "◀")  # pressed on the picture still showing step 11: one back from the end
        tg.wait_until(lambda: _step(tg.message(replay.chat_id, replay.message_id))[0] == total - 1, timeout=10)
        time.sleep(1.5)
        before, at = _newest(alice), time.monotonic()
        alice.say(alice.id, "/me")
        alice.wait_for_private_message(lambda m: m.message_id > before and m.photo is not None, timeout=10)
        assert time.monotonic() - at <= 1.0

"""Replays by share code, verifiable deals and statistics, through the real bot process.

Alice plays one hand against three automatic players (she idles: 托管 plays for her). Afterwards Carol, who
was not at the table nor in the group, replays it by its code from two seats, gets the animation, and
checks the deal with /verify and with ``python -m game.verify``. Nothing said before the end names the seed.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

from bot.i18n import t
from game.verify import matches
from sandbox import FakeTelegram
from sandbox.records import ApiCall, Message
from tests.e2e.forked import ROOT
from tests.e2e.players import BotProcess

COMMITMENT = re.compile(r"SHA-256\): ([0-9a-f]{64})")
PROOF = re.compile(r"复盘码 ([2-9A-Z]{6}) · 种子 (\d+:[0-9a-f]{32})")


def _everything_said(tg: FakeTelegram, before: float | None = None) -> list[str]:
    """Every text, caption and press answer the bot sent (before a server time, if given)."""
    said = []
    for call in tg.calls():
        if before is not None and call.at >= before:
            continue
        said += [str(call.params.get("text") or ""), _caption(call)]  # an edited picture's caption too
    return said


def _caption_after_press(tg: FakeTelegram, user_press: str, message: Message) -> str:
    tg.wait_for_callback_answer(user_press, timeout=10)
    return (
        tg.wait_until(
            lambda: (m := tg.message(message.chat_id, message.message_id)).edits > message.edits and m.caption,
            timeout=15,
            what="the replay picture edited",
        )
        or ""
    )


def _caption(call: ApiCall) -> str:
    """A picture's caption as the call wrote it: its own, or its new media's (the hand's picture edited into the
    result)."""
    media = call.params.get("media")
    return str(call.params.get("caption") or (json.loads(media).get("caption") if isinstance(media, str) else ""))


def test_a_hand_is_replayed_by_a_stranger_and_its_deal_verified(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob, carol = tg.add_user("Alice"), tg.add_user("Bob"), tg.add_user("Carol", language_code="zh")
    group = tg.add_group("牌友群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    # Reviews on few sampled worlds: the same work per decision as in production, only noisier and quicker.
    with BotProcess(tg, db, MAHJONG_TURN_SECONDS="0.3", MAHJONG_CLAIM_SECONDS="0.3", MAHJONG_REVIEW_SAMPLES="4") as bot:
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/begin")
        dealt = tg.wait_for_message(group.id, lambda m: bool(COMMITMENT.search(m.caption or "")), timeout=20)
        commitment = COMMITMENT.search(dealt.caption or "")
        assert commitment is not None
        result = tg.wait_for_message(group.id, lambda m: bool(PROOF.search(m.caption or "")), timeout=120)
        proof = PROOF.search(result.caption or "")
        assert proof is not None
        code, reveal = proof.group(1), proof.group(2)
        # The seed revealed is the one committed to at the deal, and anyone's own check agrees.
        assert matches(reveal, commitment.group(1))
        checked = subprocess.run(
            [sys.executable, "-m", "game.verify", reveal, commitment.group(1)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert checked.returncode == 0 and "wall" in checked.stdout
        # Before the result, no message, caption or answer named the seed or its salt; no log line ever does.
        result_call = next(c for c in tg.calls() if PROOF.search(_caption(c)))
        seed, salt = reveal.split(":")
        assert not [s for s in _everything_said(tg, before=result_call.at) if seed in s or salt in s]
        assert seed not in bot.log() and salt not in bot.log()

        # Alice asks for a review of her play from her private result: progress in one message, then the picture.
        mine = alice.wait_for_private_message(lambda m: t("btn_review", "zh") in str(m.reply_markup), timeout=20)
        assert t("review_started", "zh") == tg.wait_for_callback_answer(alice.press(mine, t("btn_review", "zh"))).text
        # Pressed again while it runs: said so, not run twice; nor is asking again by command.
        again = tg.wait_for_callback_answer(alice.press(mine, t("btn_review", "zh"))).text
        assert again == t("review_already", "zh", code=code)
        for _ in range(5):
            alice.say(alice.id, f"/review {code}")
        already = t("review_already", "zh", code=code)
        alice.wait_for_private_message(lambda m: already in (m.text or ""), timeout=15)
        alice.wait_for_private_message(lambda m: m.photo is not None and "与推荐一致" in (m.caption or ""), timeout=120)
        done = t("review_done", "zh", code=code)
        tg.wait_until(lambda: any(m.text == done for m in alice.private_messages()), timeout=15, what="review done")
        progress = [m for m in alice.private_messages() if (m.text or "").startswith(f"复盘 {code}")]
        assert len(progress) == 1 and progress[0].edits >= 1  # one message, edited as it went
        time.sleep(1.0)
        assert len([m for m in alice.private_messages() if "与推荐一致" in (m.caption or "")]) == 1  # one review
        # Carol may watch the hand, but a review is of one's own play.
        carol.say(carol.id, f"/review {code}")
        carol.wait_for_private_message(lambda m: t("review_not_yours", "zh", code=code) == m.text, timeout=15)

        # Carol, a stranger, replays it by its code: step forward, switch to South's seat, get the animation.
        carol.say(carol.id, f"/replay {code}")
        replay = carol.wait_for_private_message(lambda m: m.photo is not None and code in (m.caption or ""), timeout=20)
        assert "0/" in (replay.caption or "") and t("replay_all_open", "zh") in (replay.caption or "")
        caption = _caption_after_press(tg, carol.press(replay, "▶"), replay)
        assert "第 1/" in caption
        replay = tg.message(replay.chat_id, replay.message_id)
        caption = _caption_after_press(tg, carol.press(replay, t("wind_1", "zh")), replay)
        assert "第 1/" in caption and t("wind_1", "zh") in caption
        replay = tg.message(replay.chat_id, replay.message_id)
        carol.press(replay, t("btn_replay_gif", "zh"))
        animation = carol.wait_for_private_message(lambda m: m.animated, timeout=60)
        assert animation.photo is not None and len(animation.photo.data) <= 2_000_000
        # /verify says the commitment holds and lists the deal in words.
        carol.say(carol.id, f"/verify {code}")
        verified = carol.wait_for_private_message(lambda m: "发牌验证" in (m.text or ""), timeout=15).text or ""
        assert commitment.group(1) in verified and reveal in verified and t("verify_ok", "zh") in verified
        assert not re.search(r"\b[1-9][mpsz]\b", verified.split("python -m game.verify")[0])  # tiles in words
        # A code that names no hand gets a clear answer.
        carol.say(carol.id, "/replay ZZZZZZ")
        carol.wait_for_private_message(lambda m: "ZZZZZZ" in (m.text or ""), timeout=15)

        # Statistics: Alice's card, asked for by Bob replying to her; the boards by period and by pattern.
        said = alice.say(group, "我打得怎么样?")
        bob.say(group, "/stats", reply_to=said)
        tg.wait_for_message(group.id, lambda m: m.photo is not None and "Alice" in (m.caption or ""), timeout=20)
        alice.say(group, "/top week")
        tg.wait_for_message(
            group.id, lambda m: m.photo is not None and t("top_period_week", "zh") in (m.caption or ""), timeout=20
        )
        alice.say(group, "/top 清一色")
        tg.wait_for_message(group.id, lambda m: "清一色" in (m.text or ""), timeout=15)
        alice.say(group, "/top nonsense")
        tg.wait_for_message(
            group.id, lambda m: "nonsense" in (m.text or "") and "/top week" in (m.text or ""), timeout=15
        )

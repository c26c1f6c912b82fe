"""Each chat reads in the order things happened, and each hand ends in its final state (issue 24, items 2 and 5),
through the real bot process over a whole match of eight fast hands: one person (away: 托管 plays for her) and
three automatic players."""

from __future__ import annotations

import re
from pathlib import Path

from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Message
from tests.e2e.players import BotProcess

HANDS = 8
FAST = {
    "MAHJONG_TURN_SECONDS": "0.3",
    "MAHJONG_CLAIM_SECONDS": "0.3",
    "MAHJONG_NEXT_HAND_SECONDS": "1",
}
TABLE = re.compile(r"^第 (\d+) 局 · ")  # a hand's live picture in the group
RESULT = re.compile(r"^第 (\d+) 局结果")


def _numbered(messages: list[Message], pattern: re.Pattern[str]) -> dict[int, Message]:
    out: dict[int, Message] = {}
    for m in messages:
        if found := pattern.match(m.caption or m.text or ""):
            out.setdefault(int(found.group(1)), m)
    return out


def test_every_hand_ends_in_its_final_state_before_the_next_begins(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("顺序群", members=[alice])
    with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED="852", **FAST) as bot:
        alice.say(group, "/newgame")
        tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)
        alice.say(group, "/begin")
        done = t("stopped", "zh", lines="")
        tg.wait_for_message(group.id, lambda m: (m.text or "").startswith(done.strip()), timeout=150)
        tg.wait_until(lambda: tg.pending_updates() == 0, timeout=10, what="the last updates read")
        assert "Traceback" not in bot.log()
    # Her private chat: each hand's picture, in its last state (no buttons, the hand over), then its result,
    # then the next hand's picture.
    private = [m for m in alice.private_messages() if m.photo is not None]
    results = _numbered(private, RESULT)
    pictures = [m for m in private if m not in results.values()]
    assert sorted(results) == list(range(1, HANDS + 1)) and len(pictures) == HANDS
    for number, picture in enumerate(pictures, start=1):
        assert picture.buttons == [] and t("seat_hand_over", "zh") in (picture.caption or ""), number
        assert picture.message_id < results[number].message_id, number
        if number < HANDS:
            assert results[number].message_id < pictures[number].message_id, number
    # The group: each hand's picture says it is over, and its result and its win (or 荒庄) notice come before the
    # next hand's picture.
    messages = tg.messages(group.id)
    tables, group_results = _numbered(messages, TABLE), _numbered(messages, RESULT)
    ends = [m for m in messages if "胡了" in (m.text or "") or "荒庄" in (m.text or "")]
    assert sorted(tables) == sorted(group_results) == list(range(1, HANDS + 1)) and len(ends) >= HANDS
    for number in range(1, HANDS + 1):
        assert t("status_over", "zh") in (tables[number].caption or ""), number
        assert tables[number].message_id < group_results[number].message_id, number
        if number < HANDS:
            nxt = tables[number + 1].message_id
            assert group_results[number].message_id < nxt, number
            assert len([m for m in ends if m.message_id < nxt]) >= number, number

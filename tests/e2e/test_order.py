"""Each chat reads in the order things happened, and each hand ends in its final state (issue 24, items 2 and 5),
through the real bot process over a whole match of eight fast hands: one person (away: 托管 plays for her) and
three automatic players. A hand's final state is its result, in the hand's own message (issue 40)."""

from __future__ import annotations

import re
from pathlib import Path

from bot.callbacks import PlayButton, Stamp
from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Message
from tests.e2e.players import BotProcess, game_buttons

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
    # Her private chat: each hand's picture, then the next hand's; each in its last state, which is its result (how
    # the hand ended first, no move's buttons): no message of its own, nothing to read anywhere else.
    private = [m for m in alice.private_messages() if m.photo is not None]
    results = _numbered(private, RESULT)
    assert sorted(results) == list(range(1, HANDS + 1)) and len(private) == HANDS
    for number, result in results.items():
        assert _ended(result), number
        moves = [b for b in game_buttons(result, group) if PlayButton.decode(b.callback_data).stamp != Stamp()]
        assert not moves, number
        if number < HANDS:
            assert result.message_id < results[number + 1].message_id, number
    # The group: each hand's picture becomes its result (how it ended, every seat's points), before the next
    # hand's picture; the closing summary after the last.
    messages = tg.messages(group.id)
    assert not _numbered(messages, TABLE)  # no hand's picture left in a state before its end
    group_results = _numbered(messages, RESULT)
    assert sorted(group_results) == list(range(1, HANDS + 1))
    for number, result in group_results.items():
        assert _ended(result) and result.photo is not None, number
        if number < HANDS:
            assert result.message_id < group_results[number + 1].message_id, number
    closing = next(m for m in messages if (m.text or "").startswith(done.strip()))
    assert group_results[HANDS].message_id < closing.message_id


def _ended(result: Message) -> bool:
    """Whether a result's caption says how its hand ended: a win or 荒庄, before the points."""
    lines = (result.caption or "").split("\n")
    return len(lines) > 2 and ("胡了" in lines[1] or lines[1] == t("announce_exhausted", "zh"))

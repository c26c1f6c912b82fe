"""No button outlives its use, and whoever flees is told the truth, through the real bot process.

Alice and Bob sit with two automatic players and hand their seats to 托管 at their first decision. Once a later
hand has begun, the earlier private results no longer offer Ready (their review button stays). Then Bob flees in the
middle of a hand: his picture says he left and the game goes on (not that it ended), none of his results
offers Ready, and the compensation Alice receives is not counted as a hand she won.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.users import SimUser
from tests.e2e.players import BotProcess, flee, offers_a_move, open_table

# Long enough a turn for Bob to flee while he holds a decision; 托管 plays at once. No held draw (nothing here is
# about one): the hands in 托管 take the bot's own time, not half a second a discard.
FAST = {
    "MAHJONG_TURN_SECONDS": "4",
    "MAHJONG_CLAIM_SECONDS": "4",
    "MAHJONG_NEXT_HAND_SECONDS": "1",
    "MAHJONG_CLAIM_PAUSE": "0",
}


def _results(user: SimUser) -> list[Message]:
    return [m for m in user.private_messages() if "局结果" in (m.caption or "")]


def _offer_ready(messages: list[Message]) -> list[Message]:
    return [m for m in messages if t("btn_ready", "zh") in [b.text for b in m.buttons]]


def _ask_for_tuoguan(tg: FakeTelegram, user: SimUser) -> None:
    """The user presses 托管 at their decision (not two turns' timeouts); again at their next one if the one
    pressed was gone already (its window over)."""
    auto, pressed = t("btn_auto", "zh"), set[tuple[int, int]]()

    def offered(m: Message) -> bool:
        return auto in [b.text for b in m.buttons] and (m.message_id, m.edits) not in pressed

    while True:
        decision = user.wait_for_private_message(offered, timeout=30)
        pressed.add((decision.message_id, decision.edits))
        answer = tg.wait_for_callback_answer(user.press(decision, auto), timeout=15).text
        if answer != t("press_stale", "zh"):
            assert answer == t("tuoguan_asked_ok", "zh")
            return


def test_results_lose_ready_and_a_flight_is_told_as_one(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("按钮群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED="852", **FAST) as bot:
        open_table(tg, group, [alice, bob])
        for user in (alice, bob):
            _ask_for_tuoguan(tg, user)
        tg.wait_until(lambda: len(_results(bob)) >= 2, timeout=120, what="two results for Bob")
        # Every result but the newest lost its Ready button once the next hand began; the review stays.
        tg.wait_until(lambda: len(_offer_ready(_results(bob)[:-1])) == 0, timeout=15, what="old results retired")
        assert all(t("btn_review", "zh") in [b.text for b in m.buttons] for m in _results(bob))
        # Bob comes back from 托管 and flees while he holds a decision: inside a hand.
        back = bob.wait_for_private_message(lambda m: "我回来了" in [b.text for b in m.buttons], timeout=30)
        bob.press(back, "我回来了")
        tg.wait_until(lambda: offers_a_move(bob, group), timeout=60, what="a move offered to Bob")
        flee(tg, bob, group)
        tg.wait_for_message(group.id, lambda m: "Bob" in (m.text or "") and "逃跑" in (m.text or ""), timeout=15)
        left = t("seat_left", "zh")
        hand = bob.wait_for_private_message(lambda m: left in (m.caption or ""), timeout=15)
        assert not hand.buttons and t("seat_stopped", "zh") not in (hand.caption or "")
        assert not _offer_ready(_results(bob))
        # The game goes on for Alice: another hand is dealt to her after the flight.
        fled_at = max(m.message_id for m in alice.private_messages())
        alice.wait_for_private_message(
            lambda m: m.message_id > fled_at and m.photo is not None and "局结果" not in (m.caption or ""), timeout=60
        )
        assert "Traceback" not in bot.log()
    with sqlite3.connect(db) as conn:  # Alice's wins are the hands she won, not the flight's compensation
        wins, won = conn.execute(
            "SELECT p.wins, (SELECT COUNT(*) FROM settlements s WHERE s.player_id = p.id AND s.won = 1) "
            "FROM players p WHERE p.id = ?",
            (alice.id,),
        ).fetchone()
    assert wins == won

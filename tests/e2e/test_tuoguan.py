"""托管 that forgives (issue 40), through the real bot process: Bob never presses. Before his turn's timer runs
out his caption warns him once; the first time it runs out the automatic player plays that one move and his
caption says so, the group hears nothing; only the second turn in a row puts him in 托管, told in the group."""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

from bot.i18n import t
from game.actions import Action
from sandbox import FakeTelegram
from sandbox.records import CallbackAnswer, Message
from tests.e2e.players import BotProcess, Players, open_table
from tests.e2e.test_claim_window import _captions

TURN_SECONDS = 4  # warned at 2 s left (half the time: it is under 20 s)


def test_one_missed_turn_is_played_for_once_and_the_second_in_a_row_starts_tuoguan(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("托管群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    with BotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_TURN_SECONDS=str(TURN_SECONDS)) as bot:
        open_table(tg, group, [alice, bob])
        announced = t("announce_tuoguan", "zh", seat="南 Bob")
        players = Players(tg, group, [alice, bob], idle=[bob])
        away = t("tuoguan_on", "zh")
        players.play_until(
            lambda: (
                any(m.text == announced for m in tg.messages(group.id))
                and any(away in c for _, c in _captions(tg, bob.id, whole=True))
            ),
            timeout=120,
        )
        assert "Traceback" not in bot.log()
    # His picture: warned, then told a move was played for him, then (only later) in 托管.
    captions = [c for _, c in _captions(tg, bob.id, whole=True)]
    warned = t("your_turn_hurry", "zh", seconds=TURN_SECONDS // 2)
    missed = t("missed_turn", "zh", turns=2)
    first_warning = next(i for i, c in enumerate(captions) if warned in c)
    first_missed = next(i for i, c in enumerate(captions) if missed in c)
    first_away = next(i for i, c in enumerate(captions) if away in c)
    assert first_warning < first_missed < first_away
    assert sum(warned in c for c in captions[:first_away]) >= 2  # warned on each of the two turns
    # The automatic player played two of his turns before 托管 was announced (once), none before his timer ran out.
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as raw:
        actions = [
            Action.from_json(json.loads(a)) for (a,) in raw.execute("SELECT action FROM actions ORDER BY hand_id, seq")
        ]
    assert len([a for a in actions if a.seat == 1 and a.kind != "pass"]) >= 2
    assert [m.text for m in tg.messages(group.id)].count(announced) == 1


def _moves_of(db: Path, seat: int) -> int:
    """The moves (passes aside) stored for ``seat``."""
    with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as raw:
        actions = [Action.from_json(json.loads(a)) for (a,) in raw.execute("SELECT action FROM actions")]
    return len([a for a in actions if a.seat == seat and a.kind != "pass"])


def _answer(tg: FakeTelegram, query: str) -> CallbackAnswer:
    return tg.wait_until(lambda: tg.callback_answer(query), timeout=15, what="the press answered")


def test_tuoguan_when_asked_plays_on_for_him_until_i_m_back(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """Bob presses 托管 on his first turn (his timer far from running out): the automatic player plays that turn
    and his next ones, the group is told; the same button again is stale; 我回来了 gives him his seat back."""
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("托管群", members=[alice, bob])
    db = tmp_path / "db.sqlite3"
    auto, back = t("btn_auto", "zh"), t("btn_back", "zh")
    with BotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_TURN_SECONDS="300") as bot:
        open_table(tg, group, [alice, bob])
        players = Players(tg, group, [alice, bob], idle=[bob])  # Alice plays; Bob presses only what follows

        def bobs_turn() -> Message | None:
            message = players.current(bob)
            turn = t("your_turn", "zh", seconds=300)
            return message if message is not None and turn in (message.caption or "") else None

        players.play_until(bobs_turn, timeout=60)
        turn = bobs_turn()
        assert turn is not None and _moves_of(db, 1) == 0
        asked = _answer(tg, bob.press(turn, auto))
        assert asked.text == t("tuoguan_asked_ok", "zh")
        told = t("announce_tuoguan_asked", "zh", seat="南 Bob")
        tg.wait_for_message(group.id, lambda m: m.text == told, timeout=15)
        again = _answer(tg, bob.press(turn, auto))
        assert again.text == t("press_stale", "zh")  # a stale press of it changes nothing
        # The automatic player plays his turns (his timer is 300 s: none ran out), Alice plays on.
        players.play_until(lambda: _moves_of(db, 1) >= 2, timeout=90)
        away = bob.wait_for_private_message(lambda m: any(b.text == back for b in m.buttons), timeout=30)
        assert t("tuoguan_asked_on", "zh") in (away.caption or "")
        answer = _answer(tg, bob.press(away, back))
        assert answer.text == t("back_ok", "zh")
        stored = _moves_of(db, 1)

        # His seat is his again: his next decision has buttons, and nothing more is played for him meanwhile.
        def offered() -> bool:
            message = players.current(bob)
            return message is not None and auto in [b.text for b in message.buttons]

        players.play_until(offered, timeout=60)
        assert _moves_of(db, 1) == stored
        assert [m.text for m in tg.messages(group.id)].count(told) == 1
        assert "Traceback" not in bot.log()

"""Bench: the real bot process (``python -m bot``) against the fake Bot API on loopback.

1. Bot API calls per game action: one table, four simulated people pressing every button the moment it
   appears, one whole hand (match seed 852: 53 actions), Telegram's pacing as in production.
   ``calls_per_action`` counts the writes (messages sent or edited, in the group and in private: what
   Telegram's flood limits count); the line above it also gives the figure with the answers to presses
   (answerCallbackQuery, one per press, not a write and not flood-limited) and every other call.
2. Many tables at once: 100 groups, each one person and three automatic players (no thinking delay),
   all dealt together; actions stored per second over the measured window, and the longest any person
   waited between pressing a button and the bot's answer (max_table_wait_ms: a table held up by another
   would show here).

    .venv/bin/python bench/bot.py            # last line: {"calls_per_action": ..., "tables": ..., ...}
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.players import BotProcess, Players  # noqa: E402
from tests.fake_telegram import FakeTelegram  # noqa: E402
from tests.fake_telegram.records import Chat  # noqa: E402
from tests.fake_telegram.users import SimUser  # noqa: E402

TABLES = 100
WINDOW_S = 15.0
# Production pacing (bot.config defaults), only the timers made long enough never to fire.
PRODUCTION = {
    "MAHJONG_PRIVATE_INTERVAL": "1.0",
    "MAHJONG_PASSIVE_INTERVAL": "4.0",
    "MAHJONG_CLAIM_SECONDS": "60",
    "MAHJONG_TURN_SECONDS": "60",
    "MAHJONG_BOT_DELAY": "0",
    "MAHJONG_LOG_LEVEL": "WARNING",
}


def _actions(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM actions").fetchone()[0])


def _hands_done(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM hands WHERE status = 'done'").fetchone()[0])


def _open(tg: FakeTelegram, group: Chat, users: list[SimUser]) -> None:
    users[0].say(group, "/newgame")
    for u in users[1:]:
        u.say(group, "/join")


WRITES = frozenset({"sendMessage", "sendPhoto", "editMessageText", "editMessageCaption", "editMessageMedia",
                    "editMessageReplyMarkup", "deleteMessage"})


def calls_per_action(work: Path) -> tuple[float, float, int]:
    """(writes per action, all calls per action, actions)."""
    with FakeTelegram() as tg:
        users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
        group = tg.add_group("bench", members=users)
        db = work / "calls.sqlite3"
        with BotProcess(tg, db, MAHJONG_SEED="852", **PRODUCTION):
            _open(tg, group, users)
            tg.wait_until(lambda: "Dan" in str([m.text for m in tg.messages(group.id)]), timeout=30, what="seated")
            time.sleep(4)  # let the lobby's writes go out before counting
            users[0].say(group, "/begin")
            start = len(tg.calls())
            players = Players(tg, group, users, allow_hu=lambda caption: "抢杠" in caption)
            players.play_until(lambda: _hands_done(db) >= 1, timeout=120)
            time.sleep(4)  # the hand's last pictures and the result
            made = [c for c in tg.calls()[start:] if c.method != "getUpdates"]
            writes = [c for c in made if c.method in WRITES]
            actions = _actions(db)
            return len(writes) / actions, len(made) / actions, actions


def many_tables(work: Path) -> tuple[float, float, int]:
    with FakeTelegram() as tg:
        people = [tg.add_user(f"P{i}") for i in range(TABLES)]
        groups = [tg.add_group(f"t{i}", members=[p]) for i, p in enumerate(people)]
        db = work / "many.sqlite3"
        with BotProcess(tg, db, **PRODUCTION):
            for person, group in zip(people, groups, strict=True):
                person.say(group, "/newgame")
            tg.wait_until(lambda: len(tg.calls("sendMessage")) >= 2 * TABLES, timeout=60, what="tables open")
            for person, group in zip(people, groups, strict=True):
                person.say(group, "/begin")
            drivers = [Players(tg, g, [p]) for p, g in zip(people, groups, strict=True)]
            pressed_at: dict[str, float] = {}
            start_actions, start = _actions(db), time.monotonic()
            while time.monotonic() - start < WINDOW_S:
                for d in drivers:
                    before = len(d.presses)
                    d.step()
                    for _, _, query in d.presses[before:]:
                        pressed_at[query] = time.monotonic()
                time.sleep(0.01)
            elapsed = time.monotonic() - start
            actions = _actions(db) - start_actions
            answered = {
                c.params.get("callback_query_id"): c.at for c in tg.calls("answerCallbackQuery") if c.status == 200
            }
            waits = [answered[q] - t for q, t in pressed_at.items() if q in answered]
            return actions / elapsed, max(waits) * 1000 if waits else float("nan"), len(pressed_at)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        per_action, all_per_action, actions = calls_per_action(work)
        print(f"one table, four people, {actions} actions: {per_action:.2f} writes per action; "
              f"{all_per_action:.2f} Bot API calls per action counting the answers to presses")
        rate, max_wait, presses = many_tables(work)
        print(f"{TABLES} tables at once: {rate:.1f} actions/s over {WINDOW_S:.0f} s; "
              f"{presses} presses, longest press-to-answer {max_wait:.0f} ms")
    print(json.dumps({"calls_per_action": round(per_action, 3), "tables": TABLES, "actions_per_s": round(rate, 1),
                      "max_table_wait_ms": round(max_wait, 1)}))


if __name__ == "__main__":
    main()

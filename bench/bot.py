"""Bench: the real bot process (``python -m bot``) against the fake Bot API on loopback.

1. Bot API calls per game action: one table, four simulated people pressing every button the moment it
   appears, one whole hand (match seed 852), Telegram's pacing as in production. ``calls_per_action`` counts
   every Bot API call the bot makes during the hand (getUpdates aside): the answers to presses
   (answerCallbackQuery, one per press) as well as the writes; the lines above it break the calls down by
   method and by cause, and give the writes alone (what Telegram's flood limits count). The same hand again
   for people who look at each picture ``THINK_S`` seconds before pressing (``writes_per_action_thinking``).
2. Many tables at once: 100 groups, each one person and three automatic players (no thinking delay),
   all dealt together; actions stored per second over the measured window, and the longest any person
   waited between pressing a button and the bot's answer (max_table_wait_ms: a table held up by another
   would show here).
3. One person against three automatic players, with production pacing (the automatic players' default
   delay included): how soon the person's own message shows their press (``own_view_p90_s``: the first write
   to their chat after each press, for a person who presses half a second after a decision appears;
   ``own_view_p90_instant_s`` for one who presses the instant it arrives, bound by Telegram's one write a
   second per private chat), and how soon their next decision arrives after a discard
   (``next_decision_median_s``: the first write carrying buttons of a newer prompt).
4. Junk under load (issue 17): the 100 tables of 2 while 50 junk presses a second (forged table ids, stale
   stamps of real tables, forged replays, garbage data) arrive for ``JUNK_S`` seconds: the legitimate presses'
   p99 press-to-answer (``press_answer_p99_ms``), the junk rate reached (``junk_per_s``), the bot's RSS growth
   over the minute (``rss_growth_mb``), and how many tables finished a hand (play goes on after the junk until
   every table has, or two more minutes passed).

    .venv/bin/python bench/bot.py            # last line: {"calls_per_action": ..., "tables": ..., ...}
    .venv/bin/python bench/bot.py --writes   # phase 1 alone: {"writes_per_action": ..., "..._thinking": ...}
    .venv/bin/python bench/bot.py --junk     # phase 4 alone
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.config import Config  # noqa: E402
from sandbox import ApiCall, FakeTelegram  # noqa: E402
from sandbox.records import Button, Chat  # noqa: E402
from sandbox.users import SimUser  # noqa: E402
from tests.e2e.players import PRODUCTION as GROUP_PACE  # noqa: E402
from tests.e2e.players import CommandBotProcess, Players  # noqa: E402

TABLES = 100
WINDOW_S = 15.0
THINK_S = 1.0  # phase 1 again, for people who look at each picture a second before pressing
JUNK_S = float(os.environ.get("BENCH_JUNK_SECONDS", "60"))
JUNK_RATE = float(os.environ.get("BENCH_JUNK_RATE", "50"))
# Production pacing (bot.config defaults), only the timers made long enough never to fire.
PRODUCTION = {
    **GROUP_PACE,  # a group's real pace (the tests write to groups faster)
    "MAHJONG_PRIVATE_INTERVAL": "1.0",
    "MAHJONG_PASSIVE_INTERVAL": "4.0",
    "MAHJONG_CLAIM_SECONDS": "60",
    "MAHJONG_TURN_SECONDS": "60",
    "MAHJONG_BOT_DELAY": "0",
    "MAHJONG_CLAIM_PAUSE": str(Config.claim_pause),  # as deployed (the tests' FAST is shorter)
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


WRITES = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageReplyMarkup",
        "deleteMessage",
    }
)


def cause(call: ApiCall) -> str:
    """Why the bot made a call, read from where it went and which buttons it carried."""
    if call.method == "answerCallbackQuery":
        return "answer to a press"
    if call.method not in WRITES:
        return "other"
    markup = str(call.params.get("reply_markup") or "")
    if call.chat_id is not None and call.chat_id > 0:
        if "|0|" in markup:
            return "private result / I'm back"
        return "private prompt (buttons)" if "v1|" in markup else "private picture without buttons"
    if call.method == "sendMessage":
        return "group announcement"
    return "group picture" if call.method in ("sendPhoto", "editMessageMedia") else "group lobby"


def _quiet(tg: FakeTelegram, chat_id: int, seconds: float = 4.0, timeout: float = 60.0) -> None:
    """Wait until nothing has been written to the chat for ``seconds`` (more than a group's pace): the lobby's
    writes (a message for each person sitting down, 3.1 s apart) are out."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        last = max((c.at for c in tg.calls(chat_id=chat_id) if c.method in WRITES), default=0.0)
        if time.monotonic() - last >= seconds:
            return
        time.sleep(0.1)
    raise TimeoutError(f"chat {chat_id} still written to after {timeout:.0f} s")


def calls_per_action(work: Path, think: float = 0.0) -> tuple[list[ApiCall], int]:
    """Every call the bot made during one four-human hand (getUpdates aside), and the hand's actions, for
    people who press ``think`` seconds after a picture appears."""
    with FakeTelegram() as tg:
        users = [tg.add_user(n) for n in ("Alice", "Bob", "Carol", "Dan")]
        group = tg.add_group("bench", members=users)
        db = work / f"calls-{think}.sqlite3"
        with CommandBotProcess(tg, db, MAHJONG_SEED="852", **PRODUCTION):
            _open(tg, group, users)
            tg.wait_until(lambda: "Dan" in str([m.text for m in tg.messages(group.id)]), timeout=30, what="seated")
            _quiet(tg, group.id)  # let the lobby's writes go out before counting
            start = len(tg.calls())
            users[0].say(group, "/begin")
            players = Players(tg, group, users, allow_hu=lambda caption: "抢杠" in caption, think=think)
            players.play_until(lambda: _hands_done(db) >= 1, timeout=120 + 120 * think)
            # Counted until the group shows the result (its writes are paced: they trail the hand) and a bit more.
            tg.wait_until(
                lambda: any("第 1 局结果" in (m.caption or "") for m in tg.messages(group.id)),
                timeout=60,
                what="the result in the group",
            )
            time.sleep(2)
            return [c for c in tg.calls()[start:] if c.method != "getUpdates"], _actions(db)


def report(made: list[ApiCall], actions: int) -> tuple[float, float]:
    """Print the breakdown; (all calls per action, writes per action)."""
    by_method = Counter(c.method for c in made)
    by_cause = Counter(cause(c) for c in made)
    writes = sum(n for m, n in by_method.items() if m in WRITES)
    print(f"one table, four people, {actions} actions, {len(made)} Bot API calls:")
    for name, counts in (("method", by_method), ("cause", by_cause)):
        for key, n in counts.most_common():
            print(f"  by {name}: {key:34} {n:4d}  {n / actions:.2f} per action")
    print(f"writes_per_action {writes / actions:.2f}; calls_per_action {len(made) / actions:.2f}")
    return len(made) / actions, writes / actions


def _stamp(data: str) -> str:
    return data.split("|")[2]


def _latencies(tg: FakeTelegram, person: SimUser, presses: list[tuple[float, str]]) -> tuple[list[float], list[float]]:
    """(press → first write to the person's chat) for every press, (discard → next prompt) for every discard."""
    writes = sorted(
        (c for c in tg.calls(chat_id=person.id) if c.method in WRITES and c.status == 200), key=lambda c: c.at
    )
    own, decisions = [], []
    for at, data in presses:
        after = [c for c in writes if c.at > at]
        if after:
            own.append(after[0].at - at)
        prompt = next(
            (
                c
                for c in after
                if "v1|" in str(c.params.get("reply_markup") or "")
                and _stamp(data) not in str(c.params.get("reply_markup"))
            ),
            None,
        )
        if data.split("|")[3].startswith("d") and prompt is not None:
            decisions.append(prompt.at - at)
    return own, decisions


def one_against_bots(work: Path, think: float, hands: int = 2) -> tuple[float, float, int]:
    """own_view_p90_s, next_decision_median_s and how many presses, over ``hands`` hands, for a person who
    presses ``think`` seconds after a decision appears (0: the instant it arrives)."""
    pacing = {k: v for k, v in PRODUCTION.items() if k != "MAHJONG_BOT_DELAY"}  # the default delay, as deployed
    with FakeTelegram() as tg:
        person = tg.add_user("Solo")
        group = tg.add_group("solo", members=[person])
        db = work / f"solo-{think}.sqlite3"  # a run of its own: the hands of another run are not counted
        with CommandBotProcess(tg, db, MAHJONG_SEED="852", MAHJONG_NEXT_HAND_SECONDS="3", **pacing):
            person.say(group, "/newgame")
            tg.wait_until(lambda: len(tg.calls("sendMessage")) >= 2, timeout=30, what="the table open")
            person.say(group, "/begin")
            players = Players(tg, group, [person], think=think)
            presses: list[tuple[float, str]] = []
            deadline = time.monotonic() + 240
            while _hands_done(db) < hands and time.monotonic() < deadline:
                before = len(players.presses)
                at = time.monotonic()
                if players.step():
                    presses += [(at, data) for _, data, _ in players.presses[before:] if data.startswith("v1|")]
                time.sleep(0.01)
            time.sleep(2)
            own, decisions = _latencies(tg, person, presses)
    own.sort()
    p90 = own[int(0.9 * (len(own) - 1))] if own else float("nan")
    median = statistics.median(decisions) if decisions else float("nan")
    print(
        f"one person ({think:.1f} s to press), three automatic players: {len(presses)} presses; "
        f"own view p90 {p90:.2f} s; next decision after a discard: median {median:.2f} s over {len(decisions)}"
    )
    return p90, median, len(presses)


def many_tables(work: Path) -> tuple[float, float, int]:
    with FakeTelegram() as tg:
        people = [tg.add_user(f"P{i}") for i in range(TABLES)]
        groups = [tg.add_group(f"t{i}", members=[p]) for i, p in enumerate(people)]
        db = work / "many.sqlite3"
        with CommandBotProcess(tg, db, **PRODUCTION):
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


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        kb = next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
    return kb / 1024


def _junk(n: int, groups: list[Chat]) -> str:
    """The ``n``-th junk press: forged table ids, stale stamps of real tables, forged replays, garbage."""
    kind = n % 4
    if kind == 0:
        return f"v1|-{random.randrange(10**12, 10**13)}|{n}.1.0|d5m"
    if kind == 1:
        return f"v1|{groups[n % len(groups)].id}|1.{n % 999}.0|d5m"
    if kind == 2:
        return f"sd1|h|{random.randrange(1, 10**9)}"
    return "".join(random.choice("abc|xyz019.-") for _ in range(random.randrange(1, 60)))


def _drive(drivers: list[Players], pressed_at: dict[str, float]) -> None:
    for d in drivers:
        before = len(d.presses)
        d.step()
        for _, _, query in d.presses[before:]:
            pressed_at[query] = time.monotonic()


def junk_load(work: Path) -> tuple[float, float, float, int, float]:
    """(press_answer_p99_ms, junk_per_s, rss_growth_mb, tables that finished a hand, seconds until they did)."""
    with FakeTelegram() as tg:
        people = [tg.add_user(f"P{i}") for i in range(TABLES)]
        groups = [tg.add_group(f"t{i}", members=[p]) for i, p in enumerate(people)]
        junk_user = tg.add_user("Junk")
        db = work / "junk.sqlite3"
        with CommandBotProcess(tg, db, **PRODUCTION) as bot:
            assert bot.proc is not None
            for person, group in zip(people, groups, strict=True):
                person.say(group, "/newgame")
            tg.wait_until(lambda: len(tg.calls("sendMessage")) >= 2 * TABLES, timeout=60, what="tables open")
            junk_user.start()
            own = junk_user.wait_for_private_message(lambda m: True, timeout=30)
            for person, group in zip(people, groups, strict=True):
                person.say(group, "/begin")
            drivers = [Players(tg, g, [p]) for p, g in zip(people, groups, strict=True)]
            pressed_at: dict[str, float] = {}
            rss_before, start, sent = _rss_mb(bot.proc.pid), time.monotonic(), 0
            while (now := time.monotonic()) - start < JUNK_S:
                _drive(drivers, pressed_at)
                while sent < (now - start) * JUNK_RATE:
                    tg.press_button(junk_user, own, Button(text="x", callback_data=_junk(sent, groups)))
                    sent += 1
                time.sleep(0.005)
            junk_per_s, rss_after = sent / (time.monotonic() - start), _rss_mb(bot.proc.pid)
            while _hands_done(db) < TABLES and time.monotonic() - start < JUNK_S + 120:
                _drive(drivers, pressed_at)
                time.sleep(0.01)
            finished, took = _hands_done(db), time.monotonic() - start
            time.sleep(1)
            answered = {
                c.params.get("callback_query_id"): c.at for c in tg.calls("answerCallbackQuery") if c.status == 200
            }
    waits = sorted(answered[q] - t for q, t in pressed_at.items() if q in answered)
    p99 = waits[int(0.99 * (len(waits) - 1))] * 1000 if waits else float("nan")
    print(
        f"{TABLES} tables, {junk_per_s:.0f} junk presses/s for {JUNK_S:.0f} s: {len(waits)} legitimate presses, "
        f"p99 press-to-answer {p99:.0f} ms; RSS {rss_before:.0f} → {rss_after:.0f} MB; "
        f"{finished} tables finished a hand after {took:.0f} s"
    )
    return p99, junk_per_s, rss_after - rss_before, finished, took


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        per_action, writes = report(*calls_per_action(work))
        _, writes_thinking = report(*calls_per_action(work, think=THINK_S))
        own_p90, next_median, _ = one_against_bots(work, think=0.5)
        instant_p90, _, _ = one_against_bots(work, think=0.0)
        rate, max_wait, presses = many_tables(work)
        print(
            f"{TABLES} tables at once: {rate:.1f} actions/s over {WINDOW_S:.0f} s; "
            f"{presses} presses, longest press-to-answer {max_wait:.0f} ms"
        )
        p99, junk_per_s, rss_growth, finished, _ = junk_load(work)
    print(
        json.dumps(
            {
                "calls_per_action": round(per_action, 3),
                "tables": TABLES,
                "actions_per_s": round(rate, 1),
                "max_table_wait_ms": round(max_wait, 1),
                "writes_per_action": round(writes, 3),
                "writes_per_action_thinking": round(writes_thinking, 3),
                "own_view_p90_s": round(own_p90, 2),
                "own_view_p90_instant_s": round(instant_p90, 2),
                "next_decision_median_s": round(next_median, 2),
                "press_answer_p99_ms": round(p99, 1),
                "junk_per_s": round(junk_per_s, 1),
                "rss_growth_mb": round(rss_growth, 1),
                "junk_tables_finished": finished,
            }
        )
    )


if __name__ == "__main__":
    if sys.argv[1:] == ["--writes"]:  # phase 1 alone: the writes per action, pressing at once and thinking
        with tempfile.TemporaryDirectory() as tmp:
            _, instant = report(*calls_per_action(Path(tmp)))
            _, thinking = report(*calls_per_action(Path(tmp), think=THINK_S))
        print(json.dumps({"writes_per_action": round(instant, 3), "writes_per_action_thinking": round(thinking, 3)}))
    elif sys.argv[1:] == ["--junk"]:  # the junk phase alone
        with tempfile.TemporaryDirectory() as tmp:
            print(
                json.dumps(
                    dict(
                        zip(
                            ("press_answer_p99_ms", "junk_per_s", "rss_growth_mb", "finished", "seconds"),
                            junk_load(Path(tmp)),
                            strict=True,
                        )
                    )
                )
            )
    else:
        main()

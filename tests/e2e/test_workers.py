"""Three bot workers sharing one PostgreSQL (MAHJONG_WORKERS=1, bot.cluster) through the loopback Bot API: twenty
tables, each one person and three `easy` automatic players playing a one-hand match, spread over the workers;
the worker that polls (and owns a third of the tables) is SIGKILLed mid-hand, and Telegram sends the last
presses again after it. The others take over its shards and its polling, and then:

- every table finishes its match, every hand replays from its seed and is zero-sum, and is settled once;
- every acknowledged press (its callback query answered, accepted) is stored exactly once, and every action of
  a person's seat was pressed by them (none lost and played by a timeout, none stored twice);
- each chat keeps one live message a hand (a resumed table edits the killed worker's messages in place);
- each group is written to at its configured pace, whichever worker wrote (MAHJONG_GROUP_INTERVAL);
- the updates sent again are stored once each and handled.

And two workers, six tables: one SIGSTOPped (the one that polls, or the other) loses its tables and the polling
within its lease and, resumed, stores nothing; and with their pooled connections terminated every 2 s, every
table still plays to its end.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.callbacks import PlayButton, Stamp, parse_action_code
from bot.cluster.shards import shard_of
from bot.i18n import t
from bot.table.key import TableKey
from game.actions import Action
from sandbox import FakeTelegram
from sandbox.api_methods import WRITE_METHODS
from sandbox.records import Chat
from sandbox.users import SimUser
from storage.copy_to_postgres import check_hands
from storage.database import Database
from tests.e2e.players import BotProcess, Players, on_postgres, pg_query, prompts_shown

TABLES = 20
KILLED_TABLES = 7  # of the twenty, on the worker that is killed
GROUP_INTERVAL = 0.5  # seconds between two writes to one group (MAHJONG_GROUP_INTERVAL)
# Every table deals the same hand: with the people's way of playing (tests/e2e/policy.py) and `easy` players it
# ends after 35 actions, 11 of them the person's (the median seed's takes 62), and the kill comes after 10.
SEED = "83"
KILL_AT = 10
OWNERS = """SELECT objid::int AS shard, pid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted
AND classid = hashtext('mahjong shard ' || current_schema())::oid"""
PLAYING_IN = """SELECT COUNT(*) FROM hands h JOIN matches m ON m.id = h.match_id
WHERE h.status = 'playing' AND m.chat_id = ANY($1::bigint[])"""
ACTIONS = """SELECT h.id AS hand, m.chat_id, a.seq, a.action FROM actions a JOIN hands h ON h.id = a.hand_id
JOIN matches m ON m.id = h.match_id ORDER BY h.id, a.seq"""


def _pid(log: str) -> int:
    found = re.search(r"joined the workers \(connection (\d+)\)", log)
    assert found is not None, "the worker did not join"
    return int(found.group(1))


def _owners(url: str) -> dict[int, int]:
    return {int(r["shard"]): int(r["pid"]) for r in pg_query(url, OWNERS)}


def _wait(done: Callable[[], bool], timeout: float) -> None:
    """Until ``done``, looking every 0.1 s (what the workers do in PostgreSQL reaches no fake server to wake on)."""
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "not in time"
        time.sleep(0.1)


def _quiet(tg: FakeTelegram, seconds: float) -> None:
    """Until the bot has written nothing for ``seconds`` (the last pictures and results out)."""
    _wait(lambda: time.monotonic() - max(c.at for c in tg.calls() if c.method in WRITE_METHODS) >= seconds, 30)


def _balanced(owners: dict[int, int], workers: int = 3) -> bool:
    """Every shard owned, none moving any more: 22, 21 and 21 (or 22, 22, 20) as three workers keep them, 32 each
    for two."""
    share = -(-64 // workers)
    return (
        len(owners) == 64 and len(set(owners.values())) == workers and max(Counter(owners.values()).values()) <= share
    )


def _spread(
    tg: FakeTelegram, url: str, killed_pid: int, tables: int = TABLES, killed: int = KILLED_TABLES
) -> list[Chat]:
    """Groups until the killed worker owns ``killed`` of the ``tables`` (the others the rest)."""
    owners, groups, on_killed = _owners(url), [], 0
    for n in range(1000):
        if len(groups) == tables:
            break
        group = tg.add_group(f"牌桌 {n}")
        mine = owners[shard_of(TableKey(group.id))] == killed_pid
        if (mine and on_killed < killed) or (not mine and len(groups) - on_killed < tables - killed):
            groups.append(group)
            on_killed += mine
    return groups


def _short_easy_matches(url: str, groups: list[Chat]) -> None:
    async def set_up(db: Database) -> None:
        for group in groups:
            await db.chats.update(group.id, hands_per_game=1, auto_level="easy")

    async def run() -> None:
        async with await Database.open(url) as db:
            await set_up(db)

    asyncio.run(run())


def _open_tables(tg: FakeTelegram, groups: list[Chat], people: list[SimUser]) -> None:
    for group, person in zip(groups, people, strict=True):
        tg.add_member(group, person)
        person.say(group, "/newgame")
    for group, person in zip(groups, people, strict=True):
        tg.wait_for_message(
            group.id, lambda m, p=person: p.first_name in (m.text or "") and bool(m.buttons), timeout=30
        )
        person.say(group, "/begin")


def _start_workers(tg: FakeTelegram, tmp_path: Path, db: str, count: int, **more: str) -> list[BotProcess]:
    """``count`` workers on the database ``db``, started side by side (``_up`` waits for them)."""
    env = {
        "MAHJONG_DB": db,
        "MAHJONG_WORKERS": "1",
        "MAHJONG_GROUP_INTERVAL": str(GROUP_INTERVAL),
        "MAHJONG_SEED": SEED,
    } | more
    return [BotProcess(tg, tmp_path / f"worker{n}.sqlite3", **env).start(wait=False) for n in range(count)]


def _up(workers: list[BotProcess], url: str) -> None:
    """Until each worker is up, the shards are shared out among them and one of them polls."""
    for worker in workers:
        worker.wait_until_up(1)
    _wait(lambda: _balanced(_owners(url), len(workers)), 30)
    _wait(lambda: any("this worker polls" in w.log() for w in workers), 30)


def _play_until(tables: list[Players], done: Callable[[], bool], timeout: float) -> None:
    end = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < end, "the tables did not get there in time"
        if not sum(t.step() for t in tables):
            time.sleep(0.01)


def test_three_workers_one_killed_mid_hand_every_press_stored_once(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str
) -> None:
    tg, url = fake_telegram, postgres_url
    workers = _start_workers(tg, tmp_path, url, 3)
    try:
        _up(workers, url)
        killed = next(w for w in workers if "this worker polls" in w.log())
        groups = _spread(tg, url, _pid(killed.log()))
        people = [tg.add_user(f"P{n}") for n in range(TABLES)]
        _short_easy_matches(url, groups)
        _open_tables(tg, groups, people)
        tables = [Players(tg, group, [person]) for group, person in zip(groups, people, strict=True)]

        def hands_at(n: int) -> bool:
            counts = Counter(r["chat_id"] for r in pg_query(url, ACTIONS))
            return all(counts[g.id] >= n for g in groups)

        _play_until(tables, lambda: hands_at(KILL_AT), timeout=60)
        owners = _owners(url)
        killed_groups = [g.id for g in groups if owners[shard_of(TableKey(g.id))] == _pid(killed.log())]
        killed.kill()  # mid-hand: its tables and the polling lost with it
        mid_hand = int(pg_query(url, PLAYING_IN, killed_groups)[0][0])  # its tables whose hand was in play
        again = [int(u["update_id"]) for u in tg.updates_sent()[-6:]]
        for update_id in again:  # Telegram sends the last updates again (as after a crash before confirming)
            tg.redeliver(update_id)

        def finished() -> bool:
            rows = pg_query(url, "SELECT COUNT(*) FROM matches WHERE status = 'done' AND chat_id = ANY($1::bigint[])",
                            [g.id for g in groups])  # fmt: skip
            return int(rows[0][0]) == TABLES

        _play_until(tables, finished, timeout=90)
        _quiet(tg, 3 * GROUP_INTERVAL)
    finally:
        for w in workers:
            if w.proc is not None and w.proc.poll() is None:
                w.stop()
    survivors = [w for w in workers if w is not killed]
    _check_storage(url, groups, again)
    _check_presses(tg, url, tables)
    _check_chats(tg, groups, people)
    resumed = sum(int(n) for w in survivors for n in re.findall(r"; (\d+) table\(s\) resumed", w.log()))
    assert resumed == mid_hand >= KILLED_TABLES - 2  # the killed worker's tables in mid-hand, each taken up once
    assert any("this worker polls Telegram now" in w.log() for w in survivors)
    assert not any("Traceback" in w.log() for w in survivors)


def _check_storage(url: str, groups: list[Chat], again: list[int]) -> None:
    assert on_postgres(url, check_hands) == TABLES  # every hand replays from its seed, zero-sum
    settled = pg_query(url, "SELECT hand_id, COUNT(*) AS n FROM settlements GROUP BY hand_id")
    assert len(settled) == TABLES and {r["n"] for r in settled} == {4}  # each settled once
    inbox = pg_query(url, "SELECT update_id, done_at FROM inbox WHERE update_id = ANY($1::bigint[])", again)
    assert len(inbox) == len(again) and all(r["done_at"] for r in inbox)  # stored once each, handled
    assert not pg_query(url, "SELECT 1 FROM inbox WHERE done_at IS NULL")


def _check_presses(tg: FakeTelegram, url: str, tables: list[Players], every_action_pressed: bool = True) -> None:
    """Each accepted press is the first action of its seat at or after its prompt, no two presses the same one;
    and (``every_action_pressed``) every action of a person's seat is a press of theirs that was accepted or still
    unanswered at the kill."""
    stored: dict[tuple[int, int], list[tuple[int, Action]]] = {}  # (hand, seat) -> (seq, action)
    for r in pg_query(url, ACTIONS):
        action = Action.from_json(json.loads(r["action"]))
        stored.setdefault((r["hand"], action.seat), []).append((r["seq"], action))
    people_seats: set[tuple[int, int]] = set()
    matched: set[tuple[int, int, int]] = set()
    unknown: list[tuple[int, int, int]] = []  # (hand, seat, counter) of presses whose table moved meanwhile
    unanswered = 0
    said: dict[tuple[int, int], list[str]] = {}  # what each seat's presses were answered (to tell what failed)
    for table in tables:
        for _user, data, query_id in table.presses:
            button = PlayButton.decode(data)
            stamp = button.stamp
            if stamp == Stamp():
                continue
            assert stamp.seat is not None and stamp.counter is not None
            people_seats.add((stamp.hand, stamp.seat))
            answer = tg.callback_answer(query_id)
            said.setdefault((stamp.hand, stamp.seat), []).append(f"#{stamp.counter} {button.code}: {answer}")
            if answer is not None and answer.text in MOVED:
                unknown.append((stamp.hand, stamp.seat, stamp.counter))
                continue
            if answer is not None and answer.text:
                continue  # refused (a claim another seat's win took away): nothing stored
            unanswered += answer is None
            seq, action = next((s, a) for s, a in stored[(stamp.hand, stamp.seat)] if s >= stamp.counter)
            assert action == parse_action_code(button.code, stamp.seat), f"press {data} stored as {action}"
            assert (stamp.hand, stamp.seat, seq) not in matched, f"two presses for action {seq}"
            matched.add((stamp.hand, stamp.seat, seq))
    by_people = {(h, s, seq) for (h, s), actions in stored.items() if (h, s) in people_seats for seq, _ in actions}
    if every_action_pressed:  # no action of a person's seat without its press, none twice: an action no answered
        for hand, seat, seq in sorted(by_people - matched):  # press matched is one a press told "moved" made
            made = next((u for u in unknown if u[:2] == (hand, seat) and u[2] <= seq), None)
            assert made is not None, f"hand {hand} seat {seat}: action {seq} without its press: {said[hand, seat]}"
            unknown.remove(made)
    assert unanswered <= KILLED_TABLES  # at most a press a table in the killed worker's hands when it died


def _check_chats(tg: FakeTelegram, groups: list[Chat], people: list[SimUser]) -> None:
    for group in groups:
        pictures = [m for m in tg.messages(group.id) if m.photo is not None]
        assert len(pictures) == 1, f"group {group.title}: {len(pictures)} pictures"  # the hand's, become its result
        assert RESULT in (pictures[0].caption or ""), f"group {group.title}: {pictures[0].caption!r}"
        writes = sorted(c.at for c in tg.calls(chat_id=group.id) if c.ok and c.method in WRITE_METHODS)
        gaps = [b - a for a, b in itertools.pairwise(writes)]
        assert min(gaps) >= 0.8 * GROUP_INTERVAL, f"group {group.title} written to {min(gaps):.2f} s apart"
    for person in people:
        pictures = [m for m in person.private_messages() if m.photo is not None]
        assert len(pictures) == 1, f"{person.first_name}: {len(pictures)} pictures"  # the hand's, become its result
        assert RESULT in (pictures[0].caption or ""), f"{person.first_name}: {pictures[0].caption!r}"


RESULT = "第 1 局结果"  # a hand's result caption begins so (the tables speak Chinese)
# The answer to a press whose table stopped on its worker meanwhile (stored or not: the next owner shows which).
MOVED = {t("press_moved", lang) for lang in ("zh", "en")}
STOPPED_TABLES = 3  # of six, on the worker that is stopped
LEASE_TAKEN_OVER_S = 10.0  # the bound: tables move again this long after the stop, at most
LOST = re.compile(r"the coordinator's connection (ended|failed)[^\n]*: \d+ shard\(s\) and \d+ table\(s\) dropped")


@pytest.mark.parametrize("role", ["poller", "owner"])
def test_a_stopped_worker_loses_its_tables_and_the_polling_within_its_lease(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str, role: str
) -> None:
    """SIGSTOP of the worker that polls and owns half the shards, or of the other that owns the rest (its
    connections stay open: the kernel still answers for it): the other worker polls and moves its tables within
    LEASE_TAKEN_OVER_S; SIGCONT: the stopped one finds it has lost them and stores nothing; every match ends,
    every press stored once."""
    tg, url = fake_telegram, postgres_url
    workers = _start_workers(tg, tmp_path, url, 2)
    try:
        _up(workers, url)
        polling = next(w for w in workers if "this worker polls" in w.log())
        stopped = polling if role == "poller" else next(w for w in workers if w is not polling)
        survivor = next(w for w in workers if w is not stopped)
        groups = _spread(tg, url, _pid(stopped.log()), tables=2 * STOPPED_TABLES, killed=STOPPED_TABLES)
        people = [tg.add_user(f"P{n}") for n in range(len(groups))]
        _short_easy_matches(url, groups)
        _open_tables(tg, groups, people)
        tables = [Players(tg, group, [person]) for group, person in zip(groups, people, strict=True)]

        def actions() -> Counter[int]:
            return Counter(r["chat_id"] for r in pg_query(url, ACTIONS))

        _play_until(tables, lambda: min(actions()[g.id] for g in groups) >= KILL_AT, timeout=60)
        owners = _owners(url)
        frozen = [g.id for g in groups if owners[shard_of(TableKey(g.id))] == _pid(stopped.log())]
        assert stopped.proc is not None
        stopped.proc.send_signal(signal.SIGSTOP)
        at_stop, stopped_at = actions(), time.monotonic()
        moved: dict[int, float] = {}

        def all_moved() -> bool:
            now, counts = time.monotonic(), actions()
            moved.update({g: now - stopped_at for g in frozen if g not in moved and counts[g] > at_stop[g]})
            return len(moved) == len(frozen)

        _play_until(tables, all_moved, timeout=30)
        print(f"the stopped worker's tables moved again {sorted(moved.values())} s after the stop")
        assert max(moved.values()) < LEASE_TAKEN_OVER_S
        # The polling moves by an election of its own (a look a second), which may come just after the tables moved
        # (CI's failure at load 5): within the same bound from the stop.
        polls = "this worker polls Telegram now"
        _wait(lambda: polls in survivor.log(), LEASE_TAKEN_OVER_S - (time.monotonic() - stopped_at))

        stopped.proc.send_signal(signal.SIGCONT)
        continued_at = time.monotonic()
        _wait(lambda: LOST.search(stopped.log()) is not None, 10)  # at its first look, and then it stores nothing

        def finished() -> bool:
            rows = pg_query(url, "SELECT COUNT(*) FROM matches WHERE status = 'done' AND chat_id = ANY($1::bigint[])",
                            [g.id for g in groups])  # fmt: skip
            return int(rows[0][0]) == len(groups)

        _play_until(tables, finished, timeout=90)
        _quiet(tg, 3 * GROUP_INTERVAL)
    finally:
        for w in workers:
            if w.proc is not None and w.proc.poll() is None:
                w.proc.send_signal(signal.SIGCONT)
                w.stop()
    assert on_postgres(url, check_hands) == len(groups)  # every hand replays from its seed: nothing stored twice
    settled = pg_query(url, "SELECT hand_id, COUNT(*) AS n FROM settlements GROUP BY hand_id")
    assert len(settled) == len(groups) and {r["n"] for r in settled} == {4}
    assert not pg_query(url, "SELECT 1 FROM inbox WHERE done_at IS NULL")
    _check_presses(tg, url, tables)
    _check_never_back(tg, people, continued_at)
    assert not any("Traceback" in w.log() for w in workers)


def _check_never_back(tg: FakeTelegram, people: list[SimUser], continued_at: float) -> None:
    """No person's private chat is shown an older prompt after a newer one, but for one request the stopped worker
    had on its way when it stopped, landing as it runs again (what it had waiting for the tables it lost is held and
    dropped instead: storage.cluster.Lease, bot.leased_request, Tables.release; tests/bot/test_outbox.py shows it).
    The person taps that stale picture and is shown the current one (Players)."""
    for person in people:
        shown, newest, back = [], (0, 0), []
        for stamp, at in prompts_shown(tg, person.id):
            prompt = (stamp.hand, stamp.counter or 0)
            shown.append((*prompt, round(at - continued_at, 3)))
            back += [at - continued_at] if prompt < newest else []
            newest = max(newest, prompt)
        said = f"{person.first_name} was shown (hand, prompt, seconds from the continue): {shown}"
        assert len(back) <= 1 and all(0 <= t < 1 for t in back), said


# The workers' pooled connections (not their coordinators', which hold a worker's lock), of this test alone: its
# workers connect with their own application_name; other tests' and other people's sessions are never touched.
TERMINATE = """SELECT COUNT(pg_terminate_backend(a.pid)) FROM pg_stat_activity a WHERE a.application_name = $1
AND NOT EXISTS (SELECT 1 FROM pg_locks l WHERE l.pid = a.pid AND l.locktype = 'advisory' AND l.objsubid = 2
AND l.classid = hashtext('mahjong worker ' || current_schema())::oid)"""
TERMINATE_EVERY_S = 0.5  # the six one-hand matches may end 4 s after their deal (seen): still cut again and again
# A person told "try again" does not: their seat plays by its turn's timeout (tests.e2e.players.FAST's 30 s held a
# run for half a minute, twice), and with the second in a row by 托管.
TURN_SECONDS = 3


def test_workers_play_on_while_their_connections_are_terminated(
    fake_telegram: FakeTelegram, tmp_path: Path, postgres_url: str
) -> None:
    """Two workers, six tables, every pooled connection of theirs terminated every 2 s (pg_terminate_backend) from
    the deal to the end: the polling goes on, every match ends, nothing is stored twice, every press once."""
    tg, url = fake_telegram, postgres_url
    name = f"mahjong_{tmp_path.name}"[:60]
    workers = _start_workers(tg, tmp_path, f"{url}&application_name={name}", 2, MAHJONG_TURN_SECONDS=str(TURN_SECONDS))
    done = threading.Event()
    terminated: list[int] = []

    def terminate() -> None:
        while not done.wait(TERMINATE_EVERY_S):
            terminated.append(int(pg_query(url, TERMINATE, name)[0][0]))

    terminator = threading.Thread(target=terminate, name="terminator")
    try:
        _up(workers, url)
        polling = next(w for w in workers if "this worker polls" in w.log())
        groups = _spread(tg, url, _pid(polling.log()), tables=2 * STOPPED_TABLES, killed=STOPPED_TABLES)
        people = [tg.add_user(f"P{n}") for n in range(len(groups))]
        _short_easy_matches(url, groups)
        _open_tables(tg, groups, people)
        tables = [Players(tg, group, [person]) for group, person in zip(groups, people, strict=True)]
        # Cut from the deal on: a /begin refused by a cut connection is one its person is asked to send again,
        # which these people would not (a table left in its lobby, as seen on a loaded run).
        dealt = "SELECT COUNT(*) FROM hands h JOIN matches m ON m.id = h.match_id WHERE m.chat_id = ANY($1::bigint[])"
        _wait(lambda: int(pg_query(url, dealt, [g.id for g in groups])[0][0]) == len(groups), 30)
        terminator.start()

        def finished() -> bool:
            rows = pg_query(url, "SELECT COUNT(*) FROM matches WHERE status = 'done' AND chat_id = ANY($1::bigint[])",
                            [g.id for g in groups])  # fmt: skip
            return int(rows[0][0]) == len(groups)

        _play_until(tables, finished, timeout=180)  # liveness: 27 s alone, past 120 s beside the suite when busy
        _quiet(tg, 3 * GROUP_INTERVAL)
    finally:
        done.set()
        if terminator.is_alive():
            terminator.join()
        for w in workers:
            if w.proc is not None and w.proc.poll() is None:
                w.stop()
    print(f"{sum(terminated)} connections terminated in {len(terminated)} rounds")
    assert sum(1 for n in terminated if n) >= 5  # the connections were cut, again and again
    assert on_postgres(url, check_hands) == len(groups)  # every hand replays from its seed: nothing stored twice
    settled = pg_query(url, "SELECT hand_id, COUNT(*) AS n FROM settlements GROUP BY hand_id")
    assert len(settled) == len(groups) and {r["n"] for r in settled} == {4}
    assert not pg_query(url, "SELECT 1 FROM inbox WHERE done_at IS NULL")  # every update polled and handled
    # A press whose handler's read was cut is answered with an apology: these people do not press again, their seat
    # then plays by its timeout (and 托管) as the seat of a person who walked away.
    _check_presses(tg, url, tables, every_action_pressed=False)

"""Bench: several ``mahjong-bot`` workers sharing one PostgreSQL (MAHJONG_WORKERS=1, bot.cluster; issue 28), the
real worker processes against the fake Bot API on loopback, with Redis sharing Telegram's overall write rate.

    .venv/bin/python bench/workers.py                         # the default run, about 4 minutes
    .venv/bin/python bench/workers.py --window 60 --core-window 40   # longer windows, steadier figures
    .venv/bin/python bench/workers.py --skip-core             # without phase 4

Needs the PostgreSQL of the tests (127.0.0.1:5432, database ``test``, or MAHJONG_TEST_POSTGRES; a schema of its
own, dropped at the end) and Redis (MAHJONG_BENCH_REDIS, default ``redis://127.0.0.1:6379/0``; the bucket's key is
this bench's own bot id); without either it says so and ends (its last line ``{"skipped": …}``), so that
``make bench`` goes on. Every action is stamped by the server as it is stored: the bench adds a column
``stored_at DEFAULT clock_timestamp()`` to its own schema's ``actions`` (the bot's INSERT names its columns).

1. ``pg_append_ms_median`` and ``sqlite_append_ms_median``: storing one action through the storage layer
   (``bench/storage.py``'s ``bench_append``, 3,000 appends), on a SQLite file (WAL, synchronous=NORMAL, as the bot
   runs) and on PostgreSQL with its default durability (each commit waits for the server's disk).
2. ``speedup_2_workers``, ``speedup_4_workers``: ``--tables`` (200) groups whose automatic players are ``hard``
   (the group's setting), each one person who never presses: their turn times out at once (0.1 s) and 托管 plays
   their seat at the group's level too, so every decision is a ``hard`` one and nothing waits for a person or for
   Telegram's pacing (the automatic players' delay is 0). Actions stored a second over ``--window`` seconds, with
   1, then 2, then 4 workers, all in this one run on the same tables (a worker that joins takes its share of the
   shards and resumes their tables from the action log).
3. ``takeover_s``: the worker that polls Telegram is killed with SIGKILL while the four run; the time from the
   kill to the first action stored on one of its tables by another worker (``takeover_all_s``: until every one
   of its tables that was in a hand has moved: with every search process busy, a table's next decision waits its
   turn behind the others', so this one is bound by the load as much as by the takeover). Then the survivors
   stop and one worker, free on every core with as many search processes as cores, takes every table over
   (``actions_per_s_1_worker_all_cores_searching``: what one process makes of the whole machine).
4. ``tables_per_core_hard``: one worker on one core, with one search process, production pacing (a group
   written every 3.1 s, a private chat every second, 30 writes a second overall) and the automatic players'
   usual 0.6 s delay; tables of one person (pressing 1 s after their move appears) and three ``hard`` players,
   added ``--core-step`` at a time. A step passes when every decision of an automatic player stored in its
   ``--core-window`` is **on time**: stored within its delay plus two of the search's budgets (0.6 + 2 × 0.2 s)
   of the action before it in its hand, as it would be if its own search took the whole budget and one other
   table's search were ahead of it in the queue (how many took longer than the delay plus one budget, 0.8 s, is
   counted beside). The figure is the largest table count whose step passed.
5. ``ws_workers_own_view_p95_ms``: the live table on two workers (each on a core of its own, polling; bot.cluster.
   live_relay): ``--live-tables`` (200) tables of one person and three automatic players (bench/live.py's: the
   usual 0.6 s delay, a real group's pace), each person's page opened on the two workers in turn, so that about
   half of them sit on the worker that does not run their table (their frames through Redis, their presses through
   the inbox); each person presses their move 1 s after it appears: the time from a press to the first frame that
   shows it, p95 over every press in ``--window``. ``ws_reconnect_s``: then the first worker is SIGKILLed under its
   pages; each page, its socket ended, reconnects 0.5 s later (live.js's first retry) to the other worker: the
   time from the kill to the first view of its table there, the slowest page's (the tables the killed worker ran
   are taken over and resumed meanwhile: the one worker left runs all 200). Every table is dealt before the
   window; a page that never sees its table's view again (told there is no such table) is counted in
   ``ws_reconnect_never``, and ``ws_reconnect_s`` is then null.

**The CPU, honestly.** This machine has 2 cores, and a bot process starts ``MAHJONG_SEARCH_PROCESSES`` search
processes (default: the cores it may use less one). Left free, one worker on 2 cores runs one search process
and its event loop, so it cannot use more than about one core for ``hard`` decisions while the machine has two;
two free workers would use both, and "speedup" would only measure that the first left a core idle. So every
worker here is confined to one core (its CPU affinity, inherited by its search process) and runs one search
process: one worker has 1 core, two workers 2 (one each), four workers 2 (two on each). The speedup is what
adding a worker with its own core adds, as adding a machine would; four workers on two cores show what more
workers than cores give (nothing). PostgreSQL, Redis, the fake Bot API and this bench are not confined: they
share the same two cores with the workers (beside one worker they can run on the other core, beside two they
take from the workers' own: the comparison leans against the speedup). One worker left free on both cores,
as deployed by default, is measured too (``actions_per_s_1_worker_free``), and one worker with a search process
on every core (phase 3). Each figure comes with the CPU used: the workers' own and their search processes'
(cores, from /proc), PostgreSQL's, this bench's, the machine's as a whole and the rest of it (``others``: other
people's work on a shared machine), the cores each worker may use, the tables each runs, and the actions per CPU
second of the workers (steady when the machine is shared: it does not depend on how much of it they got).

The last line is one JSON object: the figures above and the raw ones beside them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib.util
import json
import os
import re
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tornado.websocket import WebSocketClientConnection  # noqa: E402

from bot.cluster.shards import shard_of  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.table.key import TableKey  # noqa: E402
from game.search import DEFAULT_BUDGET_MS  # noqa: E402
from sandbox import FakeTelegram  # noqa: E402
from sandbox.records import Chat  # noqa: E402
from sandbox.users import SimUser  # noqa: E402
from storage.database import Database  # noqa: E402
from tests.e2e.players import PRODUCTION as GROUP_PACE  # noqa: E402
from tests.e2e.players import CommandBotProcess, Players, pg_query  # noqa: E402
from tests.postgres import drop_schema, fresh_schema, server_url  # noqa: E402
from tests.sandbox.page_client import free_port  # noqa: E402

REDIS = os.environ.get("MAHJONG_BENCH_REDIS", "redis://127.0.0.1:6379/0")
TOKEN = "880028028:bench-workers-token-not-a-real-one"  # its own bot id: its own bucket in Redis
THINK_S = 1.0  # phase 4: a person presses this long after their move appears (as bench/bot.py's thinking people)
# Phase 4: an automatic decision is on time when stored within its delay and two search budgets of the action
# before it (its own search may take the whole budget, and one other table's may be ahead of it); the stricter
# count (its delay and one budget) is reported beside.
BUDGET_S = DEFAULT_BUDGET_MS / 1000
ON_TIME_S = Config.bot_delay + 2 * BUDGET_S
STRICT_S = Config.bot_delay + BUDGET_S
# Telegram's pacing as deployed (bot.config's defaults); the workers' log at INFO, as deployed.
PACING = {
    **GROUP_PACE,
    "MAHJONG_PRIVATE_INTERVAL": str(Config.private_interval),
    "MAHJONG_PASSIVE_INTERVAL": str(Config.passive_interval),
    "MAHJONG_LOG_LEVEL": "INFO",
}
# Phase 2: nothing waits for a person (their turn times out at once, then 托管) or for an automatic player's delay.
FLAT_OUT = {
    "MAHJONG_BOT_DELAY": "0",
    "MAHJONG_TURN_SECONDS": "0.1",
    "MAHJONG_CLAIM_SECONDS": "0.1",
    "MAHJONG_NEXT_HAND_SECONDS": "1",
}
SHARD_LOCKS = """SELECT pid, objid FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2 AND granted
AND classid = hashtext('mahjong shard ' || current_schema())::oid"""
ACTIONS_OF_CHATS_AFTER = """SELECT m.chat_id, MIN(a.stored_at) AS first FROM actions a JOIN hands h ON h.id = a.hand_id
JOIN matches m ON m.id = h.match_id WHERE m.chat_id = ANY($1::bigint[]) AND a.stored_at > $2 GROUP BY m.chat_id"""
PLAYING_CHATS = """SELECT DISTINCT m.chat_id FROM hands h JOIN matches m ON m.id = h.match_id
WHERE h.status = 'playing' AND m.chat_id = ANY($1::bigint[])"""
# Phase 4: each automatic player's action stored in the window, and how long after the action before it.
AUTOMATIC_GAPS = """WITH a AS (
  SELECT hand_id, seq, action, stored_at,
         stored_at - LAG(stored_at) OVER (PARTITION BY hand_id ORDER BY seq) AS gap,
         LAG(action) OVER (PARTITION BY hand_id ORDER BY seq) AS before
  FROM actions)
SELECT EXTRACT(EPOCH FROM a.gap)::float8 AS gap, a.action, a.before FROM a
JOIN hand_seats s ON s.hand_id = a.hand_id AND s.seat = (a.action::json ->> 's')::int
WHERE s.player_id IS NULL AND a.gap IS NOT NULL AND a.stored_at > $1 AND a.stored_at <= $2"""
WRITES = ("sendMessage", "sendPhoto", "editMessageText", "editMessageCaption", "editMessageMedia",
          "editMessageReplyMarkup", "deleteMessage")  # fmt: skip


def bench_module(name: str) -> ModuleType:
    """bench/<name>.py as a module (``bench_<name>``: bench/storage.py's name would shadow the storage package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def append_medians(work: Path) -> tuple[float, float]:
    """(PostgreSQL, SQLite) median ms of storing one action, bench/storage.py's own measure on each backend."""
    bench = bench_module("storage")

    async def median_ms(target: str | Path) -> tuple[float, float]:
        db = await Database.open(target)
        try:
            return await bench.bench_append(db)  # type: ignore[no-any-return]
        finally:
            await db.close()

    url = fresh_schema(durable=True)
    try:
        pg_median, pg_p99 = asyncio.run(median_ms(url))
    finally:
        drop_schema(url)
    lite_median, lite_p99 = asyncio.run(median_ms(work / "append.sqlite3"))
    print(f"append one action ({bench.APPENDS} appends): PostgreSQL median {pg_median:.3f} ms (p99 {pg_p99:.3f}); "
          f"SQLite median {lite_median:.3f} ms (p99 {lite_p99:.3f})")  # fmt: skip
    return pg_median, lite_median


# --- CPU, from /proc ------------------------------------------------------------------------------------------
TICK = os.sysconf("SC_CLK_TCK")


def _cpu_s(pid: int) -> float:
    """The CPU seconds (user + system, all threads) a live process has used; 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            out += [int(c) for c in (task / "children").read_text().split()]
    except (FileNotFoundError, ProcessLookupError):
        pass
    return out


def descendants(pid: int) -> list[int]:
    return [d for c in _children(pid) for d in (c, *descendants(c))]


def search_processes(pid: int) -> list[int]:
    """A bot process's spawned search processes (not multiprocessing's resource tracker)."""
    found = []
    for child in _children(pid):
        try:
            if b"spawn_main" in Path(f"/proc/{child}/cmdline").read_bytes():
                found.append(child)
        except FileNotFoundError:
            continue
    return found


def pin(pid: int, cores: set[int]) -> None:
    """Confine a process, every thread of it, and its children's, to ``cores``."""
    for task in Path(f"/proc/{pid}/task").iterdir():
        os.sched_setaffinity(int(task.name), cores)
    for child in _children(pid):
        pin(child, cores)


def _named(command: str) -> list[int]:
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "comm").read_text().strip() == command:
                pids.append(int(entry.name))
        except (FileNotFoundError, ProcessLookupError):
            continue
    return pids


def machine_busy_s() -> float:
    """CPU seconds the whole machine has spent busy (every core), from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(values[:8]) - values[3] - values[4]) / TICK  # all but idle and iowait


@dataclass
class CpuSample:
    at: float
    loops: float  # the workers' own processes (their event loops, threads, pictures)
    search: float  # their search processes
    bench: float  # this process: the fake Bot API and the simulated people
    postgres: dict[int, float]  # every PostgreSQL process on the machine (this bench's connections, anyone else's)
    machine: float

    @classmethod
    def take(cls, workers: list[CommandBotProcess]) -> CpuSample:
        pids = [w.proc.pid for w in workers if w.proc is not None and w.proc.poll() is None]
        return cls(
            time.monotonic(),
            sum(_cpu_s(p) for p in pids),
            sum(_cpu_s(c) for p in pids for c in search_processes(p)),
            _cpu_s(os.getpid()),
            {p: _cpu_s(p) for p in _named("postgres")},
            machine_busy_s(),
        )

    def cores_since(self, before: CpuSample) -> dict[str, float]:
        """Cores busy on average since ``before``: each part, the machine, and the rest of the machine (``others``:
        whatever else ran, other people's work on a shared machine included)."""
        span = self.at - before.at
        parts = {
            "worker_loops": (self.loops - before.loops) / span,
            "search": (self.search - before.search) / span,
            "bench": (self.bench - before.bench) / span,
            "postgres": sum(t - before.postgres[p] for p, t in self.postgres.items() if p in before.postgres) / span,
            "machine": (self.machine - before.machine) / span,
        }
        parts["others"] = max(0.0, parts["machine"] - sum(v for k, v in parts.items() if k != "machine"))
        return {k: round(v, 2) for k, v in parts.items()}


# --- the workers ----------------------------------------------------------------------------------------------
@dataclass
class Cluster:
    """Worker processes on one PostgreSQL schema, each confined to a core of its own (round robin)."""

    tg: FakeTelegram
    url: str
    work: Path
    env: dict[str, str]
    cores: list[int]
    workers: list[CommandBotProcess] = field(default_factory=list)

    def start(self, pinned: bool = True, **env: str) -> CommandBotProcess:
        n = len(self.workers)
        log = self.work / f"worker{n}-{time.monotonic_ns()}.sqlite3"
        worker = CommandBotProcess(self.tg, log, **(self.env | env)).start()
        assert worker.proc is not None
        if pinned:  # at once: the search process it spawns while starting inherits the core
            pin(worker.proc.pid, {self.core_of(n)})
        self.workers.append(worker)
        return worker

    def core_of(self, n: int) -> int:
        return self.cores[n % len(self.cores)]

    def live(self) -> list[CommandBotProcess]:
        return [w for w in self.workers if w.proc is not None and w.proc.poll() is None]

    def connection(self, worker: CommandBotProcess) -> int:
        """The worker's coordinator connection (its PostgreSQL backend), as it logged it."""
        found = re.findall(r"joined the workers \(connection (\d+)\)", worker.log())
        assert found, "the worker did not join"
        return int(found[-1])

    def owners(self) -> dict[int, list[int]]:
        """Backend pid -> the shards it holds."""
        owned: dict[int, list[int]] = {}
        for row in pg_query(self.url, SHARD_LOCKS):
            owned.setdefault(int(row["pid"]), []).append(int(row["objid"]))
        return owned

    def wait_balanced(self, timeout: float = 60) -> float:
        """Until every live worker has joined and holds its fair share of the 64 shards; how long it took."""
        start, live = time.monotonic(), self.live()
        while True:
            joined = all("joined the workers" in w.log() for w in live)
            counts = sorted(len(s) for s in self.owners().values())
            share = -(-64 // len(live))
            if joined and len(counts) == len(live) and sum(counts) == 64 and counts[-1] <= share:
                return time.monotonic() - start
            if time.monotonic() - start > timeout:
                raise TimeoutError(f"shards not balanced over {len(live)} workers: {counts}")
            time.sleep(0.2)

    def tables_per_worker(self) -> list[int]:
        """For each live worker: how many of the tables (matches) it runs, from the shards it holds."""
        chats = [int(r[0]) for r in pg_query(self.url, "SELECT DISTINCT chat_id FROM matches")]
        owners = self.owners()
        running = []
        for w in self.live():
            shards = set(owners.get(self.connection(w), []))
            running.append(sum(shard_of(TableKey(c)) in shards for c in chats))
        return running

    def allowed_cores(self) -> list[int]:
        """For each live worker: how many cores it and its search processes may run on."""
        allowed = []
        for w in self.live():
            assert w.proc is not None
            pids = [w.proc.pid, *search_processes(w.proc.pid)]
            allowed.append(len(set().union(*(os.sched_getaffinity(p) for p in pids))))
        return allowed

    def stop(self) -> None:
        for w in self.workers:
            if w.proc is not None:
                w.stop()


def now_pg(url: str) -> datetime:
    return pg_query(url, "SELECT clock_timestamp() AS t")[0]["t"]  # type: ignore[no-any-return]


def count(url: str, sql: str, *args: Any) -> int:
    return int(pg_query(url, sql, *args)[0][0])


async def _prepare(url: str, groups: list[Chat]) -> None:
    """The groups' automatic players at ``hard``; every action stamped by the server as it is stored."""
    db = await Database.open(url)
    try:
        for group in groups:
            await db.chats.update(group.id, auto_level="hard")
    finally:
        await db.close()
    import asyncpg

    conn = await asyncpg.connect(url)
    try:
        await conn.execute(
            "ALTER TABLE actions ADD COLUMN IF NOT EXISTS stored_at timestamptz NOT NULL DEFAULT clock_timestamp()"
        )
    finally:
        await conn.close()


def open_tables(tg: FakeTelegram, url: str, first: int, n: int) -> list[tuple[SimUser, Chat]]:
    """``n`` groups, each one person who opens a table and deals it at once (the group's players at ``hard``)."""
    people = [tg.add_user(f"P{first + i}") for i in range(n)]
    groups = [tg.add_group(f"bench {first + i}", members=[p]) for i, p in enumerate(people)]
    asyncio.run(_prepare(url, groups))
    for person, group in zip(people, groups, strict=True):
        person.say(group, "/newgame")  # the group's updates are handled in order: /begin follows /newgame
        person.say(group, "/begin")
    return list(zip(people, groups, strict=True))


def wait_dealt(url: str, tables: int, timeout: float, meanwhile: Callable[[], object] = lambda: None) -> float:
    start = time.monotonic()
    while count(url, "SELECT COUNT(DISTINCT match_id) FROM hands") < tables:
        if time.monotonic() - start > timeout:
            raise TimeoutError(f"fewer than {tables} tables dealt after {timeout} s")
        meanwhile()
        time.sleep(0.2)
    return time.monotonic() - start


def measure(cluster: Cluster, window: float, label: str) -> dict[str, Any]:
    """Actions stored a second over ``window`` seconds, and the CPU used meanwhile."""
    url = cluster.url
    before, start = CpuSample.take(cluster.live()), count(url, "SELECT COUNT(*) FROM actions")
    time.sleep(window)
    after, end = CpuSample.take(cluster.live()), count(url, "SELECT COUNT(*) FROM actions")
    rate = (end - start) / (after.at - before.at)
    cpu = after.cores_since(before)
    workers_cpu = cpu["worker_loops"] + cpu["search"]
    figures = {
        "actions_per_s": round(rate, 1),
        "actions_per_worker_core_s": round(rate / workers_cpu, 1) if workers_cpu else None,
        "cores_used": cpu,
        "cores_per_worker": cluster.allowed_cores(),
        "tables_per_worker": cluster.tables_per_worker(),
    }
    print(f"{label}: {rate:.1f} actions/s over {window:.0f} s ({figures['actions_per_worker_core_s']} per CPU second "
          f"of the workers); cores busy: {cpu}; cores each worker may use: {figures['cores_per_worker']}; "
          f"tables per worker: {figures['tables_per_worker']}")  # fmt: skip
    return figures


# --- phases 2 and 3 -------------------------------------------------------------------------------------------
def throughput(args: argparse.Namespace, work: Path, cores: list[int]) -> dict[Any, Any]:
    url = fresh_schema(durable=True)
    try:
        with FakeTelegram(token=TOKEN) as tg:
            env = {"MAHJONG_DB": url, "MAHJONG_WORKERS": "1", "MAHJONG_REDIS": REDIS,
                   "MAHJONG_SEARCH_PROCESSES": "1", **PACING, **FLAT_OUT}  # fmt: skip
            cluster = Cluster(tg, url, work, env, cores)
            try:
                return _scale(cluster, args)
            finally:
                cluster.stop()
    finally:
        drop_schema(url)


def _scale(cluster: Cluster, args: argparse.Namespace) -> dict[Any, Any]:
    first = cluster.start(pinned=False)
    cluster.wait_balanced()
    assert first.proc is not None
    tables = open_tables(cluster.tg, cluster.url, 0, args.tables)
    took = wait_dealt(cluster.url, args.tables, timeout=120)
    print(f"{args.tables} tables dealt in {took:.1f} s; {len(search_processes(first.proc.pid))} search process(es)")
    time.sleep(args.settle)
    result: dict[Any, Any] = {"free": measure(cluster, args.window, "1 worker, free on every core")}
    pin(first.proc.pid, {cluster.core_of(0)})
    time.sleep(args.settle)
    result[1] = measure(cluster, args.window, "1 worker on 1 core")
    for n in (2, 4):
        while len(cluster.workers) < n:
            cluster.start()
        took = cluster.wait_balanced()
        print(f"{n} workers: shards balanced in {took:.1f} s")
        time.sleep(args.settle)
        result[n] = measure(cluster, args.window, f"{n} workers on {min(n, len(cluster.cores))} core(s)")
        for w in cluster.live():  # a pool of one (its process spawned at the worker's first hard decision)
            assert w.proc is not None and len(search_processes(w.proc.pid)) <= 1, "one search process a worker"
            assert "(1 search processes)" in w.log(), "one search process a worker"
    result["takeover"] = takeover(cluster, [g for _, g in tables])
    for w in cluster.live():  # each gives its shards up as it stops
        w.stop()
    whole = len(cluster.cores)
    cluster.start(pinned=False, MAHJONG_SEARCH_PROCESSES=str(whole))  # resumes every table
    took = cluster.wait_balanced()
    print(f"1 worker with {whole} search processes: every shard taken in {took:.1f} s")
    time.sleep(args.settle)
    result["whole"] = measure(cluster, args.window, f"1 worker free on every core, {whole} search processes")
    return result


def takeover(cluster: Cluster, groups: list[Chat]) -> dict[str, Any]:
    """SIGKILL the worker that polls; how soon its tables move again on the others."""
    victim = next(w for w in cluster.live() if "this worker polls Telegram now" in w.log())
    shards = set(cluster.owners()[cluster.connection(victim)])
    its = [g.id for g in groups if shard_of(TableKey(g.id)) in shards]
    playing = {int(r[0]) for r in pg_query(cluster.url, PLAYING_CHATS, its)}
    assert victim.proc is not None
    # Its search processes end on their own within a second (bot.search_pool); killed here at the end all the same,
    # so that none could hold a core while the takeover is measured.
    orphans = descendants(victim.proc.pid)
    killed_at = now_pg(cluster.url)
    os.kill(victim.proc.pid, signal.SIGKILL)
    victim.proc.wait()
    try:
        first, all_moved = _moved_again(cluster.url, its, playing, killed_at)
    finally:
        for pid in orphans:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
    print(f"SIGKILL of the polling worker ({len(shards)} shards, {len(its)} tables, {len(playing)} in a hand): "
          f"its first table moved again after {first} s, all of them after {all_moved} s")  # fmt: skip
    return {"takeover_s": first, "takeover_all_s": all_moved, "tables": len(its), "shards": len(shards)}


def _moved_again(url: str, its: list[int], playing: set[int], killed_at: datetime) -> tuple[float | None, float | None]:
    """Seconds from the kill to the first action stored on one of ``its`` tables, and to a new action on every
    table of ``playing`` (None: not within a minute)."""
    deadline, first, all_moved = time.monotonic() + 60, None, None
    while time.monotonic() < deadline and all_moved is None:
        moved = {int(r["chat_id"]): r["first"] for r in pg_query(url, ACTIONS_OF_CHATS_AFTER, its, killed_at)}
        if moved and first is None:
            first = (min(moved.values()) - killed_at).total_seconds()
        if playing and playing <= moved.keys():
            all_moved = (max(moved[c] for c in playing) - killed_at).total_seconds()
        time.sleep(0.1)
    return first, all_moved


# --- phase 4 --------------------------------------------------------------------------------------------------
def per_core(args: argparse.Namespace, work: Path, cores: list[int]) -> dict[str, Any]:
    """One worker on one core: tables added until an automatic player's decision comes late."""
    url = fresh_schema(durable=True)
    mine = os.sched_getaffinity(0)
    try:
        with FakeTelegram(token=TOKEN) as tg:
            env = {"MAHJONG_DB": url, "MAHJONG_WORKERS": "1", "MAHJONG_REDIS": REDIS, "MAHJONG_SEARCH_PROCESSES": "1",
                   "MAHJONG_BOT_DELAY": str(Config.bot_delay), **PACING}  # fmt: skip
            cluster = Cluster(tg, url, work, env, cores[:1])
            if len(cores) > 1:  # the simulated people and the fake Bot API off the worker's core
                os.sched_setaffinity(0, set(cores[1:]))
            try:
                cluster.start()
                cluster.wait_balanced()
                return _step_up(cluster, args)
            finally:
                cluster.stop()
    finally:
        os.sched_setaffinity(0, mine)
        drop_schema(url)


def _step_up(cluster: Cluster, args: argparse.Namespace) -> dict[str, Any]:
    drivers: list[Players] = []

    def drive() -> None:
        for d in drivers:
            d.step()

    def drive_for(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            drive()
            time.sleep(0.01)

    steps, carried = [], 0
    while len(drivers) + args.core_step <= args.core_max:
        added = open_tables(cluster.tg, cluster.url, len(drivers), args.core_step)
        drivers += [Players(cluster.tg, g, [p], think=THINK_S) for p, g in added]
        wait_dealt(cluster.url, len(drivers), timeout=60, meanwhile=drive)
        drive_for(args.settle)
        t0, writes0, cpu0 = now_pg(cluster.url), len(_writes(cluster.tg)), CpuSample.take(cluster.live())
        drive_for(args.core_window)
        t1, writes1, cpu1 = now_pg(cluster.url), len(_writes(cluster.tg)), CpuSample.take(cluster.live())
        rows = pg_query(cluster.url, AUTOMATIC_GAPS, t0, t1)
        gaps = sorted(float(r["gap"]) for r in rows)
        late, strict = sum(g > ON_TIME_S for g in gaps), sum(g > STRICT_S for g in gaps)
        for r in sorted(rows, key=lambda r: -float(r["gap"]))[: min(late, 5)]:
            print(f"  late: {float(r['gap']):.3f} s for {r['action']} after {r['before']}")
        step = {
            "tables": len(drivers),
            "decisions": len(gaps),
            "late": late,
            "over_delay_and_one_budget": strict,
            "gap_p50_s": round(statistics.median(gaps), 3) if gaps else None,
            "gap_p99_s": round(gaps[int(0.99 * (len(gaps) - 1))], 3) if gaps else None,
            "gap_max_s": round(gaps[-1], 3) if gaps else None,
            "writes_per_s": round((writes1 - writes0) / (cpu1.at - cpu0.at), 1),
            "cores_used": cpu1.cores_since(cpu0),
        }
        steps.append(step)
        print(f"one core, {len(drivers)} tables: {len(gaps)} automatic decisions, {late} late "
              f"(> {ON_TIME_S:.1f} s after the action before; {strict} > {STRICT_S:.1f} s); "
              f"gap p50 {step['gap_p50_s']} s, p99 {step['gap_p99_s']} s, max {step['gap_max_s']} s; "
              f"{step['writes_per_s']} writes/s; cores busy {step['cores_used']}")  # fmt: skip
        if late or not gaps:
            break
        carried = len(drivers)
    return {"tables_per_core_hard": carried, "steps": steps}


def live_workers(args: argparse.Namespace, work: Path, cores: list[int]) -> dict[str, Any]:
    """Phase 5: pages on two workers, presses shown on them; a worker SIGKILLed under its pages."""
    live = bench_module("live")  # its tables and pages
    url = fresh_schema(durable=True)
    ports = [free_port(), free_port()]
    try:
        with FakeTelegram(token=TOKEN) as tg:
            env = {"MAHJONG_DB": url, "MAHJONG_WORKERS": "1", "MAHJONG_REDIS": REDIS, "MAHJONG_SEARCH_PROCESSES": "1",
                   **live.QUIET, "MAHJONG_LOG_LEVEL": "INFO", "MAHJONG_BOT_DELAY": "0.6", "MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{ports[0]}/",
                   "MAHJONG_WEBAPP_PER_ADDRESS": str(args.live_tables)}  # fmt: skip
            cluster = Cluster(tg, url, work, env, cores)
            try:
                for port in ports:
                    cluster.start(MAHJONG_WEBAPP_LISTEN=f"127.0.0.1:{port}")
                cluster.wait_balanced()
                tables = live._tables(tg, args.live_tables)
                live._deal(tg, tables)
                # Every table dealt before the window: a table still in its lobby when its worker is killed is
                # lost with it (not stored yet), and its page rightly told there is no such table.
                wait_dealt(url, len(tables), timeout=120)
                return asyncio.run(_live_pages(live, cluster, tables, ports, args.window))
            finally:
                cluster.stop()
    finally:
        drop_schema(url)


async def _live_pages(
    live: ModuleType, cluster: Cluster, tables: list[tuple[SimUser, Chat]], ports: list[int], window: float
) -> dict[str, Any]:
    tg = cluster.tg
    urls = [f"ws://127.0.0.1:{port}/ws" for port in ports]
    pages = [await live._connect(urls[n % 2], tg, p, g, THINK_S) for n, (p, g) in enumerate(tables)]
    until = time.monotonic() + window
    await asyncio.gather(*(page.run(until) for page in pages))
    shown = [s for page in pages for s in page.shown]
    p95 = live._p95(shown) * 1000
    owners = await asyncio.to_thread(cluster.owners)
    elsewhere = [
        shard_of(TableKey(g.id)) not in owners.get(cluster.connection(cluster.workers[n % 2]), [])
        for n, (_, g) in enumerate(tables)
    ]
    remote = sum(elsewhere)
    for where in (False, True):
        some = [s for page, e in zip(pages, elsewhere, strict=True) if e == where for s in page.shown]
        if some:
            print(f"  pages {'elsewhere' if where else 'with their table'}: {len(some)} presses, p95"
                  f" {live._p95(some) * 1000:.1f} ms")  # fmt: skip
    print(f"{len(tables)} tables on 2 workers, {remote} pages on the worker without their table: {len(shown)} presses"
          f" shown; p50 {statistics.median(shown) * 1000:.1f} ms, p95 {p95:.1f} ms")  # fmt: skip
    for page in pages:
        for task in page.tasks:
            task.cancel()
    victim = cluster.workers[0]
    assert victim.proc is not None
    victim.proc.send_signal(signal.SIGKILL)
    killed_at = time.monotonic()
    under = list(zip(pages[0::2], tables[0::2], strict=True))
    ended = await asyncio.gather(*(_reconnect(live, page.ws, urls[1], tg, table, killed_at) for page, table in under))
    victim.proc.wait()
    for page in pages[1::2]:
        page.ws.close()
    again = [s for s in ended if s is not None]
    never = len(ended) - len(again)  # refused (no such table) or closed before their table's view came
    slowest, median = (max(again), statistics.median(again)) if again else (float("nan"), float("nan"))
    print(f"SIGKILL under {len(under)} pages: {len(again)} current again on the other worker within {slowest:.2f} s"
          f" (median {median:.2f} s), {never} never")  # fmt: skip
    return {
        "ws_workers_own_view_p95_ms": round(p95, 1),
        "ws_reconnect_s": round(slowest, 2) if not never else None,
        "ws_reconnect_never": never,
        "ws_workers_tables": len(tables),
        "ws_workers_presses": len(shown),
        "ws_workers_pages_elsewhere": remote,
        "ws_reconnect_median_s": round(median, 2) if again else None,
    }


async def _reconnect(
    live: ModuleType,
    ws: WebSocketClientConnection,
    url: str,
    tg: FakeTelegram,
    table: tuple[SimUser, Chat],
    killed_at: float,
) -> float | None:
    """As live.js: the socket ends, 0.5 s later it opens on another worker; when the table's view came, after the
    kill (None: the socket ended first, the page refused)."""
    while await ws.read_message() is not None:
        pass
    await asyncio.sleep(0.5)
    again = (await live._connect(url, tg, *table, THINK_S)).ws
    while (text := await again.read_message()) is not None:
        if json.loads(text).get("type") == "view":
            again.close()
            return time.monotonic() - killed_at
    return None


def _writes(tg: FakeTelegram) -> list[Any]:
    return [c for c in tg.calls() if c.method in WRITES]


async def _redis_answers() -> bool:
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS, socket_connect_timeout=1)
    try:
        return bool(await client.ping())
    except (redis.RedisError, OSError):
        return False
    finally:
        await client.aclose()


def arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=200, help="phase 2: tables of hard players")
    parser.add_argument("--window", type=float, default=20.0, help="phase 2: seconds measured per worker count")
    parser.add_argument("--settle", type=float, default=3.0, help="seconds let pass before each window")
    parser.add_argument("--core-step", type=int, default=2, help="phase 4: tables added per step")
    parser.add_argument("--core-window", type=float, default=15.0, help="phase 4: seconds measured per step")
    parser.add_argument("--core-max", type=int, default=24, help="phase 4: at most this many tables")
    parser.add_argument("--skip-core", action="store_true", help="without phase 4")
    parser.add_argument("--only-core", action="store_true", help="phase 4 alone (while trying it out)")
    parser.add_argument("--live-tables", type=int, default=200, help="phase 5: tables with a live page")
    parser.add_argument("--skip-live", action="store_true", help="without phase 5")
    parser.add_argument("--only-live", action="store_true", help="phase 5 alone")
    return parser.parse_args()


def main() -> None:
    args = arguments()
    missing = "PostgreSQL at 127.0.0.1:5432 (database test) or MAHJONG_TEST_POSTGRES" if server_url() is None else None
    if missing is None and not asyncio.run(_redis_answers()):
        missing = f"Redis at {REDIS} (MAHJONG_BENCH_REDIS)"
    if missing is not None:  # `make bench` goes on with the other benches
        print(f"bench/workers.py did not run: it needs {missing}")
        print(json.dumps({"skipped": f"no {missing}"}))
        return
    cores = sorted(os.sched_getaffinity(0))
    if args.only_core or args.only_live:
        with tempfile.TemporaryDirectory() as tmp:
            phase = per_core if args.only_core else live_workers
            print(f"machine: {os.cpu_count()} cores, this bench may use {cores}; load average {os.getloadavg()}")
            result = phase(args, Path(tmp), cores)
            print(f"load average {os.getloadavg()}")
            print(json.dumps(result))
        return
    print(f"machine: {os.cpu_count()} cores, this bench may use {cores}; load average {os.getloadavg()}")
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        appends = append_medians(work)
        scale = throughput(args, work, cores)
        core = per_core(args, work, cores) if not args.skip_core else {"tables_per_core_hard": None, "steps": []}
        live = live_workers(args, work, cores) if not args.skip_live else {}
    print(f"load average {os.getloadavg()}; {time.monotonic() - started:.0f} s in all")
    print(json.dumps(summary(args, appends, scale, core) | live))


def summary(
    args: argparse.Namespace, appends: tuple[float, float], scale: dict[Any, Any], core: dict[str, Any]
) -> dict[str, Any]:
    """The last line: the figures asked for first, the raw ones beside them."""
    rates = {n: scale[n]["actions_per_s"] for n in (1, 2, 4)}
    return {
        "speedup_2_workers": round(rates[2] / rates[1], 2),
        "speedup_4_workers": round(rates[4] / rates[1], 2),
        "takeover_s": _round(scale["takeover"]["takeover_s"]),
        "pg_append_ms_median": round(appends[0], 3),
        "sqlite_append_ms_median": round(appends[1], 3),
        "tables_per_core_hard": core["tables_per_core_hard"],
        "tables": args.tables,
        "window_s": args.window,
        "actions_per_s_1_worker_free": scale["free"]["actions_per_s"],
        "actions_per_s_1_worker_all_cores_searching": scale["whole"]["actions_per_s"],
        **{f"actions_per_s_{n}_workers": rates[n] for n in (1, 2, 4)},
        **{f"cores_used_{n}_workers": scale[n]["cores_used"] for n in (1, 2, 4)},
        "cores_used_1_worker_free": scale["free"]["cores_used"],
        "cores_used_1_worker_all_cores_searching": scale["whole"]["cores_used"],
        **{f"actions_per_worker_core_s_{n}_workers": scale[n]["actions_per_worker_core_s"] for n in (1, 2, 4)},
        **{f"tables_per_worker_{n}_workers": scale[n]["tables_per_worker"] for n in (1, 2, 4)},
        **{f"cores_per_worker_{n}_workers": scale[n]["cores_per_worker"] for n in (1, 2, 4)},
        "cores_per_worker_1_worker_free": scale["free"]["cores_per_worker"],
        "search_processes_per_worker": 1,
        "takeover_all_s": _round(scale["takeover"]["takeover_all_s"]),
        "on_time_s": round(ON_TIME_S, 3),
        "per_core_steps": core["steps"],
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


if __name__ == "__main__":
    main()

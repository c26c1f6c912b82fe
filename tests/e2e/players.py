"""Simulated people at the bot's tables, and the real bot process they play against.

``BotProcess(tg, db_path, **env)`` runs the bot (``python -m bot``'s main, forked: tests.e2e.forked) against a
FakeTelegram server (``kill()`` sends SIGKILL, ``start()`` again resumes). ``Players(tg, group, users)`` presses,
for every user, the buttons the bot offers them now — choosing with ``tests.e2e.policy.pick`` — until a condition
holds (``topic=``: the table of that forum topic).

    with BotProcess(tg, tmp_path / "db.sqlite3", MAHJONG_SEED="852") as bot:
        alice.say(group, "/newgame") ...
        players = Players(tg, group, [alice, bob, carol, dan], allow_hu=lambda caption: "抢杠" in caption)
        players.play_until(lambda: any("荒庄" in t for t in group_texts(tg, group)), timeout=60)
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import asyncpg

from bot.callbacks import AUTO, FLEE_PREFIX, PLAY_PATTERN, BadCallback, PlayButton, Stamp, parse_action_code
from bot.config import Config
from bot.table.key import TableKey
from game.actions import Action
from sandbox import FakeTelegram
from sandbox.records import Button, CallbackAnswer, Chat, Message
from sandbox.users import SimUser
from tests.e2e.forked import ROOT, ForkedBot
from tests.e2e.policy import pick

T = TypeVar("T")

# Short timers so a test takes seconds; the claim window stays long enough that players never miss one. A group
# is written to faster than Telegram allows (the fake server only counts): a test of pacing asks for PRODUCTION.
FAST = {
    "MAHJONG_CLAIM_SECONDS": "20",
    "MAHJONG_TURN_SECONDS": "30",
    "MAHJONG_BOT_DELAY": "0",
    # A held draw's longest moment (bot.table.held.hold): short, still there (test_claim_window holds it longer).
    # Every draw no person may claim is held, at a table of two or more people: a hand holds some forty.
    "MAHJONG_CLAIM_PAUSE": "0.1",
    "MAHJONG_NEXT_HAND_SECONDS": "30",
    "MAHJONG_PRIVATE_INTERVAL": "0.02",
    "MAHJONG_PASSIVE_INTERVAL": "2",
    "MAHJONG_GROUP_INTERVAL": "0.3",
    "MAHJONG_GROUP_IDLE_INTERVAL": "0.3",  # a group of the seated people alone: as fast as any other here
}
PRODUCTION = {  # a group's pace as in a real group
    "MAHJONG_GROUP_INTERVAL": str(Config.group_interval),
    "MAHJONG_GROUP_IDLE_INTERVAL": str(Config.group_idle_interval),
}
# What the bot logs once it is up (bot.app: alone or as one of several workers), and how long a start-up may take
# on a machine whose cores every test worker shares.
STARTED = re.compile(r"bot @\S+ started[; ]")
STARTUP_SECONDS = 60.0


class BotProcess:
    """The real bot, ``python -m bot``, pointed at the fake server and a database file."""

    def __init__(self, tg: FakeTelegram, db_path: Path, **env: str) -> None:
        self.env = os.environ | tg.bot_environment() | FAST | {"MAHJONG_DB": str(db_path)} | env
        self.log_path = db_path.with_suffix(".log")
        self.proc: ForkedBot | subprocess.Popen[bytes] | None = None
        self.killed = False  # by kill(), not on its own

    def start(self, *, wait: bool = True) -> BotProcess:
        """Starts the bot and, unless ``wait=False``, waits until it is up (its tables resumed, about to poll):
        a test's timeouts then measure the bot's answers, not a start-up slowed by a busy machine. A bot that logs
        only warnings (the benches') has no start-up line to wait for."""
        started = self._starts()
        self.killed = False
        self.proc = self._launch()
        if wait and self.env.get("MAHJONG_LOG_LEVEL", "INFO").upper() in ("DEBUG", "INFO"):
            self.wait_until_up(started + 1)
        return self

    def _launch(self) -> ForkedBot | subprocess.Popen[bytes]:
        """Forked (tests.e2e.forked): the tests start some 45 bots a run."""
        return ForkedBot(self.env, self.log_path)

    def _starts(self) -> int:
        return len(STARTED.findall(self.log())) if self.log_path.exists() else 0

    def wait_until_up(self, starts: int) -> None:
        """Until the log shows ``starts`` start-ups in all (it is kept across restarts)."""
        self._wait_for(lambda: self._starts() >= starts, STARTUP_SECONDS, "be up")

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flushing; whatever was not stored is lost."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.killed = True

    def stop(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is not None and not self.killed:  # it died on its own: shown with the failing test
            print(f"the bot had exited ({self.proc.returncode}); its log ends:\n{self.log()[-8000:]}", file=sys.stderr)
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:  # it hung: where, into its log (bot.app: SIGUSR1), then killed
                self.proc.send_signal(signal.SIGUSR1)
                time.sleep(1)
                self.proc.kill()
                self.proc.wait()
                # Shown with the failing test: the log's end holds every thread's stack.
                print("the bot did not stop; its log ends:\n" + self.log()[-8000:], file=sys.stderr)
        return self.proc.returncode

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_for_log(self, text: str, *, timeout: float) -> None:
        """Until the bot has logged ``text`` (in its log kept across restarts)."""
        self._wait_for(lambda: text in self.log(), timeout, f"log {text!r}")

    def _wait_for(self, done: Callable[[], bool], timeout: float, what: str) -> None:
        """Until ``done()``, which reads the log: a file, read every 50 ms (the fake server's ``wait_until`` wakes
        only when something reaches the server, and a skipped update sends nothing). A bot that exits first, or
        the timeout, fails the test with the log's end."""
        assert self.proc is not None
        deadline = time.monotonic() + timeout
        while not done():
            if self.proc.poll() is not None:
                code = self.proc.returncode
                raise RuntimeError(f"the bot exited ({code}) before it could {what}:\n{self.log()[-4000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the bot did not {what} within {timeout} s:\n{self.log()[-4000:]}")
            time.sleep(0.05)

    def __enter__(self) -> BotProcess:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()


class CommandBotProcess(BotProcess):
    """``python -m bot`` itself, as an operator starts it: for the benches, whose figures (start-up, memory) are
    those of the command."""

    def _launch(self) -> subprocess.Popen[bytes]:
        with self.log_path.open("ab") as log:
            return subprocess.Popen([sys.executable, "-m", "bot"], cwd=ROOT, env=self.env, stdout=log, stderr=log)


@dataclass
class SharedBot:
    """One bot process that a module's tests share, each with its own groups and people (a module fixture yields
    it; a function fixture calls ``begin`` for each test): the fake server, the process and its database."""

    tg: FakeTelegram
    bot: BotProcess
    db: Path
    logged: int = 0  # the length of the bot's log when the running test began

    def begin(self) -> SharedBot:
        self.logged = len(self.bot.log())
        return self

    def log(self) -> str:
        """What the bot logged while the running test ran (not what an earlier test's faults made it log)."""
        return self.bot.log()[self.logged :]


def group_texts(tg: FakeTelegram, group: Chat) -> list[str]:
    """Everything the bot shows in the group: texts and captions, oldest first."""
    return [m.text or m.caption or "" for m in tg.messages(group.id)]


def game_buttons(message: Message, group: Chat, topic: int | None = None) -> list[Button]:
    """The message's buttons that belong to the table in ``group`` (in its forum topic ``topic``)."""
    out = []
    for b in message.buttons:
        try:
            if b.callback_data is not None and PlayButton.decode(b.callback_data).table == TableKey(group.id, topic):
                out.append(b)
        except BadCallback:
            continue
    return out


def prompts_shown(tg: FakeTelegram, chat_id: int) -> list[tuple[Stamp, float]]:
    """Every prompt the bot wrote to the chat, in order: the stamp of each write's play buttons, and when the fake
    server answered it (its clock, time.monotonic)."""
    shown = []
    for call in tg.calls(chat_id=chat_id):
        markup = json.loads(str(call.params.get("reply_markup") or "{}"))
        data = [b.get("callback_data", "") for row in markup.get("inline_keyboard", []) for b in row]
        stamps = [PlayButton.decode(d).stamp for d in data if re.match(PLAY_PATTERN, d)]
        shown += [(stamp, call.at) for stamp in stamps[:1] if stamp.counter is not None]
    return shown


class Players:
    """Four (or fewer) simulated people pressing what the bot offers them."""

    def __init__(
        self,
        tg: FakeTelegram,
        group: Chat,
        users: Iterable[SimUser],
        *,
        allow_hu: Callable[[str], bool] = lambda caption: True,
        idle: Iterable[SimUser] = (),
        think: float = 0.0,
        topic: int | None = None,
    ) -> None:
        self.tg, self.group, self.topic = tg, group, topic
        self.users = list(users)
        self.allow_hu = allow_hu
        self.idle = {u.id for u in idle}  # these never press anything (they time out)
        self.think = think  # seconds a person looks at a new picture before pressing
        self._seen: dict[int, tuple[tuple[int, int], float]] = {}  # user -> (message id, edits), first seen
        self._pressed: set[tuple[int, str]] = set()  # (user, stamp or message version) already answered
        self._settled: dict[int, int] = {}  # user -> the chat's write count when they had nothing left to press
        self.presses: list[tuple[SimUser, str, str]] = []  # (user, callback data, query id)

    def current(self, user: SimUser) -> Message | None:
        """The user's newest private message from the bot that has buttons for this table."""
        for message in reversed(user.private_messages()):
            if game_buttons(message, self.group, self.topic):
                return message
        return None

    def step(self) -> int:
        """Press once for every user who has an unanswered prompt; how many pressed."""
        pressed = 0
        for user in self.users:
            # A chat the bot has not written to since leaves nothing new to press (a hundred tables' players,
            # looked at every few ms, would otherwise keep the fake server's threads waiting).
            writes = self.tg.writes_to(user.id)
            if user.id in self.idle or self._settled.get(user.id) == writes:
                continue
            message = self.current(user)
            if message is not None and not self._looked_at(user, message):
                continue  # still looking at it
            choice = None if message is None else self.choose(user, message)
            if choice is None:
                self._settled[user.id] = writes
                continue
            data = choice.callback_data or ""
            self.presses.append((user, data, user.press(message, data)))
            pressed += 1
        return pressed

    def _looked_at(self, user: SimUser, message: Message) -> bool:
        """Whether the user has seen this version of the message for ``think`` seconds."""
        version, now = (message.message_id, message.edits), time.monotonic()
        if self._seen.get(user.id, (None, 0.0))[0] != version:
            self._seen[user.id] = (version, now)
        return now - self._seen[user.id][1] >= self.think

    def choose(self, user: SimUser, message: Message) -> Button | None:
        buttons = game_buttons(message, self.group, self.topic)
        first = PlayButton.decode(buttons[0].callback_data)
        if first.stamp == Stamp():  # Ready / I'm back: once per version of the message
            key = (user.id, f"m{message.message_id}.{message.edits}")
            if key in self._pressed:
                return None
            self._pressed.add(key)
            return buttons[0]
        key = (user.id, first.stamp.encode())
        if key in self._pressed:
            # Pressed already, and shown again after a newer prompt (a stopped worker's last write, landing after
            # the new owner's): tapped once more, as a person would; the bot answers it is stale and shows the
            # current one.
            key = (user.id, f"m{message.message_id}.{message.edits}")
            if key in self._pressed or not self._shown_newer(user, first.stamp):
                return None
        self._pressed.add(key)
        seat = first.stamp.seat or 0
        offered: dict[Action, Button] = {}
        for b in buttons:
            code = PlayButton.decode(b.callback_data).code
            if code != AUTO:  # the simulated people play every decision themselves
                offered[parse_action_code(code, seat)] = b
        caption = message.caption or message.text or ""
        action = pick(list(offered), lambda _a: self.allow_hu(caption))
        return offered[action]

    def _shown_newer(self, user: SimUser, stamp: Stamp) -> bool:
        """Whether the user's chat was shown a prompt newer than ``stamp``'s (any version of any message)."""
        return any(
            (s.hand, s.counter or 0) > (stamp.hand, stamp.counter or 0) for s, _at in prompts_shown(self.tg, user.id)
        )

    def play_until(self, done: Callable[[], object], *, timeout: float, poll: float = 0.02) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            if time.monotonic() > deadline:
                raise TimeoutError(f"not done after {timeout} s; the group shows: {group_texts(self.tg, self.group)}")
            if not self.step():
                time.sleep(poll)


def webhook_address() -> tuple[str, str]:
    """(url, listen) on a free loopback port, for MAHJONG_WEBHOOK_URL and MAHJONG_WEBHOOK_LISTEN."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    return f"http://127.0.0.1:{port}/telegram-hook", f"127.0.0.1:{port}"


def command_json(
    chat: dict[str, Any], sender: dict[str, Any], text: str, message_id: int, **extra: Any
) -> dict[str, Any]:
    """A message carrying the command ``text``, from ``sender`` in ``chat`` (their Bot API objects), as Telegram
    would send it; ``extra`` adds or replaces fields (edit_date, sender_chat, ...)."""
    return {
        "message_id": message_id,
        "date": int(time.time()),
        "chat": chat,
        "from": sender,
        "text": text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(text.split()[0])}],
        **extra,
    }


def private_command(user: SimUser, text: str) -> dict[str, Any]:
    """An update carrying ``text`` as a command the user sent the bot in private, as Telegram would post it."""
    chat = {"id": user.id, "type": "private", "first_name": user.first_name}
    return {"update_id": 1, "message": command_json(chat, user.to_api(), text, 1)}


def post_update(url: str, update: dict[str, Any], secret: str, *, wait: float = 0.0) -> int:
    """POST an update as Telegram would; the HTTP status, 0 while nothing listens (retried for ``wait`` seconds:
    PTB registers the webhook first, then starts listening)."""
    request = urllib.request.Request(
        url,
        json.dumps(update).encode(),
        method="POST",
        headers={"Content-Type": "application/json", "X-Telegram-Bot-Api-Secret-Token": secret},
    )
    direct = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    deadline = time.monotonic() + wait
    while True:
        try:
            with direct.open(request, timeout=5) as response:
                return int(response.status)
        except urllib.error.HTTPError as e:
            return e.code
        except urllib.error.URLError:
            if time.monotonic() >= deadline:
                return 0
            time.sleep(0.05)


def flee_question(tg: FakeTelegram, user: SimUser, group: Chat) -> Message:
    """/flee by ``user``: the question it asks first (Flee / Stay) once shown in the group."""
    before = max((m.message_id for m in tg.messages(group.id, from_bot=None)), default=0)
    user.say(group, "/flee")

    def question() -> Message | None:
        return next((m for m in tg.messages(group.id) if m.message_id > before and flee_button(m, True)), None)

    return tg.wait_until(question, timeout=15, what=f"/flee's question to {user.first_name}")


def flee_button(message: Message, confirm: bool = True) -> str | None:
    """The data of /flee's Flee (or Stay) button on ``message``, if it has one."""
    wanted = "|yes" if confirm else "|no"
    return next(
        (
            d
            for b in message.buttons
            if (d := b.callback_data) and d.startswith(f"{FLEE_PREFIX}|") and d.endswith(wanted)
        ),
        None,
    )


def press_flee(tg: FakeTelegram, user: SimUser, question: Message, *, confirm: bool = True) -> CallbackAnswer:
    """``user`` presses Flee (or Stay) under ``question``: the press's answer."""
    data = flee_button(question, confirm)
    assert data is not None, question
    return tg.wait_for_callback_answer(user.press(question, data), timeout=15)


def flee(tg: FakeTelegram, user: SimUser, group: Chat) -> CallbackAnswer:
    """/flee and its Flee button, as a person who means it."""
    return press_flee(tg, user, flee_question(tg, user, group))


def open_table(tg: FakeTelegram, group: Chat, users: Sequence[SimUser]) -> None:
    """The first user opens a table in the group (东, the dealer), the others join it at once (seated in the order
    the bot takes their /join), and once the lobby shows them all the first begins: automatic players take the
    seats left. No lobby write is waited for at each join: at a group's real pace (PRODUCTION) each takes 3 s."""
    users[0].say(group, "/newgame")
    tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=15)  # a /join finds it open
    for user in users[1:]:
        user.say(group, "/join")
    names = [u.first_name for u in users]
    tg.wait_for_message(
        group.id, lambda m: all(n in (m.text or "") for n in names) and "开局" in str(m.reply_markup), timeout=30
    )
    users[0].say(group, "/begin")


def offers_a_move(user: SimUser, group: Chat) -> bool:
    """Whether the user's newest picture has a move's button (not Ready or I'm back, whose stamp is 0)."""
    pictures = [m for m in user.private_messages() if m.photo is not None]
    return bool(pictures) and any(
        PlayButton.decode(b.callback_data or "").stamp != Stamp() for b in game_buttons(pictures[-1], group)
    )


def on_postgres(url: str, work: Callable[[asyncpg.Connection], Awaitable[T]]) -> T:
    """``work`` done on a connection of its own to the PostgreSQL at ``url`` (a bot's database, from the test)."""

    async def run() -> T:
        conn = await asyncpg.connect(url)
        try:
            return await work(conn)
        finally:
            await conn.close()

    return asyncio.run(run())


def pg_query(url: str, sql: str, *args: Any) -> list[asyncpg.Record]:
    """The rows of one query on the PostgreSQL at ``url``."""
    return list(on_postgres(url, lambda conn: conn.fetch(sql, *args)))

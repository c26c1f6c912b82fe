"""The tables' registry and runners in-process, with a real SQLite file, the real outbox and the fake Bot API on
loopback, and a clock the test moves: a flight's penalty is stored even when the table is stopped in the same
hand, also across a crash; a settlement the database refuses is tried again until it is stored; a table takes
its messages one at a time however many arrive at once."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from telegram import Bot

from bot.callbacks import code_of
from bot.config import Config
from bot.host.edge import Edge, members
from bot.host.registry import Tables
from bot.host.resume import resume_tables
from bot.host.runner import CATCH_UP_POLL, CATCH_UP_SECONDS, StepFailed, TableMoved
from bot.i18n import t
from bot.outbox import Outbox
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.hand import due_at
from bot.table.key import TableKey
from bot.table.state import Table
from bot.waits import CLOCK
from game.titles import START_SKILL
from sandbox import FakeTelegram
from sandbox.records import Chat, FaultKind
from sandbox.users import SimUser
from storage.database import Database
from tests.clock import FakeClock


class Clock:
    """The tables' monotonic time; the test moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _tables(
    tg: FakeTelegram, bot: Bot, db: Database, clock: Clock, pace: FakeClock | None = None, **settings: float
) -> Tables:
    """``pace``: the outbox's clock (its writes wait for the test to move it), else the real one."""
    timers = {"bot_delay": 60.0} | settings
    config = Config(token=tg.token, api_base_url=tg.base_url, match_seed=852, **timers)  # type: ignore[arg-type]
    writes = CLOCK if pace is None else pace
    outbox = Outbox(bot, group_interval=config.group_interval, private_interval=config.private_interval, clock=writes)
    return Tables(config, Edge(config, db, outbox, bot), clock)


async def _alone(tg: FakeTelegram, tmp_path: Path) -> tuple[SimUser, Chat, Database]:
    """Alice, a group of her alone and a fresh database: a table of one person and three automatic players."""
    alice = tg.add_user("Alice")
    return alice, tg.add_group("g", members=[alice]), await Database.open(tmp_path / "db.sqlite3")


async def _open(tables: Tables, key: TableKey, *people: tuple[int, str]) -> None:
    (creator, name), *others = people
    await tables.ask(key, msg.Open(creator, name, "g"))
    for user_id, other in others:
        await tables.ask(key, msg.Join(user_id, other))
    await tables.ask(key, msg.Begin(creator))


async def test_a_flight_then_stop_settles_the_penalty(fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("g", members=[alice, bob])
    db = await Database.open(tmp_path / "db.sqlite3")
    tables = _tables(tg, bot, db, Clock())
    key = TableKey(group.id)
    await _open(tables, key, (alice.id, "Alice"), (bob.id, "Bob"))
    table = tables.get(key)
    assert table is not None and table.state == "playing" and table.match is not None
    penalty = table.match.rules.flee_penalty
    await tables.ask(key, msg.Leave(bob.id, flee=True))
    assert table.seat(1).user_id is None  # an automatic player sits there now
    await tables.ask(key, msg.Stop(alice.id, is_admin=False))
    assert tables.get(key) is None
    await tables.close()
    await tables.edge.outbox.close()
    bob_now, alice_now = await db.players.get(bob.id), await db.players.get(alice.id)
    await db.close()
    assert bob_now is not None and alice_now is not None
    assert bob_now.skill == START_SKILL - penalty
    assert alice_now.skill > START_SKILL  # her share of the penalty


async def test_a_flight_survives_a_crash_before_its_hand_ends(
    fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("g", members=[alice, bob])
    path, key = tmp_path / "db.sqlite3", TableKey(group.id)
    db = await Database.open(path)
    tables = _tables(tg, bot, db, Clock())
    await _open(tables, key, (alice.id, "Alice"), (bob.id, "Bob"))
    await tables.ask(key, msg.Leave(bob.id, flee=True))  # then the process dies: nothing settled yet
    table = tables.get(key)
    assert table is not None and table.hand_id is not None
    assert (await db.hands.get(table.hand_id)).status == "playing"
    await tables.close()  # no orderly end of the table: its runner is gone like the process
    await tables.edge.outbox.close()
    await db.close()
    db = await Database.open(path)
    tables = _tables(tg, bot, db, Clock())
    assert await resume_tables(tables, db) == 1
    await tables.ask(key, msg.Stop(alice.id, is_admin=False))
    await tables.close()
    await tables.edge.outbox.close()
    bob_now = await db.players.get(bob.id)
    await db.close()
    assert bob_now is not None and bob_now.skill == START_SKILL - 400


async def test_a_settlement_that_fails_is_retried_until_it_is_stored(
    fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, group, db = await _alone(tg, tmp_path)
    # The disk "fails" while a flag row exists: every settlement write is refused.
    await db.execute("CREATE TABLE fail_flag (x INTEGER)")
    await db.execute("INSERT INTO fail_flag VALUES (1)")
    await db.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON settlements WHEN EXISTS (SELECT 1 FROM fail_flag) "
        "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
    )
    clock = Clock()
    tables = _tables(tg, bot, db, clock, bot_delay=0.0, turn_seconds=0.1, claim_seconds=0.1)
    key = TableKey(group.id)
    await _open(tables, key, (alice.id, "Alice"))
    table = tables.get(key)
    assert table is not None and table.hand is not None
    runner = tables._runners[key]
    # Alice never answers: at each due time (the test's clock), whatever is due is played, 托管 for her.
    for _ in range(500):
        clock.now = tables.scheduler.due(key) or clock.now
        try:
            await runner.ask(msg.Due())
        except StepFailed:  # the last action's step: its settlement refused (logged; whoever asked is told)
            break
    assert table.hand.finished and table.state == "playing"  # settled nowhere: storage refused it
    assert (await db.hands.get(table.hand_id or 0)).status == "playing"
    retry = tables.scheduler.due(key)
    assert retry is not None and retry > clock.now  # tried again later, not in a hot loop
    await db.execute("DELETE FROM fail_flag")  # the disk is back
    clock.now = retry
    await runner.ask(msg.Due())
    assert (await db.hands.get(table.hand_id or 0)).status == "done"
    assert table.state == "between" and table.match is not None and table.match.hands_played == 1
    await tables.ask(key, msg.Stop(alice.id, is_admin=False))
    await tables.close()
    await tables.edge.outbox.close()
    await db.close()


async def test_a_burst_of_presses_is_taken_one_at_a_time(fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, group, db = await _alone(tg, tmp_path)
    tables = _tables(tg, bot, db, Clock())
    key = TableKey(group.id)
    await _open(tables, key, (alice.id, "Alice"))
    table = tables.get(key)
    assert table is not None and table.hand is not None
    seat = table.seat_of(alice.id)
    assert seat is not None
    stamp, legal = table.stamp(seat), table.prompts[seat].legal
    # Every button of one picture pressed at once (a player tapping wildly): exactly one counts.
    answers = await asyncio.gather(
        *(tables.ask(key, msg.Press(alice.id, stamp, code_of(a), "en")) for a in legal if a.kind == "discard")
    )
    assert sum(a.text is None for a in answers) == 1
    assert len(await db.hands.actions(table.hand_id or 0)) == 1
    await tables.close()
    await tables.edge.outbox.close()
    await db.close()


async def test_one_person_sits_at_one_table_at_a_time(fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("牌友群", members=[alice, bob])
    db = await Database.open(tmp_path / "db.sqlite3")
    tables = _tables(tg, bot, db, Clock())
    first, second = TableKey(group.id, 7), TableKey(group.id, 9)  # two topics of one forum
    await tables.ask(first, msg.Open(alice.id, "Alice", "牌友群"))
    await tables.ask(first, msg.Begin(alice.id))
    await tables.ask(second, msg.Open(bob.id, "Bob", "牌友群"))
    refused = await tables.ask(second, msg.Join(alice.id, "Alice"))
    assert refused.text == t("seated_elsewhere", "zh", table="牌友群 · #7")
    table = tables.get(second)
    assert table is not None and table.seat_of(alice.id) is None
    await tables.ask(first, msg.Stop(alice.id, is_admin=False))  # her table over: she may sit at the other
    assert (await tables.ask(second, msg.Join(alice.id, "Alice"))).text == t("joined", "zh", name="Alice", wind="南")
    await tables.close()
    await tables.edge.outbox.close()
    await db.close()


async def _play_to_the_end(tables: Tables, key: TableKey, clock: Clock) -> None:
    """Every due time in turn (the test's clock) until the hand is over and settled: 托管 plays for the idle."""
    runner = tables._runners[key]
    for _ in range(500):
        clock.now = tables.scheduler.due(key) or clock.now
        await runner.ask(msg.Due())
        if runner.table.state == "between":
            return
    raise AssertionError("the hand did not end")


async def test_the_next_hand_waits_for_the_group_to_see_the_last_one(
    fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, group, db = await _alone(tg, tmp_path)
    clock = Clock()
    timers = {"bot_delay": 0.0, "turn_seconds": 0.1, "claim_seconds": 0.1, "next_hand_seconds": 1.0}
    pace = FakeClock()  # the outbox writes only as the test moves its clock: a hand's end is not out until then
    tables = _tables(tg, bot, db, clock, pace, **timers, group_interval=0.5)
    options = tables.options
    key = TableKey(group.id)
    await _open(tables, key, (alice.id, "Alice"))
    runner, outbox = tables._runners[key], tables.edge.outbox
    await _play_to_the_end(tables, key, clock)
    # The result and the hand's last picture are still on their way (a write to a group every 0.5 s).
    assert outbox.behind(group.id)
    due = due_at(runner.table, options)
    assert due is not None and tables.scheduler.due(key) == due
    clock.now = due
    await runner.ask(msg.Due())
    assert runner.table.state == "between"  # not dealt while the group has not seen the hand before
    assert tables.scheduler.due(key) == due + CATCH_UP_POLL  # looked at again soon
    for _ in range(200):  # the outbox catches up: its intervals pass, its writes go out
        if not outbox.behind(group.id):
            break
        await asyncio.sleep(0.02)
        if (deadline := pace.next_deadline()) is not None:
            pace.advance_to(deadline)
    assert not outbox.behind(group.id)
    clock.now = due + CATCH_UP_POLL
    await runner.ask(msg.Due())
    assert runner.table.state == "playing" and runner.table.hand_number == 2
    # A group that cannot catch up holds its table back no longer than CATCH_UP_SECONDS past the due time.
    await _play_to_the_end(tables, key, clock)
    assert outbox.behind(group.id)
    due = due_at(runner.table, options)
    assert due is not None
    clock.now = due + CATCH_UP_SECONDS
    await runner.ask(msg.Due())
    assert runner.table.state == "playing" and runner.table.hand_number == 3
    await tables.ask(key, msg.Stop(alice.id, is_admin=False))
    await tables.close()
    await outbox.close()
    await db.close()


async def test_a_released_table_stops_here_and_resumes_elsewhere(
    fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    """A shard given up (bot.cluster): its tables' runners stop without closing anything, what waited to be written
    to their groups is dropped, and another registry resumes them from storage where they were."""
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    first, second = tg.add_group("g1", members=[alice]), tg.add_group("g2", members=[bob])
    db = await Database.open(tmp_path / "db.sqlite3")
    here, elsewhere = _tables(tg, bot, db, Clock()), _tables(tg, bot, db, Clock())
    await _open(here, TableKey(first.id), (alice.id, "Alice"))
    await _open(here, TableKey(second.id), (bob.id, "Bob"))
    hand = here.get(TableKey(first.id)).hand  # type: ignore[union-attr]
    assert hand is not None
    waiting = asyncio.create_task(here.ask(TableKey(first.id), msg.Begin(alice.id)))
    await asyncio.sleep(0)  # asked, not yet taken
    assert await here.release(lambda key: key.chat_id == first.id) == 1
    with pytest.raises(TableMoved):  # whoever waited hears of it (told it moved, not that it failed), never for ever
        await asyncio.wait_for(waiting, 1)
    assert here.get(TableKey(first.id)) is None and here.get(TableKey(second.id)) is not None
    assert here.edge.outbox.message_id(first.id, "spectator") is None  # its group's queue is another's now
    assert await resume_tables(elsewhere, db, lambda key: key.chat_id == first.id) == 1
    moved = elsewhere.get(TableKey(first.id))
    assert moved is not None and moved.hand is not None and moved.hand.actions == hand.actions
    assert elsewhere.get(TableKey(second.id)) is None
    for tables in (here, elsewhere):
        await tables.close()
        await tables.edge.outbox.close()
    await db.close()


async def test_a_groups_member_count_is_telegrams_and_none_when_telegram_does_not_say(
    fake_telegram: FakeTelegram, bot: Bot
) -> None:
    """What a table learns before each hand of who is in its group (``Table.watched``): a failure counts as
    unknown, which the table takes as watched."""
    alice, bob = fake_telegram.add_user("Alice"), fake_telegram.add_user("Bob")
    group = fake_telegram.add_group("g", members=[alice, bob])
    assert await members(bot, group.id) == 3  # the bot is one of them
    fake_telegram.fail_next("getChatMemberCount", FaultKind.SERVER_ERROR, chat_id=group.id)
    assert await members(bot, group.id) == 0


class AskedEdge(Edge):
    """The edge, noting every decision it is asked for."""

    decided: list[fx.Decide]

    async def carry_out(self, table: Table, effect: fx.Effect) -> object:
        if isinstance(effect, fx.Decide):
            self.decided.append(effect)
        return await super().carry_out(table, effect)


async def test_an_automatic_players_move_is_thought_out_during_its_delay(
    fake_telegram: FakeTelegram, bot: Bot, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice, group, db = await _alone(tg, tmp_path)
    clock = Clock()
    plain = _tables(tg, bot, db, clock)  # the automatic players wait 60 s on the test's clock
    edge = AskedEdge(plain.edge.config, db, plain.edge.outbox, bot)
    edge.decided = []
    tables = Tables(plain.edge.config, edge, clock)
    key = TableKey(group.id)
    await _open(tables, key, (alice.id, "Alice"))
    table = tables.get(key)
    assert table is not None and table.hand is not None and table.hand_id is not None
    seat = table.seat_of(alice.id)
    assert seat is not None
    table.auto_level = "hard"  # a search (its budget in a thread here): the level worth thinking ahead
    discard = next(a for a in table.prompts[seat].legal if a.kind == "discard")
    await tables.ask(key, msg.Press(alice.id, table.stamp(seat), code_of(discard), "en"))
    runner = tables._runners[key]
    for _ in range(200):  # the others' claims are decided at once; then the next seat's turn waits out its delay
        if runner.foreseen is not None:
            break
        await asyncio.sleep(0.02)
    assert runner.foreseen is not None
    question, answer = runner.foreseen
    assert question.level == "hard"
    assert clock.now < (due_at(table, tables.options) or 0)  # its delay has not passed
    assert edge.decided[-1] == question  # asked already
    move = await answer
    stored = len(await db.hands.actions(table.hand_id))
    clock.now = due_at(table, tables.options) or 0
    tables.post(key, msg.Due())
    for _ in range(200):
        if len(await db.hands.actions(table.hand_id)) > stored:
            break
        await asyncio.sleep(0.02)
    actions = await db.hands.actions(table.hand_id)
    assert actions[stored] == move.to_json()  # the move played when its delay ended is the one thought out
    assert edge.decided.count(question) == 1  # and it was not asked for again
    await tables.close()
    await tables.edge.outbox.close()
    await db.close()

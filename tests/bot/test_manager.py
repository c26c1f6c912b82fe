"""bot.manager in-process, with a real SQLite file and the fake Bot API on loopback: a flight's penalty is
stored even when the table is stopped in the same hand; a settlement the database refuses is retried by the
table's timer until it is stored, and the match only moves on then."""

from __future__ import annotations

import asyncio
from pathlib import Path

from telegram.ext import Application

from bot.config import Config
from bot.i18n import t
from bot.outbox import Outbox
from bot.play.manager import TableManager
from bot.play.resume import resume_tables
from bot.play.table_key import TableKey
from storage.database import Database
from tests.fake_telegram import FakeTelegram


async def test_a_flight_then_stop_settles_the_penalty(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("g", members=[alice, bob])
    config = Config(token=tg.token, api_base_url=tg.base_url, match_seed=852, bot_delay=60.0)
    app = Application.builder().token(tg.token).base_url(tg.base_url).build()
    db = await Database.open(tmp_path / "db.sqlite3")
    async with app:
        assert app.job_queue is not None
        await app.job_queue.start()
        manager = TableManager(config, db, Outbox(app.bot), app.job_queue, app.bot)
        await manager.new_table(TableKey(group.id), "g", alice.id, "Alice")
        await manager.join(TableKey(group.id), bob.id, "Bob")
        await manager.begin(TableKey(group.id), alice.id)
        assert manager.tables[TableKey(group.id)].state == "playing"
        penalty = manager.tables[TableKey(group.id)].match.rules.flee_penalty  # type: ignore[union-attr]
        await manager.leave(TableKey(group.id), bob.id, flee=True)
        assert manager.tables[TableKey(group.id)].seat(1).user_id is None  # an automatic player sits there now
        await manager.stop(TableKey(group.id), alice.id, is_admin=False)
        await app.job_queue.stop()
        await manager.outbox.close()
    bob_now = await db.players.get(bob.id)
    alice_now = await db.players.get(alice.id)
    await db.close()
    assert bob_now is not None and alice_now is not None
    assert bob_now.skill == 2400 - penalty
    assert alice_now.skill > 2400  # her share of the penalty


async def test_a_flight_survives_a_crash_before_its_hand_ends(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("g", members=[alice, bob])
    config = Config(token=tg.token, api_base_url=tg.base_url, match_seed=852, bot_delay=60.0)
    path = tmp_path / "db.sqlite3"
    for life in ("before the crash", "after the restart"):
        app = Application.builder().token(tg.token).base_url(tg.base_url).build()
        db = await Database.open(path)
        async with app:
            assert app.job_queue is not None
            await app.job_queue.start()
            manager = TableManager(config, db, Outbox(app.bot), app.job_queue, app.bot)
            if life == "before the crash":
                await manager.new_table(TableKey(group.id), "g", alice.id, "Alice")
                await manager.join(TableKey(group.id), bob.id, "Bob")
                await manager.begin(TableKey(group.id), alice.id)
                await manager.leave(TableKey(group.id), bob.id, flee=True)  # then the process dies: nothing settled yet
                hand_id = manager.tables[TableKey(group.id)].hand_id
                assert hand_id is not None and (await db.hands.get(hand_id)).status == "playing"
            else:
                assert await resume_tables(manager) == 1
                await manager.stop(TableKey(group.id), alice.id, is_admin=False)
            await app.job_queue.stop()
            await manager.outbox.close()
        if life == "after the restart":
            bob_now = await db.players.get(bob.id)
            assert bob_now is not None and bob_now.skill == 2400 - 400
        await db.close()


async def test_a_settlement_that_fails_is_retried_until_it_is_stored(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("g", members=[alice])
    # Alice never answers: she goes 托管 at once and the automatic players finish the hand by themselves.
    config = Config(
        token=tg.token, api_base_url=tg.base_url, match_seed=852, bot_delay=0.0, turn_seconds=0.1, claim_seconds=0.1
    )
    app = Application.builder().token(tg.token).base_url(tg.base_url).build()
    db = await Database.open(tmp_path / "db.sqlite3")
    # The disk "fails" while a flag row exists: every settlement write is refused.
    await db.execute("CREATE TABLE fail_flag (x INTEGER)")
    await db.execute("INSERT INTO fail_flag VALUES (1)")
    await db.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON settlements WHEN EXISTS (SELECT 1 FROM fail_flag) "
        "BEGIN SELECT RAISE(ABORT, 'disk trouble'); END"
    )
    async with app:
        assert app.job_queue is not None
        await app.job_queue.start()
        manager = TableManager(config, db, Outbox(app.bot), app.job_queue, app.bot)
        await manager.new_table(TableKey(group.id), "g", alice.id, "Alice")
        await manager.begin(TableKey(group.id), alice.id)
        table = manager.tables[TableKey(group.id)]
        for _ in range(300):  # until the hand is over and its settlement has failed
            if table.hand is not None and table.hand.finished:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)
        assert table.hand is not None and table.hand.finished and table.state == "playing"
        assert (await db.hands.get(table.hand_id or 0)).status == "playing"
        await db.execute("DELETE FROM fail_flag")  # the disk is back
        for _ in range(200):
            if table.state != "playing":
                break
            await asyncio.sleep(0.05)
        assert (await db.hands.get(table.hand_id or 0)).status == "done"
        assert table.state == "between" and table.match is not None and table.match.hands_played == 1
        await manager.stop(TableKey(group.id), alice.id, is_admin=False)
        await app.job_queue.stop()
        await manager.outbox.close()
    await db.close()


async def test_one_person_sits_at_one_table_at_a_time(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    group = tg.add_group("牌友群", members=[alice, bob])
    config = Config(token=tg.token, api_base_url=tg.base_url, match_seed=852, bot_delay=60.0)
    app = Application.builder().token(tg.token).base_url(tg.base_url).build()
    db = await Database.open(tmp_path / "db.sqlite3")
    first, second = TableKey(group.id, 7), TableKey(group.id, 9)  # two topics of one forum
    async with app:
        assert app.job_queue is not None
        await app.job_queue.start()
        manager = TableManager(config, db, Outbox(app.bot), app.job_queue, app.bot)
        await manager.new_table(first, "牌友群", alice.id, "Alice")
        await manager.begin(first, alice.id)
        await manager.new_table(second, "牌友群", bob.id, "Bob")
        refused = await manager.join(second, alice.id, "Alice")
        assert refused.text == t("seated_elsewhere", "zh", table="牌友群 · #7")
        assert manager.tables[second].seat_of(alice.id) is None
        await manager.stop(first, alice.id, is_admin=False)  # her table over: she may sit at the other
        assert (await manager.join(second, alice.id, "Alice")).text == t("joined", "zh", name="Alice", wind="南")
        await app.job_queue.stop()
        await manager.outbox.close()
    await db.close()

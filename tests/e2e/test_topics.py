"""Issue 17, forum groups and a group migrated under the bot, against the real bot process and the loopback Bot
API: a table per forum topic, every write for it in its topic, presses, commands and a restart reaching the right
one; a group upgraded to a supergroup that the bot learns of only from a refused write.

The two forum tests share one bot process (``forum_bot``), each in a forum group of its own, reading only its
group's rows; the migration test stores the group's settings before its own process starts."""

from __future__ import annotations

import asyncio
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.callbacks import PlayButton
from sandbox import FakeTelegram
from sandbox.records import Button, Chat, Message
from sandbox.users import SimUser
from storage.database import Database
from tests.e2e.players import BotProcess, Players, SharedBot, game_buttons, open_table


def _open_in_topic(tg: FakeTelegram, group: Chat, topic: int, users: list[SimUser], *, by_link: bool) -> None:
    """The first user opens the topic's table; the others sit down with /join there, or (``by_link``) through the
    lobby's Join button, a deep link naming the topic's table."""
    first = users[0]
    first.say(group, "/newgame", topic=topic)
    tg.wait_for_message(group.id, lambda m: m.thread_id == topic and f"东: {first.first_name}" in m.content, timeout=15)
    for u in users[1:]:
        if by_link:
            lobby = tg.wait_for_message(group.id, lambda m: m.thread_id == topic and bool(m.buttons))
            u.open_link(lobby.button("入座").url or "")
        else:
            u.say(group, "/join", topic=topic)
        tg.wait_for_message(group.id, lambda m, u=u: m.thread_id == topic and u.first_name in m.content, timeout=15)
    first.say(group, "/begin", topic=topic)


def _stored_by_topic(db: Path, *chat_ids: int) -> dict[int | None, int]:
    """Stored actions per forum topic of their match, in these chats."""
    marks = ",".join("?" * len(chat_ids))
    with sqlite3.connect(db) as conn:
        rows = conn.execute(
            "SELECT m.thread_id, COUNT(a.seq) FROM matches m JOIN hands h ON h.match_id = m.id "
            f"LEFT JOIN actions a ON a.hand_id = h.id WHERE m.chat_id IN ({marks}) GROUP BY m.thread_id",
            chat_ids,
        )
        return {thread: count for thread, count in rows}


@pytest.fixture(scope="module")
def forum_bot(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedBot]:
    with FakeTelegram() as tg:
        db = tmp_path_factory.mktemp("topics") / "db.sqlite3"
        with BotProcess(tg, db, MAHJONG_SEED="7", MAHJONG_GROUP_INTERVAL="0.5") as bot:
            yield SharedBot(tg, bot, db)


def _play(tables: list[Players], done: Callable[[], object], timeout: float) -> None:
    """Every table's people press what they are offered, all at once, until ``done``."""
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, "the tables did not get there in time"
        if not sum(p.step() for p in tables):
            time.sleep(0.02)


def _in_topic(tg: FakeTelegram, group: Chat, topic: int) -> list[Message]:
    return [m for m in tg.messages(group.id) if m.thread_id == topic]


def test_two_topics_of_a_forum_play_a_table_each(forum_bot: SharedBot) -> None:
    """Two topics of one forum group each open and play a table at once. A press at one table never touches the
    other; /stop in a topic stops its own table only; after a SIGKILL both resume in their topics, their pictures
    edited in place; every message the bot writes in the group is in the topic of its table."""
    tg, bot, db = forum_bot.tg, forum_bot.bot, forum_bot.db
    alice, bob, carol, dan = (tg.add_user(name) for name in ("Alice", "Bob", "Carol", "Dan"))
    group = tg.add_group("论坛群", members=[alice, bob, carol, dan], forum=True)
    east, west = tg.create_topic(group, "东桌", by=alice), tg.create_topic(group, "西桌", by=carol)

    def by_topic() -> dict[int | None, int]:
        return _stored_by_topic(db, group.id)

    _open_in_topic(tg, group, east, [alice, bob], by_link=False)
    _open_in_topic(tg, group, west, [carol, dan], by_link=True)
    alice.wait_for_private_message(lambda m: bool(game_buttons(m, group, east)), timeout=15)
    hers = carol.wait_for_private_message(lambda m: bool(game_buttons(m, group, west)), timeout=15)
    west_picture = tg.wait_for_message(group.id, lambda m: m.thread_id == west and m.photo is not None)
    assert (hers.caption or "").startswith("论坛群 · 西桌")  # which of her tables it is: the topic's name too

    # Carol, at the west table, presses her own button as if it were the east table's: refused, nothing played.
    data = next(b.callback_data or "" for b in game_buttons(hers, group, west))
    forged = data.replace(f"_{west}|", f"_{east}|", 1)
    assert PlayButton.decode(forged).table.thread_id == east
    query = tg.press_button(carol, hers, Button(text="x", callback_data=forged))
    assert tg.wait_for_callback_answer(query, timeout=10).text == "这不是你的按钮。"

    # The east table plays while the west one waits for Carol (its dealer): nothing moves in the west.
    Players(tg, group, [alice, bob], topic=east).play_until(lambda: by_topic().get(east, 0) >= 12, timeout=60)
    assert by_topic().get(west, 0) == 0
    assert tg.message(group.id, west_picture.message_id).edits == west_picture.edits

    Players(tg, group, [carol, dan], topic=west).play_until(lambda: by_topic()[west] >= 8, timeout=60)
    pictures = {topic: [m.message_id for m in _in_topic(tg, group, topic) if m.photo] for topic in (east, west)}
    before = by_topic()
    bot.kill()
    bot.start()
    for topic in (east, west):
        tg.wait_for_message(group.id, lambda m, topic=topic: m.thread_id == topic and "重启" in m.content, timeout=20)
    alice.wait_for_private_message(lambda m: bool(game_buttons(m, group, east)), timeout=20)
    carol.wait_for_private_message(lambda m: bool(game_buttons(m, group, west)), timeout=20)
    tables = [Players(tg, group, [alice, bob], topic=east), Players(tg, group, [carol, dan], topic=west)]
    _play(tables, lambda: all(by_topic()[t] >= before[t] + 6 for t in (east, west)), timeout=60)
    for topic in (east, west):  # the picture from before the restart was taken up, not sent again
        assert [m.message_id for m in _in_topic(tg, group, topic) if m.photo] == pictures[topic]

    bob.say(group, "/stop", topic=west)  # not his table: refused there, nothing stops
    tg.wait_for_message(group.id, lambda m: m.thread_id == west and "只有开桌的人" in m.content, timeout=10)
    alice.say(group, "/stop", topic=east)
    tg.wait_for_message(group.id, lambda m: m.thread_id == east and "牌局结束" in m.content, timeout=15)
    asked = carol.say(group, "/top", topic=west)  # a leaderboard, a message with buttons of its own: in the topic
    tg.wait_for_message(group.id, lambda m: m.reply_to_message_id == asked.message_id and bool(m.buttons))
    stored = by_topic()[west]
    tables[1].play_until(lambda: by_topic()[west] >= stored + 4, timeout=60)
    assert "Traceback" not in bot.log()
    everything = tg.messages(group.id)
    assert {m.thread_id for m in everything} == {east, west}  # nothing in General
    for topic, others in ((east, ("Carol", "Dan")), (west, ("Alice", "Bob"))):
        assert not any(name in m.content for m in _in_topic(tg, group, topic) for name in others)
    with sqlite3.connect(db) as conn:
        statuses = dict(conn.execute("SELECT thread_id, status FROM matches WHERE chat_id = ?", (group.id,)))
    assert statuses == {east: "abandoned", west: "running"}
    carol.say(group, "/stop", topic=west)  # nothing of it plays on while the next test runs on this bot
    tg.wait_for_message(group.id, lambda m: m.thread_id == west and "牌局结束" in m.content, timeout=15)


async def _group_settings(db: Path, chat_id: int) -> None:
    async with await Database.open(db) as store:
        await store.chats.update(chat_id, base_unit=5, hands_per_game=3)


def test_a_group_migrated_under_the_bot_follows_the_refusal(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    """The group becomes a supergroup and the bot is not told (no service message): its next write to the old id
    is refused with migrate_to_chat_id, and from that alone the table, its match, the group's settings and league
    follow to the new chat, in one move; play goes on there, its timers too, and /stop there reaches the table."""
    tg = fake_telegram
    alice, bob = tg.add_user("Alice"), tg.add_user("Bob")
    old = tg.add_group("升级群", members=[alice, bob], admins=[alice], supergroup=False)
    db = tmp_path / "db.sqlite3"
    asyncio.run(_group_settings(db, old.id))
    with BotProcess(tg, db, MAHJONG_SEED="7") as bot:
        alice.say(old, "/league create Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan")
        tg.wait_for_message(old.id, lambda m: "Friday" in m.content, timeout=15)
        open_table(tg, old, [alice, bob])
        alice.wait_for_private_message(lambda m: bool(game_buttons(m, old)), timeout=15)
        new = tg.migrate_group(old)
        # Alice plays on: the group picture's next write to the old id is refused, and the table moves.
        Players(tg, old, [alice, bob]).play_until(lambda: any(m.photo for m in tg.messages(new.id)), timeout=30)
        refused = [c for c in tg.calls(chat_id=old.id) if c.status == 400]
        assert refused and all("upgraded to a supergroup" in (c.description or "") for c in refused)
        stored = sum(_stored_by_topic(db, old.id, new.id).values())
        Players(tg, new, [alice, bob]).play_until(
            lambda: sum(_stored_by_topic(db, old.id, new.id).values()) >= stored + 10, timeout=60
        )
        alice.say(new, "/stop")
        tg.wait_for_message(new.id, lambda m: "牌局结束" in m.content, timeout=15)
        assert len(refused) <= 2  # the writes in flight when it moved: nothing more is sent to the old id
        assert len([c for c in tg.calls(chat_id=old.id) if c.status == 400]) == len(refused)
        assert "Traceback" not in bot.log()
    with sqlite3.connect(db) as conn:
        assert [row[0] for row in conn.execute("SELECT chat_id FROM matches")] == [new.id]
        assert list(conn.execute("SELECT id, base_unit, hands_per_game FROM chats")) == [(new.id, 5, 3)]
        assert [row[0] for row in conn.execute("SELECT chat_id FROM leagues")] == [new.id]


def test_a_closed_or_deleted_topic_closes_its_table_only(forum_bot: SharedBot) -> None:
    """An admin deletes one table's topic and closes another's: each table closes (its match stored as over)
    at the first new message its topic refuses, its player told in private, and nothing more is tried there; the
    third topic's table plays on."""
    tg, bot, db = forum_bot.tg, forum_bot.bot, forum_bot.db
    alice, bob, carol = (tg.add_user(name) for name in ("Alice", "Bob", "Carol"))
    group = tg.add_group("关帖群", members=[alice, bob, carol], admins=[alice], forum=True)
    topics = [tg.create_topic(group, name, by=alice) for name in ("删", "关", "留")]
    deleted, closed, kept = topics
    for person, topic in zip((alice, bob, carol), topics, strict=True):
        _open_in_topic(tg, group, topic, [person], by_link=False)
        person.wait_for_private_message(lambda m, t=topic: bool(game_buttons(m, group, t)), timeout=15)
    tables = [Players(tg, group, [p], topic=t) for p, t in zip((alice, bob, carol), topics, strict=True)]
    tg.close_topic(group, deleted, deleted=True)  # its messages are gone: the next edit is refused
    tg.close_topic(group, closed)  # edits go on; the next new message there is refused
    alice.say(group, "/rules", topic=closed)  # an admin still writes there: the answer is refused

    def running() -> set[int]:
        with sqlite3.connect(db) as conn:
            running = "SELECT thread_id FROM matches WHERE status = 'running' AND chat_id = ?"
            return {row[0] for row in conn.execute(running, (group.id,))}

    _play(tables, lambda: running() == {kept}, timeout=60)  # abandoned in mid-hand, done between hands
    for person in (alice, bob):
        person.wait_for_private_message(lambda m: "牌局结束" in m.content, timeout=15)

    def refused(topic: int) -> int:
        return sum(
            c.status == 400 and str(c.params.get("message_thread_id")) == str(topic) for c in tg.calls(chat_id=group.id)
        )

    tried = {topic: refused(topic) for topic in (deleted, closed)}
    played = _stored_by_topic(db, group.id)[kept]
    _play(tables[2:], lambda: _stored_by_topic(db, group.id)[kept] >= played + 10, timeout=60)
    time.sleep(2)  # a retry would show by now
    assert all(1 <= n <= 3 for n in tried.values()), tried  # what was on its way when the table closed
    assert {topic: refused(topic) for topic in tried} == tried  # and nothing since
    assert "Traceback" not in bot.log()
    carol.say(group, "/stop", topic=kept)  # nothing of it plays on while the next test runs on this bot
    tg.wait_for_message(group.id, lambda m: m.thread_id == kept and "牌局结束" in m.content, timeout=15)

"""bot.outbox in a forum group, against the fake Bot API on loopback: each write lands in its topic, texts of two
topics are never merged, the same answer asked in two topics is given in both, and a group that became a
supergroup gets what was waiting for it."""

from __future__ import annotations

import asyncio

from telegram import Bot

from bot.outbox import Content, Outbox, Refusal
from sandbox import FakeTelegram
from tests.bot.test_outbox import _drain
from tests.clock import FakeClock


async def test_each_write_lands_in_its_topic(fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock) -> None:
    tg = fake_telegram
    ann = tg.add_user("Ann")
    group = tg.add_group("论坛", members=[ann], forum=True)
    east, west = tg.create_topic(group, "东", by=ann), tg.create_topic(group, "西", by=ann)
    asked = [ann.say(group, "/rules", topic=topic) for topic in (east, west)]
    outbox = Outbox(bot, group_interval=0.05, clock=clock)
    for n in range(3):
        outbox.announce(group.id, f"east {n}", thread=east)
        outbox.announce(group.id, f"west {n}", thread=west)
    outbox.announce(group.id, "general")
    for message in asked:  # the same answer, asked in both topics: one in each
        outbox.announce(group.id, "the rules", reply_to=message.message_id, thread=message.thread_id)
    outbox.show(group.id, "spectator_west", Content("west table", thread=west))
    await _drain(outbox, clock)
    outbox.show(group.id, "spectator_west", Content("west table, edited", thread=west))
    await _drain(outbox, clock)
    landed = [(m.text, m.thread_id) for m in tg.messages(group.id)]
    expected = [(f"{side} {n}", topic) for n in range(3) for side, topic in (("east", east), ("west", west))]
    assert sorted(landed) == sorted(
        [*expected, ("general", None), ("the rules", east), ("the rules", west), ("west table, edited", west)]
    )  # nothing merged across topics, the picture edited in its topic
    await outbox.close()


async def test_what_waits_for_a_migrated_group_goes_to_the_new_one(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    tg = fake_telegram
    ann = tg.add_user("Ann")
    old = tg.add_group("小群", members=[ann], supergroup=False)
    asked = ann.say(old, "/help")
    new = tg.migrate_group(old)
    outbox = Outbox(bot, group_interval=0.05, clock=clock)
    outbox.announce(old.id, "the help", reply_to=asked.message_id)
    outbox.announce(old.id, "a notice")
    refusal = await asyncio.wait_for(outbox.refusals.get(), 10)  # told on its queue, never by a call back
    assert refusal == Refusal(old.id, new_chat_id=new.id)
    outbox.move(refusal.chat_id, new.id, {})  # what the tables' registry does with it
    await _drain(outbox, clock)
    # The command answered stays behind in the old chat: its answer is a plain text there, merged in order.
    assert [m.text for m in tg.messages(new.id)] == ["the help\na notice"]
    await outbox.close()


async def test_a_topic_is_behind_only_with_its_own_new_messages(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    tg = fake_telegram
    ann = tg.add_user("Ann")
    group = tg.add_group("论坛", members=[ann], forum=True)
    east, west = tg.create_topic(group, "东", by=ann), tg.create_topic(group, "西", by=ann)
    outbox = Outbox(bot, group_interval=0.3, clock=clock)
    outbox.announce(group.id, "east result", thread=east)
    outbox.show(group.id, "spectator_east", Content("east's next hand", thread=east), fresh=True)
    outbox.announce(group.id, "in the General topic")
    asked = ann.say(group, "/rules", topic=west)
    outbox.announce(group.id, "the rules", reply_to=asked.message_id, thread=west)  # an answer aside: not the table's
    # The east table's news wait (a write to the group every 0.3 s): east is behind, west and General are not.
    assert outbox.behind(group.id, east) and outbox.behind(group.id, None)
    assert not outbox.behind(group.id, west)
    await _drain(outbox, clock)
    assert not outbox.behind(group.id, east) and not outbox.behind(group.id, None)
    outbox.show(group.id, "spectator_east", Content("east, edited", thread=east))  # an edit in place is no news
    assert not outbox.behind(group.id, east)
    await _drain(outbox, clock)
    await outbox.close()

"""bot.outbox against the fake Bot API on loopback: coalescing, pacing, priorities, 429 and 403.

The outbox paces on a clock the test moves (tests/clock.py), which the fake Bot API also times its calls by: its
intervals pass without being waited for, while every write still goes over HTTP to the fake Bot API."""

from __future__ import annotations

import asyncio
import io
import itertools
import time
from collections.abc import Callable, Iterator

import pytest
from PIL import Image
from telegram import Bot

from bot.leased_request import LeasedRequest
from bot.outbox import Content, Outbox, Throttle
from bot.updates import tls_context
from sandbox import FakeTelegram
from sandbox.records import FaultKind
from storage.cluster import LEASE_S, Lease
from tests.clock import FakeClock


@pytest.fixture
def fake_telegram(clock: FakeClock) -> Iterator[FakeTelegram]:
    with FakeTelegram(clock=clock.monotonic) as server:
        yield server


async def _settle(outbox: Outbox | None) -> None:
    """Let the outbox do all it can before time moves on: every write on its way lands (HTTP on loopback)."""
    deadline = time.monotonic() + 10
    while True:
        for _ in range(20):  # a woken sleeper passes a few futures before it writes or sleeps again
            await asyncio.sleep(0)
        if outbox is None or not any(chat.in_flight for chat in outbox._chats.values()):
            return
        assert time.monotonic() < deadline, "a write never came back"
        await asyncio.sleep(0.001)  # real time: the fake Bot API answers


async def _run(clock: FakeClock, done: Callable[[], bool], outbox: Outbox | None, seconds: float) -> None:
    """Time passes, from one sleeper's deadline to the next, until ``done()`` or ``seconds`` have passed."""
    end = clock.now + seconds
    await _settle(outbox)
    while not done() and (when := clock.next_deadline()) is not None and when <= end:
        clock.advance_to(when)
        await _settle(outbox)


async def _elapse(outbox: Outbox, clock: FakeClock, seconds: float) -> None:
    """The test waits ``seconds``, the outbox doing meanwhile all it would."""
    end = clock.now + seconds
    await _run(clock, lambda: False, outbox, seconds)
    clock.advance_to(end)
    await _settle(outbox)


async def _drain(outbox: Outbox, clock: FakeClock, timeout: float = 10.0) -> None:
    await _run(clock, lambda: not outbox.pending(), outbox, timeout)
    assert not outbox.pending(), "the outbox did not drain"


async def test_only_the_latest_state_of_a_slot_is_sent(fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock) -> None:
    user = fake_telegram.add_user("Ann")
    outbox = Outbox(bot, private_interval=0.3, passive_interval=0.3, clock=clock)
    for n in range(30):
        outbox.show(user.id, "hand", Content(f"state {n}"), urgent=True)
        await _elapse(outbox, clock, 0.01)
    await _drain(outbox, clock)
    writes = fake_telegram.calls("sendMessage", chat_id=user.id) + fake_telegram.calls(
        "editMessageText", chat_id=user.id
    )
    assert 2 <= len(writes) <= 3  # the first state, then only the newest ones
    [message] = user.private_messages()
    assert message.text == "state 29"
    await outbox.close()


async def test_group_writes_are_paced_and_announcements_merged(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    group = fake_telegram.add_group("g")
    outbox = Outbox(bot, group_interval=0.25, clock=clock)
    for n in range(6):
        outbox.announce(group.id, f"line {n}")
        outbox.show(group.id, "spectator", Content(f"table {n}"))
        await _elapse(outbox, clock, 0.05)
    await _drain(outbox, clock)
    calls = [c for c in fake_telegram.calls(chat_id=group.id) if c.status == 200]
    gaps = [b.at - a.at for a, b in itertools.pairwise(calls)]
    assert min(gaps) >= 0.24
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert "\n".join(t for t in texts if t and t.startswith("line")).count("line") == 6  # merged, none lost
    assert len(calls) < 12
    await outbox.close()


async def test_a_chat_taken_up_from_another_owner_waits_one_interval_before_its_first_write(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """A table resumed here (a worker died a moment after writing to its group): the group's pace holds across."""
    taken, fresh = fake_telegram.add_group("taken"), fake_telegram.add_group("fresh")
    outbox = Outbox(bot, group_interval=0.5, clock=clock)
    outbox.taken_up(taken.id)
    start = clock.now
    for group in (taken, fresh):
        outbox.show(group.id, "spectator", Content("table"))
    await _drain(outbox, clock)
    [first] = fake_telegram.calls(chat_id=taken.id)
    [other] = fake_telegram.calls(chat_id=fresh.id)
    assert first.at - start >= 0.5 and other.at - start < 0.5  # a chat nobody wrote to before goes at once
    await outbox.close()


def _leased_bot(tg: FakeTelegram, writable: Callable[[], bool]) -> Bot:
    request = LeasedRequest(writable, httpx_kwargs={"verify": tls_context()})
    return Bot(tg.token, base_url=tg.base_url, request=request)


async def test_a_worker_whose_lease_is_not_known_to_hold_writes_nothing_until_it_is(
    fake_telegram: FakeTelegram, clock: FakeClock
) -> None:
    """A worker stopped (SIGSTOP) for longer than its lease, running again: what its outbox held is not written over
    the new owner's messages before the worker has looked, and a slot whose table moved is dropped then
    (Tables.release); a read (getMe, at start-up before any lease) goes out whatever the lease."""
    ann, bob = fake_telegram.add_user("Ann"), fake_telegram.add_user("Bob")
    lease = Lease(clock.monotonic)
    async with _leased_bot(fake_telegram, lease.holds) as bot:
        assert (await bot.get_me()).is_bot and not lease.holds()
        outbox = Outbox(bot, private_interval=0.1, clock=clock)
        lease.renewed(clock.now)  # the coordinator's query answered now: held for LEASE_S less the margin
        outbox.show(ann.id, "hand", Content("before the stop"), urgent=True)
        await _drain(outbox, clock)
        assert [m.text for m in ann.private_messages()] == ["before the stop"]

        await _elapse(outbox, clock, LEASE_S)  # stopped, and then running again: the lease may be someone else's
        assert not lease.holds()
        outbox.show(ann.id, "hand", Content("stale: the table moved"), urgent=True)
        outbox.show(bob.id, "hand", Content("a table still owned here"), urgent=True)
        await _elapse(outbox, clock, 30)
        assert len(fake_telegram.calls(chat_id=ann.id)) == 1 and not fake_telegram.calls(chat_id=bob.id)

        outbox.drop(ann.id, for_good=False, slot="hand")  # the look: Ann's table was taken over, Bob's was not
        lease.renewed(clock.now)
        await _drain(outbox, clock, timeout=60)
        assert [m.text for m in ann.private_messages()] == ["before the stop"]
        assert [m.text for m in bob.private_messages()] == ["a table still owned here"]
        await outbox.close()


async def test_a_picture_drawn_while_the_lease_lapsed_is_not_sent_until_the_lease_holds_again(
    fake_telegram: FakeTelegram, clock: FakeClock
) -> None:
    """The worker is stopped while it draws a picture: its connection (bot.leased_request) sends nothing that
    writes to a chat past its lease, and the picture waits with its slot."""
    ann = fake_telegram.add_user("Ann")
    sure = [True]

    def draw() -> bytes:
        sure[0] = False  # the lease lapses while the picture is being drawn
        out = io.BytesIO()
        Image.new("RGB", (8, 8)).save(out, "PNG")
        return out.getvalue()

    async with _leased_bot(fake_telegram, lambda: sure[0]) as bot:
        outbox = Outbox(bot, private_interval=0.1, clock=clock)
        outbox.show(ann.id, "hand", Content("the table", render=draw), urgent=True)
        await _elapse(outbox, clock, 5)
        assert not fake_telegram.calls(chat_id=ann.id) and outbox.pending() == 1
        sure[0] = True  # renewed: drawn again, and again the lease lapses meanwhile: still nothing sent
        await _elapse(outbox, clock, 5)
        assert not fake_telegram.calls(chat_id=ann.id) and outbox.pending() == 1
        outbox.drop(ann.id, for_good=False, slot="hand")  # the look: the table moved
        assert outbox.pending() == 0
        await outbox.close()


async def test_flood_control_and_network_errors_are_retried(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    group = fake_telegram.add_group("g")
    fake_telegram.fail_next("sendMessage", FaultKind.RETRY_AFTER, chat_id=group.id, retry_after=1)
    fake_telegram.fail_next("sendMessage", FaultKind.SERVER_ERROR, chat_id=group.id)
    outbox = Outbox(bot, group_interval=0.05, clock=clock)
    outbox.announce(group.id, "碰")
    await _drain(outbox, clock, timeout=15)
    assert [m.text for m in fake_telegram.messages(group.id)] == ["碰"]
    statuses = [c.status for c in fake_telegram.calls("sendMessage", chat_id=group.id)]
    assert statuses[0] == 429 and statuses[-1] == 200
    await outbox.close()


async def test_a_user_who_blocked_the_bot_is_marked_unreachable(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    user = fake_telegram.add_user("Ann")
    user.block_bot()
    outbox = Outbox(bot, clock=clock)
    outbox.show(user.id, "hand", Content("your tiles"), urgent=True)
    await _drain(outbox, clock)
    assert user.id in outbox.unreachable and user.private_messages() == []
    await outbox.close()


async def test_a_passive_refresh_waits_but_an_urgent_one_does_not(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    user = fake_telegram.add_user("Ann")
    outbox = Outbox(bot, private_interval=0.05, passive_interval=5.0, clock=clock)
    outbox.show(user.id, "hand", Content("dealt"), urgent=True)
    await _drain(outbox, clock)
    outbox.show(user.id, "hand", Content("someone discarded"))  # nothing for Ann to do: it may wait
    await _elapse(outbox, clock, 0.5)
    assert user.private_messages()[0].text == "dealt"
    outbox.show(user.id, "hand", Content("your turn"), urgent=True)
    await _drain(outbox, clock, timeout=2)
    assert user.private_messages()[0].text == "your turn"
    await outbox.close()


async def test_an_idle_state_waits_its_interval_but_one_somebody_waits_for_does_not(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """A group whose members all sit at the table: its picture between the moments that matter waits
    ``idle_interval`` after the slot's last write; a moment (not idle) goes at the group's pace, at once."""
    group = fake_telegram.add_group("g")
    outbox = Outbox(bot, group_interval=0.25, idle_interval=5.0, clock=clock)
    outbox.show(group.id, "spectator", Content("dealt"), fresh=True)
    await _drain(outbox, clock)
    outbox.show(group.id, "spectator", Content("a discard", idle=True))
    outbox.tell(group.id, "spectator", "东 赖子杠", idle=True)  # a line told rides on it, at its pace too
    await _elapse(outbox, clock, 4.5)
    assert [m.text for m in fake_telegram.messages(group.id)] == ["dealt"]
    await _elapse(outbox, clock, 1.0)
    assert [m.text for m in fake_telegram.messages(group.id)] == ["a discard\n东 赖子杠"]
    outbox.show(group.id, "spectator", Content("another discard", idle=True))
    await _elapse(outbox, clock, 1.0)
    outbox.show(group.id, "spectator", Content("南 碰"))  # a moment: the waiting state goes with it, at once
    await _elapse(outbox, clock, 0.3)
    assert [m.text for m in fake_telegram.messages(group.id)] == ["南 碰"]
    writes = [c for c in fake_telegram.calls(chat_id=group.id) if c.status == 200]
    assert len(writes) == 3
    await outbox.close()


async def test_a_line_told_while_the_first_picture_is_on_its_way_rides_on_the_next_write(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    outbox, group = Outbox(bot, group_interval=0.25, clock=clock), fake_telegram.add_group("g")
    outbox.show(group.id, "spectator", Content("dealt"), fresh=True)
    while not outbox._chats[group.id].in_flight:  # the deal's picture on its way (an instant 赖子杠 after it)
        await asyncio.sleep(0)
    outbox.tell(group.id, "spectator", "东 赖子杠")
    await _drain(outbox, clock)
    assert [m.text for m in fake_telegram.messages(group.id)] == ["dealt\n东 赖子杠"]  # no message of its own
    await outbox.close()


async def test_throttle_serves_lower_priority_numbers_first(clock: FakeClock) -> None:
    throttle = Throttle(rate=20, clock=clock)
    order: list[str] = []

    async def take(name: str, priority: int) -> None:
        await throttle.acquire(priority)
        order.append(name)

    await throttle.acquire(0)  # the next grant is 50 ms away, so the others queue
    takers = asyncio.gather(take("lazy", 1), take("lazy2", 1), take("urgent", 0))
    await _run(clock, takers.done, None, 1.0)
    await takers
    assert order[0] == "urgent"


async def test_told_lines_ride_on_the_slots_next_write_only(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    group = fake_telegram.add_group("g")
    outbox = Outbox(bot, group_interval=0.05, clock=clock)
    outbox.tell(group.id, "spectator", "before any picture")  # nothing to ride on yet: a message of its own
    outbox.show(group.id, "spectator", Content("table 1"))
    await _drain(outbox, clock)
    outbox.tell(group.id, "spectator", "东 碰 五万")
    outbox.tell(group.id, "spectator", "南 杠 九条")
    await _drain(outbox, clock)
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert texts == ["before any picture", "table 1\n东 碰 五万\n南 杠 九条"]
    outbox.show(group.id, "spectator", Content("table 2"))
    await _drain(outbox, clock)
    assert fake_telegram.messages(group.id)[-1].text == "table 2"  # the news was told once: it never lingers
    outbox.tell(group.id, "spectator", "西 碰 一筒")
    await _drain(outbox, clock)
    assert fake_telegram.messages(group.id)[-1].text == "table 2\n西 碰 一筒"
    assert len(fake_telegram.messages(group.id)) == 2  # no announcement besides the first
    await outbox.close()


async def test_replies_are_sent_alone_and_answer_their_message(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    alice = fake_telegram.add_user("Alice")
    group = fake_telegram.add_group("g", members=[alice])
    asked = [alice.say(group, f"/cmd{n}") for n in range(2)]
    outbox = Outbox(bot, group_interval=0.05, clock=clock)
    outbox.announce(group.id, "news 1")
    outbox.announce(group.id, "news 2")
    outbox.announce(group.id, "sits down", reply_to=asked[0].message_id, in_order=True)  # the table's own answer
    outbox.announce(group.id, "news 3")
    outbox.announce(group.id, "answer 1", reply_to=asked[1].message_id)  # an answer aside
    outbox.show(group.id, "card", Content("card", reply_to=asked[1].message_id), fresh=True)
    await _drain(outbox, clock)
    sent = {m.text: m for m in fake_telegram.messages(group.id)}
    assert sent["sits down"].reply_to_message_id == asked[0].message_id
    assert sent["answer 1"].reply_to_message_id == asked[1].message_id
    assert sent["card"].reply_to_message_id == asked[1].message_id
    assert sent["news 1\nnews 2"].reply_to_message_id is None  # plain announcements in a row merge, replies never
    # The table's own messages are read in the order they were asked for: nothing merges across its answer.
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert texts[-5:-2] == ["news 1\nnews 2", "sits down", "news 3"] and set(texts[-2:]) == {"answer 1", "card"}
    await outbox.close()


async def test_a_fresh_message_waits_for_the_last_state_of_the_one_before(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """A hand's last picture is edited in before the next hand's message appears, even when the last state is
    a passive (lazy) one and the new message is urgent."""
    user = fake_telegram.add_user("Ann")
    outbox = Outbox(bot, private_interval=0.05, passive_interval=5.0, clock=clock)
    outbox.show(user.id, "hand", Content("hand 1: your turn"), urgent=True)
    await _drain(outbox, clock)
    outbox.show(user.id, "hand", Content("hand 1: over"))  # lazily: nothing to decide
    outbox.show(user.id, "result", Content("result 1"), urgent=True, fresh=True)
    outbox.show(user.id, "hand", Content("hand 2: your turn"), urgent=True, fresh=True)
    started = clock.monotonic()
    await _drain(outbox, clock)
    assert clock.monotonic() - started < 2.0  # the lazy last state did not wait its passive interval
    texts = [m.text for m in user.private_messages()]
    assert texts == ["hand 1: over", "result 1", "hand 2: your turn"]  # each message in its final state, in order
    await outbox.close()


async def test_throttle_keeps_writes_in_flight_within_its_bound(clock: FakeClock) -> None:
    """Writes beyond ``in_flight`` wait for one to be released, so the connections left over stay free for
    answers to presses."""
    throttle = Throttle(rate=0, in_flight=2, clock=clock)
    await throttle.acquire(0)
    await throttle.acquire(1)
    third = asyncio.create_task(throttle.acquire(0))
    await _run(clock, third.done, None, 0.05)
    assert not third.done()
    throttle.release()
    await asyncio.wait_for(third, 1)


async def test_one_persons_flood_of_commands_never_holds_the_table_back(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """Forty answers to one member's commands, then a win notice and another member's answer: the table's notice
    goes first, the flooder keeps the answers to their latest three commands, the other member gets theirs."""
    alice, bob = fake_telegram.add_user("Alice"), fake_telegram.add_user("Bob")
    group = fake_telegram.add_group("g", members=[alice, bob])
    asked = [alice.say(group, f"/verify X{n}") for n in range(40)]
    outbox = Outbox(bot, group_interval=0.1, clock=clock)
    for n, message in enumerate(asked):
        outbox.announce(group.id, f"no hand X{n}", reply_to=message.message_id, asker=alice.id)
    outbox.announce(group.id, "东 自摸")
    outbox.announce(group.id, "bob's answer", reply_to=bob.say(group, "/me").message_id, asker=bob.id)
    await _drain(outbox, clock)
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert texts == ["东 自摸", "no hand X37", "no hand X38", "no hand X39", "bob's answer"]
    await outbox.close()


async def test_answers_ready_out_of_order_keep_the_latest_commands_in_their_order(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """Handlers run concurrently: the answer to the last command may be ready before those to earlier ones. The
    answers kept are still those to the latest three commands, posted in the commands' order."""
    alice = fake_telegram.add_user("Alice")
    group = fake_telegram.add_group("g", members=[alice])
    asked = [alice.say(group, f"/verify X{n}") for n in range(10)]
    outbox = Outbox(bot, group_interval=0.1, clock=clock)
    outbox.announce(group.id, "东 自摸")  # the first write goes at once: the answers wait behind it
    for n in (0, 9, 1, 2, 8, 3, 7, 4, 5, 6):  # ready in this order
        outbox.announce(group.id, f"no hand X{n}", reply_to=asked[n].message_id, asker=alice.id)
    await _drain(outbox, clock)
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert texts == ["东 自摸", "no hand X7", "no hand X8", "no hand X9"]
    await outbox.close()


async def test_table_messages_arriving_while_answers_wait_go_first(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    alice = fake_telegram.add_user("Alice")
    group = fake_telegram.add_group("g", members=[alice])
    outbox = Outbox(bot, group_interval=0.3, clock=clock)
    for n in range(3):
        outbox.announce(group.id, f"answer {n}", reply_to=alice.say(group, f"/me{n}").message_id, asker=alice.id)
    await _elapse(outbox, clock, 0.1)  # the first answer is out; the others wait their turn
    outbox.announce(group.id, "南 胡")
    await _drain(outbox, clock)
    texts = [m.text for m in fake_telegram.messages(group.id)]
    assert texts.index("南 胡") <= 1 and texts.count("南 胡") == 1 and len(texts) == 4
    await outbox.close()


async def test_retired_messages_are_dropped_once_sent_even_in_a_chat_that_is_never_idle(
    fake_telegram: FakeTelegram, bot: Bot, clock: FakeClock
) -> None:
    """A new message while the old one's last state waits retires the old one into a slot of its own; once that is
    sent, the slot goes (a busy chat never runs idle, where forgotten slots used to be cleared: memory grew)."""
    user = fake_telegram.add_user("Ann")
    outbox = Outbox(bot, private_interval=0.01, passive_interval=60.0, clock=clock)
    outbox.show(user.id, "lazy", Content("never urgent"))  # waits its passive minute: the chat is never idle
    for n in range(20):
        outbox.show(user.id, "hand", Content(f"hand {n}: your turn"), urgent=True)
        outbox.show(user.id, "hand", Content(f"hand {n + 1}"), urgent=True, fresh=True)  # the last state retires
        await _run(clock, lambda: outbox.pending() <= 1, outbox, 10)  # all but the lazy one
        assert outbox.pending() <= 1
    slots = outbox._chats[user.id].slots
    assert set(slots) == {"lazy", "hand"}, set(slots)
    await outbox.close()

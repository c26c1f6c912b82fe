"""League nights through the real bot (in-process, polling FakeTelegram), real SQLite files and a clock the
test moves: announcements and reminders once, a restart before the start, six players rotating, the season
table over several nights, nights called off, and /league typed in the group."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from telegram.ext import Application

from bot.i18n import t
from bot.league.nights import LeagueNights
from bot.league.subcommands import run_subcommand
from bot.table.key import TableKey
from game.titles import START_SKILL
from sandbox import FakeTelegram, Message
from sandbox.records import Chat
from sandbox.users import SimUser
from storage.standings import Period
from tests.league.conftest import Clock, db_of, nights_of, running_bot

App = Application[Any, Any, Any, Any, Any, Any]
# Friday 8 January 2027, 20:00 in Shanghai (UTC+8, no DST).
FRIDAY = datetime(2027, 1, 8, 12, 0, tzinfo=UTC)


async def settled(app: App) -> None:
    """Wait until the outbox has sent everything queued (the bot writes asynchronously)."""
    outbox = app.bot_data.outbox
    for _ in range(500):
        if outbox.pending() == 0:
            return
        await asyncio.sleep(0.01)
    raise TimeoutError("the outbox did not drain")


def group_text(tg: FakeTelegram, group: Chat) -> str:
    return "\n".join(m.content for m in tg.messages(group.id))


def world(tg: FakeTelegram, names: list[str]) -> tuple[list[SimUser], Chat]:
    users = [tg.add_user(n) for n in names]
    return users, tg.add_group("牌友群", members=users, admins=users[:1])


async def create(app: App, group: Chat, command: str) -> int:
    reply = await run_subcommand(nights_of(app), group.id, "create", command)
    assert reply is not None and "已创建" in reply, reply
    league = await nights_of(app).current(group.id)
    assert league is not None
    return league.id


async def night_of(app: App, league_id: int) -> Any:
    nights = [n for n in await db_of(app).leagues.open_nights() if n.league_id == league_id]
    assert len(nights) == 1
    return nights[0]


async def press(tg: FakeTelegram, user: SimUser, message: Message, label: str) -> str | None:
    query = user.press(message, label)
    return (await tg.wait_for_callback_answer_async(query)).text


async def wait_night_over(tg: FakeTelegram, group: Chat, night_number: int, timeout: float = 40) -> None:
    """Until the group has seen `night_number` nights' results and season tables (pictures)."""

    def shown() -> bool:
        captions = [m.caption or "" for m in tg.messages(group.id) if m.photo is not None]
        return (
            sum("战绩" in c for c in captions) >= night_number and sum("积分榜" in c for c in captions) >= night_number
        )

    await tg.wait_until_async(shown, timeout=timeout, what=lambda: group_text(tg, group))


async def test_reminders_once_and_a_restart_before_the_start(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob", "Cai", "Dee"])
    clock = Clock(FRIDAY - timedelta(days=2))
    db_path = tmp_path / "bot.sqlite3"
    async with running_bot(tg, db_path, clock) as app:
        league_id = await create(app, group, "Friday | fri 20:00 | Asia/Shanghai | 1 hands | kaikoufan")
        night = await night_of(app, league_id)
        assert (night.starts_at, night.status) == (FRIDAY, "scheduled")
        clock.now = FRIDAY - timedelta(hours=30)
        await nights_of(app).run_due()  # too early for anything
        await settled(app)
        assert "报名" not in group_text(tg, group)

        clock.now = FRIDAY - timedelta(hours=24)
        for _ in range(3):  # however often the timer fires, one announcement
            await nights_of(app).run_due()
        announcement = await tg.wait_for_message_async(group.id, lambda m: "我来" in str(m.reply_markup))
        for user in users[:3]:
            assert await press(tg, user, announcement, "我来") == "已报名。"
        assert await press(tg, users[3], announcement, "这次不来") == "已取消报名。"
        await tg.wait_until_async(
            lambda: "(3): Ann, Bob, Cai" in (tg.message(group.id, announcement.message_id).content)
        )
        assert all("你已报名联赛「Friday」" in u.private_messages()[-1].content for u in users[:3])

        clock.now = FRIDAY - timedelta(minutes=59)
        await nights_of(app).run_due()
        await nights_of(app).run_due()
        await settled(app)
        reminders = [m for m in tg.messages(group.id) if "一小时后开始" in m.content]
        assert len(reminders) == 1 and "(3): Ann, Bob, Cai" in reminders[0].content
        assert (await db_of(app).leagues.night(night.id)).status == "reminded"

    # The bot stops between the reminder and the start; a fresh one picks the night up from SQLite.
    clock.now = FRIDAY - timedelta(minutes=20)
    before = len(tg.messages(group.id))
    async with running_bot(tg, db_path, clock) as app:
        await settled(app)
        assert len(tg.messages(group.id)) == before  # nothing re-sent at start-up
        clock.now = FRIDAY + timedelta(seconds=30)
        racing = LeagueNights(db_of(app), app.bot_data.tables, app.job_queue, clock)  # a second scheduler
        await asyncio.gather(nights_of(app).run_due(), racing.run_due(), nights_of(app).run_due())
        await wait_night_over(tg, group, 1)
        await settled(app)
        text = group_text(tg, group)
        assert text.count("联赛「Friday」开始! 今晚: Ann, Bob, Cai") == 1
        assert "1 个空位由电脑补上" in text
        # The announcement and the reminder (each sent once) end in their last state: sign-ups closed, no
        # buttons, edited in place by the restarted bot.
        assert text.count("一小时后开始") == 0 and text.count("开打!") == 0
        signups = [m for m in tg.messages(group.id) if "已报名 (3)" in m.content]
        assert len(signups) == 2 and all("报名已截止" in m.content and not m.buttons for m in signups)
        db = db_of(app)
        assert (await db.leagues.night(night.id)).status == "done"
        played = await db.leagues.night_results(night.id)
        assert sorted(e.display_name for e in played) == ["Ann", "Bob", "Cai"] and all(e.hands == 1 for e in played)
        following = await night_of(app, league_id)
        assert (following.starts_at, following.status) == (FRIDAY + timedelta(days=7), "scheduled")


async def test_six_players_rotate_seats_and_the_season_table_adds_up(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob", "Cai", "Dee", "Eve", "Fay"])
    clock = Clock(FRIDAY - timedelta(hours=2))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        nights, db = nights_of(app), db_of(app)
        league_id = await create(app, group, "Six | fri 20:00 | Asia/Shanghai | 3 hands | kaikoufan")
        played: dict[str, int] = {}
        for week, (roster, hands_a_night) in enumerate([(users, 3), (users[2:], 1)]):
            start = FRIDAY + timedelta(days=7 * week)
            clock.now = start - timedelta(minutes=30)
            await nights.run_due()
            night = await night_of(app, league_id)
            for user in roster:
                assert await nights.sign(night.id, user.id, user.first_name, True) == "已报名。"
            # A second "I'm in" only says so (in the presser's language): no second private confirmation.
            sent = len(roster[0].private_messages())
            again = await nights.sign(night.id, roster[0].id, roster[0].first_name, True, "en")
            assert again == t("league_already_in", "en") and len(roster[0].private_messages()) == sent
            clock.now = start
            await nights.run_due()
            await wait_night_over(tg, group, week + 1)
            results = await db.leagues.night_results(night.id)
            hands = [e.hands for e in results]
            assert len(results) == len(roster) and max(hands) - min(hands) <= 1
            assert sum(hands) == 4 * hands_a_night  # four people a hand, no automatic player
            for e in results:
                played[e.display_name] = played.get(e.display_name, 0) + e.points
            if week == 0:  # every hand seated four different people; who stayed on kept their seat
                seats = await db.fetchall(
                    """SELECT h.hand_no, s.seat, s.player_id FROM hand_seats s JOIN hands h ON h.id = s.hand_id
                       JOIN matches m ON m.id = h.match_id WHERE m.league_night_id = ? ORDER BY h.hand_no, s.seat""",
                    (night.id,),
                )
                by_hand: dict[int, list[int]] = {}
                for row in seats:
                    by_hand.setdefault(row["hand_no"], []).append(row["player_id"])
                assert len(by_hand) == 3 and all(None not in p and len(set(p)) == 4 for p in by_hand.values())
                for a, b in zip(by_hand[1], by_hand[2], strict=True):
                    assert a == b or a not in by_hand[2]
                assert "1 局" in (await run_subcommand(nights, group.id, "set", "length 1 hands") or "")
        league = await db.leagues.get(league_id)
        table = await db.standings.leaderboard(group.id, Period.league_season(league_id, league.season))
        assert {e.display_name: e.points for e in table} == played
        assert [e.points for e in table] == sorted(played.values(), reverse=True)
        # League hands count for skill as usual (every hand these players played was a league hand).
        assert all(e.skill == START_SKILL + played[e.display_name] for e in table)


async def test_a_night_without_four_is_called_off_and_the_next_follows_dst(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob"])
    # Friday 29 October 2027, 20:00 in Berlin is 18:00 UTC (summer time); Germany changes to CET on the 31st.
    start = datetime(2027, 10, 29, 18, 0, tzinfo=UTC)
    clock = Clock(start - timedelta(hours=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        nights, db = nights_of(app), db_of(app)
        league_id = await create(app, group, "Freitag | fri 20:00 | Europe/Berlin | 4 hands | kaikoufan bots=off")
        night = await night_of(app, league_id)
        assert night.starts_at == start
        for user in users:
            await nights.sign(night.id, user.id, user.first_name, True)
        clock.now = start
        await nights.run_due()
        await nights.run_due()
        await settled(app)
        text = group_text(tg, group)
        assert text.count("取消: 只有 2 人报名 (Ann, Bob), 需要四人") == 1
        assert "周五 2027-11-05 20:00 Europe/Berlin" in text  # the next night, still 20:00 local
        assert (await db.leagues.night(night.id)).status == "called_off"
        assert app.bot_data.tables is not None and app.bot_data.tables.get(TableKey(group.id)) is None
        following = await night_of(app, league_id)
        assert following.starts_at == datetime(2027, 11, 5, 19, 0, tzinfo=UTC)  # CET: UTC+1


async def test_a_night_missed_while_the_bot_was_down_is_called_off_once(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    _, group = world(tg, ["Ann"])
    clock = Clock(FRIDAY - timedelta(hours=3))
    db_path = tmp_path / "bot.sqlite3"
    async with running_bot(tg, db_path, clock) as app:
        league_id = await create(app, group, "Friday | fri 20:00 | Asia/Shanghai | 2 hands | kaikoufan")
        await settled(app)
    clock.now = FRIDAY + timedelta(hours=5)  # back long after the start
    for _ in range(2):  # and restarted again: still one notice
        async with running_bot(tg, db_path, clock) as app:
            await settled(app)
    text = group_text(tg, group)
    assert text.count("因机器人离线错过, 取消") == 1
    assert "开始!" not in text
    async with running_bot(tg, db_path, clock) as app:
        assert (await night_of(app, league_id)).starts_at == FRIDAY + timedelta(days=7)


async def test_pause_calls_the_night_off_and_resume_schedules_the_next(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    _, group = world(tg, ["Ann"])
    clock = Clock(FRIDAY - timedelta(hours=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        nights, db = nights_of(app), db_of(app)
        league_id = await create(app, group, "Friday | fri 20:00 | Asia/Shanghai | 2 hands | kaikoufan")
        night = await night_of(app, league_id)
        assert "已暂停" in (await run_subcommand(nights, group.id, "pause", "") or "")
        assert "没有在进行" in (await run_subcommand(nights, group.id, "pause", "") or "")
        clock.now = FRIDAY - timedelta(minutes=30)
        await nights.run_due()  # no reminder while paused
        clock.now = FRIDAY
        await nights.run_due()
        await settled(app)
        assert "暂停中, 周五 2027-01-08 20:00 Asia/Shanghai 的场次取消" in group_text(tg, group)
        assert "一小时后" not in group_text(tg, group)
        assert (await db.leagues.night(night.id)).status == "called_off"
        reply = await run_subcommand(nights, group.id, "resume", "")
        assert reply is not None and "下一场: 周五 2027-01-15 20:00" in reply


async def test_set_end_and_table_commands(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    _, group = world(tg, ["Ann"])
    clock = Clock(FRIDAY - timedelta(days=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        nights, db = nights_of(app), db_of(app)
        league_id = await create(app, group, "Friday | fri 20:00 | Asia/Shanghai | 2 hands | kaikoufan")
        night = await night_of(app, league_id)
        reply = await run_subcommand(nights, group.id, "set", "schedule sat 19:30")
        assert reply is not None and "下一场: 周六 2027-01-09 19:30" in reply
        assert (await db.leagues.night(night.id)).starts_at == datetime(2027, 1, 9, 11, 30, tzinfo=UTC)
        before = await db.leagues.get(league_id)
        for bad in ("schedule someday 19:30", "colour red", "length 0 hands"):
            reply = await run_subcommand(nights, group.id, "set", bad)
            assert reply is not None and reply.startswith("格式不对"), reply
        assert await db.leagues.get(league_id) == before
        reply = await run_subcommand(nights, group.id, "end", "")
        assert reply is not None and "第 1 赛季结束" in reply
        assert (await db.leagues.get(league_id)).season == 2
        assert (await db.leagues.night(night.id)).season == 2  # the coming night counts for the new season
        assert await run_subcommand(nights, group.id, "table", "") is None
        await settled(app)
        captions = [m.caption or "" for m in tg.messages(group.id) if m.photo is not None]
        assert "联赛「Friday」第 1 赛季积分榜" in captions and "联赛「Friday」第 2 赛季积分榜" in captions
        assert "下一场: 周六 2027-01-09 19:30" in (await run_subcommand(nights, group.id, "next", "") or "")
        assert "已解散" in (await run_subcommand(nights, group.id, "close", "") or "")
        assert (await db.leagues.night(night.id)).status == "called_off"
        assert "还没有联赛" in (await run_subcommand(nights, group.id, "next", "") or "")
        asked = await run_subcommand(nights, group.id, "next", "", lang="en")  # an English member asks
        assert asked == t("league_none", "en")
        # A closed league's standings stay viewable, by name or as the newest.
        shown = len([m for m in tg.messages(group.id) if m.photo is not None])
        assert await run_subcommand(nights, group.id, "table", "friday") is None
        assert await run_subcommand(nights, group.id, "table", "") is None
        assert await run_subcommand(nights, group.id, "table", "Monday") == t(
            "league_unknown_name", "zh", said="Monday", names="Friday"
        )
        await settled(app)
        assert len([m for m in tg.messages(group.id) if m.photo is not None]) > shown  # (one slot: coalesced)


async def test_league_commands_typed_in_the_group(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob"])
    clock = Clock(FRIDAY - timedelta(days=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        ann, bob = users
        bob.say(group, "/league")
        await tg.wait_for_message_async(group.id, lambda m: m.content.startswith("联赛 (群管理员):"))
        bob.say(group, "/league frobnicate")
        unknown = t("league_err_subcommand", "zh", said="frobnicate")  # quoted, in the group's language
        await tg.wait_for_message_async(group.id, lambda m: unknown in m.content)
        ann.say(group, "/league create Friday | fri 20:00 | Asia/Shanghai")
        await tg.wait_for_message_async(group.id, lambda m: t("league_err_parts", "zh", count=3) in m.content)
        bob.say(group, "/league create Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan")
        await tg.wait_for_message_async(group.id, lambda m: "只有群管理员" in m.content)
        assert await nights_of(app).current(group.id) is None
        ann.say(group, "/league create Friday | fri 20:00 | Asia/Shanghai | 8 hands | kaikoufan")
        reply = await tg.wait_for_message_async(group.id, lambda m: "已创建" in m.content)
        assert "第一场: 周五 2027-01-08 20:00 Asia/Shanghai" in reply.content
        bob.say(group, "/league next")
        await tg.wait_for_message_async(group.id, lambda m: "已报名 (0): (还没有人)" in m.content)
        bob.say(bob.id, "/league next")
        await tg.wait_for_message_async(bob.id, lambda m: "请在群里使用" in m.content)


@pytest.mark.parametrize("left_as", ["announced", "running"])
async def test_a_night_due_while_the_bot_was_down_starts_when_it_is_back(
    fake_telegram: FakeTelegram, tmp_path: Path, left_as: str
) -> None:
    """Back ten minutes after the start: the night starts once. 'running': the bot died after claiming the
    night but before opening its table."""
    tg = fake_telegram
    users, group = world(tg, ["Ann", "Bob", "Cai", "Dee"])
    clock = Clock(FRIDAY - timedelta(hours=3))
    db_path = tmp_path / "bot.sqlite3"
    async with running_bot(tg, db_path, clock) as app:
        league_id = await create(app, group, "Friday | fri 20:00 | Asia/Shanghai | 1 hands | kaikoufan")
        night = await night_of(app, league_id)
        for user in users:
            await nights_of(app).sign(night.id, user.id, user.first_name, True)
        if left_as == "running":
            assert await db_of(app).leagues.advance_night(night.id, "running")
        await settled(app)
    clock.now = FRIDAY + timedelta(minutes=10)
    async with running_bot(tg, db_path, clock) as app:
        await wait_night_over(tg, group, 1)
        await nights_of(app).run_due()
        assert (await db_of(app).leagues.night(night.id)).status == "done"
        assert len(await db_of(app).leagues.night_results(night.id)) == 4
    assert group_text(tg, group).count("联赛「Friday」开始! 今晚: Ann, Bob, Cai, Dee") == 1


async def test_a_league_created_minutes_before_its_night_says_so_after_the_reply(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    (ann,), group = world(tg, ["Ann"])
    clock = Clock(FRIDAY - timedelta(minutes=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock):
        said = ann.say(group, "/league create Friday | fri 20:00 | Asia/Shanghai | 1 hands | kaikoufan")
        left = t("league_left_minutes", "zh", minutes=3)
        reminder = await tg.wait_for_message_async(group.id, lambda m: left in m.content, timeout=15)
        created = next(m for m in tg.messages(group.id) if m.reply_to_message_id == said.message_id)
        assert "已创建" in created.content and created.message_id < reminder.message_id
        assert t("league_left_hour", "zh") not in reminder.content


async def test_a_closed_league_shows_the_standings_of_its_last_season(
    fake_telegram: FakeTelegram, tmp_path: Path
) -> None:
    tg = fake_telegram
    users, group = world(tg, ["Ann"])
    clock = Clock(FRIDAY - timedelta(days=3))
    async with running_bot(tg, tmp_path / "bot.sqlite3", clock) as app:
        nights, db = nights_of(app), db_of(app)
        league_id = await create(app, group, "Closing | fri 20:00 | Asia/Shanghai | 2 hands | kaikoufan")
        await db.players.upsert(users[0].id, "Ann")
        await db.execute(  # Ann's season-1 result, as a league night leaves it
            "INSERT INTO standings (chat_id, period, player_id, points, hands, wins, biggest_win)"
            " VALUES (?, ?, ?, 120, 2, 1, 120)",
            (group.id, Period.league_season(league_id, 1).key, users[0].id),
        )
        assert "第 1 赛季结束" in (await run_subcommand(nights, group.id, "end", "") or "")
        closed = await run_subcommand(nights, group.id, "close", "") or ""
        assert "/league table Closing" in closed  # the promise the closing makes ...
        await settled(app)
        shown = len(tg.messages(group.id))
        assert await run_subcommand(nights, group.id, "table", "Closing") is None
        await settled(app)
        # ... is kept: the last season's table, with Ann's result, not an empty season 2.
        tables = [m for m in tg.messages(group.id)[shown:] if m.photo is not None]
        assert [m.caption for m in tables] == [t("league_season_table", "zh", name="Closing", season=1)]

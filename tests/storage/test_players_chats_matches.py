"""Players, per-chat settings and matches: defaults, updates, seats, and bad input that changes nothing."""

from __future__ import annotations

import pytest

from game.rules import Rules
from game.titles import START_SKILL
from storage import AlreadyClosedError, ChatSettings, Database, InvalidInputError, NotFoundError, Seat
from storage.standings import Period
from tests.storage.conftest import seat_match


async def test_players_register_once_and_keep_their_skill(db: Database) -> None:
    ann = await db.players.upsert(42, "Ann", "en")
    assert (ann.skill, ann.title.zh, ann.language, ann.hands) == (START_SKILL, "本科生", "en", 0)
    match = await seat_match(db, (42, 2, 3, None))
    hand = await db.hands.start(match.id, seed=1, dealer=0)
    await db.hands.close(hand.id, (90, -30, -30, -30), winner=0)
    again = await db.players.upsert(42, "Ann B.")  # a renamed Telegram user
    assert (again.display_name, again.skill, again.language, again.hands) == ("Ann B.", START_SKILL + 90, "en", 1)
    assert (await db.players.set_language(42, "zh")).language == "zh"
    assert await db.players.get(7) is None
    with pytest.raises(NotFoundError, match="no player 7"):
        await db.players.require(7)
    with pytest.raises(NotFoundError, match="no player 7"):
        await db.players.set_language(7, "en")


@pytest.mark.parametrize(
    ("args", "message"),
    [((0, "Zero"), "player id"), ((5, "  "), "display name"), ((5, "X", "fr"), "language"), ((True, "X"), "player id")],
)
async def test_bad_players_are_refused(db: Database, args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        await db.players.upsert(*args)  # type: ignore[arg-type]
    assert await db.fetchall("SELECT * FROM players") == []


async def test_chat_settings_default_then_update(db: Database) -> None:
    assert await db.chats.get(-5) == ChatSettings(-5)
    assert (await db.chats.get(-5)).rules == Rules()
    updated = await db.chats.update(-5, preset="koukoufan", rule_options={"min_payment": 0}, turn_seconds=45)
    assert (updated.preset, updated.turn_seconds, updated.claim_seconds) == ("koukoufan", 45, 10)
    assert updated.rules == Rules.from_json({"preset": "koukoufan", "min_payment": 0})
    assert await db.chats.get(-5) == updated
    later = await db.chats.update(
        -5, auto_players=False, auto_level="easy", language="en", base_unit=5, hands_per_game=16
    )
    assert await db.chats.get(-5) == later
    assert (later.preset, later.turn_seconds, later.auto_players, later.base_unit) == ("koukoufan", 45, False, 5)
    assert await db.chats.get(-6) == ChatSettings(-6)  # other chats untouched


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"preset": "riichi"}, "preset must be one of"),
        ({"rule_options": {"cap": -1}}, "bad rules: cap"),
        ({"rule_options": {"no_such": 1}}, "unknown rules option"),
        ({"rule_options": {"preset": "koukoufan"}}, "without 'preset'"),
        ({"claim_seconds": 1}, "claim_seconds must be between 3 and 600"),
        ({"turn_seconds": "30"}, "turn_seconds must be a whole number"),
        ({"auto_players": 1}, "true or false"),
        ({"auto_level": "godlike"}, "auto_level must be one of"),
        ({"language": "de"}, "language"),
        ({"colour": "red"}, "unknown chat setting 'colour'"),
    ],
)
async def test_bad_chat_settings_change_nothing(db: Database, changes: dict[str, object], message: str) -> None:
    before = await db.chats.update(-5, turn_seconds=20)
    with pytest.raises(InvalidInputError, match=message):
        await db.chats.update(-5, **{"hands_per_game": 4, **changes})  # a good change alongside the bad one
    assert await db.chats.get(-5) == before


async def test_match_seats_and_replacement(db: Database) -> None:
    match = await seat_match(db, (1, 2, 3, 4))
    assert match.seats == (Seat.human(1), Seat.human(2), Seat.human(3), Seat.human(4))
    assert (match.status, match.totals, match.hands_planned) == ("running", (0, 0, 0, 0), 8)
    assert await db.matches.running(-100) == match
    hand = await db.hands.start(match.id, seed=1, dealer=0)
    # Player 2 flees: the penalty is part of this hand's payments, an automatic player takes later hands.
    replaced = await db.matches.replace_seat(match.id, 1, Seat.auto("easy"))
    assert replaced.seats[1] == Seat.auto("easy")
    assert (await db.hands.get(hand.id)).seats[1] == Seat.human(2)
    closed = await db.hands.close(hand.id, (200, -400, 100, 100), winner=None)
    assert closed.results[1].skill_after == START_SKILL - 400
    following = await db.hands.start(match.id, seed=2, dealer=1)
    assert following.seats[1] == Seat.auto("easy")
    with pytest.raises(InvalidInputError, match="two seats"):
        await db.matches.replace_seat(match.id, 1, Seat.human(3))
    with pytest.raises(NotFoundError, match="no player 77"):
        await db.matches.replace_seat(match.id, 1, Seat.human(77))
    with pytest.raises(InvalidInputError, match="still has hand"):
        await db.matches.finish(match.id)
    abandoned = await db.matches.finish(match.id, "abandoned")
    assert abandoned.status == "abandoned"
    assert (await db.hands.get(following.id)).status == "abandoned"
    assert await db.matches.running(-100) is None
    with pytest.raises(AlreadyClosedError):
        await db.hands.start(match.id, seed=3, dealer=0)
    with pytest.raises(AlreadyClosedError):
        await db.matches.finish(match.id)


@pytest.mark.parametrize(
    ("seats", "message"),
    [
        ([Seat.human(1)] * 3, "exactly 4 seats"),
        ([Seat.human(1), Seat.human(1), Seat.auto(), Seat.auto()], "two seats"),
        ([Seat(), Seat.auto(), Seat.auto(), Seat.auto()], "seat 0 must hold either"),
        ([Seat(1, "easy"), Seat.auto(), Seat.auto(), Seat.auto()], "seat 0 must hold either"),
        ([Seat.auto("expert"), Seat.auto(), Seat.auto(), Seat.auto()], "automatic level must be one of"),
        ([Seat.human(404), Seat.auto(), Seat.auto(), Seat.auto()], "no player 404"),
    ],
)
async def test_bad_matches_are_refused(db: Database, seats: list[Seat], message: str) -> None:
    await db.players.upsert(1, "One")
    with pytest.raises((InvalidInputError, NotFoundError), match=message):
        await db.matches.create(-100, 1, "kaikoufan", seats, 8)
    assert await db.fetchall("SELECT * FROM matches") == []


async def test_match_arguments_are_checked(db: Database) -> None:
    seats = [Seat.auto()] * 4
    with pytest.raises(InvalidInputError, match="bad rules"):
        await db.matches.create(-100, 1, "riichi", seats, 8)
    with pytest.raises(InvalidInputError, match="seed"):
        await db.matches.create(-100, -1, "kaikoufan", seats, 8)
    with pytest.raises(NotFoundError, match="no league night 3"):
        await db.matches.create(-100, 1, "kaikoufan", seats, 8, league_night_id=3)
    with pytest.raises(NotFoundError, match="no match 5"):
        await db.matches.get(5)
    custom = await db.matches.create(-100, 1, {"preset": "kaikoufan", "bright_cap": True}, seats, 8)
    assert custom.rules.bright_cap == 500
    assert (await db.hands.start(custom.id, seed=1, dealer=0)).rules == custom.rules
    with pytest.raises(InvalidInputError, match="thread id"):
        await db.matches.create(-100, 1, "kaikoufan", seats, 8, thread_id=0)
    assert custom.thread_id is None  # a group's own table
    in_topic = await db.matches.create(-100, 1, "kaikoufan", seats, 8, thread_id=42)
    assert [m.thread_id for m in await db.matches.all_running()] == [None, 42]
    assert (await db.matches.get(in_topic.id)).thread_id == 42


async def test_a_migrated_group_takes_everything_along_once(db: Database) -> None:
    await db.chats.update(-100, hands_per_game=4)
    match = await seat_match(db, (1, 2, 3, None), chat_id=-100)
    hand = await db.hands.start(match.id, seed=3, dealer=0)
    await db.hands.close(hand.id, (30, -10, -10, -10), winner=0, summary={})
    await db.live_messages.remember(1, "hand-100", 7, is_photo=True)  # a player's message of the table
    await db.live_messages.remember(-100, "spectator", 8, is_photo=True)  # the old group's: stays behind
    assert await db.chats.migrate(-100, -1001234)
    assert not await db.chats.migrate(-100, -1001234)  # a second time: nothing left to move
    assert (await db.chats.get(-1001234)).hands_per_game == 4
    assert (await db.chats.get(-100)).hands_per_game == ChatSettings(-100).hands_per_game
    assert (await db.matches.get(match.id)).chat_id == -1001234
    board = await db.standings.leaderboard(-1001234, Period.all_time())
    assert [(e.player_id, e.points) for e in board][:1] == [(1, 30)]
    assert await db.standings.leaderboard(-100, Period.all_time()) == []
    assert [(m.chat_id, m.slot, m.message_id) for m in await db.live_messages.of_chats([1, -100])] == [
        (1, "hand-1001234", 7)
    ]

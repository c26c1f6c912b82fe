"""The table's core as messages → effects, with made-up answers for its stores (``World``): no I/O, no clock,
no asyncio, each test in milliseconds. What a real process proves (pacing, kill -9, the webhook) stays in
tests/e2e; the runner with storage and the outbox is tests/bot/test_runner.py."""

from __future__ import annotations

from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import pytest

from bot.callbacks import Stamp, code_of
from bot.config import Config
from bot.host.edge import group_settings, table_options
from bot.i18n import t
from bot.table import effects as fx
from bot.table import messages as msg
from bot.table.core import absent, step
from bot.table.drive import drive
from bot.table.hand import RETRY_SECONDS, due_at
from bot.table.key import TableKey
from bot.table.state import MAX_NAME, WARN_SECONDS, Table
from game.actions import Action
from game.automatic import choose
from game.tiles import parse_tile
from storage.chats import ChatSettings

GROUP = TableKey(-100500)
ANN, BOB, CAI, DAN = 11, 12, 13, 14
OPTIONS = table_options(Config(token="1:x", match_seed=852, bot_delay=0.5, next_hand_seconds=30.0))
T = TypeVar("T")


def at_once(run: Coroutine[object, object, T]) -> T:
    """The result of a coroutine that never waits (every answer here is at hand)."""
    try:
        run.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    raise AssertionError("the core waited for something")


@dataclass
class World:
    """Answers the core's effects as storage and Telegram would, and keeps every effect it was asked for."""

    blocked: set[int] = field(default_factory=set)  # people the bot cannot write to
    refuse: set[type] = field(default_factory=set)  # effects storage refuses (Refused)
    settings: ChatSettings = field(default_factory=lambda: ChatSettings(GROUP.chat_id))
    effects: list[Any] = field(default_factory=list)
    penalties: tuple[int, ...] = (0, 0, 0, 0)
    hands: int = 0
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    members: int = 0  # the group's member count (0: Telegram did not say)

    def take(self, table: Table, message: msg.Message, now: float = 0.0) -> fx.Reply | None:
        """Step the core with ``message``; the reply it gave (its effects are appended to ``effects``)."""
        return at_once(drive(step(table, message, now, OPTIONS), self.carry_out))

    async def carry_out(self, effect: fx.Effect) -> object:
        self.effects.append(effect)
        if type(effect) in self.refuse:
            raise fx.Refused(f"refused {type(effect).__name__}")
        return self.answer(effect)

    def answer(self, effect: fx.Effect) -> object:
        match effect:
            case fx.ReadSettings():
                return group_settings(self.settings)
            case fx.ReadLanguages(user_ids):
                return {uid: "zh" for uid in user_ids}
            case fx.Reach(user_id, _):
                return user_id not in self.blocked
            case fx.CountMembers():
                return self.members
            case fx.CreateMatch():
                return 1
            case fx.StartHand():
                self.hands += 1
                return fx.HandStarted(self.hands, self.hands, "c" * 64)
            case fx.CloseHand(_, payments):
                self.totals = [a + b for a, b in zip(self.totals, payments, strict=True)]
                return fx.Settled(tuple(self.totals), tuple(payments), {}, "ABC234", "1:ab")
            case fx.MoveChat():
                return True  # the group had settings and matches stored
            case fx.ReadPenalties():
                return self.penalties
            case fx.Decide(view, level, seed):
                return choose(view, level, seed)
            case fx.AskSeating():
                return (None, None, None, None)
            case fx.AskOver():
                return False
        return None

    def of(self, kind: type, since: int = 0) -> list[Any]:
        return [e for e in self.effects[since:] if isinstance(e, kind)]


def lobby(world: World, *people: tuple[int, str]) -> Table:
    table = Table(key=GROUP, title="麻将群", creator_id=0, creator_name="", state="new")
    creator, *others = people
    world.take(table, msg.Open(creator[0], creator[1], "麻将群"))
    for user_id, name in others:
        world.take(table, msg.Join(user_id, name))
    return table


def dealt(world: World, *people: tuple[int, str]) -> Table:
    table = lobby(world, *people)
    assert world.take(table, msg.Begin(people[0][0])) == fx.Reply(None)
    return table


def press(world: World, table: Table, user_id: int, action: Action, now: float = 1.0) -> fx.Reply | None:
    seat = table.seat_of(user_id)
    assert seat is not None
    return world.take(table, msg.Press(user_id, table.stamp(seat), code_of(action), "en"), now)


def play_out(world: World, table: Table) -> None:
    """Step ``Due`` at each due time until the hand in play is settled (every human away: 托管)."""
    for _, s in table.humans():
        s.auto = True
    while table.state == "playing":
        when = due_at(table, OPTIONS)
        assert when is not None
        world.take(table, msg.Due(), when)


# --- the lobby ---------------------------------------------------------------------------------------------------
def test_the_creator_sits_silently_and_others_are_answered_in_the_group() -> None:
    world = World()
    table = lobby(world, (ANN, "Ann"))
    assert table.seat_of(ANN) == 0 and world.of(fx.Reply) == [fx.Reply(None)]  # no "Ann 入座" for the creator
    answer = world.take(table, msg.Join(BOB, "Bob"))
    assert answer == fx.Reply(t("joined", "zh", name="Bob", wind=t("wind_1", "zh")))
    assert world.take(table, msg.Join(BOB, "Bob")) == fx.Reply(t("already_seated", "zh"))


def test_someone_the_bot_cannot_reach_is_not_seated_and_gets_the_join_link() -> None:
    world = World(blocked={BOB})
    table = lobby(world, (ANN, "Ann"))
    answer = world.take(table, msg.Join(BOB, "Bob"))
    assert answer == fx.Reply(t("not_reachable", "zh", name="Bob"), join_link=True)
    assert table.seat_of(BOB) is None and not world.of(fx.SavePlayer, since=len(world.effects) - 3)


def test_a_long_name_is_cut_everywhere_the_table_says_it() -> None:
    world = World()
    long = "Александра-Мария 王小明🀄 " * 3
    table = lobby(world, (ANN, long))
    assert len(table.seat(0).name) == MAX_NAME and table.seat(0).name.endswith("…")
    assert table.creator_name == table.seat(0).name


def test_dealing_stores_the_match_and_the_hand_before_any_picture() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    kinds = [type(e) for e in world.effects]
    assert kinds.index(fx.CreateMatch) < kinds.index(fx.StartHand) < kinds.index(fx.ShowSeat)
    # The lobby then shows the seats as dealt, without its buttons.
    assert world.effects.index(fx.ShowGroup("lobby"), kinds.index(fx.CreateMatch)) > kinds.index(fx.StartHand)
    assert table.state == "playing" and [s.user_id for s in table.seats] == [ANN, BOB, None, None]


def test_only_a_seated_player_or_the_creator_may_begin_and_a_lobby_needs_a_human() -> None:
    world = World()
    table = lobby(world, (ANN, "Ann"), (BOB, "Bob"))
    assert world.take(table, msg.Begin(CAI)) == fx.Reply(t("not_seated", "zh"))
    assert world.take(table, msg.Leave(ANN)) == fx.Reply(t("left", "zh", name="Ann"))
    assert world.take(table, msg.Begin(ANN)) == fx.Reply(None)  # the creator, standing, deals for Bob
    assert world.take(table, msg.Begin(ANN)) == fx.Reply(t("already_playing", "zh"))


def test_no_automatic_players_means_four_people() -> None:
    world = World(settings=ChatSettings(GROUP.chat_id, auto_players=False))
    table = lobby(world, (ANN, "Ann"))
    assert world.take(table, msg.Begin(ANN)) == fx.Reply(t("need_players", "zh"))
    assert table.state == "lobby"


# --- presses -------------------------------------------------------------------------------------------------------
def test_stale_foreign_forged_and_repeated_presses_change_nothing() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    hand = table.hand
    assert hand is not None and hand.dealer == 0
    discard = table.prompts[0].legal[-1]
    stamp = table.stamp(0)
    stale = t("press_stale", "en")
    assert world.take(table, msg.Press(CAI, stamp, code_of(discard), "en")) == fx.Reply(t("press_foreign", "en"))
    assert world.take(table, msg.Press(BOB, stamp, code_of(discard), "en")) == fx.Reply(t("press_foreign", "en"))
    assert world.take(table, msg.Press(ANN, stamp, "zz", "en")) == fx.Reply(stale)  # no such action
    assert world.take(table, msg.Press(ANN, Stamp(1, 5, 0), code_of(discard), "en")) == fx.Reply(stale)
    assert world.take(table, msg.Press(ANN, stamp, "hu", "en")) == fx.Reply(stale)  # not on offer
    assert not world.of(fx.AppendAction) and len(hand.actions) == 0
    assert press(world, table, ANN, discard) == fx.Reply(None)
    assert len(world.of(fx.AppendAction)) == 1
    # The same button again (a double tap, a press raced by the timer): its prompt is spent.
    assert world.take(table, msg.Press(ANN, stamp, code_of(discard), "en")) == fx.Reply(stale)
    assert len(world.of(fx.AppendAction)) == 1


@dataclass
class Untyped(World):
    """Answers a new hand with a stand-in for its record, as tests once did."""

    def answer(self, effect: fx.Effect) -> object:
        return (7, 1, "c" * 64) if isinstance(effect, fx.StartHand) else super().answer(effect)


def test_an_answer_of_another_type_than_its_effect_names_is_refused() -> None:
    world = Untyped()
    table = lobby(world, (ANN, "Ann"))
    with pytest.raises(TypeError, match="StartHand answered with a tuple"):
        world.take(table, msg.Begin(ANN))
    assert table.hand is None  # nothing was dealt on a record it could not read


def test_a_refused_store_leaves_the_table_as_it_was_and_the_timer_tries_again() -> None:
    world = World(refuse={fx.AppendAction})
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    hand = table.hand
    assert hand is not None
    discard, before = table.prompts[0].legal[-1], table.stamp(0)
    assert press(world, table, ANN, discard, now=3.0) == fx.Reply(t("storage_busy", "en"))
    assert len(hand.actions) == 0 and table.stamp(0) == before  # nothing to undo: it was never applied
    assert table.not_before == 3.0 + RETRY_SECONDS
    shown = len(world.effects)
    world.refuse.clear()  # the disk is back
    assert press(world, table, ANN, discard, now=4.0) == fx.Reply(None)  # the same button still counts
    assert len(hand.actions) >= 1 and world.of(fx.ShowSeat, since=shown)


def _until_anns_turn(world: World, table: Table, now: float) -> float:
    """Bob discards at once, the automatic players move when due, Ann lets every claim of hers time out: until
    Ann is to discard. The time then."""
    while not (0 in table.prompts and table.hand is not None and table.hand.phase == "turn"):
        assert table.state == "playing"
        if 1 in table.prompts:
            bob = table.prompts[1].legal
            press(world, table, BOB, bob[-1] if Action(1, "pass") not in bob else Action(1, "pass"), now)
            continue
        when = due_at(table, OPTIONS)
        assert when is not None
        now = max(now, when)
        missed = table.seat(0).missed
        world.take(table, msg.Due(), now)
        assert table.seat(0).missed == missed and not table.seat(0).auto  # a claim's silence is a pass, no miss
    return now


def test_a_stale_press_in_the_chat_shows_the_picture_again_and_a_taken_one_needs_no_second_write() -> None:
    """The picture pressed may be older than the table: another worker's last write, landing after the new owner's
    (storage.cluster.Lease). A press refused shows the seat's picture again (the edge writes it even with no live
    page); a press taken is shown by the move itself."""
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    old = table.stamp(0)
    legal = table.prompts[0].legal
    shown = len(world.effects)
    assert press(world, table, ANN, legal[-1]) == fx.Reply(None)
    assert fx.ShowSeat(0, urgent=True, chat=True, refused=False) in world.effects[shown:]
    shown = len(world.effects)
    stale = world.take(table, msg.Press(ANN, old, code_of(legal[-1]), "en"), 2.0)
    assert stale == fx.Reply(t("press_stale", "en"))
    assert world.effects[shown:] == [fx.ShowSeat(0, urgent=True, chat=True, refused=True), stale]


def test_a_turn_timed_out_is_played_once_after_a_warning_and_two_in_a_row_start_tuoguan() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    from bot.views.game_views import seat_content

    start = table.prompts[0].since
    warn = start + table.turn_seconds - WARN_SECONDS
    assert due_at(table, OPTIONS) == warn  # Ann deals; she is warned 10 s before her turn's time runs out
    shown = len(world.effects)
    world.take(table, msg.Due(), warn)
    assert world.effects[shown:] == [fx.ShowSeat(0, urgent=True)]  # her caption says so, nothing is played
    assert t("your_turn_hurry", "zh", seconds=10) in seat_content(table, 0).text
    assert due_at(table, OPTIONS) == start + table.turn_seconds
    world.take(table, msg.Due(), start + table.turn_seconds)  # once only: now the time is up
    assert [e.action.seat for e in world.of(fx.AppendAction, since=shown)][:1] == [0]  # one move played for her
    assert not table.seat(0).auto and table.seat(0).missed == 1 and table.tuoguan[0] == 0
    assert not [e for e in world.of(fx.Announce, since=shown) if e.user_id is None]  # the group hears nothing
    assert t("missed_turn", "zh", turns=2) in seat_content(table, 0).text
    # Her next turn she plays herself: the count starts again.
    now = _until_anns_turn(world, table, start + table.turn_seconds)
    press(world, table, ANN, table.prompts[0].legal[-1], now)
    assert table.seat(0).missed == 0 and t("missed_turn", "zh", turns=2) not in seat_content(table, 0).text
    # Two turns in a row timed out: 托管, said in the group.
    for missed in (1, 2):
        now = _until_anns_turn(world, table, now)
        for _ in range(2):  # the warning, then the time up
            now = due_at(table, OPTIONS) or now
            world.take(table, msg.Due(), now)
        assert table.seat(0).missed == missed and table.seat(0).auto == (missed == 2)
    assert fx.Announce(t("announce_tuoguan", "zh", seat="东 Ann")) in world.effects and table.tuoguan[0] == 1
    back = world.take(table, msg.Press(ANN, Stamp(), "back", "en"), now + 1)
    assert back == fx.Reply(t("back_ok", "en")) and not table.seat(0).auto and table.seat(0).missed == 0
    assert world.take(table, msg.Press(ANN, Stamp(), "back", "en"), now + 2) == fx.Reply(t("press_stale", "en"))


def test_a_person_in_tuoguan_is_waited_for_at_the_next_hand_then_played_for_with_a_notice() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    play_out(world, table)  # both away (托管) to the end of the hand
    assert world.take(table, msg.Press(BOB, Stamp(), "ready", "zh"), 500.0) == fx.Reply(t("press_ok", "zh"))
    assert table.state == "between"  # Ann, still in 托管, is waited for as anyone
    shown = len(world.effects)
    when = due_at(table, OPTIONS)
    assert when == table.between_since + OPTIONS.next_hand_seconds
    world.take(table, msg.Due(), when)  # the usual pause is over: the hand starts, the automatic player for her
    assert table.state == "playing" and table.hand_number == 2 and table.seat(0).auto and not table.seat(1).auto
    notices = world.of(fx.Announce, since=shown)
    assert fx.Announce(t("announce_tuoguan_stays", "zh", seat="东 Ann")) in notices
    assert fx.Announce(t("tuoguan_stays", "zh"), user_id=ANN) in notices
    assert not [n for n in notices if "Bob" in n.text or n.user_id == BOB]
    # Her Ready ends it: a hand later, pressed in time, she plays herself.
    play_out(world, table)
    world.take(table, msg.Press(BOB, Stamp(), "ready", "zh"), 2000.0)
    assert world.take(table, msg.Press(ANN, Stamp(), "ready", "zh"), 2001.0) == fx.Reply(t("press_ok", "zh"))
    assert table.state == "playing" and table.hand_number == 3 and not table.seat(0).auto


def test_every_claim_window_is_decided_at_once_by_automatic_players() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"))
    for _ in range(40):  # Ann discards whatever comes; the three automatic players answer without a pause
        hand = table.hand
        assert hand is not None
        if table.state != "playing" or hand.finished:
            break
        if 0 in table.prompts and hand.phase == "turn":
            press(world, table, ANN, table.prompts[0].legal[-1])
            continue
        if 0 in table.prompts:  # a claim of her own: she passes
            press(world, table, ANN, Action(0, "pass"))
            continue
        due = table.next_due(OPTIONS.bot_delay)
        assert due is not None
        if hand.phase != "turn":
            assert due[0] == table.prompts[due[1]].since  # a claim by an automatic player: no tell-tale pause
        world.take(table, msg.Due(), due[0])


# --- the end of a hand, flight, stop -----------------------------------------------------------------------------
def test_a_hand_ends_with_every_message_of_it_becoming_its_result() -> None:
    """The group's picture and each player's are edited into the result (no message of its own, no win notice
    aside: the result says how the hand ended)."""
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    before = len(world.effects)
    play_out(world, table)
    assert table.state == "between"
    end = world.effects[before:]
    close = next(i for i, e in enumerate(end) if isinstance(e, fx.CloseHand))
    after = end[close:]
    shown = [e for e in after if isinstance(e, fx.ShowGroup | fx.ShowSeat | fx.ShowResult | fx.Announce)]
    assert shown == [
        fx.ShowGroup("result"),
        fx.ShowResult(0, OPTIONS.next_hand_seconds),
        fx.ShowResult(1, OPTIONS.next_hand_seconds),
    ]
    assert not [e for e in end[:close] if isinstance(e, fx.Announce) and "胡了" in e.text]


@pytest.mark.parametrize(
    ("members", "watched"),
    [(3, False), (4, True), (0, True)],  # Ann, Bob and the bot; one more; Telegram did not say
)
def test_the_groups_picture_waits_its_idle_pace_only_in_a_group_of_the_seated_people(
    members: int, watched: bool
) -> None:
    world = World(members=members)
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    assert table.watched is watched
    assert fx.ShowGroup("spectator", fresh=True) in world.of(fx.ShowGroup)  # the deal: at once, either way
    seat = next(iter(table.prompts))
    user_id = table.seat(seat).user_id
    assert user_id is not None and table.hand is not None
    since = len(world.effects)
    discard = next(a for a in table.hand.legal_actions(seat) if a.kind == "discard")
    press(world, table, user_id, discard)
    assert world.of(fx.ShowGroup, since)[-1] == fx.ShowGroup("spectator", idle=not watched)


def test_ready_starts_the_next_hand_once_every_present_player_is_ready() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    play_out(world, table)  # both were away (托管)
    assert world.take(table, msg.Press(BOB, Stamp(), "back", "zh")) == fx.Reply(t("back_ok", "zh"))
    assert world.take(table, msg.Press(ANN, Stamp(), "ready", "zh")) == fx.Reply(t("press_ok", "zh"))
    assert table.state == "between"  # Bob is back and not ready yet: he is waited for
    assert world.take(table, msg.Press(BOB, Stamp(), "ready", "zh")) == fx.Reply(t("press_ok", "zh"))
    assert table.state == "playing" and table.hand_number == 2
    assert world.take(table, msg.Press(BOB, Stamp(), "ready", "zh")) == fx.Reply(t("press_stale", "zh"))


def test_a_flight_stores_its_penalty_first_and_the_last_human_leaving_ends_the_table() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    penalty = table.match.rules.flee_penalty if table.match else 0
    assert world.take(table, msg.Leave(BOB)) == fx.Reply(t("hand_running", "zh", penalty=penalty))
    assert world.take(table, msg.Leave(BOB, lang="en")) == fx.Reply(t("hand_running", "en", penalty=penalty))
    # A flight confirmed for another hand (one that is over) charges nothing, and leaves nothing either.
    assert table.hand_id is not None
    over = msg.Leave(BOB, flee=True, lang="en", hand_id=table.hand_id - 1)
    assert world.take(table, over) == fx.Reply(t("flee_stale", "en")) and table.seat_of(BOB) == 1
    start = len(world.effects)
    assert world.take(table, msg.Leave(BOB, flee=True, hand_id=table.hand_id)) == fx.Reply(None)
    flight = world.effects[start:]
    assert isinstance(flight[0], fx.StoreFlee) and flight[0].seat == 1  # stored before anyone is told
    assert fx.ShowSeat(1, user_id=BOB, lang="zh", left=True) in flight  # his picture: he left, no buttons
    assert fx.Announce(t("announce_flee", "zh", seat="南 Bob", penalty=penalty)) in flight  # the group is told
    assert table.seat(1).user_id is None and table.left_by == {1: "Bob"}
    world.penalties = (penalty // 3, -penalty, penalty // 3, penalty // 3)
    assert world.take(table, msg.Leave(ANN, flee=True)) == fx.Reply(None)
    assert table.state == "closed" and fx.FinishMatch(1, "done") in world.effects  # the penalties settled it
    assert world.effects[-2:] == [fx.Closed(), fx.Reply(None)]


def test_stop_is_for_the_creator_or_an_admin_and_closes_everything() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    assert world.take(table, msg.Stop(BOB, is_admin=False)) == fx.Reply(t("stop_denied", "zh"))
    start = len(world.effects)
    assert world.take(table, msg.Stop(BOB, is_admin=True)) == fx.Reply(None)
    assert table.state == "closed"
    tail = world.effects[start:]
    assert fx.ShowGroup("spectator", stopped=True) in tail and fx.FinishMatch(1, "abandoned") in tail
    assert fx.ShowSeat(0, stopped=True) in tail and fx.ShowSeat(1, stopped=True) in tail
    assert fx.Forget(GROUP.private_slot("hand"), BOB) in tail and tail[-2:] == [fx.Closed(), fx.Reply(None)]
    assert absent(msg.Press(ANN, Stamp(), "ready", "en"), OPTIONS) == t("press_stale", "en")


# --- what happens to the chats ------------------------------------------------------------------------------------
def test_a_migrated_group_moves_storage_then_messages_then_the_key() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    start = len(world.effects)
    world.take(table, msg.Migrated(-100999))
    moved = world.effects[start:]
    kinds = [type(e) for e in moved]
    assert kinds.index(fx.MoveChat) < kinds.index(fx.MoveMessages) < kinds.index(fx.Rekey)
    assert table.key == TableKey(-100999) and fx.Rekey(GROUP, TableKey(-100999)) in moved
    assert fx.MoveMessages(GROUP.chat_id, -100999, ((ANN, "hand-100500", "hand-100999"),
                                                    (BOB, "hand-100500", "hand-100999"))) in moved  # fmt: skip
    assert kinds.index(fx.Rekey) < kinds.index(fx.ShowSeat)  # fresh buttons naming the new chat


def test_a_closed_topic_closes_its_table_and_drops_what_waits_there() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"))
    world.take(table, msg.Unwritable(topic=True))
    assert table.state == "closed" and world.effects[-1] == fx.DropGroup(topic_only=True)
    assert fx.FinishMatch(1, "abandoned") in world.effects


def test_a_player_who_blocks_the_bot_is_played_for_once() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    world.take(table, msg.Unreachable(BOB))
    assert table.seat(1).auto and world.effects[-1] == fx.Announce(t("announce_unreachable", "zh", seat="南 Bob"))
    count = len(world.effects)
    world.take(table, msg.Unreachable(BOB))
    assert len(world.effects) == count  # told once
    world.take(table, msg.Press(BOB, Stamp(), "back", "zh"))  # he unblocked it and is back; then blocks it again
    table.seat(1).auto = True  # and times out first: the group still learns why he cannot come back by himself
    world.take(table, msg.Unreachable(BOB))
    assert world.effects[-1] == fx.Announce(t("announce_unreachable", "zh", seat="南 Bob"))


def test_a_resumed_table_is_shown_where_it_stands() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    start = len(world.effects)
    world.take(table, msg.Resumed())
    shown = world.effects[start:]
    assert shown[0] == fx.Announce(t("resumed", "zh"))
    assert fx.ShowSeat(0, urgent=True) in shown and fx.ShowSeat(1, urgent=False) in shown
    play_out(world, table)
    start = len(world.effects)
    world.take(table, msg.Resumed(), 500.0)
    assert world.effects[start] == fx.Announce(t("resumed_between", "zh", seconds=30))
    assert fx.ShowResult(0, 30.0, picture=False) in world.effects[start:] and table.between_since == 500.0


def test_a_whole_match_of_automatic_players_ends_and_closes() -> None:
    world = World(settings=replace(ChatSettings(GROUP.chat_id), hands_per_game=2))
    table = dealt(world, (ANN, "Ann"))
    table.seat(0).auto = True
    for _ in range(2000):
        if table.state == "closed":
            break
        if table.state == "between":
            table.seat(0).auto = True  # still away
        world.take(table, msg.Due(), due_at(table, OPTIONS) or 0.0)
    assert table.state == "closed" and world.hands == 2
    assert sum(world.totals) == 0 and fx.FinishMatch(1, "done") in world.effects


def test_every_seat_s_last_picture_of_a_hand_has_no_buttons_and_says_it_is_over() -> None:
    from bot.views.game_views import seat_content, spectator_content

    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    play_out(world, table)  # both away (托管): their pictures had an "I'm back" button until the end
    for seat in (0, 1):
        last = seat_content(table, seat)
        assert last.markup is None and t("seat_hand_over", "zh") in last.text
    assert t("status_over", "zh") in spectator_content(table).text  # the group reads that the hand is over


def test_nobody_but_the_seat_asked_learns_that_the_haidi_tile_could_win() -> None:
    """While a seat decides whether to win with its 海底 tile, nothing is shown to anyone else (a 海底 nobody can
    win is drawn to its end in one step, so the group and the others cannot tell the two apart)."""
    from bot.table.hand import publish
    from tests.game.test_table import FOUR_PENGS, layout, play

    hands = ["1m2m3m4m3z3z4z4z5z5z2p2p2p5m", "1m1m2m2m3m3m4m4m3z4z5z7z6z", "7z7z6z", "2z2z6z"]
    hand = layout(0, hands, head="1s1s5m", indicator="1z", pad=11)  # seat 0's 海底 draw, 5m, wins
    play(hand, *FOUR_PENGS)
    table = Table(key=GROUP, title="g", creator_id=ANN, creator_name="Ann")
    for user_id, name in ((ANN, "Ann"), (BOB, "Bob"), (CAI, "Cai"), (DAN, "Dan")):
        table.sit(user_id, name)
    table.start_hand(hand, hand_id=1, now=0.0)
    assert fx.ShowGroup("spectator") in list(publish(table, {0, 1, 2, 3}))  # any other time: the group sees it
    _, changed = table.apply(Action(1, "discard", parse_tile("6z")), now=1.0)
    assert hand.phase == "haidi" and hand.waiting_on() == [0]
    shown = list(publish(table, changed | {0, 1, 2, 3}))
    assert shown == [fx.ShowSeat(0, urgent=True)]  # the seat asked, and nobody else


# --- what a pause tells (issue 40) --------------------------------------------------------------------------------
def _play_two_people(world: World, table: Table, think: float, steps: int) -> list[tuple[float, float]]:
    """Ann and Bob discard at once and take ``think`` seconds over each claim (then let it go); the automatic
    players move when due. Every step checks what is shown while a draw is held back; the holds (from, until)."""
    from bot.views.game_views import seat_content, spectator_content

    holds: list[tuple[float, float]] = []
    now = 1.0
    for _ in range(steps):
        hand = table.hand
        if table.state != "playing" or hand is None or hand.finished:
            break
        person = next((seat for seat, s in table.humans() if seat in table.prompts), None)
        before = len(world.effects)
        if person is not None and hand.phase == "turn":
            press(world, table, table.seat(person).user_id or 0, table.prompts[person].legal[-1], now)
        elif person is not None:
            now += think
            press(world, table, table.seat(person).user_id or 0, Action(person, "pass"), now)
        else:
            when = due_at(table, OPTIONS)
            assert when is not None
            now = max(now, when)
            world.take(table, msg.Due(), now)
        held = table.held
        if held is None:
            continue
        holds.append((now, held.until))
        drawer = hand.view(None).turn
        assert drawer not in table.prompts and due_at(table, OPTIONS) == held.until  # nobody is asked yet
        assert f"余 {hand.wall.remaining + 1} 张" in spectator_content(table).text  # the draw not shown
        for seat, _ in table.humans():  # nor to the one who drew: no drawn tile, no buttons
            content = seat_content(table, seat)
            assert content.markup is None and f"余 {hand.wall.remaining + 1} 张" in content.text
        assert all(e.seat != drawer for e in world.of(fx.ShowSeat, since=before))  # shown only when it is drawn
        now = held.until
        shown = len(world.effects)
        world.take(table, msg.Due(), now)
        assert table.held is None and drawer in table.prompts and table.prompts[drawer].since == now
        if table.seat(drawer).human:
            assert fx.ShowSeat(drawer, urgent=True) in world.of(fx.ShowSeat, since=shown)
    return holds


def test_with_two_people_a_discard_nobody_deciding_could_claim_waits_as_a_claim_window_would() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    holds = _play_two_people(world, table, think=5.0, steps=400)
    assert len(holds) >= 10
    pauses = [until - start for start, until in holds]
    assert all(0.0 <= p <= OPTIONS.claim_pause + 1e-9 for p in pauses)
    # Before any claim of theirs, uniform over [0, claim_pause]; then drawn from how long they took over their
    # claims (5 s, capped): the cap.
    assert table.claim_pauses and set(table.claim_pauses) == {5.0}
    assert pauses[-1] == pytest.approx(OPTIONS.claim_pause) and min(pauses) < OPTIONS.claim_pause


def test_with_one_person_nothing_waits_for_nobody() -> None:
    world = World()
    table = dealt(world, (ANN, "Ann"))
    assert _play_two_people(world, table, think=5.0, steps=300) == []


def test_tuoguan_asked_on_a_turn_plays_that_turn_and_on_until_i_m_back() -> None:
    from bot.views.game_views import seat_content

    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    stamp, now = table.stamp(0), table.prompts[0].since + 3.0
    stale, foreign = fx.Reply(t("press_stale", "en")), fx.Reply(t("press_foreign", "en"))
    # Another seat's, an old decision's, Bob's with nothing to decide: nothing changes.
    assert world.take(table, msg.Press(BOB, stamp, "auto", "en"), now) == foreign
    assert world.take(table, msg.Press(ANN, Stamp(1, 5, 0), "auto", "en"), now) == stale
    assert world.take(table, msg.Press(BOB, table.stamp(1), "auto", "en"), now) == stale
    assert not table.seat(0).auto and not table.seat(1).auto and table.tuoguan == [0, 0, 0, 0]
    shown = len(world.effects)
    assert world.take(table, msg.Press(ANN, stamp, "auto", "en"), now) == fx.Reply(t("tuoguan_asked_ok", "en"))
    assert table.seat(0).auto and table.tuoguan[0] == 1 and table.seat(0).missed == 0
    assert fx.Announce(t("announce_tuoguan_asked", "zh", seat="东 Ann")) in world.effects[shown:]  # as a timeout's
    assert t("tuoguan_asked_on", "zh") in seat_content(table, 0).text
    assert world.take(table, msg.Press(ANN, stamp, "auto", "en"), now) == stale  # once is enough
    # The automatic player plays the turn in front of her at once (its move was due already), and the next ones.
    assert due_at(table, OPTIONS) == table.prompts[0].since + OPTIONS.bot_delay <= now
    world.take(table, msg.Due(), now)
    assert [e.action.seat for e in world.of(fx.AppendAction, since=shown)] == [0]
    back = world.take(table, msg.Press(ANN, Stamp(), "back", "en"), now + 1)
    assert back == fx.Reply(t("back_ok", "en")) and not table.seat(0).auto


def test_tuoguan_asked_during_a_claim_is_told_to_nobody_before_her_next_turn() -> None:
    from bot.live.frames import spectator_frame
    from bot.views.game_views import seat_content

    world = World()
    table = dealt(world, (ANN, "Ann"), (BOB, "Bob"))
    now = 1.0
    while not (0 in table.prompts and table.hand is not None and table.hand.phase != "turn"):
        assert table.state == "playing"
        asked = next((seat for seat, _ in table.humans() if seat in table.prompts), None)
        if asked is not None:  # Ann and Bob discard at once and let Bob's claims go
            legal = table.prompts[asked].legal
            chosen = Action(asked, "pass") if asked and Action(asked, "pass") in legal else legal[-1]
            press(world, table, table.seat(asked).user_id or 0, chosen, now)
            continue
        now = max(now, due_at(table, OPTIONS) or now)
        world.take(table, msg.Due(), now)
    shown = len(world.effects)
    reply = world.take(table, msg.Press(ANN, table.stamp(0), "auto", "zh"), now)
    assert reply == fx.Reply(t("tuoguan_asked_ok", "zh")) and table.seat(0).auto
    # Her own picture says so; the group hears nothing and sees no new picture (that would say she could claim).
    assert fx.ShowSeat(0, urgent=True) in world.effects[shown:]
    assert all((isinstance(e, fx.ShowSeat) and e.seat == 0) or e == reply for e in world.effects[shown:])
    assert t("tuoguan_asked_on", "zh") in seat_content(table, 0).text
    assert spectator_frame(table)["auto"][0] is False
    # The automatic player decides the claim at once; the group is told at her next turn, as on a turn.
    assert due_at(table, OPTIONS) == table.prompts[0].since
    told = fx.Announce(t("announce_tuoguan_asked", "zh", seat="东 Ann"))
    while not (table.hand is not None and table.hand.phase == "turn" and table.hand.view(None).turn == 0):
        assert told not in world.effects and table.state == "playing"
        if 1 in table.prompts:
            legal = table.prompts[1].legal
            press(world, table, BOB, Action(1, "pass") if Action(1, "pass") in legal else legal[-1], now)
            continue
        now = max(now, due_at(table, OPTIONS) or now)
        world.take(table, msg.Due(), now)
    now = max(now, due_at(table, OPTIONS) or now)
    world.take(table, msg.Due(), now)  # her turn, played for her
    assert world.effects.count(told) == 1 and spectator_frame(table)["auto"][0] is True


def test_a_refused_close_of_the_match_is_tried_again_and_no_hand_is_dealt_after_the_last() -> None:
    """The last hand settled and shown, storage refuses to close the match (a connection cut): the timer closes
    it again, instead of dealing a hand the match does not have (seen with workers' connections terminated)."""
    world = World(settings=replace(ChatSettings(GROUP.chat_id), hands_per_game=1), refuse={fx.FinishMatch})
    table = dealt(world, (ANN, "Ann"))
    with pytest.raises(fx.Refused):  # the runner logs it and asks for the table's next due time
        play_out(world, table)
    assert table.state == "between" and table.closing and world.hands == 1
    world.refuse.clear()  # the database is back
    when = due_at(table, OPTIONS)
    assert when is not None and when < table.between_since + OPTIONS.next_hand_seconds  # not the next hand's time
    world.take(table, msg.Due(), when)
    assert table.state == "closed" and world.hands == 1
    assert world.of(fx.FinishMatch) == [fx.FinishMatch(1, "done")] * 2  # refused once, then done

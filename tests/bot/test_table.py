"""bot.table: prompts, stamps and deadlines — which press is current, stale, repeated or another seat's."""

from __future__ import annotations

from bot.callbacks import Stamp
from bot.table.key import TableKey
from bot.table.state import Table
from game.actions import Action
from game.match import Match
from game.rules import Rules
from tests.e2e.policy import pick


def _table(humans: int = 4, seed: int = 852) -> Table:
    table = Table(key=TableKey(-100), title="g", creator_id=1, creator_name="A", claim_seconds=10, turn_seconds=30)
    for user in range(1, humans + 1):
        table.sit(user, f"P{user}")
    table.fill_with_automatic(lambda seat: f"Bot {seat + 1}")
    table.match = Match(Rules(), seed)
    table.start_hand(table.match.new_hand(), hand_id=7, now=100.0)
    return table


def test_the_dealer_is_asked_first_and_only_their_current_buttons_count() -> None:
    table = _table()
    hand = table.hand
    assert hand is not None and set(table.prompts) == {hand.dealer}
    dealer = hand.dealer
    stamp = table.stamp(dealer)
    assert stamp == Stamp(7, 0, dealer) and stamp.encode() == f"7.0.{dealer}"
    action = table.prompts[dealer].legal[-1]
    assert table.accepts(dealer, stamp, action)
    assert not table.accepts(dealer, Stamp(7, 0, (dealer + 1) % 4), action)  # another seat's stamp
    assert not table.accepts((dealer + 1) % 4, stamp, action)  # a seat with nothing to decide
    assert not table.accepts(dealer, stamp, Action(dealer, "hu"))  # not on offer
    table.apply(action, now=101.0)
    assert not table.accepts(dealer, stamp, action)  # a repeated press is stale


def test_the_seat_that_acted_gets_a_new_stamp_even_for_the_same_choices() -> None:
    table = _table()  # seed 852: the dealer may 赖子杠 twice in a row
    hand = table.hand
    assert hand is not None
    dealer = hand.dealer
    gang = next(a for a in table.prompts[dealer].legal if a.kind == "laizi_gang")
    old = table.stamp(dealer)
    _, changed = table.apply(gang, now=101.0)
    assert dealer in changed and table.stamp(dealer) != old
    assert not table.accepts(dealer, old, gang)


def test_a_pass_by_one_claimer_keeps_the_other_claimers_buttons_valid() -> None:
    for seed in range(1, 200):
        table = _table(seed=seed)
        hand = table.hand
        assert hand is not None
        while not hand.finished and not (hand.phase == "claim" and len(hand.waiting_on()) >= 2):
            seat = hand.waiting_on()[0]
            table.apply(pick(hand.legal_actions(seat), lambda _a: False), now=101.0)
        if not hand.finished:
            break
    first, second = hand.waiting_on()[:2]
    stamp = table.stamp(second)
    table.apply(Action(first, "pass"), now=102.0)
    assert second in hand.waiting_on() and table.stamp(second) == stamp


def test_deadlines_automatic_players_then_claim_and_turn_windows() -> None:
    table = _table(humans=1)
    hand = table.hand
    assert hand is not None
    dealer = hand.dealer
    assert table.seat(dealer).human
    assert table.deadline(dealer, bot_delay=1.0) == 130.0  # the human's turn timer
    table.seat(dealer).auto = True  # 托管: the automatic player's delay instead
    assert table.next_due(bot_delay=1.0) == (101.0, dealer)

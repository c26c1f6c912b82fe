"""Unit tests of the hand state machine on chosen layouts (game.table).

``layout`` builds a hand from readable tile strings; ``play`` applies scripted steps such as ``"1 chi 3m"``,
passing for seats the hand waits on until the step is legal, so scripts name only the moves that matter.
"""

from __future__ import annotations

from typing import Any

import pytest

from game.actions import Action, ActionError
from game.rules import DEFAULT_RULES, Rules
from game.table import Event, Hand, IllegalAction
from game.tiles import HIDDEN, HONGZHONG, NUM_KINDS, laizi_of, parse_tile, parse_tiles, to_counts

NO_MINIMUM = Rules(min_payment=0)


def layout(
    dealer: int,
    hands: list[str],
    head: str = "",
    tail: str = "",
    indicator: str = "6z",
    rules: Rules = NO_MINIMUM,
    pad: int = 14,
) -> Hand:
    """A hand whose wall draws ``head`` first and gives ``tail`` (in draw order) as replacement draws.

    Hands given short are filled with single tiles of kinds that seat does not hold (kinds the layout never
    mentions first; never 红中 or the 赖子), so a filler never makes a pair. ``pad`` tiles sit between head
    and tail.
    """
    laizi = laizi_of(parse_tile(indicator))
    used = to_counts(parse_tiles("".join(hands) + head + tail + indicator))
    order = sorted((t for t in range(NUM_KINDS) if t not in (HONGZHONG, laizi)), key=lambda t: used[t] > 0)
    seats = []
    for seat, text in enumerate(hands):
        tiles = parse_tiles(text)
        need = (14 if seat == dealer else 13) - len(tiles)
        for t in order[seat * 4 :] + order[: seat * 4]:
            if need and t not in tiles and used[t] < 4:
                tiles.append(t)
                used[t] += 1
                need -= 1
        seats.append(tiles)
    spare = [t for t in range(NUM_KINDS) if t != laizi for _ in range(4 - used[t])]
    wall = [*parse_tiles(head), *spare[:pad], *reversed(parse_tiles(tail))]
    return Hand.from_layout(rules, dealer, seats, wall, parse_tile(indicator))


def act(text: str) -> Action:
    """``"1 chi 3m"`` → Action(1, "chi", 3m)."""
    parts = text.split()
    tile = parse_tile(parts[2]) if len(parts) > 2 else None
    return Action(int(parts[0]), parts[1], tile)  # type: ignore[arg-type]


def play(hand: Hand, *steps: str) -> list[Event]:
    """Apply each step; while a step is not legal yet and the hand waits on answers, the waiting seats pass."""
    events: list[Event] = []
    for step in steps:
        action = act(step)
        while action not in hand.legal_actions(action.seat) and hand.phase in ("claim", "rob", "haidi"):
            events += hand.apply(Action(hand.waiting_on()[0], "pass"))
        assert action in hand.legal_actions(action.seat), f"{step}: legal {hand.legal_actions(action.seat)}"
        events += hand.apply(action)
    return events


def snapshot(hand: Hand) -> list[dict[str, Any]]:
    return [hand.view(seat).to_json() for seat in (None, 0, 1, 2, 3)]


def kinds(hand: Hand, seat: int) -> set[str]:
    return {a.kind for a in hand.legal_actions(seat)}


# -- 吃: 下家 only, each sequence its own action, no 赖子 --------------------------------------------------


@pytest.mark.parametrize(("indicator", "lows"), [("1z", ["2m", "3m", "4m"]), ("4m", ["2m"])])
def test_chi_options_for_the_next_seat_only(indicator: str, lows: list[str]) -> None:
    # Seat 0 discards 4m; seat 1 holds 2m3m5m6m (with 赖子 5m, only 234m is left); seat 3 holds 3m5m too.
    hand = layout(0, ["4m1z2z3z4z1p3p5p7p9p1s3s5s7s", "2356m1z2z3z1p3p5p7p9p", "", "35m7p9p"], indicator=indicator)
    play(hand, "0 discard 4m")
    chis = [a for a in hand.legal_actions(1) if a.kind == "chi"]
    assert [a.tile for a in chis] == [parse_tile(t) for t in lows]
    assert not hand.legal_actions(3)
    low = parse_tile(lows[-1])
    hand.apply(Action(1, "chi", low))
    assert hand.view(1).melds[1][0].tiles == (low, low + 1, low + 2)
    assert hand.view(None).rivers[0] == ()  # the claimed tile left the river


def test_peng_outranks_chi_and_resolves_at_once() -> None:
    hand = layout(0, ["4m1z2z3z4z1p3p5p7p9p1s3s5s7s", "2356m1z2z3z1p3p5p7p9p", "44m", ""])
    play(hand, "0 discard 4m")
    assert hand.waiting_on() == [1, 2]
    hand.apply(Action(2, "peng", parse_tile("4m")))  # seat 1's best answer (chi) cannot outrank a peng
    assert hand.phase == "turn" and hand.waiting_on() == [2]
    assert hand.view(2).melds[2][0].kind == "peng"


def test_chi_waits_for_a_possible_peng_then_wins_on_pass() -> None:
    hand = layout(0, ["4m1z2z3z4z1p3p5p7p9p1s3s5s7s", "2356m1z2z3z1p3p5p7p9p", "44m", ""])
    play(hand, "0 discard 4m", "1 chi 3m")
    assert hand.phase == "claim" and hand.waiting_on() == [2]
    hand.apply(Action(2, "pass"))
    assert hand.phase == "turn" and hand.waiting_on() == [1]
    assert [m.kind for m in hand.view(1).melds[1]] == ["chi"]
    assert "hu" not in kinds(hand, 1)  # no 胡 straight after a chi: there was no draw


# -- 胡 priority and 一炮单响 ---------------------------------------------------------------------------

# Seat 0 (dealer) discards 1z for seat 3's peng, pengs 2z back and discards 3z: both then wait on 5s.
# Seat 2 discards the last 5s; seat 1 holds 5s5s (peng), seat 3 also has a chi 4s.
PRIORITY_HANDS = ["123m456p789s5s1z2z2z3z", "5s5s", "5s", "234m567p22m46s1z1z2z"]
PRIORITY_SCRIPT = (
    "0 discard 1z",
    "3 peng 1z",
    "3 discard 2z",
    "0 peng 2z",
    "0 discard 3z",
    "1 discard 4z",
    "2 discard 5s",
)


def priority_hand(order: str) -> Hand:
    hand = layout(0, PRIORITY_HANDS, head="4z6z", rules=Rules(min_payment=0, multi_win_order=order))  # type: ignore[arg-type]
    play(hand, *PRIORITY_SCRIPT)
    assert hand.phase == "claim" and hand.waiting_on() == [0, 1, 3]
    assert kinds(hand, 0) == {"hu", "pass"}
    assert kinds(hand, 1) == {"peng", "pass"}
    assert kinds(hand, 3) == {"hu", "chi", "pass"}
    return hand


def test_dealer_order_first_winner_resolves_immediately() -> None:
    hand = priority_hand("dealer")
    hand.apply(Action(0, "hu"))  # seat 0 comes first from the dealer: nobody can outrank it
    assert hand.finished and hand.result is not None
    assert (hand.result.winner, hand.result.from_seat, hand.result.how) == (0, 2, "discard")


def test_dealer_order_later_seat_wins_when_the_first_passes() -> None:
    hand = priority_hand("dealer")
    hand.apply(Action(3, "hu"))
    assert not hand.finished and hand.waiting_on() == [0, 1]  # seat 0 could still outrank seat 3
    hand.apply(Action(0, "pass"))
    assert hand.finished and hand.result is not None and hand.result.winner == 3


def test_discarder_order_starts_after_the_discarder() -> None:
    hand = priority_hand("discarder")
    hand.apply(Action(0, "hu"))
    assert not hand.finished and hand.waiting_on() == [1, 3]  # from seat 3 on, seat 3 comes first
    hand.apply(Action(3, "hu"))
    assert hand.finished and hand.result is not None and hand.result.winner == 3


def test_win_outranks_peng_and_passing_a_win_lets_the_peng_through() -> None:
    hand = priority_hand("dealer")
    hand.apply(Action(1, "peng", parse_tile("5s")))
    assert hand.waiting_on() == [0, 3]
    hand.apply(Action(3, "chi", parse_tile("4s")))
    hand.apply(Action(0, "pass"))
    assert hand.phase == "turn" and hand.waiting_on() == [1]
    assert [m.kind for m in hand.view(1).melds[1]] == ["peng"]


# -- 红中 and 赖子: never claimable, no gangs once the wall is down to 14 ---------------------------------------


# Seats 0 and 1 peng each other's discards until seat 1 holds only 红中 and the 赖子 (the indicator is 1z).
FOUR_PENGS = (
    "0 discard 1m",
    "1 peng 1m",
    "1 discard 3z",
    "0 peng 3z",
    "0 discard 2m",
    "1 peng 2m",
    "1 discard 4z",
    "0 peng 4z",
    "0 discard 3m",
    "1 peng 3m",
    "1 discard 5z",
    "0 peng 5z",
    "0 discard 4m",
    "1 peng 4m",
)


@pytest.mark.parametrize("odd_tile", ["7z", "2z"])
def test_hongzhong_and_laizi_discards_are_never_claimed(odd_tile: str) -> None:
    # A 14-tile wall: no gang and no draw before the 海底. Seat 1 pengs four times and is left with 7z + 2z
    # (赖子, the indicator is 1z); with nothing else to discard it may throw one, and nobody may claim it.
    hands = ["1m2m3m4m3z3z4z4z5z5z1p5p9p1s", "1m1m2m2m3m3m4m4m3z4z5z7z2z", "7z7z6z", "2z2z6z"]
    hand = layout(0, hands, indicator="1z", pad=14)
    play(hand, *FOUR_PENGS)
    assert hand.wall.remaining == 14
    assert kinds(hand, 1) == {"discard"}  # no 红中杠 / 赖子杠 at 14
    assert {a.tile for a in hand.legal_actions(1)} == {HONGZHONG, parse_tile("2z")}
    hand.apply(act(f"1 discard {odd_tile}"))
    assert hand.phase in ("haidi", "over")  # seat 2 (7z7z) and seat 3 (赖子 pair) were not asked
    assert hand.wall.remaining < 14


@pytest.mark.parametrize(("odd_tile", "factor"), [("7z", "hongzhong_thrown"), ("2z", "laizi_thrown")])
def test_a_throw_at_the_last_tiles_counts_as_a_hongzhong_gang_or_a_thrown_laizi(odd_tile: str, factor: str) -> None:
    # As above, but seat 0 holds 2p2p2p5m and its 海底 draw is 5m: it wins by 海底捞, and seat 1's throw of a
    # 红中 is paid as a 红中杠 (×2), of the 赖子 as a 丢赖子 (×2), with no replacement draw (RULES.md §4).
    hands = ["1m2m3m4m3z3z4z4z5z5z2p2p2p5m", "1m1m2m2m3m3m4m4m3z4z5z7z2z", "7z7z6z", "2z2z6z"]
    hand = layout(0, hands, head="1s1s5m", indicator="1z", pad=11)
    play(hand, *FOUR_PENGS)
    events = hand.apply(act(f"1 discard {odd_tile}"))
    assert not [e for e in events if e.kind == "draw" and e.seat == 1]  # no replacement draw
    view = hand.view(None)
    assert (view.hongzhong_gangs[1], view.laizi_thrown[1]) == ((1, 0) if odd_tile == "7z" else (0, 1))
    assert hand.phase == "haidi" and hand.waiting_on() == [0]
    hand.apply(act("0 hu"))
    result = hand.result
    assert result is not None and result.winner == 0 and "hai_di_lao" in result.patterns
    thrown = [f for f in result.seats[1].factors if f.kind == factor]
    assert [(f.times, f.count) for f in thrown] == [(2, 1)]
    # Seat 1 (open ×2, the throw ×2) owes four times what seat 3 (nothing to its name) owes, before the cap.
    assert result.seats[1].raw == 4 * result.seats[3].raw


def test_hongzhong_and_laizi_may_be_thrown_with_a_full_wall_beside_their_gangs() -> None:
    hand = layout(0, ["7z2z1m2m3m4m5m6m7m8m9m1p2p3p", "", "", ""], indicator="1z", pad=66)
    assert hand.wall.remaining == 66
    assert {a.tile for a in hand.legal_actions(0) if a.kind == "discard"} == set(parse_tiles("123456789m123p7z2z"))
    assert {"hongzhong_gang", "laizi_gang"} <= kinds(hand, 0)


# Seat 0 feeds seat 1's peng of 1m; seat 2 draws and throws the 赖子 (2z; the indicator is 1z) with a full wall,
# though seat 3 holds a pair of them; seat 3 feeds seat 1 its 5m: 234p 678p 345s 55m, a hard 屁胡.
THROW_HANDS = ["1m", "1m1m234p678p345s5m3z", "7z2z", "2z2z5m"]
THROW_SCRIPT = ("0 discard 1m", "1 peng 1m", "1 discard 3z")


@pytest.mark.parametrize(("odd_tile", "factor"), [("7z", "hongzhong_thrown"), ("2z", "laizi_thrown")])
def test_a_throw_with_a_full_wall_is_never_claimed_and_pays_double(odd_tile: str, factor: str) -> None:
    hand = layout(0, THROW_HANDS, head="9s9p", indicator="1z", pad=40)
    play(hand, *THROW_SCRIPT)
    assert hand.waiting_on() == [2] and hand.wall.remaining > 40
    assert {Action(2, "discard", HONGZHONG), Action(2, "discard", parse_tile("2z"))} <= set(hand.legal_actions(2))
    events = hand.apply(act(f"2 discard {odd_tile}"))
    assert [e.kind for e in events] == ["discard", "draw"]  # no replacement draw, no claim: seat 3 draws
    assert hand.phase == "turn" and hand.waiting_on() == [3]
    assert hand.view(None).rivers[2] == (parse_tile(odd_tile),)
    play(hand, "3 discard 5m", "1 hu")
    result = hand.result
    assert result is not None and result.winner == 1 and result.patterns == ("pi_hu",)
    assert [(f.kind, f.times) for f in result.seats[2].factors] == [(factor, 2)]
    # F(1) = open 2 × hard 2 = 4: seat 2 pays 1 × 4 × 2 (its throw) = 8 where it would pay 4; the dealer (×2)
    # and the discarder (×2) pay 8 each.
    assert result.payments == (-8, 24, -8, -8)


@pytest.mark.parametrize(("pad", "gangs"), [(14, False), (15, True)])
def test_gangs_need_more_than_14_tiles_in_the_wall(pad: int, gangs: bool) -> None:
    hand = layout(0, ["7z2z1m1m1m1m5m6m7m8m9m1p2p3p", "3p3p3p", "", ""], indicator="1z", pad=pad)
    all_gangs = {"hongzhong_gang", "laizi_gang", "an_gang"}
    assert all_gangs & kinds(hand, 0) == (all_gangs if gangs else set())
    play(hand, "0 discard 3p")
    assert ("chong_gang" in kinds(hand, 1)) is gangs
    assert "peng" in kinds(hand, 1)


def test_gangs_draw_replacements_from_the_tail() -> None:
    hand = layout(0, ["7z2z1m1m1m1m5m6m7m8m9m1p2p3p", "", "", ""], head="9s", tail="4p5p6p", indicator="1z")
    events = play(hand, "0 hongzhong_gang", "0 laizi_gang", "0 an_gang 1m")
    draws = [e for e in events if e.kind == "draw"]
    assert [e.data["tile"] for e in draws] == ["4p", "5p", "6p"]
    assert all(e.data["how"] == "gang_draw" for e in draws)
    view = hand.view(0)
    assert (view.hongzhong_gangs[0], view.laizi_gangs[0], view.drawn) == (1, 1, parse_tile("6p"))
    assert hand.view(1).melds[0][0].tiles == (HIDDEN,)  # another seat sees a face-down 暗杠
    assert view.melds[0][0].tiles == (parse_tile("1m"),)


# -- 抢杠 --------------------------------------------------------------------------------------------------

# RULES.md §12 D's table: seat 2 opens with chi 123m and waits on 5s; seat 1 pengs 5s from seat 3 and later
# draws the fourth 5s. Seat 3 makes a 红中杠 on the way. The 赖子 is 1s.
ROB_HANDS = [
    "1z3z5z6z9m6m1p3p5p7p9p4p7s9s",
    "1m5s5s4z1p3p5p7p9m1s3s7s9s",
    "2m3m678p789m46s22m3z",
    "7z5s1z4m5m2s8s8p9p1s6p9m3s",
]
ROB_HEAD = "8p2p2z5z6z5s"
ROB_SCRIPT = (
    "0 discard 1z",
    "1 discard 1m",
    "2 chi 1m",
    "2 discard 3z",
    "3 hongzhong_gang",
    "3 discard 5s",
    "1 peng 5s",
    "1 discard 4z",
    "2 discard 2z",
    "3 discard 5z",
    "0 discard 6z",
)


def rob_hand(
    seat1: str = ROB_HANDS[1], seat3: str = ROB_HANDS[3], head: str = ROB_HEAD, rules: Rules = DEFAULT_RULES
) -> Hand:
    return layout(
        0, [ROB_HANDS[0], seat1, ROB_HANDS[2], seat3], head=head, tail="8s8m", indicator="9s", rules=rules, pad=20
    )


# Seat 2 opens with a peng of 1z and waits on 5s (and lets seat 3's 5s go); seat 0 (the dealer) pengs that 5s
# and draws the fourth: seat 2 is not seat 0's 下家.
ACROSS_HANDS = ["1z5s5s4z", "", "1z1z3z678p789m46s22m", "5s"]
ACROSS_SCRIPT = (
    "0 discard 1z",
    "2 peng 1z",
    "2 discard 3z",
    "3 discard 5s",
    "0 peng 5s",
    "0 discard 4z",
    "1 discard 8p",
    "2 discard 9p",
    "3 discard 2p",
    "0 xu_gang 5s",
)


@pytest.mark.parametrize("by", ["anyone", "xia_jia"])
def test_only_the_xia_jia_may_rob_under_xia_jia(by: str) -> None:
    rules = Rules(qiang_gang_by=by)  # type: ignore[arg-type]
    hand = layout(0, ACROSS_HANDS, head="7s8p9p2p5s", tail="8s", indicator="9s", rules=rules, pad=20)
    play(hand, *ACROSS_SCRIPT)
    if by == "xia_jia":
        assert hand.phase == "turn" and hand.waiting_on() == [0]  # nobody asked: the gang stands
        assert [m.kind for m in hand.view(0).melds[0]] == ["xu_gang"]
        return
    assert hand.phase == "rob" and hand.waiting_on() == [2]
    hand.apply(act("2 hu"))
    result = hand.result
    assert result is not None and result.gang_kai and result.liable == 0
    # 杠进杠出: F(0) = open 2 × 蓄杠 2 × 1.5 = 6, base 10: seats 1 and 3 60, seat 2 (open) 120.
    assert result.payments == (-240, 0, 240, 0)


def test_a_laizi_gang_counts_twice_under_laizi_gang_factor_2() -> None:
    for factor, expected in ((4, 16), (2, 8)):
        hand = layout(
            0,
            THROW_HANDS,
            head="9s9p",
            tail="8s",
            indicator="1z",
            rules=Rules(min_payment=0, laizi_gang_factor=factor),
            pad=40,
        )
        play(hand, *THROW_SCRIPT, "2 laizi_gang", "2 discard 8s", "3 discard 5m", "1 hu")
        result = hand.result
        assert result is not None and [(f.kind, f.times) for f in result.seats[2].factors] == [("laizi_gang", factor)]
        assert result.seats[2].raw == expected  # 1 × F(1) 4 × F(2)


def test_robbing_an_added_gang_undoes_it() -> None:
    hand = rob_hand()
    play(hand, *ROB_SCRIPT, "1 xu_gang 5s")
    assert hand.phase == "rob" and hand.waiting_on() == [2]
    assert hand.legal_actions(2) == [Action(2, "hu"), Action(2, "pass")]
    assert hand.view(2).claimable == parse_tile("5s")
    hand.apply(Action(2, "hu"))
    assert hand.result is not None and hand.result.how == "rob_gang" and hand.result.from_seat == 1
    view = hand.view(None)
    assert [m.kind for m in view.melds[1]] == ["peng"]  # the peng stays a peng
    assert view.revealed is not None and parse_tile("5s") not in view.revealed[1]
    assert parse_tile("5s") in view.revealed[2]


def test_added_gang_completes_when_nobody_robs() -> None:
    hand = rob_hand()
    play(hand, *ROB_SCRIPT, "1 xu_gang 5s", "2 pass")
    assert hand.phase == "turn" and hand.waiting_on() == [1]
    view = hand.view(1)
    assert [m.kind for m in view.melds[1]] == ["xu_gang"] and view.melds[1][0].from_seat == 3
    assert view.drawn == parse_tile("8m")  # the next replacement from the tail


def test_concealed_gang_cannot_be_robbed() -> None:
    # Seat 1 holds three 5s and draws the fourth: an 暗杠, though seat 2 waits on 5s.
    hand = rob_hand(seat1="1m5s5s5s4z1p3p5p7p9m1s3s7s", seat3="7z4s1z4m5m2s8s8p9p1s6p9m3s", head="8p2p2z5s")
    play(hand, *ROB_SCRIPT[:5], "3 discard 4s", "0 discard 2z", "1 an_gang 5s")
    assert hand.phase == "turn" and hand.waiting_on() == [1]
    assert [m.kind for m in hand.view(1).melds[1]] == ["an_gang"]


def test_gang_on_a_discard_cannot_be_robbed() -> None:
    hand = rob_hand(seat1="1m5s5s5s4z1p3p5p7p9m1s3s7s", head="8p2p")
    play(hand, *ROB_SCRIPT[:6])
    assert hand.waiting_on() == [1] and "chong_gang" in kinds(hand, 1)  # seat 2's win (16) is below the minimum
    hand.apply(act("1 chong_gang 5s"))
    assert hand.phase == "turn" and hand.waiting_on() == [1]
    assert hand.view(1).drawn == parse_tile("8m")


# -- 海底 and 荒庄 -------------------------------------------------------------------------------------------


def test_haidi_draws_four_tiles_then_exhausts() -> None:
    hand = layout(1, ["1z", "1z2z3z4z", "", ""], head="5z6z1s9s", pad=10)
    assert hand.wall.remaining == 14
    events = play(hand, "1 discard 1z")
    assert [(e.kind, e.seat) for e in events[1:]] == [
        ("haidi", 2),
        ("haidi", 3),
        ("haidi", 0),
        ("haidi", 1),
        ("exhausted", None),
    ]
    assert hand.finished and hand.exhausted and hand.result is None
    assert hand.wall.remaining == 10
    assert hand.view(None).revealed is not None


def test_haidi_win_and_pass() -> None:
    # Seat 1 pengs 1z at 14 tiles and waits on 5m; the fourth 海底 tile is its 5m.
    hands = ["1z2z3z4z6z1m9m1p9p1s9s2m8m3p", "1z1z123m456p789s5m6z", "", ""]
    for answer in ("hu", "pass"):
        hand = layout(0, hands, head="7s8s7p5m", pad=10)
        play(hand, "0 discard 1z", "1 peng 1z", "1 discard 6z")
        assert hand.phase == "haidi" and hand.waiting_on() == [1]
        assert kinds(hand, 1) == {"hu", "pass"} and hand.view(1).drawn == parse_tile("5m")
        hand.apply(Action(1, answer))  # type: ignore[arg-type]
        assert hand.finished
        if answer == "hu":
            assert hand.result is not None and hand.result.how == "haidi"
            assert "hai_di_lao" in hand.result.patterns
        else:
            assert hand.exhausted and hand.result is None


# -- 胡 only after a draw -------------------------------------------------------------------------------------


def test_no_win_after_a_peng_even_with_a_complete_hand() -> None:
    hand = layout(0, ["1z2z3z4z6z1m9m1p9p1s9s2m8m3p", "1z1z123m456p789s5m5m", "", ""], head="7z", pad=20)
    play(hand, "0 discard 1z", "1 peng 1z")
    assert "hu" not in kinds(hand, 1)  # 123m456p789s55m is complete, but nothing was drawn


def test_self_drawn_win_is_offered_after_a_draw() -> None:
    hand = layout(0, ["1z2z3z4z6z1m9m1p9p1s9s2m8m3p", "1z1z123m456p789s5m6z", "", ""], head="7s8s7p5m", pad=20)
    play(hand, "0 discard 1z", "1 peng 1z", "1 discard 6z", "2 discard 7s", "3 discard 8s", "0 discard 7p", "1 pass")
    assert "hu" in kinds(hand, 1) and hand.view(1).drawn == parse_tile("5m")
    hand.apply(Action(1, "hu"))
    assert hand.result is not None and hand.result.how == "self_draw" and sum(hand.result.payments) == 0


# -- illegal actions change nothing -----------------------------------------------------------------------


def test_illegal_actions_raise_and_change_nothing() -> None:
    hand = layout(0, ["4m7z2z3z4z1p3p5p7p9p1s3s5s7s", "2356m1z2z3z1p3p5p7p9p", "", ""], indicator="1z")
    before = snapshot(hand)
    bad = [
        "1 discard 2m",
        "0 discard 4s",
        "0 hu",
        "0 peng 4m",
        "0 pass",
        "0 an_gang 4m",
        "2 chi 4m",
    ]
    for text in bad:
        with pytest.raises(IllegalAction):
            hand.apply(act(text))
        assert snapshot(hand) == before and hand.actions == []
    play(hand, "0 discard 4m")
    before = snapshot(hand)
    for text in ("1 chi 5m", "1 chi 1m", "1 peng 4m", "1 hu", "0 discard 5p", "2 pass", "3 chi 2m"):
        with pytest.raises(IllegalAction):
            hand.apply(act(text))
        assert snapshot(hand) == before


# -- events and views -----------------------------------------------------------------------------------------


def test_events_hide_draws_and_concealed_gangs_from_others() -> None:
    hand = layout(0, ["7z1m1m1m1m5m6m7m8m9m1p2p3p4p", "", "", ""], head="9s", tail="4p5p")
    events = play(hand, "0 hongzhong_gang", "0 an_gang 1m")
    gang = next(e for e in events if e.kind == "an_gang")
    draw = next(e for e in events if e.kind == "draw")
    assert gang.for_seat(0).data["tile"] == "1m" and draw.for_seat(0).data["tile"] == "4p"
    for seat in (1, 2, 3, None):
        assert "tile" not in gang.for_seat(seat).data and "tile" not in draw.for_seat(seat).data
        assert draw.for_seat(seat).data["how"] == "gang_draw"
    deal = [e for e in hand.log if e.kind == "deal"]
    assert deal[0].for_seat(0).data["hand"] and "hand" not in deal[0].for_seat(1).data


def test_views_hide_other_hands_and_reveal_at_the_end() -> None:
    hand = layout(1, ["1z", "1z2z3z4z", "", ""], head="5z6z1s9s", pad=10)
    spectator = hand.view(None)
    assert (spectator.hand, spectator.drawn, spectator.legal, spectator.revealed) == ((), None, (), None)
    assert spectator.hand_sizes == (13, 14, 13, 13)
    for seat in range(4):
        view = hand.view(seat)
        assert len(view.hand) == view.hand_sizes[seat] and view.revealed is None
        assert bool(view.legal) is (seat == 1)
    play(hand, "1 discard 1z")
    assert hand.view(None).revealed is not None and len(hand.view(None).revealed or ()) == 4


def test_waits_shown_when_ready() -> None:
    hand = layout(0, ["1z2z3z4z6z1m9m1p9p1s9s2m8m3p", "123m456p789s5m1z1z6z", "", ""], head="7z", pad=20)
    play(hand, "0 discard 1z", "1 peng 1z")
    assert hand.view(1).waits == ()  # 11 tiles: not a waiting shape until the discard
    play(hand, "1 discard 6z")
    assert parse_tile("5m") in hand.view(1).waits
    assert hand.view(2).waits == ()


# -- actions as JSON -----------------------------------------------------------------------------------------


def test_action_json_round_trip() -> None:
    for action in (Action(0, "discard", parse_tile("5m")), Action(3, "hu"), Action(1, "chi", parse_tile("3s"))):
        assert Action.from_json(action.to_json()) == action
    assert Action(0, "discard", parse_tile("5m")).to_json() == {"s": 0, "k": "discard", "t": "5m"}


@pytest.mark.parametrize(
    "bad",
    [
        None,
        [],
        {"s": 4, "k": "pass"},
        {"s": True, "k": "pass"},
        {"s": 0, "k": "fly"},
        {"s": 0, "k": "discard"},
        {"s": 0, "k": "discard", "t": "0m"},
        {"s": 0, "k": "pass", "t": "5m"},
    ],
)
def test_action_json_errors(bad: Any) -> None:
    with pytest.raises(ActionError):
        Action.from_json(bad)


def test_layout_errors() -> None:
    with pytest.raises(ValueError, match="14"):
        Hand.from_layout(NO_MINIMUM, 0, [[0] * 3, [], [], []], [0] * 14, 1)
    with pytest.raises(ValueError, match="four"):
        layout(0, ["1m1m1m1m2m3m4m5m6m7m8m9m1p2p", "1m", "", ""])
    with pytest.raises(ValueError, match="wall"):
        layout(0, ["", "", "", ""], pad=5)

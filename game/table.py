"""The state machine of one hand (RULES.md §3–§7): legal actions, claims, 抢杠, 海底 and 荒庄.

>>> from game.rules import Rules
>>> hand = Hand(Rules(), seed=1, dealer=0)
>>> hand.waiting_on(), hand.wall.remaining
([0], 82)
>>> a = hand.legal_actions(0)[-1]
>>> events = hand.apply(a)
>>> events[0].kind, Hand.replay(Rules(), 1, 0, hand.actions).view(None) == hand.view(None)
('discard', True)

The state is a pure function of (rules, seed, dealer, actions): ``Hand.replay`` rebuilds it. Drive a hand
with ``waiting_on()`` (who must decide now), ``legal_actions(seat)`` (exactly what ``apply`` accepts) and
``apply(action)``, which returns the events it caused, unredacted: send each seat ``event.for_seat(seat)``.
``hand.log`` keeps every event, the deal included; ``hand.view(seat)`` is what a seat may see now.
Replacement draws, 海底 draws and claim resolution happen inside ``apply``. ``Hand.from_layout`` starts a
hand from a chosen deal and wall (tests, worked examples); such a hand cannot be replayed from a seed.

Phases: ``turn`` (the seat to act may 胡 right after a draw, gang, or discard), ``claim`` (after a discard,
the seats with a legal claim answer one claim or ``pass``; the best claim by §5 priority wins as soon as
no unanswered seat could outrank it), ``rob`` (after a 蓄杠, seats that can win by 抢杠 answer ``hu`` or
``pass``), ``haidi`` (automatic draws; a seat that can win answers ``hu``/``pass``), ``over``.

Choices where RULES.md is silent:
- A 红中 or a 赖子 may be discarded at any discard (RULES.md §4): a thrown 红中 counts as a 红中杠 (×2), a
  thrown 赖子 as a 丢赖子 (×2); no replacement draw, never claimable. The tile lies in the river like any
  discard, so a seat's thrown 红中 are the 红中 in its river (nobody can take one out of it).
- A claimer may win on the replacement draw of a gang made after a chi/peng (杠上开花: it is a draw);
  only a win straight after the chi/peng itself is refused.
- During the rob phase the 蓄杠 tile stays in the maker's concealed hand; it joins the peng only if
  nobody robs, and goes to the robber otherwise.
- ``pass`` answers are events too, so a caller can show them; they reveal that the seat had a claim.
- Once the hand is over every 暗杠 tile is shown in every view, as are the concealed hands (``revealed``).
- A discarder counts as ready (全求人 liability) when their concealed hand at claim time has waits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from game.actions import ACTION_KINDS, TILE_ACTIONS, Action, ActionKind
from game.analysis import analyse_win, may_win, waits
from game.melds import SELF_DRAWN, Meld, WinHow
from game.rules import Rules
from game.scoring import SeatMelds, Settlement, settle
from game.tiles import (
    HIDDEN,
    HONGZHONG,
    NUM_KINDS,
    Tile,
    format_tiles,
    from_counts,
    laizi_of,
    tile_name,
    to_counts,
)
from game.view import Phase, SeatView
from game.wall import DEALER_TILES, HAND_TILES, Wall, deal

# Below this many drawable tiles there is no normal draw and no gang: the 海底 begins (§7).
HAIDI_TILES: Final = 14
# The seed recorded for a hand built by ``Hand.from_layout`` (it cannot be replayed from a seed).
LAYOUT_SEED: Final = -1
# §5 priority: 胡 > 冲杠/碰 > 吃.
_PRIORITY: Final = {"hu": 3, "chong_gang": 2, "peng": 2, "chi": 1}
# Event data keys only the event's own seat may see.
_PRIVATE_KEYS: Final = {"deal": ("hand",), "draw": ("tile",), "an_gang": ("tile",), "haidi": ("tile",)}


class IllegalAction(ValueError):
    """An action that is not legal now; the hand is unchanged."""


@dataclass(frozen=True)
class Event:
    # deal draw discard chi peng chong_gang an_gang xu_gang hongzhong_gang laizi_gang pass haidi win exhausted
    kind: str
    seat: int | None
    data: dict[str, Any] = field(default_factory=dict)  # JSON-ready

    def for_seat(self, seat: int | None) -> Event:
        """The copy ``seat`` may see (None = spectator): a drawn tile or an 暗杠's tile only for its owner."""
        hidden = _PRIVATE_KEYS.get(self.kind)
        if hidden is None or seat == self.seat:
            return self
        return Event(self.kind, self.seat, {k: v for k, v in self.data.items() if k not in hidden})

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "data": dict(self.data)}


# Every possible action, made once: legal lists are built on every move, and identical objects compare fast.
_ACTIONS: Final[dict[tuple[int, str, Tile | None], Action]] = {
    (seat, kind, tile): Action(seat, kind, tile)
    for seat in range(4)
    for kind in ACTION_KINDS
    for tile in (range(NUM_KINDS) if kind in TILE_ACTIONS else (None,))
}


def _act(seat: int, kind: ActionKind, tile: Tile | None = None) -> Action:
    return _ACTIONS[seat, kind, tile]


@dataclass
class _Pending:
    """Open answers to a discard (kind "claim") or to a 蓄杠 (kind "rob")."""

    kind: Literal["claim", "rob"]
    tile: Tile
    by: int  # the discarder or the gang maker
    options: dict[int, list[Action]]  # what each asked seat may answer (``pass`` included)
    answers: dict[int, Action] = field(default_factory=dict)


class Hand:
    """One hand from the deal to a win or 荒庄."""

    def __init__(self, rules: Rules, seed: int, dealer: int = 0) -> None:
        """Shuffle with ``seed``, deal, turn the 赖子皮; the dealer is to act."""
        dealt = deal(seed, dealer)
        self._setup(rules, seed, dealer, dealt.hands, dealt.wall, dealt.indicator)

    @classmethod
    def from_layout(
        cls, rules: Rules, dealer: int, hands: Sequence[Sequence[Tile]], wall: Sequence[Tile], indicator: Tile
    ) -> Hand:
        """A hand from a chosen layout (tests and worked examples; ``seed`` is ``LAYOUT_SEED``).

        ``hands`` by seat (14 tiles for the dealer, 13 for the others); ``wall`` the drawable tiles, head
        first, so ``wall[0]`` is the next normal draw and ``wall[-1]`` the first replacement draw. The wall
        needs at least 14 tiles (the 海底); no kind may appear more than four times in all.
        """
        if not 0 <= dealer <= 3 or len(hands) != 4:
            raise ValueError("a layout needs a dealer 0-3 and four hands")
        for seat, h in enumerate(hands):
            if len(h) != (DEALER_TILES if seat == dealer else HAND_TILES):
                raise ValueError(f"seat {seat} must hold {DEALER_TILES if seat == dealer else HAND_TILES} tiles")
        if len(wall) < HAIDI_TILES:
            raise ValueError(f"the wall needs at least {HAIDI_TILES} tiles")
        every = [*wall, indicator, *(t for h in hands for t in h)]
        if any(not 0 <= t < NUM_KINDS for t in every) or max(to_counts(every)) > 4:
            raise ValueError("a layout has tiles 0-33, at most four of each kind")
        hand = cls.__new__(cls)
        hand._setup(rules, LAYOUT_SEED, dealer, [tuple(h) for h in hands], Wall(wall), indicator)
        return hand

    @classmethod
    def from_view(
        cls, view: SeatView, hands: Sequence[Sequence[Tile]], hidden_gangs: Sequence[Tile], wall: Sequence[Tile]
    ) -> Hand:
        """A hand in the state ``view`` shows, with chosen concealed hands and wall (the search's worlds).

        ``hands`` by seat (the view's seat: its own tiles, drawn tile included); ``hidden_gangs`` the kinds of
        the other seats' 暗杠 in table order; ``wall`` the drawable tiles, head first. Only the ``turn`` and
        ``claim`` phases can be rebuilt: a turn seat's drawn tile counts as a self-draw unless only a gang's
        replacement draw (杠上开花) explains the 胡 the view offers, and in a claim every asked seat is asked
        afresh. The log starts
        here and the hand cannot be replayed.
        """
        if view.phase not in ("turn", "claim") or view.seat is None:
            raise ValueError("only a seat's turn or claim view can be rebuilt")
        hand = cls.__new__(cls)
        hand._setup(view.rules, LAYOUT_SEED, view.dealer, [tuple(h) for h in hands], Wall(wall), view.indicator)
        kinds = iter(hidden_gangs)
        hand._melds = [
            [Meld("an_gang", (next(kinds),)) if m.tiles == (HIDDEN,) else m for m in ms] for ms in view.melds
        ]
        hand._open = [any(m.opens for m in ms) for ms in view.melds]
        hand._hz, hand._lz, hand._lt = list(view.hongzhong_gangs), list(view.laizi_gangs), list(view.laizi_thrown)
        hand._rivers = [list(r) for r in view.rivers]
        hand._turn = view.turn
        if view.phase == "turn":
            hand._drawn[view.seat] = view.drawn
            hand._how = "self_draw" if view.drawn is not None else None
            hand._enter_turn()
            if len(hand._legal[view.seat]) < len(view.legal):  # a 胡 only 杠上开花 allows: the draw was a gang's
                hand._how = "gang_draw"
                hand._enter_turn()
        else:
            assert view.last_discard is not None
            hand._how = None
            hand._start_claims(*view.last_discard)
        return hand

    @classmethod
    def replay(cls, rules: Rules, seed: int, dealer: int, actions: Iterable[Action]) -> Hand:
        """Rebuild a hand from its seed and action log; IllegalAction if the log does not fit."""
        hand = cls(rules, seed, dealer)
        for action in actions:
            hand.apply(action)
        return hand

    def _setup(
        self, rules: Rules, seed: int, dealer: int, hands: Sequence[Sequence[Tile]], wall: Wall, indicator: Tile
    ) -> None:
        self.rules = rules
        self.seed = seed
        self.dealer = dealer
        self.indicator = indicator
        self.laizi = laizi_of(indicator)
        self.wall = wall
        self.actions: list[Action] = []
        self.log: list[Event] = []  # every event so far, unredacted (the deal included)
        self.result: Settlement | None = None
        self.exhausted = False
        self._counts = [to_counts(h) for h in hands]  # concealed tiles per seat, the drawn tile included
        self._melds: list[list[Meld]] = [[] for _ in range(4)]
        self._open = [False] * 4  # 开口: some chi, peng or 冲杠
        self._hz = [0] * 4  # 红中杠 count (a thrown 红中 included)
        self._lt = [0] * 4  # thrown 赖子 (丢赖子) count
        self._lz = [0] * 4  # 赖子杠 count
        self._rivers: list[list[Tile]] = [[] for _ in range(4)]
        self._drawn: list[Tile | None] = [None] * 4
        self._phase: Phase = "turn"
        self._turn = dealer
        self._how: WinHow | None = None  # how the turn seat's fresh tile came; None = no draw, no 胡
        self._pending: _Pending | None = None
        self._haidi_queue: list[int] = []
        self._legal: dict[int, list[Action]] = {}
        self._offers: dict[int, Settlement] = {}  # the settlement behind each offered hu
        self._waits_cache: dict[int, tuple[tuple[Any, ...], tuple[Tile, ...]]] = {}
        info = {"dealer": dealer, "indicator": tile_name(indicator), "laizi": tile_name(self.laizi)}
        for seat in range(4):
            self.log.append(Event("deal", seat, {**info, "hand": format_tiles(hands[seat])}))
        self._events: list[Event] = []
        self._enter_turn()

    # -- the public surface ----------------------------------------------------------------------

    @property
    def finished(self) -> bool:
        return self._phase == "over"

    @property
    def phase(self) -> Phase:
        return self._phase

    def legal_actions(self, seat: int) -> list[Action]:
        return list(self._legal.get(seat, ()))

    def waiting_on(self) -> list[int]:
        return sorted(self._legal)

    @property
    def claim_tile(self) -> Tile | None:
        """The discard (or 蓄杠 tile) the asked seats are answering now; None outside a claim or rob."""
        return self._pending.tile if self._pending is not None else None

    @property
    def claim_by(self) -> int | None:
        """Who made the discard (or 蓄杠) the asked seats are answering now; None outside a claim or rob."""
        return self._pending.by if self._pending is not None else None

    @property
    def claim_asked(self) -> frozenset[int]:
        """The seats asked about the discard (or 蓄杠 tile) on the table now, answered or not; empty otherwise."""
        return frozenset(self._pending.options) if self._pending is not None else frozenset()

    def concealed_counts(self, seat: int) -> Sequence[int]:
        """The seat's concealed tiles as 34 counts, drawn tile included (read only: the live state)."""
        return self._counts[seat]

    def seat_melds(self, seat: int) -> Sequence[Meld]:
        """The seat's melds in the order made (read only: the live state)."""
        return self._melds[seat]

    def discard_win(self, seat: int, by: int, t: Tile) -> Settlement | None:
        """The settlement if ``seat`` could 胡 now on ``by`` discarding ``t`` (the search's deal-in check).

        ``seat`` holds a hand one tile short (it is another seat's turn): its waits, cached, rule most tiles out.
        """
        if t in (HONGZHONG, self.laizi) or t not in self._seat_waits(seat):
            return None  # never claimable (§5), or it does not complete the hand
        return self._offer(seat, "discard", by, t)

    def apply(self, action: Action) -> list[Event]:
        """Play ``action``; IllegalAction (and no change) unless it is in ``legal_actions(action.seat)``."""
        if action not in self._legal.get(action.seat, ()):
            raise IllegalAction(f"{action.kind} by seat {action.seat} is not legal now")
        self._events = []
        self.actions.append(action)
        if self._phase == "turn":
            self._play_turn(action)
        elif self._phase == "haidi":
            self._play_haidi(action)
        else:
            self._answer(action)
        self.log.extend(self._events)
        return self._events

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see now (None = spectator)."""
        over = self._phase == "over"
        hand: tuple[Tile, ...] = ()
        drawn: Tile | None = None
        seat_waits: tuple[Tile, ...] = ()
        claimable: Tile | None = None
        if seat is not None:
            tiles = from_counts(self._counts[seat])
            drawn = self._drawn[seat]
            if drawn is not None:
                tiles.remove(drawn)
            hand = tuple(tiles)
            if not over and sum(self._counts[seat]) == HAND_TILES - 3 * len(self._melds[seat]):
                seat_waits = self._seat_waits(seat)
            p = self._pending
            if p is not None and seat in p.options and seat not in p.answers:
                claimable = p.tile
        melds = tuple(
            tuple(m if i == seat or over or m.kind != "an_gang" else Meld("an_gang", (HIDDEN,)) for m in ms)
            for i, ms in enumerate(self._melds)
        )
        last = (self._pending.by, self._pending.tile) if self._pending and self._pending.kind == "claim" else None
        return SeatView(
            seat=seat,
            phase=self._phase,
            dealer=self.dealer,
            laizi=self.laizi,
            indicator=self.indicator,
            wall_remaining=self.wall.remaining,
            turn=self._turn,
            hand=hand,
            drawn=drawn,
            hand_sizes=tuple(sum(c) for c in self._counts),
            melds=melds,
            hongzhong_gangs=tuple(self._hz),
            laizi_gangs=tuple(self._lz),
            laizi_thrown=tuple(self._lt),
            rivers=tuple(tuple(r) for r in self._rivers),
            last_discard=last,
            claimable=claimable,
            waits=seat_waits,
            legal=tuple(self._legal.get(seat, ())) if seat is not None else (),
            result=self.result,
            exhausted=self.exhausted,
            revealed=tuple(tuple(from_counts(c)) for c in self._counts) if over else None,
            rules=self.rules,
        )

    # -- own turn ----------------------------------------------------------------------------------

    def _enter_turn(self) -> None:
        seat = self._turn
        c = self._counts[seat]
        acts: list[Action] = []
        self._offers = {}
        drawn = self._drawn[seat]
        if self._how is not None and drawn is not None:
            st = self._offer(seat, self._how, None, drawn)
            if st is not None:
                acts.append(_act(seat, "hu"))
                self._offers[seat] = st
        held = [t for t in range(NUM_KINDS) if c[t]]
        special = (HONGZHONG, self.laizi)
        if self.wall.remaining > HAIDI_TILES:
            if c[HONGZHONG]:
                acts.append(_act(seat, "hongzhong_gang"))
            if c[self.laizi]:
                acts.append(_act(seat, "laizi_gang"))
            acts.extend(_act(seat, "an_gang", t) for t in held if c[t] == 4 and t not in special)
            acts.extend(_act(seat, "xu_gang", m.tile) for m in self._melds[seat] if m.kind == "peng" and c[m.tile])
        acts.extend(_act(seat, "discard", t) for t in held)  # 红中 and 赖子 too: thrown (§4)
        self._phase = "turn"
        self._pending = None
        self._legal = {seat: acts}

    def _play_turn(self, action: Action) -> None:
        seat, kind, t = action.seat, action.kind, action.tile
        c = self._counts[seat]
        drawn = self._drawn[seat]
        self._drawn[seat] = None
        if kind == "hu":
            assert drawn is not None and self._how is not None
            self._win(seat, self._how, None, drawn, self._offers[seat])
        elif kind == "hongzhong_gang":
            c[HONGZHONG] -= 1
            self._hz[seat] += 1
            self._emit("hongzhong_gang", seat)
            self._replacement_draw(seat)
        elif kind == "laizi_gang":
            c[self.laizi] -= 1
            self._lz[seat] += 1
            self._emit("laizi_gang", seat, tile=tile_name(self.laizi))
            self._replacement_draw(seat)
        elif kind == "an_gang":
            assert t is not None
            c[t] -= 4
            self._melds[seat].append(Meld("an_gang", (t,)))
            self._emit("an_gang", seat, tile=tile_name(t))
            self._replacement_draw(seat)
        elif kind == "xu_gang":
            assert t is not None
            self._emit("xu_gang", seat, tile=tile_name(t))
            self._start_rob(seat, t)
        else:  # discard
            assert t is not None
            if t == HONGZHONG:  # a thrown 红中 counts as a 红中杠 (§4)
                self._hz[seat] += 1
            elif t == self.laizi:  # ... and a thrown 赖子 as a 丢赖子
                self._lt[seat] += 1
            c[t] -= 1
            self._rivers[seat].append(t)
            self._how = None
            self._emit("discard", seat, tile=tile_name(t))
            self._start_claims(seat, t)

    def _replacement_draw(self, seat: int) -> None:
        self._draw(seat, self.wall.draw_replacement(), "gang_draw")

    def _next_draw(self, seat: int) -> None:
        if self.wall.remaining <= HAIDI_TILES:
            self._haidi_queue = [(seat + k) % 4 for k in range(4)]
            self._phase = "haidi"
            self._pending = None
            self._haidi_next()
        else:
            self._draw(seat, self.wall.draw(), "self_draw")

    def _draw(self, seat: int, t: Tile, how: WinHow) -> None:
        self._counts[seat][t] += 1
        self._drawn[seat] = t
        self._turn = seat
        self._how = how
        self._emit("draw", seat, tile=tile_name(t), how=how, remaining=self.wall.remaining)
        self._enter_turn()

    # -- claims on a discard and robbing a 蓄杠 ---------------------------------------------------------

    def _start_claims(self, by: int, t: Tile) -> None:
        options: dict[int, list[Action]] = {}
        self._offers = {}
        if t != HONGZHONG and t != self.laizi:
            gang_ok = self.wall.remaining > HAIDI_TILES
            for k in (1, 2, 3):
                seat = (by + k) % 4
                c = self._counts[seat]
                acts: list[Action] = []
                st = self._offer(seat, "discard", by, t)
                if st is not None:
                    acts.append(_act(seat, "hu"))
                    self._offers[seat] = st
                if c[t] == 3 and gang_ok:
                    acts.append(_act(seat, "chong_gang", t))
                if c[t] >= 2:
                    acts.append(_act(seat, "peng", t))
                if k == 1 and t < 27:
                    acts.extend(_act(seat, "chi", low) for low in self._chi_lows(c, t))
                if acts:
                    options[seat] = [*acts, _act(seat, "pass")]
        if options:
            self._open_pending(_Pending("claim", t, by, options))
        else:
            self._next_draw((by + 1) % 4)

    def _chi_lows(self, c: list[int], t: Tile) -> list[Tile]:
        """The lowest tiles of the sequences ``t`` completes from ``c`` (a 赖子 never helps)."""
        suit_start = t - t % 9
        lows = []
        for low in range(max(suit_start, t - 2), min(t, suit_start + 6) + 1):
            others = [x for x in (low, low + 1, low + 2) if x != t]
            if all(c[x] and x != self.laizi for x in others):
                lows.append(low)
        return lows

    def _start_rob(self, maker: int, t: Tile) -> None:
        options: dict[int, list[Action]] = {}
        self._offers = {}
        for k in (1,) if self.rules.qiang_gang_by == "xia_jia" else (1, 2, 3):  # §6: only the 下家, or anyone
            seat = (maker + k) % 4
            st = self._offer(seat, "rob_gang", maker, t)
            if st is not None:
                options[seat] = [_act(seat, "hu"), _act(seat, "pass")]
                self._offers[seat] = st
        if options:
            self._turn = maker
            self._open_pending(_Pending("rob", t, maker, options))
        else:
            self._complete_xu_gang(maker, t)

    def _complete_xu_gang(self, maker: int, t: Tile) -> None:
        self._counts[maker][t] -= 1
        melds = self._melds[maker]
        i = next(i for i, m in enumerate(melds) if m.kind == "peng" and m.tile == t)
        melds[i] = Meld("xu_gang", (t,), melds[i].from_seat)  # the gang keeps its peng's place
        self._replacement_draw(maker)

    def _open_pending(self, pending: _Pending) -> None:
        self._phase = pending.kind
        self._pending = pending
        self._turn = pending.by
        self._legal = dict(pending.options)

    def _rank(self, a: Action) -> tuple[int, int]:
        """Higher wins: §5 priority, then seat order for several 胡 (rules.multi_win_order)."""
        assert self._pending is not None
        first = self.dealer if self.rules.multi_win_order == "dealer" else (self._pending.by + 1) % 4
        return _PRIORITY[a.kind], -((a.seat - first) % 4)

    def _answer(self, action: Action) -> None:
        p = self._pending
        assert p is not None
        p.answers[action.seat] = action
        del self._legal[action.seat]
        if action.kind == "pass":
            self._emit("pass", action.seat)
        claims = [a for a in p.answers.values() if a.kind != "pass"]
        best = max(claims, key=self._rank) if claims else None
        if self._legal:
            if best is None:
                return
            best_rank = self._rank(best)
            if any(self._rank(a) > best_rank for acts in self._legal.values() for a in acts if a.kind != "pass"):
                return
        self._legal = {}
        if p.kind == "rob":
            if best is None:
                self._complete_xu_gang(p.by, p.tile)
            else:
                self._win(best.seat, "rob_gang", p.by, p.tile, self._offers[best.seat])
        elif best is None:
            self._next_draw((p.by + 1) % 4)
        else:
            self._take_discard(best, p)

    def _take_discard(self, claim: Action, p: _Pending) -> None:
        seat, t, by = claim.seat, p.tile, p.by
        if claim.kind == "hu":
            self._win(seat, "discard", by, t, self._offers[seat])
            return
        c = self._counts[seat]
        self._rivers[by].pop()
        self._open[seat] = True
        self._pending = None
        if claim.kind == "chi":
            assert claim.tile is not None
            meld = Meld("chi", (claim.tile, claim.tile + 1, claim.tile + 2), by, claimed=t)
            for x in meld.tiles:
                if x != t:
                    c[x] -= 1
        else:
            meld = Meld("peng" if claim.kind == "peng" else "chong_gang", (t,), by)
            c[t] -= meld.size - 1
        self._melds[seat].append(meld)
        self._emit(claim.kind, seat, tile=tile_name(t), tiles=format_tiles(meld.all_tiles()), **{"from": by})
        self._turn = seat
        if meld.kind == "chong_gang":
            self._replacement_draw(seat)
        else:
            self._how = None
            self._enter_turn()

    # -- 海底 ------------------------------------------------------------------------------------------

    def _haidi_next(self) -> None:
        """Draw for the next 海底 seats until one can win (and is asked) or the hand is drawn (荒庄)."""
        self._offers = {}
        while self._haidi_queue:
            seat = self._haidi_queue.pop(0)
            t = self.wall.draw()
            self._counts[seat][t] += 1
            self._turn = seat
            self._emit("haidi", seat, tile=tile_name(t), remaining=self.wall.remaining)
            st = self._offer(seat, "haidi", None, t)
            if st is not None:
                self._drawn[seat] = t
                self._offers[seat] = st
                self._legal = {seat: [_act(seat, "hu"), _act(seat, "pass")]}
                return
        self._legal = {}
        self._phase = "over"
        self.exhausted = True
        self._emit("exhausted", None, remaining=self.wall.remaining)

    def _play_haidi(self, action: Action) -> None:
        seat = action.seat
        t = self._drawn[seat]
        assert t is not None
        self._drawn[seat] = None
        if action.kind == "hu":
            self._win(seat, "haidi", None, t, self._offers[seat])
        else:
            self._emit("pass", seat)
            self._haidi_next()

    # -- winning ---------------------------------------------------------------------------------------

    def _offer(self, winner: int, how: WinHow, from_seat: int | None, t: Tile) -> Settlement | None:
        """The settlement if ``winner`` may win with ``t`` now (a legal win paying the minimum), else None."""
        if not (self._open[winner] and t != HONGZHONG and not self._counts[winner][HONGZHONG]):
            return None  # 开口 and no 红中 (§8.1) are cheap to check before the analysis
        counts = self._counts[winner]
        if how not in SELF_DRAWN:  # the discarded or robbed tile joins the hand
            counts = counts.copy()
            counts[t] += 1
        if not may_win(counts, self.laizi):
            return None  # most hands: not even the shape
        concealed = self._concealed_before(winner, how, t)
        if not analyse_win(concealed, t, self._melds[winner], self.laizi, how, self.rules.hard_factor).valid:
            return None  # most hands: no need to build a settlement
        st = self._settlement(winner, how, from_seat, t)
        return st if st.valid else None

    def _concealed_before(self, seat: int, how: WinHow, t: Tile) -> list[Tile]:
        concealed = from_counts(self._counts[seat])
        if how in SELF_DRAWN:
            concealed.remove(t)
        return concealed

    def _settlement(self, winner: int, how: WinHow, from_seat: int | None, t: Tile, ready: bool = True) -> Settlement:
        """settle() for ``winner`` winning with ``t``; ``ready`` is the discarder's (全求人 liability)."""
        concealed = self._concealed_before(winner, how, t)
        seats = [
            SeatMelds(
                tuple(self._melds[i]),
                self._hz[i],
                self._lz[i],
                ready if i == from_seat else True,
                self._lt[i],
                self._rivers[i].count(HONGZHONG),
            )
            for i in range(4)
        ]
        return settle(self.rules, self.dealer, self.laizi, winner, how, from_seat, t, concealed, seats)

    def _win(self, seat: int, how: WinHow, from_seat: int | None, t: Tile, offered: Settlement) -> None:
        result = offered
        if how == "discard" and "quan_qiu_ren" in offered.patterns:
            assert from_seat is not None
            # The offer assumed a ready discarder; only 全求人 liability depends on it, so look now.
            if not self._seat_waits(from_seat):
                result = self._settlement(seat, how, from_seat, t, ready=False)
        if how == "discard":
            assert from_seat is not None
            self._rivers[from_seat].pop()
            self._counts[seat][t] += 1
        elif how == "rob_gang":
            assert from_seat is not None
            self._counts[from_seat][t] -= 1
            self._counts[seat][t] += 1
        self.result = result
        self._phase = "over"
        self._pending = None
        self._legal = {}
        self._turn = seat
        self._emit("win", seat, how=how, tile=tile_name(t), settlement=result.to_json(), **{"from": from_seat})

    def _seat_waits(self, seat: int) -> tuple[Tile, ...]:
        """waits() of a seat's concealed hand (13 − 3 × melds tiles), cached until that hand changes."""
        key = (tuple(self._counts[seat]), tuple(self._melds[seat]))
        cached = self._waits_cache.get(seat)
        if cached is None or cached[0] != key:
            cached = (key, tuple(waits(from_counts(self._counts[seat]), self._melds[seat], self.laizi)))
            self._waits_cache[seat] = cached
        return cached[1]

    def _emit(self, kind: str, seat: int | None, **data: Any) -> None:
        self._events.append(Event(kind, seat, data))

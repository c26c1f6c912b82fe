"""One group's table: the seats, the match, the hand in play and who is being asked what since when.

No I/O here: the table's core (``bot.table.core``) changes it as messages arrive and says what is to be
done about it in effects. A *prompt* is one decision a seat is asked to make; its stamp goes into the
buttons' callback data, so a press of an older prompt's button is recognised as stale.

    table = Table(key=TableKey(-100), title="Friends", creator_id=1, creator_name="Ann")
    table.sit(1, "Ann")
    ...
    table.start_hand(hand, hand_id=7, now=now)
    changed = table.apply(action, now)       # the seats whose prompt changed (they need new buttons)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from bot.callbacks import Stamp
from bot.table.key import TableKey
from bot.table.options import GroupSettings, Options
from game.actions import Action
from game.match import Match
from game.table import Event, Hand
from game.tiles import Tile
from game.titles import TITLES, Title

State = Literal["new", "lobby", "playing", "between", "closed"]
SEATS = 4
CLAIM_PAUSES = 32  # the people's latest claim decisions a table remembers (the held draws' pauses are drawn from)
MAX_NAME = 24  # characters of a player's name shown at the table (Telegram allows 129)


def short_name(name: str) -> str:
    """A name as the table shows it: at most MAX_NAME characters, an ellipsis where it was cut."""
    name = " ".join(name.split()) or "?"
    return name if len(name) <= MAX_NAME else name[: MAX_NAME - 1] + "…"


@dataclass(frozen=True)
class Held:
    """A draw made but not shown yet: what followed a discard (``window`` "claim") or a 蓄杠 ("rob") by ``by`` of
    ``tile`` that no person deciding could claim, held back until ``until`` (the table's clock)."""

    window: Literal["claim", "rob"]
    by: int
    tile: Tile
    until: float


@dataclass
class Seat:
    user_id: int | None  # None = an automatic player
    name: str
    auto: bool = False  # 托管: the automatic player plays for this human until they press "I'm back"
    # 托管 asked for during a claim prompt, not yet told to anyone (told at their next turn: said during a claim
    # window, it would say that they could claim)
    untold: bool = False
    missed: int = 0  # turns in a row whose timer ran out (the automatic player played each): two start 托管
    ready: bool = False  # pressed Ready after a hand
    blocked: bool = False  # their private chat refused the bot (403) since they last pressed a button
    lang: str = "zh"  # the player's own language (storage players.language): their private messages speak it

    def __post_init__(self) -> None:
        self.name = short_name(self.name)  # every caption and text that names a seat stays short

    @property
    def human(self) -> bool:
        return self.user_id is not None

    @property
    def automatic(self) -> bool:
        return self.user_id is None or self.auto


WARN_SECONDS = 10.0  # a person is warned once this long before their turn's timer runs out (half of a shorter one)
MISSED_TURNS = 2  # turns in a row whose timer ran out before 托管 plays on for the person


@dataclass
class Prompt:
    counter: int  # len(hand.actions) when this decision was first offered
    since: float  # monotonic time it was offered
    legal: tuple[Action, ...]
    warned: bool = False  # the person was told their timer is about to run out


@dataclass
class Table:
    key: TableKey  # the group and its forum topic: the one name of the table everywhere
    title: str
    creator_id: int
    creator_name: str
    lang: str = "zh"
    auto_players: bool = True
    auto_level: str = "normal"
    claim_seconds: float = 10.0
    turn_seconds: float = 30.0
    seats: list[Seat | None] = field(default_factory=lambda: [None] * SEATS)
    hands_planned: int = 8
    state: State = "lobby"
    match: Match | None = None
    match_id: int | None = None
    hand: Hand | None = None
    hand_id: int | None = None
    hand_number: int = 0
    totals: list[int] = field(default_factory=lambda: [0] * SEATS)  # the match's, as storage settled them
    commitment: str | None = None  # the hand's deal commitment (game.verify), shown in the group from the deal
    proof: tuple[str, str] | None = None  # (share code, reveal text) once the hand is settled
    tuoguan: list[int] = field(default_factory=lambda: [0] * SEATS)  # 托管 takeovers per seat this hand
    prompts: dict[int, Prompt] = field(default_factory=dict)
    held: Held | None = None  # a draw made but not shown yet (bot.table.hand.hold): nobody is asked anything
    # Someone besides the seated people is in the group (asked at each deal; True when Telegram did not say): its
    # picture is for them, at the group's pace. False: between the deal and the end, at its idle pace.
    watched: bool = True
    closing: bool = False  # its last hand is over and shown: only closing the match in storage is left
    claim_pauses: list[float] = field(default_factory=list)  # how long people took over their latest claims
    between_since: float = 0.0  # when the last hand ended
    not_before: float = 0.0  # the timer waits at least until then (a store refused: tried again later)
    session: bool = False  # a league night's: its session seats each hand and says when the night is over
    command_id: int | None = None  # the command that opened it: its lobby is the answer, a reply to it
    # The title changes the last settled hand brought: seat -> (title before, title after).
    title_changes: dict[int, tuple[Title, Title]] = field(default_factory=dict)
    # Seats a human left to an automatic player during the match: seat -> their name (the totals are theirs).
    left_by: dict[int, str] = field(default_factory=dict)

    @property
    def chat_id(self) -> int:
        return self.key.chat_id

    @property
    def thread_id(self) -> int | None:
        return self.key.thread_id

    def promotions(self) -> list[int]:
        """The seats whose title the last hand raised (the group hears only of these)."""
        return [
            s for s, (before, after) in sorted(self.title_changes.items()) if TITLES.index(after) > TITLES.index(before)
        ]

    def follow(self, settings: GroupSettings, options: Options) -> None:
        """Take the group's settings: language, automatic players, timers (the operator's timers win)."""
        self.lang = settings.language
        self.auto_players = settings.auto_players
        self.auto_level = settings.auto_level
        self.claim_seconds = options.claim_seconds or settings.claim_seconds
        self.turn_seconds = options.turn_seconds or settings.turn_seconds

    # --- seats ---------------------------------------------------------------------------------------
    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user_id == user_id:
                return i
        return None

    def sit(self, user_id: int, name: str) -> int | None:
        """Seat a human in the first empty seat; the seat, or None when the table is full."""
        for i, s in enumerate(self.seats):
            if s is None:
                self.seats[i] = Seat(user_id, name)
                return i
        return None

    def stand(self, user_id: int) -> int | None:
        seat = self.seat_of(user_id)
        if seat is not None:
            self.seats[seat] = None
        return seat

    def fill_with_automatic(self, name_of: Callable[[int], str]) -> None:
        """Automatic players in the empty seats, named ``name_of(seat)``."""
        for i, s in enumerate(self.seats):
            if s is None:
                self.seats[i] = Seat(None, name_of(i))

    def match_over(self) -> bool:
        """Every planned hand of the match played."""
        return self.match is not None and self.match.hands_played >= self.hands_planned

    def humans(self) -> list[tuple[int, Seat]]:
        return [(i, s) for i, s in enumerate(self.seats) if s is not None and s.user_id is not None]

    def seat(self, i: int) -> Seat:
        s = self.seats[i]
        if s is None:
            raise LookupError(f"seat {i} is empty")
        return s

    # --- the hand -----------------------------------------------------------------------------------
    def start_hand(self, hand: Hand, hand_id: int, now: float) -> set[int]:
        self.hand, self.hand_id = hand, hand_id
        self.state = "playing"
        self.prompts, self.held = {}, None
        self.proof, self.tuoguan = None, [0] * SEATS
        for s in self.seats:
            if s is not None:
                s.ready = False
        return self.refresh_prompts(now)

    def refresh_prompts(self, now: float, actor: int | None = None) -> set[int]:
        """Bring the prompts up to date with the hand; the seats whose decision changed.

        The seat that just acted always gets a new prompt (or none): its old buttons are spent even when the
        same choices come back (a second 赖子杠 after the first), so a repeated press is stale."""
        hand = self._hand()
        changed: set[int] = set()
        for seat in range(SEATS):
            legal = tuple(hand.legal_actions(seat))
            old = self.prompts.get(seat)
            if old is not None and old.legal == legal and seat != actor:
                continue
            if legal:
                self.prompts[seat] = Prompt(len(hand.actions), now, legal)
            elif old is not None:
                del self.prompts[seat]
            else:
                continue
            changed.add(seat)
        return changed

    def apply(self, action: Action, now: float) -> tuple[list[Event], set[int]]:
        """Apply a legal action; (events, seats whose prompt changed). IllegalAction leaves all unchanged."""
        events = self._hand().apply(action)
        return list(events), self.refresh_prompts(now, actor=action.seat)

    def hidden_from(self, seat: int | None) -> bool:
        """While one seat decides the 海底, nobody else (``None``: the group) is shown anything: that it can be won
        is that seat's alone to know (a 海底 nobody can win is drawn to its end at once)."""
        hand = self.hand
        return self.state == "playing" and hand is not None and hand.phase == "haidi" and seat not in self.prompts

    def stamp(self, seat: int) -> Stamp:
        """The stamp of ``seat``'s current prompt, for its buttons."""
        prompt = self.prompts.get(seat)
        counter = prompt.counter if prompt is not None else len(self._hand().actions)
        return Stamp(self.hand_id or 0, counter, seat)

    def accepts(self, seat: int, stamp: Stamp, action: Action) -> bool:
        """Whether a press of ``action`` on buttons stamped ``stamp`` is the seat's current, legal decision."""
        prompt = self.prompts.get(seat)
        return prompt is not None and stamp == self.stamp(seat) and action in prompt.legal

    def deadline(self, seat: int, bot_delay: float) -> float | None:
        """When ``seat``'s current decision is due: the automatic player's move, or a human's timeout."""
        prompt = self.prompts.get(seat)
        if prompt is None:
            return None
        if self.seat(seat).automatic:
            # An automatic player decides a claim at once: a pause would tell everyone it could have claimed.
            return prompt.since + (bot_delay if self._hand().phase == "turn" else 0.0)
        window = self.turn_seconds if self._hand().phase == "turn" else self.claim_seconds
        return prompt.since + window

    def warning(self, seat: int) -> float | None:
        """When a person is to be warned that their turn's timer runs out soon (once; None: not, or done)."""
        prompt = self.prompts.get(seat)
        if prompt is None or prompt.warned or self.seat(seat).automatic or self._hand().phase != "turn":
            return None
        return prompt.since + self.turn_seconds - min(WARN_SECONDS, self.turn_seconds / 2)

    def next_due(self, bot_delay: float) -> tuple[float, int] | None:
        """The earliest (time, seat) among the seats asked now: a person's warning, else its deadline."""
        due = [
            (d, seat)
            for seat in self.prompts
            if (d := self.warning(seat) or self.deadline(seat, bot_delay)) is not None
        ]
        return min(due) if due else None

    def _hand(self) -> Hand:
        if self.hand is None:
            raise LookupError("no hand is being played")
        return self.hand

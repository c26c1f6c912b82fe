"""What a table's core asks to be done: effects, carried out in order by the table's shell (``bot.host.edge``).

The core (``bot.table.core``) is a generator per message: it yields effects and, for those that ask (``Asks``),
gets their answer back, of the type the effect names (``yield from ask(effect)`` checks it); a refused store is
thrown back into it as ``Refused``. ``drive`` (``bot.table.drive``) is the one loop that does this, for the
runner and for the tests. Nothing here does anything: these are plain values, answered with plain values.

    Store effects: what storage keeps, before anything is shown (some ask: a record's id, the settings).
    Show effects: what a chat sees (a seat's picture, the group's, a result, a text).
    Others: a decision of an automatic player (asks), a league night's session (asks), the table's key
    changing, the table closing.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar, cast

from bot.table.key import TableKey
from bot.table.options import GroupSettings
from bot.table.state import Seat
from game.actions import Action
from game.facts import SeatFacts
from game.rules import Rules
from game.titles import Title
from game.view import SeatView

T = TypeVar("T")


class Refused(Exception):
    """Storage refused a store effect (nothing was stored): thrown back into the core, which decides what it means."""


class Asks(Generic[T]):
    """An effect with an answer, of the type ``answer`` (``T``)."""

    answer: ClassVar[type]


def ask(effect: Asks[T]) -> Generator[Effect, object, T]:
    """Yield ``effect``; its answer, refused if it is not of the type the effect names (a test's made-up answer
    is a real record, never a stand-in)."""
    answer = yield cast(Effect, effect)
    if not isinstance(answer, effect.answer):
        raise TypeError(f"{type(effect).__name__} answered with a {type(answer).__name__}")
    return cast(T, answer)


@dataclass(frozen=True)
class Sitter:
    """Who holds a seat of a stored match: a person (``user_id``) or an automatic player of ``auto_level``."""

    user_id: int | None
    auto_level: str


@dataclass(frozen=True)
class HandStarted:
    """A new hand's record: its id, its number in the match and its deal commitment (game.verify)."""

    id: int
    hand_no: int
    commitment: str | None


@dataclass(frozen=True)
class Settled:
    """A hand's settlement as stored: the match's totals after it (with the flee penalties storage holds),
    each seat's points, the seats whose title changed (before, after), its /replay code and its seed's reveal."""

    totals: tuple[int, ...]
    points: tuple[int, ...]
    title_changes: Mapping[int, tuple[Title, Title]]
    share_code: str
    reveal: str


# --- storage (answered) ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadSettings(Asks[GroupSettings]):
    """The group's /settings."""

    answer = GroupSettings
    chat_id: int


@dataclass(frozen=True)
class ReadLanguages(Asks[dict[int, str]]):
    """Each player's own language, by user id (players unknown to storage left out)."""

    answer = dict
    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class SavePlayer:
    user_id: int
    name: str


@dataclass(frozen=True)
class CreateMatch(Asks[int]):
    """A match with its seats (answer: its id)."""

    answer = int
    chat_id: int
    seed: int
    rules: Rules
    seats: tuple[Sitter, ...]
    hands_planned: int
    league_night_id: int | None
    thread_id: int | None
    creator_id: int  # who opened it (0: nobody's, a league night's), so a restart knows who may /stop it
    title: str | None  # the group's (or topic's) title, so a restart need not ask Telegram


@dataclass(frozen=True)
class SetRules:
    match_id: int
    rules: Rules


@dataclass(frozen=True)
class ReplaceSeat:
    match_id: int
    seat: int
    new: Sitter


@dataclass(frozen=True)
class StartHand(Asks[HandStarted]):
    """A new hand's record."""

    answer = HandStarted
    match_id: int
    seed: int
    dealer: int


@dataclass(frozen=True)
class AppendAction:
    """``update_id``: the press's update (None: a timer's action); a worker (bot.cluster) marks it done in the
    inbox in the action's own transaction, so the press is stored exactly once across a worker's death."""

    hand_id: int
    index: int
    action: Action
    update_id: int | None = None


@dataclass(frozen=True)
class StoreFlee:
    """A flight: its penalty and the seat given to an automatic player, in one transaction."""

    hand_id: int
    seat: int
    amounts: tuple[int, ...]
    auto_level: str


@dataclass(frozen=True)
class ReadPenalties(Asks[tuple[int, ...]]):
    """The flee penalties stored for a hand, per seat."""

    answer = tuple
    hand_id: int


@dataclass(frozen=True)
class CloseHand(Asks[Settled]):
    """The settlement, one transaction (then the hand's seed is revealed)."""

    answer = Settled
    hand_id: int
    payments: tuple[int, ...]
    winner: int | None
    summary: Mapping[str, Any]
    facts: Sequence[SeatFacts] | None = None
    tuoguan: tuple[int, ...] | None = None


@dataclass(frozen=True)
class FinishMatch:
    match_id: int
    status: Literal["done", "abandoned"]


@dataclass(frozen=True)
class MoveChat(Asks[bool]):
    """A group became a supergroup: storage follows it (answer: whether anything was stored under ``old``)."""

    answer = bool
    old: int
    new: int


# --- the world outside storage (answered) -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reach(Asks[bool]):
    """Write ``text`` to a person privately (answer: whether they can be reached: 403 means they never started
    the bot)."""

    answer = bool
    user_id: int
    text: str


@dataclass(frozen=True)
class CountMembers(Asks[int]):
    """How many members the group has, the bot among them (answer: 0 when Telegram did not say)."""

    answer = int
    chat_id: int


@dataclass(frozen=True)
class Decide(Asks[Action]):
    """An automatic player's move: thought out of the loop (a thread, or the process pool for ``hard``)."""

    answer = Action
    view: SeatView = field(repr=False)
    level: str
    seed: int


@dataclass(frozen=True)
class NewSeed(Asks[int]):
    """A secret random seed."""

    answer = int
    bits: int


@dataclass(frozen=True)
class AskSeating(Asks[tuple[Seat | None, ...]]):
    """A league night's session: the four seats for the next hand (None: an automatic player)."""

    answer = tuple


@dataclass(frozen=True)
class AskOver(Asks[bool]):
    """A league night's session: whether the night ends after the hand just settled."""

    answer = bool


@dataclass(frozen=True)
class SessionClosed:
    status: str


# --- what chats see -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ShowSeat:
    """A player's private picture of the table (``stopped``: its last state without buttons; ``lang``: in this
    language rather than the seat's)."""

    seat: int
    urgent: bool = False
    fresh: bool = False
    stopped: bool = False
    user_id: int | None = None  # the one to show it to, when not the seat's player now (someone leaving it)
    lang: str | None = None
    left: bool = False  # its last state for the one leaving it: the game goes on for the others
    chat: bool = False  # they pressed in the chat: at once, should it lag behind their open live page
    refused: bool = False  # ... refused: what they pressed may be older than the table (a stopped worker's write)


@dataclass(frozen=True)
class ShowGroup:
    """The group's lobby, the table's picture (``stopped``: its last state) or the hand's result (its last state)."""

    view: Literal["lobby", "spectator", "result", "closed"]
    fresh: bool = False
    stopped: bool = False
    idle: bool = False  # nobody but the players sees it (not the deal's, not the result): at its idle pace


@dataclass(frozen=True)
class ShowResult:
    """A player's own result of the hand just settled (``next_seconds``: a Ready button), in the hand's message."""

    seat: int
    next_seconds: float | None  # None: no Ready button (the last hand, or its time is over)
    picture: bool = True  # False: its words and buttons alone (Ready retired, after a restart): the picture stays


@dataclass(frozen=True)
class Announce:
    """A new message: to the group (``user_id`` None, in the table's forum topic) or to a person privately."""

    text: str
    user_id: int | None = None


@dataclass(frozen=True)
class Tell:
    """A line in the caption of the group's picture (碰, 杠), on its next edit (``idle``: at its idle pace)."""

    text: str
    idle: bool = False


@dataclass(frozen=True)
class Forget:
    """A message of the table is done with (``user_id`` None: the group's ``slot``; else that person's)."""

    slot: str
    user_id: int | None = None


@dataclass(frozen=True)
class Reply:
    """The answer to whoever sent the message being handled (a command's reply, a button press's notice);
    ``join_link``: with the button that opens the bot's private chat to join."""

    text: str | None
    join_link: bool = False


@dataclass(frozen=True)
class MoveMessages:
    """The group ``old`` is ``new`` now: its waiting writes follow, and each player's table message is renamed."""

    old: int
    new: int
    slots: tuple[tuple[int, str, str], ...]  # (user id, old slot, new slot)


@dataclass(frozen=True)
class DropGroup:
    """Nothing more is written to the group: it removed the bot, or the table's forum topic is gone."""

    topic_only: bool


@dataclass(frozen=True)
class Rekey:
    """The table is known by a new key from now on (its group migrated)."""

    old: TableKey
    new: TableKey


@dataclass(frozen=True)
class Closed:
    """The table has ended: the runner stops and the registry forgets it."""


@dataclass(frozen=True)
class Log:
    """A structured log line (``bot.logs``): never a hidden tile."""

    event: str
    fields: Mapping[str, object]


Effect = (
    ReadSettings
    | ReadLanguages
    | SavePlayer
    | CreateMatch
    | SetRules
    | ReplaceSeat
    | StartHand
    | AppendAction
    | StoreFlee
    | ReadPenalties
    | CloseHand
    | FinishMatch
    | MoveChat
    | Reach
    | CountMembers
    | Decide
    | NewSeed
    | AskSeating
    | AskOver
    | SessionClosed
    | ShowSeat
    | ShowGroup
    | ShowResult
    | Announce
    | Tell
    | Forget
    | Reply
    | MoveMessages
    | DropGroup
    | Rekey
    | Closed
    | Log
)

"""What a table's core asks to be done: effects, carried out in order by the table's runner (``bot.host.edge``).

The core (``bot.table.core``) is a generator per message: it yields effects and, for those marked *answered*,
gets their result back (the runner sends it in); a refused store is thrown back into it as ``StorageError``.
Nothing here does anything: these are plain values, so a test can step a core with made-up answers.

    Store effects (answered): what storage keeps, before anything is shown.
    Show effects: what a chat sees (a seat's picture, the group's, a result, a text).
    Others: a decision of an automatic player (answered), a league night's session (answered), the table's key
    changing, the table closing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.table.key import TableKey
from game.actions import Action
from game.facts import SeatFacts
from game.rules import Rules
from game.view import SeatView
from storage.matches import Seat as StoredSeat

# --- storage (answered) ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReadSettings:
    """The group's /settings (answer: ``storage.chats.ChatSettings``)."""

    chat_id: int


@dataclass(frozen=True)
class ReadLanguages:
    """Each player's own language (answer: ``dict[user id, language]``; players unknown to storage left out)."""

    user_ids: tuple[int, ...]


@dataclass(frozen=True)
class SavePlayer:
    user_id: int
    name: str


@dataclass(frozen=True)
class CreateMatch:
    """A match with its seats (answer: ``storage.matches.Match``)."""

    chat_id: int
    seed: int
    rules: Rules
    seats: tuple[StoredSeat, ...]
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
    new: StoredSeat


@dataclass(frozen=True)
class StartHand:
    """A new hand's record (answer: ``storage.hands.HandRecord``: its id, number and deal commitment)."""

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
class ReadPenalties:
    """The flee penalties stored for a hand (answer: ``tuple[int, ...]``)."""

    hand_id: int


@dataclass(frozen=True)
class CloseHand:
    """The settlement, one transaction (answer: ``storage.hands.ClosedHand``, then the reveal is read too:
    the answer is ``(ClosedHand, reveal text)``)."""

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
class MoveChat:
    """A group became a supergroup: storage follows it (answer: whether anything was stored under ``old``)."""

    old: int
    new: int


# --- the world outside storage (answered) -----------------------------------------------------------------------


@dataclass(frozen=True)
class Reach:
    """Write ``text`` to a person privately (answer: whether they can be reached: 403 means they never started
    the bot)."""

    user_id: int
    text: str


@dataclass(frozen=True)
class Decide:
    """An automatic player's move (answer: an ``Action``): thought out of the loop (a thread, or the process pool
    for ``hard``)."""

    view: SeatView = field(repr=False)
    level: str
    seed: int


@dataclass(frozen=True)
class NewSeed:
    """A secret random seed (answer: ``int``)."""

    bits: int


@dataclass(frozen=True)
class AskSession:
    """A league night's session: ``seating`` (answer: the four seats for the next hand) or ``over`` (answer:
    whether the night ends after the hand just settled)."""

    question: Literal["seating", "over"]


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


@dataclass(frozen=True)
class ShowGroup:
    """One of the table's group messages: the lobby, the table's picture (``stopped``: its last state) or the
    result of the hand just settled."""

    view: Literal["lobby", "spectator", "result", "closed"]
    fresh: bool = False
    stopped: bool = False


@dataclass(frozen=True)
class ShowResult:
    """A player's own result of the hand just settled (with ``next_seconds``: a Ready button)."""

    seat: int
    next_seconds: float | None  # None: no Ready button (the last hand, or its time is over)
    fresh: bool = True  # a message of its own (after a restart, or to retire its Ready: edited in place)


@dataclass(frozen=True)
class Announce:
    """A new message: to the group (``user_id`` None, in the table's forum topic) or to a person privately."""

    text: str
    user_id: int | None = None


@dataclass(frozen=True)
class Tell:
    """A line in the caption of the group's picture (碰, 杠), on its next edit."""

    text: str


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
    | Decide
    | NewSeed
    | AskSession
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

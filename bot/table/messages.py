"""What can happen to a table: the messages its core (``bot.table.core``) takes, one at a time.

Handlers, the outbox and the clock post them to the table's runner through the registry (``bot.host.registry``);
each carries what the core needs to know and nothing it could fetch itself (no I/O in the core): a press its
decoded button, a command who sent it. The time comes with each step, never from a clock in the core.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.callbacks import Stamp
from bot.table.state import Seat
from game.rules import Rules


@dataclass(frozen=True)
class Open:
    """/newgame: the table opens with its creator seated (if the bot can reach them privately)."""

    user_id: int
    name: str
    title: str
    command_id: int | None = None  # the /newgame message: the lobby replies to it
    elsewhere: str | None = None  # the table the person sits at already (the registry knows): they may not sit
    lang: str | None = None  # the sender's language, which a refusal speaks (None: the table's)


@dataclass(frozen=True)
class OpenSession:
    """A league night opens the table with these seats (None: an automatic player) and deals at once."""

    seats: tuple[Seat | None, ...]
    rules: Rules
    hands_planned: int
    league_night_id: int | None


@dataclass(frozen=True)
class OpenQuick:
    """A quick match (``bot.quick``) opens its table with the people it matched (None: an automatic player) and
    deals at once."""

    seats: tuple[Seat | None, ...]
    rules: Rules
    hands_planned: int
    lang: str  # what the table says to all of them (a win, a flight), told to each privately: its first person's


@dataclass(frozen=True)
class Join:
    """/join in the group, or the Join link's /start in private; a refusal is said in ``lang``, the sender's
    (None: the table's), and so is the answer in private (``from_private``)."""

    user_id: int
    name: str
    from_private: bool = False
    lang: str | None = None
    elsewhere: str | None = None  # the table the person sits at already (the registry knows): they may not sit


@dataclass(frozen=True)
class Leave:
    """/leave (no hand running) or /flee (``flee``: even a running hand, with its penalty, once confirmed)."""

    user_id: int
    flee: bool = False
    lang: str | None = None  # the sender's language, which a refusal speaks (None: the table's)
    hand_id: int | None = None  # a confirmed /flee: the hand it was confirmed for (another one: nothing happens)


@dataclass(frozen=True)
class Begin:
    user_id: int
    lang: str | None = None  # the sender's language, which a refusal speaks (None: the table's)


@dataclass(frozen=True)
class Press:
    """A play button: an action, or Start, Ready, I'm back; answered in ``lang``, the presser's own.
    ``update_id``: the Telegram update that carried it, stored with its action (``AppendAction``)."""

    user_id: int
    stamp: Stamp
    code: str
    lang: str
    update_id: int | None = None
    from_page: bool = False  # pressed on the live page (bot.live), not on the chat's picture


@dataclass(frozen=True)
class Due:
    """The table's timer fell due: whatever is due now is played (automatic players, timeouts, the next hand)."""


@dataclass(frozen=True)
class Stop:
    user_id: int
    is_admin: bool
    lang: str | None = None  # the sender's language, which a refusal speaks (None: the table's)


@dataclass(frozen=True)
class FollowSettings:
    """The group changed its /settings: a lobby follows them at once (a running match from its next hand)."""


@dataclass(frozen=True)
class Migrated:
    """The group is the supergroup ``new`` now."""

    new: int


@dataclass(frozen=True)
class Unreachable:
    """A person's private chat refused the bot (403: they blocked it)."""

    user_id: int


@dataclass(frozen=True)
class Unwritable:
    """The bot may no longer write to the table's group (removed, or muted) or to its forum topic (``topic``:
    closed or deleted)."""

    topic: bool = False


@dataclass(frozen=True)
class Refresh:
    """A player closed the Mini App's page: their private picture, not kept up while it was open, is shown."""

    user_id: int


@dataclass(frozen=True)
class Resumed:
    """The process started again and rebuilt this table from storage: its chats are shown where it stands."""


Message = (
    Open
    | OpenSession
    | OpenQuick
    | Join
    | Leave
    | Begin
    | Press
    | Due
    | Stop
    | FollowSettings
    | Migrated
    | Unreachable
    | Unwritable
    | Refresh
    | Resumed
)

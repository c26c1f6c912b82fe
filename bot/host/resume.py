"""Resume after a restart: every table that was playing is rebuilt from storage and goes on.

Unfinished hands are rebuilt by replaying their stored actions (``Hand.replay``); matches stopped between two
hands wait for the next one. Each table is handed to the registry, whose runner is told ``Resumed``: the
table's core shows it where it stands, editing the messages sent before the restart in place.

    resumed = await resume_tables(tables, db)      # once, at start-up (bot.app): no request to Telegram
    await resume_tables(tables, db, which)         # a worker's shards taken over (bot.cluster.ownership)
    await fill_titles(tables, db, bot)             # in the background: older matches' titles (none stored)
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable

from telegram import Bot
from telegram.error import TelegramError

from bot.host.edge import group_settings
from bot.host.registry import Tables
from bot.table.key import TableKey
from bot.table.state import Seat, Table
from bot.table.texts import automatic_name
from game.actions import Action
from game.match import Match
from game.table import IllegalAction
from storage.database import Database
from storage.errors import StorageError
from storage.hands import HandRecord
from storage.matches import Match as StoredMatch

log = logging.getLogger(__name__)
_UNRESUMABLE = (IllegalAction, ValueError, StorageError, TelegramError)


def _every(key: TableKey) -> bool:
    return True


async def resume_tables(tables: Tables, db: Database, which: Callable[[TableKey], bool] = _every) -> int:
    """Take up every table that was playing (``which``: only these, a worker's shards), but those running here
    (a runner that died is replaced); how many resumed."""
    resumed = 0
    for stored in await db.hands.unfinished():
        record, match_record = stored.hand, stored.match
        if not which(_key(match_record)) or tables.running(_key(match_record)):
            continue
        try:
            actions = [Action.from_json(a) for a in stored.actions]
            table = await _rebuilt_table(tables, db, match_record, record, actions)
        except _UNRESUMABLE as e:
            log.error("hand %s of chat %s cannot be resumed (%s); abandoning it", record.id, record.chat_id, e)
            await _abandon(db, match_record)
            continue
        await _adopt(tables, db, table)
        resumed += 1
    for match_record in await db.matches.all_running():
        if not which(_key(match_record)) or tables.running(_key(match_record)):
            continue
        try:
            waiting = await _between(tables, db, match_record)
        except _UNRESUMABLE as e:
            log.error(
                "match %s of chat %s cannot be resumed (%s); abandoning it", match_record.id, match_record.chat_id, e
            )
            await _abandon(db, match_record)
            continue
        if waiting is not None:
            await _adopt(tables, db, waiting)
            resumed += waiting.match is not None and waiting.match.hands_played < waiting.hands_planned
    return resumed


def _key(match_record: StoredMatch) -> TableKey:
    return TableKey(match_record.chat_id, match_record.thread_id)


async def _adopt(tables: Tables, db: Database, table: Table) -> None:
    """The outbox takes up the table's chats, paced from now (whoever ran the table before may have just written to
    them), and its messages sent before (the group's and its players'); then the registry runs the table."""
    key = table.key
    group = {key.slot(name) for name in ("lobby", "spectator")}
    private = {key.private_slot("hand")}
    chats = [table.chat_id, *(s.user_id or 0 for _, s in table.humans())]
    for chat_id in chats[1:] if key.is_quick else chats:  # (a quick match has no group)
        tables.edge.outbox.taken_up(chat_id)
    for m in await db.live_messages.of_chats(chats):
        if m.slot in (group if m.chat_id == table.chat_id else private):
            tables.edge.outbox.adopt(m.chat_id, m.slot, m.message_id, is_photo=m.is_photo)
    tables.adopt(table)


async def _abandon(db: Database, match_record: StoredMatch) -> None:
    with contextlib.suppress(StorageError):
        await db.matches.finish(match_record.id, "abandoned")


async def _stored_seats(db: Database, match_record: StoredMatch, lang: str) -> list[Seat | None]:
    seats: list[Seat | None] = []
    for i, stored_seat in enumerate(match_record.seats):
        if stored_seat.player_id is None:
            seats.append(Seat(None, automatic_name(i, lang)))
        else:
            player = await db.players.get(stored_seat.player_id)
            seat = Seat(stored_seat.player_id, player.display_name if player else "?")
            seat.lang = player.language if player else seat.lang
            seats.append(seat)
    return seats


async def _creator(db: Database, match_record: StoredMatch, seats: list[Seat | None]) -> tuple[int, str]:
    """(id, name) of who opened the table, as stored; an older match's (not stored): its first human seat."""
    if match_record.creator_id is None:
        humans = [s for s in seats if s is not None and s.user_id is not None]
        return (humans[0].user_id or 0, humans[0].name) if humans else (0, "")
    if match_record.creator_id == 0:  # nobody's table (a league night's): only admins may /stop it
        return 0, ""
    seated = next((s for s in seats if s is not None and s.user_id == match_record.creator_id), None)
    player = await db.players.get(match_record.creator_id) if seated is None else None
    return match_record.creator_id, seated.name if seated else player.display_name if player else "?"


async def fill_titles(tables: Tables, db: Database, bot: Bot) -> None:
    """The titles of tables resumed from older matches (none stored), asked of Telegram one at a time, after
    polling has started: a slow getChat never holds a press. A title not learned stays empty."""
    for table in tables.all():
        if table.title:
            continue
        try:
            table.title = (await bot.get_chat(table.chat_id)).title or ""
        except TelegramError as e:
            log.info("chat %s: title not learned (%s)", table.chat_id, e)


async def _rebuilt_table(
    tables: Tables, db: Database, match_record: StoredMatch, record: HandRecord, actions: list[Action]
) -> Table:
    """The table of a stored match, with ``record``'s hand replayed from ``actions``."""
    settings = await db.chats.get(match_record.chat_id)
    seats = await _stored_seats(db, match_record, settings.language)
    creator_id, creator_name = await _creator(db, match_record, seats)
    table = Table(
        key=_key(match_record),
        title=match_record.title or "",  # an older match's: asked of Telegram once polling runs (fill_titles)
        creator_id=creator_id,
        creator_name=creator_name,
        hands_planned=match_record.hands_planned,
        seats=seats,
        session=match_record.league_night_id is not None,  # its night's session takes it up (LeagueNights.start)
    )
    table.follow(group_settings(settings), tables.options)
    if table.key.is_quick:  # no group to have a language: its first person's, as when it was matched
        table.lang = next((s.lang for s in seats if s is not None and s.user_id is not None), table.lang)
    match = Match(match_record.rules, match_record.seed, record.dealer)
    match.hands_played = record.hand_no - 1
    table.match, table.match_id, table.totals = match, match_record.id, list(match_record.totals)
    table.hand_number = record.hand_no
    table.commitment = record.commitment
    table.start_hand(match.resume_hand(record.seed, actions), record.id, tables.clock())
    return table


async def _between(tables: Tables, db: Database, match_record: StoredMatch) -> Table | None:
    """A match stopped between two hands: its last hand settled, the next one on its way (None: stopped before
    its first deal, nothing to take up)."""
    last = await db.hands.latest(match_record.id)
    if last is None or last.status != "done":
        await db.matches.finish(match_record.id, "abandoned")
        return None
    actions = [Action.from_json(a) for a in await db.hands.actions(last.id)]
    table = await _rebuilt_table(tables, db, match_record, last, actions)
    assert table.match is not None and table.hand is not None
    table.match.finish_hand(table.hand)  # the dealer rotates as it did before the restart
    reveal = await db.hands.reveal(last.id)
    table.proof = (last.share_code or "", reveal.text if reveal is not None else "")
    table.state = "between"
    return table

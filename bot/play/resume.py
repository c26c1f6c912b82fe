"""Resume after a restart: every table that was playing is rebuilt from storage and goes on.

Unfinished hands are rebuilt by replaying their stored actions (``Hand.replay``); matches stopped between two
hands wait for the next one. Each player's and the group's view is re-sent as a new message.

    resumed = await resume_tables(manager)      # once, at start-up (bot.app): no request to Telegram
    await fill_titles(manager)                  # in the background: older matches' titles (none stored)
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import TYPE_CHECKING

from telegram.error import TelegramError

from bot.i18n import t
from bot.play.table_key import TableKey
from bot.play.table_state import Seat, Table
from bot.views.game_views import automatic_name, result_content, seat_content, spectator_content
from game.actions import Action
from game.match import Match
from game.table import IllegalAction
from storage.errors import StorageError
from storage.hands import HandRecord
from storage.matches import Match as StoredMatch

if TYPE_CHECKING:
    from bot.play.manager import TableManager

log = logging.getLogger(__name__)
_UNRESUMABLE = (IllegalAction, ValueError, StorageError, TelegramError)


async def resume_tables(manager: TableManager) -> int:
    """Take up every table that was playing; how many tables resumed."""
    resumed = 0
    for stored in await manager.db.hands.unfinished():
        record, match_record = stored.hand, stored.match
        try:
            await _resume_hand(manager, match_record, record, [Action.from_json(a) for a in stored.actions])
            resumed += 1
        except _UNRESUMABLE as e:
            log.error("hand %s of chat %s cannot be resumed (%s); abandoning it", record.id, record.chat_id, e)
            await _abandon(manager, match_record)
    for match_record in await manager.db.matches.all_running():
        if _key(match_record) in manager.tables:
            continue
        try:
            resumed += await _resume_between(manager, match_record)
        except _UNRESUMABLE as e:
            log.error(
                "match %s of chat %s cannot be resumed (%s); abandoning it", match_record.id, match_record.chat_id, e
            )
            await _abandon(manager, match_record)
    return resumed


def _key(match_record: StoredMatch) -> TableKey:
    return TableKey(match_record.chat_id, match_record.thread_id)


async def _adopt_messages(manager: TableManager, table: Table) -> None:
    """The outbox takes up the table's messages sent before the restart (the group's and its players')."""
    key = table.key
    group = {key.slot(name) for name in ("lobby", "spectator", "result")}
    private = {key.private_slot(name) for name in ("hand", "result")}
    chats = [table.chat_id, *(s.user_id or 0 for _, s in table.humans())]
    for m in await manager.db.live_messages.of_chats(chats):
        if m.slot in (group if m.chat_id == table.chat_id else private):
            manager.outbox.adopt(m.chat_id, m.slot, m.message_id, is_photo=m.is_photo)


async def _abandon(manager: TableManager, match_record: StoredMatch) -> None:
    with contextlib.suppress(StorageError):
        await manager.db.matches.finish(match_record.id, "abandoned")


async def _stored_seats(manager: TableManager, match_record: StoredMatch, lang: str) -> list[Seat | None]:
    seats: list[Seat | None] = []
    for i, stored_seat in enumerate(match_record.seats):
        if stored_seat.player_id is None:
            seats.append(Seat(None, automatic_name(i, lang)))
        else:
            player = await manager.db.players.get(stored_seat.player_id)
            seats.append(Seat(stored_seat.player_id, player.display_name if player else "?"))
    return seats


async def _creator(manager: TableManager, match_record: StoredMatch, seats: list[Seat | None]) -> tuple[int, str]:
    """(id, name) of who opened the table, as stored; an older match's (not stored): its first human seat."""
    if match_record.creator_id is None:
        humans = [s for s in seats if s is not None and s.user_id is not None]
        return (humans[0].user_id or 0, humans[0].name) if humans else (0, "")
    if match_record.creator_id == 0:  # nobody's table (a league night's): only admins may /stop it
        return 0, ""
    seated = next((s for s in seats if s is not None and s.user_id == match_record.creator_id), None)
    player = await manager.db.players.get(match_record.creator_id) if seated is None else None
    return match_record.creator_id, seated.name if seated else player.display_name if player else "?"


async def fill_titles(manager: TableManager) -> None:
    """The titles of tables resumed from older matches (none stored), asked of Telegram one at a time, after
    polling has started: a slow getChat never holds a press. A title not learned stays empty."""
    for key, table in list(manager.tables.items()):
        if table.title or manager.tables.get(key) is not table:
            continue
        try:
            table.title = (await manager.bot.get_chat(key.chat_id)).title or ""
        except TelegramError as e:
            log.info("chat %s: title not learned (%s)", key.chat_id, e)


async def _rebuilt_table(
    manager: TableManager, match_record: StoredMatch, record: HandRecord, actions: list[Action]
) -> Table:
    """The table of a stored match, with ``record``'s hand replayed from ``actions``."""
    settings = await manager.db.chats.get(match_record.chat_id)
    seats = await _stored_seats(manager, match_record, settings.language)
    creator_id, creator_name = await _creator(manager, match_record, seats)
    table = Table(
        key=_key(match_record),
        title=match_record.title or "",  # an older match's: asked of Telegram once polling runs (fill_titles)
        creator_id=creator_id,
        creator_name=creator_name,
        hands_planned=match_record.hands_planned,
        seats=seats,
    )
    table.follow(settings, manager.config)
    match = Match(match_record.rules, match_record.seed, record.dealer)
    match.hands_played = record.hand_no - 1
    table.match, table.match_id, table.totals = match, match_record.id, list(match_record.totals)
    table.hand_number = record.hand_no
    await manager.learn_languages(table)
    table.commitment = record.commitment
    table.start_hand(match.resume_hand(record.seed, actions), record.id, time.monotonic())
    return table


async def _resume_hand(
    manager: TableManager, match_record: StoredMatch, record: HandRecord, actions: list[Action]
) -> None:
    key = _key(match_record)
    async with manager.locked(key):
        table = await _rebuilt_table(manager, match_record, record, actions)
        assert table.hand is not None
        manager.tables[key] = table
        if table.hand.finished:  # stored to the last action, stopped before the settlement
            await manager.end_hand(table)
            return
        manager.announce(table, t("resumed", table.lang))
        # The messages from before the restart are edited in place: one live message per chat, fresh buttons.
        await _adopt_messages(manager, table)
        for seat, s in table.humans():
            content = seat_content(table, seat)
            manager.outbox.show(s.user_id or 0, key.private_slot("hand"), content, urgent=seat in table.prompts)
        manager.show_group(table, "spectator", spectator_content(table))
        manager.timers.arm(table)


async def _resume_between(manager: TableManager, match_record: StoredMatch) -> int:
    """A match stopped between two hands: its last result shown again, the next hand on its way (1 if so)."""
    key = _key(match_record)
    async with manager.locked(key):
        last = await manager.db.hands.latest(match_record.id)
        if last is None or last.status != "done":  # stopped before its first deal: nothing to take up
            await manager.db.matches.finish(match_record.id, "abandoned")
            return 0
        actions = [Action.from_json(a) for a in await manager.db.hands.actions(last.id)]
        table = await _rebuilt_table(manager, match_record, last, actions)
        assert table.match is not None and table.hand is not None
        table.match.finish_hand(table.hand)  # the dealer rotates as it did before the restart
        reveal = await manager.db.hands.reveal(last.id)
        table.proof = (last.share_code or "", reveal.text if reveal is not None else "")
        manager.tables[key] = table
        if table.match.hands_played >= table.hands_planned:
            await manager.finish(table, "done")
            return 0
        table.state, table.between_since, table.prompts = "between", time.monotonic(), {}
        seconds = round(manager.config.next_hand_seconds)
        manager.announce(table, t("resumed_between", table.lang, seconds=seconds))
        await _adopt_messages(manager, table)
        for seat, s in table.humans():
            content = result_content(table, manager.config.next_hand_seconds, s.lang, seat)
            manager.outbox.show(s.user_id or 0, key.private_slot("result"), content, urgent=True)
        manager.timers.arm(table)
        return 1

"""The table's core: ``step(table, message, now, options)`` — what one message does to a table, as effects.

Pure: it changes the ``Table`` (``bot.table.state``) it is given and yields effects (``bot.table.effects``);
no I/O, no asyncio, no Telegram, no clock (``now`` comes with the message). Effects that have an answer (a
stored record, a player's language, an automatic player's move) get it sent back in by whoever carries them
out: the runner (``bot.host.runner``) in the bot, a list of made-up answers in a test. The lobby and the
buttons are here; the hand in motion is ``bot.table.hand``.

    steps = step(table, Press(user_id, stamp, "d5m", "en"), now, options)
    effect = next(steps)            # e.g. AppendAction(...); then steps.send(answer) for the next one
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import replace
from typing import Any, Final

from bot.callbacks import AUTO, BadCallback, Stamp, parse_action_code
from bot.i18n import t
from bot.table import effects as fx
from bot.table import hand as flow
from bot.table import messages as msg
from bot.table.effects import Effect
from bot.table.hand import Steps, announce
from bot.table.key import TableKey
from bot.table.options import Options
from bot.table.state import Seat, Table, short_name
from bot.table.texts import automatic_name, seat_label
from game.match import Match
from game.rules import Rules

Answer = Generator[Effect, object, str | None]
MATCH_SEED_BITS = 62


def step(table: Table, message: msg.Message, now: float, options: Options) -> Steps:
    """Take one message: change the table, yield what is to be done (a ``Reply`` answers the sender)."""
    yield from _TAKES[type(message)](table, message, now, options)


def _replying(answer: Answer) -> Steps:
    yield fx.Reply((yield from answer))


def _due(table: Table, message: msg.Due, now: float, options: Options) -> Steps:
    yield from flow.play_due(table, options, now)


def _follow(table: Table, message: msg.FollowSettings, now: float, options: Options) -> Steps:
    if table.state == "lobby":  # nothing dealt yet: the next hand is the first
        yield from flow.follow_settings(table, options)


def _unwritable(table: Table, message: msg.Unwritable, now: float, options: Options) -> Steps:
    yield from flow.finish(table, "abandoned" if table.state == "playing" else "done")
    if message.topic:
        yield fx.DropGroup(topic_only=True)  # the closing's own notices there would only be refused


def absent(message: msg.Message, options: Options) -> str | None:
    """The answer to a message for a table that is not open."""
    match message:
        case msg.Press(lang=lang):
            return t("press_stale", lang)
        case msg.Join(from_private=True, lang=lang):
            return t("start_no_table", lang or options.lang)
        case msg.Join(lang=lang) | msg.Leave(lang=lang) | msg.Begin(lang=lang) | msg.Stop(lang=lang):
            return t("no_table", lang or options.lang)
    return None


# --- the lobby ------------------------------------------------------------------------------------------------
def _open(table: Table, opening: msg.Open, options: Options) -> Steps:
    """/newgame: the table of a group (or of its forum topic), its creator seated if the bot can reach them; the
    lobby is the command's answer."""
    if table.state != "new":
        yield fx.Reply(t("table_exists", opening.lang or table.lang))
        return
    user_id, name = opening.user_id, opening.name
    settings = yield from fx.ask(fx.ReadSettings(table.chat_id))
    table.creator_id, table.creator_name, table.command_id = user_id, short_name(name), opening.command_id
    table.hands_planned, table.state = settings.hands_per_game, "lobby"
    table.follow(settings, options)
    answer = yield from _join(table, msg.Join(user_id, name, lang=opening.lang, elsewhere=opening.elsewhere))
    # The creator sits down first, which the group sees in the lobby: only a refusal is said.
    yield answer if table.seat_of(user_id) is None else fx.Reply(None)
    yield fx.ShowGroup("lobby")


def _join(table: Table, joining: msg.Join) -> Generator[Effect, object, fx.Reply]:
    """Seat a player; the answer. From the group, only once a private message reached them (else: how to start
    me). A refusal speaks the sender's language; "X sits down", the group's."""
    user_id, name, from_private = joining.user_id, joining.name, joining.from_private
    languages = yield from fx.ask(fx.ReadLanguages((user_id,)))  # the handler registered them with their own language
    own = languages.get(user_id, table.lang)
    lang = joining.lang or table.lang
    if table.seat_of(user_id) is not None:
        return fx.Reply(t("already_seated", lang))
    if joining.elsewhere is not None:  # one running table a person (their private chat is one)
        return fx.Reply(t("seated_elsewhere", lang, table=joining.elsewhere))
    if table.state != "lobby":
        return fx.Reply(t("already_playing", lang))
    if None not in table.seats:
        return fx.Reply(t("table_full", lang))
    hello = t("joined_private", own, group=table.title)
    if from_private:
        yield fx.Announce(hello, user_id=user_id)
    elif not (yield from fx.ask(fx.Reach(user_id, hello))):
        return fx.Reply(t("not_reachable", lang, name=name), join_link=True)
    yield fx.SavePlayer(user_id, name)
    seat = table.sit(user_id, name)
    assert seat is not None
    yield fx.ShowGroup("lobby")
    group = table.lang
    return fx.Reply(None if from_private else t("joined", group, name=name, wind=t(f"wind_{seat}", group)))


def _join_answered(table: Table, m: msg.Join) -> Steps:
    yield (yield from _join(table, m))


def _leave(table: Table, leaving: msg.Leave, now: float, options: Options) -> Answer:
    """/leave frees a seat when no hand is running; /flee leaves even a running hand, with the flee penalty."""
    user_id, lang = leaving.user_id, leaving.lang or table.lang
    seat = table.seat_of(user_id)
    if seat is None:
        return t("not_seated", lang)
    if leaving.hand_id is not None and (table.state != "playing" or leaving.hand_id != table.hand_id):
        return t("flee_stale", lang)  # confirmed for a hand that is over: no penalty, and no leaving either
    if table.state != "playing":  # no penalty: RULES.md §10 charges leaving a running hand
        name = table.seat(seat).name
        if table.state == "lobby":
            table.stand(user_id)
            yield fx.ShowGroup("lobby")
        else:  # between hands: an automatic player takes the seat
            yield from flow.replace_seat(table, seat, None, "left")
            yield from flow.end_if_no_humans(table)
        return t("left", table.lang, name=name)
    if not leaving.flee or table.hand_id is None or table.match is None:
        penalty = table.match.rules.flee_penalty if table.match else 0
        return t("hand_running", lang, penalty=penalty)
    yield from flow.flee(table, seat, options, now)
    return None


# --- starting ---------------------------------------------------------------------------------------------------
def _begin(table: Table, user_id: int, lang: str, now: float, options: Options) -> Answer:
    """Deal the first hand: empty seats get automatic players; a notice (in ``lang``) when it cannot start."""
    if table.state != "lobby":
        return t("already_playing", lang)
    if table.seat_of(user_id) is None and user_id != table.creator_id:
        return t("not_seated", lang)
    if not table.humans():
        return t("need_human", lang)
    if None in table.seats and not table.auto_players:
        return t("need_players", lang)
    table.fill_with_automatic(lambda seat: automatic_name(seat, table.lang))
    settings = yield from fx.ask(fx.ReadSettings(table.chat_id))
    yield from _deal(table, settings.rules, None, now, options)
    return None


def _deal(table: Table, rules: Rules, league_night_id: int | None, now: float, options: Options) -> Steps:
    """Store the match with the table's seats (all taken) and deal its first hand."""
    seed = options.match_seed if options.match_seed is not None else (yield from fx.ask(fx.NewSeed(MATCH_SEED_BITS)))
    seats = tuple(fx.Sitter(table.seat(i).user_id, table.auto_level) for i in range(4))
    match_id = yield from fx.ask(fx.CreateMatch(table.chat_id, seed, rules, seats, table.hands_planned,
                                                league_night_id, table.thread_id, table.creator_id,
                                                table.title or None))  # fmt: skip
    table.match, table.match_id = Match(rules, seed), match_id
    yield from flow.start_hand(table, options, now)
    yield fx.ShowGroup("lobby")  # the seats as dealt, without the buttons (an edit in place)


def _open_session(table: Table, message: msg.OpenSession, now: float, options: Options) -> Steps:
    """A league night's table: these seats, dealt at once. Nobody's table (creator 0): only group admins may
    /stop it."""
    yield from _open_seated(table, message.seats, message.rules, message.hands_planned, message.league_night_id,
                            now, options, session=True)  # fmt: skip


def _open_quick(table: Table, message: msg.OpenQuick, now: float, options: Options) -> Steps:
    """A quick match's table (``bot.quick``): the people matched, automatic players in the other seats, dealt at
    once under the preset they chose. It has no group: a group's default settings (``ReadSettings`` of its key
    finds none), and the group's messages go nowhere (``bot.host.edge``)."""
    yield from _open_seated(table, message.seats, message.rules, message.hands_planned, None, now, options,
                            lang=message.lang)  # fmt: skip


def _open_seated(table: Table, seats: tuple[Seat | None, ...], rules: Rules, hands_planned: int,
                 league_night_id: int | None, now: float, options: Options, session: bool = False,
                 lang: str | None = None) -> Steps:  # fmt: skip
    settings = yield from fx.ask(fx.ReadSettings(table.chat_id))
    table.seats, table.hands_planned = list(seats), hands_planned
    table.session, table.state = session, "lobby"
    table.follow(replace(settings, language=lang or settings.language), options)
    table.fill_with_automatic(lambda seat: automatic_name(seat, table.lang))
    yield from _deal(table, rules, league_night_id, now, options)


# --- presses --------------------------------------------------------------------------------------------------
def _press(table: Table, press: msg.Press, now: float, options: Options) -> Answer:
    """A button press; the short notice to answer it with, in the presser's own language (None = none)."""
    lang = press.lang
    if press.code == "start":
        return (yield from _begin(table, press.user_id, lang, now, options))
    seat = table.seat_of(press.user_id)
    if seat is None:
        return t("press_foreign", lang)
    if press.code == "ready":
        return (yield from _ready(table, seat, lang, now, options))
    if press.code == "back":
        return (yield from _back(table, seat, lang, now))
    if table.state != "playing" or table.hand is None:
        return t("press_stale", lang)
    if press.stamp.seat is not None and press.stamp.seat != seat:
        return t("press_foreign", lang)  # another seat's button, forwarded or forged
    if press.code == AUTO:
        return (yield from _tuoguan(table, seat, press.stamp, lang))
    return (yield from _move(table, seat, press, now, options))


def _move(table: Table, seat: int, press: msg.Press, now: float, options: Options) -> Answer:
    """A press of one of the seat's action buttons: played when it is their current, legal decision."""
    lang = press.lang
    try:
        action = parse_action_code(press.code, seat)
    except BadCallback:
        return t("press_stale", lang)
    if table.seat(seat).auto or not table.accepts(seat, press.stamp, action):
        return t("press_stale", lang)
    try:
        yield from flow.play(table, action, options, now, update_id=press.update_id)
    except fx.Refused:
        return t("storage_busy", lang)
    table.seat(seat).missed = 0  # a move of their own: the count of missed turns starts again
    return None


def _pressed(table: Table, press: msg.Press, now: float, options: Options) -> Steps:
    """A press answered; one on the chat's picture, taken or stale, brings that picture up to date at once (it
    lags behind while the person's live page is open: one table on two screens)."""
    answer = yield from _press(table, press, now, options)
    seat = table.seat_of(press.user_id)
    in_play = table.state == "playing" and table.hand is not None and not table.hand.finished
    a_move = press.code not in ("start", "ready", "back")
    if not press.from_page and seat is not None and in_play and a_move and not table.hidden_from(seat):
        yield fx.ShowSeat(seat, urgent=True, chat=True, refused=answer is not None)
    yield fx.Reply(answer)


def _ready(table: Table, seat: int, lang: str, now: float, options: Options) -> Answer:
    if table.state != "between":
        return t("press_stale", lang)
    s = table.seat(seat)
    s.ready, s.auto, s.blocked, s.untold, s.missed = True, False, False, False, 0  # pressing Ready is being back
    # Everyone is waited for, 托管 or not (up to the usual pause): only one the bot cannot write to is not.
    if all(s.ready for _, s in table.humans() if not s.blocked):
        yield from flow.start_hand(table, options, now)
    return t("press_ok", lang)


def _tuoguan(table: Table, seat: int, stamp: Stamp, lang: str) -> Answer:
    """托管 when asked, on the buttons of a decision: the automatic player plays that decision (due at once) and
    the next ones, until 我回来了 or Ready. The group is told as of a timeout's 托管, on a turn at once; asked
    during a claim prompt, at their next turn, since a notice (or a group picture) then would say they could
    claim."""
    s, hand = table.seat(seat), table.hand
    assert hand is not None
    if s.auto or seat not in table.prompts or stamp != table.stamp(seat):
        return t("press_stale", lang)
    s.auto = True
    table.tuoguan[seat] += 1
    if hand.phase == "turn":
        yield announce(table, "announce_tuoguan_asked", seat=seat_label(table, seat))
        yield from flow.publish(table, {seat})
    else:
        s.untold = True
        yield fx.ShowSeat(seat, urgent=True)  # their own picture only: the group sees nothing new
    return t("tuoguan_asked_ok", lang)


def _back(table: Table, seat: int, lang: str, now: float) -> Answer:
    s = table.seat(seat)
    if not s.auto:
        return t("press_stale", lang)
    s.auto = s.blocked = s.untold = False
    s.missed = 0
    if table.state == "playing":
        prompt = table.prompts.get(seat)
        if prompt is not None:
            prompt.since = now  # a fresh timer for the decision in front of them
        yield from flow.publish(table, {seat})
    return t("back_ok", lang)


def _stop(table: Table, stopping: msg.Stop) -> Answer:
    if stopping.user_id != table.creator_id and not stopping.is_admin:
        return t("stop_denied", stopping.lang or table.lang)
    yield from flow.finish(table, "abandoned" if table.state == "playing" else "done")
    return None


# --- what happens to the chats --------------------------------------------------------------------------------
def _migrate(table: Table, new: int) -> Steps:
    """The group is the supergroup ``new``: storage first (one transaction), then the table, its timer and its
    messages follow; play goes on there (old buttons are stale, new ones come). A group that can be upgraded has
    no topics: its one table is keyed by the group alone."""
    before, after = table.key, TableKey(new)
    moved = yield from fx.ask(fx.MoveChat(before.chat_id, new))
    slots = tuple((s.user_id or 0, before.private_slot("hand"), after.private_slot("hand")) for _, s in table.humans())
    yield fx.MoveMessages(before.chat_id, new, slots)
    yield fx.Log("migrated", {"table": before.chat_id, "to": new, "stored": moved})
    table.key = after
    yield fx.Rekey(before, after)
    if table.state == "lobby":
        yield fx.ShowGroup("lobby")
    elif table.state == "playing" and table.hand is not None:
        yield from flow.publish(table, set(range(4)))  # buttons naming the new chat


def _unreachable_player(table: Table, user_id: int) -> Steps:
    """A player who blocked the bot: 托管 while the hand runs, told in the group; they take their seat back with
    我回来了 once they unblock it (the outbox writes to them again when they write or press)."""
    seat = table.seat_of(user_id)
    if seat is None or table.state != "playing" or table.seat(seat).blocked:
        return
    s = table.seat(seat)  # told even when 托管 already (a timeout): they cannot read its "I'm back" button
    s.auto = s.blocked = True
    yield announce(table, "announce_unreachable", seat=seat_label(table, seat))


def _refresh(table: Table, user_id: int) -> Steps:
    """A player back from the Mini App's page: their picture where the hand stands (while the 海底 is decided,
    only by the seat asked: nobody else may learn that it can be won)."""
    seat = table.seat_of(user_id)
    hand = table.hand
    if seat is None or table.state != "playing" or hand is None or hand.finished:
        return
    if not table.hidden_from(seat):
        yield fx.ShowSeat(seat, urgent=True)


def _resumed(table: Table, now: float, options: Options) -> Steps:
    """A table rebuilt from storage after a restart: its chats shown where it stands (the messages from before
    the restart are edited in place: one live message per chat, fresh buttons)."""
    assert table.match is not None and table.hand is not None
    if table.state == "playing" and table.hand.finished:  # stored to the last action, stopped before settling
        yield from flow.end_hand(table, options, now)
    elif table.state == "playing":
        yield announce(table, "resumed")
        for seat, _ in table.humans():
            yield fx.ShowSeat(seat, urgent=seat in table.prompts)
        yield fx.ShowGroup("spectator")
    elif table.match.hands_played >= table.hands_planned:  # between hands, the last one played
        yield from flow.finish(table, "done")
    else:  # between two hands: the last result again, the next hand on its way
        table.between_since, table.prompts = now, {}
        yield announce(table, "resumed_between", seconds=round(options.next_hand_seconds))
        for seat, _ in table.humans():
            yield fx.ShowResult(seat, options.next_hand_seconds, picture=False)


# What each message does: one entry a kind of message (``bot.table.messages``).
_TAKES: Final[dict[type, Callable[[Table, Any, float, Options], Steps]]] = {
    msg.Open: lambda table, m, now, options: _open(table, m, options),
    msg.OpenSession: _open_session,
    msg.OpenQuick: _open_quick,
    msg.Join: lambda table, m, now, options: _join_answered(table, m),
    msg.Leave: lambda table, m, now, options: _replying(_leave(table, m, now, options)),
    msg.Begin: lambda table, m, now, options: _replying(_begin(table, m.user_id, m.lang or table.lang, now, options)),
    msg.Press: lambda table, m, now, options: _pressed(table, m, now, options),
    msg.Due: _due,
    msg.Stop: lambda table, m, now, options: _replying(_stop(table, m)),
    msg.FollowSettings: _follow,
    msg.Migrated: lambda table, m, now, options: _migrate(table, m.new),
    msg.Unreachable: lambda table, m, now, options: _unreachable_player(table, m.user_id),
    msg.Unwritable: _unwritable,
    msg.Refresh: lambda table, m, now, options: _refresh(table, m.user_id),
    msg.Resumed: lambda table, m, now, options: _resumed(table, now, options),
}

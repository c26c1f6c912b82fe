"""The hand in motion, as the table's core plays it: deal, store → apply → show, what falls due, the end of a
hand, seats changing hands and closing the table. Pure: generators of effects (``bot.table.effects``), the time
given as ``now``; ``bot.table.core`` calls them for the messages it takes.

Every action is stored before it is applied: a store refused leaves the table exactly as it was (nothing to
undo), and the timer tries again after ``RETRY_SECONDS``.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence

from bot.i18n import t
from bot.table import effects as fx
from bot.table import texts
from bot.table.effects import Effect
from bot.table.held import held_draw, hold
from bot.table.options import Options
from bot.table.state import CLAIM_PAUSES, MISSED_TURNS, Seat, Table
from bot.table.texts import automatic_name, seat_label, stopped_text
from game.actions import Action
from game.facts import hand_facts
from game.match import flee_amounts
from game.table import Event
from game.verify import SEED_BITS

Steps = Generator[Effect, object, None]
RETRY_SECONDS = 5.0  # after a store was refused or a timed step failed
SLACK = 0.01  # a timer firing this early counts as on time (the scheduler's clock and the step's differ slightly)


def announce(table: Table, key: str, **fields: object) -> fx.Announce:
    return fx.Announce(t(key, table.lang, **fields))


# --- a new hand -------------------------------------------------------------------------------------------------
def start_hand(table: Table, options: Options, now: float) -> Steps:
    assert table.match is not None and table.match_id is not None
    if table.session:
        seating = yield from fx.ask(fx.AskSeating())
        for seat, new in enumerate(seating):
            if new is None or new.user_id != table.seat(seat).user_id:
                yield from replace_seat(table, seat, new, "sitting_out")
    elif not table.key.is_quick:  # a group's own table: the group's /settings as they are now (a quick one
        yield from follow_settings(table, options)  # keeps the preset it was matched with)
    yield from retire_ready(table)
    # Each hand its own secret seed (a fixed MAHJONG_SEED derives them, so a test match replays exactly).
    seed = None if options.match_seed is not None else (yield from fx.ask(fx.NewSeed(SEED_BITS)))
    hand = table.match.new_hand(seed)
    record = yield from fx.ask(fx.StartHand(table.match_id, hand.seed, hand.dealer))
    table.hand_number, table.commitment = record.hand_no, record.commitment
    yield fx.Log("hand_start", {"table": table.chat_id, "hand": record.id, "number": record.hand_no,
                                "dealer": hand.dealer, "rules": hand.rules.preset})  # fmt: skip
    yield from learn_languages(table)
    yield from count_watchers(table)
    table.start_hand(hand, record.id, now)
    for seat, s in table.humans():  # not carried into a new hand silently: said to the group and to them
        if s.auto:
            s.untold = False  # said now
            yield announce(table, "announce_tuoguan_stays", seat=seat_label(table, seat))
            if not s.blocked:
                yield fx.Announce(t("tuoguan_stays", s.lang), user_id=s.user_id)
    yield from publish(table, set(range(4)), new_hand=True)


def learn_languages(table: Table) -> Steps:
    """Each human's own language (their /lang, else their Telegram one) for their private messages; read
    before every hand, so a /lang between hands applies to the next one."""
    languages = yield from fx.ask(fx.ReadLanguages(tuple(s.user_id or 0 for _, s in table.humans())))
    for _, s in table.humans():
        s.lang = languages.get(s.user_id or 0, s.lang)


def count_watchers(table: Table) -> Steps:
    """Whether anyone but the seated people is in the group (``Table.watched``), asked before every hand: a member
    joining or leaving counts from the next deal; when Telegram does not say, someone is."""
    if table.key.is_quick:  # no group
        return
    members = yield from fx.ask(fx.CountMembers(table.chat_id))
    table.watched = members <= 0 or members - 1 > len(table.humans())  # the bot is a member too


def follow_settings(table: Table, options: Options) -> Steps:
    """Bring a group's own table up to the group's /settings: language, timers, automatic players, rules.

    Before each hand (and when /settings change while the table is a lobby), so a change applies from the next
    hand; the match's stored rules follow, so a resumed match deals under them too."""
    settings = yield from fx.ask(fx.ReadSettings(table.chat_id))
    table.follow(settings, options)
    if table.match is None:  # a lobby: its game is not stored yet, so it is played as long as set now
        table.hands_planned = settings.hands_per_game
    if table.match is not None and table.match_id is not None and table.match.rules != settings.rules:
        yield fx.SetRules(table.match_id, settings.rules)
        table.match.rules = settings.rules


# --- playing ----------------------------------------------------------------------------------------------------
def play(
    table: Table,
    action: Action,
    options: Options,
    now: float,
    also_urgent: Sequence[int] = (),
    update_id: int | None = None,
) -> Steps:
    """Store, apply, then show. A store refused (``Refused`` thrown back in) changes nothing: the action
    may be played again once the fault clears, and the timer tries again in RETRY_SECONDS. ``update_id``: the
    press's update, stored with the action."""
    hand = table.hand
    assert hand is not None and table.hand_id is not None
    try:
        yield fx.AppendAction(table.hand_id, len(hand.actions), action, update_id)
    except fx.Refused:
        table.not_before = now + RETRY_SECONDS
        raise
    window = (hand.phase, hand.claim_by, hand.claim_tile)
    people_asked = any(not table.seat(s).automatic for s in hand.claim_asked)
    prompt = table.prompts.get(action.seat)
    if hand.phase in ("claim", "rob") and prompt is not None and not table.seat(action.seat).automatic:
        table.claim_pauses = [*table.claim_pauses[1 - CLAIM_PAUSES :], now - prompt.since]
    events, changed = table.apply(action, now)
    yield from event_notices(table, events)
    if hand.finished:
        yield from end_hand(table, options, now)
        return
    held = None if people_asked else held_draw(window, action, events)
    if held is not None and hold(table, held, options, now) and events[-1].seat != action.seat:
        changed.discard(events[-1].seat)  # not shown its draw yet: as a seat not asked about a claim window
    yield from publish(table, changed | set(also_urgent), actor=action.seat)


def release(table: Table, now: float) -> Steps:
    """The held draw is shown: the seat that drew is asked (its timer starting now)."""
    table.held = None
    yield from publish(table, table.refresh_prompts(now))


def event_notices(table: Table, events: Sequence[Event]) -> Steps:
    """What the group is told of the events: 碰 and 杠 in its picture's caption (a win or a drawn hand: in the
    result's, ``texts.end_lines``)."""
    for text in texts.event_notices(table, events):
        yield fx.Tell(text, idle=not table.watched)


def publish(table: Table, changed: set[int], *, new_hand: bool = False, actor: int | None = None) -> Steps:
    """The views that changed: a player's picture when their decision changed (urgent when they must act now or
    have just acted, so a press shows at once; lazily when their buttons only went away), and the group's
    picture. A player with nothing to decide sees the table again at their next decision (and live in the
    group): that keeps the writes near one per action. A group whose members all sit at the table
    (``Table.watched`` False) has nobody to show it to but the players, who each have their own: it is written
    at once at the deal (and the end, ``show_the_end``), in between at its idle pace."""
    for seat, s in table.humans():
        if (seat in changed or new_hand) and not table.hidden_from(seat):
            # Each hand has a message of its own: the last one's result stays readable above it.
            urgent = seat in table.prompts or s.auto or seat == actor
            yield fx.ShowSeat(seat, urgent=urgent, fresh=new_hand)
    if not table.hidden_from(None):
        yield fx.ShowGroup("spectator", fresh=new_hand, idle=not (new_hand or table.watched))


def play_due(table: Table, options: Options, now: float) -> Steps:
    """Play the decision that is due (an automatic player's, a timeout), settle a hand whose settlement failed,
    or start the next hand when its time has come. One at a time: the next one due is the next message, with
    its own time (a press may come in between)."""
    if now < table.not_before:
        return
    if table.state == "playing" and table.hand is not None and table.hand.finished:
        yield from end_hand(table, options, now)  # its settlement was refused before
        return
    if table.state == "between":
        yield from _between_due(table, options, now)
        return
    if table.state == "playing" and table.held is not None:
        if now >= table.held.until - SLACK:
            yield from release(table, now)
        return
    if table.state == "playing" and table.hand is not None:
        due = table.next_due(options.bot_delay)
        if due is None or due[0] > now + SLACK:
            return
        if table.warning(due[1]) is not None:  # once, before the timer runs out: in the person's caption
            table.prompts[due[1]].warned = True
            yield fx.ShowSeat(due[1], urgent=True)
            return
        action, urgent = yield from due_action(table, due[1])
        yield from play(table, action, options, now, urgent)


def due_action(table: Table, seat: int) -> Generator[Effect, object, tuple[Action, tuple[int, ...]]]:
    """What a due seat plays: the automatic player's choice, a timed-out claim's pass, or a timed-out turn's
    one move (托管 from the ``MISSED_TURNS``-th in a row on)."""
    hand = table.hand
    assert hand is not None
    s = table.seat(seat)
    if not s.automatic and hand.phase != "turn":  # silence on a claim is a pass (RULES.md §5)
        return Action(seat, "pass"), ()
    urgent: tuple[int, ...] = ()
    if s.untold and hand.phase == "turn":  # 托管 asked during a claim prompt: said now, at their own turn
        s.untold = False
        yield announce(table, "announce_tuoguan_asked", seat=seat_label(table, seat))
    if not s.automatic:
        s.missed += 1
        urgent = (seat,)  # their picture says what was played for them
        if s.missed >= MISSED_TURNS:
            s.auto = True
            table.tuoguan[seat] += 1
            yield announce(table, "announce_tuoguan", seat=seat_label(table, seat))
    action = yield from fx.ask(decision(table, seat))
    return action, urgent


def decision(table: Table, seat: int) -> fx.Decide:
    """What ``seat``'s automatic player (or 托管, at the group's level too) is asked to decide now."""
    hand = table.hand
    assert hand is not None
    return fx.Decide(hand.view(seat), table.auto_level, hand.seed ^ len(hand.actions))


def foreseen(table: Table, options: Options) -> fx.Decide | None:
    """The decision the table's next ``Due`` will ask for, when it is an automatic player's turn waiting out its
    delay: the shell may think it out meanwhile (bot.host.runner), so that the move comes when the delay ends, not
    a search later. None when the next due is anything else (a claim is decided at once, a person's timer)."""
    hand = table.hand
    if table.state != "playing" or hand is None or hand.finished or table.held is not None:
        return None
    due = table.next_due(options.bot_delay)
    if due is None or not table.seat(due[1]).automatic or hand.phase != "turn":
        return None
    return decision(table, due[1])


def _between_due(table: Table, options: Options, now: float) -> Steps:
    """Between hands: the next hand when its time has come; after the last one, the match closed in storage (its
    close was refused: tried again, never another hand dealt)."""
    if table.closing:
        yield from finish(table, "done")
    elif now >= table.between_since + options.next_hand_seconds - SLACK:
        yield from start_hand(table, options, now)


def due_at(table: Table, options: Options) -> float | None:
    """When the table next needs its timer, or None when it waits for nobody."""
    if table.state == "playing" and table.hand is not None and table.hand.finished:
        when: float | None = table.not_before  # a settlement to try again
    elif table.state == "playing" and table.held is not None:
        when = table.held.until
    elif table.state == "playing":
        due = table.next_due(options.bot_delay)
        when = None if due is None else due[0]
    elif table.state == "between":
        when = table.not_before if table.closing else table.between_since + options.next_hand_seconds
    else:
        return None
    return None if when is None else max(when, table.not_before)


# --- the end of a hand ----------------------------------------------------------------------------------------
def end_hand(table: Table, options: Options, now: float) -> Steps:
    hand, match = table.hand, table.match
    assert hand is not None and match is not None and table.hand_id is not None
    result = hand.result
    # Settled in storage first: should that fail, nothing has changed here and the timer tries again.
    try:
        settled = yield from fx.ask(
            fx.CloseHand(
                table.hand_id,
                result.payments if result is not None else (0, 0, 0, 0),
                result.winner if result is not None else None,
                result.to_json() if result is not None else {"exhausted": True},
                facts=hand_facts(hand),
                tuoguan=tuple(table.tuoguan),
            )
        )
    except fx.Refused:
        table.not_before = now + RETRY_SECONDS
        raise
    match.finish_hand(hand)
    table.totals = list(settled.totals)  # storage adds the flee penalties it holds: its totals are the truth
    table.proof = (settled.share_code, settled.reveal)
    yield fx.Log("hand_end", {"table": table.chat_id, "hand": table.hand_id,
                              "winner": result.winner if result else None,
                              "payments": ",".join(str(points) for points in settled.points),
                              "patterns": ",".join(result.patterns) if result else None,
                              "exhausted": hand.exhausted or None})  # fmt: skip
    table.state, table.between_since, table.prompts = "between", now, {}
    # Shown in the results (a player's own change privately, promotions in the group's): no messages.
    table.title_changes = dict(settled.title_changes)
    last = table.match_over() or (table.session and (yield from fx.ask(fx.AskOver())))
    yield from show_the_end(table, None if last else options.next_hand_seconds)
    if last:
        table.closing = True
        try:
            yield from finish(table, "done")
        except fx.Refused:  # the match stays open in storage: the timer closes it, never deals another hand
            table.not_before = now + RETRY_SECONDS
            raise


def show_the_end(table: Table, next_seconds: float | None) -> Steps:
    """Every message of the hand becomes its result, edited in place (no buttons of the hand, nobody waited for):
    the group's picture, each player's with Ready (``next_seconds``)."""
    yield fx.ShowGroup("result")
    for seat, _ in table.humans():
        yield fx.ShowResult(seat, next_seconds)


def retire_ready(table: Table, seat: int | None = None) -> Steps:
    """A finished hand's private results offer Ready only until the next hand starts, the table ends or the
    player leaves: then each (``seat``: that one's) shows the result alone, edited in place."""
    hand = table.hand
    if table.state != "between" or hand is None or not hand.finished or table.proof is None:
        return  # no result with a Ready button is out
    if table.match_over():
        return  # the last hand's results offered none
    for i, _ in table.humans():
        if seat is None or i == seat:
            yield fx.ShowResult(i, None, picture=False)


# --- seats changing hands, closing ------------------------------------------------------------------------------
def replace_seat(table: Table, seat: int, new: Seat | None, farewell: str, *, stored: bool = False) -> Steps:
    """Someone else (None: an automatic player) takes a seat for the next hands; the one leaving it is told
    (the text ``farewell``, in their own language). ``stored``: storage gave the seat away already (a flight)."""
    old = table.seat(seat)
    if new is None and old.user_id is None:
        return  # an automatic player stays an automatic player
    if table.match_id is not None and not stored:  # stored before the table changes: a refusal changes nothing
        yield fx.ReplaceSeat(table.match_id, seat, fx.Sitter(new.user_id if new else None, table.auto_level))
    yield from retire_ready(table, seat)
    if old.user_id is not None and table.state == "playing" and table.hand is not None:
        # Their picture keeps its last state without buttons; the seat is no longer theirs to play.
        yield fx.ShowSeat(seat, user_id=old.user_id, lang=old.lang, left=True)
    table.seats[seat] = new or Seat(None, automatic_name(seat, table.lang))
    if new is None and old.user_id is not None:
        table.left_by.setdefault(seat, old.name)
    if old.user_id is not None:
        yield fx.Announce(t(farewell, old.lang, name=old.name), user_id=old.user_id)
        yield fx.Forget(table.key.private_slot("hand"), old.user_id)


def flee(table: Table, seat: int, options: Options, now: float) -> Steps:
    """A player leaves a running hand with the flee penalty (RULES.md §10)."""
    assert table.match is not None and table.hand_id is not None
    label, penalty = seat_label(table, seat), table.match.rules.flee_penalty
    # The penalty and the freed seat in one transaction, before anyone is told (settled with this hand by
    # storage): a crash leaves either both or neither, and the seat, given away, cannot flee twice.
    yield fx.StoreFlee(table.hand_id, seat, tuple(flee_amounts(penalty, seat)), table.auto_level)
    yield from replace_seat(table, seat, None, "left", stored=True)
    yield announce(table, "announce_flee", seat=label, penalty=penalty)
    if not (yield from end_if_no_humans(table)) and table.state == "playing":
        yield from publish(table, set())


def end_if_no_humans(table: Table) -> Generator[Effect, object, bool]:
    if table.humans():
        return False
    yield from finish(table, "abandoned" if table.state == "playing" else "done")
    return True


def finish(table: Table, status: str) -> Steps:
    """End the table: storage's match closed, the summary in the group, every private message closed."""
    yield from retire_ready(table)
    if table.match is None or table.match_id is None:
        yield fx.ShowGroup("closed")
    else:
        if table.state == "playing" and table.hand is not None:  # every picture of the hand: its last state
            yield fx.ShowGroup("spectator", stopped=True)
            for seat, _ in table.humans():
                yield fx.ShowSeat(seat, stopped=True)
        status = yield from close_match(table, status)
        # A session's seats change hands, so it tells the results its own way; a quick table has no group.
        if not table.session and not table.key.is_quick:
            yield fx.Announce(stopped_text(table))
        for _, s in table.humans():  # in each one's own language
            yield fx.Announce(stopped_text(table, s.lang), user_id=s.user_id)
    for _, s in table.humans():  # its messages keep no state in the outbox once their last writes are out
        yield fx.Forget(table.key.private_slot("hand"), s.user_id)
    for slot in ("lobby", "spectator"):
        yield fx.Forget(table.key.slot(slot))
    table.state = "closed"
    if table.session:
        yield fx.SessionClosed(status)
    yield fx.Closed()


def close_match(table: Table, status: str) -> Generator[Effect, object, str]:
    """Close the match in storage; the status it closed with."""
    assert table.match_id is not None
    if table.state == "playing" and table.hand_id is not None:
        penalties = yield from fx.ask(fx.ReadPenalties(table.hand_id))
        if any(penalties):
            # A stopped hand with a flight in it is settled with the penalty alone, so nobody escapes it.
            settled = yield from fx.ask(
                fx.CloseHand(table.hand_id, (0, 0, 0, 0), None, {"stopped": True, "flee": list(penalties)})
            )
            table.totals = list(settled.totals)
            status = "done"
    yield fx.FinishMatch(table.match_id, "done" if status == "done" else "abandoned")
    return status

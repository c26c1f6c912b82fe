"""What each chat is shown: captions, buttons and (rendered on sending) pictures, built from a Table.

Everything here is a pure function of the table's state at call time: the SeatView snapshots are taken
now, the pictures are rendered later by the outbox from those snapshots (so coalesced states cost nothing).
A player's content only ever comes from ``shown_view(hand, their seat, held)``; the group's only from
``shown_view(hand, None, held)`` (``hand.view``, as before a draw the table holds back).
"""

from __future__ import annotations

from collections.abc import Sequence

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import AUTO, FleeButton, PlayButton, Stamp, code_of, review_data
from bot.i18n import pick, t
from bot.outbox import Content
from bot.table.key import TableKey
from bot.table.state import MISSED_TURNS, WARN_SECONDS, Table
from bot.table.texts import end_lines, seat_label, seat_names
from bot.views.public_view import shown_view
from bot.views.quick_views import play_button
from bot.views.rows import rows_by_width
from game.actions import Action
from game.tiles import HONGZHONG, SUIT_EN_SHORT, Tile, parse_tile, rank_of, suit_of, tile_cn, tile_label, tile_short
from game.view import SeatView
from rendering import render_exhausted, render_result, render_spectator_view, render_table_view
from rendering.labels import Lang

# Action buttons in the order they are offered, before the discard buttons.
_ORDER = ("hu", "chong_gang", "peng", "chi", "an_gang", "xu_gang", "hongzhong_gang", "laizi_gang", "pass")


def picture_lang(lang: str) -> Lang:
    """The pictures speak zh or en; any other language gets the Chinese ones."""
    return "en" if lang == "en" else "zh"


def action_label(action: Action, lang: str) -> str:
    tile = action.tile
    if action.kind == "chi" and tile is not None:
        ranks = "".join(str(rank_of(tile) + k) for k in range(3))
        suit = tile_cn(tile)[-1] if lang == "zh" else SUIT_EN_SHORT[suit_of(tile)]
        return t("btn_chi", lang, tiles=ranks + suit if lang == "zh" else f"{'-'.join(ranks)} {suit}")
    if tile is None:
        return t(f"btn_{action.kind}", lang)
    return t(f"btn_{action.kind}", lang, tile=tile_short(tile, lang))


def ordered_actions(legal: Sequence[Action]) -> list[Action]:
    """Legal actions in the order they are offered: special actions first (``_ORDER``), then the discards."""
    special = sorted((a for a in legal if a.kind != "discard"), key=lambda a: (_ORDER.index(a.kind), a.tile or 0))
    discards = sorted((a for a in legal if a.kind == "discard"), key=lambda a: a.tile or 0)
    return special + discards


def action_keyboard(table: Table, seat: int, lang: str) -> list[list[InlineKeyboardButton]]:
    """One button per legal action of the seat's current prompt: special actions first, then the discards, each
    in rows sized by their labels."""
    prompt = table.prompts.get(seat)
    if prompt is None:
        return []
    stamp = table.stamp(seat)

    def button(action: Action, label: str) -> InlineKeyboardButton:
        return InlineKeyboardButton(label, callback_data=PlayButton(table.key, stamp, code_of(action)).encode())

    assert table.hand is not None  # a prompt is a decision in the hand
    actions = ordered_actions(prompt.legal)
    special = [button(a, button_label(a, table.hand.laizi, lang)) for a in actions if a.kind != "discard"]
    discards = [button(a, button_label(a, table.hand.laizi, lang)) for a in actions if a.kind == "discard"]
    # 托管 when asked, stamped with this decision like its actions (an old one is stale)
    auto = InlineKeyboardButton(t("btn_auto", lang), callback_data=PlayButton(table.key, stamp, AUTO).encode())
    return rows_by_width([*special, auto]) + rows_by_width(discards)


def button_label(action: Action, laizi: Tile, lang: str) -> str:
    """An action's words on its button (or the live table's): a discard its tile, a throw of 红中 or 赖子 saying
    so; anything else what it is."""
    if action.kind == "discard" and action.tile is not None:
        return discard_label(action.tile, (HONGZHONG, laizi), lang)
    return action_label(action, lang)


def discard_label(tile: int, thrown: Sequence[int], lang: str) -> str:
    """A discard's button: the tile, or for a 红中 or 赖子 a throw that counts ×2 (RULES.md §4)."""
    return t("btn_throw", lang, tile=tile_short(tile, lang)) if tile in thrown else tile_short(tile, lang)


def command_button(table: Table, code: str, label_key: str, lang: str | None = None) -> InlineKeyboardButton:
    label = t(label_key, lang or table.lang)
    return InlineKeyboardButton(label, callback_data=PlayButton(table.key, Stamp(), code).encode())


def _prompt_line(table: Table, seat: int, lang: str) -> str:
    hand = table.hand
    assert hand is not None
    claim_seconds, turn_seconds = table.claim_seconds, table.turn_seconds
    if seat not in table.prompts:  # refreshed lazily: whom the table waits for would soon be out of date
        return ""
    if hand.phase == "turn" and table.prompts[seat].warned:
        return t("your_turn_hurry", lang, seconds=round(min(WARN_SECONDS, turn_seconds / 2)))
    if hand.phase == "turn":
        return t("your_turn", lang, seconds=round(turn_seconds))
    view_discard = hand.view(seat).last_discard
    seconds = round(claim_seconds)
    if hand.phase == "claim" and view_discard is not None:
        by, tile = view_discard
        return t("your_claim", lang, seat=seat_label(table, by, lang), tile=tile_label(tile, lang), seconds=seconds)
    if hand.phase == "rob":
        claimable = hand.view(seat).claimable
        label = tile_label(claimable, lang) if claimable is not None else ""
        return t("your_rob", lang, seat=seat_label(table, hand.view(None).turn, lang), tile=label, seconds=seconds)
    return t("your_haidi", lang, seconds=seconds)


def seat_content(
    table: Table, seat: int, *, lang: str | None = None, stopped: bool = False, left: bool = False
) -> Content:
    """A player's one private message: the table from their seat, with buttons for exactly their legal actions,
    in the player's own language (or ``lang``). Its last state, no buttons: ``stopped`` (the game ended) or
    ``left`` (they left it: the game goes on for the others)."""
    hand = table.hand
    assert hand is not None
    s = table.seat(seat)
    lang = lang or s.lang
    view = shown_view(hand, seat, table.held)
    dealer = t("dealer_mark", lang) if hand.dealer == seat else ""
    lines = [
        t(
            "caption_seat",
            lang,
            group=table.title,
            wind=t(f"wind_{seat}", lang),
            dealer=dealer,
            laizi=tile_label(hand.laizi, lang),
            wall=view.wall_remaining,
        )
    ]
    rows: list[list[InlineKeyboardButton]] = []
    if stopped or left:
        lines.append(t("seat_left" if left else "seat_stopped", lang))
    elif hand.finished:  # its last state: the result follows as a message of its own
        lines.append(t("seat_hand_over", lang))
    elif s.auto:
        lines.append(t("tuoguan_on" if s.missed >= MISSED_TURNS else "tuoguan_asked_on", lang))
        rows.append([command_button(table, "back", "btn_back", lang)])
    else:
        lines.append(_prompt_line(table, seat, lang))
        if s.missed:  # the automatic player played their last turn: one more in a row and it plays on
            lines.append(t("missed_turn", lang, turns=MISSED_TURNS))
        rows = action_keyboard(table, seat, lang)
    names, scores = seat_names(table, lang), list(table.totals)
    return Content(
        "\n".join(line for line in lines if line),
        InlineKeyboardMarkup(rows) if rows else None,
        render=lambda: render_table_view(view, names, scores, picture_lang(lang)),
    )


def _public_status(table: Table, view: SeatView, stopped: bool) -> str:
    """What everyone may know of whom the table waits for: whose turn it is, or the discard (or 蓄杠) on the
    table, never who is deciding a claim or could win the 海底."""
    if stopped:
        return t("status_stopped", table.lang)
    return public_status(table, view, table.lang)


def public_status(table: Table, view: SeatView, lang: str) -> str:
    """Whose turn it is; after a discard (or a 蓄杠) whose draw has not come yet, that tile, whether or not
    anybody may claim it (README: what a pause tells); the 海底; the hand over."""
    if view.phase == "turn":
        return t("status_turn", lang, seat=seat_label(table, view.turn, lang))
    if view.phase in ("claim", "rob"):
        tile = window_tile(table)
        key = "status_discard" if view.phase == "claim" else "status_kong"
        return t(key, lang, seat=seat_label(table, view.turn, lang), tile=tile_label(tile, lang))
    return t("status_haidi" if view.phase == "haidi" else "status_over", lang)


def window_tile(table: Table) -> int:
    """The tile discarded (or added to a kong) whose draw has not come yet."""
    assert table.hand is not None
    tile = table.held.tile if table.held is not None else table.hand.claim_tile
    assert tile is not None
    return tile


def spectator_content(table: Table, *, stopped: bool = False) -> Content:
    """The group's picture of the table; ``stopped``: its last state once the game has ended."""
    hand = table.hand
    assert hand is not None
    lang = table.lang
    view = shown_view(hand, None, table.held)
    caption = t(
        "spectator_caption",
        lang,
        number=table.hand_number,
        dealer=seat_label(table, hand.dealer),
        laizi=tile_label(hand.laizi, lang),
        wall=view.wall_remaining,
        status=_public_status(table, view, stopped),
    )
    if table.commitment and not stopped:
        caption += "\n" + t("deal_commitment", lang, commitment=table.commitment)
    names, scores = seat_names(table, lang), list(table.totals)
    return Content(caption, None, render=lambda: render_spectator_view(view, names, scores, picture_lang(lang)))


def _title_lines(table: Table, viewer: int | None, lang: str) -> list[str]:
    """The titles the hand changed: a player's own change (up or down) for them, the promotions for the group."""
    changes = table.title_changes
    if viewer is not None:
        if viewer not in changes:
            return []
        before, after = changes[viewer]
        return [t("title_own_change", lang, before=pick(before, lang), after=pick(after, lang))]
    return [
        t("title_changed", lang, seat=seat_label(table, s, lang), title=pick(changes[s][1], lang))
        for s in table.promotions()
    ]


def result_content(
    table: Table, next_seconds: float | None, lang: str | None = None, viewer: int | None = None
) -> Content:
    """The end of a hand: the result picture, how it ended, everyone's points and running totals; with ``next_seconds``,
    a Ready button and when the next hand starts anyway. In the table's language unless ``lang`` (a player's);
    ``viewer``: the player's seat (their own title change is told), None: the group's (promotions only)."""
    hand = table.hand
    assert hand is not None and hand.finished
    lang = lang or table.lang
    view = hand.view(None)
    totals = list(table.totals)
    lines = "\n".join([*end_lines(table, lang), *result_lines(table, lang)])  # how it ended, then the points
    caption = "\n".join(
        [t("result_caption", lang, number=table.hand_number, lines=lines), *_title_lines(table, viewer, lang)]
    )
    if table.proof is not None:
        code, reveal = table.proof
        caption += "\n" + t("result_proof", lang, code=code, reveal=reveal or "-")
    rows: list[list[InlineKeyboardButton]] = []
    if next_seconds is not None:
        caption += "\n" + t("next_hand", lang, seconds=round(next_seconds))
        rows.append([command_button(table, "ready", "btn_ready", lang)])
    if viewer is not None and table.proof is not None:  # a player's own result: a review of their play
        rows.append([InlineKeyboardButton(t("btn_review", lang), callback_data=review_data(table.proof[0]))])
    if viewer is not None and table.match_over():  # the match is over: another one, with anyone (bot.quick)
        rows.append([play_button(lang)])
    markup = InlineKeyboardMarkup(rows) if rows else None
    names = seat_names(table, lang)
    if hand.result is None:
        return Content(caption, markup, render=lambda: render_exhausted(view, names, picture_lang(lang), totals))
    wins = [e for e in hand.log if e.kind == "win"]
    win_tile = parse_tile(wins[-1].data["tile"]) if wins else None
    return Content(caption, markup, render=lambda: render_result(view, names, picture_lang(lang), win_tile, totals))


def result_lines(table: Table, lang: str) -> list[str]:
    """Each seat's points in the hand just over and its running total, as the result's caption (and the live
    table's result panel) says them."""
    assert table.hand is not None
    result = table.hand.result
    payments = result.payments if result is not None else (0, 0, 0, 0)
    return [
        t("result_line", lang, seat=seat_label(table, s, lang), delta=payments[s], total=table.totals[s])
        for s in range(4)
    ]


def lobby_content(table: Table, bot_username: str) -> Content:
    lang = table.lang
    seats = "\n".join(
        f"{t(f'wind_{i}', lang)}: {s.name if s is not None else t('seat_empty', lang)}"
        for i, s in enumerate(table.seats)
    )
    if table.state != "lobby":  # a league night's table has no creator
        if not table.creator_name:
            return Content(t("lobby_started_league", lang, seats=seats))
        return Content(t("lobby_started", lang, creator=table.creator_name, seats=seats))
    key = "lobby" if table.auto_players else "lobby_no_bots"
    caption = t(key, lang, creator=table.creator_name, seats=seats)
    rows = [
        [InlineKeyboardButton(t("btn_join", lang), url=join_link(bot_username, table.key))],
        [command_button(table, "start", "btn_start")],
    ]
    return Content(caption, InlineKeyboardMarkup(rows))


def join_link(bot_username: str, key: TableKey) -> str:
    return f"https://t.me/{bot_username}?start=join_{key.token}"


def join_markup(table: Table, bot_username: str) -> InlineKeyboardMarkup:
    url = join_link(bot_username, table.key)
    return InlineKeyboardMarkup([[InlineKeyboardButton(t("btn_join_private", table.lang), url=url)]])


def flee_question(table: Table, user_id: int, lang: str) -> Content:
    """/flee asks first (a tap in the command menu must not cost the penalty): Flee or Stay, for this hand."""
    assert table.match is not None and table.hand_id is not None
    buttons = [
        InlineKeyboardButton(t(label, lang), callback_data=FleeButton(table.key, table.hand_id, user_id, yes).encode())
        for label, yes in (("btn_flee_confirm", True), ("btn_flee_cancel", False))
    ]
    return Content(t("flee_confirm", lang, penalty=table.match.rules.flee_penalty), InlineKeyboardMarkup([buttons]))

"""What /replay and /verify show: a settled hand step by step as one picture message, the whole hand as an
animation, and the proof that its deal was fixed before the first tile.

    replay_content(shared, step=12, seat=None, lang="en")    # the table after 12 actions, every hand open
    animation_content(shared, "zh")                          # the whole hand as a GIF (rendered when sent)
    verify_text(shared, "en")                                # the commitment checked, the deal in words
"""

from __future__ import annotations

import functools
import itertools
import re
from concurrent.futures import Executor
from typing import Final

from telegram import InlineKeyboardButton, InlineKeyboardMarkup

from bot.callbacks import replay_data
from bot.i18n import t
from bot.outbox import Content
from bot.table.texts import automatic_name
from bot.views.game_views import picture_lang
from bot.views.rows import rows_by_width
from game.actions import Action
from game.replay import replay_views
from game.tiles import laizi_of, tile_label
from game.verify import matches
from game.wall import deal
from rendering.replay_frames import render_replay_animation, render_replay_frame
from storage.hands import SharedHand


def _names(shared: SharedHand, lang: str) -> list[str]:
    return [n if n is not None else automatic_name(i, lang) for i, n in enumerate(shared.names)]


def _seat_word(seat: int | None, lang: str) -> str:
    return t("replay_all_open", lang) if seat is None else t(f"wind_{seat}", lang)


_MOVE: Final = re.compile(r"(\d+)([+-]1|=)?")
_SHIFT: Final = {"+1": 1, "-1": -1, "=": 0}


def moved_to(move: str, seen: int | None, total: int) -> int:
    """The step a replay button's ``move`` leads to from the step the message shows (``seen``; None: not
    known, the step the button was drawn at): ``12+1`` one on, ``12-1`` one back, ``12=`` stay, ``0`` there."""
    matched = _MOVE.fullmatch(move)
    assert matched is not None  # REPLAY_PATTERN let only moves through
    base, op = int(matched[1]), matched[2]
    at = base if not op else (base if seen is None else seen) + _SHIFT[op]
    return max(0, min(at, total))


def _keyboard(code: str, step: int, total: int, seat: int | None, lang: str) -> InlineKeyboardMarkup:
    moves = [("⏮", "0"), ("◀", f"{step}-1"), ("▶", f"{step}+1"), ("⏭", str(total))]
    seats: list[int | None] = [0, 1, 2, 3, None]
    return InlineKeyboardMarkup([
        [InlineKeyboardButton(label, callback_data=replay_data(code, to, seat)) for label, to in moves],
        *rows_by_width([InlineKeyboardButton(("✓ " if s == seat else "") + _seat_word(s, lang),
                                             callback_data=replay_data(code, f"{step}=", s)) for s in seats]),
        [InlineKeyboardButton(t("btn_replay_gif", lang), callback_data=replay_data(code, "gif", seat))],
    ])  # fmt: skip


def replay_content(shared: SharedHand, step: int, seat: int | None, lang: str) -> Content:
    """The hand after ``step`` actions, seen from ``seat`` (None: every hand open), with the stepping buttons."""
    record = shared.hand
    actions = [Action.from_json(a) for a in shared.actions]
    total = len(actions)
    step = max(0, min(step, total))
    views = replay_views(record.rules, record.seed, record.dealer, actions, seat, open_hands=seat is None)
    view = next(itertools.islice(views, step, None))
    names = _names(shared, lang)
    scores = shared.points if step == total else (0, 0, 0, 0)
    action = actions[step - 1] if step else None
    caption = t(
        "replay_caption",
        lang,
        code=shared.code,
        number=record.hand_no,
        step=step,
        total=total,
        seat=_seat_word(seat, lang),
    )
    return Content(
        caption,
        _keyboard(shared.code, step, total, seat, lang),
        render=lambda: render_replay_frame(
            view, names, scores, picture_lang(lang), step=step, total=total, action=action
        ),
    )


def animation_content(shared: SharedHand, seat: int | None, lang: str, pool: Executor | None) -> Content:
    """The whole hand as one animated picture, a frame per action; drawn in ``pool`` (seconds of work that
    would otherwise hold the interpreter against every table), or in the outbox's thread without one."""
    record = shared.hand
    actions = [Action.from_json(a) for a in shared.actions]
    names = _names(shared, lang)
    caption = t("replay_gif_caption", lang, code=shared.code, number=record.hand_no, seat=_seat_word(seat, lang))
    work = functools.partial(
        render_replay_animation,
        record.rules,
        record.seed,
        record.dealer,
        actions,
        names,
        picture_lang(lang),
        seat=seat,
        open_hands=seat is None,
    )
    return Content(caption, animated=True, render=work if pool is None else lambda: pool.submit(work).result())


def verify_text(shared: SharedHand, lang: str) -> str:
    """The deal's proof: the commitment shown at the deal, the seed behind it, whether they match, each seat's
    dealt tiles and how anyone checks the whole wall themselves."""
    reveal, record = shared.reveal, shared.hand
    if reveal is None:
        return t("verify_none", lang, code=shared.code)
    dealt = deal(record.seed, record.dealer)
    lines = [
        t("verify_seat", lang, seat=t(f"wind_{s}", lang), tiles=" ".join(tile_label(x, lang) for x in sorted(tiles)))
        for s, tiles in enumerate(dealt.hands)
    ]
    command = f"python -m game.verify {reveal.text} {reveal.commitment} --dealer {record.dealer}"
    return t(
        "verify_text", lang, code=shared.code, commitment=reveal.commitment, reveal=reveal.text,
        verdict=t("verify_ok" if matches(reveal.text, reveal.commitment) else "verify_bad", lang),
        indicator=tile_label(dealt.indicator, lang), laizi=tile_label(laizi_of(dealt.indicator), lang),
        seats="\n".join(lines), command=command,
    )  # fmt: skip

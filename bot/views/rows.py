"""A keyboard's rows sized by their labels. Telegram gives each button of a row an equal share of the message's
width, so a row fits when its widest label fits its share; the width is a ~360 px phone's.

    rows_by_width(buttons)  # [[5 Crak, 6 Crak, 7 Crak, 9 Crak], [2 Dot, 3 Dot, 4 Dot, 6 Dot, 8 Dot]]
    label_width("5 Crak"), label_width("五万")   # (6, 4): a wide character (Chinese, emoji) counts two
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence
from typing import Final

from telegram import InlineKeyboardButton

from bot.limits import MAX_BUTTONS_PER_ROW

# A ~360 px phone's keyboard (some 290 px) in narrow characters of its buttons' font (~8 px at 14 px), and what
# each button takes beside its label (its padding, the gap to the next).
ROW_WIDTH: Final = 36
BUTTON_MARGIN: Final = 2


def label_width(label: str) -> int:
    """How wide ``label`` is in narrow characters: Chinese and emoji (``🀄``, ``🎞``) count two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" or ord(c) > 0xFFFF else 1 for c in label)


def fits(row: Sequence[InlineKeyboardButton]) -> bool:
    """Whether every label of ``row`` fits its equal share of the phone's width."""
    widest = max(label_width(button.text) for button in row)
    return len(row) <= MAX_BUTTONS_PER_ROW and len(row) * (widest + BUTTON_MARGIN) <= ROW_WIDTH


def rows_by_width(buttons: Sequence[InlineKeyboardButton]) -> list[list[InlineKeyboardButton]]:
    """``buttons`` in order, in as few rows as their labels let fit, and of those the most even (no lone last
    button under full rows); a label too long for any row alone in its own."""
    # best[j]: (rows, sum of squared row lengths) of the first j buttons' best rows, and where the last row starts
    # (of rows as even, the fuller first)
    best: list[tuple[int, int, int]] = [(0, 0, 0)]
    for j in range(1, len(buttons) + 1):
        starts = (i for i in reversed(range(j)) if j - i == 1 or fits(buttons[i:j]))
        best.append(min(((best[i][0] + 1, best[i][1] + (j - i) ** 2, i) for i in starts), key=lambda b: b[:2]))
    rows: list[list[InlineKeyboardButton]] = []
    j = len(buttons)
    while j:
        i = best[j][2]
        rows.insert(0, list(buttons[i:j]))
        j = i
    return rows

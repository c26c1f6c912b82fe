"""Buttons that must not outlive their use: a hand's private results offer Ready only until the next hand
starts, the table ends or the player leaves; afterwards each shows the result alone (its review button stays).

Called by the table's life cycle (``HandFlow``) at those three moments, while ``table.hand`` is still the
finished hand whose results were sent.
"""

from __future__ import annotations

from bot.outbox import Outbox
from bot.play.table_state import Table
from bot.views.game_views import result_content


def retire_ready(outbox: Outbox, table: Table, seat: int | None = None) -> None:
    """Edit the private results of the finished hand (every player's; ``seat``: that one's) to lose Ready."""
    hand = table.hand
    if table.state != "between" or hand is None or not hand.finished or table.proof is None:
        return  # no result with a Ready button is out
    if table.match is not None and table.match.hands_played >= table.hands_planned:
        return  # the last hand's results offered none
    for i, s in table.humans():
        if seat is None or i == seat:  # urgent: out before the next result would take the slot's place
            content = result_content(table, None, s.lang, i)
            outbox.show(s.user_id or 0, table.key.private_slot("result"), content, urgent=True)

"""Fairness between the people whose commands a chat's outbox answers (``Outbox.announce`` with ``reply_to``).

Each answer is a message of its own, sent one per ``group_interval``: forty commands from one person were forty
answers queued, and everything else in the group waited behind them. An answer to a command that is not part of
the table's story (/rules, /verify, /top …) therefore waits *aside* (``Waiting.aside``), and three rules keep it
fair:

* the same answer already waiting is told once;
* one person has at most ``MAX_REPLIES_EACH`` answers waiting in a chat: a newer one replaces their oldest
  (they read the answers to their latest commands; the earlier ones were overtaken by them);
* the table's own messages go before any answer aside (``ChatQueue.next_waiting``).

The answers the table itself gives ("X sits down", "the hand is running") keep their place in the chat's order.
"""

from __future__ import annotations

from typing import Final

from bot.outbox_state import Waiting

MAX_REPLIES_EACH: Final = 3


def add_reply(waiting: list[Waiting], reply: Waiting) -> None:
    """Queue the answer ``reply`` aside in a chat's ``waiting`` posts. The same answer already waiting (a command
    sent again and again) is told once; a person's answers beyond the bound replace their oldest."""
    new = reply.content
    aside = [w for w in waiting if w.aside]
    if any((w.content.text, w.content.markup, w.content.thread) == (new.text, new.markup, new.thread) for w in aside):
        return
    mine = [w for w in aside if new.asker is not None and w.content.asker == new.asker]
    if len(mine) >= MAX_REPLIES_EACH:
        waiting.remove(mine[0])
    waiting.append(reply)

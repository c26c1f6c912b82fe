"""Fairness between the people whose commands a chat's outbox answers (``Outbox.announce`` with ``reply_to``).

Each answer is a message of its own, sent one per ``group_interval``: forty commands from one person were forty
answers queued, and everything else in the group waited behind them. Three rules keep it fair:

* the same answer already waiting is told once;
* one person has at most ``MAX_REPLIES_EACH`` answers waiting in a chat: a newer one replaces their oldest
  (they read the answers to their latest commands; the earlier ones were overtaken by them);
* the table's own messages go before any answer (``Outbox._send_announcements``).
"""

from __future__ import annotations

from typing import Final

from bot.outbox_state import Content

MAX_REPLIES_EACH: Final = 3


def add_reply(replies: list[Content], reply: Content) -> None:
    """Queue ``reply`` in ``replies`` (a chat's waiting answers, oldest first). The same answer already waiting
    (a command sent again and again) is told once; a person's answers beyond the bound replace their oldest."""
    if any((r.text, r.markup, r.thread) == (reply.text, reply.markup, reply.thread) for r in replies):
        return
    mine = [r for r in replies if reply.asker is not None and r.asker == reply.asker]
    if len(mine) >= MAX_REPLIES_EACH:
        replies.remove(mine[0])
    replies.append(reply)

"""Fairness between the people whose commands a chat's outbox answers (``Outbox.announce`` with ``reply_to``).

Each answer is a message of its own, sent one per ``group_interval``: forty commands from one person were forty
answers queued, and everything else in the group waited behind them. An answer to a command that is not part of
the table's story (/rules, /verify, /top …) therefore waits *aside* (``Waiting.aside``), and three rules keep it
fair:

* the same answer already waiting is told once;
* one person has at most ``MAX_REPLIES_EACH`` answers waiting in a chat: the answers to their latest commands
  (the earlier ones were overtaken by them), posted in the order of the commands — handlers run concurrently,
  so an answer may be ready before the answer to an earlier command;
* the table's own messages go before any answer aside (``ChatQueue.next_waiting``).

The answers the table itself gives ("X sits down", "the hand is running") keep their place in the chat's order.
"""

from __future__ import annotations

from typing import Final

from bot.outbox_state import Waiting

MAX_REPLIES_EACH: Final = 3


def add_reply(waiting: list[Waiting], reply: Waiting) -> None:
    """Queue the answer ``reply`` aside in a chat's ``waiting`` posts. The same answer already waiting (a command
    sent again and again) is told once; of a person's answers, those to their latest commands are kept."""
    new = reply.content
    aside = [w for w in waiting if w.aside]
    if any((w.content.text, w.content.markup, w.content.thread) == (new.text, new.markup, new.thread) for w in aside):
        return
    mine = [w for w in aside if new.asker is not None and w.content.asker == new.asker]
    if len(mine) >= MAX_REPLIES_EACH:
        oldest = min([*mine, reply], key=_command)
        if oldest is reply:  # its command is older than every one whose answer waits
            return
        waiting.remove(oldest)
        mine.remove(oldest)
    later = [w for w in mine if _command(w) > _command(reply)]
    waiting.insert(waiting.index(later[0]) if later else len(waiting), reply)


def _command(w: Waiting) -> int:
    """The message id of the command ``w`` answers (ids grow in a chat)."""
    return w.content.reply_to or 0

"""The one loop that steps a table's core: ``drive(steps, carry_out)`` carries out each effect the core yields,
in order, and sends its answer back in; a store that ``carry_out`` refuses (``Refused``) is thrown back in, and the
core decides what it means. The runner (``bot.host.runner``) drives with the edge, a test with made-up answers.

    reply = await drive(step(table, message, now, options), carry_out)   # the Reply for the sender, or None

Any other exception, from the core or from ``carry_out``, ends the drive and is raised to its caller.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.table.effects import Effect, Refused, Reply
from bot.table.hand import Steps


async def drive(steps: Steps, carry_out: Callable[[Effect], Awaitable[object]]) -> Reply | None:
    """Run ``steps`` to its end; the last ``Reply`` it yielded (every effect, a ``Reply`` too, is carried out)."""
    reply: Reply | None = None
    answer: object = None
    refused: Refused | None = None
    while True:
        try:
            effect = steps.send(answer) if refused is None else steps.throw(refused)
        except StopIteration:
            return reply
        answer, refused = None, None
        if isinstance(effect, Reply):
            reply = effect
        try:
            answer = await carry_out(effect)
        except Refused as e:
            refused = e

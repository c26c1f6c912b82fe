"""Reviews of finished hands, one at a time per process, never in a table's way.

A review replays the hand (cheap, here) and sends each of the player's decisions to the process pool for the
search (``game.review.review_decision``), editing one progress message as it goes; the picture comes last, its
caption listing each decision that mattered (``rendering.review_card.decision_line``).
Requests wait in a bounded queue: a full queue is said so at once, and so is a review a person asked for
again while it waits or runs (one per person and hand at a time).

    reviews = Reviews(db, outbox, pool)
    notice = await reviews.request(user_id, lang, "7KQ2MX")      # None: queued; else why not
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import Executor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from typing import Final

from bot.i18n import t
from bot.limits import MAX_CAPTION, with_lines
from bot.outbox import Content, Outbox
from bot.table.texts import automatic_name
from bot.views.game_views import picture_lang
from game.actions import Action
from game.review import (
    DEFAULT_CANDIDATES,
    DEFAULT_SAMPLES,
    DecisionReview,
    decisions,
    review_decision,
    summarize,
    world_seed,
)
from game.view import SeatView
from rendering.review_card import decision_line, mattered, render_review
from storage.database import Database
from storage.hands import SharedHand

log = logging.getLogger(__name__)

MAX_WAITING: Final = 8


@dataclass(frozen=True)
class _Request:
    user_id: int
    lang: str
    shared: SharedHand
    seat: int


class Reviews:
    def __init__(self, db: Database, outbox: Outbox, pool: Executor, samples: int = DEFAULT_SAMPLES) -> None:
        self.db, self.outbox, self.pool, self.samples = db, outbox, pool, samples
        self._queue: asyncio.Queue[_Request] = asyncio.Queue(MAX_WAITING)
        self._worker: asyncio.Task[None] | None = None
        self._asked: set[tuple[int, str]] = set()  # (person, code) queued or under way: one at a time each

    async def request(self, user_id: int, lang: str, code: str) -> str | None:
        """Queue a review of the asker's own play in the hand with this code; the notice when refused."""
        shared = await self.db.hands.by_code(code)
        if shared is None:
            return t("replay_no_code", lang, code=code[:12])
        seat = next((i for i, s in enumerate(shared.hand.seats) if s.player_id == user_id), None)
        if seat is None:
            return t("review_not_yours", lang, code=shared.code)
        if (user_id, shared.code) in self._asked:  # asked again: one job, however often
            return t("review_already", lang, code=shared.code)
        try:
            self._queue.put_nowait(_Request(user_id, lang, shared, seat))
        except asyncio.QueueFull:
            return t("review_busy", lang)
        self._asked.add((user_id, shared.code))
        self.outbox.show(
            user_id,
            self._slot(shared.code),
            Content(t("review_queued", lang, code=shared.code)),
            urgent=True,
            fresh=True,
        )
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work(), name="reviews")
        return None

    @staticmethod
    def _slot(code: str) -> str:
        return f"review{code}"

    async def _work(self) -> None:
        while not self._queue.empty():
            request = self._queue.get_nowait()
            try:
                await self._review(request)
            except Exception:  # one broken review must not stop the others
                log.exception("review of hand %s for %s failed", request.shared.code, request.user_id)
                self.outbox.show(
                    request.user_id, self._slot(request.shared.code), Content(t("review_failed", request.lang))
                )
            finally:
                self._asked.discard((request.user_id, request.shared.code))

    async def _search(self, view: SeatView, action: Action, i: int, seed: int) -> DecisionReview:
        """One decision's search in the pool; once more if a worker died under it (the pool replaced it)."""
        work = partial(review_decision, view, action, i, seed, self.samples, DEFAULT_CANDIDATES)
        try:
            return await asyncio.wrap_future(self.pool.submit(work))
        except BrokenProcessPool:
            return await asyncio.wrap_future(self.pool.submit(work))

    async def _review(self, r: _Request) -> None:
        record = r.shared.hand
        actions = [Action.from_json(a) for a in r.shared.actions]
        points = decisions(record.rules, record.seed, record.dealer, actions, r.seat)
        reviewed: list[DecisionReview] = []
        for done, (i, view, action) in enumerate(points, 1):  # one decision at a time, in the pool
            reviewed.append(await self._search(view, action, i, world_seed(record.seed, i)))
            progress = t("review_progress", r.lang, code=r.shared.code, done=done, total=len(points))
            self.outbox.show(r.user_id, self._slot(r.shared.code), Content(progress), urgent=True)  # they wait
        review = summarize(r.seat, self.samples, reviewed)
        names = [n if n is not None else automatic_name(i, r.lang) for i, n in enumerate(r.shared.names)]
        caption = t(
            "review_caption",
            r.lang,
            code=r.shared.code,
            pct=round(100 * review.agreement),
            points=round(review.total_loss),
            n=len(review.decisions),
        )
        # Each decision that mattered, in words too (#rank among the legal moves, points given up).
        lines = [decision_line(n, d, picture_lang(r.lang)) for n, d in mattered(review)]
        caption = with_lines(caption, lines, MAX_CAPTION)[0]
        self.outbox.show(
            r.user_id, self._slot(r.shared.code), Content(t("review_done", r.lang, code=r.shared.code)), urgent=True
        )
        self.outbox.show(
            r.user_id,
            f"reviewed{r.shared.code}",
            fresh=True,
            urgent=True,
            content=Content(caption, render=lambda: render_review(review, names, picture_lang(r.lang))),
        )

"""The live table on every worker (MAHJONG_WORKERS=1 with MAHJONG_WEBAPP_URL): a page may open on any worker (the
proxy spreads them), while its table runs on its shard's owner. Frames go through Redis pub/sub; presses go
straight to the owner through Redis too, and into the durable inbox (storage.inbox) beside, which makes sure that
none is lost.

    relay = Relay.connect(redis_url, bot_id, tables, hub, may_watch)   # one a worker
    relay.watch(page)          # a page here whose table is not: its owner is asked for its frames
    relay.opened(page)         # a page here at a table here (bot.live.hub has it): followed should the table move
    relay.closed(page)         # the page closed
    await relay.press(db, page, stamp, code)       # a press from a page whose table is elsewhere: to its owner
    await relay.pressed(update_id, body)           # the owner's consumer met one in the inbox (bot.cluster.consumer)
    await relay.run()          # until cancelled: listens, says every WATCH_S which pages it holds, forgets the silent

**The page's worker** says, every ``WATCH_S``, on the one channel ``<prefix>:watch`` that every worker listens to,
each of its pages whose table is elsewhere ({worker, page, table, user, lang}); a page it held at a table here
whose table has gone (its shard moved away) is from then on one of those. It says when a page closes.
**The owner** (whoever runs the table) answers a page it has not met with the same checks as a page of its own (the
seat, or membership of the group), then holds it in its hub as any page (``RemotePage``): every frame the hub
sends it is published on the page's worker's channel ``<prefix>:to:<worker>``, which hands it to the socket. A
page not heard of for ``FORGET_S`` (its worker died, or the table moved here and the page's worker stopped) is
let go. So a page whose worker dies reconnects (live.js) to another worker and is current at once, and a page
whose table's owner dies is current again once the new owner resumed the table and met the page's next watch.

**A press** from such a page gets an id of its own below zero (Telegram's are positive) and goes two ways at once:
published on ``<prefix>:press``, which every worker hears and the one running the table takes up at once (the
direct route), and stored in the inbox under the table's shard without waking anyone, which its owner's consumer
reads in order with its other updates in its next look, within ``bot.cluster.consumer.POLL_S`` (the durable
route: when Redis is down, or the press was published while the table was moving, it is still applied). Both end
in ``_take``, which applies a press id once in this worker (the second delivery waits for the first and is
answered by it); the edge stores the press's action and marks the press done in the inbox in one statement, so a
new owner does not apply it again either. The direct route does not wait for the consumer's hold on the shard
(``Ownership.handling``, held while the consumer waits for the press it met): the shard's fence refuses the
action of a worker that has lost it, and the inbox keeps the press for the new owner.
Its answer (stale, not your turn) goes back as a notice on the page's worker's channel.

Why Redis pub/sub and not PostgreSQL's LISTEN/NOTIFY (docs/ARCHITECTURE.md): a frame is a few KB, a result's up to
about ten, and NOTIFY takes 8,000 bytes at most; every NOTIFY is queued in one server-wide queue under a lock at
commit, and pages' frames are hundreds a second with many tables. Redis publishes in memory, any size, and the
workers use it already for Telegram's rate. A press goes the same way as the frames so that it does not wait for
the inbox's commit, nor for the consumer's round and the shard's earlier updates. What Redis loses when it
restarts (frames or presses in flight) the next frame, a watch or the inbox replaces.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError

from bot.callbacks import BadCallback, Stamp
from bot.cluster.consumer import PAGE_PRESS
from bot.cluster.shards import shard_of
from bot.host.registry import Tables
from bot.host.runner import StepFailed
from bot.i18n import t
from bot.live.hub import Hub
from bot.table import messages as msg
from bot.table.key import TableKey
from storage.database import Database

log = logging.getLogger(__name__)

WATCH_S: Final = 1.0  # a page whose table is elsewhere is named to its owner this often
FORGET_S: Final = 4.0  # a remote page not named for this long is let go
NO_TABLE_S: Final = 10.0  # a page no owner answered for this long is told there is no such table
RETRY_S: Final = 1.0
PRESSES_KEPT: Final = 4096  # the presses taken here remembered: the inbox hands each again after the direct route

MayWatch = Callable[[int, int], Awaitable[bool | None]]


class LocalPage(Protocol):
    """A page open on this worker (bot.live.web.Page)."""

    id: str
    key: TableKey
    user_id: int
    lang: str
    closed: bool
    heard: bool  # a frame came for it (its table exists somewhere)

    def send(self, text: str) -> None: ...

    def refuse(self, text: str) -> None: ...


@dataclass(eq=False)
class RemotePage:
    """A page on another worker, at a table here: a connection of the owner's hub (bot.live.hub.Connection)."""

    relay: Relay
    worker: str
    page: str
    key: TableKey
    user_id: int
    lang: str
    seen: float = field(default_factory=time.monotonic)

    def send(self, text: str) -> None:
        self.relay.publish(self.relay.channel(self.worker), f"{self.page}\n{text}")


class Relay:
    def __init__(self, redis: Redis, prefix: str, tables: Tables, hub: Hub, may_watch: MayWatch) -> None:
        self.redis, self.prefix, self.tables, self.hub, self.may_watch = redis, prefix, tables, hub, may_watch
        self.worker = secrets.token_hex(6)
        self.watching: dict[str, LocalPage] = {}  # this worker's pages whose table is elsewhere, by page id
        self.watched_at: dict[str, float] = {}
        self.here: dict[str, LocalPage] = {}  # this worker's pages at its own tables
        self.remote: dict[tuple[str, str], RemotePage] = {}  # other workers' pages at this worker's tables
        self._checking: set[tuple[str, str]] = set()
        self._tasks: set[asyncio.Task[None]] = set()  # the pages being checked, the presses being applied
        self._out: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._presses: dict[int, asyncio.Task[None]] = {}  # taken here, by press id, newest last (PRESSES_KEPT)

    @classmethod
    def connect(cls, url: str, bot_id: str, tables: Tables, hub: Hub, may_watch: MayWatch) -> Relay:
        redis = Redis.from_url(url, socket_timeout=2.0, socket_connect_timeout=2.0, health_check_interval=10)
        return cls(redis, f"mahjong:live:{bot_id}", tables, hub, may_watch)

    def channel(self, worker: str) -> str:
        return f"{self.prefix}:to:{worker}"

    # --- this worker's pages ----------------------------------------------------------------------------------
    def watch(self, page: LocalPage) -> None:
        self.here.pop(page.id, None)
        self.watching[page.id] = page
        self.watched_at[page.id] = time.monotonic()
        self._say("watch", page)

    def opened(self, page: LocalPage) -> None:
        self.here[page.id] = page

    def closed(self, page: LocalPage) -> None:
        self.here.pop(page.id, None)
        self.watched_at.pop(page.id, None)
        if self.watching.pop(page.id, None) is not None:
            self._say("unwatch", page)

    def _say(self, op: str, page: LocalPage) -> None:
        said = {"op": op, "worker": self.worker, "page": page.id, "table": page.key.token, "user": page.user_id}
        self.publish(f"{self.prefix}:watch", json.dumps(said | {"lang": page.lang}))

    async def press(self, db: Database, page: LocalPage, stamp: str, code: str) -> None:
        """Hand the page's press to its table's owner, and store it for the owner (StorageError when it cannot be
        stored: the owner may still have applied it, and its frame says so)."""
        body = {"table": page.key.token, "user": page.user_id, "lang": page.lang, "stamp": stamp, "code": code}
        body |= {"worker": self.worker, "page": page.id}
        press_id = -1 - secrets.randbits(62)  # below Telegram's update ids, unique among the presses
        self.publish(f"{self.prefix}:press", json.dumps({"id": press_id, PAGE_PRESS: body}))
        await db.inbox.store([(press_id, shard_of(page.key), json.dumps({PAGE_PRESS: body}))], wake=False)

    def _deliver(self, data: str) -> None:
        page_id, _, text = data.partition("\n")
        page = self.watching.get(page_id)
        if page is None:
            return
        page.heard = True
        if text.startswith('{"type": "refused"'):
            page.refuse(text)
        else:
            page.send(text)

    # --- the owner's side --------------------------------------------------------------------------------------
    def _met(self, said: dict[str, Any]) -> None:
        ident = (str(said["worker"]), str(said["page"]))
        if said["op"] == "unwatch":
            self._drop(self.remote.pop(ident, None))
            return
        known = self.remote.get(ident)
        if known is not None:
            known.seen = time.monotonic()
            return
        key = TableKey.parse(str(said["table"]))
        if self.tables.get(key) is None or ident in self._checking:  # not here (its owner answers), or being checked
            return
        self._checking.add(ident)  # checked aside: a getChatMember of seconds holds no other page's frames
        task = asyncio.create_task(self._check(ident, key, int(said["user"]), str(said["lang"])))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _check(self, ident: tuple[str, str], key: TableKey, user_id: int, lang: str) -> None:
        """A page met for the first time: the checks of a page of this worker's own, then held in the hub."""
        table = self.tables.get(key)
        if table is None:
            self._checking.discard(ident)
            return
        try:
            allowed = table.seat_of(user_id) is not None or await self.may_watch(key.chat_id, user_id)
        finally:
            self._checking.discard(ident)
        if allowed is None:  # Telegram cannot say now: the page's next watch asks again
            return
        page = RemotePage(self, ident[0], ident[1], key, user_id, lang)
        if not allowed:
            refusal = json.dumps({"type": "refused", "text": t("live_not_at_table", lang)}, ensure_ascii=False)
            page.send(refusal)
            return
        table = self.tables.get(key)  # still here after the check
        if table is not None:
            self.remote[ident] = page
            self.hub.join(page, table)

    def _drop(self, page: RemotePage | None) -> None:
        if page is not None and self.hub.leave(page):  # their picture brought up to date, as for a page here
            self.tables.post(page.key, msg.Refresh(page.user_id))

    def _direct(self, said: dict[str, Any]) -> None:
        """A press published by a page's worker: taken up at once by the worker that runs its table."""
        body = said[PAGE_PRESS]
        if self.tables.get(TableKey.parse(str(body["table"]))) is not None:
            self._take(int(said["id"]), body)

    async def pressed(self, update_id: int, body: dict[str, Any]) -> None:
        """A page's press the inbox handed this worker (its table's owner): taken unless the direct route brought
        it already; done when it has been."""
        await asyncio.shield(self._take(update_id, body))

    def _take(self, update_id: int, body: dict[str, Any]) -> asyncio.Task[None]:
        """The press applied once here, whichever route brings it first (or twice)."""
        task = self._presses.get(update_id)
        if task is None:
            task = self._presses[update_id] = asyncio.create_task(self._apply(update_id, body))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            while len(self._presses) > PRESSES_KEPT:
                del self._presses[next(iter(self._presses))]
        return task

    async def _apply(self, update_id: int, body: dict[str, Any]) -> None:
        """Taken as a button's press, answered back."""
        try:
            await self._answer(update_id, body)
        except Exception:  # the consumer goes on with the shard's next update, the direct route with the next press
            log.exception("live relay: press %s could not be handled", update_id)

    async def _answer(self, update_id: int, body: dict[str, Any]) -> None:
        key = TableKey.parse(str(body["table"]))
        lang = str(body["lang"])
        try:
            stamp = Stamp.decode(str(body["stamp"]))
        except BadCallback:
            text: str | None = t("press_stale", lang)
        else:
            press = msg.Press(int(body["user"]), stamp, str(body["code"])[:8], lang, update_id, from_page=True)
            try:
                text = (await self.tables.ask(key, press)).text
            except StepFailed:
                text = t("error_apology", lang)
        if text:
            notice = json.dumps({"type": "notice", "text": text}, ensure_ascii=False)
            self.publish(self.channel(str(body["worker"])), f"{body['page']}\n{notice}")

    # --- the loops ---------------------------------------------------------------------------------------------
    def publish(self, channel: str, data: str) -> None:
        self._out.put_nowait((channel, data))

    async def run(self) -> None:
        tasks = [
            asyncio.create_task(self._listen(), name="live relay listen"),
            asyncio.create_task(self._send(), name="live relay send"),
            asyncio.create_task(self._rounds(), name="live relay rounds"),
        ]
        try:
            await asyncio.gather(*tasks)
        finally:
            for task in [*tasks, *self._tasks]:
                task.cancel()
            await self.redis.aclose()

    async def _listen(self) -> None:
        heard: dict[str, Callable[[str], None]] = {  # each channel listened to, and what takes its messages
            self.channel(self.worker): self._deliver,
            f"{self.prefix}:watch": lambda data: self._met(json.loads(data)),
            f"{self.prefix}:press": lambda data: self._direct(json.loads(data)),
        }
        while True:
            try:
                async with self.redis.pubsub(ignore_subscribe_messages=True) as pubsub:
                    await pubsub.subscribe(*heard)
                    log.info("live relay: listening as %s", self.worker)
                    async for message in pubsub.listen():
                        self._heard(heard[message["channel"].decode()], message["data"].decode())
            except (RedisError, OSError) as e:
                log.warning("live relay: Redis failed (%s); listening again", type(e).__name__)
            except Exception:
                log.exception("live relay: listening failed; listening again")
            await asyncio.sleep(RETRY_S)

    def _heard(self, take: Callable[[str], None], data: str) -> None:
        try:
            take(data)
        except (ValueError, KeyError, TypeError):  # not a worker's (nothing else should publish there)
            log.warning("live relay: a message not understood, skipped")

    async def _send(self) -> None:
        while True:
            batch = [await self._out.get()]
            while not self._out.empty():
                batch.append(self._out.get_nowait())
            try:
                async with self.redis.pipeline(transaction=False) as pipe:
                    for channel, data in batch:
                        pipe.publish(channel, data)
                    await pipe.execute()
            except (RedisError, OSError) as e:  # these frames are lost: the next ones (or a watch) replace them
                log.warning("live relay: %d frames not published (%s)", len(batch), type(e).__name__)
                await asyncio.sleep(RETRY_S)

    async def _rounds(self) -> None:
        while True:
            await asyncio.sleep(WATCH_S)
            try:
                self.round(time.monotonic())
            except Exception:
                log.exception("live relay: a round failed")

    def round(self, now: float) -> None:
        """Name the pages whose table is elsewhere (pages here whose table moved away among them), tell those no
        owner answered that there is no such table, and let go the remote pages not named for FORGET_S."""
        for page in list(self.here.values()):
            if self.tables.get(page.key) is None and not page.closed:
                self.hub.leave(page)
                self.watch(page)
        for page in list(self.watching.values()):
            if page.closed:
                self.closed(page)
            elif not page.heard and now - self.watched_at.get(page.id, now) > NO_TABLE_S:
                self.closed(page)
                page.refuse(json.dumps({"type": "refused", "text": t("live_no_table", page.lang)}, ensure_ascii=False))
            else:
                self._say("watch", page)
        for ident, remote in list(self.remote.items()):
            if now - remote.seen > FORGET_S or self.tables.get(remote.key) is None:
                self._drop(self.remote.pop(ident))

"""A worker's connection to Telegram: a request goes out only while the worker knows its lease holds.

A worker stopped (SIGSTOP, a frozen VM) for longer than its lease loses its shards to another worker, which shows
their tables where they stand. Run again, the stopped worker must not write what it had waiting over the new
owner's messages: every request that writes to a chat looks at the lease the moment before its bytes leave the
process (after its picture is drawn), and is refused as ``LeaseUnsure`` (a NetworkError: the outbox keeps the
write and retries it) while the lease is not known to hold; once the worker has looked, what waited for the tables
it lost is dropped (bot.host.registry.Tables.release). Reads (getMe at start-up, before any lease) go out always.

    lease = Lease()                                    # storage.cluster: renewed by the worker's coordinator
    Application.builder().request(LeasedRequest(lease.holds, CONNECTIONS, pool_timeout=30))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from telegram.error import NetworkError
from telegram.request import HTTPXRequest

# What shows something in a chat (sendPhoto, editMessageMedia, deleteMessage, ...): the rest (getMe at start-up,
# before the worker has a lease; answerCallbackQuery; the command menu) shows no table and goes out whenever.
CHAT_WRITES: Final = ("send", "edit", "delete", "forward", "copy", "pin", "unpin")


class LeaseUnsure(NetworkError):
    """Not sent: this worker does not know whether its lease on the shards still holds."""


class LeasedRequest(HTTPXRequest):
    def __init__(self, writable: Callable[[], bool], *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._writable = writable

    async def do_request(self, url: str, *args: Any, **kwargs: Any) -> tuple[int, bytes]:
        if url.rsplit("/", 1)[-1].startswith(CHAT_WRITES) and not self._writable():
            raise LeaseUnsure("this worker's lease is not known to hold; not sent")
        return await super().do_request(url, *args, **kwargs)

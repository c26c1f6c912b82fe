"""What every listener in the bot's process holds to, so that no client can exhaust it: the live table's server
(``bot.live.web``) and the webhook's (PTB's own, ``bot.webhook``).

    server = BoundedHTTPServer(app, limits=Limits(max_body=16 * 1024, connections=1000), xheaders=False)
    server.listen(port, host)
    bound_http_servers(WEBHOOK)        # every tornado HTTPServer made from now on (PTB makes the webhook's)

- a request's headers must arrive within ``header_seconds`` (also how long a kept-alive connection may stay idle)
  and its body within ``body_seconds``, or the connection is closed;
- a body over ``max_body`` is refused from its Content-Length, before any of it is read (a longer chunked body
  when it reaches the limit);
- at most ``connections`` connections are open at once, and never more than half the process's file descriptors
  (``ulimit -n``: the tables, storage and Telegram need the rest); one more is accepted and closed at once; so is
  one more than ``per_address`` from one address, when set (not behind a proxy, whose address is everyone's);
- out of file descriptors (EMFILE), it stops accepting for ``PAUSE_SECONDS`` instead of failing the accept in a
  loop, and says so at most once every ``LOG_EVERY`` seconds.
"""

from __future__ import annotations

import errno
import logging
import resource
import socket
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from tornado.httpserver import HTTPServer
from tornado.ioloop import IOLoop

log = logging.getLogger(__name__)

PAUSE_SECONDS = 0.5  # no accepting for this long when the process is out of file descriptors
LOG_EVERY = 10.0  # seconds between two log lines about refused connections
ACCEPTS_AT_ONCE = 128  # connections accepted in one turn of the loop (tornado's own batch): other work goes on
_OUT_OF_FILES = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


@dataclass(frozen=True)
class Limits:
    max_body: int  # bytes of one request's body
    connections: int  # open connections in all
    per_address: int | None = None  # open connections from one address (None: no cap of its own)
    header_seconds: float = 10.0
    body_seconds: float = 10.0
    max_header: int = 16 * 1024  # bytes of one request's headers

    def settings(self) -> dict[str, Any]:
        """The limits as tornado's HTTPServer takes them."""
        return {
            "max_body_size": self.max_body,
            "max_header_size": self.max_header,
            "idle_connection_timeout": self.header_seconds,
            "body_timeout": self.body_seconds,
        }


# Telegram's updates are a few KB (a message is at most 4,096 characters) and it opens at most 100 connections
# (setWebhook's max_connections, 40 by default).
WEBHOOK = Limits(max_body=256 * 1024, connections=100)


def descriptor_share() -> int:
    """Half of the file descriptors this process may open (its soft ``RLIMIT_NOFILE``, read now: it may change)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    return sys.maxsize if soft == resource.RLIM_INFINITY else soft // 2


class Notices:
    """A warning that may come thousands of times a second, logged at most once every LOG_EVERY seconds with the
    count of the others."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.last = -LOG_EVERY
        self.unsaid = 0

    def __call__(self, detail: object) -> None:
        now = time.monotonic()
        if now - self.last < LOG_EVERY:
            self.unsaid += 1
            return
        more = f"; {self.unsaid} more in the last {now - self.last:.0f} s" if self.unsaid else ""
        log.warning("%s (%s%s)", self.text, detail, more)
        self.last, self.unsaid = now, 0


class BoundedHTTPServer(HTTPServer):
    """tornado's HTTPServer within ``limits``: timeouts, a body limit, a cap on open connections, EMFILE survived."""

    def initialize(self, *args: Any, limits: Limits, **kwargs: Any) -> None:  # type: ignore[override]
        super().initialize(*args, **(limits.settings() | kwargs))
        self.limits = limits
        # every connection accepted, with its address; a closed one's fileno() is -1
        self.accepted: list[tuple[socket.socket, str]] = []
        self.full = Notices("too many open connections: refusing new ones")
        self.out_of_files = Notices(f"out of file descriptors: not accepting for {PAUSE_SECONDS} s")

    def add_sockets(self, sockets: Iterable[socket.socket]) -> None:
        # tornado's TCPServer keeps its listening sockets and how to stop accepting on each (called by stop()).
        for sock in sockets:
            self._sockets[sock.fileno()] = sock
            self._handlers[sock.fileno()] = _Acceptor(self, sock).remove

    def open_connections(self) -> int:
        self.accepted = [(s, a) for s, a in self.accepted if s.fileno() != -1]
        return len(self.accepted)

    def admit(self, connection: socket.socket, address: Any) -> None:
        cap, host = min(self.limits.connections, descriptor_share()), str(address[0])
        per_address = self.limits.per_address
        if len(self.accepted) >= cap and self.open_connections() >= cap:
            self._refuse(connection, f"{cap} open")
            return
        if per_address is not None and sum(a == host for _, a in self.accepted) >= per_address:
            self.open_connections()  # those closed since are forgotten, then counted again
            if sum(a == host for _, a in self.accepted) >= per_address:
                self._refuse(connection, f"{per_address} open from one address")
                return
        self.accepted.append((connection, host))
        self._handle_connection(connection, address)

    def _refuse(self, connection: socket.socket, why: str) -> None:
        connection.close()
        self.full(why)


class _Acceptor:
    """Accepts connections on one listening socket (tornado's ``add_accept_handler``, which fails the accept in a
    tight loop, logging each failure, while the process is out of file descriptors)."""

    def __init__(self, server: BoundedHTTPServer, sock: socket.socket) -> None:
        self.server, self.sock = server, sock
        self.loop = IOLoop.current()
        self.paused: object | None = None  # the resume's timeout while accepting is paused
        self.removed = False
        self.loop.add_handler(sock, self.accept, IOLoop.READ)

    def accept(self, fd: Any, events: int) -> None:
        for _ in range(ACCEPTS_AT_ONCE):
            if self.removed:
                return
            try:
                connection, address = self.sock.accept()
            except BlockingIOError:  # every waiting connection taken
                return
            except ConnectionAbortedError:
                continue
            except OSError as e:
                if e.errno not in _OUT_OF_FILES:
                    raise
                self.server.out_of_files(e.strerror)
                self.loop.remove_handler(self.sock)
                self.paused = self.loop.call_later(PAUSE_SECONDS, self.resume)
                return
            self.server.admit(connection, address)

    def resume(self) -> None:
        self.paused = None
        if not self.removed:
            self.loop.add_handler(self.sock, self.accept, IOLoop.READ)

    def remove(self) -> None:
        self.removed = True
        if self.paused is not None:
            self.loop.remove_timeout(self.paused)
        else:
            self.loop.remove_handler(self.sock)


def bound_http_servers(limits: Limits) -> None:
    """Every tornado HTTPServer made from now on in this process is a BoundedHTTPServer within ``limits`` (PTB's
    webhook server makes its own; tornado's ``Configurable.configure``)."""
    HTTPServer.configure(BoundedHTTPServer, limits=limits)

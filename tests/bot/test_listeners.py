"""bot.listeners: a process out of file descriptors (EMFILE) pauses accepting instead of failing the accept in a
tight loop (tornado's accept loop logged EMFILE ~6,800 times a second, a core spinning), logs it once, and serves
again once descriptors are free. The server runs in a process of its own, whose descriptors the test fills."""

from __future__ import annotations

import os
import resource
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from tests.sandbox.page_client import free_port

ROOT = Path(__file__).resolve().parents[2]
WINDOW = 3.0  # seconds the server stays out of descriptors with connections waiting

SERVER = textwrap.dedent(
    """
    import asyncio, logging, os, sys
    import tornado.web
    from bot.listeners import BoundedHTTPServer, Limits

    class Hello(tornado.web.RequestHandler):
        def get(self) -> None:
            self.write("ok")

    async def main() -> None:
        app = tornado.web.Application([("/", Hello)])
        BoundedHTTPServer(app, limits=Limits(max_body=1024, connections=100)).listen(int(sys.argv[1]), "127.0.0.1")
        fillers = []
        while True:  # every descriptor taken
            try:
                fillers.append(os.open("/dev/null", os.O_RDONLY))
            except OSError:
                break
        print("full", flush=True)
        await asyncio.sleep(float(sys.argv[2]))
        for fd in fillers:
            os.close(fd)
        print("free", flush=True)
        await asyncio.sleep(30)

    logging.basicConfig(level=logging.WARNING)
    asyncio.run(main())
    """
)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def test_out_of_descriptors_the_listener_pauses_logs_once_and_serves_again(tmp_path: Path) -> None:
    port = free_port()
    log = tmp_path / "server.log"
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(port), str(WINDOW)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=log.open("w"),
        text=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256)),
    )
    try:
        assert server.stdout is not None and server.stdout.readline() == "full\n"
        cpu = _cpu_seconds(server.pid)
        clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(5)]  # in the backlog: no accept
        for client in clients:
            client.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            client.settimeout(WINDOW + 10)
        assert server.stdout.readline() == "free\n"
        spent = _cpu_seconds(server.pid) - cpu
        started = time.monotonic()
        for client in clients:  # served once descriptors are free again
            with client:
                assert client.recv(1000).startswith(b"HTTP/1.1 200")
        assert time.monotonic() - started < 5
    finally:
        server.kill()
        server.wait()
    errors = log.read_text()
    assert spent < WINDOW / 3  # not spinning on the accept (tornado's loop took a whole core)
    assert errors.count("out of file descriptors") == 1 and "Exception in callback" not in errors, errors[-2000:]

"""The sandbox as a person's browser reaches it, without a browser: its JSON API over HTTP, and the sandbox
process `make run` starts without a token (``SandboxProcess``: ``python -m bot`` on a free loopback port).

    with SandboxProcess(tmp_path) as sandbox:
        alice = PageClient(sandbox.url)
        alice.join("Alice", "en")
        alice.post("/api/play", {})
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import Any

from tests.e2e.players import FAST

# No proxy for loopback, whatever the environment says.
DIRECT = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PageClient:
    """One person's tab: the key the sandbox gave them, sent with every request."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.key = ""

    def request(self, path: str, body: dict[str, Any] | None = None, timeout: float = 30) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data, headers={"X-Sandbox-Key": self.key})
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with DIRECT.open(request, timeout=timeout) as response:
                return int(response.status), _decoded(response.read(), response.headers.get_content_type())
        except urllib.error.HTTPError as error:
            return error.code, _decoded(error.read(), error.headers.get_content_type())

    def post(self, path: str, body: dict[str, Any]) -> Any:
        status, answer = self.request(path, body)
        assert status == 200, answer
        return answer

    def join(self, name: str, lang: str) -> None:
        self.key = self.post("/api/join", {"name": name, "lang": lang})["key"]

    def state(self, since: int = -1) -> dict[str, Any]:
        status, answer = self.request(f"/api/state?since={since}")
        assert status == 200, answer
        return dict(answer)

    def chat(self, chat_id: int) -> dict[str, Any]:
        return dict(next(c for c in self.state()["chats"] if c["id"] == chat_id))

    def wait_for(self, chat_id: int, where: Any, timeout: float = 20) -> dict[str, Any]:
        """The newest message of the chat matching ``where``, once there is one."""
        deadline, since = time.monotonic() + timeout, -1
        while time.monotonic() < deadline:
            state = self.state(since)
            since = state["version"]
            chat = next(c for c in state["chats"] if c["id"] == chat_id)
            found = [m for m in chat["messages"] if where(m)]
            if found:
                return dict(found[-1])
        raise TimeoutError(
            f"no matching message in {chat_id}: {[m['text'][:40] for m in self.chat(chat_id)['messages']]}"
        )


def _decoded(body: bytes, content_type: str) -> Any:
    return json.loads(body) if content_type == "application/json" else body


class SandboxProcess:
    """``python -m bot`` with no token, as ``make run`` starts it, on a free port, quick timers and fast mode."""

    def __init__(self, directory: Path, **env: str) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("TELEGRAM_", "MAHJONG_"))}
        listen = {"MAHJONG_SANDBOX_LISTEN": f"127.0.0.1:{self.port}", "MAHJONG_SANDBOX_FAST": "1"}
        self.env = clean | FAST | listen | env
        self.directory = directory  # the working directory: no .env of the developer's is read
        self.log_path = directory / "sandbox.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> SandboxProcess:
        with self.log_path.open("ab") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "bot"], cwd=self.directory, env=self.env, stdout=log, stderr=log
            )
        deadline = time.monotonic() + 30
        while "Application started" not in self.log():
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the sandbox did not start:\n{self.log()}")
            time.sleep(0.05)
        return self

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        assert self.proc is not None
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

"""The bot's processes in the tests, forked from a server that has imported the bot once.

``python -m bot`` spends about half a second of CPU on imports before it does anything; a run of the suite starts
some 45 bot processes beside five other test workers on two cores. A fork from multiprocessing's fork server (one
per test worker, ``bot.app`` imported in it once) starts the same ``main()`` in a few milliseconds. Each bot is
still a process of its own, a child of no test: SIGKILL, a restart, a crash and its stacks are exactly as before.
``python -m bot`` itself is run by the tests that need its command line (``--check-config``, the sandbox's page
client, a settings change in a real process).

    proc = ForkedBot(env, log_path)   # Popen's pid, poll, wait, send_signal, terminate, kill and returncode
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

from bot.app import main

ROOT = Path(__file__).resolve().parents[2]
_FORKS = multiprocessing.get_context("forkserver")
_FORKS.set_forkserver_preload(["bot.app", __name__])


def _run(env: dict[str, str], log_path: str) -> None:
    """In the forked process: ``python -m bot`` with the test's environment, its output into its log."""
    os.chdir(ROOT)
    os.environ.clear()
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    sys.argv = [str(ROOT / "bot" / "__main__.py")]
    main()
    # Then the interpreter's own exit, in its order: the threads (the search pool's manager sends its processes
    # their stop), then the atexit calls. Multiprocessing's bootstrap would first run its finalizers, which stop
    # the pool's queue before that stop is sent: the bot would wait on its search processes for ever.
    threading._shutdown()  # type: ignore[attr-defined]
    atexit._run_exitfuncs()


class ForkedBot:
    """A started bot process, driven as a ``subprocess.Popen``."""

    def __init__(self, env: Mapping[str, str], log_path: Path) -> None:
        log_path.touch()  # there to be read from the start, whatever becomes of the process
        self._process = _FORKS.Process(target=_run, args=(dict(env), str(log_path)), name="bot")
        self._process.start()
        assert self._process.pid is not None
        self.pid: int = self._process.pid

    @property
    def returncode(self) -> int | None:
        """The exit code, or minus the signal that ended it; None while it runs."""
        return self._process.exitcode

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        self._process.join(timeout)
        if self.returncode is None:
            raise subprocess.TimeoutExpired("bot", timeout or 0)
        return self.returncode

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:  # as Popen: never a signal to a pid that may be another process's by now
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

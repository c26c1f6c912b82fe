"""What a test needs that a machine may lack (a server, a browser, an optional extra): without it the test is
skipped, saying what is missing, except in CI (``CI=true``: .ci/run installs everything), where that is a failure.

    skip_or_fail("Redis tests did not run: no Redis at redis://127.0.0.1:6379/15")
"""

from __future__ import annotations

import os
from typing import NoReturn


def skip_or_fail(reason: str) -> NoReturn:
    # pytest imported here: tests/sandbox/browser.py also drives the newcomer's check (.ci/newcomer) in a venv
    # with only what running the bot needs
    import pytest

    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(reason)
    pytest.skip(reason)

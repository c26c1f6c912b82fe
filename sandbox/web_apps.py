"""Mini Apps as a Telegram client opens them: the launch address with its #fragment (``tgWebAppData``: the
initData Telegram signs with the bot's token, the theme, the platform). The sandbox plays Telegram, so it signs:
``secret_key = HMAC_SHA256(key="WebAppData", msg=bot_token)``, ``hash`` = hex HMAC_SHA256 under it of every
field but ``hash`` as sorted ``key=value`` lines (Telegram's "Validating data received via the Mini App").

    init_data(user, token)                      # "user=...&auth_date=...&query_id=...&hash=..."
    launch_url("https://app/?table=x", user, token)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
from collections.abc import Mapping
from urllib.parse import quote, urlencode

from sandbox.users import SimUser

# Telegram's dark theme colours, as a client passes them in tgWebAppThemeParams.
THEME = {"bg_color": "#17212b", "text_color": "#f5f5f5", "hint_color": "#708499", "button_color": "#5288c1",
         "button_text_color": "#ffffff", "secondary_bg_color": "#232e3c"}  # fmt: skip


def sign(fields: Mapping[str, str], token: str) -> str:
    """``fields`` as initData, URL-encoded, with the ``hash`` Telegram computes."""
    secret = hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()
    lines = "\n".join(f"{key}={fields[key]}" for key in sorted(fields))
    return urlencode({**fields, "hash": hmac.new(secret, lines.encode(), hashlib.sha256).hexdigest()})


def init_data(user: SimUser, token: str, *, auth_date: float | None = None, start_param: str | None = None) -> str:
    """The initData Telegram gives ``user``'s Mini App now (or at ``auth_date``)."""
    fields = {
        "user": json.dumps(user.to_api(), ensure_ascii=False, separators=(",", ":")),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
        "query_id": "AA" + secrets.token_urlsafe(12),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    return sign(fields, token)


def launch_url(url: str, user: SimUser, token: str, *, data: str | None = None) -> str:
    """The address a client opens for a ``web_app`` button: ``url`` with the launch parameters in its fragment."""
    launch = {"tgWebAppData": data if data is not None else init_data(user, token), "tgWebAppVersion": "8.0",
              "tgWebAppPlatform": "web", "tgWebAppThemeParams": json.dumps(THEME)}  # fmt: skip
    return url + "#" + "&".join(f"{key}={quote(value, safe='')}" for key, value in launch.items())

"""The name the table code uses for a text: ``text(key, lang, **fields)`` is ``bot.i18n.t``.

Every user-facing string lives in the Babel catalogues ``bot/locales/{zh_Hans,en}/LC_MESSAGES/messages.po``
(Simplified Chinese by default, English), keyed by id; a new string goes into both files, and
tests/bot/test_i18n.py checks that every id has both translations with the same ``{fields}``.

>>> text("btn_peng", "en", tile="5m")
'Pung 5m'
>>> text("btn_peng", "zh", tile="五万")
'碰 五万'
"""

from __future__ import annotations

from bot.i18n import DEFAULT_LANG
from bot.i18n import t as text

__all__ = ["DEFAULT_LANG", "text"]

"""Texts through Babel catalogues: Simplified Chinese (the default) and English, per group and per player.

The catalogues are ``bot/locales/<locale>/LC_MESSAGES/messages.po`` (``zh_Hans``, ``en``), read with
``babel.messages.pofile`` once, at start-up (``load()``; no compiled ``.mo`` to keep in step: the ``.po``
files are the source, edited by hand or with any PO editor). A message id is a short key; its text is a
``str.format`` template (``python-brace-format``) with the same ``{fields}`` in both languages.

    from bot.i18n import t, language_of_code
    t("settings_saved", "en", setting="Claim timer", value="10 s")
    t("btn_peng", "zh", tile="五万")      # -> "碰 五万"
    language_of_code("en-GB")            # -> "en"; "zh-hans" or no code -> "zh"

Which language: a group's own messages (its lobby, pictures, results), the group's setting (``/settings``); an
answer to a person (to their command, in a group too, or to their press) and their private chat, the person's own
choice (``/lang``), which starts as their Telegram language code the first time the bot meets them
(``private_language``, asked through ``language_for``). The command menu is ``bot.commands.command_menu``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol, TypeVar

from babel.messages.pofile import read_po

from game.languages import LANGUAGES

if TYPE_CHECKING:  # the texts themselves need neither: the table's core looks them up without any I/O near it
    from telegram import User

    from storage.database import Database

DEFAULT_LANG: Final = LANGUAGES[0]
# Our language codes -> the catalogue's directory (a Babel locale identifier).
LOCALES: Final = {"zh": "zh_Hans", "en": "en"}
LOCALE_DIR: Final = Path(__file__).with_name("locales")


T_co = TypeVar("T_co", covariant=True)


class Bilingual(Protocol[T_co]):
    """Anything that says itself in both languages: a pattern, a title, a settlement's breakdown."""

    @property
    def zh(self) -> T_co: ...

    @property
    def en(self) -> T_co: ...


def pick(names: Bilingual[T_co], lang: str) -> T_co:
    """The one zh/en chooser: ``names`` in ``lang`` (Chinese for any language but English)."""
    return names.en if lang == "en" else names.zh


class CatalogueError(ValueError):
    """A catalogue that is missing or cannot be read."""


def catalogue_path(lang: str) -> Path:
    return LOCALE_DIR / LOCALES[lang] / "LC_MESSAGES" / "messages.po"


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    """The message id -> text map of one language (read once)."""
    path = catalogue_path(lang)
    try:
        with path.open("rb") as f:
            po = read_po(f, locale=LOCALES[lang], abort_invalid=True)
    except (OSError, ValueError) as e:
        raise CatalogueError(f"cannot read the {lang} catalogue {path}: {e}") from None
    return {str(m.id): str(m.string) for m in po if m.id and isinstance(m.id, str) and m.string}


def load() -> None:
    """Read every catalogue now, so a broken one stops the start-up rather than a command later."""
    for lang in LANGUAGES:
        catalogue(lang)


def t(key: str, lang: str = DEFAULT_LANG, /, **fields: object) -> str:
    """The text of ``key`` in ``lang`` (Chinese when that language lacks it), formatted with ``fields``."""
    template = catalogue(lang if lang in LOCALES else DEFAULT_LANG).get(key) or catalogue(DEFAULT_LANG)[key]
    return template.format(**fields)  # always: literal braces are written {{ }} in every template


def language_of_code(code: str | None) -> str:
    """Our language for a Telegram ``language_code``: Chinese for zh-* or none, English for anything else."""
    if not code or code.lower().startswith("zh"):
        return "zh"
    return "en"


async def private_language(db: Database, user: User) -> str:
    """The player's language: their /lang choice, else (first meeting) their Telegram language, then stored."""
    player = await db.players.get(user.id)
    if player is not None:
        return player.language
    lang = language_of_code(user.language_code)
    await db.players.upsert(user.id, user.full_name or str(user.id), lang)
    return lang


async def language_for(db: Database, chat_id: int, user: User | None) -> str:
    """The language of an answer to what ``user`` sent, wherever they sent it: theirs (an English player's /me
    in a Chinese group is English); the chat's setting only when no person sent it (a command sent as a chat)."""
    if user is not None:
        return await private_language(db, user)
    return (await db.chats.get(chat_id)).language

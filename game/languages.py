"""The languages the game is told in, by code, 中文 first (the default).

One home for the list: the settlement's breakdown is written in each (game.scoring), the bot has a catalog for
each (bot/locales), and storage keeps a person's or a group's choice among them. Here, in the engine every other
package may import, so that none of them reaches into another's room for it.
"""

from typing import Final

LANGUAGES: Final = ("zh", "en")

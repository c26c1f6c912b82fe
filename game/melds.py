"""Melds: the sets a player has exposed or set aside (RULES.md §4–§5), and how a hand was won.

A ``Meld`` is immutable and serialises to the same JSON the calculator reads (RULES.md §11):
``{"type": "chi", "tiles": "345m", "from": 0}``, ``{"type": "peng", "tile": "1z", "from": 3}``,
``{"type": "an_gang", "tile": "9p"}``. 红中杠 and 赖子杠 are counts on the player, not melds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal

from game.tiles import Tile, TileError, format_tiles, parse_tile, parse_tiles, tile_name

MeldKind = Literal["chi", "peng", "chong_gang", "xu_gang", "an_gang"]
MELD_KINDS: Final[tuple[MeldKind, ...]] = ("chi", "peng", "chong_gang", "xu_gang", "an_gang")
# How a hand was won (§11 ``how``).
WinHow = Literal["discard", "self_draw", "gang_draw", "haidi", "rob_gang"]
WIN_HOWS: Final[tuple[WinHow, ...]] = ("discard", "self_draw", "gang_draw", "haidi", "rob_gang")
SELF_DRAWN: Final[frozenset[str]] = frozenset({"self_draw", "gang_draw", "haidi"})


class MeldError(ValueError):
    """A meld that cannot exist: a chi that is not a sequence, a missing ``from`` ... The message is English;
    ``code`` and ``fields`` name the same complaint for a translated text (a catalogue id of the bot)."""

    def __init__(self, message: str, code: str, /, **fields: object) -> None:
        super().__init__(message)
        self.code = code
        self.fields = fields


@dataclass(frozen=True)
class Meld:
    kind: MeldKind
    # chi: the three tiles in order (lowest first); every other kind: the one tile, as (t,).
    tiles: tuple[Tile, ...]
    # The seat whose discard made it (for xu_gang: the one whose discard made the peng); None for an_gang.
    from_seat: int | None = None
    # chi only: which of the three tiles was the claimed discard (None when unknown, as in the calculator).
    claimed: Tile | None = None

    @property
    def tile(self) -> Tile:
        """The tile of a peng/gang; the lowest tile of a chi."""
        return self.tiles[0]

    @property
    def is_gang(self) -> bool:
        return self.kind in ("chong_gang", "xu_gang", "an_gang")

    @property
    def opens(self) -> bool:
        """开口: chi, peng, 冲杠 and 蓄杠 (which keeps its peng's opening) open a hand; 暗杠 does not."""
        return self.kind != "an_gang"

    @property
    def size(self) -> int:
        return 4 if self.is_gang else 3

    def all_tiles(self) -> list[Tile]:
        """Every physical tile of the meld (four for a gang)."""
        if self.kind == "chi":
            return list(self.tiles)
        return [self.tiles[0]] * self.size

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind}
        if self.kind == "chi":
            out["tiles"] = format_tiles(self.tiles)
            if self.claimed is not None:
                out["claimed"] = tile_name(self.claimed)
        else:
            out["tile"] = tile_name(self.tiles[0])
        if self.from_seat is not None:
            out["from"] = self.from_seat
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Meld:
        if not isinstance(obj, dict):
            raise MeldError("a meld must be an object", "meld_err_object")
        kind = obj.get("type")
        if kind not in MELD_KINDS:
            raise MeldError(f"unknown meld type {kind!r}", "meld_err_type", said=kind, kinds=", ".join(MELD_KINDS))
        src = obj.get("from")
        if kind == "an_gang":
            src = None
        elif not isinstance(src, int) or isinstance(src, bool) or not 0 <= src <= 3:
            raise MeldError(f"a {kind} needs 'from', a seat 0-3", "meld_err_from", kind=kind)
        try:
            if kind == "chi":
                raw = obj.get("tiles")
                if not isinstance(raw, str):
                    raise MeldError("a chi needs 'tiles', e.g. \"345m\"", "meld_err_chi_tiles")
                tiles = tuple(sorted(parse_tiles(raw)))
                raw = obj.get("claimed")
                claimed = parse_tile(raw) if isinstance(raw, str) else None
                meld = cls("chi", tiles, src, claimed)
            else:
                raw = obj.get("tile")
                if not isinstance(raw, str):
                    raise MeldError(f"a {kind} needs 'tile', e.g. \"1z\"", "meld_err_tile", kind=kind)
                meld = cls(kind, (parse_tile(raw),), src)
        except TileError as e:
            raise MeldError(str(e), "meld_err_not_tile", said=raw) from None
        meld.check()
        return meld

    def check(self) -> None:
        """Raise MeldError unless this meld could exist."""
        if self.kind == "chi":
            a = self.tiles
            if len(a) != 3 or a[0] >= 27 or not (a[1] == a[0] + 1 and a[2] == a[0] + 2) or a[0] % 9 > 6:
                raise MeldError("a chi must be three consecutive tiles of one suit", "meld_err_chi_run")
            if self.claimed is not None and self.claimed not in a:
                raise MeldError("a chi's claimed tile must be one of its tiles", "meld_err_chi_claimed")
        elif len(self.tiles) != 1:
            raise MeldError(f"a {self.kind} has one tile kind", "meld_err_one_kind", kind=self.kind)

"""A player's action — discard, claim, gang, win, pass — and its JSON form (the stored action log).

>>> Action.from_json(Action(2, "peng", 4).to_json())
Action(seat=2, kind='peng', tile=4)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final, Literal, get_args

from game.tiles import Tile, TileError, parse_tile, tile_name

ActionKind = Literal[
    "discard", "hu", "hongzhong_gang", "laizi_gang", "an_gang", "xu_gang", "chong_gang", "peng", "chi", "pass"
]
ACTION_KINDS: Final[tuple[ActionKind, ...]] = get_args(ActionKind)
TILE_ACTIONS: Final = frozenset({"discard", "an_gang", "xu_gang", "chong_gang", "peng", "chi"})


class ActionError(ValueError):
    """An action that cannot be read (bad JSON)."""


@dataclass(frozen=True, order=True)
class Action:
    seat: int
    kind: ActionKind
    # discard/an_gang/xu_gang/chong_gang/peng: the tile; chi: the LOWEST tile of the sequence; else None.
    tile: Tile | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"s": self.seat, "k": self.kind}
        if self.tile is not None:
            out["t"] = tile_name(self.tile)
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Action:
        if not isinstance(obj, dict):
            raise ActionError("an action must be an object")
        seat, kind, raw = obj.get("s"), obj.get("k"), obj.get("t")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise ActionError("an action needs 's', a seat 0-3")
        if kind not in ACTION_KINDS:
            raise ActionError(f"unknown action kind {kind!r}")
        if kind in TILE_ACTIONS:
            if not isinstance(raw, str):
                raise ActionError(f"a {kind} needs 't', a tile")
            try:
                tile: Tile | None = parse_tile(raw)
            except TileError as e:
                raise ActionError(str(e)) from None
        elif raw is not None:
            raise ActionError(f"a {kind} takes no tile")
        else:
            tile = None
        return cls(seat, kind, tile)

"""What one seat may see of a hand: the picture, the buttons and the automatic player all read this.

``Hand.view(seat)`` builds it (``seat=None`` for the group's spectator view). Another seat's concealed tiles,
another seat's 暗杠 tile (``HIDDEN``) and the wall never appear in it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from game.melds import Meld
from game.rules import DEFAULT_RULES, Rules
from game.tiles import HIDDEN, Tile, format_tiles, tile_name

if TYPE_CHECKING:
    from game.actions import Action
    from game.scoring import Settlement

Phase = Literal["turn", "claim", "rob", "haidi", "over"]


@dataclass(frozen=True)
class SeatView:
    seat: int | None  # None = spectator
    phase: Phase
    dealer: int
    laizi: Tile
    indicator: Tile
    wall_remaining: int
    turn: int  # whose turn it is (during claims: who discarded)
    hand: tuple[Tile, ...]  # own concealed tiles, sorted, without the drawn tile; () for a spectator
    drawn: Tile | None  # own freshly drawn tile, set apart
    hand_sizes: tuple[int, ...]  # concealed tiles per seat, drawn tile included
    melds: tuple[tuple[Meld, ...], ...]  # per seat; another seat's an_gang has tiles == (HIDDEN,)
    hongzhong_gangs: tuple[int, ...]
    laizi_gangs: tuple[int, ...]
    rivers: tuple[tuple[Tile, ...], ...]  # per seat, discards still lying there (claimed ones removed)
    last_discard: tuple[int, Tile] | None  # the discard on the table now: (seat, tile)
    claimable: Tile | None  # the tile this seat may claim now
    waits: tuple[Tile, ...]  # 听牌提示: tiles that would complete the own hand; () when not ready
    legal: tuple[Action, ...]  # this seat's legal actions now
    result: Settlement | None = None
    exhausted: bool = False  # 荒庄
    revealed: tuple[tuple[Tile, ...], ...] | None = None  # every concealed hand, only once the hand is over
    rules: Rules = DEFAULT_RULES  # the table's rules: the automatic player weighs payouts by them
    laizi_thrown: tuple[int, ...] = (0, 0, 0, 0)  # 丢赖子 per seat (RULES.md §4)

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, tiles by name; a hidden 暗杠 tile is ``null``."""
        return {
            "seat": self.seat,
            "phase": self.phase,
            "dealer": self.dealer,
            "laizi": tile_name(self.laizi),
            "indicator": tile_name(self.indicator),
            "wall_remaining": self.wall_remaining,
            "turn": self.turn,
            "hand": format_tiles(self.hand),
            "drawn": _name(self.drawn),
            "hand_sizes": list(self.hand_sizes),
            "melds": [[_meld_json(m) for m in ms] for ms in self.melds],
            "hongzhong_gangs": list(self.hongzhong_gangs),
            "laizi_gangs": list(self.laizi_gangs),
            "laizi_thrown": list(self.laizi_thrown),
            "rivers": [[tile_name(t) for t in r] for r in self.rivers],
            "last_discard": None
            if self.last_discard is None
            else [self.last_discard[0], tile_name(self.last_discard[1])],
            "claimable": _name(self.claimable),
            "waits": [tile_name(t) for t in self.waits],
            "legal": [a.to_json() for a in self.legal],
            "result": None if self.result is None else self.result.to_json(),
            "exhausted": self.exhausted,
            "revealed": None if self.revealed is None else [format_tiles(h) for h in self.revealed],
        }


def _name(t: Tile | None) -> str | None:
    return None if t is None else tile_name(t)


def _meld_json(m: Meld) -> dict[str, Any]:
    if m.tiles == (HIDDEN,):
        return {"type": m.kind, "tile": None}
    return m.to_json()

"""The settlement calculator of RULES.md §11: one finished hand as JSON in, the verdict and payments out.

    python -m game.calc hand.json        # or: ... | python -m game.calc
    {"valid": true, "reason": null, "patterns": ["pi_hu"], ..., "payments": [-32, 56, -8, -16], ...}

Exit status 0 for every hand that could exist (a hand that is no win included, with ``valid: false``);
malformed input exits 2 with ``{"error": "..."}`` on stdout. ``calculate(obj)`` does the same work
in-process, raising ``CalcError``.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import IO, Any, Final

from game.melds import WIN_HOWS, Meld, MeldError, WinHow
from game.rules import Rules, RulesError
from game.scoring import SeatMelds, Settlement, settle
from game.tiles import COPIES, HONGZHONG, NUM_KINDS, Tile, TileError, parse_tile, parse_tiles, tile_name, to_counts

TOP_KEYS: Final = frozenset({"rules", "dealer", "laizi", "winner", "how", "from", "tile", "concealed", "players"})
PLAYER_KEYS: Final = frozenset({"melds", "hongzhong_gangs", "laizi_gangs", "laizi_thrown", "ready"})
MELD_KEYS: Final[dict[str, frozenset[str]]] = {
    "chi": frozenset({"type", "tiles", "from", "claimed"}),
    "peng": frozenset({"type", "tile", "from"}),
    "chong_gang": frozenset({"type", "tile", "from"}),
    "xu_gang": frozenset({"type", "tile", "from"}),
    "an_gang": frozenset({"type", "tile"}),
}


class CalcError(ValueError):
    """Input that does not describe a hand that could have been played. The message is English (the command
    line's); ``code`` and ``fields`` name the same complaint for a translated text (the catalogue's id; for
    "calc_err_other", ``fields["error"]`` is the message itself)."""

    def __init__(self, message: str, code: str = "calc_err_other", /, **fields: object) -> None:
        super().__init__(message)
        self.code = code
        self.fields: dict[str, object] = {"error": message} if code == "calc_err_other" else fields


@dataclass(frozen=True)
class HandInput:
    """A §11 input, read and checked: exactly the arguments of ``game.scoring.settle``."""

    rules: Rules
    dealer: int
    laizi: Tile
    winner: int
    how: WinHow
    from_seat: int | None
    tile: Tile
    concealed: tuple[Tile, ...]
    seats: tuple[SeatMelds, ...]

    def settle(self) -> Settlement:
        return settle(
            self.rules,
            self.dealer,
            self.laizi,
            self.winner,
            self.how,
            self.from_seat,
            self.tile,
            self.concealed,
            self.seats,
        )


def calculate(obj: Any) -> Settlement:
    """Settle a parsed §11 input object; raises CalcError when it is malformed."""
    return parse_hand(obj).settle()


def parse_hand(obj: Any) -> HandInput:
    if not isinstance(obj, dict):
        raise CalcError("the input must be a JSON object", "calc_err_object")
    _no_unknown_keys(obj, TOP_KEYS, "")
    try:
        rules = Rules.from_json(obj.get("rules", "kaikoufan"))
    except RulesError as e:
        raise CalcError(str(e), e.code, **e.fields) from None
    dealer = _seat(obj, "dealer")
    winner = _seat(obj, "winner")
    laizi = _tile(obj, "laizi")
    if laizi == HONGZHONG:
        raise CalcError("laizi: 红中 (7z) is never the 赖子", "calc_err_laizi_red")
    how, from_seat = _how_and_from(obj, winner)
    tile = _tile(obj, "tile")
    if how in ("discard", "rob_gang") and tile in (HONGZHONG, laizi):
        raise CalcError("tile: 红中 and the 赖子 are never claimed, so nobody wins on one", "calc_err_tile_special")
    concealed = _tiles(obj, "concealed")

    players = obj.get("players")
    if not isinstance(players, list) or len(players) != 4:
        raise CalcError("players must be a list of four objects (seats 0-3)", "calc_err_players")
    seats = tuple(_player(p, seat, laizi) for seat, p in enumerate(players))

    expected = 13 - 3 * len(seats[winner].melds)
    if len(concealed) != expected:
        raise CalcError(
            f"concealed has {len(concealed)} tiles; with {len(seats[winner].melds)} melds the winner holds "
            f"{expected} before the winning tile",
            "calc_err_concealed",
            count=len(concealed),
            melds=len(seats[winner].melds),
            expected=expected,
        )
    if how == "rob_gang" and from_seat is not None:
        seats = _undo_robbed_gang(seats, from_seat, tile)
    _check_counts([*concealed, tile], seats, laizi)
    return HandInput(rules, dealer, laizi, winner, how, from_seat, tile, concealed, seats)


def _how_and_from(obj: dict[str, Any], winner: int) -> tuple[WinHow, int | None]:
    """How the hand was won and, for a discard or a robbed gang, from whom."""
    how = obj.get("how")
    if how not in WIN_HOWS:
        raise CalcError(f"how must be one of {', '.join(WIN_HOWS)}", "calc_err_how", hows=", ".join(WIN_HOWS))
    if how not in ("discard", "rob_gang"):
        if obj.get("from") is not None:
            raise CalcError(f"from is only for discard and rob_gang, not {how}", "calc_err_from_unused", how=how)
        return how, None
    from_seat = _seat(obj, "from", how)
    if from_seat == winner:
        raise CalcError("from must be another seat than the winner", "calc_err_from_winner")
    return how, from_seat


def _undo_robbed_gang(seats: tuple[SeatMelds, ...], robbed: int, tile: Tile) -> tuple[SeatMelds, ...]:
    """The robbed seat keeps its peng (§6); a robbed ``xu_gang`` listed in the input is read as that peng."""
    melds = seats[robbed].melds
    if not any(m.kind in ("peng", "xu_gang") and m.tile == tile for m in melds):
        raise CalcError(
            f"rob_gang: seat {robbed} has no peng of {tile_name(tile)} to add a kong to",
            "calc_err_rob",
            seat=robbed,
            tile=tile_name(tile),
        )
    undone = tuple(Meld("peng", m.tiles, m.from_seat) if m.kind == "xu_gang" and m.tile == tile else m for m in melds)
    return tuple(replace(s, melds=undone) if i == robbed else s for i, s in enumerate(seats))


def _no_unknown_keys(obj: dict[str, Any], allowed: frozenset[str], where: str) -> None:
    unknown = sorted(set(obj) - allowed)
    if unknown and not where:  # the input's own keys
        raise CalcError(f"unknown key {unknown[0]!r}", "calc_err_top_key", key=unknown[0])
    if unknown:
        raise CalcError(f"{where}: unknown key {unknown[0]!r}", "calc_err_key", where=where, key=unknown[0])


def _seat(obj: dict[str, Any], key: str, how: str | None = None) -> int:
    """A seat number at ``key`` (``how``: the win it is needed for, said in the complaint)."""
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 3:
        name = key if how is None else f"{key} (needed for how={how})"
        raise CalcError(f"{name} must be a seat number 0-3", "calc_err_seat", key=name)
    return value


def _tile(obj: dict[str, Any], key: str) -> Tile:
    value = obj.get(key)
    if not isinstance(value, str):
        raise CalcError(f'{key} must be a tile such as "5m"', "calc_err_tile_type", key=key)
    try:
        return parse_tile(value)
    except TileError as e:
        raise CalcError(f"{key}: {e}", "calc_err_not_tiles", key=key, said=value) from None


def _tiles(obj: dict[str, Any], key: str) -> tuple[Tile, ...]:
    value = obj.get(key)
    if not isinstance(value, str):
        raise CalcError(f'{key} must be a tile string such as "234678p345s5m"', "calc_err_tiles_type", key=key)
    try:
        return tuple(parse_tiles(value))
    except TileError as e:
        raise CalcError(f"{key}: {e}", "calc_err_not_tiles", key=key, said=value) from None


def _count(obj: dict[str, Any], key: str, where: str) -> int:
    value = obj.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= COPIES:
        raise CalcError(f"{where}: {key} must be a whole number 0-4", "calc_err_count", where=where, key=key)
    return value


def _player(obj: Any, seat: int, laizi: Tile) -> SeatMelds:
    where = f"players[{seat}]"
    if obj is None:
        return SeatMelds()
    if not isinstance(obj, dict):
        raise CalcError(f"{where} must be an object", "calc_err_player", where=where)
    _no_unknown_keys(obj, PLAYER_KEYS, where)
    raw_melds = obj.get("melds", [])
    if not isinstance(raw_melds, list):
        raise CalcError(f"{where}: melds must be a list", "calc_err_melds", where=where)
    if len(raw_melds) > 4:
        raise CalcError(f"{where}: at most four melds fit in a hand", "calc_err_melds_many", where=where)
    melds = tuple(_meld(m, seat, laizi, f"{where}.melds[{i}]") for i, m in enumerate(raw_melds))
    ready = obj.get("ready", True)
    if not isinstance(ready, bool):
        raise CalcError(f"{where}: ready must be true or false", "calc_err_ready", where=where)
    return SeatMelds(
        melds,
        _count(obj, "hongzhong_gangs", where),
        _count(obj, "laizi_gangs", where),
        ready,
        _count(obj, "laizi_thrown", where),
    )


def _meld(obj: Any, seat: int, laizi: Tile, where: str) -> Meld:
    try:
        meld = Meld.from_json(obj)
    except MeldError as e:
        raise CalcError(f"{where}: {e}", e.code, where=where, **e.fields) from None
    _no_unknown_keys(obj, MELD_KEYS[meld.kind], where)
    if meld.kind == "chi" and "claimed" in obj and meld.claimed is None:
        raise CalcError(
            f'{where}: claimed must be one of the chi\'s tiles, such as "4m"', "calc_err_claimed", where=where
        )
    if meld.from_seat == seat:
        raise CalcError(f"{where}: a seat cannot claim its own discard", "calc_err_own_discard", where=where)
    if meld.kind == "chi" and meld.from_seat != (seat - 1) % 4:
        raise CalcError(
            f"{where}: a chi comes from the 上家, seat {(seat - 1) % 4}",
            "calc_err_chi_from",
            where=where,
            seat=(seat - 1) % 4,
        )
    if any(t in (HONGZHONG, laizi) for t in meld.tiles):
        raise CalcError(
            f"{where}: 红中 and the 赖子 never make a chi, peng or gang", "calc_err_meld_special", where=where
        )
    return meld


def _check_counts(winner_tiles: Sequence[Tile], seats: Sequence[SeatMelds], laizi: Tile) -> None:
    """No tile kind may be seen more than four times across everything visible."""
    visible = list(winner_tiles)
    for s in seats:
        for m in s.melds:
            visible.extend(m.all_tiles())
        visible.extend([HONGZHONG] * s.hongzhong_gangs + [laizi] * (s.laizi_gangs + s.laizi_thrown))
    counts = to_counts(visible)
    for t in range(NUM_KINDS):
        if counts[t] > COPIES:
            raise CalcError(
                f"{counts[t]} copies of {tile_name(t)}: there are only four of each tile",
                "calc_err_copies",
                count=counts[t],
                tile=tile_name(t),
            )


def main(argv: list[str] | None = None, stdin: IO[str] | None = None, stdout: IO[str] | None = None) -> int:
    """Run the calculator: the argument is a file path (or none, for stdin). Returns the exit status."""
    args = sys.argv[1:] if argv is None else argv
    out = sys.stdout if stdout is None else stdout
    try:
        if len(args) > 1:
            raise CalcError("usage: python -m game.calc [file.json]")
        if args:
            with open(args[0], encoding="utf-8") as f:
                text = f.read()
        else:
            text = (sys.stdin if stdin is None else stdin).read()
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError) as e:
            raise CalcError(f"not valid JSON: {e}") from None
        result: dict[str, Any] = calculate(obj).to_json()
        status = 0
    except (CalcError, OSError, UnicodeDecodeError) as e:
        result, status = {"error": str(e)}, 2
    out.write(json.dumps(result, ensure_ascii=False) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())

"""Views built by hand (a table mid-hand, the same moment for every seat), a player card with its statistics panel,
and a crop comparison."""

from __future__ import annotations

import dataclasses

from PIL import Image, ImageChops

from game.melds import Meld
from game.patterns import PATTERNS
from game.rules import Rules
from game.scoring import SeatMelds, settle
from game.tiles import HIDDEN, Tile, parse_tile, parse_tiles
from game.view import SeatView
from rendering.draw import TileSpot
from rendering.standings_cards import CardStats, PlayerCard
from storage.stats import PlayerStats

NAMES = ("Alice", "王小明", "Bob", "李四")
SCORES = (120, -40, -200, 120)
LAIZI = parse_tile("5p")

# Seat 2 has just discarded 8m; seat 0 may claim it and is ready on 3m/6m; seat 1 (the dealer) holds 13.
HANDS: dict[int, tuple[Tile, ...]] = {
    0: tuple(sorted(parse_tiles("1245m567p339s"))),
    1: tuple(sorted(parse_tiles("456789m12p234s55z"))),
    2: tuple(sorted(parse_tiles("11223m44p"))),
    3: tuple(sorted(parse_tiles("5566m789p789s"))),
}
MELDS: dict[int, tuple[Meld, ...]] = {
    0: (Meld("peng", (parse_tile("7z"),), 3),),
    1: (),
    2: (Meld("chi", tuple(parse_tiles("345s")), 1, parse_tile("4s")), Meld("an_gang", (parse_tile("1z"),))),
    3: (Meld("chong_gang", (parse_tile("2s"),), 1),),
}
RIVERS = (parse_tiles("19m5z3p"), parse_tiles("1z2z9s8s6m5p"), parse_tiles("4z4z1m9p2p7s8m"), parse_tiles("3z6z1p"))


def make_view(seat: int | None, drawn: Tile | None = None, over: bool = False) -> SeatView:
    """The hand-built table as ``seat`` sees it (None = spectator); ``drawn`` gives the viewer a fresh tile."""
    melds = tuple(
        tuple(m if over or s == seat or m.kind != "an_gang" else Meld("an_gang", (HIDDEN,)) for m in MELDS[s])
        for s in range(4)
    )
    sizes = tuple(len(HANDS[s]) + (1 if s == seat and drawn is not None else 0) for s in range(4))
    return SeatView(
        seat=seat,
        phase="over" if over else "claim",
        dealer=1,
        laizi=LAIZI,
        indicator=parse_tile("4p"),
        wall_remaining=47,
        turn=2,
        hand=HANDS[seat] if seat is not None else (),
        drawn=drawn,
        hand_sizes=sizes,
        melds=melds,
        hongzhong_gangs=(1, 0, 0, 2),
        laizi_gangs=(0, 1, 0, 0),
        rivers=tuple(tuple(r) for r in RIVERS),
        last_discard=None if over else (2, parse_tile("8m")),
        claimable=parse_tile("8m") if seat == 0 and not over else None,
        waits=tuple(parse_tiles("36m")) if seat == 0 and not over else (),
        legal=(),
        revealed=tuple(HANDS[s] for s in range(4)) if over else None,
    )


def uncovered(spots: list[TileSpot]) -> list[TileSpot]:
    """The spots no later spot overlaps (a gang's fourth tile lies on top of its middle tile)."""

    def overlap(a: TileSpot, b: TileSpot) -> bool:
        ax0, ay0, ax1, ay1 = a.box
        bx0, by0, bx1, by1 = b.box
        return ax0 < bx1 and bx0 < ax1 and ay0 < by1 and by0 < ay1

    return [s for i, s in enumerate(spots) if not any(overlap(s, t) for t in spots[i + 1 :])]


def shows(picture: Image.Image, spot: TileSpot, tile: Image.Image | None = None) -> bool:
    """Whether ``picture`` shows ``tile`` (by default the spot's own tile image) exactly at ``spot``, comparing
    every pixel where the tile is opaque (its rounded corners let the background through)."""
    tile = tile if tile is not None else spot.image()
    crop = picture.crop(spot.box).convert("RGB")
    if crop.size != tile.size:
        return False
    opaque = tile.getchannel("A").point(lambda a: 255 if a == 255 else 0)
    diff = ImageChops.difference(crop, tile.convert("RGB"))
    return Image.composite(diff, Image.new("RGB", diff.size), opaque).getbbox() is None


def late_view(seat: int | None) -> SeatView:
    """The same table late in the hand: 19 to 21 discards a seat, 9 tiles left in the wall, seat 3 to act."""
    extra = parse_tiles("2m3m4m5m6m7m1p2p3p4p6p7p8p9p1s")
    view = make_view(seat)
    rivers = tuple(tuple(RIVERS[s]) + tuple(extra[: 19 - len(RIVERS[s]) + s]) for s in range(4))
    return dataclasses.replace(
        view,
        rivers=rivers,
        wall_remaining=9,
        last_discard=(2, rivers[2][-1]),
        claimable=rivers[2][-1] if seat == 0 else None,
        turn=3,
        phase="turn",
    )


def example_c() -> SeatView:
    """§12 C: seat 3 wins 风一色 碰碰胡 杠上开花 on 4z; 金顶, seat 2 liable."""
    winner_melds = (
        Meld("peng", (parse_tile("1z"),), 0),
        Meld("peng", (parse_tile("2z"),), 1),
        Meld("peng", (parse_tile("6z"),), 2),
        Meld("an_gang", (parse_tile("5z"),)),
    )
    seats = [SeatMelds(), SeatMelds(), SeatMelds(), SeatMelds(winner_melds)]
    s = settle(Rules(), 3, parse_tile("3s"), 3, "gang_draw", None, parse_tile("4z"), parse_tiles("4z"), seats)
    revealed = (
        tuple(parse_tiles("123456789m1234p")[:13]),
        tuple(parse_tiles("1112223334445p")),
        tuple(parse_tiles("5556667778889s")),
        (parse_tile("4z"), parse_tile("4z")),
    )
    return SeatView(
        seat=None,
        phase="over",
        dealer=3,
        laizi=parse_tile("3s"),
        indicator=parse_tile("2s"),
        wall_remaining=20,
        turn=3,
        hand=(),
        drawn=None,
        hand_sizes=(13, 13, 13, 2),
        melds=((), (), (), winner_melds),
        hongzhong_gangs=(0, 0, 0, 0),
        laizi_gangs=(0, 0, 0, 0),
        rivers=((),) * 4,
        last_discard=None,
        claimable=None,
        waits=(),
        legal=(),
        result=s,
        revealed=revealed,
    )


def player_stats(hands: int) -> PlayerStats:
    """Figures of a player of ``hands`` hands, every pattern won some times."""
    return PlayerStats(
        hands=hands, wins=hands // 4, self_draws=hands // 10, deal_ins=hands // 8, deal_in_known=hands,
        opened=hands // 2, open_known=hands, losses=hands // 2, win_points=hands * 40, loss_points=-hands * 25,
        biggest_win=960, hard_wins=3, capped_wins=2, golden_wins=1, tuoguan=4,
        patterns={p: i for i, p in enumerate(PATTERNS)},
    )  # fmt: skip


CARD = PlayerCard("Alice", 5120, 400, 100, 960, (2400, 2600, 5120))
CARD_WITH_STATS = dataclasses.replace(
    CARD, stats=CardStats((player_stats(400), player_stats(40), player_stats(120)), ("", "", "2026-Q4"))
)

"""Write one of every picture, from real engine states, to a folder: ``python -m rendering.gallery build/gallery``.

A seeded match is played by the automatic player (game.ai) until it has shown a busy table, a won hand with
a big pattern and a 荒庄 (or MAX_HANDS are played); the standings come from the same match (skill = 2400 +
net points, RULES.md §10). Each picture is written in Chinese and in English, the players named with
HARD_NAMES (CJK, emoji, Cyrillic, right-to-left, one of 40 characters).
"""

from __future__ import annotations

import dataclasses
import itertools
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from PIL import Image

from game.automatic import choose
from game.match import Match
from game.replay import replay_views
from game.rules import Rules
from game.table import Hand
from game.tiles import HIDDEN, NUM_KINDS, Tile, parse_tile
from game.titles import START_SKILL
from game.view import SeatView
from rendering.labels import LANGS, Lang
from rendering.replay_frames import render_replay_frame
from rendering.result import render_exhausted, render_result
from rendering.standings_cards import LeaderboardRow, PlayerCard, render_leaderboard, render_player_card
from rendering.table_picture import render_spectator_view, render_table_view
from rendering.tile_faces import render_tile, tile_dims

# Names that break naive text drawing: CJK, emoji, Cyrillic, right-to-left, and one of 40 characters.
NAMES: Final = {
    "zh": ("谢霆锋", "电脑 2", "🀄 Lucky 🔥", "محمد"),
    "en": ("Анна-Мария Ковалёва", "Maximilian Featherstonehaugh-Worthington", "武汉麻将群 🔥", "שרה כהן"),
}
GROUPS: Final = {"zh": "武汉麻将群 · 周五晚局", "en": "Wuhan Mahjong Friday Night Group"}
HARD_NAMES: Final = (*NAMES["zh"], *NAMES["en"], *GROUPS.values())
MATCH_SEED: Final = 2026
MAX_HANDS: Final = 60


@dataclass
class Scenes:
    """The moments worth a picture, gathered while the match is played."""

    table: tuple[SeatView, SeatView] | None = None  # one seat's view and the spectator's, at the same moment
    table_interest: int = 0
    table_scores: tuple[int, ...] = (0, 0, 0, 0)
    result: SeatView | None = None
    win_tile: Tile | None = None
    result_totals: tuple[int, ...] = (0, 0, 0, 0)
    exhausted: SeatView | None = None
    exhausted_totals: tuple[int, ...] = (0, 0, 0, 0)
    skill: list[list[int]] = field(default_factory=lambda: [[START_SKILL] for _ in range(4)])
    wins: list[int] = field(default_factory=lambda: [0] * 4)
    biggest: list[int] = field(default_factory=lambda: [0] * 4)
    hands: int = 0
    replay: Hand | None = None  # the first hand won with a big pattern, for the replay picture

    @property
    def complete(self) -> bool:
        big = self.result is not None and self.result.result is not None and self.result.result.patterns != ("pi_hu",)
        return self.table_interest >= GOOD_TABLE and big and self.exhausted is not None


def interest(view: SeatView, scores: tuple[int, ...]) -> int:
    """How much of the private picture a moment shows: melds about, the viewer ready (听牌提示) and offered a
    claim, gang counts and running scores. 0 for a moment not worth a picture."""
    if view.seat is None or view.phase == "over" or view.wall_remaining > 45:
        return 0
    melds = sum(len(m) for m in view.melds)
    return (
        min(melds, 6)
        + 3 * bool(view.waits)
        + 3 * bool(view.claimable is not None)
        + bool(view.melds[view.seat])
        + bool(sum(view.hongzhong_gangs) + sum(view.laizi_gangs))
        + bool(any(scores))
    )


GOOD_TABLE: Final = 15  # an interest at which the search stops looking for a better table moment


def play(max_hands: int = MAX_HANDS) -> Scenes:
    match = Match(Rules(), MATCH_SEED)
    scenes = Scenes()
    while scenes.hands < max_hands and not scenes.complete:
        hand = match.new_hand()
        win_tile = play_hand(hand, match, scenes)
        match.finish_hand(hand)
        scenes.hands += 1
        record_end(hand, match, scenes, win_tile)
    if scenes.exhausted is None:
        scenes.exhausted, scenes.exhausted_totals = play_to_exhaustion(match.new_hand()), tuple(match.totals)
    return scenes


def play_hand(hand: Hand, match: Match, scenes: Scenes) -> Tile | None:
    """Play ``hand`` out, keeping its most interesting table moment in ``scenes``; returns the winning tile."""
    win_tile: Tile | None = None
    while not hand.finished:
        view = hand.view(hand.waiting_on()[0])
        score = interest(view, tuple(match.totals))
        if score > scenes.table_interest:
            scenes.table, scenes.table_interest = (view, hand.view(None)), score
            scenes.table_scores = tuple(match.totals)
        for event in hand.apply(choose(view, "normal", MATCH_SEED)):
            if event.kind == "win":
                win_tile = parse_tile(event.data["tile"])
    return win_tile


def record_end(hand: Hand, match: Match, scenes: Scenes, win_tile: Tile | None) -> None:
    """A finished hand's result (the first with a big pattern is kept) or 荒庄, and everyone's skill."""
    result = hand.result
    if result is not None:
        scenes.wins[result.winner] += 1
        scenes.biggest[result.winner] = max(scenes.biggest[result.winner], result.payments[result.winner])
        kept = scenes.result.result if scenes.result is not None else None
        if kept is None or kept.patterns == ("pi_hu",):
            scenes.result, scenes.win_tile, scenes.result_totals = hand.view(None), win_tile, tuple(match.totals)
            scenes.replay = hand
    elif scenes.exhausted is None:
        scenes.exhausted, scenes.exhausted_totals = hand.view(None), tuple(match.totals)
    for seat in range(4):
        scenes.skill[seat].append(START_SKILL + match.totals[seat])


def replay_picture(hand: Hand, names: tuple[str, ...], lang: Lang) -> bytes:
    """A replay step two thirds into ``hand``, every hand open, as /replay shows it."""
    step = 2 * len(hand.actions) // 3
    views = replay_views(hand.rules, hand.seed, hand.dealer, hand.actions, open_hands=True)
    view = next(itertools.islice(views, step, None))
    return render_replay_frame(
        view, names, (0, 0, 0, 0), lang, step=step, total=len(hand.actions), action=hand.actions[step - 1]
    )


def play_to_exhaustion(hand: Hand) -> SeatView:
    """A hand in which nobody takes a win ends in 荒庄, whatever the automatic player's tuning."""
    while not hand.finished:
        view = hand.view(hand.waiting_on()[0])
        no_win = dataclasses.replace(view, legal=tuple(a for a in view.legal if a.kind != "hu"))
        hand.apply(choose(no_win, "normal", MATCH_SEED))
    return hand.view(None)


def tile_sheet(size: int = 72) -> Image.Image:
    """Every tile face, the back and a 赖子, on the felt."""
    w, h = tile_dims(size)
    tiles = [*range(NUM_KINDS), HIDDEN, 4]
    sheet = Image.new("RGB", (9 * (w + 8) + 8, 4 * (h + 8) + 8), (24, 84, 62))
    for i, t in enumerate(tiles):
        img = render_tile(t, size, laizi=i == len(tiles) - 1)
        sheet.paste(img, (8 + (i % 9) * (w + 8), 8 + (i // 9) * (h + 8)), img)
    return sheet


def build(out: Path, max_hands: int = MAX_HANDS) -> list[Path]:
    """Play the match and write every picture to ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    scenes = play(max_hands)
    written: list[Path] = []

    def write(name: str, data: bytes) -> None:
        path = out / name
        path.write_bytes(data)
        written.append(path)

    standings = sorted(range(4), key=lambda s: -scenes.skill[s][-1])
    for lang in LANGS:
        names = NAMES[lang]
        rows = [
            LeaderboardRow(rank + 1, names[s], scenes.skill[s][-1], scenes.hands, scenes.skill[s][-1] - START_SKILL)
            for rank, s in enumerate(standings)
        ]
        top = standings[0]
        card = PlayerCard(
            names[top],
            scenes.skill[top][-1],
            scenes.hands,
            scenes.wins[top],
            scenes.biggest[top],
            tuple(scenes.skill[top]),
        )
        if scenes.table is not None:
            seat_view, spectator_view = scenes.table
            write(f"table_seat_{lang}.png", render_table_view(seat_view, names, scenes.table_scores, lang))
            write(
                f"table_spectator_{lang}.png", render_spectator_view(spectator_view, names, scenes.table_scores, lang)
            )
        if scenes.result is not None:
            write(
                f"result_{lang}.png", render_result(scenes.result, names, lang, scenes.win_tile, scenes.result_totals)
            )
        if scenes.exhausted is not None:
            write(f"exhausted_{lang}.png", render_exhausted(scenes.exhausted, names, lang, scenes.exhausted_totals))
        write(f"leaderboard_{lang}.png", render_leaderboard(rows, lang, GROUPS[lang]))
        if scenes.replay is not None:
            write(f"replay_{lang}.png", replay_picture(scenes.replay, names, lang))
        write(f"player_card_{lang}.png", render_player_card(card, lang))
    sheet = out / "tiles.png"
    tile_sheet().save(sheet)
    written.append(sheet)
    return written


def main() -> None:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "build/gallery")
    for path in build(out):
        print(path)


if __name__ == "__main__":
    main()

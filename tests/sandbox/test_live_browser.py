"""The Mini App in a real headless Chromium (one browser, a tab a person) against the real bot process (one,
short timers) and the loopback Bot API. Each page is opened as Telegram opens it: the address from the web_app
button of the person's private picture, correctly signed initData in its #fragment.

Hand 1: Alice, Bob, Carol and Dan all play on the page, every move a click, to the result panel, then press
Ready there (which starts hand 2); nobody's private chat is written to meanwhile. Every frame a page received is
checked against the engine: the hand is replayed from the SQLite file's action log, and each frame must be the
seat's view at some point of it (its own concealed tiles and nobody else's, no hand revealed before the end),
in order, the last one the finished hand. Hand 2: Bob, Carol and Dan close their pages and play on their
pictures (brought up to date) while Alice plays on the page, her chat unwritten; she leaves it midway and plays
on from her picture, which is brought up to date. Forged initData (a bad hash, another user's id, an old
auth_date) and a person not at the table are refused. Screenshots at 360×780 in both languages go to
build/sandbox-screenshots/ (docs/img/live_*.png are copies)."""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from bot.callbacks import PlayButton, Stamp, parse_action_code
from bot.i18n import language_of_code, t
from bot.table.held import held_draw
from bot.table.state import Held
from bot.views.public_view import shown_view
from game.actions import Action
from game.table import Hand
from game.tiles import HIDDEN, tile_name
from game.view import SeatView
from sandbox import FakeTelegram
from sandbox.records import ApiCall, Message
from sandbox.users import SimUser
from sandbox.web_apps import init_data, launch_url
from storage.codec import load_rules
from tests.bot.test_live import SEAT_KEYS
from tests.e2e.players import FAST, BotProcess, Players, group_texts
from tests.e2e.policy import pick
from tests.sandbox.browser import Browser, chromium_or_skip
from tests.sandbox.page_client import free_port

HAND_OVER = ("胡了", "荒庄")
PHONE = {"width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True}
SHOTS = {"Alice": "live-zh", "Bob": "live-en"}  # a screenshot before their 6th move of hand 1


def _web_app_url(message: Message) -> str | None:
    for row in (message.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" in button:
                return str(button["web_app"]["url"])
    return None


class PagePlayer:
    """One person at the page in one tab: what it was sent, and their moves by clicking what it shows."""

    def __init__(self, browser: Browser, handle: str, shot: str) -> None:
        self.browser, self.handle, self.shot = browser, handle, shot
        self.pressed: set[str] = set()
        self.frames: list[dict[str, Any]] = []
        self.ask_tuoguan = False  # at their next decision: 托管 pressed on the page, then I'm back
        self.tuoguan: list[str] = []  # what of those was clicked

    def read(self) -> list[dict[str, Any]]:
        """Every frame the page received so far (only the new ones are fetched)."""
        self.browser.driver.switch_to.window(self.handle)
        new = self.browser.driver.execute_script("return window.liveFrames.slice(arguments[0])", len(self.frames))
        self.frames += new
        assert len(self.frames) < 3000  # the page keeps its last 3000: none dropped
        return self.frames

    def view(self) -> dict[str, Any] | None:
        views = [f for f in self.read() if f["type"] == "view"]
        return views[-1] if views else None

    def views(self, hand_number: int) -> list[dict[str, Any]]:
        return [f for f in self.frames if f["type"] == "view" and f["hand_number"] == hand_number]

    def step(self) -> bool:
        """Clicks their move on the newest view, once per prompt; whether it did."""
        view = self.view()
        if self.ask_tuoguan and view is not None and len(self.tuoguan) < 2:
            return self._tuoguan(view)
        if view is None or not view["actions"] or view["stamp"] in self.pressed:
            return False
        offered = {parse_action_code(a["code"], view["seat"]): a["code"] for a in view["actions"]}
        code = offered[pick(list(offered), lambda _a: True)]
        if len(self.pressed) == 5 and self.shot:
            self.browser.screenshot(self.shot)
            self.shot = ""
        from selenium.common.exceptions import WebDriverException  # (selenium only where a browser runs)

        try:
            self.browser.find(f'[data-code="{code}"]').click()
        except WebDriverException:  # drawn again under the click: tried again at the next look
            return False
        self.pressed.add(view["stamp"])
        return True

    def _tuoguan(self, view: dict[str, Any]) -> bool:
        code = "back" if self.tuoguan else "auto"
        if code == "auto" and (not view["actions"] or view["stamp"] in self.pressed):
            return False
        if code == "back" and not view["tuoguan"]:
            return False
        from selenium.common.exceptions import WebDriverException  # (selenium only where a browser runs)

        try:
            self.browser.find(f'[data-code="{code}"]').click()
        except WebDriverException:  # drawn again under the click: tried again at the next look
            return False
        if code == "auto":
            self.pressed.add(view["stamp"])
        self.tuoguan.append(code)
        return True

    def ready(self) -> None:
        """Presses Ready on the result panel; the page says it was taken."""
        lang = next(f["lang"] for f in self.read() if f["type"] == "hello")
        notices = sum(f["type"] == "notice" for f in self.frames)
        self.browser.click("#ready")
        self.browser.until(lambda: sum(f["type"] == "notice" for f in self.read()) > notices, what="Ready answered")
        assert [f["text"] for f in self.frames if f["type"] == "notice"][-1] == t("press_ok", lang)


def _check_frames(views: list[dict[str, Any]]) -> None:
    """A seat's views: its own tiles only (as many as the seat holds), nobody's hand before the end."""
    assert views, "no view reached the page"
    seat = views[0]["seat"]
    assert seat is not None
    for view in views:
        assert view["seat"] == seat
        if view["phase"] != "over":
            assert view["revealed"] is None
        # No pretend draw (bot.views.public_view): a seat holds what the table says it holds.
        assert len(view["hand"]) + (view["drawn"] is not None) == view["hand_sizes"][seat]


def _seen(view: SeatView) -> dict[str, Any]:
    """What a seat's view shows of the table, as a page frame carries it (tiles by name; a hidden tile left out)."""
    return {
        "phase": view.phase,
        "turn": view.turn,
        "wall": view.wall_remaining,
        "laizi": tile_name(view.laizi),
        "hand": [tile_name(x) for x in view.hand],
        "drawn": None if view.drawn is None else tile_name(view.drawn),
        "hand_sizes": list(view.hand_sizes),
        "rivers": [[tile_name(x) for x in river] for river in view.rivers],
        "melds": [[(m.kind, {tile_name(x) for x in m.tiles if x != HIDDEN}) for m in ms] for ms in view.melds],
        "revealed": None if view.revealed is None else [[tile_name(x) for x in h] for h in view.revealed],
    }


def _shown(frame: dict[str, Any]) -> dict[str, Any]:
    """The same of a page's view frame."""
    keys = ("phase", "turn", "wall", "laizi", "hand", "drawn", "hand_sizes", "revealed")
    return {k: frame[k] for k in keys} | {
        "rivers": [[r["tile"] for r in river] for river in frame["rivers"]],
        "melds": [[(m["kind"], {x for x in m["tiles"] if x}) for m in ms] for ms in frame["melds"]],
    }


def _engine_views(db_path: Path, hand_number: int) -> tuple[int, list[list[dict[str, Any]]]]:
    """The hand as stored (seed, dealer, rules, action log), replayed: its seed, each seat's view after each
    action."""
    with contextlib.closing(sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)) as raw:
        hand_id, seed, dealer, rules = raw.execute(
            "SELECT id, seed, dealer, rules FROM hands WHERE hand_no = ?", (hand_number,)
        ).fetchone()
        rows = raw.execute("SELECT action FROM actions WHERE hand_id = ? ORDER BY seq", (hand_id,)).fetchall()
    hand = Hand(load_rules(rules, "hand"), seed, dealer)
    states = [
        [_seen(view) for view in views]
        for views in replayed_views(hand, [Action.from_json(json.loads(a)) for (a,) in rows])
    ]
    return seed, states


def replayed_views(hand: Hand, actions: list[Action]) -> list[list[SeatView]]:
    """Each seat's view (and the group's, last) after each action of ``hand``'s log, and before each draw the
    table may have held back (bot.table.held.held_draw): every state a chat may be shown, in order."""
    seats = (0, 1, 2, 3, None)
    states = [[shown_view(hand, s) for s in seats]]
    for action in actions:
        before = (hand.phase, hand.claim_by, hand.claim_tile)
        held = held_draw(before, action, hand.apply(action))
        if held is not None:
            states.append([shown_view(hand, s, Held(*held, until=0.0)) for s in seats])
        states.append([shown_view(hand, s) for s in seats])
    return states


def _check_against_engine(
    views: list[dict[str, Any]], stored: tuple[int, list[list[dict[str, Any]]]], whole: bool
) -> None:
    """Each view is the seat's view at some point of the stored hand, in order, its seed nowhere before the end;
    ``whole``: the last view is the hand's end."""
    _check_frames(views)
    (seed, states), seat, at = stored, views[0]["seat"], 0
    for number, frame in enumerate(views):
        assert set(frame) == SEAT_KEYS  # nothing more: no wall, no seed
        assert frame["phase"] == "over" or str(seed) not in json.dumps(frame)
        shown = _shown(frame)
        at = next((k for k in range(at, len(states)) if states[k][seat] == shown), -1)
        assert at >= 0, f"seat {seat}'s view {number} is no state of the stored hand: {shown}"
    if whole:
        assert at == len(states) - 1 and views[-1]["phase"] == "over" and views[-1]["result"]


def _play(
    b: Browser, pages: dict[str, PagePlayer], pictures: Players | None, done: Callable[[], object], what: str
) -> None:
    """Everyone makes their move, on their page or their picture, until ``done()``."""

    def turn() -> bool:
        for page in list(pages.values()):
            page.step()
        if pictures is not None:
            pictures.step()
        return bool(done())

    b.until(turn, timeout=150, what=what)


def _refusals(b: Browser, tg: FakeTelegram, page: str, alice: SimUser, bob: SimUser, eve: SimUser) -> None:
    """Forged initData and a stranger, each in a fresh page load: refused with a reason, no view sent."""
    good = init_data(alice, tg.token)
    mine, bobs = f"%22id%22%3A{alice.id}%2C", f"%22id%22%3A{bob.id}%2C"
    assert mine in good
    zh = t("live_bad_init_data", "zh")
    cases = [
        (good.replace(quote(alice.first_name), "Mallory"), alice, zh),  # a bad hash: a field changed after signing
        (good.replace(mine, bobs), alice, zh),  # another user's id
        (init_data(alice, tg.token, auth_date=time.time() - 2 * 86400), alice, zh),  # signed two days ago
        (init_data(eve, tg.token), eve, t("live_not_at_table", language_of_code(eve.language_code))),
    ]
    b.driver.switch_to.window(b.driver.window_handles[0])  # the browser's first tab, left blank till now
    for n, (data, user, refusal) in enumerate(cases):
        b.open(launch_url(f"{page}&n={n}", user, tg.token, data=data))  # another query: a new page load
        b.until(functools.partial(_status_is, b, refusal), what=f"refusal {n}")
        frames = b.driver.execute_script("return window.liveFrames")
        assert [f["type"] for f in frames] == ["refused"]


def _status_is(b: Browser, text: str) -> bool:
    return bool(b.find("#status").text == text)


def _picture_shown(tg: FakeTelegram, user: SimUser, since: int) -> bool:
    """Whether the person's picture was written after the chat's first ``since`` requests: in play, with the
    page's button (a hand's last state has none)."""
    return any("web_app" in str(c.params.get("reply_markup")) for c in tg.calls(chat_id=user.id)[since:])


def _leave(b: Browser, tg: FakeTelegram, pages: dict[str, PagePlayer], user: SimUser) -> None:
    """The person closes their page: their picture is brought up to date."""
    pages.pop(user.first_name).read()
    since = len(tg.calls(chat_id=user.id))
    b.driver.close()
    b.until(functools.partial(_picture_shown, tg, user, since), what=f"{user.first_name}'s picture brought up to date")


def _in_play_writes(tg: FakeTelegram, user: SimUser, since: int) -> list[ApiCall]:
    """The bot's requests to the person's chat after its first ``since`` that show the hand in play: a picture
    with the page's button or a move to press (anything else but a hand's last state: its last picture, its
    result, Ready going away)."""
    out = []
    for call in tg.calls(chat_id=user.id)[since:]:
        markup = json.loads(str(call.params.get("reply_markup") or "{}"))
        buttons = [b for row in markup.get("inline_keyboard", []) for b in row]
        moves = [b for b in buttons if str(b.get("callback_data", "")).startswith("v1|")]
        if any("web_app" in b for b in buttons) or any(
            PlayButton.decode(b["callback_data"]).stamp != Stamp() for b in moves
        ):
            out.append(call)
        elif call.method not in ("editMessageMedia", "editMessageCaption", "sendPhoto"):
            out.append(call)  # no text, no deletion either
    return out


def _lazily(calls: list[ApiCall]) -> None:
    """While their page is open, a person's chat follows lazily: a picture at a time, a passive interval apart
    (the first of a hand, a new message, at once)."""
    interval = float(FAST["MAHJONG_PASSIVE_INTERVAL"])
    assert all(c.method in ("editMessageMedia", "editMessageCaption", "sendPhoto") for c in calls), calls
    edits = [c for c in calls if c.method != "sendPhoto"]
    assert all(b.at - a.at >= 0.9 * interval for a, b in itertools.pairwise(edits)), [c.at for c in edits]


def _hands_over(tg: FakeTelegram, group: Any) -> int:
    return sum(any(w in x for w in HAND_OVER) for x in group_texts(tg, group))


def _start_table(tg: FakeTelegram, users: list[SimUser]) -> Any:
    group = tg.add_group("牌友群", members=users, admins=users[:1])
    users[0].say(group, "/newgame")
    # The table open before anyone joins it (a /join handled first would find no table).
    tg.wait_for_message(group.id, lambda m: "开局" in str(m.reply_markup), timeout=20)
    for user in users[1:]:
        user.say(group, "/join")
    lobby = tg.wait_for_message(
        group.id, lambda m: "Dan" in (m.text or "") and "开局" in str(m.reply_markup), timeout=20
    )
    users[0].press(lobby, "开局")
    return group


def test_four_on_the_page_then_one_on_the_page_three_on_pictures(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    chromium_or_skip()
    tg = fake_telegram
    alice, carol, dan = (tg.add_user(n) for n in ("Alice", "Carol", "Dan"))
    bob, eve = tg.add_user("Bob", language_code="en"), tg.add_user("Eve", language_code="en")
    people = [alice, bob, carol, dan]
    port = free_port()
    live = {"MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{port}/", "MAHJONG_WEBAPP_LISTEN": f"127.0.0.1:{port}",
            "MAHJONG_WEBAPP_NAME": "table", "MAHJONG_SEED": "852"}  # fmt: skip
    db_path = tmp_path / "db.sqlite3"
    with BotProcess(tg, db_path, **live) as bot, Browser(tmp_path / "b", width=360, height=780) as b:
        group = _start_table(tg, people)
        pages: dict[str, PagePlayer] = {}
        opened: dict[str, int] = {}
        urls: dict[str, str] = {}
        for user in people:
            picture = user.wait_for_private_message(lambda m: _web_app_url(m) is not None, timeout=20)
            url = _web_app_url(picture)
            assert url is not None and urlsplit(url).netloc == f"127.0.0.1:{port}"
            urls[user.first_name] = url
            b.driver.switch_to.new_window("tab")
            b.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)  # 360×780, as on a phone
            b.open(launch_url(url, user, tg.token))
            shot = SHOTS.get(user.first_name, "")
            page = pages[user.first_name] = PagePlayer(b, b.driver.current_window_handle, shot)
            b.until(page.view, what=f"{user.first_name}'s first view")
            opened[user.first_name] = len(tg.calls(chat_id=user.id))  # from now on their picture waits
        spectator = tg.wait_for_message(group.id, lambda m: any("startapp=" in (x.url or "") for x in m.buttons))
        link = f"https://t.me/{tg.bot_username}/table?startapp="
        assert any(x.url and x.url.startswith(link) for x in spectator.buttons)

        # Hand 1: all four on the page, to the result panel.
        _play(b, pages, None, lambda: all((v := p.view()) and v["result"] for p in pages.values()), "hand 1's end")
        bob_page = pages["Bob"]
        bob_page.read()
        assert b.find("#panel").is_displayed() and bob_page.views(1)[-1]["result"]["lines"]
        b.screenshot("live-en-result")
        states = _engine_views(db_path, 1)
        for page in pages.values():
            _check_against_engine(page.views(1), states, whole=True)
            page.ready()  # the fourth Ready starts hand 2
        for user in people:  # their chats followed lazily while they played on the page
            _lazily(_in_play_writes(tg, user, opened[user.first_name]))
        assert _hands_over(tg, group) == 1

        # Hand 2: Alice on the page, the others back on their pictures, brought up to date as they leave theirs.
        b.until(lambda: pages["Alice"].read() and pages["Alice"].views(2), what="hand 2 on Alice's page")
        for user in people[1:]:
            _leave(b, tg, pages, user)
        alice_page = pages["Alice"]
        pictures = Players(tg, group, people[1:])
        pressed, opened["Alice"] = len(alice_page.pressed), len(tg.calls(chat_id=alice.id))
        alice_page.ask_tuoguan = True  # 托管 at her first decision on the page, then I'm back there

        def done() -> bool:
            over = _hands_over(tg, group) == 2
            assert not (over and "Alice" in pages), "hand 2 ended before Alice left her page"
            if "Alice" in pages and len(alice_page.pressed) >= pressed + 3:  # she leaves the page midway
                _lazily(_in_play_writes(tg, alice, opened["Alice"]))  # her chat followed lazily meanwhile
                _leave(b, tg, pages, alice)
                pictures.users.append(alice)
            return over and "Alice" not in pages

        _play(b, pages, pictures, done, "hand 2's end")
        assert alice in pictures.users and len(alice_page.pressed) > pressed
        assert alice_page.tuoguan == ["auto", "back"]
        assert any(v["tuoguan"] for v in alice_page.views(2)) and not alice_page.views(2)[-1]["tuoguan"]
        _check_against_engine(alice_page.views(2), _engine_views(db_path, 2), whole=False)
        _refusals(b, tg, urls["Alice"], alice, bob, eve)
    assert "Traceback" not in bot.log()

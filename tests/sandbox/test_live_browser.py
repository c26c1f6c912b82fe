"""The Mini App in a real headless Chromium against the real bot process (one, short timers) and the loopback Bot
API: Alice and Bob play through the page, opened as Telegram opens it (the page's address from the web_app
button of their private picture, correctly signed initData in its #fragment); Carol and Dan play on the
pictures. Halfway, Alice closes her page and plays on from her picture, which is brought up to date. Bob sees
the result panel and presses Ready there. Every frame a page received holds its own seat's tiles only; a
forged initData is refused. Screenshots at 360×780 in both languages go to build/sandbox-screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

from selenium.common.exceptions import WebDriverException

from bot.callbacks import parse_action_code
from bot.i18n import t
from sandbox import FakeTelegram
from sandbox.records import Message
from sandbox.users import SimUser
from sandbox.web_apps import init_data, launch_url
from tests.e2e.players import BotProcess, Players, group_texts
from tests.e2e.policy import pick
from tests.sandbox.browser import Browser, chromium_or_skip
from tests.sandbox.page_client import free_port

HAND_OVER = ("胡了", "荒庄")
PHONE = {"width": 360, "height": 780, "deviceScaleFactor": 2, "mobile": True}


def _web_app_url(message: Message) -> str | None:
    for row in (message.reply_markup or {}).get("inline_keyboard", []):
        for button in row:
            if "web_app" in button:
                return str(button["web_app"]["url"])
    return None


def _launch_url(page: str, token: str, user: SimUser, *, forge: bool = False) -> str:
    """The page as a Telegram client opens it: launch parameters in the fragment, initData signed by Telegram
    (``forge``: with the name changed after signing)."""
    data = init_data(user, token)
    return launch_url(page, user, token, data=data.replace(quote(user.first_name), "Mallory") if forge else data)


class PagePlayer:
    """One person at the page in one tab: what it was sent, and their moves by clicking what it shows."""

    def __init__(self, browser: Browser, handle: str, shot: str) -> None:
        self.browser, self.handle, self.shot = browser, handle, shot  # a screenshot before the 6th move
        self.pressed: set[str] = set()
        self.frames: list[dict[str, Any]] = []

    def read(self) -> list[dict[str, Any]]:
        self.browser.driver.switch_to.window(self.handle)
        self.frames = list(self.browser.driver.execute_script("return window.liveFrames"))
        return self.frames

    def view(self) -> dict[str, Any] | None:
        views = [f for f in self.read() if f["type"] == "view"]
        return views[-1] if views else None

    def step(self) -> bool:
        """Clicks their move on the newest view, once per prompt; whether it did."""
        view = self.view()
        if view is None or not view["actions"] or view["stamp"] in self.pressed:
            return False
        offered = {parse_action_code(a["code"], view["seat"]): a["code"] for a in view["actions"]}
        code = offered[pick(list(offered), lambda _a: True)]
        if len(self.pressed) == 5 and self.shot:
            self.browser.screenshot(self.shot)
            self.shot = ""
        try:
            self.browser.find(f'[data-code="{code}"]').click()
        except WebDriverException:  # drawn again under the click: tried again at the next look
            return False
        self.pressed.add(view["stamp"])
        return True


def _check_frames(frames: list[dict[str, Any]]) -> None:
    """A seat's frames: its own tiles only (as many as the seat holds), nobody's hand before the end."""
    views = [f for f in frames if f["type"] == "view"]
    assert views, "no view reached the page"
    seat = views[0]["seat"]
    assert seat is not None
    for view in views:
        assert view["seat"] == seat
        if view["phase"] != "over":
            assert view["revealed"] is None
        own, size = len(view["hand"]) + (view["drawn"] is not None), view["hand_sizes"][seat]
        # Not asked about a claim, the next seat sees the table as if its tile were drawn (bot.views.public_view).
        assert own == size or (own == size - 1 and view["turn"] == seat and not view["actions"])


def _start_table(tg: FakeTelegram, users: list[SimUser]) -> Any:
    group = tg.add_group("牌友群", members=users, admins=users[:1])
    users[0].say(group, "/newgame")
    for user in users[1:]:
        user.say(group, "/join")
    lobby = tg.wait_for_message(
        group.id, lambda m: "Dan" in (m.text or "") and "开局" in str(m.reply_markup), timeout=20
    )
    users[0].press(lobby, "开局")
    return group


def test_two_people_play_on_the_page_two_on_pictures(fake_telegram: FakeTelegram, tmp_path: Path) -> None:
    chromium_or_skip()
    tg = fake_telegram
    alice, carol, dan = (tg.add_user(n) for n in ("Alice", "Carol", "Dan"))
    bob = tg.add_user("Bob", language_code="en")
    port = free_port()
    live = {"MAHJONG_WEBAPP_URL": f"http://127.0.0.1:{port}/", "MAHJONG_WEBAPP_LISTEN": f"127.0.0.1:{port}",
            "MAHJONG_WEBAPP_NAME": "table", "MAHJONG_SEED": "852"}  # fmt: skip
    with BotProcess(tg, tmp_path / "db.sqlite3", **live) as bot, Browser(tmp_path / "b", width=360, height=780) as b:
        group = _start_table(tg, [alice, bob, carol, dan])
        pages = {}
        for user in (alice, bob):
            picture = user.wait_for_private_message(lambda m: _web_app_url(m) is not None, timeout=20)
            url = _web_app_url(picture)
            assert url is not None and urlsplit(url).netloc == f"127.0.0.1:{port}"
            b.driver.switch_to.new_window("tab")
            b.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)  # 360×780, as on a phone
            b.open(_launch_url(url, tg.token, user))
            shot = "live-en" if user.language_code == "en" else "live-zh"
            pages[user.first_name] = PagePlayer(b, b.driver.current_window_handle, shot)
            b.until(lambda u=user: pages[u.first_name].view(), what=f"{user.first_name}'s first view")
        opened = tg.writes_to(alice.id)  # from now on her picture waits: the page shows her the table
        spectator = tg.wait_for_message(group.id, lambda m: any("startapp=" in (x.url or "") for x in m.buttons))
        link = f"https://t.me/{tg.bot_username}/table?startapp="
        assert any(x.url and x.url.startswith(link) for x in spectator.buttons)
        pictures = Players(tg, group, [carol, dan])

        def play() -> bool:
            for page in list(pages.values()):
                page.step()
            pictures.step()
            if "Alice" in pages and len(pages["Alice"].pressed) >= 6:  # she leaves the page for her picture
                pages["Alice"].read()
                _check_frames(pages.pop("Alice").frames)
                assert tg.writes_to(alice.id) == opened  # not one write to her chat while she played on the page
                b.driver.close()
                pictures.users.append(alice)
                pages["Bob"].read()  # his tab now
                b.until(lambda: tg.writes_to(alice.id) > opened, what="Alice's picture brought up to date")
            return any(w in x for x in group_texts(tg, group) for w in HAND_OVER)

        b.until(play, timeout=120, what="the end of the hand")
        assert alice in pictures.users
        bob_page = pages["Bob"]
        result = b.until(lambda: (v := bob_page.view()) and v["result"], what="the result on Bob's page")
        assert result["lines"] and b.find("#panel").is_displayed()
        b.screenshot("live-en-result")
        b.click("#ready")
        b.until(lambda: any(f["type"] == "notice" for f in bob_page.read()), what="Ready answered")
        assert [f["text"] for f in bob_page.frames if f["type"] == "notice"][-1] == t("press_ok", "en")
        _check_frames(bob_page.frames)
        b.driver.switch_to.new_window("tab")  # a forged initData: refused, nothing shown
        b.open(_launch_url(f"http://127.0.0.1:{port}/?table=x", tg.token, alice, forge=True))
        b.until(lambda: b.find("#status").text == t("live_bad_init_data", "zh"), what="the refusal")
    assert "Traceback" not in bot.log()

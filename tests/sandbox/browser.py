"""A real headless Chromium (Debian's ``chromium`` and ``chromium-driver``) driven by Selenium, as a person at the
sandbox's page. ``chromium_or_skip()`` says why the browser tests cannot run here: a skip with the reason, or a
failure when ``CI`` is set (CI must run them).

    with Browser(tmp_path / "alice", width=1280) as alice:
        alice.open(url); alice.join("Alice", "en"); alice.click("#play")
        alice.press_first("private", pressed)     # a legal move under her newest prompt, once per version

It needs Selenium alone (pytest only for ``chromium_or_skip``): `.ci/newcomer` drives the page with it from a
venv of its own, beside a `make run` whose venv has only what running needs.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from tests.requires import skip_or_fail

CHROMIUM = "/usr/bin/chromium"
# Headless Chromium's window is never narrower than this: a phone's width is emulated instead (Browser).
NARROWEST_WINDOW = 500
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-proxy-server",
    "--disable-dev-shm-usage",
)
AUTO_LABELS = ("Auto", "托管")  # the 托管 button's label in each language (btn_auto; test_browser holds them to it)
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "sandbox-screenshots"
T = TypeVar("T")


def chromium_or_skip() -> None:
    """Nothing when Chromium, its driver and Selenium are here; else a skip saying so (a failure in CI)."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("selenium (pip install -e '.[browser]')")
    if not missing:
        return
    reason = f"browser tests did not run: missing {', '.join(missing)} (apt-get install chromium chromium-driver)"
    skip_or_fail(reason)


class Chromium:
    """One headless Chromium (one profile), whose windows are people (``Browser(chromium)``): the page keeps a
    person's key per tab (sessionStorage), so each window is another person."""

    def __init__(self, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service

        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},{height}"):
            options.add_argument(flag)
        self.driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
        self.first = self.driver.current_window_handle  # kept open: a Chromium with no window has ended
        self.active: Browser | None = None  # whose window the driver is on (a test may switch within it)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.driver.quit()


class Browser:
    """One person: a Chromium of their own (``Browser(profile)``), or a window of a shared one (``Browser(chromium)``),
    at a window size; narrower than a window can be, a phone's screen (its width and height exactly, overlay
    scrollbars). ``driver`` is on this person's window whenever they use it."""

    def __init__(self, where: Path | Chromium, *, width: int = 1280, height: int = 900) -> None:
        self.own = not isinstance(where, Chromium)
        self.chromium = Chromium(where, width=width, height=height) if isinstance(where, Path) else where
        chromium = self.chromium
        if self.own:
            self.window = chromium.first
        else:
            chromium.driver.switch_to.new_window("window")
            chromium.driver.set_window_size(width, height)
            self.window = chromium.driver.current_window_handle
        chromium.active = self
        if width < NARROWEST_WINDOW:
            metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
            self.driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", metrics)

    @property
    def driver(self) -> Any:
        if self.chromium.active is not self:  # another person's window was in use: back to this one's
            self.chromium.driver.switch_to.window(self.window)
            self.chromium.active = self
        return self.chromium.driver

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if self.own:
            self.chromium.__exit__(kind, err, tb)
            return
        self.driver.close()  # this person's window (with its tab's page, key and phone screen)
        self.chromium.driver.switch_to.window(self.chromium.first)
        self.chromium.active = None

    def open(self, url: str) -> None:
        self.driver.get(url)

    def find(self, css: str) -> Any:
        from selenium.webdriver.common.by import By

        return self.driver.find_element(By.CSS_SELECTOR, css)

    def click(self, css: str) -> None:
        self.find(css).click()

    def join(self, name: str, lang: str) -> None:
        """The first screen: a name, a language, Start."""
        from selenium.webdriver.support.ui import Select

        self.until(lambda: self.find("#welcome").is_displayed())
        self.find("#name").send_keys(name)
        Select(self.find("#lang")).select_by_value(lang)
        self.click("#enter")
        self.until(lambda: self.find("#app").is_displayed())

    def say(self, pane: str, text: str) -> None:
        field = self.find(f"#{pane} .composer input")
        field.send_keys(text)
        self.click(f"#{pane} .composer [type=submit]")

    def messages(self, pane: str) -> list[dict[str, Any]]:
        """The pane's messages as shown: id, edits, text, whether a picture is shown (and loaded), buttons (a
        Mini App's apart: ``web_apps``)."""
        script = """
            return [...document.querySelectorAll(`#${arguments[0]} li.msg`)].map(li => ({
                id: Number(li.dataset.id), edits: Number(li.dataset.edits),
                text: li.querySelector('.text')?.textContent ?? '',
                picture: Boolean(li.querySelector('img')?.naturalWidth),
                buttons: [...li.querySelectorAll('.keyboard button:not(.web-app)')].map(b => b.textContent),
                web_apps: [...li.querySelectorAll('.keyboard button.web-app')].map(b => b.textContent),
            }));"""
        return list(self.driver.execute_script(script, pane))

    def button(self, pane: str, message_id: int, label: str) -> Any:
        from selenium.webdriver.common.by import By

        item = self.find(f'#{pane} li.msg[data-id="{message_id}"]')
        return next(b for b in item.find_elements(By.CSS_SELECTOR, ".keyboard button") if b.text == label)

    def prompt(self, pane: str, done: set[tuple[int, int]]) -> dict[str, Any] | None:
        """The pane's newest table picture offering buttons (a decision, a result's), unless its version (id,
        edits) is in ``done``; a text's buttons (the hello's ⚡ Quick match) are no move of a hand."""
        for message in reversed(self.messages(pane)):
            if message["buttons"] and message["picture"]:
                return None if (message["id"], message["edits"]) in done else message
        return None

    def press_first(self, pane: str, done: set[tuple[int, int]]) -> bool:
        """Clicks the first button under the newest prompt that is a move of her own (a legal move whatever it is:
        not 托管, which would hand her turns to the automatic player); whether it did."""
        prompt = self.prompt(pane, done)
        if prompt is None:
            return False
        done.add((prompt["id"], prompt["edits"]))
        label = next((b for b in prompt["buttons"] if b not in AUTO_LABELS), prompt["buttons"][0])
        self.button(pane, prompt["id"], label).click()
        return True

    def overflowing_buttons(self) -> list[str]:
        """The labels of the page's buttons whose text does not fit inside them, or which stick out of their row,
        their message's bubble or the screen (what a person sees as a label spilling out)."""
        script = """
            const inside = (a, b) => a.left >= b.left - 1 && a.right <= b.right + 1
                && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
            return [...document.querySelectorAll('.keyboard button')].filter(b => {
                if (b.offsetParent === null) return false;
                const box = b.getBoundingClientRect(), label = document.createRange();
                label.selectNodeContents(b);
                return b.scrollWidth > b.clientWidth + 1 || !inside(label.getBoundingClientRect(), box)
                    || !inside(box, b.parentElement.getBoundingClientRect())
                    || !inside(box, b.closest('li.msg').getBoundingClientRect()) || box.right > window.innerWidth;
            }).map(b => b.textContent);"""
        return list(self.driver.execute_script(script))

    def sideways(self) -> list[str]:
        """What scrolls sideways, as nothing on the page should: the page itself, a chat shown."""
        script = """
            const page = document.documentElement, lists = [...document.querySelectorAll('.messages')];
            return [...(page.scrollWidth > page.clientWidth ? [`the page: ${page.scrollWidth} px`] : []),
                ...lists.filter(l => l.offsetParent && l.scrollWidth > l.clientWidth).map(l => l.parentElement.id)];"""
        return list(self.driver.execute_script(script))

    def in_view(self, pane: str, message_id: int, *, open_tab: bool = False) -> bool:
        """Whether the message's buttons and the bottom of its picture (a hand's tiles) are on the screen, within
        its chat; ``open_tab``: as the person opens the chat's tab (pressed in the same script: nothing the page
        does afterwards counts)."""
        script = """
            if (arguments[2]) document.querySelector(`#tabs [data-pane="${arguments[0]}"]`).click();
            const item = document.querySelector(`#${arguments[0]} li.msg[data-id="${arguments[1]}"]`);
            if (!item || item.offsetParent === null) return false;
            const picture = item.querySelector('img'), keys = item.querySelector('.keyboard');
            const chat = item.parentElement.getBoundingClientRect();
            const seen = (box) => box.bottom > chat.top && box.bottom <= chat.bottom + 1;
            return Boolean(picture && keys && picture.naturalWidth && seen(picture.getBoundingClientRect())
                && seen(keys.getBoundingClientRect()) && keys.getBoundingClientRect().top >= chat.top - 1);"""
        return bool(self.driver.execute_script(script, pane, message_id, open_tab))

    def until(self, check: Callable[[], T], timeout: float = 20, what: str = "the page") -> T:
        """``check()``'s first truthy value, retried (stale elements included) until ``timeout``."""
        from selenium.common.exceptions import WebDriverException

        deadline = time.monotonic() + timeout
        while True:
            try:
                value = check()
                if value:
                    return value
            except (WebDriverException, LookupError, StopIteration):
                pass
            if time.monotonic() > deadline:
                self.screenshot("timeout")
                raise TimeoutError(f"timed out waiting for {what}")
            time.sleep(0.05)

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        self.driver.save_screenshot(str(path))
        return path

"""The sandbox page in a real headless Chromium, against the real bot process that `make run` starts without a
token (fast mode, quick timers): one person plays a whole hand against the bot by clicking the buttons under
their pictures (and looks in at the live table, the Mini App, on the way); two people, each in a window
of their own, sit at one table in the shared group (the module's people are windows of one Chromium: the page keeps
a person's key per tab). On a phone (390 and 360 px wide, both languages): the private chat
opens on the newest message, every button's label stays inside its bubble, an edited picture is never blank and
quick taps on a replay's ▶ all land. Screenshots go to build/sandbox-screenshots/ (docs/img/sandbox.png is one of
them)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.i18n import t
from tests.sandbox.browser import AUTO_LABELS, Browser, Chromium, chromium_or_skip
from tests.sandbox.page_client import SandboxProcess

HAND_OVER = ("wins!", "Exhaustive draw")
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 780}
# Every picture the chat's messages show, at every change of the list: whether each is loaded (a picture being
# replaced must never be blank), and the pictures each message has shown.
WATCH_PICTURES = """
    const list = document.querySelector(`#${arguments[0]} .messages`);
    window.blank = [];
    window.shown = {};
    const look = () => {
        for (const img of list.querySelectorAll('li.msg img')) {
            const id = img.closest('li.msg').dataset.id;
            if (!img.complete || !img.naturalWidth) window.blank.push(id);
            (window.shown[id] ??= new Set()).add(img.getAttribute('src'));
        }
    };
    new MutationObserver(look).observe(list, {subtree: true, childList: true, attributes: true});
    look();"""


@pytest.fixture(scope="module")
def chromium(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chromium]:
    """One Chromium for the module's people, a window each (tests.sandbox.browser.Chromium)."""
    chromium_or_skip()
    with Chromium(tmp_path_factory.mktemp("chromium")) as shared:
        yield shared


def _out_of_place(browser: Browser, pane: str) -> list[str]:
    """With the chat ``pane`` shown (on a phone, its tab): the buttons whose label spills out, what scrolls
    sideways."""
    browser.click(f'#tabs [data-pane="{pane}"]')
    return browser.overflowing_buttons() + browser.sideways()


def _at_end(browser: Browser) -> bool:
    """Whether the private chat is scrolled to its end (its newest message)."""
    script = "const l = document.querySelector('#private .messages'); return l.scrollHeight - l.scrollTop"
    return bool(browser.driver.execute_script(script + " - l.clientHeight < 2"))


def _blank(browser: Browser) -> list[str]:
    """The messages whose picture was blank at some change since WATCH_PICTURES began."""
    return list(browser.driver.execute_script("return window.blank"))


def _pictures_shown(browser: Browser, message_id: int) -> int:
    return int(browser.driver.execute_script("return window.shown[arguments[0]]?.size ?? 0", str(message_id)))


def _visit_the_live_table(browser: Browser) -> None:
    """Her picture's Mini App button opens the live table signed in as her (a tab of its own); she looks at her
    hand there, closes it and plays on from her pictures."""
    from selenium.webdriver.common.by import By

    chat, before = browser.driver.current_window_handle, set(browser.driver.window_handles)
    picture = next(m for m in reversed(browser.messages("private")) if m["web_apps"])
    item = browser.find(f'#private li.msg[data-id="{picture["id"]}"]')
    item.find_element(By.CSS_SELECTOR, ".keyboard button.web-app").click()
    tab = browser.until(lambda: set(browser.driver.window_handles) - before, what="the live table's tab")
    assert len(tab) == 1
    browser.driver.switch_to.window(tab.pop())
    browser.until(lambda: browser.find("#hand button.tile"), what="her hand on the live table")
    assert browser.find("#status").text and "Open the live table" in picture["web_apps"][0]
    browser.driver.close()
    browser.driver.switch_to.window(chat)


def _play_again_while_seated(browser: Browser) -> None:
    """Seated at her table, Play again makes no second group: it says so at once and offers the way back."""
    from selenium.webdriver.support.ui import Select

    browser.until(lambda: browser.prompt("private", set()), what="her hand dealt")
    own = Select(browser.find("#groups")).first_selected_option.text
    Select(browser.find("#groups")).select_by_index(0)  # she looks at the club meanwhile
    browser.click("#play")
    back = browser.until(lambda: browser.find("#toast button.back"), what="the way back to her table")
    assert browser.find("#toast").text.startswith("You are playing at a table already.")
    back.click()
    groups = Select(browser.find("#groups"))
    assert groups.first_selected_option.text == own and [o.text for o in groups.options].count(own) == 1


def _the_first_screen_speaks_the_language_chosen_on_it(browser: Browser) -> None:
    """中文 chosen: the form in Chinese, and a name of spaces refused there in Chinese (nobody made); English again."""
    from selenium.webdriver.support.ui import Select

    Select(browser.find("#lang")).select_by_value("zh")
    assert (browser.find("#name-label").text, browser.find("#enter").text) == ("你的名字", "开始")
    browser.find("#name").send_keys("   ")
    browser.click("#enter")
    browser.until(lambda: "名字要 1 到 32 个字符" in browser.find("#toast").text, what="the refusal in Chinese")
    assert browser.find("#welcome").is_displayed() and not browser.find("#app").is_displayed()
    browser.find("#name").clear()
    Select(browser.find("#lang")).select_by_value("en")
    assert browser.find("#name-label").text == "Your name"


def test_one_person_plays_a_whole_hand_against_the_bot(tmp_path: Path, chromium: Chromium) -> None:
    assert (t("btn_auto", "en"), t("btn_auto", "zh")) == AUTO_LABELS  # what press_first leaves alone
    with SandboxProcess(tmp_path) as sandbox, Browser(chromium) as alice:
        alice.open(sandbox.url)
        alice.screenshot("welcome")
        _the_first_screen_speaks_the_language_chosen_on_it(alice)
        alice.join("Alice", "en")
        alice.until(lambda: any("Hello" in m["text"] for m in alice.messages("private")), what="the bot's hello")
        alice.click("#play")
        alice.until(lambda: "Alice · table" in alice.find("#groups").text, what="her own group")
        _play_again_while_seated(alice)
        pressed: set[tuple[int, int]] = set()

        def hand_over() -> bool:
            if alice.press_first("private", pressed) and len(pressed) == 6:  # well into the hand: the README's picture
                alice.until(lambda: alice.prompt("private", pressed), what="her next turn")
                alice.screenshot("playing")
                _visit_the_live_table(alice)
            return any(word in m["text"] for m in alice.messages("group") for word in HAND_OVER)

        alice.until(hand_over, timeout=90, what="the end of the hand")
        group = alice.until(
            lambda: [m for m in alice.messages("group") if m["text"].startswith("Result of hand 1") and m["picture"]],
            what="the result picture in the group",
        )
        alice.screenshot("result")
        assert len(pressed) >= 5  # she played her part of the hand: her discards, her claims or passes
        # How it ended is said by the result itself (the group's picture of the hand became it): no notice aside.
        notices = [m for m in alice.messages("group") if any(word in m["text"] for word in HAND_OVER)]
        assert [m["id"] for m in notices] == [group[-1]["id"]]
    assert "Traceback" not in sandbox.log()


def test_two_people_in_two_windows_at_one_table(tmp_path: Path, chromium: Chromium) -> None:
    with (
        SandboxProcess(tmp_path) as sandbox,
        Browser(chromium) as alice,
        Browser(chromium, width=420, height=860) as bob,  # a phone: the two chats are tabs
    ):
        for browser, name in ((alice, "Alice"), (bob, "Bob")):
            browser.open(sandbox.url)
            browser.join(name, "en")
        # In the shared club, which both see first: Alice, the first to come, owns it, and her /newgame there
        # gives it her language (a group that never chose one takes its creator's).
        alice.say("group", "/newgame")
        join, start = t("btn_join", "en"), t("btn_start", "en")
        lobby = bob.until(
            lambda: [m for m in bob.messages("group") if join in m["buttons"] and start in m["buttons"]],
            what="the lobby",
        )[-1]
        assert not bob.find("#private").is_displayed()
        bob.button("group", lobby["id"], join).click()  # a deep link: the private chat opens, seated
        bob.until(lambda: any("You are seated" in m["text"] for m in bob.messages("private")), what="Bob seated")
        assert bob.find("#private").is_displayed() and not bob.find("#group").is_displayed()
        alice.until(lambda: any("Bob" in m["text"] and start in m["buttons"] for m in alice.messages("group")))
        alice.button("group", lobby["id"], start).click()
        group_tab = '#tabs [data-pane="group"]'  # Bob reads his private chat; the deal shows in the group
        bob.until(lambda: "unread" in bob.find(group_tab).get_attribute("class"), what="news in Bob's group tab")
        done: dict[str, set[tuple[int, int]]] = {"alice": set(), "bob": set()}

        def both_played() -> bool:
            alice.press_first("private", done["alice"])
            bob.press_first("private", done["bob"])
            return bool(done["alice"]) and bool(done["bob"])

        alice.until(both_played, timeout=40, what="a move by each of them")
        alice.screenshot("two-people-alice")
        bob.screenshot("two-people-bob")
        for browser in (alice, bob):  # each sees their own hand (a picture being replaced loads again first)
            assert browser.until(lambda b=browser: [m for m in b.messages("private") if m["picture"]], what="a hand")
        assert alice.until(lambda: [m for m in alice.messages("group") if m["picture"]], what="the group's table")
    assert "Traceback" not in sandbox.log()


def test_on_a_phone_the_private_chat_opens_on_the_new_hand_and_follows_it(tmp_path: Path, chromium: Chromium) -> None:
    with SandboxProcess(tmp_path) as sandbox, Browser(chromium, **PHONE) as alice:
        alice.open(sandbox.url)
        alice.join("Alice", "en")
        alice.click("#play")  # her group's tab; her hand comes in the private chat's
        hand = alice.until(lambda: alice.prompt("private", set()), what="her hand with its buttons")
        alice.until(lambda: alice.prompt("private", set())["picture"], what="her hand's picture")  # type: ignore[index]
        assert alice.in_view("private", hand["id"], open_tab=True)
        alice.screenshot("phone-private-en")
        alice.driver.execute_script(WATCH_PICTURES, "private")
        pressed: set[tuple[int, int]] = set()
        alice.press_first("private", pressed)  # her discard: the hand's message is edited, a new picture
        alice.until(lambda: _pictures_shown(alice, hand["id"]) >= 2, what="her hand redrawn")
        assert not _blank(alice)
        assert alice.until(lambda: alice.in_view("private", hand["id"]), what="her hand still in view")
        # Scrolled up to read, she stays there while the bot writes below; back at the end, she follows it again.
        scrolled = "return document.querySelector('#private .messages').scrollTop"
        up = """const done = arguments[0], list = document.querySelector('#private .messages');
            list.addEventListener('scroll', () => setTimeout(() => done(list.scrollTop === 0)), {once: true});
            list.scrollTop = 0;"""  # done once the page has seen her scroll (again if it scrolled down meanwhile)
        alice.until(lambda: alice.driver.execute_async_script(up), what="the top of her chat")
        alice.say("private", "/rank")
        alice.until(lambda: "Titles" in alice.messages("private")[-1]["text"], what="the bot's answer")
        assert alice.driver.execute_script(scrolled) == 0
        alice.driver.execute_script("document.querySelector('#private .messages').scrollTop = 1e6")
        answers = len(alice.messages("private"))
        alice.say("private", "/rank")
        alice.until(lambda: len(alice.messages("private")) >= answers + 2, what="the bot's next answer")
        assert alice.until(lambda: _at_end(alice), what="the chat at its newest message")
    assert "Traceback" not in sandbox.log()


def test_on_a_phone_every_button_label_stays_inside_its_bubble(tmp_path: Path, chromium: Chromium) -> None:
    with (
        SandboxProcess(tmp_path) as sandbox,
        Browser(chromium, **SMALL_PHONE) as alice,
        Browser(chromium, **SMALL_PHONE) as li,
    ):
        for browser, name, lang in ((alice, "Alice", "en"), (li, "Li", "zh")):
            browser.open(sandbox.url)
            browser.join(name, lang)
            browser.click("#play")
        for browser, lang in ((alice, "en"), (li, "zh")):
            browser.until(lambda b=browser: b.prompt("private", set()), what="a hand with its buttons")
            browser.until(lambda b=browser: b.prompt("private", set())["picture"], what="its picture")  # type: ignore[index]
            assert _out_of_place(browser, "group") == []
            assert _out_of_place(browser, "private") == []
            browser.screenshot(f"phone-buttons-{lang}")
        alice.click('#tabs [data-pane="group"]')
        alice.say("group", "/settings")  # the longest labels, one a row
        preset = t("set_preset", "en")
        alice.until(lambda: any(preset in " ".join(m["buttons"]) for m in alice.messages("group")), what="/settings")
        assert _out_of_place(alice, "group") == []
        alice.screenshot("phone-settings-en")
        from selenium.webdriver.support.ui import Select

        Select(alice.find("#groups")).select_by_visible_text("麻将论坛 · Mahjong forum")  # its bar: topics too
        alice.until(lambda: alice.find("#topics").is_displayed(), what="the forum's topics")
        assert _out_of_place(alice, "group") == []
    assert "Traceback" not in sandbox.log()


def test_on_a_phone_quick_taps_on_a_replay_all_land(tmp_path: Path, chromium: Chromium) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    taps = 5
    quick = {"MAHJONG_TURN_SECONDS": "0.3", "MAHJONG_CLAIM_SECONDS": "0.3", "MAHJONG_NEXT_HAND_SECONDS": "600"}
    with SandboxProcess(tmp_path, **quick) as sandbox, Browser(chromium, **PHONE) as alice:
        alice.open(sandbox.url)
        alice.join("Alice", "en")
        alice.click("#play")  # she idles: her automatic player plays her hand out
        proof = re.compile(r"Replay code ([2-9A-Z]{6})")
        code = alice.until(
            lambda: next(found[1] for m in alice.messages("private") if (found := proof.search(m["text"]))),
            timeout=120,
            what="her hand's result",
        )
        alice.click('#tabs [data-pane="private"]')
        alice.say("private", f"/replay {code}")
        step = re.compile(rf"Replay {code} · hand 1 · step (\d+)/")

        def replay() -> dict[str, Any]:
            return next(m for m in reversed(alice.messages("private")) if step.search(m["text"]) and m["picture"])

        shown = alice.until(replay, what="the replay")
        alice.driver.execute_script(WATCH_PICTURES, "private")
        forward = ActionChains(alice.driver).move_to_element(alice.button("private", shown["id"], "▶"))
        for _ in range(taps):  # a person's quick taps on one spot, each as soon as the last
            forward.click().pause(0.1)
        forward.perform()
        alice.until(lambda: step.search(replay()["text"])[1] == str(taps), what=f"step {taps}")  # type: ignore[index]
        assert not _blank(alice) and _pictures_shown(alice, shown["id"]) >= 2
        assert _out_of_place(alice, "private") == []
        alice.screenshot("phone-replay-en")
    assert "Traceback" not in sandbox.log()

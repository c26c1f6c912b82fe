"""The sandbox page in a real headless Chromium, against the real bot process that `make run` starts without a
token (fast mode, quick timers): one person plays a whole hand against the bot by clicking the buttons under
their pictures (and looks in at the live table, the Mini App, on the way); two people, each in their own
browser, sit at one table in the shared group. Screenshots go to build/sandbox-screenshots/ (docs/img/sandbox.png
is one of them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bot.i18n import t
from tests.sandbox.browser import Browser, chromium_or_skip
from tests.sandbox.page_client import SandboxProcess

HAND_OVER = ("wins!", "Exhaustive draw")


def _prompt(browser: Browser, done: set[tuple[int, int]]) -> dict[str, Any] | None:
    """The person's newest private message offering buttons they have not pressed on in this version."""
    for message in reversed(browser.messages("private")):
        if message["buttons"]:
            return None if (message["id"], message["edits"]) in done else message
    return None


def _press_first(browser: Browser, done: set[tuple[int, int]]) -> bool:
    """Clicks the first button under the person's newest prompt (a legal move whatever it is); whether it did."""
    prompt = _prompt(browser, done)
    if prompt is None:
        return False
    done.add((prompt["id"], prompt["edits"]))
    browser.button("private", prompt["id"], prompt["buttons"][0]).click()
    return True


def _visit_the_live_table(browser: Browser) -> None:
    """Her picture's Mini App button opens the live table signed in as her (a tab of its own); she looks at her
    hand there, closes it and plays on from her pictures."""
    from selenium.webdriver.common.by import By

    chat = browser.driver.current_window_handle
    picture = next(m for m in reversed(browser.messages("private")) if m["web_apps"])
    item = browser.find(f'#private li.msg[data-id="{picture["id"]}"]')
    item.find_element(By.CSS_SELECTOR, ".keyboard button.web-app").click()
    browser.until(lambda: len(browser.driver.window_handles) == 2, what="the live table's tab")
    browser.driver.switch_to.window(next(h for h in browser.driver.window_handles if h != chat))
    browser.until(lambda: browser.find("#hand button.tile"), what="her hand on the live table")
    assert browser.find("#status").text and "Open the live table" in picture["web_apps"][0]
    browser.driver.close()
    browser.driver.switch_to.window(chat)


def _play_again_while_seated(browser: Browser) -> None:
    """Seated at her table, Play again makes no second group: it says so at once and offers the way back."""
    from selenium.webdriver.support.ui import Select

    browser.until(lambda: _prompt(browser, set()), what="her hand dealt")
    own = Select(browser.find("#groups")).first_selected_option.text
    Select(browser.find("#groups")).select_by_index(0)  # she looks at the club meanwhile
    browser.click("#play")
    back = browser.until(lambda: browser.find("#toast button.back"), what="the way back to her table")
    assert browser.find("#toast").text.startswith("You are playing at a table already.")
    back.click()
    groups = Select(browser.find("#groups"))
    assert groups.first_selected_option.text == own and [o.text for o in groups.options].count(own) == 1


def test_one_person_plays_a_whole_hand_against_the_bot(tmp_path: Path) -> None:
    chromium_or_skip()
    with SandboxProcess(tmp_path) as sandbox, Browser(tmp_path / "alice") as alice:
        alice.open(sandbox.url)
        alice.screenshot("welcome")
        alice.join("Alice", "en")
        alice.until(lambda: any("Hello" in m["text"] for m in alice.messages("private")), what="the bot's hello")
        alice.click("#play")
        alice.until(lambda: "Alice · table" in alice.find("#groups").text, what="her own group")
        _play_again_while_seated(alice)
        pressed: set[tuple[int, int]] = set()

        def hand_over() -> bool:
            if _press_first(alice, pressed) and len(pressed) == 6:  # well into the hand: the README's picture
                alice.until(lambda: _prompt(alice, pressed), what="her next turn")
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
        notice = next(m for m in alice.messages("group") if any(word in m["text"] for word in HAND_OVER))
        assert notice["id"] != group[-1]["id"]  # the group's notice: a message of its own beside the picture
    assert "Traceback" not in sandbox.log()


def test_two_people_in_two_browsers_at_one_table(tmp_path: Path) -> None:
    chromium_or_skip()
    with (
        SandboxProcess(tmp_path) as sandbox,
        Browser(tmp_path / "alice") as alice,
        Browser(tmp_path / "bob", width=420, height=860) as bob,  # a phone: the two chats are tabs
    ):
        for browser, name in ((alice, "Alice"), (bob, "Bob")):
            browser.open(sandbox.url)
            browser.join(name, "en")
        alice.say("group", "/newgame")  # in the shared club (in Chinese: the bot's default), which both see first
        join, start = t("btn_join", "zh"), t("btn_start", "zh")
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
            _press_first(alice, done["alice"])
            _press_first(bob, done["bob"])
            return bool(done["alice"]) and bool(done["bob"])

        alice.until(both_played, timeout=40, what="a move by each of them")
        alice.screenshot("two-people-alice")
        bob.screenshot("two-people-bob")
        for browser in (alice, bob):  # each sees their own hand (a picture being replaced loads again first)
            assert browser.until(lambda b=browser: [m for m in b.messages("private") if m["picture"]], what="a hand")
        assert alice.until(lambda: [m for m in alice.messages("group") if m["picture"]], what="the group's table")
    assert "Traceback" not in sandbox.log()

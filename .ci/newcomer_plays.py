"""A newcomer on a phone plays a hand in the sandbox page that `make run` serves (.ci/newcomer runs it).

    PYTHONPATH=. python .ci/newcomer_plays.py http://127.0.0.1:8080

At 390×844 in English: a name in two scripts, Play against the bot, the private chat's tab (as its unread dot
asks), the hand's picture and its buttons on the screen without scrolling, then the first button of each new
prompt until the group shows the hand's result; at every prompt no button's label spills out of its bubble.
Exits 1 with what went wrong (screenshots in build/sandbox-screenshots/)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from tests.sandbox.browser import SCREENSHOTS, Browser

HAND_OVER = ("wins!", "Exhaustive draw", "Result of hand 1")


def play(url: str) -> list[str]:
    """The problems seen, none when the journey went as it should."""
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as profile, Browser(Path(profile), width=390, height=844) as phone:
        phone.open(url)
        phone.join("王小明 Oleg", "en")
        phone.until(lambda: phone.find("#play").is_displayed(), what="the Play button")
        phone.click("#play")
        phone.until(lambda: "table" in phone.find("#groups").text, what="the person's own group")
        phone.until(lambda: "unread" in phone.find('#tabs [data-pane="private"]').get_attribute("class"), 30, "news")
        phone.click('#tabs [data-pane="private"]')
        first = phone.until(lambda: phone.prompt("private", set()), 60, "the first hand's picture with buttons")
        if not phone.until(lambda: phone.in_view("private", first["id"]), 5, "the hand in view"):
            problems.append("the hand's picture and buttons are not on the screen")
        phone.screenshot("newcomer-first-hand")
        pressed: set[tuple[int, int]] = set()
        spilled: set[str] = set()

        def hand_over() -> bool:
            spilled.update(phone.overflowing_buttons())
            seen = phone.messages("private") + phone.messages("group")
            if any(word in m["text"] for m in seen for word in HAND_OVER):
                return True
            phone.press_first("private", pressed)
            return False

        phone.until(hand_over, timeout=300, what="the end of the hand")
        phone.screenshot("newcomer-hand-over")
        if len(pressed) < 3:
            problems.append(f"only {len(pressed)} moves were made in the hand")
        if spilled:
            problems.append(f"labels spill out of their buttons: {sorted(spilled)}")
    return problems


def main() -> None:
    url = sys.argv[1]
    try:
        problems = play(url)
    except TimeoutError as e:
        problems = [f"{e} (screenshot in {SCREENSHOTS})"]
    for problem in problems:
        print(f"newcomer: {problem}", file=sys.stderr)
    if problems:
        sys.exit(1)
    print("newcomer: a phone-size browser played a hand in English, every button inside its bubble")


if __name__ == "__main__":
    main()

"""The sandbox's page API (sandbox.pages over sandbox.world), driven over HTTP as the page drives it, with the test
standing in for the bot through the Bot API of the same server."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from PIL import Image

from sandbox import FakeTelegram
from sandbox.pages import Pages
from sandbox.request_body import Upload
from sandbox.world import World
from tests.sandbox.page_client import PageClient


@pytest.fixture
def sandbox() -> Iterator[tuple[FakeTelegram, World]]:
    tg = FakeTelegram(bot_username="sandbox_test_bot")
    world = World(tg)
    tg.start(pages=Pages(world))
    try:
        yield tg, world
    finally:
        tg.stop()


def bot_call(tg: FakeTelegram, method: str, **params: Any) -> Any:
    """What the bot asks the Bot API (values as PTB posts them: JSON text for structures)."""
    values = {k: json.dumps(v) if isinstance(v, dict | list) else v for k, v in params.items()}
    status, answer = tg.call(tg.token, method, values, {})  # type: ignore[misc]
    assert status == 200, answer
    return answer["result"]


def keyboard(*labels: str) -> dict[str, Any]:
    return {"inline_keyboard": [[{"text": label, "callback_data": f"act:{label}"} for label in labels]]}


def _press_answered(
    tg: FakeTelegram, page: PageClient, chat: int, message: int, earlier: int, caption: str, text: str
) -> Any:
    """The page presses 胡 on the message; the test, as the bot would, answers it with ``text`` once it reaches
    getUpdates after ``earlier`` presses, carrying the message as it is now (its ``caption``): what the page got."""

    def answer_the_press() -> None:
        update = tg.wait_until(lambda: [u for u in bot_call(tg, "getUpdates") if "callback_query" in u][earlier:])[-1]
        assert update["callback_query"]["data"] == "act:胡"
        assert update["callback_query"]["message"]["caption"] == caption
        bot_call(tg, "answerCallbackQuery", callback_query_id=update["callback_query"]["id"], text=text)

    bot = threading.Thread(target=answer_the_press)
    bot.start()
    answer = page.post("/api/press", {"chat": chat, "message": message, "data": "act:胡"})
    bot.join()
    return answer


def test_a_person_joins_and_sees_their_chats(sandbox: tuple[FakeTelegram, World]) -> None:
    tg, world = sandbox
    page = PageClient(tg.url)
    assert page.request("/api/state")[0] == 401  # no key yet: the page asks for a name
    assert page.request("/api/join", {"name": "  ", "lang": "en"}) == (400, {"error": "a name is 1 to 32 characters"})
    assert page.request("/api/join", {"name": "Alice", "lang": "fr"})[0] == 400
    page.join("Alice  Liddell", "en")
    state = page.state()
    me = state["me"]
    assert me["name"] == "Alice Liddell" and me["lang"] == "en"
    assert [c["id"] for c in state["chats"]] == [me["id"], world.club.id, world.forum.id]
    private = state["chats"][0]
    assert private["type"] == "private" and private["title"] == tg.bot_name
    assert [(m["text"], m["mine"]) for m in private["messages"]] == [("/start", True)]  # START pressed
    assert state["chats"][2]["topics"] == []  # the forum group, no topic yet
    assert tg.calls() == []  # nothing asked of the Bot API: only the world changed
    # The page's long poll waits for a change of the world, and ends with it: Bob arriving.
    polled: list[dict[str, Any]] = []
    poll = threading.Thread(target=lambda: polled.append(page.state(state["version"])))
    poll.start()
    time.sleep(0.2)
    assert polled == []
    PageClient(tg.url).join("Bob", "en")
    poll.join(5)
    assert polled and polled[0]["version"] > state["version"]


def test_pictures_buttons_toasts_and_edits_reach_the_page(sandbox: tuple[FakeTelegram, World]) -> None:
    tg, _ = sandbox
    page = PageClient(tg.url)
    page.join("Bob", "zh")
    me = page.state()["me"]["id"]
    buffer = io.BytesIO()
    Image.new("RGB", (300, 200), "green").save(buffer, "PNG")
    sent = tg.call(
        tg.token,
        "sendPhoto",
        {"chat_id": me, "caption": "东风", "reply_markup": json.dumps(keyboard("打", "胡"))},
        {"photo": Upload("photo.png", "image/png", buffer.getvalue())},
    )
    assert sent is not None and sent[0] == 200
    shown = page.wait_for(me, lambda m: m["photo"] is not None)
    assert shown["text"] == "东风" and shown["size"] == [300, 200] and not shown["mine"]
    assert shown["keyboard"] == [[{"text": "打", "data": "act:打"}, {"text": "胡", "data": "act:胡"}]]
    status, picture = page.request(shown["photo"])
    assert status == 200 and picture == buffer.getvalue()

    # The press waits for the bot's answer (Telegram's spinner); the test answers as the bot would.
    answer = _press_answered(tg, page, me, shown["id"], 0, "东风", "还不能胡")
    assert answer == {"answer": {"text": "还不能胡", "alert": False}}

    bot_call(tg, "editMessageCaption", chat_id=me, message_id=shown["id"], caption="南风")  # no keyboard: it goes
    edited = page.wait_for(me, lambda m: m["id"] == shown["id"] and m["edits"] == 1)
    assert edited["text"] == "南风" and edited["keyboard"] == []

    # A tap on the button as the page drew it still goes out after an edit, as from a Telegram client showing the
    # older version (quick taps on a replay's ▶ each land); what no button could carry is refused.
    answer = _press_answered(tg, page, me, shown["id"], 1, "南风", "太迟了")  # the message as it is now
    assert answer == {"answer": {"text": "太迟了", "alert": False}}
    for data in ("", "x" * 65):
        assert page.request("/api/press", {"chat": me, "message": shown["id"], "data": data})[0] == 400


def test_messages_links_and_topics(sandbox: tuple[FakeTelegram, World]) -> None:
    tg, world = sandbox
    alice, bob = PageClient(tg.url), PageClient(tg.url)
    alice.join("Alice", "zh")
    bob.join("Bob", "en")
    bob_id = bob.state()["me"]["id"]
    assert alice.request("/api/say", {"chat": bob_id, "text": "hi"}) == (400, {"error": "not a chat of yours"})
    said = alice.post("/api/say", {"chat": world.club.id, "text": "/newgame"})
    club = bob.chat(world.club.id)  # everyone is in the club: Bob sees what Alice said
    assert [(m["id"], m["from"], m["text"]) for m in club["messages"]] == [(said["message"], "Alice", "/newgame")]
    updates = bot_call(tg, "getUpdates")
    assert updates[-1]["message"]["entities"][0]["type"] == "bot_command"  # a command, as Telegram marks it

    link = f"https://t.me/{tg.bot_username}?start=join_-100123"
    assert bob.post("/api/link", {"url": link}) == {"chat": bob_id}
    assert bob.chat(bob_id)["messages"][-1]["text"] == "/start"  # as Telegram shows it: the payload is the bot's
    assert bot_call(tg, "getUpdates")[-1]["message"]["text"] == "/start join_-100123"
    assert bob.request("/api/link", {"url": "https://t.me/other_bot?start=x"})[0] == 400

    opened = alice.post("/api/topic", {"name": "一号桌"})
    assert opened["chat"] == world.forum.id
    alice.post("/api/say", {"chat": world.forum.id, "text": "/newgame", "topic": opened["topic"]})
    forum = bob.chat(world.forum.id)
    assert forum["topics"] == [{"id": opened["topic"], "name": "一号桌"}]
    assert [(m["text"], m["topic"]) for m in forum["messages"]] == [("/newgame", opened["topic"])]


def test_the_first_person_owns_the_shared_groups(sandbox: tuple[FakeTelegram, World]) -> None:
    tg, world = sandbox
    alice, bob = PageClient(tg.url), PageClient(tg.url)
    alice.join("Alice", "en")
    bob.join("Bob", "zh")
    alice_id, bob_id = alice.state()["me"]["id"], bob.state()["me"]["id"]
    for group in (world.club, world.forum):  # her groups as the bot sees them: their creator, an admin
        assert bot_call(tg, "getChatMember", chat_id=group.id, user_id=alice_id)["status"] == "creator"
        assert bot_call(tg, "getChatMember", chat_id=group.id, user_id=bob_id)["status"] == "member"
        assert [a["user"]["id"] for a in bot_call(tg, "getChatAdministrators", chat_id=group.id)] == [alice_id]
    shown = {chat["id"]: chat["owner"] for chat in bob.state()["chats"]}
    assert shown == {bob_id: None, world.club.id: "Alice", world.forum.id: "Alice"}  # the page names her
    alice.post("/api/say", {"chat": world.club.id, "text": "hi"})
    bob.post("/api/say", {"chat": world.club.id, "text": "你好"})
    assert [(m["from"], m["owner"]) for m in bob.chat(world.club.id)["messages"]] == [("Alice", True), ("Bob", False)]


def test_a_picture_is_seen_only_by_the_people_of_its_chat(sandbox: tuple[FakeTelegram, World]) -> None:
    """/api/photo needs the person's key (the view's address carries it: an <img> sends no header), serves only
    pictures of the person's own chats, and a picture's id cannot be guessed from another's."""
    tg, _ = sandbox
    bob, alice = PageClient(tg.url), PageClient(tg.url)
    bob.join("Bob", "en")
    alice.join("Alice", "en")
    me = bob.state()["me"]["id"]
    ids = []
    for color in ("green", "blue"):
        buffer = io.BytesIO()
        Image.new("RGB", (30, 20), color).save(buffer, "PNG")
        sent = tg.call(
            tg.token, "sendPhoto", {"chat_id": me}, {"photo": Upload("p.png", "image/png", buffer.getvalue())}
        )
        assert sent is not None and sent[0] == 200
        ids.append(sent[1]["result"]["photo"][-1]["file_id"])
    shown = bob.wait_for(me, lambda m: m["photo"] is not None)
    assert bob.request(shown["photo"]) == (200, buffer.getvalue())
    path = shown["photo"].split("?")[0]
    assert PageClient(tg.url).request(path)[0] == 401  # no key
    assert alice.request(path)[0] == alice.request(f"{path}?key={alice.key}")[0] == 404  # not a chat of hers
    assert bob.request(path)[0] == 200  # his key in the header works as well
    for file_id in ids:  # no running number: 24 random bytes after Telegram's prefix
        assert len(file_id.removeprefix("AgACAgIAAxkFAK")) == 32 and not file_id[-6:].isdigit()
    assert ids[0][:-8] != ids[1][:-8]


def test_the_page_and_the_bot_api_share_the_port(sandbox: tuple[FakeTelegram, World]) -> None:
    tg, _ = sandbox
    page = PageClient(tg.url)
    status, html = page.request("/")
    assert status == 200 and b'src="/static/app.js"' in html
    assert page.request("/static/app.js")[0] == page.request("/static/style.css")[0] == 200
    assert page.request("/static/world.py")[0] == 404  # only the page's own files are served
    for name in ("/", "/static/app.js", "/static/style.css"):  # nothing from another host: no CDN, no network
        assert b"http" not in page.request(name)[1] and b"//cdn" not in page.request(name)[1]
    assert page.request("/api/photo/nothing")[0] == 401  # no key
    page.join("Alice", "en")
    assert page.request("/api/photo/nothing")[0] == 404
    status, me = page.request(f"/bot{tg.token}/getMe")
    assert status == 200 and me["result"]["username"] == "sandbox_test_bot"
    assert page.request("/botwrong:token/getMe")[0] == 401


def test_a_mini_app_button_opens_signed_in_as_the_person(sandbox: tuple[FakeTelegram, World]) -> None:
    from urllib.parse import parse_qs, urlsplit

    from bot.live.auth import check_init_data

    tg, world = sandbox
    alice = PageClient(tg.url)
    alice.join("Alice", "en")
    me = alice.state()["me"]["id"]
    markup = {"inline_keyboard": [[{"text": "live", "web_app": {"url": "https://example.org/m/?table=t"}}]]}
    bot_call(tg, "sendMessage", chat_id=me, text="table", reply_markup=markup)
    button = alice.chat(me)["messages"][-1]["keyboard"][0][0]
    assert button == {"text": "live", "web_app": "https://example.org/m/?table=t"}
    with pytest.raises(AssertionError, match="BUTTON_TYPE_INVALID"):  # as Telegram: not in a group
        bot_call(tg, "sendMessage", chat_id=world.club.id, text="table", reply_markup=markup)
    launch = urlsplit(alice.post("/api/webapp", {"url": button["web_app"]})["url"])
    assert launch.query == "table=t"
    data = parse_qs(launch.fragment)["tgWebAppData"][0]
    assert check_init_data(data, tg.token, time.time()).user_id == me
    assert alice.request("/api/webapp", {"url": "javascript:alert(1)"})[0] == 400

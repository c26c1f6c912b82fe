"""The fake Bot API (sandbox/) driven by the real python-telegram-bot client over loopback HTTP."""

import asyncio
import io
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from PIL import Image
from telegram import (
    Bot,
    BotCommand,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputMediaPhoto,
    ReplyParameters,
    Update,
)
from telegram.constants import ChatMemberStatus
from telegram.error import (
    BadRequest,
    ChatMigrated,
    Conflict,
    EndPointNotFound,
    Forbidden,
    InvalidToken,
    NetworkError,
    RetryAfter,
)
from telegram.ext import ApplicationBuilder, CallbackQueryHandler, CommandHandler, ContextTypes

from sandbox import FakeTelegram, FaultKind, api_limits
from tests.loopback import shared_tls

# A bot process configured only through the environment, as `python -m bot` is.
PING_BOT = """
import os
from telegram.ext import ApplicationBuilder, CommandHandler

async def ping(update, context):
    await update.effective_chat.send_message("pong " + " ".join(context.args))

app = ApplicationBuilder().token(os.environ["TELEGRAM_BOT_TOKEN"]).base_url(os.environ["TELEGRAM_API_BASE_URL"]).build()
app.add_handler(CommandHandler("ping", ping))
app.run_polling(poll_interval=0, timeout=1)
"""


class ManualClock:
    """A clock the test moves by hand, for the 60-second windows."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def png(width: int, height: int, color: str = "red") -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buffer, "PNG")
    return buffer.getvalue()


def keyboard(*labels: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup([[InlineKeyboardButton(label, callback_data=f"act:{label}") for label in labels]])


def rejected(description: str) -> pytest.RaisesExc[BadRequest]:
    """Expects BadRequest with Telegram's description (PTB drops "Bad Request: " and re-capitalises the rest)."""
    return pytest.raises(BadRequest, match=re.compile(re.escape(description), re.IGNORECASE))


def client(server: FakeTelegram, token: str | None = None) -> Bot:
    return Bot(token or server.token, base_url=server.base_url, base_file_url=server.base_file_url, **shared_tls())


@pytest.fixture
async def bot(fake_telegram: FakeTelegram) -> AsyncIterator[Bot]:
    async with client(fake_telegram) as connected:
        yield connected


async def test_get_me_answers_the_bot_user(fake_telegram: FakeTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert (me.id, me.username, me.is_bot) == (fake_telegram.bot_id, fake_telegram.bot_username, True)
    assert me.can_read_all_group_messages is False  # privacy mode, as on Telegram
    assert [call.method for call in fake_telegram.calls()] == ["getMe", "getMe"]  # initialize() asked first


async def test_wrong_token_and_unknown_method_are_refused(fake_telegram: FakeTelegram, bot: Bot) -> None:
    with pytest.raises(InvalidToken):
        async with client(fake_telegram, token="42:not-the-token"):
            pass
    with pytest.raises(EndPointNotFound):
        await bot.do_api_request("sendHologram", api_kwargs={"chat_id": 1})


async def test_photo_with_buttons_is_sent_edited_and_downloadable(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.add_user("Alice")
    first = png(300, 200)
    sent = await bot.send_photo(alice.id, first, caption="东风", reply_markup=keyboard("打", "胡"))

    shown = alice.private_messages()[-1]
    assert shown.photo is not None and shown.photo.data == first
    assert (shown.photo.width, shown.photo.height) == (300, 200) == (sent.photo[-1].width, sent.photo[-1].height)
    assert sent.photo[-1].file_id == shown.photo.file_id
    assert shown.caption == "东风" and [b.text for b in shown.buttons] == ["打", "胡"]
    assert shown.button("胡").callback_data == "act:胡"

    second = png(320, 240, "blue")
    edited = await bot.edit_message_media(
        InputMediaPhoto(second, caption="南风"),
        chat_id=alice.id,
        message_id=sent.message_id,
        reply_markup=keyboard("碰"),
    )
    now = fake_telegram.message(alice.id, sent.message_id)
    assert now.photo is not None and now.photo.data == second and now.photo.file_id != shown.photo.file_id
    assert (now.caption, [b.text for b in now.buttons], now.edits) == ("南风", ["碰"], 1)
    assert isinstance(edited, object) and edited.caption == "南风"  # PTB parsed the answer as a Message
    upload = fake_telegram.calls("editMessageMedia")[-1]
    assert list(upload.files.values()) == [len(second)]  # the multipart part named by attach://

    with rejected("message is not modified"):
        await bot.edit_message_caption(
            chat_id=alice.id, message_id=sent.message_id, caption="南风", reply_markup=keyboard("碰")
        )
    await bot.edit_message_caption(chat_id=alice.id, message_id=sent.message_id, caption="西风")
    after = fake_telegram.message(alice.id, sent.message_id)
    assert (after.caption, after.buttons, after.edits) == ("西风", [], 2)  # no reply_markup: the keyboard goes
    with rejected("there is no text in the message to edit"):
        await bot.edit_message_text("文字", chat_id=alice.id, message_id=sent.message_id)

    file = await bot.get_file(now.photo.file_id)
    assert bytes(await file.download_as_bytearray()) == second


async def test_text_messages_edits_and_deletes(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.add_user("Alice")
    sent = await bot.send_message(alice.id, "<b>出牌</b> &amp; 等待", parse_mode="HTML", reply_markup=keyboard("a"))
    assert fake_telegram.last_bot_message(alice.id).text == sent.text == "出牌 & 等待"

    with rejected("message is not modified"):
        await bot.edit_message_text(
            "<b>出牌</b> &amp; 等待",
            chat_id=alice.id,
            message_id=sent.message_id,
            parse_mode="HTML",
            reply_markup=keyboard("a"),
        )
    # The same visible text with other formatting is an edit, as on Telegram.
    await bot.edit_message_text(
        "<i>出牌</i> &amp; 等待",
        chat_id=alice.id,
        message_id=sent.message_id,
        parse_mode="HTML",
        reply_markup=keyboard("a"),
    )
    await bot.edit_message_reply_markup(chat_id=alice.id, message_id=sent.message_id, reply_markup=keyboard("b"))
    assert [b.text for b in fake_telegram.message(alice.id, sent.message_id).buttons] == ["b"]
    with rejected("message to edit not found"):
        await bot.edit_message_text("x", chat_id=alice.id, message_id=sent.message_id + 1)

    assert await bot.delete_message(alice.id, sent.message_id)
    assert fake_telegram.messages(alice.id) == []
    assert fake_telegram.messages(alice.id, include_deleted=True)[0].deleted
    with rejected("message to delete not found"):
        await bot.delete_message(alice.id, sent.message_id)
    with rejected("message to edit not found"):
        await bot.edit_message_text("x", chat_id=alice.id, message_id=sent.message_id)


async def test_application_gets_commands_and_button_presses(fake_telegram: FakeTelegram) -> None:
    tg = fake_telegram
    alice = tg.add_user("Alice")
    group = tg.add_group("牌友群", members=[alice])
    handled: list[tuple[str, int, list[str]]] = []

    async def new_game(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None and context.args is not None
        handled.append(("newgame", update.effective_chat.id, context.args))
        await update.effective_chat.send_message("新牌局", reply_markup=keyboard("加入"))

    async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert update.effective_chat is not None and context.args is not None
        handled.append(("start", update.effective_chat.id, context.args))
        await update.effective_chat.send_message(f"欢迎 {' '.join(context.args)}")

    async def pressed(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        assert query is not None
        await query.answer(f"收到 {query.data}")
        await query.edit_message_text(f"{query.from_user.first_name} 已加入")

    app = ApplicationBuilder().token(tg.token).base_url(tg.base_url).base_file_url(tg.base_file_url).build()
    app.add_handlers(
        [CommandHandler("newgame", new_game), CommandHandler("start", start), CallbackQueryHandler(pressed)]
    )
    async with app:
        await app.start()
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=1)
        try:
            alice.say(group, "大家好")  # privacy mode: plain group text never reaches the bot
            alice.say(group, "/newgame@some_other_bot")  # a command for another bot neither
            alice.say(group, f"/newgame@{tg.bot_username} 4")
            table = await tg.wait_for_message_async(group.id, lambda m: bool(m.buttons))
            query_id = alice.press(table, "加入")
            answer = await tg.wait_for_callback_answer_async(query_id)
            assert answer.text == "收到 act:加入" and not answer.show_alert
            joined = await tg.wait_for_message_async(group.id, lambda m: m.text == "Alice 已加入")
            assert joined.message_id == table.message_id and joined.buttons == []

            alice.start("join_42")
            welcome = await tg.wait_for_message_async(alice.id)
            assert welcome.text == "欢迎 join_42"
        finally:
            await app.updater.stop()
            await app.stop()
    assert handled == [("newgame", group.id, ["4"]), ("start", alice.id, ["join_42"])]
    assert tg.pending_updates() == 0  # the updater confirmed everything it handled


async def test_long_polling_honours_timeout_offset_and_competing_pollers(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.add_user("Alice")
    began = time.monotonic()
    assert await bot.get_updates(timeout=0.3) == ()
    assert time.monotonic() - began >= 0.3

    threading.Timer(0.2, alice.say, args=(alice.id, "/help")).start()
    began = time.monotonic()
    (update,) = await bot.get_updates(timeout=5)
    assert time.monotonic() - began < 2  # answered when the update came, not at the timeout
    assert update.message is not None and update.message.text == "/help"
    assert update.message.entities[0].type == "bot_command" and update.message.entities[0].length == 5

    alice.say(alice.id, "/rules")
    assert [u.update_id for u in await bot.get_updates()] == [update.update_id, update.update_id + 1]
    assert [u.update_id for u in await bot.get_updates(offset=update.update_id + 1)] == [update.update_id + 1]
    assert await bot.get_updates(offset=update.update_id + 2) == ()
    assert fake_telegram.pending_updates() == 0

    async with client(fake_telegram) as second_instance:
        first_poll = asyncio.create_task(bot.get_updates(timeout=3))
        await asyncio.sleep(0.2)
        second_poll = asyncio.create_task(second_instance.get_updates(timeout=0.2))
        with pytest.raises(Conflict, match="terminated by other getUpdates request"):
            await first_poll
        assert await second_poll == ()


async def test_users_who_never_started_the_bot_cannot_be_written_to(fake_telegram: FakeTelegram, bot: Bot) -> None:
    bob = fake_telegram.add_user("Bob", started=False)
    with pytest.raises(Forbidden, match="bot can't initiate conversation with a user"):
        await bot.send_message(bob.id, "你好")
    with pytest.raises(ValueError, match="must press START first"):
        bob.say(bob.id, "/join")  # clients offer only the START button until it is pressed

    bob.open_link(f"https://t.me/{fake_telegram.bot_username}?start=join_-1001000000001")
    start = fake_telegram.messages(bob.id, from_bot=None)[-1]
    assert start.text == "/start join_-1001000000001"
    assert start.entities == ({"type": "bot_command", "offset": 0, "length": 6},)
    await bot.send_message(bob.id, "你好")

    bob.block_bot()
    with pytest.raises(Forbidden, match="bot was blocked by the user"):
        await bot.send_message(bob.id, "你好")
    with pytest.raises(ValueError, match="Telegram clients drop it"):
        bob.open_link(f"https://t.me/{fake_telegram.bot_username}?start=join 1")
    assert [m.text for m in fake_telegram.messages(bob.id)] == ["你好"]


@pytest.mark.parametrize(
    ("send", "error"),
    [
        (lambda bot, chat: bot.send_message(chat, "字" * 5000), "message is too long"),
        (lambda bot, chat: bot.send_message(chat, "<b>未闭合", parse_mode="HTML"), "can't parse entities"),
        (lambda bot, chat: bot.send_message(chat, "<div>x</div>", parse_mode="HTML"), "Unsupported start tag"),
        (lambda bot, chat: bot.send_message(chat, "   "), "message text is empty"),
        (lambda bot, chat: bot.send_photo(chat, png(10, 10), caption="字" * 1025), "message caption is too long"),
        (lambda bot, chat: bot.send_message(chat, "x", reply_markup=keyboard("牌" * 21)), "BUTTON_DATA_INVALID"),
        (lambda bot, chat: bot.send_message(chat, "x", reply_markup=keyboard(*"123456789")), "markup is too long"),
        (lambda bot, chat: bot.send_photo(chat, png(6000, 4001)), "PHOTO_INVALID_DIMENSIONS"),
        (lambda bot, chat: bot.send_photo(chat, png(10, 10) + bytes(10 * 1024 * 1024)), "at most 10 MB"),
        (lambda bot, chat: bot.send_photo(chat, b"not a picture"), "IMAGE_PROCESS_FAILED"),
        (lambda bot, chat: bot.send_photo(chat, "no-such-file-id"), "wrong file identifier"),
        (lambda bot, chat: bot.send_message(-1, "x"), "chat not found"),
    ],
)
async def test_telegram_limits_raise_in_ptb_and_change_nothing(
    fake_telegram: FakeTelegram, bot: Bot, send: Callable[[Bot, int], Awaitable[object]], error: str
) -> None:
    alice = fake_telegram.add_user("Alice")
    with rejected(error):
        await send(bot, alice.id)
    assert fake_telegram.messages(alice.id) == []
    assert fake_telegram.calls()[-1].status == 400


async def test_limits_count_the_text_users_see(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice = fake_telegram.add_user("Alice")
    await bot.send_message(alice.id, f"<b>{'字' * 4096}</b>", parse_mode="HTML")
    await bot.send_message(alice.id, "x", reply_markup=keyboard("牌" * 20))  # 60 + 4 bytes of callback_data
    assert [len(m.content) for m in fake_telegram.messages(alice.id)] == [4096, 1]


async def test_forced_faults_surface_as_ptb_errors(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice, bob = fake_telegram.add_user("Alice"), fake_telegram.add_user("Bob")
    fake_telegram.fail_next("sendMessage", FaultKind.RETRY_AFTER, retry_after=7, chat_id=alice.id)
    await bot.send_message(bob.id, "另一个聊天不受影响")
    with pytest.raises(RetryAfter, match="Retry in 7 seconds"):
        await bot.send_message(alice.id, "1")
    await bot.send_message(alice.id, "2")

    fake_telegram.fail_next("sendMessage", FaultKind.SERVER_ERROR)
    with pytest.raises(NetworkError, match="Internal Server Error"):
        await bot.send_message(alice.id, "3")
    fake_telegram.fail_next("sendmessage", FaultKind.DROP_CONNECTION, times=2)
    for text in ("4", "5"):
        with pytest.raises(NetworkError):
            await bot.send_message(alice.id, text)
    await bot.send_message(alice.id, "6")

    assert [m.text for m in fake_telegram.messages(alice.id)] == ["2", "6"]
    assert [c.status for c in fake_telegram.calls("sendMessage", chat_id=alice.id)] == [429, 200, 500, 0, 0, 200]


async def test_writes_per_minute_over_a_sliding_window() -> None:
    clock = ManualClock()
    with FakeTelegram(clock=clock) as tg:
        alice = tg.add_user("Alice")
        group = tg.add_group("牌友群", members=[alice])
        async with client(tg) as bot:
            for _ in range(6):  # t = 0, 10, ..., 50
                await bot.send_message(group.id, "牌")
                clock.now += 10
            clock.now += 5  # t = 65: the write at t = 0 has left the window
            sent = await bot.send_message(group.id, "牌")
            await bot.edit_message_text("改", chat_id=group.id, message_id=sent.message_id)
            with pytest.raises(BadRequest):
                await bot.edit_message_text("改", chat_id=group.id, message_id=sent.message_id)  # failed: not counted
            await bot.send_message(alice.id, "私聊")
        assert tg.max_writes_per_minute(group.id) == 7  # t = 10 .. 65
        assert tg.max_writes_per_minute(alice.id) == 1


async def test_group_flood_limit_answers_retry_after() -> None:
    clock = ManualClock()
    with FakeTelegram(clock=clock, group_writes_per_minute=3) as tg:
        alice = tg.add_user("Alice")
        group = tg.add_group("牌友群", members=[alice])
        async with client(tg) as bot:
            for _ in range(3):
                await bot.send_message(group.id, "牌")
                clock.now += 10
            with pytest.raises(RetryAfter, match="Retry in 30 seconds"):  # when the write at t = 0 leaves
                await bot.send_message(group.id, "牌")
            for _ in range(4):
                await bot.send_message(alice.id, "私聊不限")
            clock.now += 30
            await bot.send_message(group.id, "牌")
        assert tg.max_writes_per_minute(group.id) == 3


async def test_callback_queries_are_answered_once_and_in_time() -> None:
    clock = ManualClock()
    with FakeTelegram(clock=clock) as tg:
        alice = tg.add_user("Alice")
        async with client(tg) as bot:
            sent = await bot.send_message(alice.id, "选择", reply_markup=keyboard("甲", "乙"))
            shown = tg.message(alice.id, sent.message_id)
            first = alice.press(shown, "甲")
            assert await bot.answer_callback_query(first, text="好的", show_alert=True)
            assert tg.callback_answer(first) is not None and tg.callback_answer(first).show_alert
            with rejected("query ID is invalid"):
                await bot.answer_callback_query(first)

            await bot.edit_message_text("已选择", chat_id=alice.id, message_id=sent.message_id)
            late = alice.press(shown, "act:乙")  # a stale press on the keyboard Alice saw before the edit
            (update,) = (await bot.get_updates())[-1:]
            assert update.callback_query is not None and update.callback_query.id == late
            assert update.callback_query.data == "act:乙"
            assert update.callback_query.message.text == "已选择"  # the message as it is now
            clock.now += 16
            with rejected("query is too old"):
                await bot.answer_callback_query(late)
            with pytest.raises(LookupError, match="no button"):
                alice.press(tg.message(alice.id, sent.message_id), "甲")


async def test_chat_members_administrators_and_commands(fake_telegram: FakeTelegram, bot: Bot) -> None:
    alice, bob, carol = (fake_telegram.add_user(name) for name in ("Alice", "Bob", "Carol"))
    group = fake_telegram.add_group("牌友群", owner=alice, admins=[bob], bot_is_admin=True)
    admins = await bot.get_chat_administrators(group.id)
    assert [(m.user.id, m.status) for m in admins] == [
        (alice.id, ChatMemberStatus.OWNER),
        (bob.id, ChatMemberStatus.ADMINISTRATOR),
        (fake_telegram.bot_id, ChatMemberStatus.ADMINISTRATOR),
    ]
    assert (await bot.get_chat_member(group.id, carol.id)).status == ChatMemberStatus.LEFT
    carol.say(group, "我来了")
    assert (await bot.get_chat_member(group.id, carol.id)).status == ChatMemberStatus.MEMBER
    chat = await bot.get_chat(group.id)
    assert (chat.id, chat.type, chat.title) == (group.id, "supergroup", "牌友群")

    commands = [BotCommand("newgame", "开一桌"), BotCommand("join", "入座")]
    assert await bot.set_my_commands(commands, language_code="zh")
    assert await bot.get_my_commands(language_code="zh") == tuple(commands)
    assert fake_telegram.my_commands(language_code="zh") == [c.to_dict() for c in commands]
    assert await bot.get_my_commands() == ()
    assert await bot.set_my_description("武汉麻将 · 红中赖子杠")
    assert fake_telegram.calls("setMyDescription")[-1].params == {"description": "武汉麻将 · 红中赖子杠"}
    with rejected("BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand("NewGame", "大写不行")])


async def test_forum_topics_and_a_group_migrated_to_a_supergroup(fake_telegram: FakeTelegram, bot: Bot) -> None:
    """A forum's topics: a user's message carries its topic, the bot's writes land in the topic they name (a reply
    where what it answers is), an unknown topic is refused. A migrated group answers with the new id."""
    tg = fake_telegram
    alice = tg.add_user("Alice")
    forum = tg.add_group("论坛群", members=[alice], forum=True)
    topic = tg.create_topic(forum, "一号桌", by=alice)
    asked = alice.say(forum, "/ping", topic=topic)
    update = (await bot.get_updates())[-1]
    assert update.message is not None and update.message.chat.is_forum
    assert (update.message.message_thread_id, update.message.is_topic_message) == (topic, True)
    await bot.send_message(forum.id, "in the topic", message_thread_id=topic)
    await bot.send_message(forum.id, "a reply", reply_parameters=ReplyParameters(asked.message_id))
    await bot.send_message(forum.id, "in General")
    assert [(m.text, m.thread_id) for m in tg.messages(forum.id)] == [
        ("in the topic", topic),
        ("a reply", topic),
        ("in General", None),
    ]
    with rejected("message thread not found"):
        await bot.send_message(forum.id, "x", message_thread_id=topic + 100)

    old = tg.add_group("小群", members=[alice], supergroup=False)
    new = tg.migrate_group(old)
    assert new.type == "supergroup" and alice.id in new.member_ids
    with pytest.raises(ChatMigrated) as refused:
        await bot.send_message(old.id, "x")
    assert refused.value.new_chat_id == new.id
    with pytest.raises(ValueError):
        alice.say(old, "hello?")


def test_plain_http_json_and_query_requests(fake_telegram: FakeTelegram) -> None:
    """Other clients (curl, a webhook-less script) send JSON bodies or query strings; both are understood."""
    alice = fake_telegram.add_user("Alice")
    url = f"{fake_telegram.base_url}{fake_telegram.token}"
    body = json.dumps(
        {
            "chat_id": alice.id,
            "text": "123",
            "reply_markup": {"inline_keyboard": [[{"text": "好", "callback_data": "ok"}]]},
        }
    ).encode()
    request = urllib.request.Request(f"{url}/sendMessage", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=5) as response:
        answer = json.load(response)
    assert answer["ok"] and answer["result"]["text"] == "123"
    with urllib.request.urlopen(f"{url}/getMe?unused=1", timeout=5) as response:
        assert json.load(response)["result"]["id"] == fake_telegram.bot_id
    assert fake_telegram.last_bot_message(alice.id).buttons[0].callback_data == "ok"


def test_waiting_for_a_message_times_out_with_what_the_chat_shows(fake_telegram: FakeTelegram) -> None:
    alice = fake_telegram.add_user("Alice")
    threading.Timer(0.1, alice.say, args=(alice.id, "早")).start()
    assert fake_telegram.wait_for_message(alice.id, from_bot=None, timeout=3).text == "早"
    with pytest.raises(TimeoutError, match=r"chat 100001 \(the bot's messages there: none\)"):
        alice.wait_for_private_message(lambda m: bool(m.buttons), timeout=0.1)


def test_a_bot_process_is_driven_with_the_blocking_helpers(fake_telegram: FakeTelegram) -> None:
    alice = fake_telegram.add_user("Alice")
    group = fake_telegram.add_group("牌友群", members=[alice])
    process = subprocess.Popen([sys.executable, "-c", PING_BOT], env=os.environ | fake_telegram.bot_environment())
    try:
        alice.say(group, "/ping 1")  # queued until the bot's first getUpdates
        assert fake_telegram.wait_for_message(group.id, timeout=20).text == "pong 1"
    finally:
        process.terminate()  # PTB's run_polling stops cleanly on SIGTERM
        assert process.wait(timeout=10) == 0
    assert fake_telegram.pending_updates() == 0


def _sent(url: str, head: bytes) -> socket.socket:
    """A connection to the server that has sent ``head`` (a request's start, perhaps half of it)."""
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)))
    sock.sendall(head)
    sock.settimeout(10)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    while chunk := sock.recv(65536):
        received += chunk
    return received


@pytest.mark.parametrize(
    ("length", "status"),
    [("209715200", b"413"), ("-1", b"400"), ("twelve", b"400"), (str(api_limits.MAX_REQUEST_BYTES + 1), b"413")],
)
def test_a_body_too_long_or_a_length_not_a_number_is_refused_before_it_is_read(
    fake_telegram: FakeTelegram, length: str, status: bytes
) -> None:
    """Answered from the headers alone, the connection closed (its thread free): a 200 MB body is never read."""
    path = f"/bot{fake_telegram.token}/sendMessage"
    with _sent(fake_telegram.url, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {length}\r\n\r\n".encode()) as s:
        assert _answer(s).split(b" ")[:2] == [b"HTTP/1.1", status]  # and closed: _answer read to the end


def test_half_sent_requests_are_closed_after_the_timeout() -> None:
    """Headers or a body that stop half-way hold a thread only until the connection's timeout."""
    with FakeTelegram() as tg:
        tg.stop()
        tg.start(request_seconds=1.0)
        path = f"/bot{tg.token}/getMe"
        half_headers = _sent(tg.url, f"GET {path} HTTP/1.1\r\nHost: x\r\n".encode())
        half_body = _sent(tg.url, f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345".encode())
        started = time.monotonic()
        for sock in (half_headers, half_body):
            with sock:
                assert _answer(sock) == b""  # closed, unanswered
        assert time.monotonic() - started < 5

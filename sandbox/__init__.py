"""A local Telegram: a Bot API server on loopback with one bot, its users and chats, and Telegram's limits.

The bot runs unchanged — as a real process (`python -m bot`) or as an in-process PTB `Application` —
and talks HTTP to this server instead of api.telegram.org. Simulated users act through the server;
tests read what each user would see and what the bot asked for. `make run` without a token serves it
with the sandbox's web page beside it (`world`, `pages`, `static/`, put together by `launch`), where the
people at the page are its users; the end-to-end tests use it with simulated users alone.

Starting it
-----------
The `fake_telegram` fixture (tests/conftest.py) yields a running server; outside pytest::

    from sandbox import FakeTelegram
    with FakeTelegram() as tg:                     # a thread serving http://127.0.0.1:<free port>
        ...

Point the bot at it:

* a subprocess: ``subprocess.Popen([sys.executable, "-m", "bot"], env=os.environ | tg.bot_environment())``
  — ``TELEGRAM_BOT_TOKEN`` is ``tg.token``, ``TELEGRAM_API_BASE_URL`` is ``tg.base_url``
  (``http://127.0.0.1:PORT/bot``; PTB requests ``{base_url}{token}/{method}``);
* in-process: ``ApplicationBuilder().token(tg.token).base_url(tg.base_url).base_file_url(tg.base_file_url)``
  or ``telegram.Bot(tg.token, base_url=tg.base_url)``. Poll with small timeouts
  (``updater.start_polling(poll_interval=0, timeout=1)``) so tests stay fast.

Building a world and acting in it
---------------------------------
::

    alice = tg.add_user("Alice")                          # private chat started (pressed START)
    bob = tg.add_user("Bob", started=False)               # the bot gets 403 writing to Bob
    group = tg.add_group("牌友群", members=[alice, bob], admins=[alice])
    alice.say(group, "/newgame")                          # a message update with a bot_command entity
    table = tg.wait_for_message(group.id, lambda m: bool(m.buttons))
    bob.open_link(table.button("加入").url)               # a deep-link URL button: the bot gets /start join_...
    hand = bob.wait_for_private_message(lambda m: m.photo is not None and bool(m.buttons))
    query_id = bob.press(hand, "打 5万")                  # a callback button, by its text or callback_data
    assert tg.wait_for_callback_answer(query_id).text is None

Forum groups: ``tg.add_group("论坛", forum=True)``, ``topic = tg.create_topic(group, "一号桌", by=alice)``
(the topic's id is its message_thread_id), ``alice.say(group, "/newgame", topic=topic)`` (the update carries
``message_thread_id`` and ``is_topic_message``). The bot's sends land in the topic named by
``message_thread_id`` (an unknown one: 400 "message thread not found"), a reply without one where what it
answers is, anything else in General; each `Message` has the ``thread_id`` it landed in (None: General).
A group upgraded to a supergroup: ``new = tg.migrate_group(old)``; every later call naming the old id answers
400 with ``parameters.migrate_to_chat_id`` (PTB raises ChatMigrated). No service message is sent: a test posts
one with ``tg.post_update`` when the bot should hear of it that way.

In groups the bot only receives commands (bare or ``@`` this bot), mentions and replies to its messages —
Telegram's privacy mode, on by default (``FakeTelegram(privacy_mode=False)`` to receive everything).
``press`` takes the message as the user saw it: pressing a button on an older snapshot sends that
button's data with the message's current state, which is how a stale press reaches the bot.

Reading what users see
----------------------
``tg.messages(chat_id)`` (the bot's messages, oldest first; ``from_bot=None`` for everyone's),
``tg.last_bot_message(chat_id)``, ``tg.message(chat_id, message_id)``: frozen `Message` snapshots with the
shown ``text``/``caption`` (HTML already applied), ``photo`` (`Photo`: bytes, width, height, file_id),
``buttons`` / ``keyboard`` / ``button(label)``, ``edits`` and ``deleted``.
``tg.callback_answer(query_id)``, ``tg.my_commands(...)``, ``tg.pending_updates()``.

Waiting (never sleep)
---------------------
``tg.wait_until(predicate, timeout=5)`` blocks until ``predicate()`` is truthy and returns its value;
``tg.wait_for_message(chat_id, where)`` and ``user.wait_for_private_message(where)`` return the newest
matching message. Async tests that run the bot in their own event loop use the ``*_async`` variants,
which wait in a worker thread. A timeout raises TimeoutError showing the chat's messages.

What the bot did, and Telegram's limits
---------------------------------------
Every request is recorded: ``tg.calls("sendPhoto", chat_id=...)`` → `ApiCall` (method, chat_id, params,
uploaded file sizes, time on ``tg.clock``, HTTP status, description). ``tg.max_writes_per_minute(chat_id)``
is the peak number of successful sends/edits/deletes in any 60 s window (groups allow about 20).
``FakeTelegram(group_writes_per_minute=20)`` answers 429 beyond that; pass ``clock=`` to control time.

The server rejects what Telegram rejects (see `limits`): text > 4096 or caption > 1024 characters
(counted after HTML), malformed HTML, callback_data > 64 bytes, bad keyboards, photos > 10 MB or with
width + height > 10000, editing a missing message ("message to edit not found"), an edit that changes
nothing ("message is not modified"), writing to a user who never started the bot or blocked it (403),
answering a callback query twice or after 15 s. An edit without ``reply_markup`` removes the keyboard,
as on Telegram.

Faults: ``tg.fail_next("editMessageMedia", FaultKind.RETRY_AFTER, retry_after=3, chat_id=..., times=2)``
makes the next calls answer 429 (PTB raises RetryAfter); ``FaultKind.SERVER_ERROR`` answers 500 and
``FaultKind.DROP_CONNECTION`` hangs up without an answer (PTB raises NetworkError).
``tg.redeliver(update_id, copies=2)`` sends an update again with its id, as Telegram does when it saw no
confirmation (``tg.updates_sent()`` lists what was queued).
``tg.slow("getChat", 2)`` makes every later call of a method wait that long before its answer.

Methods served: getMe, getUpdates (long polling, offset confirmation, 409 on a competing poller or an
active webhook), setWebhook/deleteWebhook/getWebhookInfo, set/get/deleteMyCommands, sendMessage,
sendPhoto, sendChatAction, editMessageText/Caption/Media/ReplyMarkup, deleteMessage,
answerCallbackQuery, getChat, getChatMember, getChatAdministrators, getChatMemberCount, getFile (and
downloads from ``base_file_url``), close, logOut; setMyDescription, setMyShortDescription, setMyName and
setChatMenuButton are accepted and only recorded. Anything else answers 404 like the real API.
Not simulated: inline mode, payments, media other than photos, Markdown parsing (counted as written).
"""

from sandbox.bot_api import BotApi
from sandbox.records import ApiCall, Button, CallbackAnswer, Chat, FaultKind, Message, Photo
from sandbox.server import FakeTelegram
from sandbox.users import SimUser

__all__ = [
    "ApiCall",
    "BotApi",
    "Button",
    "CallbackAnswer",
    "Chat",
    "FakeTelegram",
    "FaultKind",
    "Message",
    "Photo",
    "SimUser",
]

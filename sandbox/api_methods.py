"""The Bot API's methods over the fake world's state (`sandbox.api_state.ApiState`): `answer(state, token,
method, values, files)` answers one request as Telegram would, `(status, json)` or None to hang up, with the
faults a test asked for (`BotApi.fail_next`, `slow`), the groups' flood limit, and every call recorded.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, Literal

from sandbox import api_limits
from sandbox.api_state import WINDOW_SECONDS, ApiState
from sandbox.records import JSON, ApiCall, ApiError, CallbackAnswer, FaultKind, bad_request, too_many_requests
from sandbox.request_body import Params, Upload

MethodHandler = Callable[[ApiState, Params], Any]
# lower-case method name -> (the name as documented, its implementation); Bot API names are case-insensitive.
_METHODS: dict[str, tuple[str, MethodHandler]] = {}

# Calls that put something in a chat; they are what Telegram's per-chat flood limits count.
WRITE_METHODS = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendAnimation",
        "editMessageText",
        "editMessageCaption",
        "editMessageMedia",
        "editMessageReplyMarkup",
        "deleteMessage",
    }
)
STALE_QUERY = "query is too old and response timeout expired or query ID is invalid"


def _method(name: str) -> Callable[[MethodHandler], MethodHandler]:
    def register(handler: MethodHandler) -> MethodHandler:
        _METHODS[name.lower()] = (name, handler)
        return handler

    return register


def answer(api: ApiState, token: str, method: str, values: JSON, files: dict[str, Upload]) -> tuple[int, JSON] | None:
    """One Bot API request: (HTTP status, answer), or None when a fault says to drop the connection."""
    if token != api.token:
        return 401, ApiError(401, "Unauthorized").to_api()
    name, handler = _METHODS.get(method.lower(), (method, None))
    chat_id = api._chat_id_of(values)
    with api._lock:
        delay = api._delays.get(name.lower(), 0.0)
    if delay > 0:
        time.sleep(delay)  # this request's own server thread: the others are answered meanwhile
    with api._changed:
        fault = next((f for f in api._faults if f.matches(name.lower(), chat_id)), None)
        try:
            if handler is None:
                raise ApiError(404, "Not Found")
            if fault is not None:
                fault.remaining -= 1
                if fault.kind is FaultKind.DROP_CONNECTION:
                    _record(api, name, chat_id, values, files, 0, "connection dropped")
                    return None
                if fault.kind is FaultKind.RETRY_AFTER:
                    raise too_many_requests(fault.retry_after)
                raise ApiError(500, "Internal Server Error")
            _check_flood(api, name, chat_id)
            status, reply = 200, {"ok": True, "result": handler(api, Params(values, files))}
        except ApiError as error:
            status, reply = error.status, error.to_api()
        _record(api, name, chat_id, values, files, status, reply.get("description"))
        return status, reply


def _record(
    api: ApiState,
    name: str,
    chat_id: int | None,
    values: JSON,
    files: dict[str, Upload],
    status: int,
    description: str | None,
) -> None:
    now = api.clock()
    api._calls.append(
        ApiCall(name, chat_id, dict(values), {k: len(v.data) for k, v in files.items()}, now, status, description)
    )
    if status == 200 and name in WRITE_METHODS and chat_id is not None:
        api._write_times[chat_id].append(now)
    api._notify()


def _check_flood(api: ApiState, name: str, chat_id: int | None) -> None:
    limit = api.group_writes_per_minute
    chat = api._chats.get(chat_id) if chat_id is not None else None
    if limit is None or chat is None or not chat.is_group or name not in WRITE_METHODS:
        return
    now = api.clock()
    recent = [at for at in api._write_times[chat.id] if now - at < WINDOW_SECONDS]
    if len(recent) >= limit:
        raise too_many_requests(max(1, math.ceil(recent[-limit] + WINDOW_SECONDS - now)))


# ----- the methods -----------------------------------------------------------------------------------------


@_method("getMe")
def _get_me(api: ApiState, params: Params) -> JSON:
    return api._bot_user_json()


@_method("logOut")
@_method("close")
# Profile settings are only recorded (see `calls`): nothing a user sees in a test depends on them.
@_method("setMyDescription")
@_method("setMyShortDescription")
@_method("setMyName")
@_method("setChatMenuButton")
def _accept(api: ApiState, params: Params) -> bool:
    return True


@_method("getUpdates")
def _get_updates(api: ApiState, params: Params) -> list[JSON]:
    """Long polling: confirms updates below `offset`, then waits up to `timeout` s for one to arrive."""
    if api.webhook_url:
        raise ApiError(
            409,
            "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the "
            "webhook first",
        )
    offset = params.optional_integer("offset")
    limit = min(max(params.optional_integer("limit") or 100, 1), 100)
    timeout = max(params.number("timeout", 0.0), 0.0)
    allowed = params.structure("allowed_updates")
    if allowed is not None:
        api._allowed_updates = list(allowed) or None
    if offset is not None:
        api._updates = (
            api._updates[offset:]
            if offset < 0
            else [u for u in api._updates if u["update_id"] >= offset or any(u is r for r in api._redelivered)]
        )
    api._poll_generation += 1
    generation = api._poll_generation
    deadline = time.monotonic() + timeout
    while not api._updates and not api._stopping:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        api._changed.wait(remaining)
        if generation != api._poll_generation:
            raise ApiError(
                409,
                "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running",
            )
    batch = api._updates[:limit]
    # A copy sent again is delivered once: the next confirmation drops it like any other.
    api._redelivered = [r for r in api._redelivered if not any(r is u for u in batch)]
    return batch


@_method("setWebhook")
def _set_webhook(api: ApiState, params: Params) -> bool:
    api.webhook_url = params.text("url") or ""
    if params.flag("drop_pending_updates"):
        api._updates.clear()
    return True


@_method("deleteWebhook")
def _delete_webhook(api: ApiState, params: Params) -> bool:
    api.webhook_url = ""
    if params.flag("drop_pending_updates"):
        api._updates.clear()
    return True


@_method("getWebhookInfo")
def _get_webhook_info(api: ApiState, params: Params) -> JSON:
    return {"url": api.webhook_url, "has_custom_certificate": False, "pending_update_count": len(api._updates)}


@_method("setMyCommands")
def _set_my_commands(api: ApiState, params: Params) -> bool:
    key = api._commands_key(params.structure("scope"), params.text("language_code") or "")
    api._commands[key] = api_limits.bot_commands(params.structure("commands"))
    return True


@_method("getMyCommands")
def _get_my_commands(api: ApiState, params: Params) -> list[JSON]:
    return api._commands.get(api._commands_key(params.structure("scope"), params.text("language_code") or ""), [])


@_method("deleteMyCommands")
def _delete_my_commands(api: ApiState, params: Params) -> bool:
    api._commands.pop(api._commands_key(params.structure("scope"), params.text("language_code") or ""), None)
    return True


@_method("sendMessage")
def _send_message(api: ApiState, params: Params) -> JSON:
    chat = api._writable_chat(params)
    source = params.text("text")
    text = api_limits.message_text(source, params.text("parse_mode"))
    return api._post_bot_message(chat, params, text=text, source=source)


def _send_picture(api: ApiState, params: Params, field: Literal["photo", "animation"]) -> JSON:
    chat = api._writable_chat(params)
    source = params.text("caption")
    caption = api_limits.caption(source, params.text("parse_mode"))
    picture = api._photo(params, params.text(field), field)
    animated = field == "animation"
    return api._post_bot_message(chat, params, photo=picture, animated=animated, caption=caption, source=source)


_method("sendPhoto")(partial(_send_picture, field="photo"))
_method("sendAnimation")(partial(_send_picture, field="animation"))


@_method("sendChatAction")
def _send_chat_action(api: ApiState, params: Params) -> bool:
    api._writable_chat(params)
    return True


def _edit_words(api: ApiState, params: Params, field: Literal["text", "caption"]) -> JSON:
    """A message's text, or a picture's caption: each method edits its own kind of message only."""
    message = api._editable(params)
    if (message.photo is None) == (field == "caption"):
        raise bad_request(f"there is no {field} in the message to edit")
    source = params.text(field)
    words = (api_limits.message_text if field == "text" else api_limits.caption)(source, params.text("parse_mode"))
    markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
    return api._edit(message, **{field: words}, source=source, reply_markup=markup)


_method("editMessageText")(partial(_edit_words, field="text"))
_method("editMessageCaption")(partial(_edit_words, field="caption"))


@_method("editMessageMedia")
def _edit_message_media(api: ApiState, params: Params) -> JSON:
    message = api._editable(params)
    if message.photo is None:
        raise bad_request("there is no media in the message to edit")
    media = params.structure("media")
    if not isinstance(media, dict) or media.get("type") != "photo":
        raise bad_request("the fake server only edits media to InputMediaPhoto")
    source = media.get("caption")
    caption = api_limits.caption(source, media.get("parse_mode"))
    photo = api._photo(params, str(media.get("media") or ""), None)
    markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
    return api._edit(message, photo=photo, caption=caption, source=source, reply_markup=markup)


@_method("editMessageReplyMarkup")
def _edit_message_reply_markup(api: ApiState, params: Params) -> JSON:
    message = api._editable(params)
    markup = api_limits.reply_markup(params.structure("reply_markup"), private=message.chat_id > 0)
    return api._edit(message, reply_markup=markup)


@_method("deleteMessage")
def _delete_message(api: ApiState, params: Params) -> bool:
    chat = api._known_chat(params)
    message = api._messages[chat.id].get(params.integer("message_id"))
    if message is None or message.deleted:
        raise bad_request("message to delete not found")
    if not message.from_bot and chat.is_group and not chat.bot_is_admin:
        raise bad_request("message can't be deleted")
    api._messages[chat.id][message.message_id] = replace(message, deleted=True)
    return True


@_method("answerCallbackQuery")
def _answer_callback_query(api: ApiState, params: Params) -> bool:
    query_id = params.text("callback_query_id") or ""
    asked_at, answered = api._queries.get(query_id, (float("-inf"), None))
    if answered is not None or api.clock() - asked_at > api.callback_answer_timeout:
        raise bad_request(STALE_QUERY)
    text = api_limits.callback_answer_text(params.text("text"))
    api._queries[query_id] = (asked_at, CallbackAnswer(text, params.flag("show_alert"), params.text("url")))
    return True


@_method("getChat")
def _get_chat(api: ApiState, params: Params) -> JSON:
    gifts = dict.fromkeys(
        ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription", "gifts_from_channels"), False
    )
    return api._known_chat(params).to_api() | {
        "accent_color_id": 0,
        "max_reaction_count": 11,
        "accepted_gift_types": gifts,
    }


@_method("getChatMember")
def _get_chat_member(api: ApiState, params: Params) -> JSON:
    return api._member_json(api._known_chat(params), params.integer("user_id"))


@_method("getChatAdministrators")
def _get_chat_administrators(api: ApiState, params: Params) -> list[JSON]:
    chat = api._known_chat(params)
    if not chat.is_group:
        raise bad_request("there are no administrators in the private chat")
    admins = ([chat.owner_id] if chat.owner_id else []) + sorted(chat.admin_ids - {chat.owner_id})
    admins += [api.bot_id] if chat.bot_is_admin else []
    return [api._member_json(chat, user_id) for user_id in admins]


@_method("getChatMemberCount")
def _get_chat_member_count(api: ApiState, params: Params) -> int:
    chat = api._known_chat(params)
    return len(chat.member_ids) + 1 if chat.is_group else 2


@_method("getFile")
def _get_file(api: ApiState, params: Params) -> JSON:
    photo = api._files.get(params.text("file_id") or "")
    if photo is None:
        raise bad_request("invalid file_id")
    return {
        "file_id": photo.file_id,
        "file_unique_id": photo.file_unique_id,
        "file_size": len(photo.data),
        "file_path": f"photos/{photo.file_id}.jpg",
    }

"""League nights in the group: the /league commands, the sign-up buttons and the timers that run each night.

    register(application)        # in bot.__main__.build_application, after add_handlers(application)

``register`` adds the /league command, the "I'm in" / "Not this time" buttons (callback data
``lg1|<night>|in|out``, handled before the table's buttons) and chains a start-up step after the
application's post_init: once the TableManager has resumed the hands in play, ``LeagueNights.start()``
re-arms every league from SQLite. A night's steps (announcement, reminder, start, end) are status changes
that storage makes with one guarded UPDATE, so a step runs once however many timers or restarts reach it;
a step missed while the bot was down happens when it comes back (see bot.league for the timeline).

At the start, four or more sign-ups open the group's table with them (more than four take turns, see
``bot.league.sitting``); fewer are filled with automatic players if the league allows, else the night is
called off. League hands count for skill as usual and, through the match's league night, for the season
table; at the end of a night the group gets the night's results and the season table as pictures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Sequence
from datetime import datetime
from typing import Any, Final
from zoneinfo import ZoneInfo

from telegram import Chat, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.ext import (
    Application,
    ApplicationHandlerStop,
    CallbackContext,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    Job,
    JobQueue,
)

from bot.handlers import _is_admin
from bot.league import (
    LATE_START_LIMIT,
    MAX_NIGHT_HANDS,
    SEATS,
    LeagueSyntaxError,
    due_step,
    next_seating,
    next_wakeup,
    night_over,
    parse_create,
    parse_set,
    sitting,
)
from bot.manager import TableManager
from bot.outbox import Content
from bot.table import Seat, Table
from bot.texts import text
from rendering.standings import LeaderboardRow, render_leaderboard
from storage.codec import Clock, utc_now
from storage.database import Database
from storage.errors import StorageError
from storage.leagues import League, LeagueNight, NightStatus
from storage.standings import LeaderboardEntry, Period

log = logging.getLogger(__name__)

CALLBACK_PREFIX: Final = "lg1"
ADMIN_COMMANDS: Final = frozenset({"create", "pause", "resume", "end", "close", "set"})
TABLE_ROWS: Final = 20  # rows of the season table picture


def signup_markup(night_id: int, lang: str) -> InlineKeyboardMarkup:
    return InlineKeyboardMarkup(
        [
            [
                InlineKeyboardButton(text("btn_league_in", lang), callback_data=f"{CALLBACK_PREFIX}|{night_id}|in"),
                InlineKeyboardButton(text("btn_league_out", lang), callback_data=f"{CALLBACK_PREFIX}|{night_id}|out"),
            ]
        ]
    )


def local_when(moment: datetime, zone: str, lang: str) -> str:
    """``周五 2026-12-04 20:00 (Asia/Shanghai)``: a moment in the league's own time zone."""
    local = moment.astimezone(ZoneInfo(zone))
    return f"{text('league_weekdays', lang).split()[local.weekday()]} {local:%Y-%m-%d %H:%M} ({zone})"


def league_summary(league: League, lang: str) -> str:
    days = text("league_weekdays", lang).split()
    options = " ".join(f"{k}={v}" for k, v in league.rules.to_json().items() if k != "preset")
    length = (
        text("league_hands", lang, n=league.night_hands)
        if league.night_hands is not None
        else text("league_minutes", lang, n=league.night_minutes)
    )
    return text(
        "league_summary",
        lang,
        name=league.name,
        season=league.season,
        state=text("league_state_paused", lang) if league.status == "paused" else "",
        days="/".join(days[d] for d in league.weekdays),
        time=league.start_time.strftime("%H:%M"),
        zone=league.time_zone,
        length=length,
        rules=f"{league.rules.preset} {options}".strip(),
        bots=text("league_bots_on" if league.auto_fill else "league_bots_off", lang),
    )


def _names(names: Sequence[str], lang: str) -> str:
    return ", ".join(names) if names else text("league_nobody", lang)


def _board_picture(entries: Sequence[LeaderboardEntry], lang: str, title: str) -> Content:
    rows = [LeaderboardRow(e.rank, e.display_name, e.skill, e.hands, e.points) for e in entries]
    return Content(title, render=lambda: render_leaderboard(rows, "zh" if lang == "zh" else "en", title))


class NightSession:
    """One league night at the group's table (the manager's TableSession): who sits each hand, when it ends."""

    def __init__(self, nights: LeagueNights, night: LeagueNight, league: League, roster: Sequence[Seat]) -> None:
        self.nights, self.night, self.league = nights, night, league
        self.roster = list(roster)  # the signed-up players still in, in sign-up order
        self._seated: list[int | None] = [None] * SEATS  # who sits where, as this session knows it

    def first_seating(self) -> list[Seat | None]:
        return self._seating(0, [None] * SEATS)

    def adopt(self, table: Table) -> None:
        """Take over a table resumed at start-up: its seats are as they are."""
        self._seated = [s.user_id if s is not None else None for s in table.seats]

    def seating(self, table: Table) -> list[Seat | None]:
        assert table.match is not None
        current = [s.user_id if s is not None else None for s in table.seats]
        # A player this session seated whose seat an automatic player took (fled, left) is out for the night.
        gone = {was for was, now in zip(self._seated, current, strict=False) if was is not None and now is None}
        self.roster = [p for p in self.roster if p.user_id not in gone]
        return self._seating(table.match.hands_played, current)

    def _seating(self, hand_index: int, current: Sequence[int | None]) -> list[Seat | None]:
        ids = [p.user_id for p in self.roster if p.user_id is not None]
        playing = [ids[i] for i in sitting(len(ids), hand_index)]
        self._seated = next_seating(current, playing)
        names = {p.user_id: p.name for p in self.roster}
        return [Seat(uid, names[uid]) if uid is not None else None for uid in self._seated]

    def over(self, table: Table) -> bool:
        assert table.match is not None
        league = self.league
        return night_over(
            table.match.hands_played,
            league.night_hands,
            league.night_minutes,
            self.night.starts_at,
            self.nights.clock(),
        )

    async def closed(self, table: Table, status: str) -> None:
        await self.nights.night_closed(self.night, self.league)


class LeagueNights:
    """Every league's nights: commands, sign-ups, and the timeline driven by one JobQueue job."""

    def __init__(self, db: Database, manager: TableManager, jobs: JobQueue[Any], clock: Clock = utc_now) -> None:
        self.db, self.manager, self.jobs, self.clock = db, manager, jobs, clock
        self._lock = asyncio.Lock()
        self._job: Job[Any] | None = None
        self.ready = asyncio.Event()  # set once start() has caught up

    async def lang(self, chat_id: int) -> str:
        return (await self.db.chats.get(chat_id)).language

    async def current(self, chat_id: int) -> League | None:
        """The group's league that has not ended (the newest, should there be several)."""
        leagues = [lg for lg in await self.db.leagues.for_chat(chat_id) if lg.status != "ended"]
        return leagues[-1] if leagues else None

    # --- commands -----------------------------------------------------------------------------------------
    async def command(self, chat_id: int, sub: str, rest: str) -> str | None:
        """Run ``/league <sub> <rest>``; the reply (None when a picture says it all)."""
        lang = await self.lang(chat_id)
        usage = text("league_usage", lang)
        league = await self.current(chat_id)
        if sub in ("", "help"):
            return usage + ("\n\n" + await self._next_text(league, lang) if league is not None else "")
        if sub not in (*ADMIN_COMMANDS, "next", "table"):
            return text("league_syntax", lang, error=f"unknown subcommand {sub!r}", usage=usage)
        try:
            if sub == "create":
                return await self._create(chat_id, rest, league, lang)
            if league is None:
                return text("league_none", lang)
            if sub == "next":
                return await self._next_text(league, lang)
            if sub == "table":
                await self.show_season_table(league, league.season, lang)
                return None
            if sub == "pause":
                if league.status != "active":
                    return text("league_not_active", lang, name=league.name)
                await self.db.leagues.set_status(league.id, "paused")
                return text("league_paused", lang, name=league.name)
            if sub == "resume":
                if league.status != "paused":
                    return text("league_not_paused", lang, name=league.name)
                await self.db.leagues.set_status(league.id, "active")
                night = await self._ensure_night(league.id)
                await self.run_due()
                return text("league_resumed", lang, name=league.name, when=self._when(night, league, lang))
            if sub == "end":
                await self.show_season_table(league, league.season, lang)
                await self.db.leagues.new_season(league.id)
                return text("league_season_over", lang, name=league.name, season=league.season, next=league.season + 1)
            if sub == "close":
                await self.db.leagues.set_status(league.id, "ended")
                await self._arm()
                return text("league_closed", lang, name=league.name)
            if sub == "set":
                field, _, value = rest.strip().partition(" ")
                updated = await self.db.leagues.update(league.id, self.clock(), **parse_set(field, value))
                night = await self._ensure_night(updated.id)
                await self.run_due()
                return text(
                    "league_updated", lang, summary=league_summary(updated, lang), when=self._when(night, updated, lang)
                )
        except LeagueSyntaxError as e:
            return text("league_syntax", lang, error=e, usage=usage)
        except StorageError as e:
            return text("league_refused", lang, error=e)
        raise AssertionError(f"/league {sub} has no branch")

    async def _create(self, chat_id: int, rest: str, existing: League | None, lang: str) -> str:
        spec = parse_create(rest)
        if existing is not None:
            return text("league_exists", lang, name=existing.name)
        league = await self.db.leagues.create(
            chat_id,
            spec.name,
            spec.weekdays,
            spec.start_time,
            spec.time_zone,
            spec.rules,
            night_hands=spec.night_hands,
            night_minutes=spec.night_minutes,
            auto_fill=spec.auto_fill,
        )
        night = await self._ensure_night(league.id)
        await self.run_due()  # the first night may already be due for its announcement
        return text("league_created", lang, summary=league_summary(league, lang), when=self._when(night, league, lang))

    async def _next_text(self, league: League, lang: str) -> str:
        summary = league_summary(league, lang)
        nights = [n for n in await self.db.leagues.open_nights() if n.league_id == league.id]
        if not nights:
            return text("league_no_next", lang, summary=summary)
        players = await self.db.leagues.signups(nights[0].id)
        return text(
            "league_next",
            lang,
            summary=summary,
            when=local_when(nights[0].starts_at, league.time_zone, lang),
            count=len(players),
            names=_names([p.display_name for p in players], lang),
        )

    def _when(self, night: LeagueNight | None, league: League, lang: str) -> str:
        return local_when(night.starts_at, league.time_zone, lang) if night else text("league_none_next", lang)

    async def show_season_table(self, league: League, season: int, lang: str) -> None:
        entries = await self.db.standings.leaderboard(
            league.chat_id, Period.league_season(league.id, season), TABLE_ROWS
        )
        title = text("league_season_table", lang, name=league.name, season=season)
        # One slot per season: a season's final table is never replaced by the next season's before it is sent.
        slot = f"league_table{league.id}.{season}"
        self.manager.outbox.show(league.chat_id, slot, _board_picture(entries, lang, title), fresh=True)

    # --- sign-ups -----------------------------------------------------------------------------------------
    async def sign(self, night_id: int, user_id: int, name: str, joining: bool) -> str:
        """A press of "I'm in" / "Not this time"; the notice to answer it with."""
        night = await self.db.leagues.night(night_id)
        league = await self.db.leagues.get(night.league_id)
        lang = await self.lang(league.chat_id)
        if night.status not in ("announced", "reminded"):
            return text("league_signups_closed", lang)
        if joining:
            when = local_when(night.starts_at, league.time_zone, lang)
            # The bot must be able to send the player their tiles: it tries now, while there is time to fix it.
            if not await self.manager._reaches(
                user_id, text("league_signed_private", lang, name=league.name, when=when)
            ):
                return text("league_need_private", lang)
            await self.db.players.upsert(user_id, name)
            await self.db.leagues.sign_up(night_id, user_id)
        else:
            await self.db.leagues.withdraw(night_id, user_id)
        await self._show_signups(night, league, fresh=False)
        return text("league_in_ok" if joining else "league_out_ok", lang)

    async def _show_signups(self, night: LeagueNight, league: League, *, fresh: bool) -> None:
        """The announcement or reminder with the sign-up buttons (fresh: a new message; else edited in place)."""
        lang = await self.lang(league.chat_id)
        players = await self.db.leagues.signups(night.id)
        key = "league_announce" if night.status == "announced" else "league_remind"
        caption = text(
            key,
            lang,
            name=league.name,
            when=local_when(night.starts_at, league.time_zone, lang),
            count=len(players),
            names=_names([p.display_name for p in players], lang),
        )
        self.manager.outbox.show(
            league.chat_id, f"league{night.id}", Content(caption, signup_markup(night.id, lang)), fresh=fresh
        )

    # --- the timeline -------------------------------------------------------------------------------------
    async def start(self) -> None:
        """At start-up: pick up nights left running, give every active league its next night, do what is due."""
        for night in await self.db.leagues.open_nights():
            if night.status == "running":
                await self._recover_running(night, await self.db.leagues.get(night.league_id))
        for league in await self.db.leagues.active():
            await self._ensure_night(league.id)
        await self.run_due()
        self.ready.set()

    async def run_due(self) -> None:
        """Take every night not yet started to the step due now (each step at most once), then re-arm."""
        async with self._lock:
            now = self.clock()
            for night in await self.db.leagues.open_nights():
                step = due_step(night.status, night.starts_at, now)
                if step is not None:
                    await self._step(night, await self.db.leagues.get(night.league_id), step)
            await self._arm()

    async def _step(self, night: LeagueNight, league: League, step: NightStatus) -> None:
        lang = await self.lang(league.chat_id)
        when = local_when(night.starts_at, league.time_zone, lang)
        if league.status != "active":  # paused: no announcements, and the night is off when it comes
            if step in ("running", "called_off") and await self.db.leagues.advance_night(night.id, "called_off"):
                self.manager.outbox.announce(
                    league.chat_id, text("league_paused_off", lang, name=league.name, when=when)
                )
            return
        if step in ("announced", "reminded"):
            if await self.db.leagues.advance_night(night.id, step):
                await self._show_signups(dataclasses.replace(night, status=step), league, fresh=True)
        elif step == "running":
            if await self.db.leagues.advance_night(night.id, "running"):
                await self._open(night, league)
        elif await self.db.leagues.advance_night(night.id, "called_off"):
            await self._called_off(night, league, "league_missed")

    async def _open(self, night: LeagueNight, league: League) -> None:
        """Open the table for a night this process just moved to running (or call it off)."""
        lang = await self.lang(league.chat_id)
        players = await self.db.leagues.signups(night.id)
        if len(players) < SEATS and not (league.auto_fill and players):
            if await self.db.leagues.advance_night(night.id, "called_off"):
                await self._called_off(
                    night,
                    league,
                    "league_called_off",
                    count=len(players),
                    names=_names([p.display_name for p in players], lang),
                )
            return
        roster = [Seat(p.id, p.display_name) for p in players]
        session = NightSession(self, night, league, roster)
        extra = ""
        if len(players) > SEATS:
            extra = text("league_rotation", lang, count=len(players))
        elif len(players) < SEATS:
            extra = text("league_filled", lang, count=SEATS - len(players))
        opened = await self.manager.open_table(
            league.chat_id,
            league.name,
            session.first_seating(),
            league.rules,
            league.night_hands or MAX_NIGHT_HANDS,
            session,
            league_night_id=night.id,
        )
        if opened:
            names = _names([p.display_name for p in players], lang)
            self.manager.outbox.announce(
                league.chat_id, text("league_start", lang, name=league.name, names=names, extra=extra)
            )
        elif await self.db.leagues.advance_night(night.id, "called_off"):
            await self._called_off(night, league, "league_busy")

    async def _called_off(self, night: LeagueNight, league: League, key: str, **fields: object) -> None:
        lang = await self.lang(league.chat_id)
        following = await self._ensure_night(league.id)
        self.manager.outbox.announce(
            league.chat_id,
            text(
                key,
                lang,
                name=league.name,
                when=local_when(night.starts_at, league.time_zone, lang),
                next=self._when(following, league, lang),
                **fields,
            ),
        )

    async def _recover_running(self, night: LeagueNight, league: League) -> None:
        """A night found running at start-up: re-attach its resumed table, open it, or close the night."""
        match = await self.db.leagues.night_match(night.id)
        table = self.manager.tables.get(league.chat_id)
        if match is None:  # stopped between claiming the night and opening its table
            if self.clock() < night.starts_at + LATE_START_LIMIT:
                await self._open(night, league)
            elif await self.db.leagues.advance_night(night.id, "called_off"):
                await self._called_off(night, league, "league_missed")
            return
        if match.status == "running" and table is not None and table.match_id == match.id:
            players = await self.db.leagues.signups(night.id)
            session = NightSession(self, night, league, [Seat(p.id, p.display_name) for p in players])
            session.adopt(table)
            self.manager.sessions[league.chat_id] = session
            return
        if match.status == "running":  # its hand was not resumable: the night ends with what was played
            await self.db.matches.finish(match.id, "abandoned")
        await self.night_closed(night, league)

    async def night_closed(self, night: LeagueNight, league: League) -> None:
        """The night's table finished: mark it done, show its results and the season table, schedule the next."""
        await self.db.leagues.advance_night(night.id, "done")  # False if the league was closed meanwhile
        lang = await self.lang(league.chat_id)
        when = local_when(night.starts_at, league.time_zone, lang)
        results = await self.db.leagues.night_results(night.id)
        title = text("league_night_results", lang, name=league.name, when=when)
        self.manager.outbox.show(
            league.chat_id, f"league_results{night.id}", _board_picture(results, lang, title), fresh=True
        )
        await self.show_season_table(league, night.season, lang)
        await self._ensure_night(league.id)
        await self._arm()

    async def _ensure_night(self, league_id: int) -> LeagueNight | None:
        """The league's next open night, scheduled if it has none; None when the league is not active."""
        league = await self.db.leagues.get(league_id)
        if league.status != "active":
            return None
        nights = [n for n in await self.db.leagues.open_nights() if n.league_id == league_id]
        upcoming = [n for n in nights if n.status != "running"]
        if upcoming:
            return upcoming[0]
        after = max([self.clock(), *(n.starts_at for n in nights)])
        return await self.db.leagues.schedule_night(league_id, league.next_start(after))

    async def _arm(self) -> None:
        """One job at the earliest next step of any night not yet started."""
        if self._job is not None:
            self._job.schedule_removal()
            self._job = None
        wakeups = [w for n in await self.db.leagues.open_nights() if (w := next_wakeup(n.status, n.starts_at))]
        if wakeups:
            delay = max(0.0, (min(wakeups) - self.clock()).total_seconds())
            # A late job still runs (APScheduler would skip one over a second late): a night is never skipped.
            self._job = self.jobs.run_once(
                self._on_job, delay, name="league nights", job_kwargs={"misfire_grace_time": None}
            )

    async def _on_job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        self._job = None
        await self.run_due()


# --- Telegram handlers -------------------------------------------------------------------------------------
def nights_of(context: ContextTypes.DEFAULT_TYPE) -> LeagueNights:
    nights = context.application.bot_data["league_nights"]
    assert isinstance(nights, LeagueNights)
    return nights


async def league_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/league [create|pause|resume|end|close|set|table|next|help] …"""
    user, chat, message = update.effective_user, update.effective_chat, update.effective_message
    if user is None or chat is None or message is None or not message.text:
        return
    nights = nights_of(context)
    outbox = nights.manager.outbox
    if chat.type not in (Chat.GROUP, Chat.SUPERGROUP):
        outbox.announce(chat.id, text("group_only", nights.manager.config.lang))
        return
    words = message.text.split(maxsplit=2)
    sub = words[1].lower() if len(words) > 1 else ""
    rest = words[2] if len(words) > 2 else ""
    if sub in ADMIN_COMMANDS and not await _is_admin(context, chat.id, user.id):
        reply: str | None = text("league_admin_only", await nights.lang(chat.id))
    else:
        reply = await nights.command(chat.id, sub, rest)
    if reply:
        outbox.announce(chat.id, reply)


async def signup_press(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A sign-up button; answered here and kept from the table's button handler."""
    query = update.callback_query
    if query is None or query.data is None:
        return
    _, night_id, choice = query.data.split("|")
    nights = nights_of(context)
    try:
        notice = await nights.sign(int(night_id), query.from_user.id, query.from_user.full_name, choice == "in")
    except StorageError as e:
        log.info("sign-up press refused: %s", e)
        notice = text("league_signups_closed", nights.manager.config.lang)
    await query.answer(notice)
    raise ApplicationHandlerStop


def register(application: Application[Any, Any, Any, Any, Any, Any]) -> None:
    """Add the league handlers, and start the league nights once the application's own start-up is done.

    The catch-up runs as the job queue's first job, once the application runs (``LeagueNights.ready`` is set
    after it). The nights read the time from ``bot_data["clock"]`` when set (a UTC clock: tests control it), else the
    system clock.
    """
    application.add_handler(CommandHandler("league", league_command))
    application.add_handler(
        CallbackQueryHandler(signup_press, pattern=rf"^{CALLBACK_PREFIX}\|\d+\|(in|out)$"), group=-1
    )
    previous = application.post_init

    async def start_league_nights(app: Application[Any, Any, Any, Any, Any, Any]) -> None:
        if previous is not None:
            await previous(app)
        assert app.job_queue is not None
        clock: Clock = app.bot_data.get("clock", utc_now)
        nights = LeagueNights(app.bot_data["db"], app.bot_data["manager"], app.job_queue, clock)
        app.bot_data["league_nights"] = nights

        async def catch_up(context: CallbackContext[Any, Any, Any, Any]) -> None:
            await nights.start()

        # Started by the job queue, so the tables it opens get their timers from a running scheduler.
        app.job_queue.run_once(catch_up, 0, name="league start-up", job_kwargs={"misfire_grace_time": None})

    application.post_init = start_league_nights

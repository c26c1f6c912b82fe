"""League nights: the commands' work, sign-ups, and the timeline that runs each night (one JobQueue job).

    nights = LeagueNights(db, tables, job_queue, clock)
    await nights.start()                         # at start-up, once the tables have resumed (bot.app)
    LeagueNights(..., owns=holds)                # a worker (bot.cluster): the nights of its shards' groups alone;
    await nights.start(which=taken)              # and those of the shards it has just taken, once resumed
    reply = await nights.command(chat_id, "next", "")
    notice = await nights.sign(night_id, user_id, name, joining=True)

A night's steps (announcement, reminder, start, end) are status changes that storage makes with one guarded
UPDATE, so a step runs once however many timers or restarts reach it; a step missed while the bot was down
happens when it comes back (see ``bot.league.schedule`` for the timeline). With several workers, a group's nights
run on the worker that holds its shard (bot.cluster: its advisory lock), beside its table; when that worker dies,
the one that takes the shard over resumes the table and picks the night up where it was.

At the start, four or more sign-ups open the group's table with them (more than four take turns, see
``bot.league.schedule.sitting``); fewer are filled with automatic players if the league allows, else the night
is called off. League hands count for skill as usual and, through the match's league night, for the season
table; at the end of a night the group gets the night's results and the season table as pictures.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final

from telegram.ext import CallbackContext, Job, JobQueue

from bot.host.edge import reaches
from bot.host.registry import Tables
from bot.i18n import t
from bot.league.schedule import (
    LATE_START_LIMIT,
    SEATS,
    due_step,
    next_seating,
    next_wakeup,
    night_over,
    sitting,
)
from bot.outbox import Content
from bot.table.key import TableKey
from bot.table.state import Seat, Table
from bot.views.league_views import local_when, names_text, signup_markup
from bot.views.standings_views import board_content
from storage.codec import Clock, utc_now
from storage.database import Database
from storage.leagues import League, LeagueNight, NightStatus
from storage.matches import MAX_MATCH_HANDS
from storage.standings import Period

log = logging.getLogger(__name__)

TABLE_ROWS: Final = 20  # rows of the season table picture


def _everywhere(chat_id: int) -> bool:
    return True


class NightSession:
    """One league night at the group's table (its runner's session): who sits each hand, when it ends."""

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
    """Every league's nights: sign-ups and the timeline driven by one JobQueue job (``bot.league.subcommands``
    runs the /league commands on it)."""

    def __init__(
        self,
        db: Database,
        tables: Tables,
        jobs: JobQueue[Any],
        clock: Clock = utc_now,
        owns: Callable[[int], bool] = _everywhere,
    ) -> None:
        self.db, self.tables, self.jobs, self.clock = db, tables, jobs, clock
        # Whose nights these are: every group's in one process; on a worker (bot.cluster), the groups of the shards
        # it holds, whose tables it runs (the shard's lock makes it the one worker that runs their nights).
        self.owns = owns
        self.outbox = tables.edge.outbox
        self._lock = asyncio.Lock()
        self._job: Job[Any] | None = None
        self.ready = asyncio.Event()  # set once start() has caught up

    async def lang(self, chat_id: int) -> str:
        return (await self.db.chats.get(chat_id)).language

    async def current(self, chat_id: int) -> League | None:
        """The group's league that has not ended (the newest, should there be several)."""
        leagues = [lg for lg in await self.db.leagues.for_chat(chat_id) if lg.status != "ended"]
        return leagues[-1] if leagues else None

    def when(self, night: LeagueNight | None, league: League, lang: str) -> str:
        return local_when(night.starts_at, league.time_zone, lang) if night else t("league_none_next", lang)

    async def show_season_table(self, league: League, season: int, lang: str) -> None:
        entries = await self.db.standings.leaderboard(
            league.chat_id, Period.league_season(league.id, season), TABLE_ROWS
        )
        title = t("league_season_table", lang, name=league.name, season=season)
        # One slot per season: a season's final table is never replaced by the next season's before it is sent.
        slot = f"league_table{league.id}.{season}"
        self.outbox.show(league.chat_id, slot, board_content(entries, lang, title), fresh=True)

    # --- sign-ups -----------------------------------------------------------------------------------------
    async def chat_of(self, night_id: int) -> int:
        """The group whose league holds the night (sign-ups are for its members)."""
        night = await self.db.leagues.night(night_id)
        return (await self.db.leagues.get(night.league_id)).chat_id

    async def sign(self, night_id: int, user_id: int, name: str, joining: bool, lang: str | None = None) -> str:
        """A press of "I'm in" / "Not this time"; the notice to answer it with, in ``lang`` (the presser's own;
        default: the group's). A second "I'm in" only says so: nothing is sent again."""
        night = await self.db.leagues.night(night_id)
        league = await self.db.leagues.get(night.league_id)
        lang = lang or await self.lang(league.chat_id)
        if night.status not in ("announced", "reminded"):
            return t("league_signups_closed", lang)
        if joining and any(p.id == user_id for p in await self.db.leagues.signups(night_id)):
            return t("league_already_in", lang)
        if joining:
            when = local_when(night.starts_at, league.time_zone, lang)
            # The bot must be able to send the player their tiles: it tries now, while there is time to fix it.
            text = t("league_signed_private", lang, name=league.name, when=when)
            if not await reaches(self.tables.edge.bot, self.outbox, user_id, text):
                return t("league_need_private", lang)
            await self.db.players.upsert(user_id, name)
            await self.db.leagues.sign_up(night_id, user_id)
        else:
            await self.db.leagues.withdraw(night_id, user_id)
        await self._show_signups(night, league, fresh=False)
        return t("league_in_ok" if joining else "league_out_ok", lang)

    async def _show_signups(self, night: LeagueNight, league: League, *, fresh: bool) -> None:
        """The announcement or reminder with the sign-up buttons (fresh: a new message; else edited in place)."""
        lang = await self.lang(league.chat_id)
        players = await self.db.leagues.signups(night.id)
        key = "league_announce" if night.status == "announced" else "league_remind"
        minutes = max(1, round((night.starts_at - self.clock()).total_seconds() / 60))
        caption = t(
            key,
            lang,
            left=t("league_left_hour", lang) if minutes >= 50 else t("league_left_minutes", lang, minutes=minutes),
            name=league.name,
            when=local_when(night.starts_at, league.time_zone, lang),
            count=len(players),
            names=names_text([p.display_name for p in players], lang),
        )
        slot = _signup_slot(night.id, night.status)
        self.outbox.show(league.chat_id, slot, Content(caption, signup_markup(night.id, lang)), fresh=fresh)

    async def close_signups(self, night: LeagueNight, league: League) -> None:
        """The sign-up messages' last state once the night starts or is called off: who signed up, no buttons
        (else "starts in 2 minutes" and [I'm in | Not this time] would look live for ever)."""
        lang = await self.lang(league.chat_id)
        players = await self.db.leagues.signups(night.id)
        caption = t(
            "league_signups_final",
            lang,
            name=league.name,
            when=local_when(night.starts_at, league.time_zone, lang),
            count=len(players),
            names=names_text([p.display_name for p in players], lang),
        )
        outbox, stored = self.outbox, await self.db.live_messages.of_chats([league.chat_id])
        for slot in (_signup_slot(night.id, "announced"), _signup_slot(night.id, "reminded")):
            sent = next((m for m in stored if m.slot == slot), None)
            if outbox.message_id(league.chat_id, slot) is None and sent is not None:  # sent before a restart
                outbox.adopt(league.chat_id, slot, sent.message_id, is_photo=False)
            if outbox.message_id(league.chat_id, slot) is not None:  # never sent: nothing to close
                outbox.show(league.chat_id, slot, Content(caption))

    # --- the timeline -------------------------------------------------------------------------------------
    async def start(self, which: Callable[[int], bool] = _everywhere) -> None:
        """At start-up (on a worker: when it takes shards, ``which`` their groups): pick up nights left running,
        give every active league its next night, do what is due."""
        for night, league in await self._open_nights():
            if night.status == "running" and which(league.chat_id):
                await self._recover_running(night, league)
        for league in await self.db.leagues.active():
            if self.owns(league.chat_id) and which(league.chat_id):
                await self.ensure_night(league.id)
        await self.run_due()
        self.ready.set()

    async def _open_nights(self) -> list[tuple[LeagueNight, League]]:
        """The open nights of the groups whose nights run here, with their leagues."""
        nights = [(n, await self.db.leagues.get(n.league_id)) for n in await self.db.leagues.open_nights()]
        return [(night, league) for night, league in nights if self.owns(league.chat_id)]

    async def run_due(self) -> None:
        """Take every night not yet started to the step due now (each step at most once), then re-arm."""
        async with self._lock:
            now = self.clock()
            for night, league in await self._open_nights():
                step = due_step(night.status, night.starts_at, now)
                if step is not None:
                    await self._step(night, league, step)
            await self.arm()

    async def _step(self, night: LeagueNight, league: League, step: NightStatus) -> None:
        lang = await self.lang(league.chat_id)
        when = local_when(night.starts_at, league.time_zone, lang)
        if league.status != "active":  # paused: no announcements, and the night is off when it comes
            if step in ("running", "called_off") and await self.db.leagues.advance_night(night.id, "called_off"):
                await self.close_signups(night, league)
                self.outbox.announce(league.chat_id, t("league_paused_off", lang, name=league.name, when=when))
            return
        if step in ("announced", "reminded"):
            if await self.db.leagues.advance_night(night.id, step):
                await self._show_signups(dataclasses.replace(night, status=step), league, fresh=True)
        elif step == "running":
            if await self.db.leagues.advance_night(night.id, "running"):
                await self.close_signups(night, league)
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
                    names=names_text([p.display_name for p in players], lang),
                )
            return
        roster = [Seat(p.id, p.display_name) for p in players]
        session = NightSession(self, night, league, roster)
        extra = ""
        if len(players) > SEATS:
            extra = t("league_rotation", lang, count=len(players))
        elif len(players) < SEATS:
            extra = t("league_filled", lang, count=SEATS - len(players))
        key = TableKey(league.chat_id)  # a league night plays in the group's General topic
        if self.tables.get(key) is not None:
            if await self.db.leagues.advance_night(night.id, "called_off"):
                await self._called_off(night, league, "league_busy")
            return
        names = names_text([p.display_name for p in players], lang)
        # Told before the table opens, so the group reads it before the first hand's picture.
        self.outbox.announce(league.chat_id, t("league_start", lang, name=league.name, names=names, extra=extra))
        opened = await self.tables.open_session(
            key,
            league.name,
            session.first_seating(),
            league.rules,
            league.night_hands or MAX_MATCH_HANDS,
            session,
            league_night_id=night.id,
        )
        if not opened and await self.db.leagues.advance_night(night.id, "called_off"):
            await self._called_off(night, league, "league_busy")

    async def _called_off(self, night: LeagueNight, league: League, key: str, **fields: object) -> None:
        await self.close_signups(night, league)
        lang = await self.lang(league.chat_id)
        following = await self.ensure_night(league.id)
        self.outbox.announce(
            league.chat_id,
            t(
                key,
                lang,
                name=league.name,
                when=local_when(night.starts_at, league.time_zone, lang),
                next=self.when(following, league, lang),
                **fields,
            ),
        )

    async def _recover_running(self, night: LeagueNight, league: League) -> None:
        """A night found running at start-up: re-attach its resumed table, open it, or close the night."""
        match = await self.db.leagues.night_match(night.id)
        table = self.tables.get(TableKey(league.chat_id))
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
            self.tables.attach(TableKey(league.chat_id), session)
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
        title = t("league_night_results", lang, name=league.name, when=when)
        self.outbox.show(league.chat_id, f"league_results{night.id}", board_content(results, lang, title), fresh=True)
        await self.show_season_table(league, night.season, lang)
        await self.ensure_night(league.id)
        await self.arm()

    async def ensure_night(self, league_id: int) -> LeagueNight | None:
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

    async def arm(self) -> None:
        """One job at the earliest next step of any night not yet started."""
        if self._job is not None:
            self._job.schedule_removal()
            self._job = None
        wakeups = [w for n, _ in await self._open_nights() if (w := next_wakeup(n.status, n.starts_at))]
        if wakeups:
            delay = max(0.0, (min(wakeups) - self.clock()).total_seconds())
            # A late job still runs (APScheduler would skip one over a second late): a night is never skipped.
            self._job = self.jobs.run_once(
                self._on_job, delay, name="league nights", job_kwargs={"misfire_grace_time": None}
            )

    async def _on_job(self, context: CallbackContext[Any, Any, Any, Any]) -> None:
        self._job = None
        await self.run_due()


def _signup_slot(night_id: int, status: str) -> str:
    """The group's slot of a night's announcement, or of its reminder (a message of its own)."""
    return f"league{night_id}" if status == "announced" else f"league{night_id}.remind"

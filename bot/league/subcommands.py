"""The /league subcommands: create, set, pause, resume, end (a season), close, next, table, help.

    reply = await run_subcommand(nights, chat_id, "pause", "")     # the reply, or None when a picture says it

Admin-only subcommands are ``ADMIN_SUBCOMMANDS`` (the handler checks). Malformed input gets the syntax
error and the usage; storage's refusals are quoted.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Final

from bot.i18n import t
from bot.league.nights import LeagueNights
from bot.league.schedule import LeagueSyntaxError, parse_create, parse_set
from bot.views.league_views import league_summary, local_when, names_text
from storage.errors import StorageError
from storage.leagues import League
from storage.standings import Period

ADMIN_SUBCOMMANDS: Final = frozenset({"create", "pause", "resume", "end", "close", "set"})
# After these, a night may be due at once (announced late): the handler runs it after sending the reply.
SCHEDULING_SUBCOMMANDS: Final = frozenset({"create", "resume", "set"})

Subcommand = Callable[[LeagueNights, League, str, str], Awaitable[str | None]]


async def run_subcommand(
    nights: LeagueNights,
    chat_id: int,
    sub: str,
    rest: str,
    say: Callable[[str], None] | None = None,
    lang: str | None = None,
) -> str | None:
    """Run ``/league <sub> <rest>``; the reply (None when a picture says it all, or when ``say`` was given it), in
    ``lang``, the asker's (None: the group's).

    A night the command made due (created late, say) is announced after the reply has been handed to ``say``."""
    answer = await _answer(nights, chat_id, sub, rest, lang or await nights.lang(chat_id))
    if say is not None and answer:
        say(answer)
        answer = None
    if sub in SCHEDULING_SUBCOMMANDS:
        await nights.run_due()
    return answer


async def _answer(nights: LeagueNights, chat_id: int, sub: str, rest: str, lang: str) -> str | None:
    usage = t("league_usage", lang)
    league = await nights.current(chat_id)
    if sub == "table" and (rest.strip() or league is None):  # any league of the group, a closed one too
        return await _named_table(nights, chat_id, rest.strip(), lang)
    if sub in ("", "help"):
        return usage + ("\n\n" + await next_text(nights, league, lang) if league is not None else "")
    if sub != "create" and sub not in _SUBCOMMANDS:
        return t("league_syntax", lang, error=t("league_err_subcommand", lang, said=sub), usage=usage)
    try:
        if sub == "create":
            return await _create(nights, chat_id, rest, league, lang)
        if league is None:
            return t("league_none", lang)
        return await _SUBCOMMANDS[sub](nights, league, rest, lang)
    except LeagueSyntaxError as e:
        return t("league_syntax", lang, error=t(e.key, lang, **e.fields), usage=usage)
    except StorageError as e:
        return t("league_refused", lang, error=e)


async def _create(nights: LeagueNights, chat_id: int, rest: str, existing: League | None, lang: str) -> str:
    spec = parse_create(rest)
    if existing is not None:
        return t("league_exists", lang, name=existing.name)
    league = await nights.db.leagues.create(
        chat_id, spec.name, spec.weekdays, spec.start_time, spec.time_zone, spec.rules,
        night_hands=spec.night_hands, night_minutes=spec.night_minutes, auto_fill=spec.auto_fill,
    )  # fmt: skip
    night = await nights.ensure_night(league.id)  # its announcement, if due, follows the reply (the handler)
    return t("league_created", lang, summary=league_summary(league, lang), when=nights.when(night, league, lang))


async def next_text(nights: LeagueNights, league: League, lang: str) -> str:
    summary = league_summary(league, lang)
    upcoming = [n for n in await nights.db.leagues.open_nights() if n.league_id == league.id]
    if not upcoming:
        return t("league_no_next", lang, summary=summary)
    players = await nights.db.leagues.signups(upcoming[0].id)
    return t(
        "league_next",
        lang,
        summary=summary,
        when=local_when(upcoming[0].starts_at, league.time_zone, lang),
        count=len(players),
        names=names_text([p.display_name for p in players], lang),
    )


async def _next(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    return await next_text(nights, league, lang)


async def _shown_season(nights: LeagueNights, league: League) -> int:
    """The season whose table ``/league table`` shows: the current one, or, while it has no result yet (just
    begun by /league end, or never to begin: the league closed), the last season that has one."""
    for season in range(league.season, 0, -1):
        period = Period.league_season(league.id, season)
        if await nights.db.standings.leaderboard(league.chat_id, period, 1):
            return season
    return league.season


async def _table(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    await nights.show_season_table(league, await _shown_season(nights, league), lang)
    return None


async def _named_table(nights: LeagueNights, chat_id: int, name: str, lang: str) -> str | None:
    """``/league table <name>``: that league's standings (the newest with that name, closed or not); without a
    name, the newest league's; the group's league names when none matches."""
    leagues = await nights.db.leagues.for_chat(chat_id)
    found = [lg for lg in leagues if not name or lg.name.lower() == name.lower()]
    if not found:
        if not leagues:
            return t("league_none", lang)
        return t("league_unknown_name", lang, said=name, names=" · ".join(dict.fromkeys(lg.name for lg in leagues)))
    await nights.show_season_table(found[-1], await _shown_season(nights, found[-1]), lang)
    return None


async def _pause(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    if league.status != "active":
        return t("league_not_active", lang, name=league.name)
    await nights.db.leagues.set_status(league.id, "paused")
    return t("league_paused", lang, name=league.name)


async def _resume(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    if league.status != "paused":
        return t("league_not_paused", lang, name=league.name)
    await nights.db.leagues.set_status(league.id, "active")
    night = await nights.ensure_night(league.id)
    return t("league_resumed", lang, name=league.name, when=nights.when(night, league, lang))


async def _end(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    await nights.show_season_table(league, league.season, lang)
    await nights.db.leagues.new_season(league.id)
    return t("league_season_over", lang, name=league.name, season=league.season, next=league.season + 1)


async def _close(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    announced = [n for n in await nights.db.leagues.open_nights() if n.league_id == league.id]
    await nights.db.leagues.set_status(league.id, "ended")
    for night in announced:  # called off with the league: their sign-ups close
        if night.status in ("announced", "reminded"):
            await nights.close_signups(night, league)
    await nights.arm()
    return t("league_closed", lang, name=league.name)


async def _set(nights: LeagueNights, league: League, rest: str, lang: str) -> str | None:
    field, _, value = rest.strip().partition(" ")
    updated = await nights.db.leagues.update(league.id, nights.clock(), **parse_set(field, value))
    night = await nights.ensure_night(updated.id)
    return t("league_updated", lang, summary=league_summary(updated, lang), when=nights.when(night, updated, lang))


_SUBCOMMANDS: Final[dict[str, Subcommand]] = {
    "next": _next, "table": _table, "pause": _pause, "resume": _resume, "end": _end, "close": _close, "set": _set,
}  # fmt: skip

"""The bot's configuration: environment variables, optionally from a ``.env`` file.

>>> cfg = Config.from_env({"TELEGRAM_BOT_TOKEN": "123:abc", "MAHJONG_CLAIM_SECONDS": "2.5"})
>>> cfg.claim_seconds, cfg.api_base_url
(2.5, 'https://api.telegram.org/bot')
>>> Config.from_env({"TELEGRAM_BOT_TOKEN": "1:a", "TELEGRAM_API_BASE_URL": "http://127.0.0.1:8081"}).api_base_url
'http://127.0.0.1:8081/bot'

``check_config(env)`` reads the configuration as ``python -m bot`` would and checks what can be checked without
Telegram (``python -m bot --check-config``): exit status 0, or 2 with the reason.

``load_dotenv(path)`` reads ``KEY=value`` lines (``#`` comments, optional quotes, ``export`` prefix) into
``os.environ`` without overriding what the environment already sets.
"""

from __future__ import annotations

import importlib.util
import os
import re
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from bot.i18n import CatalogueError
from bot.i18n import load as load_catalogues
from game.languages import LANGUAGES
from game.review import DEFAULT_SAMPLES
from storage.dialect import is_postgres, shown, sqlite_file

TOKEN_HELP = (
    "TELEGRAM_BOT_TOKEN is not set.\n"
    "Create a bot with @BotFather in Telegram (send /newbot), copy the token it gives you, then either\n"
    "  export TELEGRAM_BOT_TOKEN=123456:ABC...   or put  TELEGRAM_BOT_TOKEN=123456:ABC...  in a .env file,\n"
    "and run `make run` again. In @BotFather, also turn off privacy mode (/setprivacy → Disable) or make the\n"
    "bot a group admin, so that it sees /commands in groups.\n"
    "Without a token, `make run` opens the local sandbox: the bot in your browser, no Telegram needed."
)


# A bot token as @BotFather issues them: the bot's id, a colon, a secret.
_TOKEN = re.compile(r"^[0-9]{1,20}:[A-Za-z0-9_-]{20,}$")


class ConfigError(ValueError):
    """A missing or malformed setting; the message says which and how to fix it."""


def load_dotenv(path: str | Path, environ: MutableMapping[str, str] | None = None) -> None:
    """Copy ``KEY=value`` lines of ``path`` into ``environ`` (default ``os.environ``); existing keys win."""
    env = os.environ if environ is None else environ
    p = Path(path)
    if not p.is_file():
        return
    for number, raw in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        key = key.strip()
        if not sep or not key.isidentifier():
            raise ConfigError(f"{p}:{number}: expected KEY=value, got {raw!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        elif " #" in value:  # an unquoted value may carry a trailing comment
            value = value.split(" #", 1)[0].rstrip()
        env.setdefault(key, value)


def _with_bot_path(url: str) -> str:
    """PTB appends the token to its base URL; a bare ``scheme://host:port`` means the ``/bot`` path."""
    parts = urlsplit(url)
    if not parts.scheme or not parts.netloc:
        raise ConfigError(f"not a URL: {url!r} (expected e.g. http://127.0.0.1:8081/bot)")
    return url.rstrip("/") + "/bot" if parts.path in ("", "/") else url


def _file_url_beside(api_url: str) -> str:
    """A self-hosted server serves files beside its API: ``…/bot`` → ``…/file/bot``."""
    head, _, _ = api_url.rpartition("/bot")
    return head + "/file/bot"


def _number(env: Mapping[str, str], key: str, default: float, minimum: float = 0.0) -> float:
    value = _optional_number(env, key, minimum)
    return default if value is None else value


def _optional_number(env: Mapping[str, str], key: str, minimum: float = 0.0) -> float | None:
    raw = env.get(key, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{key} must be a number of seconds, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{key} must be at least {minimum}, got {raw!r}")
    return value


def _flag(env: Mapping[str, str], key: str, meaning: str) -> bool:
    raw = env.get(key, "").strip().lower()
    if raw not in ("", "0", "1", "false", "true", "no", "yes", "off", "on"):
        raise ConfigError(f"{key} must be 1 ({meaning}) or 0, got {raw!r}")
    return raw in ("1", "true", "yes", "on")


def _optional_count(env: Mapping[str, str], key: str) -> int | None:
    raw = env.get(key, "").strip()
    if not raw:
        return None
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{key} must be a whole number of at least 1, got {raw!r}")
    return int(raw)


def usable_cores() -> int:
    """The cores this process may run on: its CPU affinity (``taskset``, a container's cpuset), not the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # no affinity outside Linux: every core
        return os.cpu_count() or 1


def _webhook_url(env: Mapping[str, str]) -> str | None:
    url = env.get("MAHJONG_WEBHOOK_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise ConfigError(f"MAHJONG_WEBHOOK_URL must be the public https:// URL Telegram posts to, got {url!r}")
    return url


def _webhook_secret(env: Mapping[str, str]) -> str | None:
    """Telegram sends it back in a header on every update: 1-256 of A-Z a-z 0-9 _ -."""
    secret = env.get("MAHJONG_WEBHOOK_SECRET", "").strip()
    if secret and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", secret):
        raise ConfigError("MAHJONG_WEBHOOK_SECRET must be 1-256 characters of A-Z, a-z, 0-9, _ and -")
    return secret or None


def _webapp_url(env: Mapping[str, str]) -> str | None:
    """The Mini App's public address: https (Telegram opens nothing else), or http on loopback for tests."""
    url = env.get("MAHJONG_WEBAPP_URL", "").strip()
    if not url:
        return None
    parts = urlsplit(url)
    loopback = parts.scheme == "http" and parts.hostname in ("127.0.0.1", "localhost", "::1")
    if not parts.netloc or not (parts.scheme == "https" or loopback) or parts.query or parts.fragment:
        raise ConfigError(f"MAHJONG_WEBAPP_URL must be the public https:// address of the Mini App, got {url!r}")
    return url if parts.path.endswith("/") else url + "/"


def _webapp_name(env: Mapping[str, str]) -> str | None:
    """The Mini App's short name given to @BotFather's /newapp (t.me/<bot>/<name>): 3-30 of A-Z a-z 0-9 _."""
    name = env.get("MAHJONG_WEBAPP_NAME", "").strip()
    if name and not re.fullmatch(r"[A-Za-z0-9_]{3,30}", name):
        raise ConfigError("MAHJONG_WEBAPP_NAME must be the Mini App's short name from /newapp (3-30 of A-Z a-z 0-9 _)")
    return name or None


def host_port(env: Mapping[str, str], key: str, default: tuple[str, int]) -> tuple[str, int]:
    raw = env.get(key, "").strip()
    if not raw:
        return default
    host, sep, port = raw.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ConfigError(f"{key} must be host:port (e.g. 127.0.0.1:8443), got {raw!r}")
    return host.strip("[]"), int(port)


def _user_ids(env: Mapping[str, str], key: str) -> frozenset[int]:
    raw = env.get(key, "").replace(",", " ").split()
    try:
        return frozenset(int(x) for x in raw)
    except ValueError:
        raise ConfigError(f"{key} must be Telegram user ids separated by commas, got {env.get(key)!r}") from None


@dataclass(frozen=True)
class Config:
    token: str
    db_path: str = "./data/mahjong.sqlite3"
    api_base_url: str = "https://api.telegram.org/bot"
    file_base_url: str = "https://api.telegram.org/file/bot"
    log_level: str = "INFO"
    lang: str = "zh"
    # The claim window and turn timer for every table; None = each group's own settings (RULES.md §5).
    claim_seconds: float | None = None
    turn_seconds: float | None = None
    bot_delay: float = 0.6  # how long an automatic player "thinks" on its turn (claims: at once)
    # With two or more people at a table, the longest a discard no person may claim waits (bot.table.hand.hold).
    claim_pause: float = 3.0
    next_hand_seconds: float = 30.0  # the next hand starts after this even if not everyone pressed Ready
    group_interval: float = 3.1  # between two writes to one group: under 20 a minute
    group_idle_interval: float = 30.0  # a group of the seated people alone: its picture between the deal and the end
    private_interval: float = 1.0  # between two writes to one private chat
    passive_interval: float = 4.0  # a player who need not act sees the table refreshed at most this often
    global_rate: float = 30.0  # writes per second over all chats
    match_seed: int | None = None  # fixed match seed (tests); None = random
    review_samples: int = DEFAULT_SAMPLES  # sampled worlds per reviewed decision (fewer: faster, noisier)
    webhook_url: str | None = None  # webhook mode (bot.webhook) when set; else long polling
    webhook_listen: tuple[str, int] = ("127.0.0.1", 8443)  # loopback: behind the TLS reverse proxy
    webhook_secret: str | None = None
    admin_ids: frozenset[int] = frozenset()  # the bot's operators: /status
    # The Mini App (bot.live): its public address (None: off, no Mini App buttons), where its server listens in
    # the bot's own process, and its short name from @BotFather's /newapp (None: no Mini App button in groups).
    webapp_url: str | None = None
    webapp_listen: tuple[str, int] = ("127.0.0.1", 8090)
    webapp_name: str | None = None
    # The live table's caps (bot.listeners): open connections in all (never more than half the process's file
    # descriptors) and WebSockets from one address; whether X-Forwarded-For / X-Real-IP name that address (only
    # behind a reverse proxy that sets them: otherwise anyone could write any address into the logs).
    webapp_connections: int = 1000
    webapp_per_address: int = 20
    webapp_proxy: bool = False
    # Several workers sharing one PostgreSQL (bot.cluster): off by default; the overall write rate shared through
    # Redis (None: each worker keeps global_rate / workers_expected to itself).
    workers: bool = False
    redis_url: str | None = None
    workers_expected: int = 1
    # The processes the search (the ``hard`` level, reviews) runs in; None: one fewer than the cores this process
    # may use (at least one), the other core left to the event loop. Several workers on one machine set it so that
    # together they do not start more processes than the machine has cores.
    search_processes: int | None = None
    # Quick match (bot.quick): the waits one may choose before automatic players sit (the middle one the default).
    quick_waits: tuple[int, ...] = (30, 60, 180)
    quick_hands: int = 4  # the hands of a quick table

    @property
    def search_workers(self) -> int:
        """How many search processes this process starts (``search_processes``, or its default)."""
        return self.search_processes if self.search_processes is not None else max(1, usable_cores() - 1)

    @property
    def worker_rate(self) -> float:
        """This process's share of the overall write rate, what it keeps to when nothing shares the rate (no Redis,
        or Redis not answering): all of it for a bot of one process."""
        return self.global_rate / self.workers_expected if self.workers else self.global_rate

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Config:
        env = os.environ if env is None else env
        token = env.get("TELEGRAM_BOT_TOKEN", "").strip()
        if not token:
            raise ConfigError(TOKEN_HELP)
        api = env.get("TELEGRAM_API_BASE_URL", "").strip()
        files = env.get("TELEGRAM_FILE_BASE_URL", "").strip()
        lang = env.get("MAHJONG_LANG", "zh").strip() or "zh"
        if lang not in LANGUAGES:
            raise ConfigError(f"MAHJONG_LANG must be {' or '.join(LANGUAGES)}, got {lang!r}")
        workers, redis_url, workers_expected = _workers(env)
        _require_extras(env, workers=workers, redis=redis_url is not None)
        level = (env.get("MAHJONG_LOG_LEVEL", "INFO").strip() or "INFO").upper()
        if level not in ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"):
            raise ConfigError(f"MAHJONG_LOG_LEVEL must be DEBUG, INFO, WARNING or ERROR, got {level!r}")
        return cls(
            token=token,
            db_path=env.get("MAHJONG_DB", "").strip() or cls.db_path,
            api_base_url=_with_bot_path(api) if api else cls.api_base_url,
            file_base_url=files or (_file_url_beside(_with_bot_path(api)) if api else cls.file_base_url),
            log_level=level,
            lang=lang,
            claim_seconds=_optional_number(env, "MAHJONG_CLAIM_SECONDS", 0.1),
            turn_seconds=_optional_number(env, "MAHJONG_TURN_SECONDS", 0.1),
            bot_delay=_number(env, "MAHJONG_BOT_DELAY", cls.bot_delay),
            claim_pause=_number(env, "MAHJONG_CLAIM_PAUSE", cls.claim_pause),
            next_hand_seconds=_number(env, "MAHJONG_NEXT_HAND_SECONDS", cls.next_hand_seconds, 0.1),
            group_interval=_number(env, "MAHJONG_GROUP_INTERVAL", cls.group_interval),
            group_idle_interval=_number(env, "MAHJONG_GROUP_IDLE_INTERVAL", cls.group_idle_interval),
            private_interval=_number(env, "MAHJONG_PRIVATE_INTERVAL", cls.private_interval),
            passive_interval=_number(env, "MAHJONG_PASSIVE_INTERVAL", cls.passive_interval),
            match_seed=_seed(env),
            review_samples=round(_number(env, "MAHJONG_REVIEW_SAMPLES", cls.review_samples, 2)),
            webhook_url=_webhook_url(env),
            webhook_listen=host_port(env, "MAHJONG_WEBHOOK_LISTEN", cls.webhook_listen),
            webhook_secret=_webhook_secret(env),
            admin_ids=_user_ids(env, "MAHJONG_ADMIN_IDS"),
            webapp_url=_webapp_url(env),
            webapp_listen=host_port(env, "MAHJONG_WEBAPP_LISTEN", cls.webapp_listen),
            webapp_name=_webapp_name(env),
            webapp_connections=_optional_count(env, "MAHJONG_WEBAPP_CONNECTIONS") or cls.webapp_connections,
            webapp_per_address=_optional_count(env, "MAHJONG_WEBAPP_PER_ADDRESS") or cls.webapp_per_address,
            webapp_proxy=_flag(env, "MAHJONG_WEBAPP_PROXY", "behind a reverse proxy that sets X-Real-IP"),
            workers=workers,
            redis_url=redis_url,
            workers_expected=workers_expected,
            search_processes=_optional_count(env, "MAHJONG_SEARCH_PROCESSES"),
            quick_waits=_quick_waits(env),
            quick_hands=_optional_count(env, "MAHJONG_QUICK_HANDS") or cls.quick_hands,
        )


def _quick_waits(env: Mapping[str, str]) -> tuple[int, ...]:
    """MAHJONG_QUICK_WAITS: three waits in seconds, shortest first (the middle one the default)."""
    raw = env.get("MAHJONG_QUICK_WAITS", "").replace(",", " ").split()
    if not raw:
        return Config.quick_waits
    try:
        waits = tuple(int(x) for x in raw)
    except ValueError:
        waits = ()
    if len(waits) != 3 or list(waits) != sorted(set(waits)) or waits[0] < 1 or waits[-1] > 3600:
        said = env.get("MAHJONG_QUICK_WAITS")
        raise ConfigError(f"MAHJONG_QUICK_WAITS must be three waits in seconds, shortest first, got {said!r}")
    return waits


def _seed(env: Mapping[str, str]) -> int | None:
    """MAHJONG_SEED: every match's deals from one seed (tests, reproductions); none by default."""
    raw = env.get("MAHJONG_SEED", "").strip()
    try:
        return int(raw) if raw else None
    except ValueError:
        raise ConfigError(f"MAHJONG_SEED must be an integer, got {raw!r}") from None


def _workers(env: Mapping[str, str]) -> tuple[bool, str | None, int]:
    """MAHJONG_WORKERS=1 (PostgreSQL), MAHJONG_REDIS=redis://…, MAHJONG_WORKERS_EXPECTED=N."""
    on = _flag(env, "MAHJONG_WORKERS", "several workers share the tables")
    if on and not is_postgres(env.get("MAHJONG_DB", "")):
        raise ConfigError("MAHJONG_WORKERS=1 needs MAHJONG_DB=postgresql://… (the workers share it)")
    redis = env.get("MAHJONG_REDIS", "").strip() or None
    # Every worker registers the webhook: one secret that all of them check (one generated per worker would not).
    if on and env.get("MAHJONG_WEBHOOK_URL", "").strip() and not env.get("MAHJONG_WEBHOOK_SECRET", "").strip():
        raise ConfigError("MAHJONG_WORKERS=1 with a webhook needs MAHJONG_WEBHOOK_SECRET (every worker checks it)")
    # A page on one worker hears its table's owner on another through Redis (bot.cluster.live_relay).
    if on and env.get("MAHJONG_WEBAPP_URL", "").strip() and redis is None:
        raise ConfigError("MAHJONG_WORKERS=1 with the Mini App needs MAHJONG_REDIS (the pages' frames go through it)")
    if redis is not None and urlsplit(redis).scheme not in ("redis", "rediss", "unix"):
        raise ConfigError(f"MAHJONG_REDIS must be a redis:// URL, got {redis!r}")
    expected = round(_number(env, "MAHJONG_WORKERS_EXPECTED", 1, 1))
    return on, redis, expected


def _require_extras(env: Mapping[str, str], *, workers: bool, redis: bool) -> None:
    """An optional backend that is configured needs its package, which `make run` (``pip install -e .``) does not
    install: say which extra brings it, instead of a ModuleNotFoundError once the bot is under way."""
    needs = (
        (workers, "MAHJONG_WORKERS=1", "asyncpg", "workers"),
        (redis, "MAHJONG_REDIS", "redis", "workers"),
        (is_postgres(env.get("MAHJONG_DB", "")), "MAHJONG_DB=postgresql://…", "asyncpg", "postgres"),
    )
    for wanted, setting, module, extra in needs:
        if wanted and importlib.util.find_spec(module) is None:
            raise ConfigError(f"{setting} needs the {module} package: pip install -e '.[{extra}]'")


def check_config(env: Mapping[str, str] | None = None, dotenv: str | Path = ".env") -> tuple[int, str]:
    """(exit status, message) for ``python -m bot --check-config``: 0 and a summary, or 2 and what is wrong."""
    if env is None:
        try:
            load_dotenv(dotenv)
        except ConfigError as e:
            return 2, f"configuration error: {e}"
        env = os.environ
    try:
        config = Config.from_env(env)
        if not _TOKEN.match(config.token):
            raise ConfigError("TELEGRAM_BOT_TOKEN does not look like a bot token (123456:ABC-...) from @BotFather")
        database_file = sqlite_file(config.db_path)  # None: PostgreSQL, checked when the bot connects
        if database_file is not None:
            _check_writable_dir(database_file.parent, "MAHJONG_DB")
        load_catalogues()
    except (ConfigError, CatalogueError) as e:
        return 2, f"configuration error: {e}"
    mode = (
        f"webhook {config.webhook_url} (listening on {config.webhook_listen[0]}:{config.webhook_listen[1]})"
        if config.webhook_url
        else "long polling"
    )
    admins = ", ".join(str(i) for i in sorted(config.admin_ids)) or "none"
    addresses = "the proxy's X-Real-IP" if config.webapp_proxy else "the peer's, no proxy trusted"
    live = (
        f"Mini App {config.webapp_url} (listening on {config.webapp_listen[0]}:{config.webapp_listen[1]}; at most"
        f" {config.webapp_connections} connections, {config.webapp_per_address} pages an address: {addresses})"
        if config.webapp_url
        else "no Mini App"
    )
    database = shown(config.db_path)
    return 0, (
        f"configuration OK: {mode}; {live}; database {database}; language {config.lang}; /status admins: {admins}"
    )


def _check_writable_dir(directory: Path, key: str) -> None:
    """The database's directory exists (or can be made) and is writable; nothing is created here."""
    existing = directory
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{key}: {existing} is not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{key}: cannot write to {existing} (the database and its WAL files live there)")

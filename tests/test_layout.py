"""The house rules of the layout (docs/MAP.md), checked on the source: imports point one way
(``bot → game, rendering, storage, sandbox``; ``rendering → game``; ``storage → game``; ``game → nothing``;
``sandbox → nothing``), no import
cycle between modules (type-only imports included), no file over 400 lines in bot/, no function over 50
lines outside tests, and no two files with one name."""

from __future__ import annotations

import ast
import functools
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "game", "rendering", "storage", "sandbox")
MAY_IMPORT = {
    "bot": {"game", "rendering", "storage", "sandbox"},
    "rendering": {"game"},
    "storage": {"game"},
    "game": set(),
    "sandbox": set(),
}


@functools.cache
def _tree(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for all the tests here (none changes it)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _nodes(path: Path) -> tuple[ast.AST, ...]:
    """Every node of a file's tree, walked once."""
    return tuple(ast.walk(_tree(path)))


def _modules() -> dict[str, Path]:
    out = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The project modules a file imports, at run time or for type checking alone."""
    found = set()
    for node in _nodes(path):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found |= {name for name in names if name in modules}
    return found


def test_imports_point_one_way() -> None:
    modules = _modules()
    wrong = [
        (name, target)
        for name, path in modules.items()
        for target in _imports(path, modules)
        if target.split(".")[0] != name.split(".")[0] and target.split(".")[0] not in MAY_IMPORT[name.split(".")[0]]
    ]
    assert wrong == []


def test_no_import_cycles() -> None:
    modules = _modules()
    graph = {name: _imports(path, modules) - {name} for name, path in modules.items()}
    # A package's __init__ importing its own modules is how packages re-export: not a cycle of modules.
    graph = {
        n: {d for d in deps if not (n in d.rsplit(".", 1)[0] and Path(modules[n]).name == "__init__.py")}
        for n, deps in graph.items()
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for dep in sorted(graph[node]):
            if state.get(dep) == 1:
                cycles.append([*trail[trail.index(dep) :], dep] if dep in trail else [node, dep])
            elif dep not in state:
                visit(dep, [*trail, dep])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert cycles == []


def test_sizes() -> None:
    long_files = [p for p in (ROOT / "bot").rglob("*.py") if len(p.read_text(encoding="utf-8").splitlines()) > 400]
    assert long_files == []
    long_functions = []
    for folder in (*PACKAGES, "bench", "scripts"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in _nodes(path):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    length = (node.end_lineno or node.lineno) - node.lineno + 1
                    if length > 50:
                        long_functions.append(f"{path.relative_to(ROOT)}:{node.name} ({length} lines)")
    assert long_functions == []


def test_no_two_files_share_a_name() -> None:
    names = Counter(p.name for folder in PACKAGES for p in (ROOT / folder).rglob("*.py") if p.name != "__init__.py")
    assert [name for name, n in names.items() if n > 1] == []


# The table's core (bot/table/): a pure function of (state, message, now) that only says what is to be done; its
# shell (bot/host/) runs it.
CORE = tuple(sorted(str(p.relative_to(ROOT)) for p in (ROOT / "bot" / "table").glob("*.py")))
# Its inputs are its own types (bot.table.options, the effects' answers): not storage's records, not the whole
# Config, no clock (bot.waits) and nothing of the shell or of the chats.
CORE_MAY_NOT = (
    *("asyncio", "telegram", "aiosqlite", "PIL", "time", "datetime", "random", "secrets", "rendering", "storage"),
    *("bot.config", "bot.waits", "bot.outbox", "bot.views", "bot.handlers", "bot.host", "bot.live", "bot.cluster"),
)


def _imported_names(path: Path) -> set[str]:
    names: set[str] = set()
    for node in _nodes(path):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_table_core_does_no_io_and_reads_no_clock() -> None:
    wrong = [
        f"{path}: {name}"
        for path in CORE
        for name in _imported_names(ROOT / path)
        if any(name == banned or name.startswith(banned + ".") for banned in CORE_MAY_NOT)
    ]
    assert wrong == []
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, bot.table.core; print('\\n'.join(sys.modules))"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    clocks = ("time", "datetime", "random", "secrets")  # the interpreter and babel load these whatever the core does
    banned_anyhow = [banned for banned in CORE_MAY_NOT if banned not in clocks]
    through = [name for name in loaded for banned in banned_anyhow if name == banned or name.startswith(banned + ".")]
    assert through == []  # not even through another module (bot.i18n once brought in storage, aiosqlite, asyncio)


def test_no_class_is_split_across_files_by_inheritance() -> None:
    modules = _modules()
    defined = {
        node.name: name for name, path in modules.items() for node in _nodes(path) if isinstance(node, ast.ClassDef)
    }
    split = [
        f"{name}.{node.name}({base.id})"
        for name, path in modules.items()
        if name.startswith("bot")
        for node in _nodes(path)
        if isinstance(node, ast.ClassDef)
        for base in node.bases
        if isinstance(base, ast.Name) and defined.get(base.id, name) != name and defined[base.id].startswith("bot")
    ]
    assert split == []


def _trees() -> dict[Path, ast.Module]:
    return {path: _tree(path) for f in PACKAGES for path in (ROOT / f).rglob("*.py")}


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _init(cls: ast.ClassDef) -> ast.FunctionDef | None:
    return next((f for f in cls.body if isinstance(f, ast.FunctionDef) and f.name == "__init__"), None)


def _declared(cls: ast.ClassDef) -> list[tuple[str, str, ast.expr | None]]:
    """(attribute, annotation, value) of what a class declares: its fields, and what ``__init__`` sets on self
    (annotated there, or taken from an annotated parameter)."""
    out = [(n.target.id, ast.unparse(n.annotation), n.value) for n in cls.body if isinstance(n, ast.AnnAssign)
           and isinstance(n.target, ast.Name)]  # fmt: skip
    init = _init(cls)
    if init is None:
        return out
    params = {a.arg: ast.unparse(a.annotation) for a in [*init.args.args, *init.args.kwonlyargs] if a.annotation}
    for node in ast.walk(init):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute) and _is_self(node.target.value):
            out.append((node.target.attr, ast.unparse(node.annotation), node.value))
        elif isinstance(node, ast.Assign) and isinstance(target := node.targets[0], ast.Attribute):
            value = node.value
            if isinstance(value, ast.Name) and value.id in params and _is_self(target.value):
                out.append((target.attr, params[value.id], value))
    return out


def _kinds(classes: dict[str, ast.ClassDef]) -> tuple[set[str], set[str], set[str]]:
    """Attribute names, by what their classes declare: collaborators (a callable, a Protocol), attributes a class
    with an ``__init__`` starts as None, public collections such a class builds for itself."""
    protocols = {name for name, c in classes.items() if any(ast.unparse(b).endswith("Protocol") for b in c.bases)}
    collaborators, starts_none, collections = set(), set(), set()
    for cls in classes.values():
        for attr, annotation, value in _declared(cls):
            names = {n.id for n in ast.walk(ast.parse(annotation, mode="eval")) if isinstance(n, ast.Name)}
            if "Callable" in names or names & protocols:
                collaborators.add(attr)
            if _init(cls) is None:
                continue
            if isinstance(value, ast.Constant) and value.value is None:
                starts_none.add(attr)
            if not attr.startswith("_") and isinstance(value, ast.Call) and ast.unparse(value.func) in COLLECTIONS:
                collections.add(attr)
    return collaborators, starts_none, collections


def _set_afterwards(trees: dict[Path, ast.Module]) -> list[str]:
    """What is given to an object once it is built: a function assigned to another object's attribute, a
    collaborator set on another object, an attribute its class starts as None set right after building it, and a
    collection an object builds for itself changed by others (directly or through a name for it) instead of by its
    own methods."""
    classes = {c.name: c for path in trees for c in _nodes(path) if isinstance(c, ast.ClassDef)}
    collaborators, starts_none, collections = _kinds(classes)
    found = set()
    for path in trees:
        for fn in [f for f in _nodes(path) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)]:
            assigns = [n for n in ast.walk(fn) if isinstance(n, ast.Assign)]
            names = [(t.id, n.value) for n in assigns for t in n.targets if isinstance(t, ast.Name)]
            built = {name for name, v in names if isinstance(v, ast.Call) and ast.unparse(v.func) in classes}
            aliases = {name for name, v in names if isinstance(v, ast.Attribute) and v.attr in collections}
            for node in assigns:
                for t in [t for t in node.targets if isinstance(t, ast.Attribute) and not _is_self(t.value)]:
                    where = f"{path.relative_to(ROOT)}:{node.lineno} {ast.unparse(t)}"
                    if isinstance(node.value, ast.Lambda) or t.attr in collaborators:
                        found.add(f"{where} set on a built object")
                    elif isinstance(t.value, ast.Name) and t.value.id in built and t.attr in starts_none:
                        found.add(f"{where} set after building it")
            for method in [n.func for n in ast.walk(fn) if isinstance(n, ast.Call)]:
                if not isinstance(method, ast.Attribute) or method.attr not in MUTATORS:
                    continue
                owner = method.value
                others = isinstance(owner, ast.Attribute) and owner.attr in collections and not _is_self(owner.value)
                if others or (isinstance(owner, ast.Name) and owner.id in aliases):
                    found.add(f"{path.relative_to(ROOT)}:{method.lineno} {ast.unparse(method)}: another's collection")
    return sorted(found)


MUTATORS = {"add", "discard", "remove", "clear", "update", "append", "extend", "pop", "setdefault", "insert"}
COLLECTIONS = ("set", "dict", "list")


def test_no_object_gets_a_callback_assigned_after_it_is_built() -> None:
    """``outbox.lost = manager.unreachable`` was a hidden cycle: such a callback needs an attribute that starts as
    ``None`` and is filled in later. What an object calls is given when it is built, so no such attribute (a frozen
    dataclass's field is given when it is built); nor is anything set on it, or its own collections changed, by
    others afterwards (``hub.on_leave = …``, ``runner.session = …``, ``view.fence = …`` right after building
    the view, ``outbox.unreachable.discard(…)``): what changes an object is its own methods."""
    trees = _trees()
    slots = [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for path in trees
        for cls in _nodes(path)
        if isinstance(cls, ast.ClassDef) and "frozen=True" not in " ".join(map(ast.unparse, cls.decorator_list))
        for node in ast.walk(cls)
        if isinstance(node, ast.AnnAssign)
        and "Callable" in ast.unparse(node.annotation)
        and "None" in ast.unparse(node.annotation)
        and isinstance(node.value, ast.Constant)
        and node.value.value is None
    ]
    assert slots == []
    assert _set_afterwards(trees) == []


# What `make run` does not install (pyproject's extras): the bot must start without them unless configured.
EXTRAS_ONLY = ("asyncpg", "redis", "selenium")
_WITHOUT_EXTRAS = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in EXTRAS_ONLY)


def _without_extras(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter where importing any extra's package fails, as after `pip install -e .`."""
    return subprocess.run(
        [sys.executable, "-c", _WITHOUT_EXTRAS + code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )


def test_the_bot_imports_without_the_extras() -> None:
    """`make run` installs only the base package: the bot's entry point imports none of the extras' packages."""
    done = _without_extras("import bot.__main__, bot.app, sandbox.launch; print('imported')")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_a_configured_backend_without_its_extra_says_which_to_install(tmp_path: Path) -> None:
    """Configured but missing: one line naming the extra, exit status 2 (not a traceback mid-start)."""
    import os

    cases = {
        "MAHJONG_WORKERS": ("1", "MAHJONG_WORKERS=1 needs the asyncpg package: pip install -e '.[workers]'"),
        "MAHJONG_REDIS": (
            "redis://127.0.0.1:6379",
            "MAHJONG_REDIS needs the redis package: pip install -e '.[workers]'",
        ),
        "MAHJONG_DB": ("postgresql://root@127.0.0.1/test", "needs the asyncpg package: pip install -e '.[postgres]'"),
    }
    for key, (value, said) in cases.items():
        env = {**os.environ, "TELEGRAM_BOT_TOKEN": "123456:" + "A" * 35, "MAHJONG_DB": str(tmp_path / "x.sqlite3")}
        env[key] = value
        if key == "MAHJONG_WORKERS":
            env["MAHJONG_DB"] = "postgresql://root@127.0.0.1/test"
        done = _without_extras("sys.argv = ['bot']\nfrom bot.app import main\nmain()", env)
        assert done.returncode == 2, (key, done.stderr)
        assert done.stderr.strip().splitlines() == [done.stderr.strip()] and said in done.stderr, (key, done.stderr)
        assert not (tmp_path / "x.sqlite3").exists()  # nothing was started

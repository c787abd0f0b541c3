"""Shared helpers and fixtures. Use these rather than writing your own: they keep the suite fast.

Running pnp
    run_pnp(root, "check", "--format", "json")   the CLI in this process (no interpreter start,
        no re-import: about 1 s cheaper per call). Returns .returncode, .stdout, .stderr like
        subprocess.run; check=True raises with the output when the exit code is not 0. Each call
        is one command with its own cache session, exactly as a separate `pnp` run (the cyclic
        collector off while it runs, back on in a build's forked workers: _COLLECTOR_OFF).
    spawn_pnp(root, ...)   the same in a fresh `python -m generator` process. Use it only where a
        process is the point (signals, locks between processes, a kill mid-build, start-up).

Projects
    make_project(files={...}, games=("dogfight",))   a fresh project under tmp_path: an empty
        templates/ (fonts, paper.yaml, card-sizes.yaml and the rulebook templates are pnp's own
        defaults, as in a project made by `pnp init`; `templates="all"`, or any game, copies
        every layout, language, rulebook and guide template too, never the fonts), copies of the
        named real games, then `files` ({relative path: text or bytes}) written over them.
        Returns the root. A test that reads or changes the project's own fonts writes or copies
        them itself; pdflint.bundled_font_names(Project(root).fonts) names the fonts in use.
    dogfight_copy   make_project(games=("dogfight",)).
    only_languages(root, "dogfight", ["es", "en"])   a copied game prints only those languages,
        with no bilingual editions: a test that reads English cards builds no other rulebook.
    without_rulebooks(root, "dogfight")   a copied game has no rules/: a test that reads only
        its components or exports builds no rulebook at all.
    kits_a4   Red Code and Sub Zero on A4, sheets only, fewer languages: built once per test
        run and shared by the modules that read home-sheet kits (read-only). A fast test that
        reads a real kit reads this one rather than building its own.
    built   every game built once per test run (`pnp print`, for every `-n` process alike),
        read-only: .manifest(game), .path(relative). Do not change it: copy what you need to
        change. A test using it is marked slow automatically (building the four kits takes
        minutes).
    shared_build(tmp_path_factory, "name", build)   for a module fixture: `build(folder)` runs
        once per test run, whichever `-n` process asks first; the others wait and reuse it
        (the cyclic collector off while it runs, as in run_pnp).

Speed
    @pytest.mark.slow marks a test that must stay slow, with its reason on the line: a real
    process is the point (a kill mid-build, two builds racing, a memory cap, an audit hook), a
    browser, outside tools over a whole real game, rulebooks rasterised page by page, or full
    builds of the real kits (every test using `built`). `make test` leaves slow tests out;
    `make test-all` and CI run everything. Prefer a small project (make_project), run_pnp and
    the shared kits (`kits_a4`): they keep a test out of the slow set.
    A test that lays out a big build through pnp's API (not run_pnp) does it in a shared build
    or `with collector_off():` (the cyclic collector off, as run_pnp runs a command).
    `--cpu-durations N` lists the N tests that used the most CPU (0: all) and the total;
    `make test` shows ten. The budget per kind of test is in docs/performance.md.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import functools
import gc
import io
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
PNP = [sys.executable, "-m", "generator"]
MM = 72 / 25.4


# What a test project leaves out of templates/: pnp falls back on its own fonts (14 MB), file by
# file, as in a project made by `pnp init`; a copy would only cost every command a fresh read
# and hash of them.
_NO_FONTS = shutil.ignore_patterns("fonts")


def copy_project(dest: Path, games: tuple[str, ...] | None = None) -> Path:
    """content/ and templates/ (but its fonts) of the real project, copied so tests may change
    them. The fonts are pnp's own, as in a project made by `pnp init`."""
    shutil.copytree(ROOT / "templates", dest / "templates", ignore=_NO_FONTS)
    (dest / "content").mkdir(parents=True)
    for game in games or [
        p.name for p in (ROOT / "content").iterdir() if (p / "game.yaml").exists()
    ]:
        shutil.copytree(ROOT / "content" / game, dest / "content" / game)
    return dest


def copy_templates(dest: Path, templates: str = "base") -> None:
    """templates/ of the real project: "all" (every layout, language, rulebook and guide
    template; not the fonts), or "base": an empty templates/, so that everything (fonts, paper
    and card sizes, rulebook templates) comes from pnp's own defaults, as in a project made by
    `pnp init`."""
    if templates == "all":
        shutil.copytree(
            ROOT / "templates", dest / "templates", dirs_exist_ok=True, ignore=_NO_FONTS
        )
        return
    (dest / "templates").mkdir(parents=True, exist_ok=True)


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")


def only_languages(root: Path, game: str, languages: list[str]) -> None:
    """Let a copied game print only `languages` (the first is its source), with no bilingual
    editions.

    For a test that reads one language's components: every language and edition left out is a
    rulebook (about 2 s of WeasyPrint each) it would build and never look at."""
    path = root / "content" / game / "game.yaml"
    text = path.read_text(encoding="utf-8")
    text, n = re.subn(r"(?m)^languages: .*$", f"languages: [{', '.join(languages)}]", text)
    assert n == 1, f"no one-line `languages:` in {path}"
    text = re.sub(r"(?m)^  bilingual: .*$", "  bilingual: []", text)
    path.write_text(text, encoding="utf-8")


def without_rulebooks(root: Path, game: str) -> None:
    """Let a copied game have no rulebook (its rules/ folder removed).

    For a test that builds a game and reads only its components (sheets, exports, the build's
    record): each language's rulebook is a second or more of WeasyPrint it would build and never
    look at. `pnp check` then warns of the game's acceptances of rulebook findings (unused)."""
    shutil.rmtree(root / "content" / game / "rules")


@functools.cache
def python_tree(source: str) -> ast.Module:
    """`source` parsed, once per test process: four tests read every module of generator/ (no
    game, language or script literal; no branch on a component's kind), and parsing all of it
    takes about 0.7 s. Read-only, like the text it comes from."""
    return ast.parse(source)


def composed_files(monkeypatch) -> list[str]:
    """The names of the YAML files the segments scan composes from now on (a spy on
    segments._compose), in order: a test of what the scan reads again and what it spares."""
    from generator.i18n import segments

    composed: list[str] = []
    compose = segments._compose

    def counting(path, text=None):
        composed.append(path.name)
        return compose(path, text)

    monkeypatch.setattr(segments, "_compose", counting)
    return composed


# The cyclic collector is off while run_pnp runs a command, and while a shared build is made:
# a pnp process is short and frees nearly everything by reference counting (it turns the
# collector off itself while it loads and checks), but the test process runs hundreds of
# commands, and with the collector on, their allocations set off thousands of collections (a
# fifth of the CPU of the i18n tests: 36 -> 29 s over 38 tests). What a command leaves in
# cycles is collected after it. A build's pool workers, forked during the command, get the
# collector back, as in `pnp`.
_COLLECTOR_OFF: list[bool] = []  # per collector_off under way: was the collector on before


def _collector_restored_in_forks() -> None:
    if _COLLECTOR_OFF and _COLLECTOR_OFF[0]:
        gc.enable()


os.register_at_fork(after_in_child=_collector_restored_in_forks)


@contextlib.contextmanager
def collector_off():
    """The cyclic collector off for one pnp command (run_pnp) or one shared build, as above."""
    enabled = gc.isenabled()
    gc.disable()
    _COLLECTOR_OFF.append(enabled)
    try:
        yield
    finally:
        _COLLECTOR_OFF.pop()
        if enabled:
            gc.enable()


def run_pnp(root: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    """`pnp --root ROOT ARGS...` in this process (see the module docstring)."""
    from generator.commands import cli

    out, err = io.StringIO(), io.StringIO()
    argv = ["--root", str(root), *args]
    with collector_off(), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:  # argparse: usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    result = subprocess.CompletedProcess(["pnp", *argv], code, out.getvalue(), err.getvalue())
    if check and result.returncode != 0:
        raise AssertionError(
            f"pnp {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result


def spawn_pnp(root: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    """`pnp --root ROOT ARGS...` in a fresh process."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PNP_ROOT", None)
    result = subprocess.run(
        [*PNP, "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"pnp {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result


def shared_build(tmp_path_factory, name: str, build: Callable[[Path], Any]) -> tuple[Path, Any]:
    """`build(folder)` run once per test run, for every `-n` process alike: the first process to
    ask builds into a folder they share (under a file lock), the others wait and reuse it.
    Returns (folder, what build returned; picklable). Tests only read the folder."""
    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent  # this run's temporary folder, shared by its processes
    folder = base / "shared" / name
    folder.parent.mkdir(parents=True, exist_ok=True)
    done = folder / ".built.pickle"
    with open(folder.parent / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            shutil.rmtree(folder, ignore_errors=True)  # what a failed attempt left
            folder.mkdir()
            with collector_off():
                value = build(folder)
            part = done.with_suffix(".tmp")
            part.write_bytes(pickle.dumps(value))
            part.replace(done)
        return folder, pickle.loads(done.read_bytes())


class Built:
    def __init__(self, root: Path):
        self.root = root

    def manifest(self, game: str) -> dict:
        return json.loads((self.root / "output" / game / "build-manifest.json").read_text())

    def path(self, rel: str) -> Path:
        return self.root / rel


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Built:
    """Every game built into a fresh copy of the project, exactly as `make print` does it."""

    def build(folder: Path) -> None:
        run_pnp(copy_project(folder), "print", check=True)

    return Built(shared_build(tmp_path_factory, "built", build)[0])


@pytest.fixture(scope="session")
def kits_a4(tmp_path_factory) -> Path:
    """Red Code (es, ko, en) and Sub Zero (es, en, without its rulebooks) printed on A4 with
    sheets only, once per test run for every module that reads home-sheet kits (the guide, sheet
    counts, bleed on pixels). Read-only, like `built`; the languages left out, and Sub Zero's
    rulebooks, are rulebooks no reader of it looks at (Korean stays: Red Code's editor notes
    are written in it)."""

    def build(folder: Path) -> None:
        root = copy_project(folder, ("red-code", "sub-zero"))
        only_languages(root, "red-code", ["es", "ko", "en"])
        only_languages(root, "sub-zero", ["es", "en"])
        without_rulebooks(root, "sub-zero")
        run_pnp(root, "print", "--paper", "a4", "--export", "sheets", check=True)

    return shared_build(tmp_path_factory, "kits-a4", build)[0]


def kit_rulebook(root: Path, game: str, lang: str, paper: str = "a4") -> Path:
    """The one-language rulebook of `lang` on `paper` in a built kit, found by its manifest."""
    manifest = json.loads((root / "output" / game / "build-manifest.json").read_text())
    found = [
        f["path"]
        for f in manifest["files"]
        if f["kind"] == "rulebook" and f.get("paper") == paper and f"/{lang}/" in f["path"]
    ]
    assert len(found) == 1, (game, lang, paper, found)
    return root / found[0]


@pytest.fixture
def make_project(tmp_path) -> Callable[..., Path]:
    """make_project(files=None, games=(), templates="base", name="proj") -> project root."""

    def make(
        files: dict[str, str | bytes] | None = None,
        games: tuple[str, ...] = (),
        templates: str = "base",
        name: str = "proj",
    ) -> Path:
        root = tmp_path / name
        copy_templates(root, "all" if games else templates)
        (root / "content").mkdir(parents=True, exist_ok=True)
        for game in games:
            shutil.copytree(ROOT / "content" / game, root / "content" / game)
        write_files(root, files or {})
        return root

    return make


@pytest.fixture
def dogfight_copy(make_project) -> Path:
    return make_project(games=("dogfight",))


@pytest.fixture(scope="session", autouse=True)
def _model_cache(tmp_path_factory):
    """The content-model cache of this test run lives in a temporary folder, not in the user's
    cache (and pnp processes the tests start inherit it)."""
    old = os.environ.get("PNP_CACHE_DIR")
    os.environ["PNP_CACHE_DIR"] = str(tmp_path_factory.mktemp("pnp-cache"))
    yield
    if old is None:
        os.environ.pop("PNP_CACHE_DIR", None)
    else:
        os.environ["PNP_CACHE_DIR"] = old


@pytest.fixture(autouse=True)
def _fresh_session():
    """Each test starts with empty caches, as a new pnp command would."""
    from generator import session

    with session.new():
        yield


def pytest_collection_finish(session):
    """What collection left (pytest, the test modules, pnp's modules: objects that live to the
    end of the run) is frozen out of the cyclic collector's reach: its full collections, which
    the builds' allocations trigger dozens of times per process, then walk only what the tests
    made (about 6 s of the collector's CPU per 40 i18n tests otherwise). Nothing frozen is
    garbage (collected first); reference counting still frees it."""
    _warn_lost_groups(session)
    gc.collect()
    from generator import session

    session.freeze()


# Before xdist's own hook (a plugin registered later, so called earlier), which reads the groups
# into the test ids: marked after it, a group is ignored and both processes build its kit.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """A test that reads the four kits built (`built`) is slow by nature: `make test` leaves
    it out, `make test-all` and CI run it.

    The tests that read one shared build (a fixture that calls shared_build) form one group,
    which `make test` (`--dist loadgroup`) runs on one process: with the readers of a build on
    both processes, one of them waits, idle, while the other makes it. A test that reads two
    shared builds joins their groups into one."""
    parent: dict[str, str] = {}

    def root(name: str) -> str:
        while parent.setdefault(name, name) != name:
            name = parent[name]
        return name

    reads: list[tuple[pytest.Item, list[str]]] = []
    for item in items:
        names = getattr(item, "fixturenames", ())
        if "built" in names:
            item.add_marker(pytest.mark.slow)
        shared = sorted(name for name in names if _makes_shared_build(item, name))
        for other in shared[1:]:
            parent[root(other)] = root(shared[0])
        if shared:
            reads.append((item, shared))
    for item, shared in reads:
        item.add_marker(pytest.mark.xdist_group(root(shared[0])))


def _warn_lost_groups(session: pytest.Session) -> None:
    """xdist sends a group to one process by adding "@group" to each test's id; under a pytest
    whose test ids it cannot change (pytest 9.2 with xdist 3.8: pytest-xdist#1386) nothing fails,
    the groups are simply ignored and both processes build the shared kits. Say so."""
    if not getattr(session.config.option, "loadgroup", False):
        return
    grouped = [i.nodeid for i in session.items if i.get_closest_marker("xdist_group")]
    lost = [nodeid for nodeid in grouped if "@" not in nodeid]
    if lost:
        import warnings

        warnings.warn(
            pytest.PytestWarning(
                f"{len(lost)} tests of shared builds lost their xdist group (pytest "
                f"{pytest.__version__}; pytest-xdist#1386): each -n process builds the kits "
                "itself and `make test` takes longer. pyproject.toml pins a pytest that groups."
            ),
            stacklevel=1,
        )


_SHARED: dict[object, bool] = {}  # fixture function -> whether it calls shared_build


def _makes_shared_build(item, name: str) -> bool:
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.get(name) if info is not None else None
    if not defs:
        return False
    func = defs[-1].func
    found = _SHARED.get(func)
    if found is None:
        import inspect

        try:
            found = "shared_build(" in inspect.getsource(func)
        except (OSError, TypeError):
            found = False
        _SHARED[func] = found
    return found


_BUSY: dict[str, float] = {}  # `-n` process -> seconds in tests (setup, call, teardown)
_CPU: dict[str, float] = {}  # `-n` process -> CPU seconds, the builds' pool workers included


def _cpu_now() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def pytest_addoption(parser):
    parser.addoption(
        "--cpu-durations",
        type=int,
        default=None,
        metavar="N",
        help="show the N tests that used the most CPU (their own process and the processes "
        "they waited for; a shared build counts in the test that made it), and the total",
    )


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    item._pnp_cpu0 = _cpu_now()  # type: ignore[attr-defined]
    yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Each test's CPU seconds (setup, call and teardown) ride on its teardown report, so that
    `--cpu-durations` adds them up across `-n` processes: on a shared machine, wall-clock
    durations mostly measure the other processes."""
    outcome = yield
    start = getattr(item, "_pnp_cpu0", None)
    if call.when == "teardown" and start is not None:
        outcome.get_result().user_properties.append(("cpu", _cpu_now() - start))


_TEST_CPU: dict[str, float] = {}  # test id -> CPU seconds (from the teardown reports)


def pytest_runtest_logreport(report):
    for key, value in getattr(report, "user_properties", ()):
        if key == "cpu" and report.when == "teardown":
            _TEST_CPU[report.nodeid] = value
    node = getattr(report, "node", None)
    gateway = getattr(node, "gateway", None)
    if gateway is not None:
        _BUSY[gateway.id] = _BUSY.get(gateway.id, 0.0) + report.duration


def pytest_sessionfinish(session):
    workeroutput = getattr(session.config, "workeroutput", None)  # in an `-n` process
    if workeroutput is not None:
        t = os.times()
        workeroutput["cpu"] = t.user + t.system + t.children_user + t.children_system


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook
def pytest_testnodedown(node, error):
    cpu = getattr(node, "workeroutput", {}).get("cpu")
    if cpu is not None:
        _CPU[node.gateway.id] = cpu


def pytest_terminal_summary(terminalreporter):
    """Say how many bad-input cases ran (the corpus in tests/bad_inputs/), and, with `-n`, how
    long each process spent in tests and its CPU time: `make test`'s wall time on a quiet
    machine is about the busiest process's."""
    if _BUSY:
        terminalreporter.write_line(
            "per process: "
            + ", ".join(
                f"{gw} {busy:.1f} s in tests" + (f" ({_CPU[gw]:.1f} s CPU)" if gw in _CPU else "")
                for gw, busy in sorted(_BUSY.items())
            )
        )
    count = terminalreporter.config.getoption("cpu_durations")
    if count is not None and _TEST_CPU:
        terminalreporter.write_sep("=", f"{count or len(_TEST_CPU)} most CPU-hungry tests")
        slowest = sorted(_TEST_CPU.items(), key=lambda kv: -kv[1])
        for nodeid, cpu in slowest[: count or None]:
            terminalreporter.write_line(f"{cpu:8.2f} s CPU  {nodeid}")
        terminalreporter.write_line(
            f"tests: {sum(_TEST_CPU.values()):.1f} s CPU in {len(_TEST_CPU)} tests"
        )
    passed = [r for r in terminalreporter.stats.get("passed", []) if "test_bad_input[" in r.nodeid]
    failed = [r for r in terminalreporter.stats.get("failed", []) if "test_bad_input[" in r.nodeid]
    if passed or failed:
        terminalreporter.write_line(
            f"bad-input corpus: {len(passed)} of {len(passed) + len(failed)} cases passed"
        )

"""The build: targets keyed by a hash of their inputs, written atomically, run in parallel.

A target is one output file. Its key hashes every input file it depends on, the print
options, and pnp's own code. Unchanged targets whose output is intact are skipped. Outputs
are written to a temporary file, flushed and renamed, so a killed build never leaves a
half-written PDF where a good one was. A lock keeps two builds off the same output folder.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import gc
import hashlib
import json
import os
import signal
import stat
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from generator import fsio, session
from generator.build import pdflint
from generator.cache.store import code_digest
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load import guide_words
from generator.load.project import Project, hash_into, used_files
from generator.load.sizes import paper_size, papers
from generator.units import parse_length

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


def _hash_files(paths, h=None) -> str:
    h = h or hashlib.sha256()
    for path in sorted(set(paths)):
        hash_into(h, path)  # never follows a symlink out, never blocks on a FIFO, bounded memory
    return h.hexdigest()


def tree(folder: Path) -> list[Path]:
    """The files under `folder` a build can use (by kind); other files are never read."""
    return used_files(folder)


def code_hash() -> str:
    return code_digest()[:16]


@dataclass
class Options:
    papers: list[str] | None = None  # None: each game's own print.papers
    duplex: Literal["long-edge", "short-edge"] | None = None  # argparse choices
    back_offset: tuple[float, float] | None = None  # mm
    one_per_page: bool | None = None
    exports: list[str] | None = None  # None: each game's own print.exports
    force: bool = False
    jobs: int = 0

    def key(self) -> str:
        # Not `exports`: it picks which targets run, not what any of them holds.
        return json.dumps([self.papers, self.duplex, self.back_offset, self.one_per_page])


@dataclass
class Target:
    game: str
    kind: str  # components | export | rulebook | bilingual-rulebook
    component: str
    lang: str
    paper: str | None
    path: str  # relative to the project root; names the target (its first file)
    key: str = ""
    langs: tuple[str, ...] = ()  # a bilingual edition's two languages
    members: tuple[str, ...] = ()  # components a job reads (shared sheets)
    paths: tuple[str, ...] = ()  # every file an export writes (default: just `path`)
    spec: Any = None  # the options of an export target (load/export_options.py)
    job: Any = None  # the exporter's Job of an export target, as planned (run as it is)

    @property
    def files(self) -> tuple[str, ...]:
        return self.paths or (self.path,)


@dataclass
class GameState:
    """What the last build of a game wrote: per target its key, output digest and manifest part."""

    targets: dict = field(default_factory=dict)


# Strict, compact JSON, the same for the build record, the manifest and the guide's key: a NaN
# or infinity is a bug upstream, never written as 'NaN'.
_ENCODE = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_BIG = 64  # lists at least this long (a target's pages) are encoded once per build


class Encoded:
    """JSON text of the long lists of a build (each target's pages and their slots: 10,000
    cards make 2 MB of them), encoded once and written into the build record, the manifest and
    the guide's key, which all hold them. A list is known by identity (kept alive here); the
    lists are not changed once a target is done."""

    def __init__(self) -> None:
        self._texts: dict[int, tuple[list, str]] = {}
        self._records: dict[int, tuple[dict, str]] = {}

    def record(self, value: dict) -> str:
        """A target's build record (key, digest, manifest part), encoded once: the state is
        written after every target, and a kit of 150 targets would encode the first ones 150
        times. A record is replaced when its target is rebuilt, never changed."""
        hit = self._records.get(id(value))
        if hit is None or hit[0] is not value:
            hit = self._records[id(value)] = (value, self.dumps(value))
        return hit[1]

    def list_text(self, value: list) -> str:
        hit = self._texts.get(id(value))
        if hit is None or hit[0] is not value:
            hit = self._texts[id(value)] = (value, _ENCODE(value))
        return hit[1]

    def dumps(self, value: Any) -> str:
        """`value` as json.dumps with _ENCODE's settings writes it, byte for byte."""
        if isinstance(value, dict) and all(isinstance(k, str) for k in value):
            inner = ",".join(f"{_ENCODE(k)}:{self.dumps(v)}" for k, v in value.items())
            return "{" + inner + "}"
        if isinstance(value, list) and len(value) >= _BIG:
            return self.list_text(value)
        return _ENCODE(value)  # a short list (a target's few pages) or a value: at C speed

    def joined(self, lists: list[list]) -> str:
        """The concatenation of `lists` as one JSON array."""
        parts = [self.dumps(part)[1:-1] for part in lists if part]
        return "[" + ",".join(parts) + "]"


def _sha(path: Path) -> str | None:
    h = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            while chunk := fh.read(1 << 20):
                h.update(chunk)
    except OSError:
        return None
    return h.hexdigest()


def write_error(exc: OSError, path: Path) -> ContentError:
    """A file-system failure (full disk, read-only folder, a file where a folder should be) as
    one located line naming the path that could not be written."""
    where = Path(exc.filename) if getattr(exc, "filename", None) else path
    return ContentError(
        f"cannot write ({exc.strerror or exc})",
        where,
        code="write-failed",
        hint="check that output/ is a writable folder with free space",
    )


def settings_for(content, comp, options: Options):
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator.load.content import print_settings
    from generator.load.model import Offset

    settings = print_settings(content, comp)
    if options.duplex:
        settings.duplex = options.duplex
    if options.back_offset is not None:
        settings.back_offset = Offset(
            x=parse_length(options.back_offset[0]), y=parse_length(options.back_offset[1])
        )
    if options.one_per_page is not None:
        settings.one_per_page = options.one_per_page
    settings.papers = papers(options.papers, settings.papers)
    own = settings.exports
    if options.one_per_page and own is not None and all(s.format != "print-shop" for s in own):
        settings.exports = [*own, *_chosen_exports(settings, ["print-shop"])]
    if options.exports:
        settings.exports = _chosen_exports(settings, options.exports)
    return settings


def _chosen_exports(settings, names: list[str]) -> list:
    """`--export NAME`: the game's own spec of that format (preset, base URL...) or a bare one."""
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator import exports
    from generator.load import export_options

    own = exports.effective(settings)
    chosen = []
    for name in names:
        if name not in exports.FORMATS:
            raise ContentError(
                f"unknown export format '{name}'",
                code="usage",
                hint="formats: " + ", ".join(exports.FORMATS),
            )
        chosen += [s for s in own if s.format == name] or [export_options.spec(name)]
    return chosen


def _fingerprint(model) -> str:
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator.load.model import fingerprint

    return fingerprint(model)


def export_plan(content, options: Options) -> list:
    """Each export the game asks for, with the components (and settings) taking part."""
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator import exports

    settings = {comp.id: settings_for(content, comp, options) for comp in content.components}
    return exports.selected(content, settings, settings_for(content, None, options))


def plan_targets(project: Project, content, options: Options) -> list[Target]:
    """Every output of a game. Each target's key covers only what it reads (inputs.py).
    Planned once per command: `pnp print` plans to decide what to check, then to build."""
    plans = session.current().cache("build.plans")
    key = (str(project.root), content.id, id(content), options.key(), str(options.exports))
    if key not in plans:
        plans[key] = _plan_targets(project, content, options)
    return list(plans[key])


def _plan_targets(project: Project, content, options: Options) -> list[Target]:
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator import exports
    from generator.build.keys import component_key

    targets = []
    code = code_hash()
    printers = _hash_files([project.template("printers.yaml")])  # the png presets
    comp_keys: dict[tuple[str, str], str] = {}
    for comp in content.components:
        settings = settings_for(content, comp, options)
        for paper in settings.papers:
            paper_size(project, paper)  # unknown paper: a clear error before anything is written
        # What the component's files hold, not which of them this run builds: the papers and
        # exports picked (on the command line or in game.yaml) choose targets, and each
        # target's paper is in its path, so `--paper a4` does not rebuild the A4 sheets.
        held = _fingerprint(settings.model_copy(update={"papers": [], "exports": None}))
        extra = "|".join([code, held, printers])
        for lang in content.languages:
            comp_keys[(comp.id, lang)] = component_key(content, comp, lang, extra)

    for spec, members in export_plan(content, options):
        exporter = exports.exporter(spec.format)
        for lang in content.languages:
            ctx = exports.ExportContext(content, lang, spec, members)
            for job in exporter.plan(ctx):
                # A job reads the components it names (a shared sheet: all of them), one
                # component, or, game-wide (an order sheet), all the export's members.
                ids = list(job.members) or ([job.component] if job.component else list(members))
                parts = [comp_keys[(cid, lang)] for cid in ids]
                key = hashlib.sha256("|".join([*parts, _fingerprint(spec)]).encode()).hexdigest()
                targets.append(
                    Target(
                        content.id,
                        job.kind,
                        job.component,
                        lang,
                        job.paper,
                        job.paths[0],
                        key,
                        paths=job.paths,
                        spec=spec,
                        members=job.members,
                        job=job,
                    )
                )
    return targets + rulebook_targets(project, content, options, code)


def rulebook_targets(project: Project, content, options: Options, code: str) -> list[Target]:
    """A rulebook edition reads its own languages' rules and strings, and every component."""
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator.build.keys import rulebook_key

    langs = [lang for lang in content.languages if lang in content.rules]
    if not langs:
        return []
    # Print options (duplex, back offset...) do not touch a rulebook; its paper does, and is
    # in its key (the first paper's edition has no suffix, so its path does not say it).
    extra = "|".join([code, _fingerprint(content.game.rulebook)])
    keys: dict[tuple[str, ...], str] = {}

    def key(paper: str, *edition: str) -> str:
        if (paper, *edition) not in keys:
            keys[(paper, *edition)] = rulebook_key(content, edition, f"{extra}|{paper}")
        return keys[(paper, *edition)]

    own = content.game.rulebook.papers or content.game.print.papers
    out = []
    for paper in papers(options.papers, content.game.rulebook.papers, content.game.print.papers):
        # the game's first paper has the plain name whichever papers this run builds: one file
        # per paper, always (`--paper letter` never writes over the A4 rulebook.pdf)
        suffix = "" if paper == own[0] else f"-{paper}"
        for lang in langs:
            out.append(
                Target(
                    content.id,
                    "rulebook",
                    "",
                    lang,
                    paper,
                    f"output/{content.id}/{lang}/rulebook{suffix}.pdf",
                    key(paper, lang),
                )
            )
        for a, b in content.game.rulebook.bilingual:
            out.append(
                Target(
                    content.id,
                    "bilingual-rulebook",
                    "",
                    f"{a}-{b}",
                    paper,
                    f"output/{content.id}/rulebook.{a}-{b}{suffix}.pdf",
                    key(paper, a, b),
                    (a, b),
                )
            )
    return out


# ------------------------------------------------------------------ workers


class _Overtime(BaseException):  # not Exception: library code that catches those must not eat it
    pass


def target_seconds() -> float:
    """The per-target time limit (limits.yaml); PNP_TARGET_SECONDS overrides it (tests, slow
    machines). It comes from the person running pnp, never from content."""
    return float(os.environ.get("PNP_TARGET_SECONDS") or LIMITS.time.target_seconds)


def run_timed(root: str, target: Target, options: Options) -> dict:
    """run_target under the per-target time limit: a stuck target is stopped and named. If the
    stop is swallowed (WeasyPrint catches BaseException while drawing SVG), a second alarm
    ends the worker outright, naming the target on stderr."""
    limit = target_seconds()
    expired: list[bool] = []

    def expire(signum, frame):
        if expired:  # the first stop was swallowed: end this process, saying why once
            _end_overtime(root, target, limit)
        expired.append(True)
        signal.setitimer(signal.ITIMER_REAL, min(OVERTIME_GRACE, limit))
        raise _Overtime()

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return run_target(root, target, options)
    except OSError as exc:  # a full disk, a read-only output folder: name the path
        raise write_error(exc, Path(root) / target.path) from None
    except _Overtime:
        raise _overtime_error(target.path, limit) from None
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# Seconds a target gets to unwind after its stop before its process ends: at most as long as
# it was allowed to run (a 0.5 s limit's target does not wait 5 s to be ended).
OVERTIME_GRACE = 5.0
_OVERTIME_NOTES: str | None = None  # in a pool worker: the folder where it names its overtime


def _overtime_error(path: str, limit: float) -> ContentError:
    return ContentError(
        f"building this took over the {limit:g} s limit for one target; stopped",
        path,
        code="limit",
        hint="something in its content is runaway (huge text, art or repeat)",
    )


def _end_overtime(root: str, target: Target, limit: float) -> None:
    """The stop was swallowed (WeasyPrint catches BaseException while drawing SVG): end the
    process now. A pool worker leaves a note naming its target for the main process, which
    reports it (the pool sees only a worker that died). The main process (`-j 1`) removes the
    target's temporary files, says the one error line itself and exits 2."""
    if os.getpid() != _MAIN_PID and _OVERTIME_NOTES is not None:
        with contextlib.suppress(OSError):
            note = Path(_OVERTIME_NOTES) / f"{os.getpid()}.json"
            note.write_text(json.dumps({"path": target.path, "limit": limit}))
        os._exit(124)
    with contextlib.suppress(Exception):
        fsio.sweep_temporaries(Path(root) / "output" / target.game)
    line = f"pnp: error: {_overtime_error(target.path, limit).format(Path(root))}\n"
    with contextlib.suppress(OSError):
        os.write(2, line.encode())
    os._exit(EXIT_OVERTIME)


EXIT_OVERTIME = 2  # what a ContentError exits with (cli.EXIT_CANNOT_RUN)


def _overtime_noted(notes: str) -> ContentError | None:
    """The error a pool worker noted before ending itself over the time limit, if one did."""
    for note in sorted(Path(notes).glob("*.json")):
        with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
            data = json.loads(note.read_text())
            return _overtime_error(str(data["path"]), float(data["limit"]))
    return None


def run_target(root: str, target: Target, options: Options) -> dict:
    """Build one target (in a worker process or in-process) and return its manifest part."""
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator.load.content import load_game

    project = Project(Path(root))
    loaded = session.current().cache("build.content")  # games loaded by this command
    content = loaded.get(target.game)
    if content is None:
        content = loaded[target.game] = load_game(project, target.game)
    out = fsio.output_path(project.root, target.path)
    with _fewer_collections():
        if target.kind in ("rulebook", "bilingual-rulebook"):
            return _run_rulebook(content, target, out)
        return _run_export(project, content, target, options)


@contextmanager
def _fewer_collections():
    """Drawing a target allocates millions of short-lived objects (a word, a placed box, an
    operator string) that reference counting frees; almost none are cyclic garbage. The
    cyclic collector's young generation is run every 20,000 allocations instead of 700: about
    8 % of the CPU of a 10,000-card `print --force`, for 1-3 MB more peak memory."""
    old = gc.get_threshold()
    gc.set_threshold(20_000, 20, 20)
    try:
        yield
    finally:
        gc.set_threshold(*old)


def _run_export(project: Project, content, target: Target, options: Options) -> dict:
    """Have the target's exporter write its files; they are renamed into place together,
    only once all of them are written."""
    # Deferred for start-up time: a no-op `pnp print` (the kit stamp) imports this module for its
    # lock and options only, without pydantic and the content model (about 120 modules).
    from generator import exports

    spec = target.spec
    members = next(m for s, m in export_plan(content, options) if s == spec)
    ctx = exports.ExportContext(content, target.lang, spec, members)
    job = target.job
    with exports.Outputs(project.root, job.paths) as outputs:
        part = exports.exporter(spec.format).write(ctx, job, outputs)
        outputs.check_complete()
        for rel, tmp in outputs.written.items():  # every PDF is linted before it is committed
            if rel.endswith(".pdf"):
                lint_written(project, tmp, rel)
    part["sha256"] = {rel: _sha(project.root / rel) for rel in job.paths}
    return part


def _paper(target: Target) -> str:
    """Sheets and rulebooks are laid out on a paper; only one-per-page exports have none."""
    if target.paper is None:
        raise ValueError(f"target {target.path} ({target.kind}) has no paper")
    return target.paper


def lint_written(project: Project, tmp: Path, path: str) -> None:
    """A PDF a strict RIP would refuse is an error, and is not committed (pdflint.py)."""
    problems = pdflint.lint(tmp, pdflint.BundledFonts(project.fonts))
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise ContentError(
            f"[pdf-structure] {problems[0]}{more}",
            path,
            code="pdf-structure",
            hint="a bug in pnp or in a font fallback; the PDF was not written",
        )


def _run_rulebook(content, target: Target, out: Path) -> dict:
    # Deferred for start-up time: WeasyPrint (about 150 modules, 150 ms), for rulebook targets only.
    from generator.rulebook import book as rulebook

    with fsio.atomic_path(out) as tmp:
        if target.kind == "rulebook":
            info = rulebook.render_rulebook(content, target.lang, _paper(target), tmp)
        else:
            lang_a, lang_b = target.langs
            info = rulebook.render_bilingual(content, lang_a, lang_b, _paper(target), tmp)
        lint_written(content.project, tmp, target.path)
    entry = {
        "path": target.path,
        "kind": target.kind,
        "lang": target.lang,
        "paper": target.paper,
        "pages": info["pages"],
        "sections": info["sections"],
    }
    if target.langs:
        entry["langs"] = list(target.langs)
    return {"file": entry, "sheets": [], "sha256": _sha(out)}


# ------------------------------------------------------------------ state, lock, progress


def state_path(project: Project, game: str) -> Path:
    return project.output / ".pnp-cache" / f"{game}.json"


def load_state(project: Project, game: str) -> GameState:
    try:
        data = json.loads(state_path(project, game).read_bytes())
        return GameState(data.get("targets", {}))
    except (OSError, ValueError, AttributeError):
        return GameState()  # a missing or damaged cache only costs a rebuild


def save_state(
    project: Project, game: str, state: GameState, encoded: Encoded | None = None
) -> None:
    path = state_path(project, game)
    encoded = encoded or Encoded()
    records = ",".join(f"{_ENCODE(k)}:{encoded.record(v)}" for k, v in state.targets.items())
    data = f'{{"targets":{{{records}}}}}'.encode()
    try:
        fsio.write_bytes(path, data)
    except OSError as exc:  # output/ is a file, read-only, or the disk is full
        raise write_error(exc, path) from None


def checked_path(project: Project, game: str) -> Path:
    return project.output / ".pnp-cache" / f"{game}.checked"


def load_checked(project: Project, game: str) -> str:
    """The key of the inputs that last passed `check` (a file of its own: reading it must not
    cost parsing the record of every target)."""
    try:
        return checked_path(project, game).read_text().strip()
    except (OSError, UnicodeDecodeError):
        return ""


def save_checked(project: Project, game: str, key: str) -> None:
    path = checked_path(project, game)
    try:
        fsio.write_text(path, key)
    except OSError as exc:
        raise write_error(exc, path) from None


_LOCK_FD: int | None = None  # the held lock, so that forked workers can close their copy
_MAIN_PID = os.getpid()


def _lock_error(path: Path, message: str, hint: str | None = None) -> ContentError:
    return ContentError(message, path, hint=hint or "remove it; pnp makes its own", code="locked")


@contextmanager
def build_lock(project: Project):
    """One build at a time per project. The lock file sits at the project root, so a build
    that stops on bad content leaves output/ untouched. It is opened without following a
    symlink (a planted link cannot make pnp truncate another file), and only the main process
    holds it: workers close their inherited copy, so a killed main process frees it at once."""
    global _LOCK_FD
    path = project.root / ".pnp.lock"
    flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _lock_error(path, "the lock file is a symlink; refused") from None
        if exc.errno == errno.EISDIR:
            raise _lock_error(path, "the lock file is a directory") from None
        raise _lock_error(
            path,
            f"cannot create the lock file ({exc.strerror})",
            "check that the project folder is writable",
        ) from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise _lock_error(path, "the lock file is not a regular file; refused")
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        holder = os.pread(fd, 32, 0).decode(errors="replace").strip() or "?"
        os.close(fd)
        raise ContentError(
            f"another pnp build is running on this project (pid {holder})",
            path,
            hint="wait for it to finish, then run again",
            code="locked",
        ) from None
    os.ftruncate(fd, 0)
    os.pwrite(fd, str(os.getpid()).encode(), 0)
    _LOCK_FD = fd
    try:
        yield
    finally:
        _LOCK_FD = None
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _worker_init(parent: int, notes: str | None = None) -> None:
    """Runs first in every pool worker (forked from the main process `parent`); `notes` is the
    folder where a worker names the target it was ended for (the time limit)."""
    global _LOCK_FD, _OVERTIME_NOTES
    _OVERTIME_NOTES = notes
    if _LOCK_FD is not None:  # the lock is the main process's; our inherited copy must not keep it
        os.close(_LOCK_FD)
        _LOCK_FD = None
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is handled by the main process
    _die_with_parent(parent)


def _die_with_parent(parent: int) -> None:
    """A worker must not outlive the main process (killed by the OOM killer, say)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG (Linux)
    except (OSError, AttributeError):
        import threading

        def watch() -> None:
            while os.getppid() == parent:
                time.sleep(0.5)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the signal was armed
        os._exit(1)


class Progress:
    def __init__(self, total: int, stream=None):
        # sys.stderr looked up now, not at import, so redirected output is honoured
        self.total, self.done, self.stream = total, 0, stream or sys.stderr
        self.tty = self.stream.isatty()
        self.start = time.monotonic()

    def step(self, label: str) -> None:
        self.done += 1
        width = 24
        filled = int(width * self.done / max(self.total, 1))
        bar = "#" * filled + "-" * (width - filled)
        line = f"[{bar}] {self.done}/{self.total} {label}"
        if self.tty:
            self.stream.write("\r\033[K" + line)
            if self.done == self.total:
                self.stream.write("\n")
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


# ------------------------------------------------------------------ the build


# Set once a parallel build was stopped: its pool's threads and queues are left behind, and the
# interpreter's exit handlers could wait on them (a queue whose readers were killed), so the CLI
# leaves at once once it has said so (cli.main).
POOL_STOPPED = False


def _stop(pool: ProcessPoolExecutor) -> None:
    """Stop a parallel build at once: cancel what is queued and kill the workers (one may be deep
    in WeasyPrint, which swallows KeyboardInterrupt). `build` then removes their temporary
    files."""
    global POOL_STOPPED
    POOL_STOPPED = True
    workers = list((getattr(pool, "_processes", None) or {}).values())
    with contextlib.suppress(AttributeError):  # its feeder must not be waited for at exit
        pool._call_queue.cancel_join_thread()  # type: ignore[attr-defined]
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in workers:
        proc.kill()
    for proc in workers:
        proc.join(timeout=2)
    pool.shutdown(wait=True)  # the pool's own thread sees the workers gone and ends now
    # At exit, concurrent.futures would wake that thread through a pipe already closed by the
    # kill and print a traceback: there is nothing left to wake.
    import concurrent.futures.process as pool_module

    with contextlib.suppress(AttributeError):
        pool_module._threads_wakeups.clear()


def _sweep_temporaries(project: Project, games) -> None:
    """Remove the temporary files of an unfinished write: a kill's leftovers at the start of a
    build, or those of a write that Ctrl-C cut between creating its file and guarding it."""
    for game in games:
        try:  # never through a symlinked output/ or output/<game>: those are refused anyway
            fsio.output_path(project.root, f"output/{game}/x")
            fsio.output_path(project.root, f"output/.pnp-cache/{game}.json")
        except ContentError:
            continue
        fsio.sweep_temporaries(project.output / game)
        for stale in state_path(project, game).parent.glob(f".{game}.*.tmp"):
            if fsio.is_temporary(stale) and not stale.is_symlink():
                stale.unlink(missing_ok=True)  # a build record being written


def _check_outputs(project: Project, plans: dict) -> None:
    """Every path the build will write, made of plain names and inside the real output/
    (fsio.output_path): checked before anything is written or swept."""
    for game, targets in plans.items():
        fsio.output_path(project.root, f"output/{game}/build-manifest.json")
        fsio.output_path(project.root, f"output/.pnp-cache/{game}.json")
        for t in targets:
            for rel in t.files:
                if not rel.startswith(f"output/{game}/"):
                    raise ContentError(f"{rel}: outside output/{game}/", code="path-refused")
                fsio.output_path(project.root, rel)


def _intact(project: Project, t: Target, known: dict) -> bool:
    """Every file the target wrote is still there, unchanged."""
    digests = known.get("sha256")
    if not isinstance(digests, dict):
        digests = {t.path: digests}
    return all(digests.get(rel) == _sha(project.root / rel) for rel in t.files)


def build_manifest(game: str, targets: list[Target], state: GameState) -> dict:
    files, sheets = [], []
    for t in targets:
        part = state.targets[t.path]["part"]
        for entry in part.get("files") or [part["file"]]:
            files.append({k: v for k, v in entry.items() if v is not None})
        sheets.extend(part["sheets"])
    return {"game": game, "files": files, "sheets": sheets}


def _wanted(content, target: Target) -> bool:
    """False for a target of a draft language that `pnp print` skips (it has errors)."""
    skip = getattr(content, "skip_languages", None) or set()
    return target.lang not in skip and not set(target.langs) & skip


def build(project: Project, games: list, options: Options, log=print) -> dict:
    """Build every target of `games` (loaded GameContent) that is out of date. Returns counts."""
    try:
        return _build(project, games, options, log)
    except BaseException:
        # Ctrl-C, or a target's time limit, can land between a temporary file's creation and
        # the guard that removes it (or inside that guard). No worker is left running here
        # (they finished or were stopped) and we hold the lock: what is left is garbage.
        _sweep_temporaries(project, [c.id for c in games])
        raise


def _build(project: Project, games: list, options: Options, log) -> dict:
    plans = {
        content.id: [t for t in plan_targets(project, content, options) if _wanted(content, t)]
        for content in games
    }
    _check_outputs(project, plans)
    # Leftovers of a build that was killed: we hold the lock, so no one else is writing them.
    _sweep_temporaries(project, plans)
    todo: list[Target] = []
    # --force of the whole kit rebuilds every target and guide: the last build's record is not
    # read at all. A forced run of some papers or exports keeps the others' records.
    fresh = options.force and whole_kit(options)
    states = {g: GameState() if fresh else load_state(project, g) for g in plans}
    for game, targets in plans.items():
        state = states[game]
        for t in targets:
            known = state.targets.get(t.path)
            intact = known and known.get("key") == t.key and _intact(project, t, known)
            if options.force or not intact:
                todo.append(t)
    for t in todo:  # its old record is replaced when it is built: no need to hold it meanwhile
        states[t.game].targets.pop(t.path, None)
    progress = Progress(len(todo)) if todo else None
    jobs = options.jobs or os.cpu_count() or 1
    failures: list[str] = []

    finished = [0]
    encoded = Encoded()

    def done(t: Target, part: dict):
        states[t.game].targets[t.path] = {"key": t.key, "sha256": part.pop("sha256"), "part": part}
        finished[0] += 1
        # After each target, so a kill loses one; the last one is saved with the guides below
        # (the state holds a record per slot: a 10,000-card deck's is written once, not twice).
        if finished[0] < len(todo):
            save_state(project, t.game, states[t.game], encoded)
        if progress is not None:
            progress.step(t.path if len(t.files) == 1 else f"{t.path} (+{len(t.files) - 1} files)")

    if len(todo) <= 1 or jobs == 1:
        # already loaded and checked here
        session.current().cache("build.content").update({c.id: c for c in games})
        for t in todo:
            done(t, run_timed(str(project.root), t, options))
    else:
        import multiprocessing  # only a parallel build needs them
        import tempfile  # only a parallel build needs it: a worker's note of its time limit
        from concurrent.futures import ProcessPoolExecutor, as_completed
        from concurrent.futures.process import BrokenProcessPool

        notes = tempfile.mkdtemp(prefix="pnp-overtime-")
        pool = ProcessPoolExecutor(
            max_workers=min(jobs, len(todo)),
            mp_context=multiprocessing.get_context("fork"),
            initializer=_worker_init,
            initargs=(os.getpid(), notes),
        )
        try:
            futures = {pool.submit(run_timed, str(project.root), t, options): t for t in todo}
            for future in as_completed(futures):
                t = futures[future]
                try:
                    done(t, future.result())
                except ContentError as exc:
                    failures.append(exc.format())
                except BrokenProcessPool:
                    raise _overtime_noted(notes) or ContentError(
                        "a build worker died (out of memory, or killed)",
                        project.root / t.path,
                        code="build-failed",
                        hint="run again with -j 1 to see which target",
                    ) from None
        except BaseException:
            # Ctrl-C or a failure: cancel the queue and stop the workers now, not after the queue.
            _stop(pool)
            raise
        finally:
            for note in Path(notes).iterdir():
                note.unlink(missing_ok=True)
            os.rmdir(notes)
        pool.shutdown(wait=True)
    if failures:
        raise ContentError(failures[0], code="build-failed")
    contents = {c.id: c for c in games}
    written: dict[str, list[str]] = {}
    guides_written: list[str] = []  # the guides and zips this run wrote (others were current)
    planned: dict[str, int] = {}  # per game: the files this run's targets and guides make
    for game, targets in plans.items():
        listed = targets + _kit_still_built(project, contents[game], options, targets, states)
        manifest = build_manifest(game, listed, states[game])
        # the manifest's pages are the targets' own lists: their JSON text is made once
        pages = [states[game].targets[t.path]["part"]["sheets"] for t in listed]
        guides = build_guides(
            project, contents[game], manifest, states[game], options, guides_written, encoded, pages
        )
        manifest["files"] += guides
        zips = build_shop_zips(project, manifest, states[game], guides_written)
        manifest["files"] += zips
        papers = {t.paper for t in targets}  # a guide of another paper is that run's file
        mine = [rel for t in targets for rel in t.files] + [
            g["path"] for g in guides if g["paper"] in papers or g["path"] in guides_written
        ]
        exported = {rel for t in targets for rel in t.files}
        mine += [z["path"] for z in zips if exported & set(z["members"])]
        planned[game] = len(dict.fromkeys(mine))
        save_state(project, game, states[game], encoded)
        path = project.output / game / "build-manifest.json"
        # Strict JSON (_ENCODE): a NaN or infinity here is a bug upstream, never written 'NaN'.
        head = encoded.dumps({"game": manifest["game"], "files": manifest["files"]})
        data = f'{head[:-1]},"sheets":{encoded.joined(pages)}}}'.encode()
        if not path.exists() or path.stat().st_size != len(data) or path.read_bytes() != data:
            try:
                fsio.write_bytes(path, data)
            except OSError as exc:
                raise write_error(exc, path) from None
        # every file of every target (a tts job's pictures too, which the manifest names inside
        # their entry), then each file the manifest lists (the guides)
        files = [rel for t in listed for rel in t.files] + [f["path"] for f in manifest["files"]]
        written[game] = list(dict.fromkeys(files))
    return {
        "notices": local_links(todo, states),
        # files, not jobs: a job may write several (a tts deck's pictures), guides come after
        "built": len({rel for t in todo for rel in t.files}) + len(guides_written),
        "total": sum(planned.values()),
        "totals": planned,
        "files": written,  # by game: every file its targets and guides wrote
    }


def local_links(todo: list[Target], states: dict) -> list[str]:
    """A warning per game whose Tabletop Simulator files written this run link their images by
    file:// (no `base_url:`): they load on this computer only."""
    out = []
    for game in dict.fromkeys(t.game for t in todo):
        local = []
        for t in todo:
            part = (states[game].targets.get(t.path) or {}).get("part") or {}
            entries = part.get("files") or [part.get("file") or {}]
            if t.game == game and any(e.get("links") == "file" for e in entries):
                local.append(t.path)
        if local:
            folder = str(Path(local[0]).parent)
            out.append(
                f"warning: {len(local)} Tabletop Simulator file(s) in {folder}/ link their images "
                "by file:// paths on this computer: they will not load anywhere else. Host the "
                "images and set `base_url:` in the tts export (print: {exports: [{format: tts, "
                "base_url: https://...}]}), then print again."
            )
    return out


def whole_kit(options: Options) -> bool:
    """The run builds the kit as game.yaml asks for it: no paper, export or print option."""
    plain = Options()
    return [options.key(), options.exports] == [plain.key(), plain.exports]


def _kit_still_built(
    project: Project, content, options: Options, targets: list[Target], states: dict
) -> list[Target]:
    """The game's own files (as game.yaml asks for them) that this run did not build but an
    earlier one did and that are current: a run of some papers or exports (`--export png`)
    still lists the whole kit in the manifest. A file of an edited card that this run did not
    rebuild is out of date and is not listed."""
    if whole_kit(options):
        return []  # this run built the kit itself
    state = states[content.id]
    done = {t.path for t in targets}
    kept = []
    for t in plan_targets(project, content, Options()):
        known = state.targets.get(t.path)
        if t.path in done or not _wanted(content, t) or not known or known.get("key") != t.key:
            continue
        if _intact(project, t, known):
            kept.append(t)
    return kept


def build_shop_zips(project: Project, manifest: dict, state: GameState, written: list) -> list:
    """`<lang>/print-shop.zip` of each language's print-shop folder, once its files are written:
    the folder a shop receives, in one file. Rewritten only when a file in it changed. Returns
    file entries; appends the paths it wrote to `written`."""
    # Deferred for start-up time: a no-op print answered from the kit stamp imports no exporter
    # (tests/test_fast_paths.py).
    from generator.exports import print_shop
    from generator.impose import entries as entries_

    folders: dict[tuple[str, str], list[str]] = {}
    for f in manifest["files"]:
        # the folder's PDFs and its order sheet; never the archive itself
        shop = f.get("kind") == "export" and f.get("format") == "print-shop"
        if shop and f.get("role") in (None, "order-sheet"):
            folders.setdefault((f["lang"], str(Path(f["path"]).parent)), []).append(f["path"])
    entries = []
    for (lang, folder), members in folders.items():
        rel_path = f"{folder}.zip"
        digests = [[m, _sha(project.root / m)] for m in sorted(members)]
        key = hashlib.sha256(json.dumps(digests).encode()).hexdigest()
        out = project.root / rel_path
        known = state.targets.get(rel_path)
        if not known or known.get("key") != key or known.get("sha256") != _sha(out):
            with fsio.atomic_path(out) as tmp:
                print_shop.zip_folder(project.root, folder, members, tmp)
            written.append(rel_path)
            entry = entries_.file_entry(
                rel_path, "export", lang, fmt="print-shop", role="archive", members=sorted(members)
            )
            state.targets[rel_path] = {
                "key": key,
                "sha256": _sha(out),
                "part": {"file": entry, "sheets": []},
            }
        entries.append(state.targets[rel_path]["part"]["file"])
    return entries


def build_guides(
    project: Project,
    content,
    manifest: dict,
    state: GameState,
    options,
    written: list[str] | None = None,
    encoded: Encoded | None = None,
    pages: list[list] | None = None,
) -> list:
    """The print-and-assembly guide of each language and paper, made from the manifest just
    built (generator/build/guide.py); rebuilt only when what it lists changes. Returns file
    entries; appends the paths of the guides it wrote to `written`."""
    # Deferred for start-up time (about 80 ms): commands that plan a build without writing one (pnp
    # check, pnp render) never draw a guide.
    from generator.build import guide

    encoded = encoded or Encoded()
    parts = pages if pages is not None else [manifest["sheets"]]  # each target's, in order
    entries = []
    papers = sorted({f["paper"] for f in manifest["files"] if f.get("kind") == "components"})
    # the guide reads both: the project's words and pnp's own
    words = _hash_files([*tree(project.templates / "guide"), guide_words.DEFAULT_TEXTS])
    skip = getattr(content, "skip_languages", None) or set()  # drafts not built this time
    said_in: dict[str, list] = {}  # per language: what the guide reads from content
    # the guide's paragraphs and the manifest's slots it reads make many objects that live on
    with session.collector_paused():
        for lang in (lang for lang in content.languages if lang not in skip):
            for paper in papers:
                rel_path = guide.guide_path(content.id, lang, paper)
                listed = guide.guide_inputs(manifest, lang, paper)
                paths = {f["path"] for f in listed}
                # the guide also names components and items and reads layouts (fold lines)
                said = said_in.get(lang) or said_in.setdefault(lang, guide.facts(content, lang))
                key = hashlib.sha256(
                    json.dumps(
                        [listed, words, said, code_hash(), content.game.print.duplex], default=str
                    ).encode()
                )
                key.update(_pages_of(parts, paths, encoded).encode())
                out = fsio.output_path(project.root, rel_path)
                known = state.targets.get(rel_path)
                if (
                    options.force
                    or not known
                    or known.get("key") != key.hexdigest()
                    or known.get("sha256") != _sha(out)
                ):
                    with fsio.atomic_path(out) as tmp:
                        entry = guide.write_guide(content, manifest, lang, paper, tmp)
                    entry["path"] = rel_path
                    if written is not None:
                        written.append(rel_path)
                    state.targets[rel_path] = {
                        "key": key.hexdigest(),
                        "sha256": _sha(out),
                        "part": {"file": entry, "sheets": []},
                    }
                entries.append(state.targets[rel_path]["part"]["file"])
    return entries


def _pages_of(parts: list[list], paths: set[str], encoded: Encoded) -> str:
    """The JSON text of the pages in `parts` (each target's list) that belong to `paths`, as one
    list: what `_ENCODE` makes of them. A target's text is encoded once per build and used
    whole when all its pages belong."""
    chosen = []
    for pages in parts:
        mine = [page for page in pages if page["file"] in paths]
        if mine:
            chosen.append(pages if len(mine) == len(pages) else mine)
    return encoded.joined(chosen)

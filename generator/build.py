"""The build: targets keyed by a hash of their inputs, written atomically, run in parallel.

A target is one output file. Its key hashes every input file it depends on, the print
options, and pnp's own code. Unchanged targets whose output is intact are skipped. Outputs
are written to a temporary file, flushed and renamed, so a killed build never leaves a
half-written PDF where a good one was. A lock keeps two builds off the same output folder.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from generator import fsio, session
from generator.errors import ContentError
from generator.project import Project, code_digest


def _hash_files(paths, h=None) -> str:
    h = h or hashlib.sha256()
    for path in sorted(set(paths)):
        h.update(str(path).encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"<missing>")
    return h.hexdigest()


def tree(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return [p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts]


def code_hash() -> str:
    return code_digest()[:16]


@dataclass
class Options:
    papers: list[str] | None = None  # None: each game's own print.papers
    duplex: str | None = None
    back_offset: tuple[float, float] | None = None  # mm
    one_per_page: bool | None = None
    force: bool = False
    jobs: int = 0

    def key(self) -> str:
        return json.dumps([self.papers, self.duplex, self.back_offset, self.one_per_page])


@dataclass
class Target:
    game: str
    kind: str  # components | export | rulebook | bilingual-rulebook
    component: str
    lang: str
    paper: str | None
    path: str  # relative to the project root
    key: str = ""
    langs: tuple[str, ...] = ()  # a bilingual edition's two languages


@dataclass
class GameState:
    """What the last build of a game wrote: per target its key, output digest and manifest part."""

    targets: dict = field(default_factory=dict)
    checked: str = ""  # key of the inputs that last passed `check`


def _sha(path: Path) -> str | None:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError:
        return None


def settings_for(content, comp, options: Options):
    # A component's print: overrides only the keys it sets; the rest come from the game.
    settings = content.game.print.model_copy(deep=True)
    if comp.model.print is not None:
        for key in comp.model.print.model_fields_set:
            setattr(settings, key, getattr(comp.model.print, key))
    from generator.model import Offset
    from generator.units import parse_length

    if options.duplex:
        settings.duplex = options.duplex
    if options.back_offset is not None:
        settings.back_offset = Offset(
            x=parse_length(options.back_offset[0]), y=parse_length(options.back_offset[1])
        )
    if options.one_per_page is not None:
        settings.one_per_page = options.one_per_page
    if options.papers:
        settings.papers = list(options.papers)
    return settings


def plan_targets(project: Project, content, options: Options) -> list[Target]:
    """Every output of a game. Each target's key covers only what it reads (inputs.py)."""
    from generator.inputs import component_key
    from generator.sizes import paper_size

    targets = []
    code = code_hash()
    for comp in content.components:
        settings = settings_for(content, comp, options)
        for paper in settings.papers:
            paper_size(project, paper)  # unknown paper: a clear error before anything is written
        extra = "|".join([code, options.key(), settings.model_dump_json()])
        for lang in content.languages:
            key = component_key(content, comp, lang, extra)
            for paper in settings.papers:
                path = f"output/{content.id}/{lang}/{comp.id}-{paper}.pdf"
                targets.append(Target(content.id, "components", comp.id, lang, paper, path, key))
            if settings.one_per_page:
                path = f"output/{content.id}/{lang}/print-shop/{comp.id}.pdf"
                targets.append(Target(content.id, "export", comp.id, lang, None, path, key))
    return targets + rulebook_targets(project, content, options, code)


def rulebook_targets(project: Project, content, options: Options, code: str) -> list[Target]:
    """A rulebook edition reads its own languages' rules and strings, and every component."""
    from generator.inputs import rulebook_key

    langs = [lang for lang in content.languages if lang in content.rules]
    if not langs:
        return []
    extra = "|".join([code, options.key(), content.game.rulebook.model_dump_json()])
    keys: dict[tuple[str, ...], str] = {}

    def key(*edition: str) -> str:
        if edition not in keys:
            keys[edition] = rulebook_key(content, edition, extra)
        return keys[edition]

    papers = options.papers or content.game.rulebook.papers or content.game.print.papers
    out = []
    for index, paper in enumerate(papers):
        suffix = "" if index == 0 else f"-{paper}"
        for lang in langs:
            out.append(
                Target(
                    content.id,
                    "rulebook",
                    "",
                    lang,
                    paper,
                    f"output/{content.id}/{lang}/rulebook{suffix}.pdf",
                    key(lang),
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
                    key(a, b),
                    (a, b),
                )
            )
    return out


# ------------------------------------------------------------------ workers


def run_target(root: str, target: Target, options: Options) -> dict:
    """Build one target (in a worker process or in-process) and return its manifest part."""
    from generator import sheets
    from generator.content import load_game

    project = Project(Path(root))
    loaded = session.current().cache("build.content")  # games loaded by this command
    content = loaded.get(target.game)
    if content is None:
        content = loaded[target.game] = load_game(project, target.game)
    out = project.root / target.path
    if target.kind in ("rulebook", "bilingual-rulebook"):
        return _run_rulebook(content, target, out)
    comp = content.component(target.component)
    settings = settings_for(content, comp, options)
    with fsio.atomic_path(out) as tmp:
        if target.kind == "components":
            part = sheets.write_sheets(
                content, comp, target.lang, _paper(target), settings, tmp, target.path
            )
        else:
            part = sheets.write_one_per_page(content, comp, target.lang, settings, tmp, target.path)
    part["sha256"] = _sha(out)
    return part


def _paper(target: Target) -> str:
    """Sheets and rulebooks are laid out on a paper; only one-per-page exports have none."""
    if target.paper is None:
        raise ValueError(f"target {target.path} ({target.kind}) has no paper")
    return target.paper


def _run_rulebook(content, target: Target, out: Path) -> dict:
    from generator import rulebook

    with fsio.atomic_path(out) as tmp:
        if target.kind == "rulebook":
            info = rulebook.render_rulebook(content, target.lang, _paper(target), tmp)
        else:
            lang_a, lang_b = target.langs
            info = rulebook.render_bilingual(content, lang_a, lang_b, _paper(target), tmp)
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
        data = json.loads(state_path(project, game).read_text())
        return GameState(data.get("targets", {}), data.get("checked", ""))
    except (OSError, ValueError, AttributeError):
        return GameState()  # a missing or damaged cache only costs a rebuild


def save_state(project: Project, game: str, state: GameState) -> None:
    fsio.write_bytes(
        state_path(project, game),
        json.dumps({"targets": state.targets, "checked": state.checked}).encode(),
    )


@contextmanager
def build_lock(project: Project):
    """One build at a time per project. The lock file sits at the project root, so a build
    that stops on bad content leaves output/ untouched."""
    path = project.root / ".pnp.lock"
    with open(path, "a+") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "?"
            raise ContentError(
                f"another pnp build is running on this project (pid {holder})",
                path,
                hint="wait for it to finish, then run again",
                code="locked",
            ) from None
        fh.seek(0)
        fh.truncate()
        fh.write(str(os.getpid()))
        fh.flush()
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


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


def build_manifest(game: str, targets: list[Target], state: GameState) -> dict:
    files, sheets = [], []
    for t in targets:
        part = state.targets[t.path]["part"]
        files.append({k: v for k, v in part["file"].items() if v is not None})
        sheets.extend(part["sheets"])
    return {"game": game, "files": files, "sheets": sheets}


def _wanted(content, target: Target) -> bool:
    """False for a target of a draft language that `pnp print` skips (it has errors)."""
    skip = getattr(content, "skip_languages", None) or set()
    return target.lang not in skip and not set(target.langs) & skip


def build(project: Project, games: list, options: Options, log=print) -> dict:
    """Build every target of `games` (loaded GameContent) that is out of date. Returns counts."""
    plans = {
        content.id: [t for t in plan_targets(project, content, options) if _wanted(content, t)]
        for content in games
    }
    # Leftovers of a build that was killed: we hold the lock, so no one else is writing them.
    for game in plans:
        for stale in (
            (project.output / game).rglob(".*.tmp") if (project.output / game).is_dir() else ()
        ):
            stale.unlink(missing_ok=True)
    todo: list[Target] = []
    states = {g: load_state(project, g) for g in plans}
    for game, targets in plans.items():
        state = states[game]
        for t in targets:
            known = state.targets.get(t.path)
            intact = (
                known
                and known.get("key") == t.key
                and known.get("sha256") == _sha(project.root / t.path)
            )
            if options.force or not intact:
                todo.append(t)
    progress = Progress(len(todo)) if todo else None
    jobs = options.jobs or os.cpu_count() or 1
    failures: list[str] = []

    def done(t: Target, part: dict):
        states[t.game].targets[t.path] = {"key": t.key, "sha256": part.pop("sha256"), "part": part}
        save_state(project, t.game, states[t.game])  # after each target: a kill loses at most one
        if progress is not None:
            progress.step(t.path)

    if len(todo) <= 1 or jobs == 1:
        # already loaded and checked here
        session.current().cache("build.content").update({c.id: c for c in games})
        for t in todo:
            done(t, run_target(str(project.root), t, options))
    else:
        with ProcessPoolExecutor(max_workers=min(jobs, len(todo))) as pool:
            futures = {pool.submit(run_target, str(project.root), t, options): t for t in todo}
            for future in as_completed(futures):
                t = futures[future]
                try:
                    done(t, future.result())
                except ContentError as exc:
                    failures.append(exc.format())
    if failures:
        raise ContentError(failures[0], code="build-failed")
    for game, targets in plans.items():
        manifest = build_manifest(game, targets, states[game])
        path = project.output / game / "build-manifest.json"
        data = json.dumps(manifest, ensure_ascii=False, separators=(",", ":")).encode()
        if not path.exists() or path.read_bytes() != data:
            fsio.write_bytes(path, data)
    return {"built": len(todo), "total": sum(len(t) for t in plans.values())}

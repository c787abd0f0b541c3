"""A stamp of a whole kit's build, so that `pnp print` of an unchanged game loads nothing.

A plain `pnp print` (no paper, export or print option) of a game that nothing touched since its
last whole-kit build has nothing to do, yet finding that out the long way means loading the
content model, planning every target and hashing every output: most of a second, spent
mostly importing pydantic, Jinja and ReportLab. So a successful whole-kit build leaves a stamp
(`output/.pnp-cache/<game>.stamp`): a digest of everything the game's build can read (every
file of its game folder and of templates/ that a build reads, pnp's own code, data and
templates, the project folder) and the size and modification time of every file it wrote, the
build record and the manifest included. The next plain `pnp print` compares both before
importing anything else; any difference, or no stamp, takes the ordinary path, which checks
and rebuilds as before. A game with a draft language is never stamped: its check decides,
each time, which drafts build.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path

from generator import fsio
from generator.cache.store import code_digest
from generator.load.project import Project, digest_tree

FORMAT = 1
RECORDS = ("json", "checked")  # the build record and the passed check, beside the stamp


def path(project: Project, game: str) -> Path:
    return project.output / ".pnp-cache" / f"{game}.stamp"


def inputs_digest(project: Project, game: str) -> str:
    """Everything a build of `game` can read, by content (project.digest_tree)."""
    h = hashlib.sha256(f"{FORMAT}\0{code_digest()}\0{project.root.resolve()}\0{game}".encode())
    folders = [("game", project.game_dir(game)), ("templates", project.templates)]
    if not project.own_defaults:
        # pnp's own templates, which the project's override file by file
        folders.append(("pnp-defaults", project.defaults))
    for label, root in folders:
        h.update(f"\0{label}\0".encode())
        digest_tree(h, root)
    return h.hexdigest()


def _stat(file: Path) -> list[int] | None:
    try:
        info = file.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def write(project: Project, game: str, digest: str, outputs: list[str], total: int) -> None:
    """Stamp a finished whole-kit build of `total` targets: `outputs` are the files of its
    manifest, relative to the root.
    `digest` is inputs_digest() taken before the build read anything (an edit made during the
    build then leaves a stale digest: the next print takes the ordinary path)."""
    files = [*outputs, _rel(project, project.output / game / "build-manifest.json")]
    files += [_rel(project, project.output / ".pnp-cache" / f"{game}.{k}") for k in RECORDS]
    stats = {rel: _stat(project.root / rel) for rel in files}
    if any(v is None for v in stats.values()):
        return  # something is already missing: no stamp
    data = {"format": FORMAT, "inputs": digest, "outputs": stats, "total": total}
    with contextlib.suppress(OSError):  # no stamp: the next print takes the ordinary path
        fsio.write_bytes(path(project, game), json.dumps(data, sort_keys=True).encode())


def remove(project: Project, game: str) -> None:
    """Called before a build writes anything: a build cut short leaves no stamp behind."""
    with contextlib.suppress(OSError):
        path(project, game).unlink(missing_ok=True)


def up_to_date(project: Project, game: str, digest: str) -> int | None:
    """The number of the kit's targets when its stamp holds `digest` (inputs_digest() now) and
    every file it lists is as the build left it; else None."""
    try:
        data = json.loads(path(project, game).read_bytes())
        if data.get("format") != FORMAT or data["inputs"] != digest:
            return None
        if any(_stat(project.root / rel) != list(st) for rel, st in data["outputs"].items()):
            return None
        return int(data["total"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _rel(project: Project, file: Path) -> str:
    return os.path.relpath(file, project.root)

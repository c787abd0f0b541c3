"""The validated content model of a game, kept between commands, keyed by file hashes.

Loading a big game (parsing its YAML, validating every item, expanding matrices) costs more
than reading the result back, so a game that loaded cleanly is pickled with the layouts it
validated; the next command reads both back when the key matches: pnp's code, the project
folder, and the content of every file of the game folder and of templates/ (a big file's content
digest kept per inode, size, mtime and ctime: project.big_digest).
Only games that loaded without error are kept; any change to any of those files misses.

The cache lives in the user's cache folder (`$PNP_CACHE_DIR`, else `$XDG_CACHE_HOME/pnp`,
else `~/.cache/pnp`), never in the project: a pickle is code, so a project (which may come
from anyone) must not be able to hand pnp one. Set PNP_CACHE_DIR=off to turn it off.
"""

from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from generator import fsio
from generator.load.project import Project, code_digest, digest_tree

if TYPE_CHECKING:
    from generator.load.content import GameContent


def folder() -> Path | None:
    chosen = os.environ.get("PNP_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen) / "models"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pnp" / "models"


def beside(kind: str) -> Path | None:
    """Another cache of pure results next to the models (`digests`...), or None when off."""
    models = folder()
    return None if models is None else models.parent / kind


def key(project: Project, game_id: str) -> str | None:
    """The digest of everything loading the game reads, or None (no cache, no such game)."""
    game_dir = project.game_dir(game_id)
    if folder() is None or not game_dir.is_dir():
        return None
    h = hashlib.sha256(f"{code_digest()}\0{project.root.resolve()}\0{game_id}".encode())
    digest_tree(h, game_dir)
    h.update(b"\0templates\0")
    digest_tree(h, project.templates)
    if not project.own_defaults:  # pnp's own templates, under the project's
        h.update(b"\0defaults\0")
        digest_tree(h, project.defaults)
    return h.hexdigest()


def _path(project: Project, game_id: str, digest: str) -> Path:
    where = folder()
    assert where is not None  # key() gave a digest, so the cache is on
    owner = hashlib.sha256(f"{project.root.resolve()}\0{game_id}".encode()).hexdigest()[:16]
    return where / f"{owner}-{digest[:32]}.pickle"


def get(project: Project, game_id: str, digest: str) -> tuple[GameContent, dict] | None:
    try:
        data = _path(project, game_id, digest).read_bytes()
        kept = pickle.loads(data)  # our own file, in the user's cache folder (see above)
    except Exception:  # missing, truncated, or made by another pnp: load afresh
        return None
    return kept if isinstance(kept, tuple) and len(kept) == 2 else None


def put(project: Project, game_id: str, digest: str, content: tuple[GameContent, dict]) -> None:
    path = _path(project, game_id, digest)
    try:
        for old in path.parent.glob(path.name.split("-")[0] + "-*.pickle"):
            old.unlink(missing_ok=True)  # one entry per game and project
        fsio.write_bytes(path, pickle.dumps(content, protocol=pickle.HIGHEST_PROTOCOL))
    except OSError:
        pass  # a read-only home: no cache, same results

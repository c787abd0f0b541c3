"""The validated content model of a game, kept between commands, keyed by file hashes.

Loading a big game (parsing its YAML, validating every item, expanding matrices) costs more
than reading the result back, so a game that loaded cleanly is pickled with the layouts it
validated; the next command reads both back when the key matches: pnp's code, the project
folder, and the content of every file of the game folder and of templates/ (a big file's content
digest kept per inode, size, mtime and ctime: project.big_digest).
Only games that loaded without error are kept; any change to any of those files misses.

The entries are the `models` kind of the user's cache folder (cache/store.py: its key scheme
and eviction rule), never in the project: a pickle is code, so a project (which may come from
anyone) must not be able to hand pnp one. Set PNP_CACHE_DIR=off to turn it off.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import TYPE_CHECKING

from generator import session
from generator.cache import store
from generator.cache.store import code_digest
from generator.load.project import Project, digest_tree

if TYPE_CHECKING:
    from generator.load.content import GameContent


def folder() -> Path | None:
    return store.folder("models")


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


def _owner(project: Project, game_id: str) -> str:
    """One entry per game and project: a new version replaces the old one."""
    return store.key(str(project.root.resolve()), game_id, length=16)


def _path(project: Project, game_id: str, digest: str) -> Path:
    path = store.entry("models", digest[:32], owner=_owner(project, game_id), suffix=".pickle")
    assert path is not None  # key() gave a digest, so the cache is on
    return path


def get(project: Project, game_id: str, digest: str) -> tuple[GameContent, dict] | None:
    data = store.read(_path(project, game_id, digest))
    if data is None:
        return None
    try:
        with session.collector_paused():  # a 10,000-card model is a million objects
            kept = pickle.loads(data)  # our own file, in the user's cache folder (see above)
    except Exception:  # truncated, or made by another pnp: load afresh
        return None
    return kept if isinstance(kept, tuple) and len(kept) == 2 else None


def put(project: Project, game_id: str, digest: str, content: tuple[GameContent, dict]) -> None:
    data = pickle.dumps(content, protocol=pickle.HIGHEST_PROTOCOL)
    store.write("models", _path(project, game_id, digest), data, owner=_owner(project, game_id))

"""The user's cache folder: where everything pnp keeps between commands lives.

One folder (`$PNP_CACHE_DIR`, else `$XDG_CACHE_HOME/pnp`, else `~/.cache/pnp`; `PNP_CACHE_DIR=off`
turns every cache off), one sub-folder per kind of entry (models, fonts, templates, digests),
never inside a project: a pickle or marshalled code is code, so a project (which may come from
anyone) must not be able to hand pnp one. Every entry is a pure function of its key, and every
key starts from `code_digest()` (pnp's own code and data), so a new pnp never reads an old
entry.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from generator import session


def root() -> Path | None:
    """The cache folder, or None when caching is off (PNP_CACHE_DIR=off)."""
    chosen = os.environ.get("PNP_CACHE_DIR")
    if chosen == "off":
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pnp"


def folder(kind: str) -> Path | None:
    """The folder of one kind of entry (`models`, `fonts`, `templates`, `digests`), or None."""
    where = root()
    return None if where is None else where / kind


@session.cached
def code_digest() -> str:
    """A digest of pnp's own code and data, every module and YAML file of the package
    (limits.yaml): what it made is remade when they change (no list of modules to keep)."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.yaml")]):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()

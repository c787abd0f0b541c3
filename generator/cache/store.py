"""The user's cache folder: where everything pnp keeps between commands lives.

One folder (`$PNP_CACHE_DIR`, else `$XDG_CACHE_HOME/pnp`, else `~/.cache/pnp`; `PNP_CACHE_DIR=off`
turns every cache off), one sub-folder per kind of entry (KINDS), never inside a project: a
pickle or marshalled code is code, so a project (which may come from anyone) must not be able to
hand pnp one.

One key scheme. An entry is a pure function of its key: `key(*parts)`, a digest of everything
the entry depends on (the kind's callers name the parts; every kind but `fonts` includes
`code_digest()`, pnp's own code and data, so a new pnp never reads an old entry; a parsed font
depends on the font's bytes, ReportLab's version and the font cache's format only). An entry
about one thing that changes (a game's model, a file's strings) also names its owner, a digest
of that thing: `<owner>-<key><suffix>`, and writing it drops the owner's older entries (the
folder is listed once per process, `_owned`).

One eviction rule. Each kind keeps at most KINDS[kind].keep entries: past that, the least
recently used half goes (by modification time; a read that hits refreshes it). It runs on a
kind's first write in a process and every keep/4 writes after, so a long watch loop stays
bounded too.

Anything wrong with an entry (missing, truncated, from another pnp) is a miss; a folder that
cannot be written (a read-only home, a full disk) means no cache, same results.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from generator import fsio


@dataclass(frozen=True)
class Kind:
    what: str
    keep: int  # entries kept; past this the least recently used half goes


KINDS: dict[str, Kind] = {
    "models": Kind("validated content models (one per game and project)", 200),
    "digests": Kind("digests of YAML files' strings per language (one per file)", 20_000),
    "fonts": Kind("parsed TrueType fonts (by the font's bytes)", 200),
    "templates": Kind("compiled Jinja templates (by their source)", 4000),
    "content": Kind("digests of big files' bytes (by device, inode, size, mtime, ctime)", 20_000),
    "yaml": Kind("parsed YAML files, validated glossaries and acceptances (by text)", 2000),
    "samples": Kind("no-bleed samples of faces' edges (one per game, by what they draw)", 200),
}


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
    """The folder of one kind of entry (KINDS), or None when caching is off."""
    if kind not in KINDS:
        raise ValueError(f"unknown cache kind {kind!r}")
    where = root()
    return None if where is None else where / kind


@functools.cache
def code_digest() -> str:
    """A digest of pnp's own code and data, every module and YAML file of the package
    (limits.yaml): what it made is remade when they change (no list of modules to keep).
    Once per process, not per command (a watch loop, a test run): a module is imported once,
    so the code a process runs does not change under it when its files do."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]
    for path in sorted([*package.rglob("*.py"), *package.rglob("*.yaml")]):
        if path.relative_to(package).parts[0] == "defaults":
            continue  # pnp's templates in a wheel: digested as templates (model_cache, stamp)
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


def key(*parts: str, length: int = 32) -> str:
    """The digest naming an entry (or its owner): of `parts`, in order, each with its length
    (no two lists of parts give the same text)."""
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(b"%d:" % len(data) + data)
    return h.hexdigest()[:length]


def entry(kind: str, key: str, owner: str | None = None, suffix: str = "") -> Path | None:
    """Where the entry lives (None: caching is off)."""
    where = folder(kind)
    if where is None:
        return None
    return where / (f"{owner}-{key}{suffix}" if owner else f"{key}{suffix}")


def read(path: Path | None) -> bytes | None:
    """An entry's bytes, or None (a miss); a hit counts as a use for eviction."""
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    used(path)
    return data


def used(path: Path) -> None:
    """Mark an entry as just used (eviction drops the least recently used first)."""
    with contextlib.suppress(OSError):
        os.utime(path)


def write(kind: str, path: Path | None, data: bytes, owner: str | None = None) -> None:
    """Keep `data` at `path` (from entry()), replacing the owner's older entries."""
    if path is None:
        return
    try:
        if owner:
            names = _owned(path.parent).setdefault(owner, set())
            for name in names - {path.name}:  # one entry per owner: the newest
                (path.parent / name).unlink(missing_ok=True)
            names.clear()
        fsio.write_bytes(path, data)
    except OSError:
        return  # a read-only or full disk: no cache, same results
    if owner:
        names.add(path.name)
    wrote(kind)


# Per folder, its entries' names by owner, listed once in a process: finding an owner's older
# entries by listing a folder of up to 20,000 entries on every write cost a test run 3 % of its
# CPU. An entry another process writes meanwhile is not known here: an older one of an owner
# can then stay until eviction, never read (an entry is found by its whole key).
_OWNED: dict[Path, dict[str, set[str]]] = {}


def _owned(where: Path) -> dict[str, set[str]]:
    known = _OWNED.get(where)
    if known is None:
        known = _OWNED[where] = {}
        with contextlib.suppress(OSError):
            for e in os.scandir(where):
                owner, dash, _ = e.name.partition("-")
                if dash:
                    known.setdefault(owner, set()).add(e.name)
    return known


_WRITES: dict[str, int] = {}


def wrote(kind: str) -> None:
    """Count a write of `kind` (also for entries written by someone else: Jinja's files), and
    now and then apply the eviction rule."""
    count = _WRITES.get(kind, 0)
    _WRITES[kind] = count + 1
    if count % max(1, KINDS[kind].keep // 4) == 0:
        evict(kind)


def evict(kind: str, keep: int | None = None) -> int:
    """Past `keep` entries (default: the kind's), drop the least recently used down to half of
    it. Returns how many went."""
    where = folder(kind)
    limit = KINDS[kind].keep if keep is None else keep
    if where is None:
        return 0
    try:
        entries = [e for e in os.scandir(where) if e.is_file(follow_symlinks=False)]
    except OSError:
        return 0
    if len(entries) <= limit:
        return 0

    def last_use(e: os.DirEntry) -> int:
        try:
            return e.stat(follow_symlinks=False).st_mtime_ns
        except OSError:
            return 0

    entries.sort(key=last_use)
    _OWNED.pop(where, None)  # listed afresh when next needed
    gone = 0
    for e in entries[: len(entries) - limit // 2]:
        with contextlib.suppress(OSError):
            os.unlink(e.path)
            gone += 1
    return gone


@dataclass
class Usage:
    kind: str
    what: str
    folder: Path | None
    entries: int
    bytes: int


def info() -> list[Usage]:
    """Per kind: what it keeps, where, how many entries and bytes."""
    out = []
    for name, kind in KINDS.items():
        where = folder(name)
        count = size = 0
        if where is not None and where.is_dir():
            for e in os.scandir(where):
                with contextlib.suppress(OSError):
                    if e.is_file(follow_symlinks=False):
                        count += 1
                        size += e.stat(follow_symlinks=False).st_size
        out.append(Usage(name, kind.what, where, count, size))
    return out


def clear(kinds: list[str] | None = None) -> tuple[int, int]:
    """Remove every entry of `kinds` (default: all); (entries, bytes) removed. Only the kinds'
    own folders are touched, never anything else under the cache folder."""
    gone = freed = 0
    for usage in info():
        if kinds is not None and usage.kind not in kinds:
            continue
        if usage.folder is not None and usage.folder.is_dir() and not usage.folder.is_symlink():
            shutil.rmtree(usage.folder, ignore_errors=True)
            _OWNED.pop(usage.folder, None)
            gone, freed = gone + usage.entries, freed + usage.bytes
    return gone, freed

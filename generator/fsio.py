"""Writing files so that a reader never sees half of one: the one atomic-write helper.

Everything pnp writes (PDFs, pictures, the build state, i18n-sync.yaml) goes through
`atomic_path`: the data goes to a temporary file beside the target (same folder, so the rename
cannot cross file systems), is flushed to disk, then renamed over the target in one step. On
any error, or Ctrl-C, the temporary file is removed and the old target is left as it was.
Temporary names are `.<name>.<random>.tmp`, which a build sweeps up if a kill left one behind.
"""

from __future__ import annotations

import functools
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces `path` (flushed to disk)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(name)
    try:
        # mkstemp makes the file private (0600): give it the mode a plain write would, the
        # old file's when there is one (a source file rewritten in place keeps its mode).
        os.fchmod(fd, _mode_for(path))
    finally:
        os.close(fd)
    try:
        yield tmp
        with open(tmp, "rb+") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def _mode_for(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o7777
    except OSError:
        return 0o666 & ~_umask()


@functools.cache
def _umask() -> int:
    # Read once: the only way to read it is to set it, so it is put straight back.
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


def write_bytes(path: Path, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")

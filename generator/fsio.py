"""Writing files so that a reader never sees half of one: the one atomic-write helper.

Everything pnp writes (PDFs, pictures, the build state, i18n-sync.yaml) goes through
`atomic_path`: the data goes to a temporary file beside the target (same folder, so the rename
cannot cross file systems), is flushed to disk, then renamed over the target in one step. On
any error, or Ctrl-C, the temporary file is removed and the old target is left as it was.
Temporary names are `.<name>.pnp-<random>.tmp`: the `.pnp-` mark is the writer's, and a build
sweeps up only files bearing it (a kill's leftovers), never a user's own `.tmp` files.

Everything under `output/` is written through `output_path`: the path is made of validated names
(`NAME`, one pattern for ids, papers, presets and languages), no folder from `output/` down is a
symlink, and the resolved path is inside the real `output/`. A path the user names on the command
line (`-o`, `--out`) goes through `write_user_file`: a regular file is replaced atomically, a FIFO
or a device is written through, a folder is refused; nothing else is ever replaced.
"""

from __future__ import annotations

import functools
import os
import re
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from generator.errors import ContentError

# A name that becomes part of a file name: no separator, no dot first, no newline (fullmatch).
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
OWN_FOLDERS = (".pnp-cache",)  # pnp's own folders under output/ (their names are not content)
TEMP_MARK = ".pnp-"  # in every temporary file this module makes, and in no other


def valid_name(name: object) -> bool:
    return isinstance(name, str) and NAME.fullmatch(name) is not None and ".." not in name


def check_name(name: object, what: str, where: Path | str | None = None, line=None, key=None):
    """`name` as a file-name part, or a located error saying why not."""
    if not valid_name(name):
        raise ContentError(
            f"{what} name {name!r} cannot be part of a file name",
            where,
            line,
            key,
            code="bad-name",
            hint="use letters, digits, '-', '_' and '.' only (no '/', no '..', no newline)",
        )
    return name


def output_path(root: Path, rel: str | Path) -> Path:
    """root/rel, proven to stay inside the real root/output: rel is `output/` then validated
    names, and neither `output/` nor any folder under it on the way is a symlink (git stores
    symlinks: a downloaded project may carry one). The file itself may be a symlink: it is
    replaced by a rename, never written through."""
    root = Path(root)
    parts = Path(rel).parts
    if not parts or parts[0] != "output" or len(parts) < 2:
        raise ContentError(f"{rel}: pnp writes only under output/", code="path-refused")
    for part in parts[1:]:
        if not valid_name(part) and part not in OWN_FOLDERS:
            raise ContentError(
                f"refusing to write {Path(rel).as_posix()}: {part!r} is not a plain name",
                code="path-refused",
                hint="a paper, preset, language or id is used as a file name: rename it",
            )
    here = root
    for part in parts[:-1]:
        here = here / part
        try:
            info = os.lstat(here)
        except FileNotFoundError:
            break  # made by the write, as a real folder
        except OSError:
            continue  # the write names the problem itself
        if stat.S_ISLNK(info.st_mode):
            raise _link_error(here)
    path = root.joinpath(*parts)
    real_out = os.path.realpath(root / "output")
    if os.path.commonpath([real_out, os.path.realpath(path.parent)]) != real_out:
        raise ContentError(f"{Path(rel).as_posix()} resolves outside output/", code="path-refused")
    return path


def check_output_tree(root: Path) -> None:
    """`output/` and everything under it is real: a symlink anywhere there (git stores them, so
    a downloaded project may carry one) is an error naming it, before anything is written."""
    out = Path(root) / "output"
    if os.path.islink(out):
        raise _link_error(out)
    if not out.is_dir():
        return
    for here, dirs, files in os.walk(out):  # does not descend into a linked folder
        for name in sorted(dirs + files):
            if os.path.islink(os.path.join(here, name)):
                raise _link_error(Path(here) / name)


def _link_error(path: Path) -> ContentError:
    return ContentError(
        "is a symlink: pnp writes only into a real output folder",
        path,
        code="path-refused",
        hint="remove the link (pnp makes output/ itself)",
    )


def is_temporary(path: Path) -> bool:
    """A temporary file this module made (its name carries the mark)."""
    name = path.name
    return name.startswith(".") and name.endswith(".tmp") and TEMP_MARK in name


def sweep_temporaries(folder: Path) -> None:
    """Remove this module's temporary files under `folder` (a kill's leftovers): only files
    bearing the mark, only regular files, never through a symlink (os.walk does not follow)."""
    if os.path.islink(folder) or not folder.is_dir():
        return
    for here, _dirs, files in os.walk(folder):
        for name in files:
            path = Path(here) / name
            if is_temporary(path) and stat.S_ISREG(os.lstat(path).st_mode):
                path.unlink(missing_ok=True)


def user_target(path: Path, option: str = "-o") -> os.stat_result | None:
    """What a path the user named is (None: nothing yet), or a usage error when pnp will not
    write it: empty, a folder, a socket or a block device. Called before the work starts."""
    if str(path) in (".", ""):
        raise ContentError(f"{option}: an empty path names no file", code="usage")
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ContentError(f"cannot write ({exc.strerror})", path, code="write-failed") from None
    mode = info.st_mode
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode) or stat.S_ISCHR(mode)):
        raise ContentError(
            f"{option}: not a regular file (a folder or a device)",
            path,
            code="usage",
            hint="name a file to write, e.g. face.png",
        )
    return info


def write_user_file(path: Path, data: bytes, option: str = "-o") -> Path:
    """Write `data` to a path the user named on the command line: a regular file (or a new
    one) is replaced atomically; a FIFO or a character device (/dev/null, /dev/stdout) is
    written through, never replaced; a folder or anything else is refused."""
    path = Path(path)
    info = user_target(path, option)
    if info is not None and (stat.S_ISFIFO(info.st_mode) or stat.S_ISCHR(info.st_mode)):
        try:
            with open(path, "wb") as fh:  # through the FIFO or device, which stays what it is
                fh.write(data)
        except OSError as exc:
            raise ContentError(
                f"cannot write ({exc.strerror})", path, code="write-failed"
            ) from None
        return path
    try:
        write_bytes(path, data)
    except OSError as exc:
        raise ContentError(f"cannot write ({exc.strerror})", path, code="write-failed") from None
    return path


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces `path` (flushed to disk)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}{TEMP_MARK}", suffix=".tmp")
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


@contextmanager
def interrupt_deferred() -> Iterator[None]:
    """A block that Ctrl-C does not cut: a SIGINT that arrives inside it is held and raised as
    KeyboardInterrupt when the block ends, so several files written together (an i18n import:
    the YAML, the rulebook and the sync record) are all written or none is."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        raise KeyboardInterrupt


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

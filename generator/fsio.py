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


# ------------------------------------------------------------------ several files as one

JOURNAL = ".pnp-journal.json"  # at the project root, while files written together are committed


def write_together(root: Path, writes: dict[Path, bytes], what: str) -> list[Path]:
    """Write several files of the project as one transaction: all of them new, or none.

    1. A journal at the root lists each file's temporary beside it ("prepared"), then each
       temporary is written and flushed to disk. A failure here (a full disk) removes them:
       no file changed.
    2. The journal is switched to "committed" (the commit point, flushed with its folder),
       the temporaries are renamed over their files, the folders flushed, the journal removed.
    A power cut or a kill in between leaves the journal: the next pnp command in the project
    (`recover`) rolls a prepared one back and a committed one forward. Ctrl-C is held until
    the end. Returns the files written."""
    root = Path(root).resolve()
    journal = root / JOURNAL
    if os.path.lexists(journal):
        raise ContentError(
            "an earlier write of several files is still unfinished",
            journal,
            code="write-failed",
            hint="run any pnp command in this project first: it finishes or undoes it",
        )
    pairs: list[tuple[Path, Path]] = []
    made: list[Path] = []  # the temporaries this call created (only those are removed)
    where = journal  # the file being written, for the error
    with interrupt_deferred():
        try:
            for path in writes:
                path = Path(path)
                _inside(root, path)
                tmp = path.parent / f".{path.name}{TEMP_MARK}{os.urandom(6).hex()}.tmp"
                pairs.append((tmp, path))
            _write_journal(journal, "prepared", what, root, pairs)  # first: names what to undo
            for (tmp, path), data in zip(pairs, writes.values(), strict=True):
                where = path
                path.parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
                made.append(tmp)
                try:
                    os.fchmod(fd, _mode_for(path))
                    view = memoryview(data)
                    while view:
                        view = view[os.write(fd, view) :]
                    os.fsync(fd)
                finally:
                    os.close(fd)
            where = journal
            _write_journal(journal, "committed", what, root, pairs)
        except BaseException as exc:
            for tmp in made:
                tmp.unlink(missing_ok=True)
            journal.unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise ContentError(
                    f"{what}: cannot write ({exc.strerror or exc}); no file was changed",
                    where,
                    code="write-failed",
                ) from None
            raise
        done = 0
        try:
            for tmp, path in pairs:
                os.replace(tmp, path)
                done += 1
            _sync_folders([path.parent for _tmp, path in pairs])
            journal.unlink()
            _sync_folders([root])
        except OSError as exc:
            raise ContentError(
                f"{what}: stopped after {done} of {len(pairs)} files ({exc.strerror or exc}); "
                f"the other {len(pairs) - done} are written beside their files and listed in "
                f"{JOURNAL}: the next pnp command in this project finishes them",
                pairs[done][1] if done < len(pairs) else journal,
                code="write-failed",
            ) from None
    return [path for _tmp, path in pairs]


def recover(root: Path) -> str | None:
    """Finish or undo a `write_together` that was cut short (a power cut, a full disk, a kill):
    a committed journal's files are all renamed into place, a prepared one's temporaries are
    removed. Returns a sentence saying which, or None when there was nothing to do. A journal
    pnp did not write (one in a downloaded project naming files elsewhere) is an error, and
    nothing is moved."""
    root = Path(root).resolve()
    journal = root / JOURNAL
    if not os.path.lexists(journal):
        return None
    state, what, pairs = _read_journal(journal, root)
    if state == "committed":
        for tmp, path in pairs:
            if os.path.lexists(tmp):
                os.replace(tmp, path)
        _sync_folders([path.parent for _tmp, path in pairs])
        journal.unlink()
        _sync_folders([root])
        return f"pnp: finished an interrupted {what}: all {len(pairs)} files are new"
    for tmp, _path in pairs:
        tmp.unlink(missing_ok=True)
    journal.unlink()
    return f"pnp: undid an interrupted {what}: no file was changed"


def _inside(root: Path, path: Path) -> None:
    real = os.path.realpath(path.parent)
    if os.path.commonpath([str(root), real]) != str(root):
        raise ContentError("is outside the project", path, code="path-refused")


def _write_journal(journal: Path, state: str, what: str, root: Path, pairs) -> None:
    import json  # json only when several files are written together

    files = [[str(t.relative_to(root)), str(p.relative_to(root))] for t, p in pairs]
    data = {"pnp": "write-together", "state": state, "what": what, "files": files}
    write_bytes(journal, json.dumps(data, ensure_ascii=False, indent=1).encode())
    _sync_folders([journal.parent])


def _read_journal(journal: Path, root: Path) -> tuple[str, str, list[tuple[Path, Path]]]:
    """The journal's state, description and (temporary, file) pairs, each proven to be a
    temporary this module names beside a file inside the project; else a located error."""
    import json  # json only when several files are written together

    def bad(why: str) -> ContentError:
        return ContentError(
            f"not a journal pnp can finish ({why}); nothing was moved",
            journal,
            code="path-refused",
            hint="if no pnp command was cut short here, delete the file",
        )

    info = os.lstat(journal)
    if not stat.S_ISREG(info.st_mode) or info.st_size > 1 << 20:
        raise bad("not a small regular file")
    try:
        data = json.loads(journal.read_bytes())
    except (ValueError, OSError) as exc:
        raise bad(str(exc)) from None
    if not isinstance(data, dict) or data.get("pnp") != "write-together":
        raise bad("unknown format")
    state, what, files = data.get("state"), data.get("what"), data.get("files")
    if state not in ("prepared", "committed") or not isinstance(what, str):
        raise bad("unknown state")
    if not isinstance(files, list):
        raise bad("no file list")
    pairs = []
    for entry in files:
        if not (
            isinstance(entry, list) and len(entry) == 2 and all(isinstance(e, str) for e in entry)
        ):
            raise bad("a malformed entry")
        tmp, path = (root / e for e in entry)
        parts = Path(entry[0]).parts + Path(entry[1]).parts
        if Path(entry[0]).is_absolute() or Path(entry[1]).is_absolute() or ".." in parts:
            raise bad(f"{entry[1]} is not inside the project")
        if tmp.parent != path.parent or not (
            is_temporary(tmp) and tmp.name.startswith(f".{path.name}{TEMP_MARK}")
        ):
            raise bad(f"{entry[0]} is not a temporary of {entry[1]}")
        real = os.path.realpath(path.parent)
        if os.path.commonpath([str(root), real]) != str(root):
            raise bad(f"{entry[1]} resolves outside the project")
        if os.path.lexists(tmp) and not stat.S_ISREG(os.lstat(tmp).st_mode):
            raise bad(f"{entry[0]} is not a regular file")
        pairs.append((tmp, path))
    return state, " ".join(what.split())[:200], pairs


def _sync_folders(folders) -> None:
    """Flush folders' entries (the renames in them) to disk, each once."""
    for folder in dict.fromkeys(str(f) for f in folders):
        try:
            fd = os.open(folder, os.O_RDONLY)
        except OSError:
            continue
        try:
            os.fsync(fd)
        except OSError:
            pass  # some file systems cannot flush a folder; the rename is still atomic
        finally:
            os.close(fd)

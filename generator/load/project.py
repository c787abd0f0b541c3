"""Where things live: the project root, games, templates, fonts and output; safe paths."""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from generator import session
from generator.cache import store
from generator.errors import ContentError
from generator.limits import LIMITS, exceeded

# Real paths of the projects in use: every file pnp reads must resolve inside one of them.
_ROOTS: set[str] = set()


def _defaults_dir() -> Path:
    """pnp's own templates (fonts, languages, rulebook and guide templates, sizes, printers, the
    starter): `generator/defaults/` in an installed wheel (package data copied from the
    repository's templates/ at build time, see setup.py), else the source checkout's templates/."""
    package = Path(__file__).resolve().parents[1]
    installed = package / "defaults"
    return installed if (installed / "paper.yaml").is_file() else package.parent / "templates"


DEFAULTS = _defaults_dir()
_ROOTS.add(os.path.realpath(DEFAULTS))

# What marks a project's root folder: a pnp.toml (made by `pnp init`), or content/ beside
# templates/ (this repository's layout, and projects made before pnp.toml existed).
PROJECT_FILE = "pnp.toml"


@dataclass(frozen=True)
class Project:
    root: Path

    def __post_init__(self) -> None:
        # One project, one root: a relative root ("." from a script or a test) would be kept
        # in the model cache under the resolved path that keys it, and a later load by the
        # absolute path would get a model whose paths depend on the working folder.
        object.__setattr__(self, "root", Path(self.root).resolve())
        # The project is its folder, plus wherever its templates/ really is (a designer may
        # share one template library between projects with a symlinked templates/ folder).
        _ROOTS.add(os.path.realpath(self.root))
        _ROOTS.add(os.path.realpath(self.root / "templates"))

    @property
    def content(self) -> Path:
        return self.root / "content"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def layouts(self) -> Path:
        return self.templates / "layouts"

    @property
    def fonts(self) -> Path:
        """The project's fonts folder when it has one, else pnp's. Its fonts.yaml and each font
        file it names fall back on pnp's own, file by file (render/fonts.py: font_spec,
        font_file)."""
        own = self.templates / "fonts"
        return own if own.is_dir() else DEFAULTS / "fonts"

    @property
    def font_dirs(self) -> list[Path]:
        """Where font files are found, the project's own first."""
        return self.template_dirs("fonts")

    @property
    def defaults(self) -> Path:
        """pnp's own templates, which the project's templates/ overrides file by file."""
        return DEFAULTS

    @property
    def own_defaults(self) -> bool:
        """Whether the project's templates/ is pnp's defaults folder (this repository)."""
        return os.path.realpath(self.templates) == os.path.realpath(DEFAULTS)

    def template(self, relative: str) -> Path:
        """A template file: the project's own templates/<relative> when it exists, else pnp's
        default (which may not exist either: the reader reports it)."""
        own = self.templates / relative
        return own if own.exists() else DEFAULTS / relative

    def template_dirs(self, relative: str = "") -> list[Path]:
        """The folders a template is looked up in, the project's own first (existing ones)."""
        out: list[Path] = []
        for base in (self.templates, DEFAULTS):
            folder = base / relative if relative else base
            if folder.is_dir() and all(folder.resolve() != o.resolve() for o in out):
                out.append(folder)
        return out

    def template_dir(self, relative: str) -> Path:
        """A template folder used as a whole (the starter): the project's own if it has one."""
        own = self.templates / relative
        return own if own.is_dir() else DEFAULTS / relative

    @property
    def output(self) -> Path:
        return self.root / "output"

    def game_dir(self, game_id: str) -> Path:
        return self.content / game_id

    def game_ids(self) -> list[str]:
        if not self.content.is_dir():
            return []
        return sorted(p.name for p in self.content.iterdir() if (p / "game.yaml").is_file())


def is_project(folder: Path) -> bool:
    """A project's root: a pnp.toml, or content/ beside templates/ (this repository)."""
    return (folder / PROJECT_FILE).is_file() or (
        (folder / "content").is_dir() and (folder / "templates").is_dir()
    )


def find_project(start: Path | None = None) -> Project:
    """The nearest folder upwards holding a pnp.toml, or `content/` and `templates/`; or
    $PNP_ROOT when set."""
    env = os.environ.get("PNP_ROOT")
    if env:
        return Project(Path(env).resolve())
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_project(folder):
            return Project(folder)
    raise ContentError(
        "no pnp project here (no pnp.toml in this folder or above it)",
        here,
        hint="run `pnp init` to make one here, run pnp inside a project, or set PNP_ROOT",
        code="no-project",
    )


def inside(
    base: Path,
    relative: str,
    *,
    what: str,
    file=None,
    line=None,
    key=None,
    also: tuple[Path, ...] = (),
) -> Path:
    """Resolve `relative` under `base`, refusing absolute paths, `..` and escaping symlinks."""
    known = session.current().cache("project.inside")  # art is named once per face
    found = known.get((base, relative, also))
    if found is not None:
        return found
    where = dict(file=file, line=line, key=key)
    refused = refusal(relative, what=what, **where)
    if refused is not None:
        raise refused
    path = base / relative
    if not _contained(path, (base, *also)):
        resolved = path.resolve()
        raise ContentError(
            f"{what} path '{relative}' resolves outside the project "
            f"(a symlink to {resolved}); refused",
            code="path-refused",
            **where,
        )
    known[(base, relative, also)] = path
    return path


def refusal(relative: str, *, what: str, file=None, line=None, key=None) -> ContentError | None:
    """Why `relative` may never name a file of the game (empty, a URL, absolute, or with `..`),
    read from the text alone; None when it may (it must still be inside: `inside`)."""
    where = dict(file=file, line=line, key=key)
    if not relative or "\x00" in relative:
        return ContentError(f"empty or invalid {what} path", code="bad-path", **where)
    if "://" in relative or relative.startswith(("file:", "http:", "https:", "data:")):
        return ContentError(
            f"{what} path '{relative}' is a URL; refused",
            code="path-refused",
            hint="use a file inside the game folder",
            **where,
        )
    if os.path.isabs(relative) or relative.startswith("~"):
        return ContentError(
            f"{what} path '{relative}' is absolute; refused",
            code="path-refused",
            hint="use a path relative to the game folder",
            **where,
        )
    if ".." in Path(relative).parts:
        return ContentError(
            f"{what} path '{relative}' leaves the game folder ('..'); refused",
            code="path-refused",
            hint="keep art inside the game folder",
            **where,
        )
    return None


@session.cached
def _contained(path: Path, bases: tuple[Path, ...]) -> bool:
    """Whether `path`, symlinks followed, stays inside one of `bases` (cached: art repeats)."""
    resolved = path.resolve()
    allowed = [b.resolve() for b in bases]
    return any(resolved == a or a in resolved.parents for a in allowed)


def _within_a_project(real: str) -> bool:
    """Whether the absolute, normalised path `real` is one of _ROOTS or under one: its own
    folders looked up one by one (a few set lookups, however many projects a long-lived process
    such as a watch loop or a test run has opened)."""
    path = real
    while path not in _ROOTS:
        parent = os.path.dirname(path)
        if parent == path:
            return False
        path = parent
    return True


def _escapes(path: Path, real: str) -> bool:
    """A path inside a project whose real location (symlinks followed) is outside every one.
    (A path named outside any project, by a library caller, is that caller's business.)"""
    return _within_a_project(os.path.abspath(path)) and not _within_a_project(real)


def read_bytes(path: Path, limit: int, what: str = "file") -> bytes:
    """The bytes of a content file, read safely: its real path (symlinks followed) must be inside
    the project, it must be a regular file (never a FIFO, device or directory), and at most
    `limit` bytes. Opening never blocks, and the size is checked before anything is read."""
    fd, _ = _open_checked(path, limit, what)
    try:
        chunks, size = [], 0
        while size <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    continue
                raise ContentError(
                    f"{what} cannot be read ({exc.strerror})", path, code="unreadable"
                ) from None
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:  # it grew while we read it
            raise exceeded(f"{what} size", f"over {limit:,} bytes", f"{limit:,}", file=path)
        return b"".join(chunks)
    finally:
        os.close(fd)


def file_digest(path: Path, limit: int, what: str = "file") -> str:
    """The sha256 of a content file's bytes, with read_bytes's checks (the same errors), read
    once per state of the file (big_digest): a font a command may never draw with is vouched
    for without reading its megabytes."""
    fd, info = _open_checked(path, limit, what)
    os.close(fd)
    return big_digest(path, info)


def _open_checked(path: Path, limit: int, what: str) -> tuple[int, os.stat_result]:
    """read_bytes's checks: an open descriptor of a regular file inside the project, at most
    `limit` bytes, and its status; or the located error."""
    real = os.path.realpath(path)
    if _escapes(path, real):
        raise ContentError(
            f"{what} resolves outside the project (a symlink to {real}); refused",
            path,
            code="path-refused",
            hint="keep every file the game uses inside the project folder",
        )
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise ContentError(f"{what} not found", path, code="missing-file") from None
    except PermissionError:
        raise ContentError(
            f"{what} cannot be read (permission denied)",
            path,
            hint="check the file's permissions",
            code="unreadable",
        ) from None
    except OSError as exc:
        raise ContentError(
            f"{what} cannot be opened ({exc.strerror or exc})", path, code="unreadable"
        ) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise ContentError(f"{what} is a directory, expected a file", path, code="not-a-file")
        if not stat.S_ISREG(info.st_mode):
            kind = "a FIFO" if stat.S_ISFIFO(info.st_mode) else "a device or socket"
            raise ContentError(
                f"{what} is {kind}, not a regular file; refused", path, code="not-a-file"
            )
        if info.st_size > limit:
            raise exceeded(f"{what} size", f"{info.st_size:,} bytes", f"{limit:,}", file=path)
    except BaseException:
        os.close(fd)
        raise
    return fd, info


# Kinds of file a build can use; anything else in a game folder (notes, archives, a stray video)
# is neither read nor hashed.
USED_SUFFIXES = frozenset(
    {".yaml", ".yml", ".md", ".svg", ".png", ".jpg", ".jpeg", ".ttf", ".css", ".html", ".json"}
    | {".csv", ".xlsx", ".xlsm", ".xls", ".ods"}  # items from a spreadsheet (load/sheets.py)
)


def hash_into(h, path: Path, *, name: bool = True) -> None:
    """Add one input file to a build hash without trusting it: a symlink out of the project, a
    FIFO or a device adds a marker instead of its bytes (it never blocks or fills memory), and a
    file bigger than the hashing budget adds its size and time instead of being read."""
    if name:
        h.update(str(path).encode())
    real = os.path.realpath(path)
    if _escapes(path, real):
        h.update(b"<outside>")
        return
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        h.update(b"<missing>")
        return
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            h.update(b"<not-a-file>")
        elif info.st_size > LIMITS.files.hashed_bytes:
            h.update(f"<{info.st_size}:{info.st_mtime_ns}>".encode())
        else:
            with os.fdopen(os.dup(fd), "rb") as fh:
                while chunk := fh.read(1 << 20):
                    h.update(chunk)
    except OSError:
        h.update(b"<unreadable>")
    finally:
        os.close(fd)


BIG_INPUT = 512 * 1024  # bytes: a larger input (a font, art) is hashed once per file state


def digest_tree(h, root: Path) -> None:
    """Add every file under `root` that a build can read to the hash `h`: its path in the
    folder, its size, and its content. A big file's content digest is kept (big_digest) under
    its inode, size, modification time and change time: an edit that restores size and mtime
    still changes the ctime. Never a FIFO, a device or a symlink out (hash_into)."""
    top = str(root) + os.sep
    real_top = os.path.join(os.path.realpath(root), "")
    for path in used_files(root):
        name = str(path)
        try:
            info = os.lstat(name)
            # The walk enters no symlinked folder, so a file that is no symlink itself is where
            # the real root puts it: no component-by-component realpath per file.
            real = real_top + name[len(top) :] if name.startswith(top) else None
            if stat.S_ISLNK(info.st_mode):
                info, real = path.stat(), None  # followed: its target's size and state
        except OSError:
            continue
        h.update(f"\0{path.relative_to(root)}\0{info.st_size}\0".encode())
        if info.st_size > BIG_INPUT:
            h.update(big_digest(path, info).encode())
        else:
            h.update(_small_digest(path, info, real))


# The content digests of small inputs by file state, for this process: a watch loop or a test
# run hashes pnp's templates and an unchanged game for each command otherwise.
_SMALL_DIGESTS: dict[tuple, bytes] = {}


def _small_digest(path: Path, info: os.stat_result, real: str | None = None) -> bytes:
    """hash_into's digest of a small input, read once per state of the file (see big_digest: an
    edit changes the ctime, which cannot be set back). A symlink out of the project or a file
    that is not regular is not kept: its marker is worked out each time. `real`: the file's
    real path when the caller knows it."""
    if real is None:
        real = os.path.realpath(path)
    state = (real, info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    kept = _SMALL_DIGESTS.get(state)
    if kept is not None and not _escapes(path, real):
        return kept
    sub = hashlib.sha256()
    hash_into(sub, path, name=False)
    digest = sub.digest()
    if stat.S_ISREG(info.st_mode) and not _escapes(path, real):
        if len(_SMALL_DIGESTS) > 100_000:  # bounded: a long-running process over many projects
            _SMALL_DIGESTS.clear()
        _SMALL_DIGESTS[state] = digest
    return digest


_BIG_DIGESTS: dict[str, str] = {}


def big_digest(path: Path, info: os.stat_result) -> str:
    """The content digest of a big file, read once per state of the file: kept in this process
    and in the user's cache folder (never in the project) under device, inode, size, mtime and
    ctime. ctime cannot be set back by a user (touch -d, os.utime change it), so a kept digest
    is of these very bytes."""
    state = (
        f"{os.path.realpath(path)}\0{info.st_dev}\0{info.st_ino}\0{info.st_size}\0"
        f"{info.st_mtime_ns}\0{info.st_ctime_ns}"
    )
    name = hashlib.sha256(state.encode()).hexdigest()[:40]
    if name in _BIG_DIGESTS:
        return _BIG_DIGESTS[name]
    kept = store.entry("content", name)
    raw = store.read(kept)  # one cache store: its key scheme and eviction rule (cache/store.py)
    text = raw.decode("ascii", "replace") if raw is not None else ""
    if len(text) != 64 or not all(c in "0123456789abcdef" for c in text):
        fresh = hashlib.sha256()
        hash_into(fresh, path, name=False)
        text = fresh.hexdigest()
        store.write("content", kept, text.encode("ascii"))
    _BIG_DIGESTS[name] = text
    return text


def used_files(folder: Path) -> list[Path]:
    """The files under `folder` a build may read (by kind), without following symlinked folders."""
    if not folder.is_dir():
        return []
    out = []
    for dirpath, dirnames, filenames in os.walk(folder):  # os.walk does not enter symlinked dirs
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        for name in sorted(filenames):
            if Path(name).suffix.lower() in USED_SUFFIXES:
                out.append(Path(dirpath) / name)
    return out

"""Where things live: the project root, games, templates, fonts and output; safe paths."""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from generator import session
from generator.errors import ContentError


@dataclass(frozen=True)
class Project:
    root: Path

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
        return self.templates / "fonts"

    @property
    def output(self) -> Path:
        return self.root / "output"

    def game_dir(self, game_id: str) -> Path:
        return self.content / game_id

    def game_ids(self) -> list[str]:
        if not self.content.is_dir():
            return []
        return sorted(p.name for p in self.content.iterdir() if (p / "game.yaml").is_file())


def find_project(start: Path | None = None) -> Project:
    """The nearest folder upwards holding `content/` and `templates/` (or $PNP_ROOT)."""
    env = os.environ.get("PNP_ROOT")
    if env:
        return Project(Path(env).resolve())
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "content").is_dir() and (folder / "templates").is_dir():
            return Project(folder)
    raise ContentError(
        "no pnp project here (a folder with content/ and templates/)",
        here,
        hint="run pnp inside the project or set PNP_ROOT",
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
    where = dict(file=file, line=line, key=key)
    if not relative or "\x00" in relative:
        raise ContentError(f"empty or invalid {what} path", code="bad-path", **where)
    if "://" in relative or relative.startswith(("file:", "http:", "https:", "data:")):
        raise ContentError(
            f"{what} path '{relative}' is a URL; refused",
            code="path-refused",
            hint="use a file inside the game folder",
            **where,
        )
    if os.path.isabs(relative) or relative.startswith("~"):
        raise ContentError(
            f"{what} path '{relative}' is absolute; refused",
            code="path-refused",
            hint="use a path relative to the game folder",
            **where,
        )
    if ".." in Path(relative).parts:
        raise ContentError(
            f"{what} path '{relative}' leaves the game folder ('..'); refused",
            code="path-refused",
            hint="keep art inside the game folder",
            **where,
        )
    path = base / relative
    if not _contained(path, (base, *also)):
        resolved = path.resolve()
        raise ContentError(
            f"{what} path '{relative}' resolves outside the project "
            f"(a symlink to {resolved}); refused",
            code="path-refused",
            **where,
        )
    return path


@session.cached
def code_digest() -> str:
    """A digest of pnp's own code, every module of the package: what it made is remade when
    the code changes (no list of modules to keep up to date)."""
    h = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        h.update(str(path.relative_to(package)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()


@session.cached
def _contained(path: Path, bases: tuple[Path, ...]) -> bool:
    """Whether `path`, symlinks followed, stays inside one of `bases` (cached: art repeats)."""
    resolved = path.resolve()
    allowed = [b.resolve() for b in bases]
    return any(resolved == a or a in resolved.parents for a in allowed)

"""`pnp init [DIR]`: a project of one's own; `pnp templates list|eject`: pnp's defaults.

A project is a folder with a `pnp.toml` (its name), `content/` (one folder per game), a
`.gitignore` that keeps `output/` out of version control and a README for the designer. It
needs no `templates/`: pnp carries its defaults (fonts, languages, rulebook and guide
templates, sizes, printer presets, the starter, the shared layouts) and a project's own
`templates/` overrides them file by file. `pnp templates eject NAME` copies one default there
for the designer to change.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from pathlib import Path

from generator.errors import ContentError
from generator.load.project import DEFAULTS, PROJECT_FILE, Project, is_project

README = """\
# {name}

A print-and-play project made with [pnp](https://pypi.org/project/pnp/).

## Where things are
- `content/<game>/`: one folder per game: `game.yaml` (title, languages), `components/`
  (one file per deck, board or token sheet; `items:` may name a spreadsheet, e.g.
  `items: cards.csv`), `layouts/` (how a face looks), `rules/<lang>.md` (the rulebook),
  `art/` (your pictures).
- `templates/` (optional): your own versions of pnp's defaults. `pnp templates list` shows
  them; `pnp templates eject rulebook/rulebook.css` copies one here for you to change.
- `output/`: what pnp builds (not kept in version control).

## Commands
- `pnp new GAME --langs en,es`: start a game from a working starter.
- `pnp import-sheet cards.xlsx --game GAME`: a component whose cards come from a spreadsheet.
- `pnp check`: find problems without building.
- `pnp print`: build every game into `output/<game>/`.
- `pnp preview GAME`, `pnp watch GAME`: see every face; rebuild on each save.

pnp finds this project from any folder below this one (it looks for `pnp.toml`).
"""

GITIGNORE_LINE = "/output/"
GITIGNORE = f"# what pnp builds, and its lock while it builds\n{GITIGNORE_LINE}\n/.pnp.lock\n"
NAME_OK = re.compile(r"[^\x00-\x1f\x7f\"\\]{1,80}")


def _toml_text(name: str) -> str:
    return (
        "# A pnp project: pnp finds this file from any folder below it.\n"
        "[project]\n"
        f'name = "{name}"\n'
    )


def init_project(folder: Path, name: str | None = None) -> tuple[Project, list[str]]:
    """Make `folder` a project (creating it if needed). Never overwrites a file: an existing
    README.md stays, an existing .gitignore gets the output line appended if it lacks it.
    Returns the project and what was written, for the user."""
    folder = folder.absolute()
    if (folder / PROJECT_FILE).exists():
        raise ContentError(
            "already a pnp project",
            folder / PROJECT_FILE,
            code="usage",
            hint="start a game in it with `pnp new GAME`",
        )
    if folder.exists() and not folder.is_dir():
        raise ContentError("not a folder", folder, code="usage")
    for above in folder.parents:
        if is_project(above):
            raise ContentError(
                f"inside the pnp project {above}",
                folder,
                code="usage",
                hint="a project inside another would hide its games from it; use `pnp new` "
                "there, or choose a folder outside it",
            )
    name = name if name is not None else (folder.name or "my games")
    if not NAME_OK.fullmatch(name):
        raise ContentError(
            f"project name {name!r} cannot be used",
            code="usage",
            hint="up to 80 characters, no quotes, backslashes or control characters",
        )
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    (folder / "content").mkdir(exist_ok=True)
    written.append("content/")
    _write_new(folder / PROJECT_FILE, _toml_text(name))
    written.append(PROJECT_FILE)
    gitignore = folder / ".gitignore"
    if not gitignore.exists():
        _write_new(gitignore, GITIGNORE)
        written.append(".gitignore")
    elif gitignore.is_file():
        text = gitignore.read_text(encoding="utf-8", errors="replace")
        lines = {line.strip() for line in text.splitlines()}
        if not lines & {GITIGNORE_LINE, "output/", "/output", "output"}:
            with gitignore.open("a", encoding="utf-8") as fh:
                fh.write(("" if text.endswith("\n") or not text else "\n") + GITIGNORE_LINE + "\n")
            written.append(".gitignore (output/ added)")
    readme = folder / "README.md"
    if not readme.exists():
        _write_new(readme, README.format(name=name))
        written.append("README.md")
    return Project(folder), written


def _write_new(path: Path, text: str) -> None:
    """Write a file that must not exist yet (mode "x": never replaces one, not even a FIFO)."""
    with path.open("x", encoding="utf-8") as fh:
        fh.write(text)


def default_files() -> list[str]:
    """Every default a project may override, as paths relative to templates/."""
    out = []
    for path in sorted(DEFAULTS.rglob("*")):
        rel = path.relative_to(DEFAULTS)
        if path.is_dir() or "__pycache__" in rel.parts or path.suffix == ".pyc":
            continue
        if rel.parts[0] == "layouts" and (len(rel.parts) < 3 or rel.parts[1] != "base"):
            continue  # this repository's games' layouts are not defaults (setup.py)
        out.append(rel.as_posix())
    return out


def list_templates(project: Project) -> list[tuple[str, bool]]:
    """(default, whether the project overrides it)."""
    own = not project.own_defaults
    return [(rel, own and (project.templates / rel).is_file()) for rel in default_files()]


def eject(project: Project, name: str, force: bool = False) -> list[Path]:
    """Copy one default (a file, or every file of a default folder) into the project's
    templates/. `name` is a path as `pnp templates list` shows it, or a file name that only one
    default has (`rulebook.css`). Refuses to replace a file unless `force`."""
    if project.own_defaults:
        raise ContentError(
            "this project's templates/ are pnp's defaults already",
            project.templates,
            code="usage",
            hint="edit the file in templates/ directly",
        )
    chosen = _resolve(name)
    written = []
    for rel in chosen:
        target = project.templates / rel
        if target.exists() and not force:
            raise ContentError(
                "exists already",
                target,
                code="usage",
                hint="it is your copy: edit it, or pass --force to replace it with pnp's",
            )
    for rel in chosen:
        target = project.templates / rel
        if target.is_symlink() or (target.exists() and not target.is_file()):
            raise ContentError("not a regular file; refused", target, code="usage")
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
        os.close(fd)
        try:
            shutil.copyfile(DEFAULTS / rel, tmp)
            os.replace(tmp, target)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        written.append(target)
    return written


def _resolve(name: str) -> list[str]:
    files = default_files()
    clean = name.strip().strip("/").replace("\\", "/")
    if clean.startswith("templates/"):
        clean = clean[len("templates/") :]
    if not clean or ".." in clean.split("/"):
        raise ContentError(f"'{name}' is not a template name", code="usage")
    if clean in files:
        return [clean]
    inside = [f for f in files if f.startswith(clean + "/")]
    if inside:
        return inside
    by_name = [f for f in files if f.rsplit("/", 1)[-1] == clean]
    if len(by_name) == 1:
        return by_name
    import difflib

    if by_name:
        hint = "which one? " + ", ".join(by_name)
    else:
        close = difflib.get_close_matches(clean, files, n=3)
        hint = (f"did you mean {', '.join(close)}? " if close else "") + (
            "`pnp templates list` shows them all"
        )
    raise ContentError(f"no default template '{name}'", code="usage", hint=hint)

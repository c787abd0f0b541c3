"""What a build target reads, as a digest: its key changes only when its inputs change.

A component PDF in one language reads that language's strings (game.yaml and its component file,
each cut down to that language), the layouts it resolves (with their `extends` and the layouts
its repeat boxes draw), the game's art and data files, the fonts and the paper and card sizes.
A rulebook reads its own languages' rules and strings, every layout and component (its figures),
the manifest (counts) and the rulebook templates. So an English edit rebuilds the English
outputs and the editions that include English, nothing else.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from generator import session
from generator.errors import ContentError
from generator.load.content import ComponentSpec, GameContent
from generator.load.layouts import game_store
from generator.load.project import Project, hash_into, used_files
from generator.load.strings_digest import strings_of

_YAML_SUFFIXES = (".yaml", ".yml")
_GAME_FILES = ("game.yaml", "manifest.yaml", "glossary.yaml", "accepted.yaml")


def _file_digest(h, path: Path) -> None:
    h.update(b"\0" + str(path).encode() + b"\0")
    hash_into(h, path, name=False)  # streamed; no FIFO, device or symlink out of the project


def _template_digest(h, name: str, path: Path) -> None:
    """A template by its name under templates/, not where it is: a project's copy of one of
    pnp's defaults (`pnp templates eject`) is the same input until it is edited."""
    h.update(b"\0template:" + name.encode() + b"\0")
    hash_into(h, path, name=False)


def _templates_digest(h, project, folder: str) -> None:
    """Every file of a templates/ folder as a build reads it: the project's file where it has
    one, else pnp's (fonts: the fonts.yaml in use, and every font file it may name)."""
    chosen: dict[str, Path] = {}
    for base in project.template_dirs(folder):
        for path in _files(base):
            chosen.setdefault(path.relative_to(base).as_posix(), path)
    for rel, path in sorted(chosen.items()):
        _template_digest(h, f"{folder}/{rel}", path)


def _strings_digest(h, path: Path, langs: tuple[str, ...], languages: tuple[str, ...]) -> None:
    h.update(b"\0" + str(path).encode() + b"\0")
    h.update(strings_of(path, langs, languages).encode())


def _files(folder: Path) -> list[Path]:
    return used_files(folder)  # only kinds of file a build can read


def resolved_layouts(content: GameContent, comps: list[ComponentSpec]) -> list[Path]:
    """The layout files the components' faces resolve: their chains and repeat sub-layouts."""
    layouts = game_store(content.project, content.dir)
    names: set[str] = set()
    for comp in comps:
        for item in comp.items:
            names.update(n for n in (item.layout, item.back) if n)
    files: set[Path] = set()
    pending = sorted(names)
    seen: set[str] = set()
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            layout = layouts.get(name)
        except ContentError:
            files.add(layouts.path(name))  # its error is the checker's; the key still moves
            continue
        files.update(layouts.files_of.get(name, []))
        pending += [n for b in layout.boxes if (n := b.nested_layout())]
    return sorted(files)


def _world(content: GameContent, h) -> None:
    """What every output of the game reads whatever its language: art, data, fonts, sizes."""
    h.update(b"\0world:" + _world_digest(content.project, content.dir))


@session.cached
def _world_digest(project: Project, game_dir: Path) -> bytes:
    """_world's files hashed once per command (every component in every language and every
    rulebook edition reads them: the fonts alone are megabytes, read and hashed again for each
    of a game's dozens of targets otherwise)."""
    h = hashlib.sha256()
    for name in ("paper.yaml", "card-sizes.yaml"):
        _template_digest(h, name, project.template(name))
    _templates_digest(h, project, "fonts")
    for path in _files(game_dir):
        rel = path.relative_to(game_dir)
        if rel.parts[0] in ("components", "rules") or (
            len(rel.parts) == 1 and rel.name in _GAME_FILES
        ):
            continue  # read per language below, or not read by this output
        if rel.parts[0] in ("layouts",) and path.suffix in _YAML_SUFFIXES:
            continue  # layouts count only when resolved
        _file_digest(h, path)
    return h.digest()


def check_key(content: GameContent) -> str:
    """Digest of every file of the game folder: with its targets' keys, what `pnp check` read
    (the manifest, accepted.yaml, the glossary and the rules count even with no rulebook)."""
    h = hashlib.sha256()
    for path in _files(content.dir):
        _file_digest(h, path)
    return h.hexdigest()


def component_key(content: GameContent, comp: ComponentSpec, lang: str, extra: str) -> str:
    """Digest of what one component's outputs in `lang` read (`extra`: code, options...)."""
    h = hashlib.sha256(extra.encode())
    langs, languages = (lang,), content.languages
    _world(content, h)
    _strings_digest(h, content.dir / "game.yaml", langs, languages)
    _strings_digest(h, comp.file, langs, languages)
    if comp.sheet is not None:  # its items (every language's columns: one file)
        _file_digest(h, comp.sheet)
    for path in resolved_layouts(content, [comp]):
        _file_digest(h, path)
    return h.hexdigest()


def rulebook_key(content: GameContent, langs: tuple[str, ...], extra: str) -> str:
    """Digest of what a rulebook edition in `langs` reads (figures draw any component)."""
    h = hashlib.sha256(extra.encode())
    languages = content.languages
    _world(content, h)
    for name in ("game.yaml", "manifest.yaml", "glossary.yaml"):
        _strings_digest(h, content.dir / name, langs, languages)
    for comp in content.components:
        _strings_digest(h, comp.file, langs, languages)
        if comp.sheet is not None:
            _file_digest(h, comp.sheet)
    for path in resolved_layouts(content, list(content.components)):
        _file_digest(h, path)
    rules = content.dir / "rules"
    for path in _files(rules):
        if path.suffix == ".md" and path.stem not in langs:
            continue  # another language's rulebook
        _file_digest(h, path)
    _templates_digest(h, content.project, "rulebook")
    return h.hexdigest()

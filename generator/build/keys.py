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
import json
import re
from pathlib import Path
from typing import Any

import yaml

from generator import session
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load.content import ComponentSpec, GameContent
from generator.load.project import hash_into, read_bytes, used_files

_LANG = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]+)?\Z")  # keys of a per-language mapping
_YAML_SUFFIXES = (".yaml", ".yml")
_GAME_FILES = ("game.yaml", "manifest.yaml", "glossary.yaml", "accepted.yaml")


def project_langs(value: Any, langs: tuple[str, ...], languages: tuple[str, ...]) -> Any:
    """`value` as seen by outputs in `langs`: per-language mappings keep only those languages.

    The same rule as the templates' (templating.localize): a mapping is per-language text when
    all its keys look like language codes and one is a language of the game.
    """
    if isinstance(value, dict):
        keys = list(value)
        if (
            keys
            and all(isinstance(k, str) and _LANG.match(k) for k in keys)
            and any(k in languages for k in keys)
        ):
            if all(lang in value for lang in langs):
                return {lang: project_langs(value[lang], langs, languages) for lang in langs}
            return value  # a language is missing: the output's error depends on all of it
        return {str(k): project_langs(v, langs, languages) for k, v in value.items()}
    if isinstance(value, list):
        return [project_langs(v, langs, languages) for v in value]
    return value


def _yaml(path: Path) -> Any:
    """The file's data, parsed once per command and state of the file (every language's key
    of a component reads the same component file)."""
    try:
        stat = path.stat()
    except OSError:
        return "<unreadable>"
    return _parsed(path, stat.st_size, stat.st_mtime_ns)


@session.cached
def _parsed(path: Path, size: int, mtime_ns: int) -> Any:
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:  # the one safe reader: inside the project, a regular file, under the size cap
        return yaml.load(read_bytes(path, LIMITS.files.text_bytes), Loader=loader)
    except (ContentError, yaml.YAMLError, ValueError, RecursionError):
        return "<unreadable>"  # loading already failed with a located error, or will


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
    h.update(_strings_of(path, langs, languages).encode())


def _stored(path: Path, langs: tuple[str, ...], languages: tuple[str, ...]) -> Path | None:
    """Where the strings digest of `path` as seen in `langs` is kept (None: no cache)."""
    from generator.load import model_cache
    from generator.load.project import code_digest

    where = model_cache.beside("digests")
    if where is None:
        return None
    key_hash = hashlib.sha256(f"{code_digest()}\0{langs}\0{languages}\0".encode())
    hash_into(key_hash, path, name=False)
    # One entry per file and languages: a new version replaces the old one.
    owner = hashlib.sha256(f"{path.resolve()}\0{langs}".encode()).hexdigest()[:16]
    return where / f"{owner}-{key_hash.hexdigest()[:32]}"


def _digest_of(data: Any, langs: tuple[str, ...], languages: tuple[str, ...]) -> str:
    text = json.dumps(
        project_langs(data, langs, languages), sort_keys=True, default=str, ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _keep(stored: Path, digest: str) -> None:
    from generator import fsio

    try:
        for old in stored.parent.glob(stored.name.split("-")[0] + "-*"):
            old.unlink(missing_ok=True)
        fsio.write_bytes(stored, digest.encode())
    except OSError:
        pass  # a read-only home: no cache, same keys


def remember_strings(path: Path, data: Any, languages: tuple[str, ...]) -> None:
    """Called by the loader with a file's data just parsed: each language's digest is kept
    now, so planning the build does not parse the file a second time."""
    for lang in languages:
        stored = _stored(path, (lang,), languages)
        if stored is not None and not stored.exists():
            _keep(stored, _digest_of(data, (lang,), languages))


def _strings_of(path: Path, langs: tuple[str, ...], languages: tuple[str, ...]) -> str:
    """The digest of a YAML file's data as outputs in `langs` see it. Parsing a 10,000-item
    component file costs about a second, so the result is kept in the user's cache folder,
    keyed by the file's bytes, the languages and pnp's code (a pure function of them)."""
    stored = _stored(path, langs, languages)
    if stored is not None:
        try:
            known = stored.read_text()
            if len(known) == 64:
                return known
        except (OSError, UnicodeDecodeError):
            pass  # not there yet, or damaged: compute it
    digest = _digest_of(_yaml(path), langs, languages)
    if stored is not None:
        _keep(stored, digest)
    return digest


def _files(folder: Path) -> list[Path]:
    return used_files(folder)  # only kinds of file a build can read


def resolved_layouts(content: GameContent, comps: list[ComponentSpec]) -> list[Path]:
    """The layout files the components' faces resolve: their chains and repeat sub-layouts."""
    from generator.errors import ContentError
    from generator.load.layouts import game_store

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
        pending += [b.layout for b in layout.boxes if b.kind == "repeat" and b.layout]
    return sorted(files)


def _world(content: GameContent, h) -> None:
    """What every output of the game reads whatever its language: art, data, fonts, sizes."""
    project = content.project
    for name in ("paper.yaml", "card-sizes.yaml"):
        _template_digest(h, name, project.template(name))
    _templates_digest(h, project, "fonts")
    for path in _files(content.dir):
        rel = path.relative_to(content.dir)
        if rel.parts[0] in ("components", "rules") or (
            len(rel.parts) == 1 and rel.name in _GAME_FILES
        ):
            continue  # read per language below, or not read by this output
        if rel.parts[0] in ("layouts",) and path.suffix in _YAML_SUFFIXES:
            continue  # layouts count only when resolved
        _file_digest(h, path)


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

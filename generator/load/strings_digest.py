"""What a YAML file's strings are as the outputs of some languages see them, as a digest.

A component file feeds one PDF per language; an English edit must not rebuild the Spanish
sheets, so the build's keys (build/keys.py) hash each file's data cut down to the languages of
the output (`project_langs`). Parsing a 10,000-item component file costs about a second, so
each digest is kept in the user's cache folder (cache/store.py, `digests`), keyed by the file's
bytes, the languages and pnp's code, and the loader, which has just parsed the file, hands its
data over (`remember_strings`) so planning a build never parses it a second time.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import yaml

from generator import session
from generator.cache import store
from generator.cache.store import code_digest
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load.project import hash_into, read_bytes

_LANG = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]+)?\Z")  # keys of a per-language mapping


def project_langs(value: Any, langs: tuple[str, ...], languages: tuple[str, ...]) -> Any:
    """`value` as seen by outputs in `langs`: per-language mappings keep only those languages.

    The same rule as the templates' (templating.localize): a mapping is per-language text when
    all its keys look like language codes and one is a language of the game.
    """
    if isinstance(value, dict):
        keys = list(value)
        # a language of the game among the keys first: most mappings (an item, its data) have
        # none, and are known at once without matching each key
        if (
            keys
            and any(k in languages for k in keys)
            and all(isinstance(k, str) and _LANG.match(k) for k in keys)
        ):
            if all(lang in value for lang in langs):
                return {lang: project_langs(value[lang], langs, languages) for lang in langs}
            return value  # a language is missing: the output's error depends on all of it
        # a text (most values, and keys) is itself: no call for it (10,000 cards: 50 -> 33 ms)
        return {
            (k if k.__class__ is str else str(k)): (
                v if v.__class__ is str else project_langs(v, langs, languages)
            )
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [v if v.__class__ is str else project_langs(v, langs, languages) for v in value]
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


def _stored(path: Path, langs: tuple[str, ...], languages: tuple[str, ...]) -> Path | None:
    """Where the strings digest of `path` as seen in `langs` is kept (None: no cache)."""
    if store.folder("digests") is None:
        return None
    content = hashlib.sha256()
    hash_into(content, path, name=False)  # streamed; never a FIFO or a symlink out
    key = store.key(code_digest(), str(langs), str(languages), content.hexdigest())
    return store.entry("digests", key, owner=_owner(path, langs))


def _owner(path: Path, langs: tuple[str, ...]) -> str:
    """One entry per file and languages: a new version replaces the old one."""
    return store.key(str(path.resolve()), str(langs), length=16)


def _digest_of(data: Any, langs: tuple[str, ...], languages: tuple[str, ...]) -> str:
    text = json.dumps(
        project_langs(data, langs, languages), sort_keys=True, default=str, ensure_ascii=False
    )
    return hashlib.sha256(text.encode()).hexdigest()


def _keep(stored: Path, digest: str) -> None:
    store.write("digests", stored, digest.encode(), owner=stored.name.split("-")[0])


def remember_strings(path: Path, data: Any, languages: tuple[str, ...]) -> None:
    """Called by the loader with a file's data just parsed: each language's digest is kept
    now, so planning the build does not parse the file a second time."""
    for lang in languages:
        stored = _stored(path, (lang,), languages)
        if stored is not None and not stored.exists():
            _keep(stored, _digest_of(data, (lang,), languages))


def strings_of(path: Path, langs: tuple[str, ...], languages: tuple[str, ...]) -> str:
    """The digest of a YAML file's data as outputs in `langs` see it. Parsing a 10,000-item
    component file costs about a second, so the result is kept in the user's cache folder,
    keyed by the file's bytes, the languages and pnp's code (a pure function of them)."""
    stored = _stored(path, langs, languages)
    kept = store.read(stored)
    if kept is not None and len(kept) == 64 and kept.isascii():
        return kept.decode()  # else not there yet, or damaged: compute it
    digest = _digest_of(_yaml(path), langs, languages)
    if stored is not None:
        _keep(stored, digest)
    return digest

"""Parsed YAML files kept between commands, keyed by their text.

A warm `pnp check` takes each game's model from the model cache, yet still reads YAML of its own
every time (the glossary, rules/i18n-sync.yaml, accepted.yaml): parsing them, with every key's
line kept, costs ten times what reading the result back does. The parsed tree is a pure
function of the file's text, its path (each mapping names its file) and pnp's code, so it is
kept under a key of all three, one entry per file (an edited file replaces its entry). Only a
file that parsed cleanly is kept; whatever the check then does with it runs every time.

A reader may keep what it makes of a file's text likewise, under a name of its own (`what`):
the glossary and accepted.yaml keep their validated entries, whose validators would otherwise
be built in every process (20-40 ms each) only to accept the same file again.

The entries are the `yaml` kind of the user's cache folder (cache/store.py), never in the
project: a pickle is code, so a project must not be able to hand pnp one. `PNP_CACHE_DIR=off`
turns it off; an entry that cannot be read back is a miss.
"""

from __future__ import annotations

import hashlib
import pickle
from pathlib import Path
from typing import Any

from generator.cache import store

# Smaller files parse in well under a millisecond: reading an entry back would save nothing.
# (What a reader makes of a file is kept whatever its size: a validator costs the same.)
MIN_CHARS = 4096


def _worth_keeping(text: str, what: str) -> bool:
    return what != "yaml" or len(text) >= MIN_CHARS


def _entry(path: Path, text: str, what: str) -> tuple[Path | None, str]:
    """Where this text of `path` is kept, and the owner naming every entry of `path` (as read
    by `what`)."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    owner = store.key(what, str(path), length=16)
    key = store.key(store.code_digest(), what, str(path), digest)
    return store.entry("yaml", key, owner=owner, suffix=".pickle"), owner


def get(path: Path, text: str, what: str = "yaml") -> Any | None:
    """What `what` (load_yaml by default) made of this very text of `path` before, or None."""
    if not _worth_keeping(text, what):
        return None
    data = store.read(_entry(path, text, what)[0])
    if data is None:
        return None
    try:
        return pickle.loads(data)  # our own file, in the user's cache folder (see above)
    except Exception:  # truncated, or made by another pnp: parse afresh
        return None


def parsed_cleanly(path: Path, text: str) -> bool:
    """load_yaml parsed this very text of `path` without error before (its entry is here): the
    text is valid YAML, known without composing it again (a warm check's segments scan asks
    this of a 10,000-card file it only needs to know is valid and holds no per-language
    string)."""
    if not _worth_keeping(text, "yaml"):
        return False
    entry = _entry(path, text, "yaml")[0]
    if entry is None or not entry.is_file():
        return False
    store.used(entry)
    return True


def put(path: Path, text: str, parsed: Any, what: str = "yaml") -> None:
    """Keep what `what` made of `text` (a file it read without error)."""
    if not _worth_keeping(text, what) or parsed is None:
        return
    entry, owner = _entry(path, text, what)
    if entry is not None:
        data = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        store.write("yaml", entry, data, owner=owner)

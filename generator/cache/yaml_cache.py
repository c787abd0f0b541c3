"""Parsed YAML files kept between commands, keyed by their text.

A warm `pnp check` takes each game's model from the model cache, yet still reads YAML of its own
every time (the glossary, rules/i18n-sync.yaml, accepted.yaml): parsing them, with every key's
line kept, costs ten times what reading the result back does. The parsed tree is a pure
function of the file's text, its path (each mapping names its file) and pnp's code, so it is
kept under a key of all three, one entry per file (an edited file replaces its entry). Only a
file that parsed cleanly is kept; whatever the check then does with it runs every time.

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
MIN_CHARS = 4096


def _entry(path: Path, text: str) -> tuple[Path | None, str]:
    """Where this text of `path` is kept, and the owner naming every entry of `path`."""
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    owner = store.key(str(path), length=16)
    key = store.key(store.code_digest(), str(path), digest)
    return store.entry("yaml", key, owner=owner, suffix=".pickle"), owner


def get(path: Path, text: str) -> Any | None:
    """The data load_yaml made of this very text of `path` before, or None."""
    if len(text) < MIN_CHARS:
        return None
    data = store.read(_entry(path, text)[0])
    if data is None:
        return None
    try:
        return pickle.loads(data)  # our own file, in the user's cache folder (see above)
    except Exception:  # truncated, or made by another pnp: parse afresh
        return None


def put(path: Path, text: str, parsed: Any) -> None:
    """Keep what load_yaml made of `text` (a file that parsed cleanly)."""
    if len(text) < MIN_CHARS or parsed is None:
        return
    entry, owner = _entry(path, text)
    if entry is not None:
        data = pickle.dumps(parsed, protocol=pickle.HIGHEST_PROTOCOL)
        store.write("yaml", entry, data, owner=owner)

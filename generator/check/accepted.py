"""Findings a designer has reviewed and accepts: `content/<game>/accepted.yaml`.

    accepted:
      - code: rules-count                          # required: the finding's code
        message: "deck-a: rulebook says 56"        # optional: a part of its message
        file: rules/es.md                          # optional: the end of its path
        lang: es                                   # optional; also component, item, key
        id: 1f3a9c2e                               # optional: the id `pnp check` shows
        reason: the rules list 56 cards; we print the 60 of the card sheet      # required

An acceptance matches every finding of the game that has its code and all the other fields it
gives (message as a substring, file as a path suffix, the rest exactly). A matched finding is
still reported, marked accepted with the reason, and no longer counts as an error: `pnp print`
goes ahead. An acceptance that matches nothing is itself a warning (`accepted-unused`), so the
file does not keep excuses for problems that are gone.

A finding's id is a hash of its game, code, file and message (not its line, so it survives
edits elsewhere in the file).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pydantic import Field

from generator.cache import yaml_cache
from generator.errors import ContentError, Finding, rel
from generator.load.model import Strict
from generator.load.validation import validate
from generator.load.yamlload import YList, load_yaml, read_text

FILE = "accepted.yaml"
# Findings no acceptance can silence: printing them would fail or print wrong, not differ.
# A missing glyph would print from a system font (or as an empty box), so it stays an error.
NEVER_ACCEPTED = {"missing-glyph": "a missing glyph would print from a system font or as a box"}


class Acceptance(Strict):
    code: str = Field(min_length=1)
    reason: str = Field(min_length=3, description="why the difference is deliberate")
    message: str | None = None
    file: str | None = None
    lang: str | None = None
    component: str | None = None
    item: str | None = None
    key: str | None = None
    id: str | None = None


class AcceptedFile(Strict):
    accepted: list[Acceptance] = Field(default_factory=list)


@dataclass
class Loaded:
    path: Path
    entries: list[Acceptance]
    lines: list[int | None]


def finding_id(f: Finding) -> str:
    text = "\n".join([f.game or "", f.code, (f.file or "").replace("\\", "/"), f.message])
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def load(game_dir: Path) -> Loaded | None:
    path = game_dir / FILE
    if not path.exists():
        return None
    text = read_text(path)
    kept = yaml_cache.get(path, text, "accepted")  # validated before, from this very text
    if isinstance(kept, Loaded):
        return kept
    loaded = _validated(path)
    yaml_cache.put(path, text, loaded, "accepted")
    return loaded


def _validated(path: Path) -> Loaded:
    raw = load_yaml(path, allow_empty=True)
    if raw is None:
        return Loaded(path, [], [])
    data = validate(AcceptedFile, raw, path)
    items = raw.get("accepted") if isinstance(raw, dict) else None
    lines = [
        items.line_of(i) if isinstance(items, YList) else None for i in range(len(data.accepted))
    ]
    return Loaded(path, data.accepted, lines)


def matches(a: Acceptance, f: Finding) -> bool:
    if a.code != f.code:
        return False
    if a.id is not None and a.id != finding_id(f):
        return False
    if a.message is not None and a.message not in f.message:
        return False
    if a.file is not None:
        want = a.file.replace("\\", "/").strip("/")
        have = (f.file or "").replace("\\", "/")
        if not (have == want or have.endswith("/" + want)):
            return False
    for field in ("lang", "component", "item", "key"):
        value = getattr(a, field)
        if value is not None and value != getattr(f, field):
            return False
    return True


def apply(
    game_dir: Path, findings: list[Finding], root: Path | None = None, game: str | None = None
) -> list[Finding]:
    """Mark accepted findings; add a finding for a bad file and for each unused acceptance."""
    try:
        loaded = load(game_dir)
    except ContentError as exc:
        return [*findings, Finding.from_error(exc, game, code="accepted-bad", root=root)]
    if loaded is None:
        return findings
    used = [False] * len(loaded.entries)
    out = list(findings)
    for i, a in enumerate(loaded.entries):
        if a.code in NEVER_ACCEPTED:
            used[i] = True
            out.append(
                Finding(
                    "error",
                    "accepted-bad",
                    f"{a.code} cannot be accepted: {NEVER_ACCEPTED[a.code]}",
                    file=rel(loaded.path, root),
                    line=loaded.lines[i],
                    game=game,
                    hint="change the text, or add a face that has the characters "
                    "(templates/fonts/fonts.yaml, templates/languages/scripts.yaml)",
                )
            )
    for f in findings:
        for i, a in enumerate(loaded.entries):
            if a.code not in NEVER_ACCEPTED and matches(a, f):
                f.accepted = a.reason
                used[i] = True
                break
    for i, a in enumerate(loaded.entries):
        if not used[i]:
            what = f"'{a.message}'" if a.message else (f"id {a.id}" if a.id else "")
            out.append(
                Finding(
                    "warning",
                    "accepted-unused",
                    f"acceptance of {a.code} {what} matches no finding".replace("  ", " "),
                    file=rel(loaded.path, root),
                    line=loaded.lines[i],
                    game=game,
                    hint="the problem is gone (or its message changed): remove the entry",
                )
            )
    return out

"""What every check of a game reads: the content, its glossary, and the manifest's numbers.

`GameView` loads the glossary once (a broken glossary is a finding, not a crash) and answers
"how many of X does the box hold": a component's total (the manifest's count, or the content's
when the manifest does not list it) and its parts (the manifest's breakdown values and the
component's item ids, each with its count).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from generator.errors import ContentError, Finding, rel
from generator.i18n import segments as seg_mod
from generator.load.content import GameContent
from generator.load.glossary import load_glossary


@dataclass
class GameView:
    content: GameContent
    problems: list[Finding] = field(default_factory=list)
    _rel: dict[str, str] = field(default_factory=dict, repr=False)
    _segments: list | None = field(default=None, repr=False)

    @property
    def root(self) -> Path:
        return self.content.project.root

    def rel(self, path) -> str:
        # Asked for the same few files hundreds of times; each answer resolves real paths.
        key = str(path)
        found = self._rel.get(key)
        if found is None:
            found = self._rel[key] = rel(path, self.root)
        return found

    @cached_property
    def glossary(self):
        try:
            return load_glossary(self.content.dir)
        except ContentError as exc:
            glossary_file = self.rel(self.content.dir / "glossary.yaml")
            self.problems.append(
                Finding.from_error(exc, code="glossary", root=self.root, file=glossary_file)
            )
            return None

    def segments(self) -> list:
        """Every translatable segment of the game (i18n/segments.py), read once for the checks
        that compare them (segments.py, i18n.py). A ContentError is raised to each caller."""
        if self._segments is None:
            self._segments = seg_mod.all_segments(self.content)
        return self._segments

    @cached_property
    def source_lang(self) -> str | None:
        """The language translations are compared against: the first of game.yaml's
        `languages` that has a rulebook (the rulebook renderer aligns sections the same way)."""
        return next((lang for lang in self.content.languages if lang in self.content.rules), None)

    @cached_property
    def totals(self) -> dict[str, tuple[int, str]]:
        """component id -> (count, where it comes from: "manifest" or "content")."""
        out = {c.id: (c.total, "content") for c in self.content.components}
        manifest = self.content.manifest
        if manifest is not None:
            for comp_id in manifest.components:
                entry = manifest.entry(comp_id)
                if entry is not None:
                    out[comp_id] = (entry.count, "manifest")
        return out

    @cached_property
    def parts(self) -> dict[str, dict[str, tuple[int, str]]]:
        """component id -> {part name -> (count, "content" or "manifest")}: item ids, then the
        manifest's breakdown values."""
        out: dict[str, dict[str, tuple[int, str]]] = {}
        for comp in self.content.components:
            counts: Counter[str] = Counter()
            for item in comp.items:
                counts[item.id] += item.count
            out[comp.id] = {k: (v, "content") for k, v in counts.items()}
        manifest = self.content.manifest
        if manifest is not None:
            for comp_id in manifest.components:
                entry = manifest.entry(comp_id)
                for values in entry.breakdown.values() if entry is not None else ():
                    for value, count in values.items():
                        out.setdefault(comp_id, {})[str(value)] = (count, "manifest")
        return out

    def part_of(self, component: str, term_id: str) -> str | None:
        """The part of `component` a glossary term names, by the term's id: `foo-card` names
        the part `foo-card` or `foo` (a breakdown value or an item id of that component)."""
        parts = self.parts.get(component, {})
        for name in _candidates(term_id):
            if name in parts:
                return name
        return None

    def manifest_line(self, component: str) -> int | None:
        raw = self.content.manifest_raw
        try:
            return raw["components"].line_of(component)
        except (KeyError, TypeError, AttributeError):
            return None


def _candidates(term_id: str) -> list[str]:
    """The term id itself, then the id less its last word: `move-x-card` -> `move-x`. No list
    of nouns: whatever a game calls its pieces, the naming pattern is the same."""
    head, sep, _ = term_id.rpartition("-")
    return [term_id, head] if sep and head else [term_id]

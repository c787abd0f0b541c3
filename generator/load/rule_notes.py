"""Editor's notes: per-language remarks attached to rulebook sections.

Errata, translation notes and "the cards say otherwise" remarks belong to the edition, not to
the designers' text, so they live apart from `rules/<lang>.md`, in `rules/notes.yaml`:

    "3.2":                        # a section number of the rulebooks
      ko: "카드는 ... 따릅니다."   # Markdown (inline), one note per language that needs it
      en: "The Korean rulebook ..."

Each note is printed in a box at the end of its section, in its language's edition and in that
language's column of every bilingual edition. A section or language the game does not have is an
error naming the file and line.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import ContentError
from generator.load.yamlload import YDict, load_yaml

NOTES_FILE = "notes.yaml"


@dataclass
class EditorNotes:
    """Notes by section number, then language; `lines` remembers where each section's notes are."""

    path: Path | None = None
    by_section: dict[str, dict[str, str]] = field(default_factory=dict)
    lines: dict[str, int | None] = field(default_factory=dict)

    def get(self, number: str, lang: str) -> str | None:
        return self.by_section.get(number, {}).get(lang)

    def sections(self, lang: str) -> list[str]:
        return [n for n, notes in self.by_section.items() if lang in notes]


def load_notes(game_dir: Path, languages: Collection[str]) -> EditorNotes:
    """The game's editor's notes (none when the file is absent). Shape errors raise ContentError."""
    path = game_dir / "rules" / NOTES_FILE
    if not path.is_file():
        return EditorNotes()
    data = load_yaml(path, allow_empty=True) or YDict()
    if not isinstance(data, dict):
        raise ContentError(
            "editor's notes must be a mapping of section numbers",
            path,
            1,
            code="schema",
            hint='e.g. "3.2": {ko: "..."}',
        )
    notes = EditorNotes(path)
    for number, per_lang in data.items():
        line = data.line_of(number) if isinstance(data, YDict) else None
        key = str(number)
        if not isinstance(per_lang, dict):
            raise ContentError(
                "a section's notes are one text per language",
                path,
                line,
                key=key,
                code="schema",
                hint="e.g. {ko: ..., en: ...}",
            )
        texts: dict[str, str] = {}
        for lang, text in per_lang.items():
            where = per_lang.line_of(lang) if isinstance(per_lang, YDict) else line
            if lang not in languages:
                raise ContentError(
                    f"'{lang}' is not one of the game's languages ({', '.join(languages)})",
                    path,
                    where,
                    key=f"{key}.{lang}",
                    code="unknown-language",
                )
            if not isinstance(text, str) or not text.strip():
                raise ContentError(
                    "a note is a non-empty text", path, where, key=f"{key}.{lang}", code="schema"
                )
            texts[str(lang)] = text.strip()
        notes.by_section[key] = texts
        notes.lines[key] = line
    return notes


def check_sections(notes: EditorNotes, lang: str, numbers: list[str]) -> None:
    """Every note of `lang` must point at a section of that language's rulebook."""
    known = set(numbers)
    for number in notes.sections(lang):
        if number not in known:
            raise ContentError(
                f"no section §{number} in the {lang} rulebook",
                notes.path,
                notes.lines.get(number),
                key=f"{number}.{lang}",
                code="rules-note",
                hint="use a section number of rules/" + lang + ".md",
            )

"""Rulebook sources: content/<game>/rules/<lang>.md split into numbered sections.

Numbered headings (`## 3.2 Cartas de control`) are the alignment keys across languages.
A section keeps its raw Markdown, its list items and the line of each, so the rulebook
renderer and the validator read the same structure.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from generator.errors import ContentError
from generator.limits import LIMITS, exceeded
from generator.load.yamlload import read_text

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?\s+(.+)$")
LIST_ITEM = re.compile(r"^\s{0,3}(?:[-*+]|\d+[.)])\s+(.*)$")
JINJA = re.compile(r"\{%.*?%\}|\{\{.*?\}\}|\{#.*?#\}", re.DOTALL)

_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)")
_HTML = re.compile(r"<[^>]{1,200}>")


@lru_cache(maxsize=8192)  # pure; the checks of one text ask for it about four times
def plain(text: str) -> str:
    """Markdown text as words: no emphasis, links reduced to their text, no Jinja."""
    text = JINJA.sub(" ", text)
    text = _LINK.sub(r"\1", text)
    text = _HTML.sub(" ", text)
    text = _EMPHASIS.sub("", text)
    return text


@dataclass
class ListItem:
    text: str
    line: int


@dataclass
class Section:
    number: str  # "3.2"
    title: str
    level: int  # Markdown heading level (2 for "3", 3 for "3.2", ...)
    line: int  # line of the heading
    body: str = ""  # raw Markdown below the heading, up to the next heading
    items: list[ListItem] = field(default_factory=list)

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(int(p) for p in self.number.split("."))

    @property
    def prose(self) -> str:
        """The body without Jinja blocks: the words a person wrote."""
        return JINJA.sub(" ", self.body)

    def digest(self) -> str:
        """Hash of the heading and body, for translation staleness."""
        text = f"{self.number} {self.title}\n{self.body.strip()}"
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class RulesSource:
    path: Path
    lang: str
    title: str
    intro: str
    sections: list[Section]

    def section(self, number: str) -> Section | None:
        return next((s for s in self.sections if s.number == number), None)

    @property
    def numbers(self) -> list[str]:
        return [s.number for s in self.sections]


def parse_rules(path: Path, lang: str) -> RulesSource:
    text = read_text(path)
    if len(text.encode("utf-8")) > LIMITS.counts.rulebook_bytes:
        raise exceeded(
            "the rulebook size",
            f"{len(text.encode()):,} bytes",
            f"{LIMITS.counts.rulebook_bytes:,}",
            file=path,
        )
    seen: dict[str, Section] = {}  # number -> section: duplicates found in one pass
    lines = text.splitlines()
    title, intro_lines = "", []
    sections: list[Section] = []
    current: Section | None = None
    body: list[str] = []
    in_fence = False

    def close():
        if current is not None:
            current.body = "\n".join(body).strip("\n")

    for index, line in enumerate(lines, start=1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match and len(match.group(1)) == 1:
            if title:
                raise ContentError(
                    "a second '# ' title; sections use '## N Title'",
                    path,
                    index,
                    code="rules-heading",
                    hint="use ## for numbered sections",
                )
            title = match.group(2)
            continue
        if match:
            numbered = NUMBERED.match(match.group(2))
            if not numbered:
                raise ContentError(
                    f"heading '{match.group(2)}' has no section number",
                    path,
                    index,
                    code="rules-heading",
                    hint="start it with its number, e.g. '## 3.2 Cartas de control'",
                )
            number, heading_title = numbered.group(1), numbered.group(2)
            digits = max(len(part) for part in number.split("."))
            if digits > LIMITS.counts.section_number_digits or number.count(".") > 8:
                raise ContentError(
                    f"section number '{number[:20]}...' is too long",
                    path,
                    index,
                    code="rules-heading",
                    hint="numbers like 3 or 3.2.1",
                )
            if len(sections) >= LIMITS.counts.rulebook_headings:
                raise exceeded(
                    "the number of numbered headings",
                    f"over {LIMITS.counts.rulebook_headings:,}",
                    f"{LIMITS.counts.rulebook_headings:,}",
                    file=path,
                    line=index,
                )
            if number in seen:
                first = seen[number]
                raise ContentError(
                    f"section {number} appears twice (also at line {first.line})",
                    path,
                    index,
                    code="rules-heading",
                    hint="each number once per language",
                )
            close()
            current = Section(number, heading_title, len(match.group(1)), index)
            sections.append(current)
            seen[number] = current
            body = []
            continue
        if current is None:
            intro_lines.append(line)
            continue
        body.append(line)
        item = None if in_fence else LIST_ITEM.match(line)
        if item:
            current.items.append(ListItem(item.group(1).strip(), index))
        elif current.items and line.startswith(("  ", "\t")) and line.strip() and not in_fence:
            current.items[-1].text += " " + line.strip()  # continuation of a list item
    close()
    if not title and not sections:
        raise ContentError(
            "rulebook has no title and no sections",
            path,
            1,
            code="rules-empty",
            hint="start with '# Title', then '## 1 ...' sections",
        )
    return RulesSource(path, lang, title, "\n".join(intro_lines).strip(), sections)


def rules_files(game_dir: Path) -> dict[str, Path]:
    folder = game_dir / "rules"
    if not folder.is_dir():
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.md")) if re.fullmatch(r"[a-z]{2}", p.stem)}

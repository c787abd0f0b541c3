"""The words a rulebook section says, as the validator reads them.

A section is its title, its prose (the body without list items, Jinja blocks and translator's
notes) and its list items, each with its line. Markdown emphasis and links are reduced to
their text. A translator's note is a quote that starts with a bold label such as
`> **Translation note:**` (each language's `note_labels`): it talks about the other languages, so
it is not compared with them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from generator.load import languages
from generator.load.rules_source import LIST_ITEM, Section, plain
from generator.load.terms import normalize

# The labels of translator's notes, unit words and stopwords are language data
# (templates/languages/<code>.yaml).
NOTE = languages.note_pattern()
_NOTE_INLINE = re.compile(NOTE.pattern.replace("^", "", 1) + ".*$", re.IGNORECASE | re.DOTALL)


def stopwords(lang: str) -> frozenset[str]:
    return languages.get(lang).stopwords


@lru_cache(maxsize=16)
def units(lang: str) -> re.Pattern:
    """Unit words: what a count counts when no term does ("12 cartas", "카드 50장"); Korean
    counts with counters, so these are not compared between translations either."""
    words = languages.get(lang).units or "(?!)"
    return re.compile(rf"(?:{words})(?![\w])", re.IGNORECASE)


@dataclass
class Item:
    index: int  # from 1, in the section
    text: str  # plain text
    line: int


@dataclass
class SectionText:
    section: Section
    prose: str  # plain text of the title and the body outside list items
    items: list[Item]
    prose_line: int  # the heading's line
    paragraphs: list[str]  # the prose split at blank lines (the title is the first)


_READ: dict[tuple[str, str, str], SectionText] = {}


def read(section: Section) -> SectionText:
    """The section's words (cached: counts and every translation pair read the same sections)."""
    key = (section.number, section.title, section.body)
    cached = _READ.get(key)
    if cached is None or cached.section is not section:
        if len(_READ) > 2048:
            _READ.clear()
        cached = _READ[key] = _read(section)
    return cached


def _read(section: Section) -> SectionText:
    lines = section.body.split("\n")
    kept, in_item, in_note = [section.title], False, False
    for line in lines:
        if NOTE.match(line):
            in_note = True
            continue
        if in_note:
            if line.lstrip().startswith(">"):
                continue
            in_note = False
        if LIST_ITEM.match(line):
            in_item = True
            continue
        if in_item and (line.startswith((" ", "\t")) and line.strip()):
            continue
        if not line.strip():
            in_item = False
        kept.append(line)
    items = []
    for index, item in enumerate(section.items, start=1):
        text = _NOTE_INLINE.sub("", item.text)
        items.append(Item(index, normalize(plain(text)).strip(), item.line))
    prose = "\n".join(kept)
    paragraphs = [normalize(plain(p)).strip() for p in re.split(r"\n\s*\n", prose)]
    return SectionText(
        section, normalize(plain(prose)), items, section.line, [p for p in paragraphs if p]
    )

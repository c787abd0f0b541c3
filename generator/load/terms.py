"""Finding a glossary's terms in running text.

A term's forms (glossary.yaml) are matched as whole words, case-insensitively (a form written
with the exact case wins when two terms share a word in different cases, as a card named
"Movimiento" and the verb's "movimiento"). Plurals and other inflections are the forms the glossary
lists. A form ending in Hangul also matches with particles attached ("고장이", "맵 카드를",
"수리를"): Korean glues particles to nouns, so a Hangul form is a prefix match. A form that is
a bare Korean counter (점, 장, 개…) only matches right after a number ("35점").

A term's `not:` phrases (per language, `*` for any one word) are its ordinary uses: a form inside
one (an everyday use of the word, not the game's action) is not the term there.

Texts are read with runs of white space as one space. Forms are indexed by their first word, so
matching is a dictionary look-up per word of the text: no regular expression per form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import NamedTuple

from generator.load import languages
from generator.load.glossary import Glossary

WORDS = re.compile(r"[^\W\d_]+|\d+")
_SPACES = re.compile(r"\s+")


def _glued() -> re.Pattern[str]:
    """A letter of a script whose words carry particles glued on (scripts.yaml: glued_suffixes),
    so a term ending in one matches the start of a longer word ("회복" in "회복합니다")."""
    return languages.letters((("glued_suffixes", True),))


def _glued_end(form: str) -> bool:
    return bool(form) and bool(_glued().fullmatch(form[-1]))


def normalize(text: str) -> str:
    """Runs of white space as one space: forms and texts are compared this way."""
    return _SPACES.sub(" ", text)


def _is_letter(ch: str) -> bool:
    return ch.isalpha() or ch == "_"


def _latin_word_char(ch: str) -> bool:
    return (
        ch.isdigit()
        or ch == "_"
        or ("A" <= ch <= "z" and ch.isalpha())
        or ("\u00c0" <= ch <= "\u024f")
    )


# A named tuple: a check of the four games makes about 12,000, and a frozen dataclass takes
# half as long again to make.
class TermMatch(NamedTuple):
    start: int
    end: int
    text: str
    terms: frozenset[str]  # the ids of the terms that have this form (usually one)


@dataclass(frozen=True)
class _Form:
    text: str  # as written in the glossary (spaces normalised)
    lower: str
    offset: int  # where its first word starts ("¡alerta!" -> 1)
    glued_end: bool
    counter_only: bool


class TermIndex:
    """All forms of one language of a glossary, indexed by their first word."""

    def __init__(self, glossary: Glossary, lang: str):
        self.lang = lang
        numbers = languages.get(lang).numbers
        # Particles glued after words ("맵 카드를"): a form's first word may be any prefix of a
        # word of the text, so look every prefix up.
        self.glued = bool(numbers.particles)
        self.numeral_ends = frozenset(w[-1] for w in numbers.adnominal)
        self.exact: dict[str, set[str]] = {}
        self.folded: dict[str, set[str]] = {}
        self.component: dict[str, str] = {}  # term id -> component id
        self.forms: dict[str, list[str]] = {}  # term id -> forms in this language
        self.by_first: dict[str, list[_Form]] = {}
        self.omissible: set[str] = set()  # term ids this language may leave out
        self.group: dict[str, str] = {}  # term id -> its kind (group:, or its component)
        self.declared_group: dict[str, str] = {}  # term id -> its glossary `group:` only
        self.exclusions: dict[str, re.Pattern] = {}  # term id -> its ordinary uses (not:)
        for term in glossary.terms:
            forms = [normalize(f.strip()) for f in term.forms(lang) if f.strip()]
            if not forms:
                continue
            kind = term.group or (f"component:{term.component}" if term.component else None)
            if kind:
                self.group[term.id] = kind
            if term.group:
                self.declared_group[term.id] = term.group
            if lang in term.omit:
                self.omissible.add(term.id)
            phrases = [p for p in term.not_.get(lang, []) if p.strip()]
            if phrases:
                self.exclusions[term.id] = re.compile(
                    "|".join(_phrase_pattern(p) for p in phrases), re.IGNORECASE
                )
            self.forms[term.id] = forms
            if term.component:
                self.component[term.id] = term.component
            for form in forms:
                self.exact.setdefault(form, set()).add(term.id)
                self.folded.setdefault(form.lower(), set()).add(term.id)
        for form in self.exact:
            first = WORDS.search(form)
            if not first:
                continue
            entry = _Form(
                form,
                form.lower(),
                first.start(),
                _glued_end(form),
                form in numbers.counter_only,
            )
            self.by_first.setdefault(first.group().lower(), []).append(entry)
        for entries in self.by_first.values():
            entries.sort(key=lambda f: len(f.text), reverse=True)
        self.max_key = max((len(k) for k in self.by_first), default=0)
        # the letters a form's first word may start with: a word starting with none of them
        # starts no form (most words of a text), whatever particles it carries
        self.initials = frozenset(k[0] for k in self.by_first)
        self._all: dict[str, tuple[TermMatch, ...]] = {}
        self._spans: dict[tuple[str, str], list[tuple[int, int]]] = {}

    # ------------------------------------------------------------ matching

    def _terms(self, found: str) -> frozenset[str]:
        return frozenset(self.exact.get(found) or self.folded.get(found.lower()) or ())

    def _sense(self, text: str, start: int, end: int, terms: frozenset[str]) -> frozenset[str]:
        """`terms` less those whose form at start:end sits inside one of their `not:` phrases."""
        if not self.exclusions or not terms & self.exclusions.keys():
            return terms
        kept = set(terms)
        for term in terms & self.exclusions.keys():
            key = (term, text)
            spans = self._spans.get(key)
            if spans is None:
                if len(self._spans) > 4096:
                    self._spans.clear()
                spans = self._spans[key] = [m.span() for m in self.exclusions[term].finditer(text)]
            if any(a <= start and end <= b for a, b in spans):
                kept -= {term}
        return frozenset(kept)

    def _starts_a_form(self, word: str) -> bool:
        """Whether any form may start at this word: most words of a text start none, and
        _matches_at would look them up one by one to yield nothing."""
        if not self.glued:
            return word in self.by_first
        if word[0] not in self.initials:
            return False
        by_first = self.by_first
        return any(word[:i] in by_first for i in range(min(len(word), self.max_key), 0, -1))

    def _matches_at(self, text: str, low: str, word_start: int, word: str):
        """Forms whose first word starts at `word_start`, longest first."""
        keys = (
            [word[:i] for i in range(min(len(word), self.max_key), 0, -1)] if self.glued else [word]
        )
        for key in keys:
            for form in self.by_first.get(key, ()):
                start = word_start - form.offset
                if start < 0 or not low.startswith(form.lower, start):
                    continue
                end = start + len(form.text)
                if start and _is_letter(text[start - 1]):
                    continue
                if not form.glued_end and end < len(text) and _latin_word_char(text[end]):
                    continue
                if form.counter_only and not _after_number(text, start, self.numeral_ends):
                    continue
                terms = self._sense(text, start, end, self._terms(text[start:end]))
                yield TermMatch(start, end, text[start:end], terms)

    def find_all(self, text: str) -> list[TermMatch]:
        """Every form at every word start, overlapping ones included: "cubo de reparación"
        gives that term, and also "cubo" and "reparación" when they are terms. `text` should be
        normalised (see normalize)."""
        cached = self._all.get(text)
        if cached is not None:
            return list(cached)
        low = text.lower()
        out = []
        starts = self._starts_a_form
        for word in WORDS.finditer(low):
            found = word.group()
            if starts(found):
                out += [m for m in self._matches_at(text, low, word.start(), found) if m.terms]
        if len(self._all) > 4096:
            self._all.clear()
        self._all[text] = tuple(out)
        return out

    def find(self, text: str) -> list[TermMatch]:
        """Leftmost-longest matches that do not overlap."""
        low = text.lower()
        out, pos = [], 0
        for word in WORDS.finditer(low):
            if word.start() < pos or not self._starts_a_form(word.group()):
                continue
            best = next(
                (
                    m
                    for m in self._matches_at(text, low, word.start(), word.group())
                    if m.terms and m.start >= pos
                ),
                None,
            )
            if best is not None:
                out.append(best)
                pos = best.end
        return out

    def at(self, text: str, pos: int) -> TermMatch | None:
        """The longest term starting exactly at `pos`."""
        low = text.lower()
        word = WORDS.match(low, pos)
        if word is None:
            # a form may start before its first word ("¡alerta!")
            word = WORDS.search(low, pos, pos + 3)
            if word is None:
                return None
        return next(
            (
                m
                for m in self._matches_at(text, low, word.start(), word.group())
                if m.terms and m.start == pos
            ),
            None,
        )

    def ending_at(self, text: str, pos: int) -> TermMatch | None:
        """The term that ends at `pos` (spaces before it ignored): Korean "맵 카드 15장"."""
        while pos > 0 and text[pos - 1] == " ":
            pos -= 1
        shift = max(0, pos - 60)
        for match in self.find(text[shift:pos]):
            if match.end + shift == pos:
                return TermMatch(match.start + shift, pos, match.text, match.terms)
        return None

    def components(self, match: TermMatch) -> set[str]:
        return {self.component[t] for t in match.terms if t in self.component}


def _phrase_pattern(phrase: str) -> str:
    """A `not:` phrase as a regular expression: words separated by any space, `*` any one word,
    whole words (a Hangul word may carry particles: "회복" matches "회복합니다")."""
    parts = []
    for word in normalize(phrase.strip()).split(" "):
        if word == "*":
            parts.append(r"\S+")
        else:
            tail = _glued().pattern + "*" if _glued_end(word) else r"(?![^\W_])"
            parts.append(re.escape(word) + tail)
    return r"(?<![^\W_])" + r"\s+".join(parts)


def _after_number(text: str, start: int, numeral_ends: frozenset[str]) -> bool:
    before = text[max(0, start - 2) : start]
    if before[-1:].isdigit():
        return True
    return (
        len(before) == 2 and before[1] == " " and (before[0].isdigit() or before[0] in numeral_ends)
    )


_CACHE: dict[tuple[int, str], tuple[Glossary, TermIndex]] = {}


def index(glossary: Glossary, lang: str) -> TermIndex:
    key = (id(glossary), lang)
    cached = _CACHE.get(key)
    if cached is None or cached[0] is not glossary:
        if len(_CACHE) > 64:
            _CACHE.clear()
        cached = _CACHE[key] = (glossary, TermIndex(glossary, lang))
    return cached[1]

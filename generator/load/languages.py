"""Languages as data: templates/languages/<code>.yaml, one file per language.

Everything pnp knows about a language lives there, not in Python: its name and script, number
words (or, for languages that count with counters, native numerals, counters and particles),
unit words and stopwords the validator reads counts with, interface labels printed in
rulebooks and on sheets, hyphenation, fonts in fallback order, and the labels of translator's
notes. Whether words are kept whole on a line break is a property of the script
(templates/languages/scripts.yaml), never of a language code.

    get("fr").numbers.words["cinq"] -> 5
    get("ko").keep_words            -> True (script: hangul)

A code without a file gets templates/languages/default.yaml (English labels, digits only).
A project's own templates/languages/ is read first, then the one shipped with pnp.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from generator.errors import ContentError
from generator.load.yamlload import yaml_error

BUNDLED = Path(__file__).resolve().parents[2] / "templates" / "languages"
_folders: list[Path] = [BUNDLED]
LANG_CODE = re.compile(r"^[a-z]{2}\Z")  # ISO 639-1: game.yaml's `languages` (model.LANG_RE)
LABELS = (
    "contents",
    "rules",
    "component",
    "count",
    "detail",
    "bilingual",
    "front",
    "back",
    "draft",
)


@dataclass(frozen=True)
class Numbers:
    words: dict[str, int] = field(default_factory=dict)  # "cinq": 5 (all forms, lower case)
    ordinal_suffix: str | None = None  # after digits: "1º", "2nd" are ordinals, not counts
    # Counter languages (numbers take a counter: "15장", "다섯 장"):
    counters: tuple[str, ...] = ()
    counter_only: frozenset[str] = frozenset()  # counters that are not nouns of their own
    adnominal: dict[str, int] = field(default_factory=dict)  # numeral forms before a noun
    pronoun: dict[str, int] = field(default_factory=dict)  # numeral forms standing alone
    particles: str = ""  # characters of particles glued after a word
    not_counts: frozenset[str] = frozenset()  # words that look like numeral + counter
    verb_next: tuple[str, ...] = ()  # a pronoun numeral before these is a verb form
    ordinal_before: tuple[str, ...] = ()
    ordinal_after: tuple[str, ...] = ()  # after digits
    ordinal_after_numeral: tuple[str, ...] = ()  # after a numeral word and a space
    ordinal_after_counter: tuple[str, ...] = ()  # right after a counter

    @property
    def uses_counters(self) -> bool:
        return bool(self.counters)


@dataclass(frozen=True)
class Language:
    code: str
    name: str
    script: str
    keep_words: bool  # from the script: lines only break at spaces
    hyphenate: bool
    fonts: tuple[str, ...]
    labels: dict[str, str]
    numbers: Numbers
    units: str  # regex of unit words a count may count ("cartas?|piezas?")
    per_player: str | None  # regex: "(15 para cada jugador)", group 1 is the number
    list_separators: str | None  # regex between the parts of a list: ", ", " y ", "와 "
    stopwords: frozenset[str]
    note_labels: tuple[str, ...]
    aliases: frozenset[str] = frozenset()  # other names users type for it (eng, english)
    file: Path | None = None

    def label(self, key: str) -> str:
        return self.labels.get(key) or key


def use_project_templates(templates: Path) -> None:
    """Read a project's templates/languages/ before the bundled one."""
    folder = (templates / "languages").resolve()
    wanted = [folder, BUNDLED] if folder.is_dir() and folder != BUNDLED else [BUNDLED]
    if _folders != wanted:  # one project at a time (tests load many)
        _folders[:] = wanted
        get.cache_clear()
        _scripts.cache_clear()
        note_pattern.cache_clear()


def _find(name: str) -> Path | None:
    return next((f / name for f in _folders if (f / name).is_file()), None)


# libyaml's safe loader when there (several times faster), else PyYAML's own: the same data.
_SAFE: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _read(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    try:
        data = yaml.load(text, Loader=_SAFE) or {}
    except yaml.YAMLError as exc:
        raise yaml_error(
            exc, path, text, "language file is not valid YAML", "language-file"
        ) from None
    if not isinstance(data, dict):
        raise ContentError("a language file is a mapping", path, 1, code="language-file")
    return data


@lru_cache(maxsize=4)
def _scripts() -> dict[str, dict[str, Any]]:
    path = _find("scripts.yaml")
    return _read(path) if path else {}


_KEYS = {
    "name",
    "script",
    "hyphenate",
    "fonts",
    "labels",
    "numbers",
    "counts",
    "stopwords",
    "note_labels",
    "aliases",
    "figure_phrases",  # read by the rulebook checks (figure references), not here
}


@lru_cache(maxsize=64)
def get(code: str) -> Language:
    """The language `code` (its file, or default.yaml for a code without one)."""
    path = _find(f"{code}.yaml")
    default = _find("default.yaml")
    data = _read(path) if path else (_read(default) if default else {})
    unknown = set(data) - _KEYS
    if unknown and path:
        key = sorted(unknown)[0]
        raise ContentError(
            f"unknown key '{key}'", path, None, key, "keys: " + ", ".join(sorted(_KEYS))
        )
    base = _read(default) if default and path != default else {}
    labels = {**(base.get("labels") or {}), **(data.get("labels") or {})}
    script = str(data.get("script") or "latin")
    numbers = data.get("numbers") or {}
    counts = data.get("counts") or {}
    lower = {str(k).lower(): int(v) for k, v in (numbers.get("words") or {}).items()}
    return Language(
        code=code,
        name=str(data.get("name") or code),
        script=script,
        keep_words=bool((_scripts().get(script) or {}).get("keep_words", False)),
        hyphenate=bool(data.get("hyphenate", False)),
        fonts=tuple(data.get("fonts") or ()),
        labels=labels,
        numbers=Numbers(
            words=lower,
            ordinal_suffix=numbers.get("ordinal_suffix"),
            counters=tuple(numbers.get("counters") or ()),
            counter_only=frozenset(numbers.get("counter_only") or ()),
            adnominal={str(k): int(v) for k, v in (numbers.get("adnominal") or {}).items()},
            pronoun={str(k): int(v) for k, v in (numbers.get("pronoun") or {}).items()},
            particles=str(numbers.get("particles") or ""),
            not_counts=frozenset(numbers.get("not_counts") or ()),
            verb_next=tuple(numbers.get("verb_next") or ()),
            ordinal_before=tuple(numbers.get("ordinal_before") or ()),
            ordinal_after=tuple(numbers.get("ordinal_after") or ()),
            ordinal_after_numeral=tuple(numbers.get("ordinal_after_numeral") or ()),
            ordinal_after_counter=tuple(numbers.get("ordinal_after_counter") or ()),
        ),
        units=str(counts.get("units") or ""),
        per_player=counts.get("per_player"),
        list_separators=counts.get("list_separators"),
        stopwords=frozenset(str(w).lower() for w in data.get("stopwords") or ()),
        note_labels=tuple(data.get("note_labels") or ()),
        aliases=frozenset(str(a).casefold() for a in data.get("aliases") or ()),
        file=path,
    )


def known() -> list[str]:
    """Codes that have a language file."""
    codes = {
        p.stem for folder in _folders for p in folder.glob("*.yaml") if LANG_CODE.fullmatch(p.stem)
    }
    return sorted(codes)


def suggest(text: str, among: Iterable[str]) -> str | None:
    """The code of `among` that `text` most likely meant: the same code in another case, a code
    whose language file lists `text` in its `aliases` ("eng", "english"), or a close spelling."""
    codes = sorted(set(among))
    wanted = text.strip().casefold()
    for code in codes:
        if wanted == code or (LANG_CODE.match(code) and wanted in get(code).aliases):
            return code
    close = difflib.get_close_matches(wanted, codes, n=1, cutoff=0.6)
    return close[0] if close else None


@lru_cache(maxsize=1)
def note_pattern() -> re.Pattern[str]:
    """A translator's note: a quote starting with a bold label in any known language
    (`> **Translation note:**`, `> **Nota de traducción:**`, `> **번역 노트:**`)."""
    labels = sorted({label for code in known() for label in get(code).note_labels}, key=len)
    alternatives = "|".join(
        r"\s*".join(re.escape(word) for word in label.split()) for label in reversed(labels)
    )
    return re.compile(rf"^\s*>\s*\*\*\s*(?:{alternatives or '(?!)'})", re.IGNORECASE)

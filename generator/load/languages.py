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
from generator.load.project import DEFAULTS
from generator.load.yamlload import yaml_error

BUNDLED = DEFAULTS / "languages"
_folders: list[Path] = [BUNDLED]
# A language tag (BCP 47, the subset pnp uses): an ISO 639-1 language, then optionally an ISO
# 15924 script and an ISO 3166-1 region: de, pt-BR, zh-Hant, sr-Latn. Always use fullmatch:
# `$` also matches before a final newline. What each part may be is data (codes.yaml).
LANG_CODE = re.compile(r"^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-[A-Z]{2})?\Z")
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
    plural_forms: str | None = None  # gettext's Plural-Forms: "nplurals=2; plural=(n != 1);"
    count_tail: str | None = None  # regex of what may follow a count in a counter language
    italic: bool = True  # from the script: emphasis may slant (else it is bold)
    line_height: float | None = None  # from the script: the rulebook's line height
    direction: str = "ltr"  # from the script: "rtl" (Arabic, Hebrew) is set right to left

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
        _codes.cache_clear()
        letters.cache_clear()
        line_breaking.cache_clear()
        sentence_ends.cache_clear()
        note_pattern.cache_clear()


@lru_cache(maxsize=4)
def _codes() -> dict[str, Any]:
    path = _find("codes.yaml")
    return _read(path) if path else {}


def parts(tag: str) -> tuple[str, str | None, str | None]:
    """(language, script, region) of a well-formed tag: "sr-Latn" -> ("sr", "Latn", None)."""
    pieces = tag.split("-")
    script = next((p for p in pieces[1:] if len(p) == 4), None)
    region = next((p for p in pieces[1:] if len(p) == 2), None)
    return pieces[0], script, region


def canonical(text: str) -> str:
    """A tag as people write it, in BCP 47's case and separator: "pt_br" -> "pt-BR",
    "ZH-hant" -> "zh-Hant", a PO header's "de_DE.UTF-8" -> "de-DE"."""
    text = text.strip().split(".", 1)[0].split("@", 1)[0].replace("_", "-")
    pieces = [p for p in text.split("-") if p]
    if not pieces:
        return text
    out = [pieces[0].lower()]
    for piece in pieces[1:]:
        out.append(piece.title() if len(piece) == 4 else piece.upper())
    return "-".join(out)


def check_code(tag: str) -> str | None:
    """Why `tag` is not a language tag pnp can use, with a "did you mean", or None when it is.
    Unknown codes are refused ("xx", "qq"), as are misspelt ones ("sp": did you mean 'es'?)."""
    codes = _codes()
    names: dict[str, str] = codes.get("languages") or {}
    if isinstance(tag, str) and re.fullmatch(r"[a-z]{3}", tag):  # an ISO 639-2/3 code: "eng"
        meant = (codes.get("mistakes") or {}).get(tag) or suggest(tag, known())
        hint = f": did you mean '{meant}'? ({names.get(meant, meant)})" if meant else ""
        return f"'{tag}' is not an ISO 639-1 language code{hint}"
    if not isinstance(tag, str) or not LANG_CODE.fullmatch(tag):
        fixed = canonical(tag) if isinstance(tag, str) else ""
        shown = tag if isinstance(tag, str) and tag.isprintable() else repr(tag)
        if fixed != tag and LANG_CODE.fullmatch(fixed) and check_code(fixed) is None:
            return f"'{shown}' is not written as a language tag: did you mean '{fixed}'?"
        meant = suggest(str(tag), known())
        hint = f": did you mean '{meant}'?" if meant else ""
        return (
            f"'{shown}' is not a language tag (ISO 639-1 code, optionally -Script and -REGION: "
            f"de, pt-BR, zh-Hant, sr-Latn){hint}"
        )
    language, script, region = parts(tag)
    if names and language not in names:
        meant = (codes.get("mistakes") or {}).get(language) or suggest(language, known())
        hint = f": did you mean '{meant}'? ({names.get(meant, meant)})" if meant else ""
        return f"'{language}' is not an ISO 639-1 language code{hint}"
    if script and codes.get("scripts") and script not in codes["scripts"]:
        return f"'{script}' in '{tag}' is not an ISO 15924 script code (Latn, Cyrl, Hant...)"
    if region and codes.get("regions") and region not in codes["regions"]:
        return f"'{region}' in '{tag}' is not an ISO 3166-1 region code (BR, DE, TW...)"
    return None


def refusal(tag: str) -> str | None:
    """Why a language cannot be printed (its script is `supported: false` in scripts.yaml, with
    the reason), or None. Asked before anything is written."""
    language = get(tag)
    rules = _scripts().get(language.script) or {}
    own = _read(language.file) if language.file else {}
    if own.get("supported", True) is False:
        reason = str(own.get("reason") or "pnp cannot print it correctly yet").strip()
        return f"language '{tag}' ({language.name}) cannot be printed yet: {reason}"
    if rules.get("supported", True) is False:
        reason = str(rules.get("reason") or "pnp cannot draw it correctly yet").strip()
        return (
            f"language '{tag}' ({language.name}) is written in the {language.script} script, "
            f"which pnp cannot print yet: {reason}"
        )
    return None


def from_locale(text: str, among: Iterable[str] = ()) -> str:
    """The game's language for a locale as PO files and systems write it: "de_DE" -> "de"
    when the game has de and no de-DE, "pt_BR" -> "pt-BR" when it has pt-BR."""
    tag = canonical(text)
    offered = list(among)
    if not offered or tag in offered:
        language, script, region = parts(tag)
        return tag if offered or not region else "-".join(p for p in (language, script) if p)
    language, script, _ = parts(tag)
    for candidate in ("-".join(p for p in (language, script) if p), language):
        if candidate in offered:
            return candidate
    return tag


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


def _as_list(value: Any) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else ([str(value)] if value else [])


def scripts() -> dict[str, dict[str, Any]]:
    """templates/languages/scripts.yaml: script name -> its rules (ranges, font, keep_words...)."""
    return _scripts()


def script_fonts() -> tuple[str, ...]:
    """The fallback font family of every script, in the file's order, each once."""
    return tuple(dict.fromkeys(str(s["font"]) for s in _scripts().values() if s.get("font")))


def script_font(code: str) -> str | None:
    font = (_scripts().get(get(code).script) or {}).get("font")
    return str(font) if font else None


def _char_class(ranges: Iterable[str]) -> str:
    parts = []
    for r in ranges:
        lo, _, hi = str(r).partition("-")
        parts.append(f"\\U{int(lo, 16):08x}" + (f"-\\U{int(hi, 16):08x}" if hi else ""))
    return "[" + "".join(parts) + "]" if parts else "(?!)"


@lru_cache(maxsize=64)
def letters(where: tuple[tuple[str, Any], ...] = ()) -> re.Pattern[str]:
    """One letter of any script whose rules match `where` (("keep_words", True),; ("name", x)
    is the script called x): the scripts
    are data, so code asks for "a letter of a script whose words are kept whole", never for a
    script by name."""
    ranges = [
        r
        for name, rules in _scripts().items()
        if all((name if k == "name" else rules.get(k)) == v for k, v in where)
        for r in rules.get("ranges") or ()
    ]
    return re.compile(_char_class(ranges))


@lru_cache(maxsize=4)
def line_breaking() -> tuple[re.Pattern[str], frozenset[str], frozenset[str]]:
    """(a letter of a script whose lines break between characters, the characters no line may
    start with, those no line may end with): scripts.yaml's `break: characters`,
    `no_break_before` and `no_break_after` (Japanese kinsoku), all data."""
    broken = letters((("break", "characters"),))
    before: set[str] = set()
    after: set[str] = set()
    for rules in _scripts().values():
        before.update(str(rules.get("no_break_before") or ""))
        after.update(str(rules.get("no_break_after") or ""))
    return broken, frozenset(before), frozenset(after)


@lru_cache(maxsize=1)
def sentence_ends() -> str:
    """Characters that end a sentence besides . ! ? …: scripts.yaml's `sentence_end` (the CJK
    full stops), all data."""
    ends: dict[str, None] = {}
    for rules in _scripts().values():
        ends.update(dict.fromkeys(str(rules.get("sentence_end") or "")))
    return "".join(ends)


def in_ranges(codepoint: int, where: tuple[tuple[str, Any], ...]) -> bool:
    return bool(letters(where).match(chr(codepoint)))


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
    "plural_forms",
    "region_scripts",  # region -> the script it writes the language in: {TW: Hant}
    "supported",  # false: the language is refused (with `reason`), as for its script
    "reason",
}


@lru_cache(maxsize=64)
def get(code: str) -> Language:
    """The language `code` (its file, or default.yaml for a code without one)."""
    language, script_tag, region = parts(code) if LANG_CODE.fullmatch(code) else (code, None, None)
    path = _find(f"{code}.yaml")
    if path is None and language != code:
        general = _find(f"{language}.yaml")
        if script_tag is None and region:  # zh-TW is written in Hant (zh.yaml: region_scripts)
            likely = (_read(general).get("region_scripts") or {}) if general else {}
            script_tag = str(likely[region]) if region in likely else None
        if script_tag:  # zh-Hant-TW, zh-TW: zh-Hant.yaml
            path = _find(f"{language}-{script_tag}.yaml")
        path = path or general
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
    if script_tag:  # sr-Latn: the tag's script (ISO 15924) wins over the language file's
        script = next(
            (n for n, r in _scripts().items() if script_tag in _as_list(r.get("iso15924"))),
            script_tag.lower(),
        )
    rules = _scripts().get(script) or {}
    numbers = data.get("numbers") or {}
    counts = data.get("counts") or {}
    lower = {str(k).lower(): int(v) for k, v in (numbers.get("words") or {}).items()}
    return Language(
        code=code,
        name=str(data.get("name") or code),
        script=script,
        keep_words=bool(rules.get("keep_words", False)),
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
        count_tail=counts.get("tail"),
        stopwords=frozenset(str(w).lower() for w in data.get("stopwords") or ()),
        note_labels=tuple(data.get("note_labels") or ()),
        aliases=frozenset(str(a).casefold() for a in data.get("aliases") or ()),
        file=path,
        plural_forms=str(data["plural_forms"]) if data.get("plural_forms") else None,
        italic=bool(rules.get("italic", True)),
        line_height=float(rules["line_height"]) if rules.get("line_height") else None,
        direction="rtl" if rules.get("direction") == "rtl" else "ltr",
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

"""Every translated string against its source, segment by segment (generator/i18n/segments.py).

translations.py compares rulebooks section by section. This check covers every segment alike,
card and data strings (YAML) as well as rulebook paragraphs, items, cells and headings:

- numbers and glossary terms (YAML strings; rulebook prose already gets them per section);
- markup: a `**` left open, an icon (`:card:`) or a link of one side missing on the other;
- placeholders: every Jinja block of the source that stands for data (`{{ [value, 1] | max }}`)
  is in the translation as written (a translation's own Jinja may replace only a block that
  holds words of the source, such as a plural choice);
- a dropped sentence: the translation has fewer sentences than the source;
- text still in the source language, in a language that is not a draft: one finding per file,
  naming the segments.

A draft language's errors become warnings (drafts.soften), as everywhere.
"""

from __future__ import annotations

import re
from collections import Counter

from generator.check.game import GameView
from generator.check.numbers import find_numbers
from generator.check.translations import _numbers, _terms
from generator.errors import ContentError, Finding
from generator.i18n import drafts, tracking
from generator.i18n import segments as seg_mod
from generator.i18n.po import _check_placeholders, expressions, protect
from generator.i18n.segments import Segment, strip_jinja
from generator.load import languages
from generator.load.language_guess import guess
from generator.load.project import refusal
from generator.load.rules_source import plain
from generator.load.templating import check_syntax
from generator.load.terms import index

ICON = re.compile(r"(?<![\w:]):([a-z][a-z0-9_-]*):(?![\w:])")
LINK = re.compile(r"!?\[[^\]]*\]\(([^)]*)\)")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]*)\)")
BOLD = re.compile(r"\*\*")


_ABBREVIATION = re.compile(r"(?:^|\s)(?:[A-Za-zÀ-ÿ]{1,3}\.){1,3}$")


def _sentence_end() -> re.Pattern[str]:
    """A sentence ends at . ! ? … (or a script's own full stops, scripts.yaml) followed by a
    space or the end."""
    ends = re.escape(".!?…" + languages.sentence_ends())
    return re.compile(f"[{ends}]+" + r"(?:[\"'”’»)\]]*)(?=\s|$)")


_ABBREVIATION = re.compile(r"(?:^|\s)(?:[A-Za-zÀ-ÿ]{1,3}\.){1,3}$")


def check(view: GameView) -> list[Finding]:
    content = view.content
    try:
        segments = view.segments()
        record = tracking.load(content)
    except ContentError as exc:
        return [Finding.from_error(exc)]
    source = seg_mod.source_language(content)
    glossary = view.glossary
    indexes = {}
    if glossary is not None:
        for lang in content.languages:
            indexes[lang] = index(glossary, lang)
    missing = {
        (st.ctx, st.lang)
        for st in tracking.states(content, segments, record)
        if st.status == "missing"
    }

    # a draft is work in progress (a `{complete: 90%}` language only while under its threshold)
    declared_drafts = drafts.drafts(content)
    icons = frozenset(content.game.icons)
    out: list[Finding] = []
    in_source: dict[tuple[str, str], list[tuple[Segment, int]]] = {}
    sentence_checks: list[tuple[Segment, str, str, str, int, dict]] = []
    for seg in segments:
        for lang, place in seg.places.items():
            if lang == source or lang not in content.languages or (seg.ctx, lang) in missing:
                continue
            text = place.text
            where = dict(file=view.rel(place.file), lang=lang, key=seg.ctx)
            if seg.cells.get(lang):  # a spreadsheet cell: located at it, as sheet errors are
                where["cell"] = seg.cells[lang]
            if _blank(seg, text):
                out.append(
                    _finding(
                        "empty-translation",
                        f"{seg.ctx}: the {lang} text is empty where {source} says "
                        f"{_short(seg.text)!r}: it prints nothing in {lang}",
                        place.line,
                        where,
                        f"translate it, or make {lang} a draft in game.yaml "
                        f"(`{{{lang}: draft}}`) while it is being translated",
                    )
                )
                continue
            out += pair(seg, source, lang, text, indexes, place.line, where, icons=icons)
            sentence_checks.append((seg, lang, text, seg.ctx, place.line, where))
            if lang not in declared_drafts and (
                guess(text, [lang, source]) == source or _copied(seg.text, text, source)
            ):
                in_source.setdefault((lang, view.rel(place.file)), []).append((seg, place.line))
    out += _dropped(sentence_checks, source)
    for (lang, file), found in sorted(in_source.items()):
        names = ", ".join(f"{seg.ctx} (line {line})" for seg, line in found[:6])
        more = f" and {len(found) - 6} more" if len(found) > 6 else ""
        out.append(
            Finding(
                "error",
                "translation-in-source-language",
                f"{len(found)} segment(s) of {lang} still read as {source}: {names}{more}",
                file=file,
                line=found[0][1],
                cell=found[0][0].cells.get(lang),  # a spreadsheet's: its first cell
                lang=lang,
                key=found[0][0].ctx,
                hint=f"translate them (`pnp i18n export {content.id} --lang {lang}`), or make "
                f"{lang} a draft in game.yaml (`{{{lang}: draft}}`) while it is being translated",
            )
        )
    return out


def _blank(seg: Segment, text: str) -> bool:
    """A card or data string left empty in one language where the source has text. A game
    title, description or component name is the label check's (check/__init__.py)."""
    if seg.kind not in ("string", "sheet-cell") or text.strip() or not seg.text.strip():
        return False
    return seg.ctx.partition(":")[2] not in ("name", "title", "description")


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 40 else text[:39] + "…"


def _copied(source: str, text: str, lang: str) -> bool:
    """The source's own text, word for word, three words at least with one of the source
    language's stopwords among them (a name such as "The Hunt Begins" may stay as it is)."""
    if text.strip() != source.strip():
        return False
    words = [w.casefold() for w in re.findall(r"[^\W\d_]+", _words(text))]
    stop = languages.get(lang).stopwords
    return sum(1 for w in words if len(w) > 1) >= 3 and any(w in stop for w in words)


def _words(text: str) -> str:
    return plain(strip_jinja(text))


def pair(
    seg: Segment,
    source: str,
    lang: str,
    text: str,
    indexes: dict,
    line: int | None,
    where: dict,
    icons: frozenset[str] | None = None,
) -> list[Finding]:
    """The checks of one translation against its source that need no other segment: numbers
    and glossary swaps (YAML strings and spreadsheet cells: rulebook prose gets them per
    section), markup and
    placeholders. Used by `pnp check` and by `pnp i18n import` on each entry it applies.

    A mistake of one side alone (a Jinja block left open, an icon the game does not declare
    when `icons` is given, a refused image path) is reported once, by the check that owns it
    (template, unknown-icon, path-refused); what it breaks is not compared, or the one typo
    would come back as two or three errors."""
    out: list[Finding] = []
    label = seg.ctx
    # a spreadsheet cell is a card string like a YAML one (docs/spreadsheets.md)
    string = seg.kind in ("string", "sheet-cell")
    if string and not (_compiles(seg.text) and _compiles(text)):
        return out
    if string:
        out += _numbers(
            _unnamed(_words(seg.text), _words(text), source),
            _unnamed(_words(text), _words(seg.text), lang),
            source,
            lang,
            label,
            line,
            where,
        )
        if source in indexes and lang in indexes:
            out += _terms(
                _words(seg.text),
                _words(text),
                indexes[source],
                indexes[lang],
                label,
                line,
                where,
                swaps_only=True,
            )
    out += _markup(seg.text, text, source, lang, label, line, where, icons)
    out += _placeholders(seg.text, text, label, line, where)
    return out


def _unnamed(text: str, other: str, lang: str) -> str:
    """The text without number words that the other side writes the same way: a name (en
    "Sub Zero" next to es "Sub Zero"), not a count."""

    folded = other.casefold()
    for n in reversed(find_numbers(text, lang)):
        if n.word and re.search(rf"(?<!\w){re.escape(n.text.casefold())}(?!\w)", folded):
            text = text[: n.start] + " " * (n.end - n.start) + text[n.end :]
    return text


def _finding(code: str, message: str, line: int | None, where: dict, hint: str) -> Finding:
    return Finding("error", code, message, line=line, hint=hint, **where)


def _compiles(text: str) -> bool:
    try:
        check_syntax(text)
    except ContentError:
        return False
    return True


def _refused_image(text: str) -> bool:
    return any(refusal(t.strip(), what="image") is not None for t in IMAGE.findall(text))


def _markup(
    a: str,
    b: str,
    la: str,
    lb: str,
    label: str,
    line: int | None,
    where: dict,
    icons: frozenset[str] | None = None,
) -> list[Finding]:
    out = []
    ta, tb = strip_jinja(a), strip_jinja(b)
    if len(BOLD.findall(tb)) % 2 and not len(BOLD.findall(ta)) % 2:
        out.append(
            _finding(
                "translation-markup",
                f"{label}: {lb} leaves a ** open (it prints bold to the end, with a stray *)",
                line,
                where,
                "close every **bold** the translation opens",
            )
        )
    icons_a, icons_b = Counter(ICON.findall(ta)), Counter(ICON.findall(tb))
    if icons is not None and not set(icons_a) | set(icons_b) <= icons:
        icons_a = icons_b  # an undeclared icon is its own error (unknown-icon)
    lost = sorted(set(icons_a) - set(icons_b))
    extra = sorted(set(icons_b) - set(icons_a))
    if lost or extra:
        parts = []
        if lost:
            parts.append(f"{la} shows " + ", ".join(f":{i}:" for i in lost) + f", {lb} does not")
        if extra:
            parts.append(f"{lb} shows " + ", ".join(f":{i}:" for i in extra) + f", {la} does not")
        out.append(
            _finding(
                "translation-markup",
                f"{label}: icons differ: " + "; ".join(parts),
                line,
                where,
                "keep the source's icons (:name:) as they are",
            )
        )
    links_a, links_b = sorted(LINK.findall(ta)), sorted(LINK.findall(tb))
    if links_a != links_b and not (_refused_image(ta) or _refused_image(tb)):
        out.append(
            _finding(
                "translation-markup",
                f"{label}: links differ: {la} links to {links_a or 'nothing'}, {lb} to "
                f"{links_b or 'nothing'}",
                line,
                where,
                "keep every [text](target) of the source, with the same target",
            )
        )
    return out


def _placeholders(a: str, b: str, label: str, line: int | None, where: dict) -> list[Finding]:

    exprs = expressions(a)
    if not exprs and not expressions(b):
        return []
    problem = _check_placeholders(protect(a, exprs), protect(b, exprs), a)
    if problem is None:
        return []
    numbered = "; ".join(f"{{{n}}} = {e}" for n, e in enumerate(exprs))
    return [
        _finding(
            "translation-placeholder",
            f"{label}: {problem} ({numbered})",
            line,
            where,
            "keep every Jinja block of the source that stands for the game's data, as written",
        )
    ]


def sentences(text: str) -> int:
    words = plain(strip_jinja(text)).strip()
    count = 0
    last = 0
    for m in _sentence_end().finditer(words):
        chunk = words[last : m.start()]
        last = m.end()
        if re.search(r"[^\W\d_]{2,}", chunk) and not _ABBREVIATION.search(chunk + "."):
            count += 1
    if re.search(r"[^\W\d_]{2,}", words[last:]):
        count += 1
    return count


def _dropped(checks: list[tuple[Segment, str, str, str, int, dict]], source: str) -> list[Finding]:
    """A translation with fewer sentences than its source that is also much shorter than this
    language's translations usually are (the median length ratio of the game's own segments):
    a merged sentence keeps its length, a dropped one does not."""
    ratios: dict[str, list[float]] = {}
    measured = []
    for seg, lang, text, label, line, where in checks:
        a, b = len(_words(seg.text).strip()), len(_words(text).strip())
        ratio = b / a if a >= 20 else None
        if ratio is not None:
            ratios.setdefault(lang, []).append(ratio)
        measured.append((seg, lang, text, label, line, where, ratio))
    median = {lang: sorted(r)[len(r) // 2] for lang, r in ratios.items() if len(r) >= 5}
    out = []
    for seg, lang, text, label, line, where, ratio in measured:
        if ratio is None or lang not in median or ratio >= 0.7 * median[lang]:
            continue
        na, nb = sentences(seg.text), sentences(text)
        if na >= 2 and nb < na:
            out.append(
                _finding(
                    "translation-dropped-sentence",
                    f"{label}: {source} has {na} sentences, {lang} {nb}, and {lang} is "
                    f"{ratio:.0%} of its length ({lang} is usually {median[lang]:.0%}): a "
                    "sentence may be missing",
                    line,
                    where,
                    "translate every sentence (or accept the difference in accepted.yaml)",
                )
            )
    return out

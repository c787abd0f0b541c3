"""Translations against their source, section by section and list item by list item.

The source is the first language of game.yaml's `languages` that has a rulebook (see
GameView.source_lang). Every other rulebook is compared with it:

- sections (numbered headings) missing, extra, or out of order;
- the number of list items in a section;
- numbers: the set of numbers of a section's prose, and of each list item, must be the same on
  both sides. Digits and number words are read alike ("dos" = "두" = 2). The number 1 is left
  out: es/en write it as an article ("una carta") and Korean often leaves it out, so it cannot
  be compared;
- glossary terms: a term found on one side whose forms in the other language are absent there.
  In a list item every such term is a finding; in a section's prose (where translations are
  freer) only a swap is: a term missing on each side, as "repair" in es where ko says
  "breakdown", compared paragraph by paragraph when both sides have as many paragraphs.
"""

from __future__ import annotations

from collections import Counter

from generator.check import text as rtext
from generator.check.game import GameView
from generator.check.numbers import find_numbers
from generator.check.terms import TermIndex, TermMatch, index
from generator.check.text import WORD as _WORD
from generator.check.text import stopwords
from generator.check.text import units as _units
from generator.errors import Finding
from generator.load.rules_source import RulesSource, Section

IGNORED_NUMBERS = frozenset({1})


def check(view: GameView) -> list[Finding]:
    content = view.content
    source_lang = view.source_lang
    if source_lang is None:
        return []
    source = content.rules[source_lang]
    glossary = view.glossary
    out: list[Finding] = []
    for lang in content.languages:
        broken = any(getattr(e, "lang", None) == lang for e in content.draft_errors)
        if lang not in content.rules and not broken:
            missing = content.dir / "rules" / f"{lang}.md"
            out.append(
                Finding(
                    "error",
                    "translation-missing-rulebook",
                    f"{lang} is a language of the game but has no rulebook: create "
                    f"{view.rel(missing)}",
                    file=view.rel(missing),
                    lang=lang,
                    hint=f"translate rules/{source_lang}.md into it (`pnp i18n export "
                    f"{content.id} --lang {lang}`, then `pnp i18n import`), or make {lang} a "
                    f"draft in game.yaml (`{{{lang}: draft}}`) until it is done",
                )
            )
    for lang, rules in sorted(content.rules.items()):
        if lang == source_lang:
            continue
        out += structure(view, source, rules)
        src_idx = index(glossary, source_lang) if glossary else None
        dst_idx = index(glossary, lang) if glossary else None
        for section in rules.sections:
            original = source.section(section.number)
            if original is not None:
                out += compare_sections(view, original, section, source, rules, src_idx, dst_idx)
    return out


def structure(view: GameView, source: RulesSource, other: RulesSource) -> list[Finding]:
    """Sections missing, extra or out of order in `other`."""
    out = []
    file = view.rel(other.path)
    mine = {s.number: s for s in other.sections}
    theirs = {s.number: s for s in source.sections}
    for index_, s in enumerate(source.sections):
        if s.number not in mine:
            following = next(
                (mine[n.number] for n in source.sections[index_ + 1 :] if n.number in mine), None
            )
            out.append(
                Finding(
                    "error",
                    "translation-missing-section",
                    f"§{s.number} '{s.title}' ({source.lang}) is missing in {other.lang}",
                    file=file,
                    line=following.line if following else None,
                    lang=other.lang,
                    key=f"§{s.number}",
                    hint=f"translate it, or remove it from the {source.lang} rulebook",
                )
            )
    for s in other.sections:
        if s.number not in theirs:
            out.append(
                Finding(
                    "error",
                    "translation-extra-section",
                    f"§{s.number} '{s.title}' is not in the {source.lang} rulebook",
                    file=file,
                    line=s.line,
                    lang=other.lang,
                    key=f"§{s.number}",
                    hint=f"sections follow the {source.lang} rulebook's numbering",
                )
            )
    order = {s.number: i for i, s in enumerate(source.sections)}
    last = -1
    for s in other.sections:
        if s.number not in order:
            continue
        if order[s.number] < last:
            before = source.sections[last]
            out.append(
                Finding(
                    "error",
                    "translation-section-order",
                    f"§{s.number} comes after §{before.number} in {other.lang}, before it in "
                    f"{source.lang}",
                    file=file,
                    line=s.line,
                    lang=other.lang,
                    key=f"§{s.number}",
                    hint=f"keep the {source.lang} rulebook's order",
                )
            )
        else:
            last = order[s.number]
    return out


def compare_sections(
    view: GameView,
    a: Section,
    b: Section,
    source: RulesSource,
    other: RulesSource,
    a_idx: TermIndex | None,
    b_idx: TermIndex | None,
) -> list[Finding]:
    out = []
    ta, tb = rtext.read(a), rtext.read(b)
    file = view.rel(other.path)
    la, lb = source.lang, other.lang
    where = dict(file=file, lang=lb, key=f"§{b.number}")
    out += _numbers(ta.prose, tb.prose, la, lb, f"§{b.number}", b.line, where)
    if a_idx and b_idx:
        # paragraph by paragraph when both sides have as many, else the whole prose
        pairs = (
            list(zip(ta.paragraphs, tb.paragraphs, strict=True))
            if len(ta.paragraphs) == len(tb.paragraphs)
            else [(ta.prose, tb.prose)]
        )
        for pa, pb in pairs:
            out += _terms(pa, pb, a_idx, b_idx, f"§{b.number}", b.line, where, swaps_only=True)
    if len(ta.items) != len(tb.items):
        out.append(
            Finding(
                "error",
                "translation-list-items",
                f"§{b.number}: {la} has {len(ta.items)} list items, {lb} has {len(tb.items)}",
                line=(tb.items[0].line if tb.items else b.line),
                **where,
                hint="translate list items one for one, so they can be compared",
            )
        )
        return out
    for ia, ib in zip(ta.items, tb.items, strict=True):
        label = f"§{b.number} item {ib.index} ({_head(ib.text)})"
        out += _numbers(ia.text, ib.text, la, lb, label, ib.line, where)
        if a_idx and b_idx:
            out += _terms(ia.text, ib.text, a_idx, b_idx, label, ib.line, where, swaps_only=False)
    return out


def _head(text: str, size: int = 32) -> str:
    head = text.split(":", 1)[0] if ":" in text[: size + 8] else text
    head = " ".join(head.split())
    return "'" + (head if len(head) <= size else head[: size - 1] + "…") + "'"


def _numbers(
    a: str, b: str, la: str, lb: str, label: str, line: int | None, where: dict
) -> list[Finding]:
    na = Counter(n.value for n in find_numbers(a, la) if n.value not in IGNORED_NUMBERS)
    nb = Counter(n.value for n in find_numbers(b, lb) if n.value not in IGNORED_NUMBERS)
    only_a = sorted(set(na) - set(nb))
    only_b = sorted(set(nb) - set(na))
    if not only_a and not only_b:
        return []
    parts = []
    if only_a:
        parts.append(f"{la} says {_list(only_a)}" + ("" if only_b else f", {lb} does not"))
    if only_b:
        parts.append(f"{lb} says {_list(only_b)}" + ("" if only_a else f", {la} does not"))
    message = f"{label}: numbers differ: " + (
        " where ".join(parts) if only_a and only_b else parts[0]
    )
    return [
        Finding(
            "error",
            "translation-number",
            message,
            line=line,
            **where,
            hint="make the numbers agree, or accept the difference in accepted.yaml",
        )
    ]


def _list(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _terms(
    a: str,
    b: str,
    a_idx: TermIndex,
    b_idx: TermIndex,
    label: str,
    line: int | None,
    where: dict,
    swaps_only: bool,
) -> list[Finding]:
    """Glossary terms of `a` whose counterpart `b` lacks, and the other way round.

    A term missing on one side is a finding in a list item, unless that side's language may
    omit it (`omit:` in the glossary, e.g. a subject Korean leaves out). A swap is always a
    finding, in list items and in prose: a term missing on one side while the other side says
    another term more often than this side (a "red X" that became a "red Y" next to a "blue Y"
    both sides have)."""
    all_a, all_b = a_idx.find_all(a), b_idx.find_all(b)
    found_a = _comparable(all_a, a_idx.lang)
    found_b = _comparable(all_b, b_idx.lang)
    # A bare unit word is not asked of the other side, but it still says its term: fr "12
    # pièces" (a unit word in French, and the glossary's coin) answers en "12 coins".
    ids_a = set().union(*(_senses(m, a_idx) for m in all_a)) if all_a else set()
    ids_b = set().union(*(_senses(m, b_idx) for m in all_b)) if all_b else set()
    missing_in_b = _unmatched(found_a, ids_b, b_idx, a_idx.lang, a_idx)
    missing_in_a = _unmatched(found_b, ids_a, a_idx, b_idx.lang, b_idx)
    if not missing_in_a and not missing_in_b:
        missing_in_b, missing_in_a = _group_swap(found_a, found_b, a_idx)
        if not missing_in_b:
            return []
    la, lb = a_idx.lang, b_idx.lang
    swapped = bool(missing_in_a and missing_in_b)
    if not swapped:
        # one side lacks a term: a swap when the other side says some shared term more often
        if missing_in_b:
            more = _said_more(found_b, found_a, missing_in_b, a_idx)
        else:
            more = _said_more(found_a, found_b, missing_in_a, a_idx)
        if more:
            if missing_in_b:
                missing_in_a = more
            else:
                missing_in_b = more
            swapped = True
    if not swapped:
        if swaps_only:
            return []
        missing_in_b = [(m, ids) for m, ids in missing_in_b if not set(ids) <= b_idx.omissible]
        missing_in_a = [(m, ids) for m, ids in missing_in_a if not set(ids) <= a_idx.omissible]
        if not missing_in_a and not missing_in_b:
            return []
    if missing_in_a and missing_in_b:
        message = (
            f"{label}: {la} says {_terms_list(missing_in_b)} where {lb} says "
            f"{_terms_list(missing_in_a)}"
        )
    elif missing_in_b:
        message = f"{label}: {la} says {_terms_list(missing_in_b)}, {lb} has no " + " / ".join(
            f"'{b_idx.forms[t][0]}'" for t in _first_ids(missing_in_b, b_idx)
        )
    else:
        message = f"{label}: {lb} says {_terms_list(missing_in_a)}, {la} has no " + " / ".join(
            f"'{a_idx.forms[t][0]}'" for t in _first_ids(missing_in_a, a_idx)
        )
    return [
        Finding(
            "error",
            "translation-term",
            message,
            line=line,
            **where,
            hint="use the glossary's term on both sides (glossary.yaml), or accept the "
            "difference in accepted.yaml",
        )
    ]


def _senses(m: TermMatch, idx: TermIndex) -> frozenset[str]:
    """Every term that has the match's very form: es "Reparación" is the repair track and the
    Repair maneuver; the other side naming either is no swap."""
    return m.terms | frozenset(idx.folded.get(" ".join(m.text.split()).lower()) or ())


def _group_swap(found_a: list[TermMatch], found_b: list[TermMatch], idx) -> tuple[list, list]:
    """Both sides name the same kinds, but one of a group fewer times on side b and another
    of that group more times: "red X ... blue X" -> "red Y ... blue X". Only terms of a
    declared group (glossary `group:`) are compared this way: the kinds of one component (two
    colours of one piece, say) are too often named together in one phrase."""
    groups = idx.declared_group
    if not groups:
        return [], []
    count_a = Counter(t for m in found_a for t in m.terms if t in groups)
    count_b = Counter(t for m in found_b for t in m.terms if t in groups)
    for fewer in sorted(t for t in count_a if count_b[t] < count_a[t]):
        group = groups[fewer]
        more = sorted(t for t in count_b if groups[t] == group and count_b[t] > count_a[t])
        if more:
            m_a = next(m for m in found_a if fewer in m.terms)
            m_b = next(m for m in found_b if more[0] in m.terms)
            return [(m_a, [fewer])], [(m_b, more[:1])]
    return [], []


def _said_more(found: list[TermMatch], other: list[TermMatch], missing: list, idx) -> list:
    """Terms `found` says more often than `other` does, of the same group as a term the other
    side lacks (glossary `group:` or the same component): what took its place."""
    groups = {idx.group.get(t) for _, ids in missing for t in ids} - {None}
    if not groups:
        return []
    mine = Counter(t for m in found for t in m.terms)
    theirs = Counter(t for m in other for t in m.terms)
    out: list[tuple[TermMatch, list[str]]] = []
    for m in found:
        extra = sorted(t for t in m.terms if idx.group.get(t) in groups and mine[t] > theirs[t])
        if extra and not any(ids == extra for _, ids in out):
            out.append((m, extra))
    return out


def _comparable(found: list[TermMatch], lang: str) -> list[TermMatch]:
    """Bare unit words (cartas, piezas, cards, 카드) are not asked of the other side: Korean
    counts with a counter ("12장") where es says "12 cartas". (They still count as saying their
    term when the other side asks for it: see _terms.)"""
    units = _units(lang)
    return [m for m in found if not units.fullmatch(m.text.strip())]


def _unmatched(
    found: list[TermMatch], other_ids: set[str], other_idx: TermIndex, lang: str, own_idx: TermIndex
) -> list:
    """Occurrences none of whose terms appear on the other side (and that the other language
    has a form for). A compound whose every word is part of a term the other side has is not
    unmatched: "casillas de maniobras" is fine next to a side that has "casillas" and
    "maniobras" terms."""
    present = [m for m in found if m.terms & other_ids]
    out, seen = [], set()
    for m in found:
        comparable = {t for t in m.terms if t in other_idx.forms}
        if not comparable or comparable & other_ids or _senses(m, own_idx) & other_ids:
            continue
        if _covered(m, present, lang):
            continue
        key = frozenset(comparable)
        if key not in seen:
            seen.add(key)
            out.append((m, sorted(comparable)))
    return out


def _covered(m: TermMatch, present: list[TermMatch], lang: str) -> bool:
    stop = stopwords(lang)
    for word in _WORD.finditer(m.text):
        if word.group().casefold() in stop:
            continue
        start, end = m.start + word.start(), m.start + word.end()
        if not any(p.start <= start and end <= p.end for p in present if p is not m):
            return False
    return True


def _terms_list(items) -> str:
    return ", ".join(f"{'/'.join(ids)} ('{m.text}')" for m, ids in items)


def _first_ids(items, idx: TermIndex) -> list[str]:
    return [ids[0] for _, ids in items if ids[0] in idx.forms]

"""Counts a rulebook states, in every language, against the manifest.

A count is read from a list item that states it, in the forms the designers write:

    es/en  "15 cartas de mapa", "3 blue control cards", "Un mazo de Aviones Aliados, de 50 cartas"
    ko     "맵 카드 15장", "파란색 조종 카드 3장", "연합군 비행기 덱 1개, 카드 50장"
    labels "Move 1 = 4 piezas", "Bola de Nieve estrellada: 14 piezas", "Movimiento (12 cartas)"

The counted thing is a glossary term with `component:` (the term right after the number in es/en,
right before it in ko), or a unit word (cartas, cards, piezas, 카드, or a bare Korean counter after
"=", ":" or "(") whose subject is the component term of the label before it. The rest of the item
before the count must be that label: an item such as "Capitán: ... roba 1 carta de orden" states
an effect, not a count, and is skipped.

In prose, a sentence that lists counts ("La caja contiene 40 cartas de barco, 8 cartas de
tormenta y 1 tablero", "맵 카드 15장과 명령 카드 30장") is read part by part (commas, y/e, and,
와/과/및): each part that is only a count is a statement, and the sentence is compared with the
manifest on its own (it may restate the list items). Other prose is not read for counts.

In one section, the counts of one component add up ("3 cartas de control azules" + "3 ... rojas";
a list of card kinds), and the sum is compared with the component's total. A term that names a part
of the component (its id, or its id less its last word, is an item id or a breakdown value:
`move-x-card` -> `move-x`) is also compared with that part. "60 marcadores de golpe (15 para cada
jugador)" also checks 15 x players = 60 when the manifest's constants give `players`.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache

from generator.check import text as rtext
from generator.check.game import GameView
from generator.check.numbers import Number, find_numbers
from generator.check.terms import TermIndex, TermMatch, index
from generator.check.text import WORD as _WORD
from generator.check.text import stopwords
from generator.check.text import units as _units
from generator.errors import Finding
from generator.load import languages
from generator.load.yamlload import read_text


@lru_cache(maxsize=16)
def _per_player(lang: str) -> re.Pattern | None:
    pattern = languages.get(lang).per_player
    return re.compile(pattern, re.IGNORECASE) if pattern else None


_CLAUSE_END = re.compile(r"\s*(?:$|[.,;:()\[\]])")


@dataclass
class Statement:
    value: int
    component: str
    term: str  # glossary term id of the counted thing (or of the label's subject)
    phrase: str  # the words of the rulebook, for the message
    kind: str  # "direct" or "unit"
    item: rtext.Item
    per_player: int | None = None


def _label_subject(
    label: str, lang: str, idx: TermIndex, max_leftover: int
) -> tuple[TermMatch | None, bool]:
    """The component term of a label, and whether the label is only that (plus numbers,
    stopwords, punctuation and at most `max_leftover` other words)."""
    if ":" in label and label.rsplit(":", 1)[1].strip(" *_"):
        return None, False  # "Name: effect ... N thing": an effect, not a count
    subject, leftover, pos = None, [], 0
    rest = []
    for match in idx.find(label):
        rest.append(label[pos : match.start])
        pos = match.end
        if idx.components(match):
            subject = match
        else:
            leftover.append(match.text)
    rest.append(label[pos:])
    spans = " ".join(rest)
    for n in find_numbers(spans, lang):
        spans = spans[: n.start] + " " * (n.end - n.start) + spans[n.end :]
    stop = stopwords(lang)
    words = [w for w in _WORD.findall(spans) if w.lower() not in stop]
    return subject, len(words) + len(leftover) <= max_leftover


def _statement(
    t: str, n: Number, lang: str, idx: TermIndex, units: re.Pattern, item
) -> Statement | None:
    kind, counted = None, None
    counter_language = languages.get(lang).numbers.uses_counters
    if counter_language:  # the counted thing comes before the number: "맵 카드 15장"
        if not _CLAUSE_END.match(t, n.end):
            return None  # "수리 큐브 1개를 회복합니다": a count inside a sentence
        before = idx.ending_at(t, n.start)
        if before is not None and idx.components(before):
            kind, counted, label = "direct", before, t[: before.start]
        elif before is not None and units.fullmatch(before.text.strip()):
            kind, label = "unit", t[: before.start]
        elif n.counter and t[: n.start].rstrip()[-1:] in ("=", ":", "("):
            kind, label = "unit", t[: n.start]
        else:
            return None
        max_leftover = 1
    else:
        pos = n.end
        while pos < len(t) and t[pos] == " ":
            pos += 1
        counted = idx.at(t, pos)
        if counted is not None and idx.components(counted):
            kind = "direct"
        elif units.match(t, pos):
            kind, counted = "unit", None
        else:
            word = _WORD.match(t, pos)  # one adjective between: "3 blue control cards"
            counted = None
            if word:
                nxt = word.end()
                while nxt < len(t) and t[nxt] == " ":
                    nxt += 1
                counted = idx.at(t, nxt)
            if counted is None or not idx.components(counted):
                return None
            kind = "direct"
        label = t[: n.start]
        max_leftover = 0
    end = max(n.end, counted.end if counted is not None else n.end)
    subject, clean = _label_subject(label, lang, idx, max_leftover)
    if not clean:
        return None
    if kind == "unit":
        if subject is None:
            return None
        counted = subject
    elif subject is not None and counted is not None:
        if not idx.components(subject) & idx.components(counted):
            return None  # two different components in one phrase: not a plain count
        counted = subject  # "Movimiento (12 cartas)": the label names the kind of card
    if counted is None:  # never: each branch above names what is counted (narrows the type)
        return None
    components = sorted(idx.components(counted))
    if len(components) != 1:
        return None
    if kind == "unit" and not counter_language:
        unit = units.match(t, n.end + len(t[n.end :]) - len(t[n.end :].lstrip()))
        end = max(end, unit.end() if unit else end)
    phrase = _phrase(t, end)
    stmt = Statement(
        n.value, components[0], _term_for(idx, counted, components[0]), phrase, kind, item
    )
    per = _per_player(lang)
    if per:
        after = t[end:]
        if (
            not counter_language
        ):  # an adjective may sit between: "cartas de control azules (3 por jugador)"
            after = re.sub(r"^\s*[^\W\d_]+(?=\s*\()", "", after)
        m = per.match(after)
        if m:
            numbers = find_numbers(m.group(1), lang)
            if numbers:
                stmt.per_player = numbers[0].value
                stmt.phrase = _phrase(t, end + len(t[end:]) - len(after) + m.end())
    return stmt


def _phrase(t: str, end: int) -> str:
    """The item's words up to the end of the count, closed at the end of its clause."""
    stop = re.search(r"[,.;:(]", t[end:])
    between = t[end : end + stop.start()] if stop is not None else t[end:]
    if len(_WORD.findall(between)) == 1 and not re.search(r"\d", between):
        end += len(between)  # a trailing adjective: "3 cartas de control azules"
    phrase = t[:end].strip(" ,;:")
    if phrase.count("(") > phrase.count(")"):
        phrase += ")"
    return phrase


def _term_for(idx: TermIndex, match: TermMatch, component: str) -> str:
    return sorted(t for t in match.terms if idx.component.get(t) == component)[0]


def statements(item: rtext.Item, lang: str, idx: TermIndex) -> list[Statement]:
    """The counts one list item states; a count in cards beats a count of decks for the same
    component ("Un mazo ..., de 50 cartas" is 50)."""
    units = _units(lang)
    found = []
    for n in find_numbers(item.text, lang):
        s = _statement(item.text, n, lang, idx, units, item)
        if s is not None:
            found.append(s)
    by_comp: dict[str, list[Statement]] = defaultdict(list)
    for s in found:
        by_comp[s.component].append(s)
    out = []
    for group in by_comp.values():
        units_first = [s for s in group if s.kind == "unit"]
        out += units_first[:1] if units_first else group[:1]
    return out


def check(view: GameView) -> list[Finding]:
    glossary = view.glossary
    content = view.content
    if glossary is None or not content.rules:
        return []
    known = set(view.totals)
    out: list[Finding] = []
    players = content.manifest.constants.get("players") if content.manifest else None
    for lang, rules in sorted(content.rules.items()):
        idx = index(glossary, lang)
        file = view.rel(rules.path)
        lines = read_text(rules.path).splitlines()
        for section in rules.sections:
            st = rtext.read(section)
            found: list[Statement] = []
            for item in st.items:
                found += [s for s in statements(item, lang, idx) if s.component in known]
            out += _compare(view, found, section, file, lang, players)
            # each list of counts in a sentence is a statement of its own: it may restate
            # what the list items say, so it is not added to them
            for sentence in _sentence_lists(st, section, lines, lang, idx, view.totals):
                found = [s for s in sentence if s.component in known]
                out += _compare(view, found, section, file, lang, players)
    return out


# ---------------------------------------------------------------- counts in sentences

_SENTENCE = re.compile(r"(?<=[.;:!?])\s+")


@lru_cache(maxsize=16)
def _elements(lang: str) -> re.Pattern | None:
    """What separates the parts of a list in running text (`counts.list_separators` in the
    language's file): commas and "y", "and", "와/과"..."""
    pattern = languages.get(lang).list_separators
    return re.compile(pattern) if pattern else None


def _sentence_lists(
    st: rtext.SectionText,
    section,
    lines: list[str],
    lang: str,
    idx: TermIndex,
    view_totals: dict[str, tuple[int, str]],
) -> list[list[Statement]]:
    """Counts listed in running text: "40 cartas de barco, 8 cartas de tormenta y 1 tablero",
    "맵 카드 15장과 명령 카드 30장". A sentence counts as such a list when two or more of its
    comma/and-separated parts are each a plain count of a component (the first may follow an
    introduction: "La caja contiene 40 cartas..."). Two counts only make a list of contents
    when one of them agrees with the manifest (else "roba 2 cartas de orden y 1 de control",
    an effect, would be one); three or more always do."""
    split = _elements(lang)
    if split is None:
        return []
    out = []
    for paragraph in st.paragraphs:  # (the first starts with the title)
        for sentence in _SENTENCE.split(paragraph):
            elements = [e for e in split.split(sentence) if e and e.strip()]
            if len(elements) < 2:
                continue
            found = []
            for position, element in enumerate(elements):
                stmt = _element_count(element, lang, idx, first=position == 0)
                if stmt is not None:
                    found.append(stmt)
            if len(found) < 2:
                continue
            if len(found) == 2 and not any(_agrees(view_totals, s) for s in found):
                continue  # "roba 2 cartas de orden y 1 de control": an effect, not the contents
            for stmt in found:
                stmt.item = rtext.Item(0, stmt.phrase, _line_of(stmt, section, lines))
            out.append(found)
    return out


def _agrees(totals: dict[str, tuple[int, str]], stmt: Statement) -> bool:
    total = totals.get(stmt.component)
    return total is not None and total[0] == stmt.value


def _element_count(element: str, lang: str, idx: TermIndex, first: bool) -> Statement | None:
    """The count one part of a sentence states, if the part is only that count."""
    units = _units(lang)
    element = element.strip(" .;:")
    placeholder = rtext.Item(0, element, 0)
    counter_language = languages.get(lang).numbers.uses_counters
    for n in find_numbers(element, lang):
        if counter_language:  # the counted thing comes before the number: "맵 카드 15장"
            rest = element[n.end :]
            tail = languages.get(lang).count_tail  # templates/languages/<code>.yaml
            if rest.strip() and not (tail and re.fullmatch(tail, rest)):
                continue
            # the counted term ends right before the number; an introduction may come first
            # ("상자에는 맵 카드 15장"): try from each word start, the shortest first
            starts = (
                [0] if not first else [0] + [i + 1 for i in range(n.start) if element[i] == " "]
            )
            for start in reversed(starts):
                local = Number(n.value, n.start - start, n.end - start, n.text, n.word, n.counter)
                stmt = _statement(element[start : n.end], local, lang, idx, units, placeholder)
                if stmt is not None:
                    return stmt
            continue
        else:
            if element[: n.start].strip() and not first:
                return None  # "roba 1 carta": a count inside a clause, not a listed count
            part, shift = element[n.start :], n.start
        local = Number(n.value, n.start - shift, n.end - shift, n.text, n.word, n.counter)
        stmt = _statement(part, local, lang, idx, units, placeholder)
        if stmt is not None:
            return stmt
    return None


def _line_of(stmt: Statement, section, lines: list[str]) -> int:
    """The line of the section where a sentence's count is written (else its heading)."""
    needle = stmt.phrase.split(" ")[0].lower()
    end = min(len(lines), section.line + 400)
    for number in range(section.line, end + 1):
        text = lines[number - 1].lower() if number - 1 < len(lines) else ""
        if stmt.phrase.lower() in text:
            return number
    for number in range(section.line + 1, end + 1):
        text = lines[number - 1].lower() if number - 1 < len(lines) else ""
        if needle and needle in text:
            return number
    return section.line


def _compare(
    view: GameView, found: list[Statement], section, file: str, lang: str, players
) -> list[Finding]:
    out = []
    by_comp: dict[str, list[Statement]] = defaultdict(list)
    for s in found:
        by_comp[s.component].append(s)
        if (
            s.per_player is not None
            and isinstance(players, (int, float))
            and s.per_player * players != s.value
        ):
            out.append(
                Finding(
                    "error",
                    "rules-count-per-player",
                    f"{s.component}: {s.per_player} per player × {players:g} players = "
                    f"{s.per_player * players:g}, "
                    f"but the rulebook's total is {s.value} (§{section.number} '{s.phrase}')",
                    file=file,
                    line=s.item.line,
                    lang=lang,
                    component=s.component,
                    hint="players comes from the manifest's constants; "
                    "fix the total or the per-player count",
                )
            )
    for comp, group in by_comp.items():
        total, source = view.totals[comp]
        stated = sum(s.value for s in group)
        if stated != total:
            if len(group) == 1:
                said = f"rulebook says {stated}"
                where = f"'{group[0].phrase}'"
            else:
                said = f"rulebook's counts add up to {stated}"
                where = " + ".join(f"'{s.phrase}'" for s in group[:6]) + (
                    " + ..." if len(group) > 6 else ""
                )
            out.append(
                Finding(
                    "error",
                    "rules-count",
                    f"{comp}: {said}, {source} says {total} (§{section.number} {where})",
                    file=file,
                    line=group[0].item.line,
                    lang=lang,
                    component=comp,
                    hint="fix the rulebook or manifest.yaml, "
                    "or accept the difference in accepted.yaml",
                )
            )
        parts: dict[str, list[Statement]] = defaultdict(list)
        for s in group:
            part = view.part_of(comp, s.term)
            if part is not None:
                parts[part].append(s)
        for part, members in parts.items():
            want, part_source = view.parts[comp][part]
            if want == total:
                continue  # the part is the whole component: compared above
            stated = sum(s.value for s in members)
            if stated != want:
                where = " + ".join(f"'{s.phrase}'" for s in members[:6])
                out.append(
                    Finding(
                        "error",
                        "rules-count",
                        f"{comp} ({part}): rulebook says {stated}, {part_source} says {want} "
                        f"(§{section.number} {where})",
                        file=file,
                        line=members[0].item.line,
                        lang=lang,
                        component=comp,
                        hint="fix the rulebook or the component's items, "
                        "or accept it in accepted.yaml",
                    )
                )
    return out

"""PO files for translators: `pnp i18n export` and `pnp i18n import`.

One entry per segment (generator/i18n/segments.py): `msgctxt` is the segment's context, `#:`
its place in the source, `msgid` the source text and `msgstr` the translation. Jinja blocks
become numbered placeholders (`{0}`, flagged python-brace-format so msgfmt and editors check
them); the extracted comment (`#.`) says what each placeholder stands for and lists the
glossary terms of the segment with their forms in the target language. An entry whose source
changed since the translation was reviewed is `fuzzy`, with the reviewed source as `#| msgid`.

A translation may use its own Jinja where the source's does not fit (a plural choice such as
`{{ 'space' if value == 1 else 'spaces' }}`): it is kept as written, must compile in the
sandbox and may only read variables the source reads.

Import checks every entry before anything is written: unknown contexts, placeholders that are
not the source's or are left out, Jinja that does not compile, a translation that would change
the rulebook's structure (a paragraph that becomes a heading or two list items) are findings
naming the entry, and then nothing is written. Fuzzy entries are written but not recorded as
reviewed; an untouched entry changes nothing, so export then import is a no-op.
"""

from __future__ import annotations

import difflib
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import polib
import yaml
from jinja2 import meta
from yaml.nodes import MappingNode, ScalarNode

from generator.errors import ContentError, Finding
from generator.fsio import write_together, write_user_file
from generator.i18n import plurals, tracking
from generator.i18n import segments as seg_mod
from generator.i18n.segments import Segment, jinja_spans, strip_jinja, text_digest
from generator.load import languages, templating
from generator.load.content import GameContent
from generator.load.glossary import load_glossary
from generator.load.language_guess import guess
from generator.load.rules_source import plain, rules_files
from generator.load.terms import index, normalize
from generator.load.yamlload import read_text

if TYPE_CHECKING:
    from generator.load.glossary import Glossary

PLACEHOLDER = re.compile(r"\{(\d+)\}")
FLAG = "python-brace-format"


# ---------------------------------------------------------------- placeholders


def expressions(text: str) -> list[str]:
    """The Jinja blocks of a text, each once, in order of first appearance."""
    out: list[str] = []
    for start, end in jinja_spans(text):
        if text[start:end] not in out:
            out.append(text[start:end])
    return out


def protect(text: str, exprs: list[str]) -> str:
    """Jinja blocks of `exprs` as {n}; other Jinja is left as written."""
    for start, end in reversed(jinja_spans(text)):
        block = text[start:end]
        if block in exprs:
            text = text[:start] + f"{{{exprs.index(block)}}}" + text[end:]
    return text


def restore(text: str, exprs: list[str]) -> str:
    return PLACEHOLDER.sub(lambda m: exprs[int(m.group(1))], text)


def _brace_clean(text: str) -> bool:
    """True when the only braces are placeholders and whole Jinja blocks (`{{`/`}}` are
    escaped braces in python-brace-format), so msgfmt can check the placeholders."""
    rest = strip_jinja(PLACEHOLDER.sub("", text))
    return "{" not in rest and "}" not in rest


def _variables(text: str) -> set[str]:
    names: set[str] = set()
    for block in expressions(text):
        names |= _block_variables(block)
    return names


@functools.lru_cache(maxsize=4096)
def _block_variables(block: str) -> frozenset[str]:
    """The variables one Jinja block reads (a pure function of its text: a source and its
    translations repeat the same blocks, each parsed once)."""
    try:
        return frozenset(meta.find_undeclared_variables(templating.ENV.parse(block)))
    except Exception:
        return frozenset()


# ---------------------------------------------------------------- export


def _glossary_notes(
    glossary: Glossary | None, seg: Segment, source: str, langs: list[str]
) -> list[str]:
    """The glossary terms the source text says, with their forms in each of `langs` (every
    translation of the game: the POT and each PO carry the same comment, as msgmerge wants)."""

    if glossary is None:
        return []
    idx = index(glossary, source)
    seen: list[str] = []
    notes = []
    for match in idx.find(normalize(plain(seg.text))):
        for term_id in sorted(match.terms):
            if term_id in seen:
                continue
            seen.append(term_id)
            term = next(t for t in glossary.terms if t.id == term_id)
            targets = []
            for lang in langs:
                forms = [f for f in term.forms(lang) if f.strip()]
                targets.append(f"{lang}: " + (" / ".join(forms) if forms else "(no form yet)"))
            notes.append(
                f"glossary: {match.text} ({term_id})"
                + (" -> " + "; ".join(targets) if targets else "")
            )
    return notes


def _where(content: GameContent, seg: Segment, ids: dict[Path, str | None]) -> str:
    """What the segment is and where it prints: the component, its size and the item for a
    component's string, the section for a rulebook's."""
    if seg.section:
        return f"{seg.kind}, section {seg.section}"
    if seg.kind != "string":
        return seg.kind
    file = seg.source.file
    if file not in ids:
        try:
            data = yaml.safe_load(read_text(file))
        except yaml.YAMLError:
            data = None
        ids[file] = str(data.get("id")) if isinstance(data, dict) and data.get("id") else None
    comp = next((c for c in content.components if c.id == ids[file]), None)
    key = seg.ctx.split(":", 1)[1]
    if comp is None:
        return f"string {key}"
    spec = comp.model
    w, h = (round(v * 25.4 / 72, 1) for v in comp.size_pt)
    size = f"{spec.size} {w:g}x{h:g} mm" if isinstance(spec.size, str) else f"{w:g}x{h:g} mm"
    item = re.match(r"items\[([^\]]+)\]", key)
    field_ = key.rsplit(".", 1)[-1]
    return f"component {comp.id} ({spec.kind}, {size}, layout {spec.layout})" + (
        ", the component's name"
        if key == "name"
        else (f", item {item.group(1)}" if item else ", every item") + f", field {field_}"
    )


def _comment(
    content: GameContent,
    glossary: Glossary | None,
    seg: Segment,
    source: str,
    ids: dict[Path, str | None],
    room: str | None = None,
) -> str:
    lines = [_where(content, seg, ids)]
    if room:
        lines.append(room)
    count = plurals.counted(seg.text)
    for n, block in enumerate(_placeholders(seg.text)):
        lines.append(f"{{{n}}} = {block}")
    if count is not None:
        lines.append(
            f"counted by {count.var}: msgid for 1, msgid_plural for more; "
            "one msgstr per plural form of your language"
        )
    langs = [lang for lang in content.languages if lang != source]
    lines += _glossary_notes(glossary, seg, source, langs)
    return "\n".join(lines)


def _placeholders(text: str) -> list[str]:
    """The Jinja blocks a text's entry shows as {n}: all of them, but a counted text's word
    choices (plurals.py), which its plural entry spells out instead."""
    count = plurals.counted(text)
    exprs = expressions(text)
    return [b for b in exprs if b not in count.choices] if count else exprs


def _plural_ids(text: str) -> tuple[str, str] | None:
    """(msgid, msgid_plural) of a counted text, or None."""
    count = plurals.counted(text)
    if count is None:
        return None
    rest = _placeholders(text)
    return protect(count.one, rest), protect(count.many, rest)


def _plural_rule(lang: str | None) -> plurals.Rule:
    return plurals.rule(languages.get(lang).plural_forms if lang else None)


def plural_forms_of(text: str, translation: str, rule: plurals.Rule) -> list[str]:
    """msgstr[0..n] of a translation of the counted `text` for a language of `rule`."""
    count = plurals.counted(text)
    assert count is not None
    protected = protect(translation, _placeholders(text))
    return plurals.forms(protected, count.var, rule.representatives())


def export(
    content: GameContent,
    lang: str | None,
    template: bool = False,
    hints: Mapping[str, str] | None = None,
) -> polib.POFile:
    """A PO file of every segment for `lang` (a POT with empty msgstr when `template`).
    `hints`: ctx -> one more line of the extracted comment (the room a face string has,
    render/room.py); the same for every language, so the POT and each PO agree."""
    source = seg_mod.source_language(content)
    segments = seg_mod.all_segments(content)
    glossary = load_glossary(content.dir)  # once: read per segment, it cost 30 s on a big game
    record = tracking.load(content)
    states = {}
    if lang and not template:
        states = {
            st.ctx: st
            for st in tracking.states(content, segments, record)
            if st.lang == lang and lang != source
        }
    ids: dict[Path, str | None] = {}  # component file -> its component's id
    po = polib.POFile(wrapwidth=78)
    po.metadata = {
        "Project-Id-Version": content.id,
        "Report-Msgid-Bugs-To": "",
        "POT-Creation-Date": "",
        "PO-Revision-Date": "",
        "Last-Translator": "",
        "Language-Team": "",
        "Language": "" if template or not lang else lang,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        **_plural_header(lang if not template else None),
        "X-Source-Language": source,
        "X-Generator": "pnp i18n export",
    }
    rule = _plural_rule(None if template else lang)
    for seg in segments:
        exprs = _placeholders(seg.text)
        counted = _plural_ids(seg.text)
        msgid = counted[0] if counted else protect(seg.text, exprs)
        st = states.get(seg.ctx)
        current = None if template or not lang else seg.translation(lang)
        if st is not None and st.status == "missing":
            current = None  # absent, or the source's text copied to keep its place
        msgstr = protect(current, exprs) if current is not None and not counted else ""
        flags = [FLAG] if _brace_checkable(seg, exprs, msgid, content.languages) else []
        previous = None
        previous_plural = None
        if st is not None and st.status in ("stale", "fuzzy"):
            flags.insert(0, "fuzzy")
            if st.old is not None:
                old_ids = _plural_ids(st.old) if counted else None
                previous = old_ids[0] if old_ids else protect(st.old, _placeholders(st.old))
                previous_plural = old_ids[1] if old_ids else None
        entry = polib.POEntry(
            msgctxt=seg.ctx,
            msgid=msgid,
            msgstr=msgstr,
            occurrences=[
                (seg.source.file.relative_to(content.dir).as_posix(), str(seg.source.line))
            ],
            comment=_comment(content, glossary, seg, source, ids, (hints or {}).get(seg.ctx)),
            flags=flags,
        )
        if counted:
            entry.msgid_plural = counted[1]
            parts = (
                plural_forms_of(seg.text, current, rule)
                if current is not None
                else [""] * rule.count
            )
            entry.msgstr_plural = dict(enumerate(parts))
        if previous is not None:
            entry.previous_msgid = previous
            entry.previous_msgctxt = seg.ctx
            if previous_plural is not None:
                entry.previous_msgid_plural = previous_plural
        po.append(entry)
    return po


def _plural_header(lang: str | None) -> dict[str, str]:

    forms = languages.get(lang).plural_forms if lang else None
    return {"Plural-Forms": forms} if forms else {}


def _brace_checkable(seg: Segment, exprs: list[str], msgid: str, langs: Iterable[str]) -> bool:
    """python-brace-format, so msgfmt and editors check the {n}: decided by the source and the
    game's own translations, never by the one language exported, so the POT and every PO carry
    the same flag (msgmerge against the POT then adds no fuzzy). Flagged when each translation
    the game has uses every {n} of the msgid: a translation that wrote its own Jinja instead (a
    plural choice, a case filter Korean does without) is checked by the import alone."""
    if not exprs or not _brace_clean(msgid):
        return False
    want = set(PLACEHOLDER.findall(msgid))
    for lang in langs:
        text = seg.translation(lang)
        if text is None or lang not in seg.places:
            continue
        if plurals.counted(seg.text):  # each plural form, as the entry shows it
            shown = plural_forms_of(seg.text, text, _plural_rule(lang))
        else:
            shown = [protect(text, exprs)]
        for msgstr in shown:
            if set(PLACEHOLDER.findall(msgstr)) != want or not _brace_clean(msgstr):
                return False
    return True


def write_po(po: polib.POFile, path: Path) -> None:
    """To a path the user named (-o) or under output/i18n/: a FIFO or device is written
    through, a folder refused, a regular file replaced atomically (fsio.write_user_file)."""

    if path.parent != Path(""):
        path.parent.mkdir(parents=True, exist_ok=True)
    write_user_file(path, str(po).encode("utf-8"))


# ---------------------------------------------------------------- import


@dataclass
class Edit:
    segment: Segment
    text: str  # the new translation, Jinja restored
    review: bool  # record as reviewed against today's source
    changed: bool  # differs from what is in the files
    # what to record: "review", "fuzzy:<source text>", "old:<source text>" or None
    record_as: str | None = None
    line: int | None = None  # the entry's line in the PO file


@dataclass
class ImportResult:
    findings: list[Finding] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    applied: int = 0
    reviewed: int = 0
    fuzzy: int = 0
    unchanged: int = 0
    conflicts: int = 0
    old: int = 0  # applied with --accept-old
    edits: list[Edit] = field(default_factory=list)
    staged: dict[Path, str] = field(default_factory=dict)  # file -> its new text
    new_rules: bool = False  # the language's rulebook is made by this import

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def read_po(path: Path) -> polib.POFile:
    try:
        return polib.pofile(str(path), wrapwidth=78)
    except (OSError, ValueError) as exc:
        raise ContentError(f"not a PO file: {exc}", path, code="po-unreadable") from None


def _finding(po_path: Path, entry: polib.POEntry, code: str, message: str, hint: str) -> Finding:
    return Finding(
        "error",
        code,
        f"entry '{entry.msgctxt}': {message}",
        file=str(po_path),
        line=entry.linenum,
        key=entry.msgctxt,
        hint=hint,
    )


def _check_placeholders(msgid: str, msgstr: str, source_text: str) -> str | None:
    """What is wrong with the msgstr's placeholders and Jinja, or None.

    A placeholder that stands for data (`{{ value }}`, `{% if value %}`) must be kept; one whose
    Jinja holds words of the source language (`{{ 'casilla' if n == 1 else 'casillas' }}`) may
    be dropped or replaced by the translation's own Jinja (a language without plurals)."""
    exprs = expressions(source_text)
    want = set(PLACEHOLDER.findall(msgid))
    used = set(PLACEHOLDER.findall(msgstr))
    unknown = sorted(used - want, key=int)
    if unknown:
        return "placeholder " + ", ".join(f"{{{u}}}" for u in unknown) + " is not in the source"
    own = expressions(msgstr)
    required = {n for n in want if int(n) < len(exprs) and not re.search(r"['\"]", exprs[int(n)])}
    # own Jinja may stand for a data block only as that block with its letter case changed
    # (ko `{{ name }}` for es `{{ name | lower }}`): `{{ value }}` for `{{ [value, 1] | max }}`
    # would print another number
    recased = {_uncased(block) for block in own}
    missing = sorted(
        (n for n in required - used if _uncased(exprs[int(n)]) not in recased), key=int
    )
    if (
        missing
    ):  # data: own Jinja may not stand in for it (`{{ value }}` for `{{ [value, 1] | max }}`)
        return (
            "placeholder "
            + ", ".join(f"{{{m}}} ({exprs[int(m)]})" for m in missing)
            + " of the source is missing"
            + (" (the translation's own Jinja may replace only words)" if own else "")
        )
    rest = strip_jinja(PLACEHOLDER.sub("", msgstr))
    if re.search(r"\{\{|\}\}|\{%|%\}|\{#|#\}|\{\s*\d+|\d+\s*\}", rest):
        return "a placeholder or Jinja block is broken (check every { and })"
    try:
        templating.check_syntax(restore(msgstr, exprs))
    except ContentError as exc:
        return f"with its placeholders restored it is not a valid template: {exc.message}"
    if own and not exprs:
        # Held to the rules of the YAML it lands in: a translation brings no Jinja of its own
        # where the source has none (a variable-free `{{ 'x' * 99999 }}` reads nothing).
        return "it adds Jinja ({{ }} or {% %}) where the source has none; translate the words"
    if own:
        tags = set(re.findall(r"\{%[-+]?\s*(\w+)", msgstr)) - {"if", "elif", "else", "endif"}
        if tags:
            return f"its Jinja uses {{% {sorted(tags)[0]} %}}; a translation may use if/else only"
        extra = _variables(msgstr) - _variables(source_text)
        if extra:
            return "its Jinja reads " + ", ".join(sorted(extra)) + ", which the source does not"
    return None


def check_language(content: GameContent, lang: str, po: polib.POFile, po_path: Path) -> None:
    """The PO file is for `lang`: its `Language` header (when it has one) names it, and its
    translations read as `lang`, not as another language of the game. Else one usage error."""

    header = (po.metadata.get("Language") or "").strip()
    if header and not same_language(header, lang):
        raise ContentError(
            f"this PO file is for '{header}' (its Language header), not {lang}",
            po_path,
            code="po-language",
            hint=f"import it as {header}, or export a {lang} PO file: "
            f"`pnp i18n export {content.id} --lang {lang}`",
        )
    # another translation's file mislabelled; text still in the source language is left to
    # `pnp check` (untranslated text in a complete language), as a draft may hold some
    votes: dict[str, int] = {}
    source = seg_mod.source_language(content)
    candidates = list(dict.fromkeys([lang, *content.languages]))
    for entry in po:
        if entry.obsolete or not _translated(entry):
            continue
        text = entry.msgstr or entry.msgstr_plural.get(0, "")
        said = guess(strip_jinja(PLACEHOLDER.sub(" ", text)), candidates)
        if said is not None and said != source:
            votes[said] = votes.get(said, 0) + 1
    if not votes:
        return
    top = max(votes, key=lambda k: votes[k])
    if top != lang and votes[top] >= 3 and votes[top] > 2 * votes.get(lang, 0):
        raise ContentError(
            f"the translations of this PO file read as {top} ({votes[top]} entries), not {lang} "
            f"({votes.get(lang, 0)})",
            po_path,
            code="po-language",
            hint=f"check which language this file is; importing it as {lang} would replace the "
            f"{lang} texts",
        )


def same_language(header: str, lang: str) -> bool:
    """A PO Language header (`ko`, `ko_KR`, `pt-BR`) names `lang`."""
    a = header.replace("_", "-").casefold()
    b = lang.replace("_", "-").casefold()
    return a == b or (a.startswith(b + "-") and "-" not in b)


_CASE_FILTER = re.compile(r"\|\s*(?:lower|upper|capitalize|title)\b")


def _uncased(block: str) -> str:
    return "".join(_CASE_FILTER.sub("", block).split())


def plan(
    content: GameContent,
    lang: str,
    po: polib.POFile,
    po_path: Path,
    accept_old: bool = False,
) -> ImportResult:
    """Check every entry: the edits to make (in `result.edits`) and, as findings, the entries
    skipped and why. A bad entry is skipped; the others still apply."""
    result = ImportResult()
    source = seg_mod.source_language(content)
    if lang == source:
        raise ContentError(
            f"{lang} is the source language of {content.id}; import a translation",
            po_path,
            code="usage",
        )
    if lang not in content.languages:
        raise ContentError(
            f"{lang} is not a language of {content.id}",
            po_path,
            code="usage",
            hint=f"add it first: `pnp i18n add {content.id} {lang}`",
        )
    check_language(content, lang, po, po_path)
    segments = {s.ctx: s for s in seg_mod.all_segments(content)}
    record = tracking.load(content)
    states = {
        st.ctx: st
        for st in tracking.states(content, list(segments.values()), record)
        if st.lang == lang
    }
    edits: list[Edit] = []
    claimed = {e.msgctxt for e in po if e.msgctxt in segments and not e.obsolete}
    rule = _plural_rule(lang)
    for entry in po:
        if entry.obsolete or not _translated(entry):
            continue
        seg = segments.get(entry.msgctxt or "") or _rematch(entry, segments, claimed)
        if seg is not None and entry.msgid_plural:
            entry = _flat(entry, seg, states.get(seg.ctx), lang, rule)
        if seg is None:
            result.findings.append(
                _finding(
                    po_path,
                    entry,
                    "po-unknown-context",
                    "no such string in the game",
                    "export a fresh PO file: the source was reorganised since this one",
                )
            )
            continue
        exprs = expressions(seg.text)
        st = states.get(seg.ctx)
        current = seg.translation(lang)
        if st is not None and st.status == "missing":
            current = None  # the source's text, copied to keep its place
        fuzzy = "fuzzy" in entry.flags
        now = protect(seg.text, exprs)
        if entry.msgid != now:
            # made against another source text than today's
            text = restore(entry.msgstr, exprs)
            if text == current:
                result.unchanged += 1
                continue  # nothing to lose, nothing to apply
            if not accept_old:
                result.conflicts += 1
                result.findings.append(
                    _finding(
                        po_path,
                        entry,
                        "po-conflict",
                        "the source changed since this PO file was made; not applied.\n"
                        f"      PO source:    {_one_line(entry.msgid)}\n"
                        f"      source now:   {_one_line(now)}\n"
                        f"      PO text:      {_one_line(entry.msgstr)}\n"
                        f"      {lang} now:       "
                        + (_one_line(protect(current, exprs)) if current else "(none)"),
                        "translate the new source in a fresh export "
                        f"(`pnp i18n export {content.id} --lang {lang}`), or "
                        "import with --accept-old to take the old translation anyway (it is "
                        "then recorded as stale)",
                    )
                )
                continue
        problem = _check_placeholders(entry.msgid, entry.msgstr, seg.text)
        if problem:
            result.findings.append(
                _finding(
                    po_path,
                    entry,
                    "po-placeholder",
                    problem,
                    "keep every {n} of the msgid exactly as it is; they stand for the game's data",
                )
            )
            continue
        text = restore(entry.msgstr, exprs)
        if seg.kind == "sheet-cell" and text != current:
            # pnp reads spreadsheets and never writes them: rewriting a workbook would lose
            # what pnp does not model (formulas, formatting, other sheets, comments)
            column = seg.ctx.rsplit("].data.", 1)[-1] + f".{lang}"
            cell = seg.cells.get(lang)
            where = (
                f"cell {seg.source.file.name}:{cell} (column {column})"
                if cell
                else f"a new column {column} of {seg.source.file.name}, row {seg.source.line}"
            )
            result.findings.append(
                _finding(
                    po_path,
                    entry,
                    "po-sheet-cell",
                    f"this translation belongs in the spreadsheet, {where}",
                    "paste it there and import again (a spreadsheet is never rewritten: it "
                    "would lose its formulas and formatting); or delete the entry from the PO "
                    "file to import the rest",
                )
            )
            continue
        changed = text != current
        status = st.status if st is not None else "unreviewed"
        record_as: str | None = None
        if entry.msgid != now:  # --accept-old: reviewed against the old source, so stale
            record_as = "old:" + restore(entry.msgid, exprs)
            result.old += 1
        elif fuzzy:
            result.fuzzy += 1
            if changed or status == "reviewed":
                basis = entry.previous_msgid if entry.previous_msgid else entry.msgid
                record_as = "fuzzy:" + restore(basis, exprs)
        elif changed or status in ("stale", "fuzzy"):
            record_as = "review"
        if not changed and record_as is None:
            result.unchanged += 1
            continue
        edits.append(Edit(seg, text, record_as == "review", changed, record_as, entry.linenum))
    result.edits = edits
    result.findings += _stage(content, lang, edits, po_path, result)
    return result


def _translated(entry: polib.POEntry) -> bool:
    """A msgstr, or every msgstr[n] of a plural entry (one left empty: not translated yet)."""
    if entry.msgid_plural:
        return bool(entry.msgstr_plural) and all(entry.msgstr_plural.values())
    return bool(entry.msgstr)


def _flat(
    entry: polib.POEntry, seg: Segment, st: tracking.State | None, lang: str, rule: plurals.Rule
) -> polib.POEntry:
    """A plural entry as the one-msgstr entry the rest of the import reads: msgid the whole
    source text it was made against (today's when its msgid and msgid_plural are today's),
    msgstr the translation the forms give, as Jinja (the translation unchanged when its forms
    are the ones given)."""
    exprs = expressions(seg.text)
    ids = _plural_ids(seg.text)
    count = plurals.counted(seg.text)
    current = seg.translation(lang)

    def source_of(one: str, many: str | None) -> str:
        if ids is not None and (one, many or ids[1]) == ids:
            return seg.text
        if st is not None and st.old is not None and _plural_ids(st.old) == (one, many):
            return st.old
        return restore(one, _placeholders(seg.text))  # an older source we no longer know

    parts = [entry.msgstr_plural.get(i, "") for i in range(rule.count)]
    if current is not None and count is not None:
        same = plural_forms_of(seg.text, current, rule) == parts
    else:
        same = False
    if same and current is not None:
        text = current
    elif count is not None:
        text = restore(plurals.jinja(parts, count.var, rule), _placeholders(seg.text))
    else:  # the source is no longer counted: its first form
        text = restore(parts[0], _placeholders(seg.text))
    flat = polib.POEntry(
        msgctxt=entry.msgctxt,
        msgid=protect(source_of(entry.msgid, entry.msgid_plural), exprs),
        msgstr=protect(text, exprs),
        flags=list(entry.flags),
    )
    if entry.previous_msgid:
        old = source_of(entry.previous_msgid, entry.previous_msgid_plural)
        flat.previous_msgid = protect(old, exprs)
    flat.linenum = entry.linenum
    return flat


def _rematch(
    entry: polib.POEntry, segments: dict[str, Segment], claimed: set[str | None]
) -> Segment | None:
    """The rulebook segment an entry with an unknown context was made for: a PO file from before
    the ids were anchored to content (`rules:§5.2:p3`), or from before its source was edited.
    The segment of the same section whose source is the msgid word for word, else the one most
    like it (difflib ratio >= FUZZY_RATIO, as msgmerge re-matches), that no other entry of the
    file names. None when there is no such segment, or two tie."""
    ctx = entry.msgctxt or ""
    if not ctx.startswith("rules:") or ctx.count(":") < 2:
        return None
    where = ctx.split(":")[1]
    heading = ctx.endswith(":title")
    candidates = [
        s
        for s in segments.values()
        if s.ctx.startswith(f"rules:{where}:")
        and s.ctx not in claimed
        and s.ctx.endswith(":title") == heading
    ]
    want = " ".join(entry.msgid.split())
    scored = []
    for s in candidates:
        mine = " ".join(protect(s.text, expressions(s.text)).split())
        if mine == want:
            scored.append((2.0, s))
        else:
            ratio = difflib.SequenceMatcher(None, want, mine).ratio()
            if ratio >= seg_mod.FUZZY_RATIO:
                scored.append((ratio, s))
    scored.sort(key=lambda p: -p[0])
    if not scored or (len(scored) > 1 and scored[0][0] == scored[1][0]):
        return None
    claimed.add(scored[0][1].ctx)
    return scored[0][1]


def _one_line(text: str, width: int = 90) -> str:
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


# ---------------------------------------------------------------- writing


def _plain_ok(text: str, in_flow: bool) -> bool:
    if not text or text != text.strip() or "\n" in text:
        return False
    if in_flow and any(c in text for c in ",[]{}"):
        return False
    if text[0] in "!&*?|>'\"%@`#-:" or ": " in text or " #" in text:
        return False
    try:
        return yaml.safe_load(f"k: {text}") == {"k": text}
    except yaml.YAMLError:
        return False


def _scalar(text: str, style: str | None, in_flow: bool) -> str:
    if style is None and _plain_ok(text, in_flow):
        return text
    if style == "'" and "\n" not in text:
        return "'" + text.replace("'", "''") + "'"
    return json.dumps(text, ensure_ascii=False)


def _yaml_edits(text: str, lang: str, edits: list[Edit]) -> str:
    """The YAML text with each edit's value set for `lang`, by splicing the scalars only."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    by_ctx = {e.segment.ctx.split(":", 1)[1]: e for e in edits}
    splices: list[tuple[int, int, str]] = []
    done: dict[int, tuple[str, Edit]] = {}  # a mapping reached twice is a shared anchor

    def walk(node, key: str) -> None:
        if isinstance(node, MappingNode):
            edit = by_ctx.get(key)
            if edit is not None and all(isinstance(k, ScalarNode) for k, _ in node.value):
                if id(node) in done:  # an alias (*name) of a mapping already edited
                    first, earlier = done[id(node)]
                    if earlier.text != edit.text:
                        raise ContentError(
                            f"'{key}' and '{first}' are one YAML anchor (&/*): their {lang} "
                            f"translations differ ({earlier.text!r}, {edit.text!r})",
                            edit.segment.source.file,
                            node.start_mark.line + 1,
                            key,
                            code="po-alias",
                            hint="give both entries the same translation, or stop sharing "
                            "the anchor in the YAML",
                        )
                    return  # written once, where the anchor is
                done[id(node)] = (key, edit)
                _splice(node, edit, splices, text, lang)
                return
            for k, v in node.value:
                if isinstance(k, ScalarNode):
                    walk(v, f"{key}.{k.value}" if key else str(k.value))
        elif hasattr(node, "value") and isinstance(node.value, list):
            for index, element in enumerate(node.value):
                walk(element, key + seg_mod._element_name(element, index))

    if root is not None:
        walk(root, "")
    for start, end, new in sorted(splices, reverse=True):
        text = text[:start] + new + text[end:]
    return text


def _splice(node: MappingNode, edit: Edit, splices: list, text: str, lang: str) -> None:
    values = {k.value: v for k, v in node.value}
    if lang in values:
        v = values[lang]
        style = v.style if v.style in (None, "'", '"') else '"'
        splices.append(
            (v.start_mark.index, v.end_mark.index, _scalar(edit.text, style, node.flow_style))
        )
        return
    last_key, last = node.value[-1]
    first_style = node.value[0][1].style
    style = first_style if first_style in (None, "'", '"') else '"'
    scalar = _scalar(edit.text, style, node.flow_style)
    end = last.end_mark.index
    if node.flow_style:
        splices.append((end, end, f", {lang}: {scalar}"))
        return
    indent = " " * last_key.start_mark.column
    if end > 0 and text[end - 1] == "\n":  # a block scalar ends at the next line
        splices.append((end, end, f"{indent}{lang}: {scalar}\n"))
        return
    newline = text.find("\n", end)
    at = len(text) if newline < 0 else newline
    splices.append((at, at, f"\n{indent}{lang}: {scalar}"))


def _rules_text(
    lines: list[str],
    places: dict[str, tuple[int, seg_mod._Block]],
    layout: seg_mod.RulesLayout,
    edits: list[Edit],
) -> str:
    """The rulebook text with each edit's segment replaced, bottom up. A paragraph or list item
    the translation does not have yet is inserted after the block of the nearest segment
    before it in its section (or after the section's heading)."""
    lines = list(lines)
    order = {i: k for k, i in enumerate(layout.ids)}
    ops: list[tuple[tuple[int, int, int], Edit, int]] = []  # (where, edit, after line)
    for e in edits:
        ctx = e.segment.ctx
        if ctx in places:
            block = places[ctx][1]
            column = block.cell[2] if block.cell else (block.call[2] if block.call else 0)
            ops.append(((block.first, 0, column), e, 0))
            continue
        after = _insertion_point(ctx, places, layout)
        if after is not None:
            ops.append(((after, 1, order[ctx]), e, after))
    for (_, inserting, _), edit, after in sorted(ops, key=lambda op: op[0], reverse=True):
        if inserting:
            k = order[edit.segment.ctx]
            source_block = layout.blocks[k][1]
            new = (source_block.prefix + edit.text).split("\n")
            anchor = _anchor_block(edit.segment.ctx, places, layout)
            if not (edit.segment.kind == "item" and anchor is not None and anchor.kind == "item"):
                new = ["", *new]
            if after < len(lines) and lines[after].strip():
                new.append("")
            lines[after:after] = new
            continue
        block = places[edit.segment.ctx][1]
        if block.kind == "call" and block.call is not None:
            row = lines[block.first - 1]
            start, end = block.call[2], block.call[3]
            lines[block.first - 1] = (
                row[:start] + seg_mod.quote(edit.text, row[start:end]) + row[end:]
            )
            continue
        if block.kind == "cell" and block.cell is not None:
            row = lines[block.first - 1]
            start, end, _ = seg_mod._cells(row)[block.cell[2] - 1]
            lines[block.first - 1] = row[:start] + edit.text + row[end:]
            continue
        new = (block.prefix + edit.text).split("\n")
        lines[block.first - 1 : block.last] = new
    return "\n".join(lines)


def _anchor_block(
    ctx: str, places: dict[str, tuple[int, seg_mod._Block]], layout: seg_mod.RulesLayout
) -> seg_mod._Block | None:
    """The translation's block of the nearest segment before `ctx` in its section (its heading
    last), or None."""
    k = layout.ids.index(ctx)
    section = layout.blocks[k][0]
    for j in range(k - 1, -1, -1):
        if layout.blocks[j][0] != section and layout.blocks[j][1].kind != "title":
            return None
        if layout.ids[j] in places:
            return places[layout.ids[j]][1]
        if layout.blocks[j][1].kind in ("heading", "title"):
            return None
    return None


def _insertion_point(
    ctx: str, places: dict[str, tuple[int, seg_mod._Block]], layout: seg_mod.RulesLayout
) -> int | None:
    """The line (0-based index) after which a paragraph or item the translation lacks goes."""
    k = layout.ids.index(ctx)
    if layout.blocks[k][1].kind not in ("paragraph", "item"):
        return None  # a table cell or a call's string has no place of its own to make
    anchor = _anchor_block(ctx, places, layout)
    return anchor.last if anchor is not None else None


def _stage(
    content: GameContent, lang: str, edits: list[Edit], po_path: Path, result: ImportResult
) -> list[Finding]:
    """Compute every file's new text and prove each edit landed where it should."""
    findings: list[Finding] = []
    staged: dict[Path, str] = {}
    yaml_by_file: dict[Path, list[Edit]] = {}
    rules_edits: list[Edit] = []
    for e in edits:
        if not e.changed:
            continue
        if e.segment.kind == "string":
            yaml_by_file.setdefault(e.segment.source.file, []).append(e)
        else:
            rules_edits.append(e)
    for path, file_edits in yaml_by_file.items():
        new = _yaml_edits(read_text(path), lang, file_edits)
        try:
            root = yaml.compose(new, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            raise ContentError(f"pnp made invalid YAML: {exc}", path, code="internal") from None
        found = {
            s.ctx: s
            for s in seg_mod.walk_yaml(path, root, content, seg_mod.source_language(content))
        }
        for e in file_edits:
            got = found.get(e.segment.ctx)
            if got is None or got.translation(lang) != e.text:
                raise ContentError(
                    f"writing {e.segment.ctx} did not round-trip", path, code="internal"
                )
        staged[path] = new
    if rules_edits:
        files = rules_files(content.dir)
        source = seg_mod.source_language(content)
        target = files.get(lang, content.dir / "rules" / f"{lang}.md")
        from_source = lang not in files
        result.new_rules = from_source
        layout = seg_mod.source_layout(content, source)
        assert layout is not None  # rules_edits come from the source's rulebook
        lines = read_text(files[source] if from_source else target).split("\n")
        places = (
            {i: (n, b) for n, (i, (_, b)) in enumerate(zip(layout.ids, layout.blocks, strict=True))}
            if from_source
            else seg_mod.rules_places(layout, lang, lines)
        )
        placeable = []
        for e in rules_edits:
            if (
                e.segment.ctx not in places
                and _insertion_point(e.segment.ctx, places, layout) is None
            ):
                findings.append(
                    Finding(
                        "error",
                        "po-broken-segment",
                        f"entry '{e.segment.ctx}': rules/{lang}.md has no such segment to hold it",
                        file=str(po_path),
                        key=e.segment.ctx,
                        hint=f"the {lang} rulebook is laid out differently from the source's: "
                        "add the section, table cell or template call yourself, then import again",
                    )
                )
            else:
                placeable.append(e)
        # where each segment is now, by its translation's text: what an edit wrote is found
        # again by the new text, so an edit that broke the structure shows
        known = {i: text_digest(b.text) for i, (_, b) in places.items()}
        # an entry that would change the rulebook's structure is skipped, the others placed
        while True:
            new = _rules_text(lines, places, layout, placeable)
            anchors = {**known, **{e.segment.ctx: text_digest(e.text) for e in placeable}}
            after = seg_mod.rules_places(layout, lang, new.split("\n"), anchors)
            broken = [
                e
                for e in placeable
                if (placed := after.get(e.segment.ctx)) is None
                or placed[1].text != e.text
                or placed[1].kind != e.segment.kind
            ]
            if not broken:
                break
            # the first one in reading order breaks what follows it: skip it, try again
            first = min(broken, key=lambda e: e.segment.source.line)
            findings.append(
                Finding(
                    "error",
                    "po-broken-segment",
                    f"entry '{first.segment.ctx}': the translation changes the rulebook's "
                    f"structure (a {first.segment.kind} must stay one {first.segment.kind})",
                    file=str(po_path),
                    key=first.segment.ctx,
                    hint="no blank lines, headings, list markers or table bars of its own",
                )
            )
            placeable.remove(first)
        if placeable or not from_source:
            staged[target] = new
        skipped = {e.segment.ctx for e in rules_edits} - {e.segment.ctx for e in placeable}
        result.edits = [e for e in result.edits if e.segment.ctx not in skipped]
    result.staged = staged
    return findings


def import_po(
    content: GameContent, lang: str, po_path: Path, accept_old: bool = False
) -> ImportResult:
    """Check every entry, skip the bad ones (as findings), then write every changed file and the
    review record at once, at the end."""
    po = read_po(po_path)
    result = plan(content, lang, po, po_path, accept_old)
    edits = result.edits
    record = tracking.load(content)
    segments = seg_mod.all_segments(content)
    before = tracking.render(record) if record.exists else None
    tracking.prepare(record, content, segments)
    rules_ids = {s.ctx for s in segments if s.ctx.startswith("rules:")}
    entries = record.reviewed.setdefault(lang, {})
    if result.new_rules:  # a new rulebook: what is not translated was copied from the source
        done = {e.segment.ctx for e in edits}
        for s in seg_mod.rules_segments(content, seg_mod.source_language(content)):
            if s.ctx not in done:
                entries[s.ctx] = tracking.UNTRANSLATED
    for e in edits:
        if e.record_as is None:
            continue
        if e.record_as == "review":
            basis, value = e.segment.text, None
        else:
            kind, basis = e.record_as.split(":", 1)
            value = kind
        d = tracking.digest(basis)
        record.texts[d] = basis
        entries[e.segment.ctx] = d if value in (None, "old") else tracking.FUZZY + d
        if value is None:
            result.reviewed += 1
    if not entries:
        del record.reviewed[lang]
    # the rulebook's blocks as this import leaves them, so the next reading finds each again
    written = {e.segment.ctx: e.text for e in edits if e.changed and e.segment.ctx in rules_ids}
    if result.new_rules:
        written = {s.ctx: written.get(s.ctx, s.text) for s in segments if s.ctx in rules_ids}
    if written:
        anchors = record.anchors.setdefault(lang, {})
        anchors.update({ctx: tracking.digest(text) for ctx, text in written.items()})
    after = tracking.render(record)
    writes = {
        path: text.encode("utf-8")
        for path, text in result.staged.items()
        if not path.exists() or read_text(path) != text
    }
    recorded = result.new_rules or any(e.record_as is not None for e in edits)
    if after != before and recorded:
        writes[record.path] = after
    # every file at once, at the end, as one transaction (fsio.write_together): a full disk,
    # a kill or a power cut leaves the content and the record all new or all old
    if writes:
        result.written += write_together(
            content.project.root, writes, f"i18n import of {po_path.name} into {content.id}"
        )
    result.applied = sum(1 for e in edits if e.changed)
    return result

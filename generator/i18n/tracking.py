"""Which translations are up to date, segment by segment: `content/<game>/rules/i18n-sync.yaml`.

When a translation is reviewed (`pnp i18n sync`, or a PO import of a non-fuzzy entry), the
source text it was reviewed against is recorded for that language and segment. `pnp new`
records the starter's translations so, and `pnp i18n add` a game's existing translations when
it has no record yet: tracking starts from the texts as they are. The texts are
kept once, by digest, so `pnp i18n status` can show what changed (old and new source side by
side) and a PO export can give the translator the previous msgid:

    # written by `pnp i18n sync` and `pnp i18n import`
    source: es
    format: segments
    languages:
      en:
        'components/rewards.yaml:data.cost': 3f1c9a0b5d2e7f64
        'rules:§5.2:li1': 9d442a56823a7784
    texts:
      3f1c9a0b5d2e7f64: 'Descarta {{ [value, 1] | max }} :card: ...'

A segment of a language is missing (no translation), reviewed (translated and recorded
against today's source), stale (recorded against another source text), fuzzy (written from a
PO entry the translator left fuzzy: `fuzzy:DIGEST`, the source text it was made against) or
unreviewed. Approval is a separate state on top of review: `pnp i18n approve` records, per
language and segment, the digest of the translation a second reader approved (`approved:`); it
holds while that translation is unchanged and still reviewed against today's source.

Rulebook segments are tracked by their stable, content-anchored ids (segments.stable_ids()).
For each language, `anchors:` keeps the digest of the translation text each rulebook id had when
the record was last written, so the translation's blocks are found again however the source's
paragraphs were inserted, moved or deleted since (segments.align()).

Two earlier formats are still read and migrated on the next write, keeping what was reviewed:
`format: segments` (positional rulebook contexts, `rules:§5.2:p3`: each maps to the id of the
block it names, or of the block whose text is the one reviewed when the source has moved since)
and the first one (one digest per rulebook section, no `format:` key: a section whose digest
matches counts as reviewed, one that changed is stale as a whole, and YAML strings are not
tracked until the file is rewritten by `pnp i18n sync`).
"""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml
from pydantic import Field

from generator.errors import ContentError
from generator.fsio import write_bytes as atomic_write
from generator.i18n import segments as seg_mod
from generator.i18n.segments import Segment, source_language
from generator.load.content import GameContent
from generator.load.model import LANG_RE, Strict
from generator.load.rules_source import rules_files
from generator.load.yamlload import YDict, load_yaml, read_text

FILE = "i18n-sync.yaml"
FORMAT = seg_mod.STABLE_FORMAT  # "stable"
POSITIONAL = "segments"  # the earlier per-string format, with positional rulebook contexts
HEADER = (
    "# Translations reviewed against their source, written by `pnp i18n sync` and\n"
    "# `pnp i18n import`. For each language and segment: the digest of the source text the\n"
    "# translation was reviewed against; `texts` keeps those source texts, so a stale translation\n"
    "# can show what changed. Written by pnp: do not edit.\n"
)


class SyncSchema(Strict):
    """The file's shape, for `pnp schema` (load() reads it itself, to locate every error)."""

    source: str | None = Field(None, pattern=LANG_RE, description="the source language")
    format: Literal["stable", "segments"] | None = Field(
        None,
        description="`stable` (rulebook segments by content-anchored ids); `segments` in the "
        "earlier positional format, absent in the first one-digest-per-section format",
    )
    languages: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {segment context (or, in the older format, section number) -> "
        "digest of the source text the translation was reviewed against, or `untranslated`}",
    )
    texts: dict[str, str] = Field(
        default_factory=dict, description="digest -> the source text it was computed from"
    )
    approved: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {segment context -> digest of the translation approved}",
    )
    anchors: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {rulebook segment id -> digest of its translation's text}, "
        "to find each translation again when the source's paragraphs move",
    )


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass
class Record:
    path: Path
    source: str | None = None
    reviewed: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> ctx -> digest
    texts: dict[str, str] = field(default_factory=dict)  # digest -> source text
    legacy: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> section -> digest
    approved: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> ctx -> digest
    anchors: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> id -> digest
    positional: bool = False  # `format: segments`: rulebook contexts by position, to migrate
    lines: dict[tuple[str, str | None], int | None] = field(default_factory=dict)
    exists: bool = False

    @property
    def tracks_strings(self) -> bool:
        return self.exists and not self.legacy


def path_of(content: GameContent) -> Path:
    return content.dir / "rules" / FILE


def _bad(path: Path, message: str, line: int | None, key: str | None = None) -> ContentError:
    return ContentError(
        message,
        path,
        line,
        key,
        "run `pnp i18n sync GAME --all` after review to rewrite it",
        code="i18n-sync-bad",
    )


def load(content: GameContent) -> Record:
    """The record, or an empty one. A malformed file raises ContentError (file, line, key)."""
    path = path_of(content)
    record = Record(path)
    if not path.exists():
        return record
    raw = load_yaml(path, allow_empty=True)
    record.exists = True
    if raw is None:
        return record
    if not isinstance(raw, YDict):
        raise _bad(path, "i18n-sync.yaml must be a mapping with 'source' and 'languages'", 1)
    unknown = set(raw) - {"source", "languages", "format", "texts", "approved", "anchors"}
    if unknown:
        key = sorted(unknown)[0]
        raise _bad(path, f"unknown key '{key}'", raw.line_of(key), key)
    record.source = raw.get("source")
    segmented = raw.get("format") in (FORMAT, POSITIONAL)
    record.positional = raw.get("format") == POSITIONAL
    languages = raw.get("languages") or {}
    if not isinstance(languages, dict):
        raise _bad(
            path, "'languages' must map language codes", raw.line_of("languages"), "languages"
        )
    for lang, entries in languages.items():
        line = languages.line_of(lang) if hasattr(languages, "line_of") else None
        entries = entries or {}
        if not isinstance(entries, dict) or not all(isinstance(v, str) for v in entries.values()):
            raise _bad(path, f"'{lang}' must map segments to digests", line, f"languages.{lang}")
        target = record.reviewed if segmented else record.legacy
        target[str(lang)] = {str(k): v for k, v in entries.items()}
        record.lines[(str(lang), None)] = line
        for key in entries:
            record.lines[(str(lang), str(key))] = (
                entries.line_of(key) if hasattr(entries, "line_of") else line
            )
    texts = raw.get("texts") or {}
    if not isinstance(texts, dict):
        raise _bad(path, "'texts' must map digests to texts", raw.line_of("texts"), "texts")
    record.texts = {str(k): str(v) for k, v in texts.items()}
    approved = raw.get("approved") or {}
    if not isinstance(approved, dict) or not all(isinstance(v, dict) for v in approved.values()):
        raise _bad(
            path, "'approved' must map languages to segments", raw.line_of("approved"), "approved"
        )
    record.approved = {
        str(lang): {str(k): str(v) for k, v in entries.items()}
        for lang, entries in approved.items()
    }
    anchors = raw.get("anchors") or {}
    if not isinstance(anchors, dict) or not all(isinstance(v, dict) for v in anchors.values()):
        raise _bad(
            path, "'anchors' must map languages to segments", raw.line_of("anchors"), "anchors"
        )
    record.anchors = {
        str(lang): {str(k): str(v) for k, v in (entries or {}).items()}
        for lang, entries in anchors.items()
    }
    return record


def recorded_digest(value: str | None) -> str | None:
    """The source digest a recorded value names (a fuzzy one too), or None."""
    if value is None or value == UNTRANSLATED:
        return None
    return value[len(FUZZY) :] if value.startswith(FUZZY) else value


def render(record: Record) -> bytes:
    """The file's text for `record` (what save() writes)."""
    used = {recorded_digest(d) for entries in record.reviewed.values() for d in entries.values()}
    data: dict = {
        "source": record.source,
        "format": FORMAT,
        "languages": {
            lang: dict(sorted(entries.items(), key=lambda kv: _order(kv[0])))
            for lang, entries in sorted(record.reviewed.items())
        },
        "texts": {d: t for d, t in sorted(record.texts.items()) if d in used},
    }
    approved = {lang: e for lang, e in sorted(record.approved.items()) if e}
    if approved:
        data["approved"] = {
            lang: dict(sorted(e.items(), key=lambda kv: _order(kv[0])))
            for lang, e in approved.items()
        }
    anchors = {lang: e for lang, e in sorted(record.anchors.items()) if e}
    if anchors:
        data["anchors"] = {
            lang: dict(sorted(e.items(), key=lambda kv: _order(kv[0])))
            for lang, e in anchors.items()
        }
    text = HEADER + yaml.safe_dump(
        data, allow_unicode=True, sort_keys=False, default_flow_style=False, width=100
    )
    return text.encode("utf-8")


def save(record: Record) -> None:
    data = render(record)
    if record.path.exists() and record.path.read_bytes() == data:
        return  # nothing new reviewed: the file is left as it is
    atomic_write(record.path, data)


def _order(ctx: str) -> tuple:
    """YAML strings by file and key, then the rulebook in reading order."""
    if not ctx.startswith("rules:"):
        return (0, ctx)
    parts = ctx.split(":")
    where = parts[1] if len(parts) > 2 else ""
    number = where[1:] if where.startswith("§") else ""
    try:
        key = tuple(int(p) for p in number.split(".")) if number else (-1,)
    except ValueError:
        key = (10**6,)
    return (1, key, parts[-1])


STATUSES = ("missing", "reviewed", "stale", "fuzzy", "unreviewed")
# Recorded for a rulebook segment that an import copied from the source into a new language's
# file to keep its place: it is there, but not translated.
UNTRANSLATED = "untranslated"
# Recorded for a translation written from a fuzzy PO entry: `fuzzy:` + the digest of the source
# text it was made against. Not reviewed; exported fuzzy again.
FUZZY = "fuzzy:"


@dataclass
class State:
    segment: Segment
    lang: str
    status: str  # "missing", "reviewed", "stale", "fuzzy", "unreviewed"
    old: str | None = None  # the source text the translation was reviewed against, when known
    approved: bool = False  # reviewed, and this very translation approved

    @property
    def ctx(self) -> str:
        return self.segment.ctx


def states(content: GameContent, segments: list[Segment], record: Record) -> list[State]:
    """The state of every segment in every target language of the game."""
    source = source_language(content)
    out = []
    if record.positional:  # read as it will be written: migrated, on a copy
        record = copy.deepcopy(record)
        _migrate_positional(content, segments, record)
    against_other = record.source not in (None, source)
    for lang in content.languages:
        if lang == source:
            continue
        reviewed = {} if against_other else record.reviewed.get(lang, {})
        legacy = {} if against_other else record.legacy.get(lang)
        for seg in segments:
            if seg.translation(lang) is None:
                out.append(State(seg, lang, "missing"))
                continue
            if legacy is not None and record.legacy:
                out.append(State(seg, lang, _legacy_status(content, seg, legacy, source)))
                continue
            recorded = reviewed.get(seg.ctx)
            if recorded == UNTRANSLATED and seg.translation(lang) == seg.text:
                out.append(State(seg, lang, "missing"))
            elif recorded is None or recorded == UNTRANSLATED:
                out.append(State(seg, lang, "unreviewed"))
            elif recorded.startswith(FUZZY):
                old = recorded[len(FUZZY) :]
                text = record.texts.get(old) if old != digest(seg.text) else None
                out.append(State(seg, lang, "fuzzy", text))
            elif recorded == digest(seg.text):
                approval = record.approved.get(lang, {}).get(seg.ctx)
                ok = approval == digest(seg.translation(lang) or "")
                out.append(State(seg, lang, "reviewed", approved=ok))
            else:
                out.append(State(seg, lang, "stale", record.texts.get(recorded)))
    return out


def _legacy_status(content: GameContent, seg: Segment, legacy: dict[str, str], source: str) -> str:
    if seg.section is None:
        return "reviewed"  # not tracked by the old format
    section = content.rules[source].section(seg.section)
    recorded = legacy.get(seg.section)
    if recorded is None:
        return "unreviewed"
    return "reviewed" if section is not None and recorded == section.digest() else "stale"


def mark(
    content: GameContent,
    segments: list[Segment],
    langs: list[str],
    sections: list[str] | None = None,
    contexts: list[str] | None = None,
) -> dict[str, list[str]]:
    """Record today's source text as reviewed for the translated segments of `langs` (only the
    given rulebook sections or contexts, when named). Returns lang -> contexts marked."""
    record = load(content)
    marked = mark_in(record, content, segments, langs, sections, contexts)
    save(record)
    return marked


def prepare(record: Record, content: GameContent, segments: list[Segment]) -> None:
    """Bring a record to today's format and source before it is changed."""
    source = source_language(content)
    migrated = record.positional
    if record.positional:
        _migrate_positional(content, segments, record)
    if record.source not in (None, source) or record.legacy:
        _migrate(content, segments, record, source)
    record.source = source
    langs = [lang for lang in content.languages if lang != source]
    refresh_anchors(record, segments, langs, keep=migrated)


def refresh_anchors(
    record: Record,
    segments: list[Segment],
    langs: list[str],
    texts: dict[str, dict[str, str]] | None = None,
    keep: bool = False,
) -> None:
    """Record, for each rulebook segment of `langs`, the digest of its translation's text as it
    is now (or will be: `texts`, lang -> id -> text an import writes), so the next reading
    finds each translation again wherever the source's paragraphs have moved. `keep`: the
    anchors a migration has just set stay as they are."""
    for lang in langs:
        anchors: dict[str, str] = dict(record.anchors.get(lang, {})) if keep else {}
        for seg in segments:
            if not seg.ctx.startswith("rules:"):
                continue
            text = (texts or {}).get(lang, {}).get(seg.ctx, seg.translation(lang))
            if text is not None and not (keep and seg.ctx in anchors):
                anchors[seg.ctx] = digest(text)
        if anchors:
            record.anchors[lang] = anchors
        else:
            record.anchors.pop(lang, None)


def mark_in(
    record: Record,
    content: GameContent,
    segments: list[Segment],
    langs: list[str],
    sections: list[str] | None = None,
    contexts: list[str] | None = None,
) -> dict[str, list[str]]:
    """mark(), on a record in memory (nothing written)."""
    prepare(record, content, segments)
    marked: dict[str, list[str]] = {}
    known = {s.ctx for s in segments}
    for lang in langs:
        entries = record.reviewed.setdefault(lang, {})
        for seg in segments:
            if sections is not None and seg.section not in sections:
                continue
            if contexts is not None and seg.ctx not in contexts:
                continue
            if seg.translation(lang) is None:
                continue
            if entries.get(seg.ctx) == UNTRANSLATED and seg.translation(lang) == seg.text:
                continue  # still the source's text, copied to keep its place
            d = digest(seg.text)
            entries[seg.ctx] = d
            record.texts[d] = seg.text
            marked.setdefault(lang, []).append(seg.ctx)
        for ctx in list(entries):
            if ctx not in known:
                del entries[ctx]
    return marked


def approve(
    content: GameContent,
    segments: list[Segment],
    langs: list[str],
    sections: list[str] | None = None,
) -> dict[str, list[str]]:
    """Record the current translation of every reviewed segment of `langs` as approved."""
    record = load(content)
    prepare(record, content, segments)
    approved: dict[str, list[str]] = {}
    for st in states(content, segments, record):
        if st.lang not in langs or st.status != "reviewed":
            continue
        if sections is not None and st.segment.section not in sections:
            continue
        entries = record.approved.setdefault(st.lang, {})
        entries[st.ctx] = digest(st.segment.translation(st.lang) or "")
        approved.setdefault(st.lang, []).append(st.ctx)
    save(record)
    return approved


def mark_untranslated(content: GameContent, lang: str, contexts: list[str]) -> None:
    """Record rulebook segments copied from the source as not translated yet."""
    record = load(content)
    record.source = source_language(content)
    entries = record.reviewed.setdefault(lang, {})
    for ctx in contexts:
        entries[ctx] = UNTRANSLATED
    save(record)


def _migrate(content: GameContent, segments: list[Segment], record: Record, source: str) -> None:
    """From the section-digest format (or another source language): keep what was reviewed."""
    if record.source not in (None, source):
        record.reviewed, record.legacy = {}, {}
        return
    for lang, sections in record.legacy.items():
        entries = record.reviewed.setdefault(lang, {})
        for seg in segments:
            if seg.translation(lang) is None:
                continue
            # the old format did not track YAML strings: they counted as reviewed, and keep
            # counting so (from today's source on); a section reviewed keeps its segments
            if _legacy_status(content, seg, sections, source) == "reviewed":
                d = digest(seg.text)
                entries[seg.ctx] = d
                record.texts[d] = seg.text
    record.legacy = {}


def _migrate_positional(content: GameContent, segments: list[Segment], record: Record) -> None:
    """From positional rulebook contexts (`rules:§5.2:p3`) to stable ids, keeping what was
    reviewed and approved. An entry goes to the block its context names in today's source,
    unless the source text it was reviewed against is, word for word, another segment of the
    same section and kind (the source has moved since): then to that one. Each translation's
    block at the old context is anchored to the same id, so a translation that was shown
    against the wrong paragraph finds its own again."""
    record.positional = False
    files = rules_files(content.dir)
    source = source_language(content)
    rules = [s for s in segments if s.ctx.startswith("rules:")]
    by_place = {(s.source.lines, s.source.cell, s.source.call): s for s in rules}
    positions: dict[str, Segment] = {}
    if source in files:
        for old, (_, block) in seg_mod.positional_contexts(
            read_text(files[source]).split("\n")
        ).items():
            key = (
                (block.first, block.last),
                (block.first, block.cell[2]) if block.cell else None,
                (block.call[2], block.call[3]) if block.call else None,
            )
            if key in by_place:
                positions[old] = by_place[key]

    for lang in set(record.reviewed) | set(record.approved):
        entries = record.reviewed.get(lang, {})
        target = (
            seg_mod.positional_contexts(read_text(files[lang]).split("\n")) if lang in files else {}
        )
        moved: dict[str, str] = {}  # old context -> id
        taken: set[str] = set()
        for ctx, value in entries.items():
            if not ctx.startswith("rules:"):
                continue
            seg = positions.get(ctx)
            text = record.texts.get(recorded_digest(value) or "")
            if text is not None and (seg is None or seg.text != text):
                where = ctx.split(":")[1]
                same = [
                    s
                    for s in rules
                    if s.text == text
                    and s.ctx not in taken
                    and s.ctx.split(":")[1] == where
                    and (seg is None or s.kind == seg.kind)
                ]
                if len(same) == 1:
                    seg = same[0]
            if seg is not None and seg.ctx not in taken:
                moved[ctx] = seg.ctx
                taken.add(seg.ctx)
        anchors = record.anchors.setdefault(lang, {})
        for old, new in moved.items():
            if old in target:
                anchors[new] = digest(target[old][1].text)
        record.reviewed[lang] = {
            moved.get(ctx, ctx): v
            for ctx, v in entries.items()
            if not ctx.startswith("rules:") or ctx in moved
        }
        approved = record.approved.get(lang)
        if approved:
            record.approved[lang] = {
                moved.get(ctx, ctx): v
                for ctx, v in approved.items()
                if not ctx.startswith("rules:") or ctx in moved
            }

"""Which translated sections are up to date: `content/<game>/rules/i18n-sync.yaml`.

`pnp i18n sync` records, for each language and section, the digest (Section.digest()) of the
source section at the time the translation was reviewed:

    # written by `pnp i18n sync`
    source: es
    languages:
      ko:
        '3.2': 5e0c2b1d9a7f3e61
        ...

A translation is stale when its source section's digest is no longer the recorded one: the
source changed after the translation was last marked in sync. Without the file nothing is
tracked; with it, a section of a recorded language that has no entry is "never synced".
`pnp i18n status` shows coverage and staleness per language.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import yaml
from pydantic import Field

from generator import fsio
from generator.check.game import GameView
from generator.errors import ContentError, Finding
from generator.model import LANG_RE, Strict
from generator.yamlload import YDict, load_yaml

FILE = "i18n-sync.yaml"
HEADER = (
    "# Translations marked in sync with their source, written by `pnp i18n sync` after review.\n"
    "# For each language and section: the digest of the source section when the translation\n"
    "# was last reviewed. When the source section changes, `pnp check` reports the\n"
    "# translation as stale until it is reviewed and marked again.\n"
)


@dataclass
class SyncFile:
    path: Path
    source: str | None = None
    languages: dict[str, dict[str, str]] = field(default_factory=dict)
    lines: dict[tuple[str, str | None], int | None] = field(default_factory=dict)
    exists: bool = False


class SyncSchema(Strict):
    """The file's shape, for `pnp schema` (load() reads it key by key, to locate every error)."""

    source: str | None = Field(None, pattern=LANG_RE, description="the source language")
    languages: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="language -> {section number -> digest of the source section when the "
        "translation was last reviewed}",
    )


def path_of(view: GameView) -> Path:
    return view.content.dir / "rules" / FILE


def load(view: GameView) -> SyncFile:
    """The sync file, or an empty one. A malformed file raises ContentError (file, line)."""
    path = path_of(view)
    sync = SyncFile(path)
    if not path.exists():
        return sync
    raw = load_yaml(path, allow_empty=True)
    sync.exists = True
    if raw is None:
        return sync
    if not isinstance(raw, YDict):
        raise ContentError(
            "i18n-sync.yaml must be a mapping with 'source' and 'languages'",
            path,
            1,
            code="i18n-sync-bad",
            hint="run `pnp i18n sync` to rewrite it",
        )
    unknown = set(raw) - {"source", "languages"}
    if unknown:
        key = sorted(unknown)[0]
        raise ContentError(
            f"unknown key '{key}'",
            path,
            raw.line_of(key),
            key,
            "keys: source, languages",
            code="i18n-sync-bad",
        )
    sync.source = raw.get("source")
    languages = raw.get("languages") or YDict()
    if not isinstance(languages, YDict):
        raise ContentError(
            "'languages' must map language codes to sections",
            path,
            raw.line_of("languages"),
            "languages",
            code="i18n-sync-bad",
        )
    for lang, sections in languages.items():
        line = languages.line_of(lang)
        if sections is None:
            sections = {}
        if not isinstance(sections, dict) or not all(isinstance(v, str) for v in sections.values()):
            raise ContentError(
                f"'{lang}' must map section numbers to digests",
                path,
                line,
                f"languages.{lang}",
                "run `pnp i18n sync` to rewrite it",
                code="i18n-sync-bad",
            )
        sync.languages[str(lang)] = {str(k): v for k, v in sections.items()}
        sync.lines[(str(lang), None)] = line
        for number in sections:
            sync.lines[(str(lang), str(number))] = (
                sections.line_of(number) if hasattr(sections, "line_of") else line
            )
    return sync


def save(sync: SyncFile) -> None:
    data = {
        "source": sync.source,
        "languages": {
            lang: dict(sorted(sections.items(), key=lambda kv: _key(kv[0])))
            for lang, sections in sorted(sync.languages.items())
        },
    }
    text = HEADER + yaml.safe_dump(
        data, allow_unicode=True, sort_keys=False, default_flow_style=False
    )
    fsio.write_text(sync.path, text)


def _key(number: str) -> tuple:
    try:
        return tuple(int(p) for p in number.split("."))
    except ValueError:
        return (10**6, number)


@dataclass
class LangStatus:
    lang: str
    total: int  # sections in the source
    translated: list[str]
    missing: list[str]
    in_sync: list[str]
    stale: list[str]
    unsynced: list[str]


def status(view: GameView, sync: SyncFile | None = None) -> list[LangStatus]:
    sync = sync or load(view)
    source_lang = view.source_lang
    if source_lang is None:
        return []
    source = view.content.rules[source_lang]
    out = []
    for lang, rules in sorted(view.content.rules.items()):
        if lang == source_lang:
            continue
        recorded = sync.languages.get(lang, {})
        st = LangStatus(lang, len(source.sections), [], [], [], [], [])
        for s in source.sections:
            if rules.section(s.number) is None:
                st.missing.append(s.number)
                continue
            st.translated.append(s.number)
            digest = recorded.get(s.number)
            if digest is None or sync.source not in (None, source_lang):
                st.unsynced.append(s.number)
            elif digest != s.digest():
                st.stale.append(s.number)
            else:
                st.in_sync.append(s.number)
        out.append(st)
    return out


def mark(
    view: GameView, langs: list[str] | None = None, sections: list[str] | None = None
) -> dict[str, list[str]]:
    """Record the current source digests for the given languages and sections (default: all
    translated sections of every language). Returns lang -> sections marked."""
    sync = load(view)
    source_lang = view.source_lang
    if source_lang is None:
        return {}
    if sync.source not in (None, source_lang):
        sync.languages = {}  # recorded against another source: start over
    sync.source = source_lang
    source = view.content.rules[source_lang]
    marked: dict[str, list[str]] = {}
    for lang, rules in sorted(view.content.rules.items()):
        if lang == source_lang or (langs and lang not in langs):
            continue
        entries = sync.languages.setdefault(lang, {})
        for s in source.sections:
            if sections and s.number not in sections:
                continue
            if rules.section(s.number) is not None:
                entries[s.number] = s.digest()
                marked.setdefault(lang, []).append(s.number)
        known = {s.number for s in source.sections}
        for number in list(entries):
            if number not in known:
                del entries[number]
    save(sync)
    return marked


def check(view: GameView) -> list[Finding]:
    source_lang = view.source_lang
    if source_lang is None:
        return []
    try:
        sync = load(view)
    except ContentError as exc:
        return [Finding.from_error(exc, root=view.root)]
    if not sync.exists:
        return []
    file = view.rel(sync.path)
    if sync.source not in (None, source_lang):
        return [
            Finding(
                "warning",
                "translation-unsynced",
                f"i18n-sync.yaml was recorded against source '{sync.source}', the source is now "
                f"'{source_lang}'",
                file=file,
                line=1,
                hint="review the translations, then run `pnp i18n sync`",
            )
        ]
    source = view.content.rules[source_lang]
    out = []
    for st in status(view, sync):
        rules = view.content.rules[st.lang]
        where = dict(file=view.rel(rules.path), lang=st.lang)
        if st.lang not in sync.languages:
            if st.translated:
                out.append(
                    Finding(
                        "warning",
                        "translation-unsynced",
                        f"{st.lang} has never been marked in sync with {source_lang}",
                        file=file,
                        line=None,
                        hint=f"review it, then `pnp i18n sync {view.content.id} --lang {st.lang}`",
                    )
                )
            continue
        for number in st.stale:
            s, t = source.section(number), rules.section(number)
            out.append(
                Finding(
                    "warning",
                    "translation-stale",
                    f"§{number} '{s.title}' changed in {source_lang} "
                    f"since {st.lang} was last marked in sync",
                    line=t.line,
                    key=f"§{number}",
                    **where,
                    hint=f"update the translation, then `pnp i18n sync {view.content.id} "
                    f"--lang {st.lang} --section {number}`",
                )
            )
        for number in st.unsynced:
            t = rules.section(number)
            out.append(
                Finding(
                    "warning",
                    "translation-unsynced",
                    f"§{number} ({st.lang}) has never been marked in sync with {source_lang}",
                    line=t.line,
                    key=f"§{number}",
                    **where,
                    hint=f"review it, then `pnp i18n sync {view.content.id} --lang {st.lang} "
                    f"--section {number}`",
                )
            )
    return out

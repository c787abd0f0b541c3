"""Draft languages: `languages: [es, en, {fr: draft}]` or `{fr: {complete: 90%}}` in game.yaml.

A draft language is work in progress: its findings are warnings (marked "draft fr"), it is
built with a "draft" mark when it can be, skipped with a notice when it cannot, and it never
stops the other languages from building. `{complete: 90%}` keeps a language a draft only while
less than 90% of its segments are translated.
"""

from __future__ import annotations

import re

from generator.errors import Finding
from generator.i18n import tracking
from generator.i18n.segments import all_segments, source_language
from generator.load.content import GameContent

_RULES_FILE = re.compile(r"(?:^|/)rules/([a-z]{2})\.md$")


def completeness(content: GameContent, lang: str) -> float:
    """The fraction of the game's segments translated into `lang`."""
    if lang == source_language(content):
        return 1.0
    segments = all_segments(content)
    if not segments:
        return 1.0
    states = tracking.states(content, segments, tracking.load(content))
    missing = sum(1 for st in states if st.lang == lang and st.status == "missing")
    return 1 - missing / len(segments)


def drafts(content: GameContent) -> set[str]:
    """The game's languages that are drafts now (computed once per loaded game)."""
    cached = getattr(content, "_drafts_now", None)
    if cached is None:
        cached = {
            lang
            for lang, needed in content.game.drafts.items()
            if needed > 1 or completeness(content, lang) < needed
        }
        content._drafts_now = cached  # type: ignore[attr-defined]
    return set(cached)


def language_of(finding: Finding) -> str | None:
    if finding.lang:
        return finding.lang if "-" not in finding.lang else None
    m = _RULES_FILE.search(finding.file or "")
    return m.group(1) if m else None


def soften(content: GameContent, findings: list[Finding]) -> list[Finding]:
    """A draft language's errors become warnings; the draft's own load errors are added."""
    draft = drafts(content)
    if not draft:
        return findings
    for exc in content.draft_errors:
        findings.append(Finding.from_error(exc))
        findings[-1].lang = getattr(exc, "lang", None)
    for f in findings:
        lang = language_of(f)
        if lang in draft and f.severity == "error":
            f.severity = "warning"
            f.message = f"(draft {lang}) {f.message}"
    return findings


def blocked(content: GameContent, findings: list[Finding]) -> set[str]:
    """Draft languages that cannot be built: they had errors (now warnings marked draft)."""
    draft = drafts(content)
    out = {getattr(exc, "lang", "") for exc in content.draft_errors}
    for f in findings:
        lang = language_of(f)
        if lang in draft and f.message.startswith(f"(draft {lang})"):
            out.add(lang)
    return out & draft

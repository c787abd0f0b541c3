"""Stale and unreviewed translations, segment by segment (generator/i18n/tracking.py).

A translation whose source text changed since it was last reviewed is a warning at the
translation's own place (the YAML key or the rulebook line), naming what changed. Without
rules/i18n-sync.yaml nothing is tracked.
"""

from __future__ import annotations

from generator.check.game import GameView
from generator.errors import ContentError, Finding
from generator.i18n import segments as seg_mod
from generator.i18n import tracking
from generator.i18n.tracking import SyncSchema

__all__ = ["SyncSchema", "check"]  # SyncSchema: the file's shape, for `pnp schema`


def _short(text: str | None, width: int = 60) -> str:
    if text is None:
        return "(not recorded)"
    flat = " ".join(text.split())
    return repr(flat if len(flat) <= width else flat[: width - 1] + "…")


def check(view: GameView) -> list[Finding]:
    content = view.content
    try:
        record = tracking.load(content)
        if not record.exists:
            return []
        segments = view.segments()
    except ContentError as exc:
        return [Finding.from_error(exc)]
    source = seg_mod.source_language(content)
    file = view.rel(record.path)
    if record.source not in (None, source):
        return [
            Finding(
                "warning",
                "translation-unsynced",
                f"i18n-sync.yaml was recorded against source '{record.source}', the source is "
                f"now '{source}'",
                file=file,
                line=1,
                hint=f"review the translations, then `pnp i18n sync {content.id} --all`",
            )
        ]
    out: list[Finding] = []
    legacy_sections: set[tuple[str, str]] = set()
    unreviewed: dict[str, list[tracking.State]] = {}
    for st in tracking.states(content, segments, record):
        place = st.segment.places.get(st.lang)
        if st.status == "unreviewed" and (record.tracks_strings or st.segment.section):
            unreviewed.setdefault(st.lang, []).append(st)
        if st.status == "fuzzy" and place is not None:
            out.append(
                Finding(
                    "warning",
                    "translation-fuzzy",
                    f"{st.ctx}: the {st.lang} translation was imported as fuzzy (a draft to "
                    "review): " + _short(st.segment.translation(st.lang)),
                    file=view.rel(place.file),
                    line=place.line,
                    key=st.ctx,
                    lang=st.lang,
                    hint="review it in a PO editor and clear the fuzzy flag, then import "
                    f"again (or `pnp i18n sync {content.id} --lang {st.lang}`)",
                )
            )
        if st.status != "stale" or place is None:
            continue
        hint = f"update the translation, then `pnp i18n sync {content.id} --lang {st.lang}" + (
            f" --section {st.segment.section}`" if st.segment.section else "`"
        )
        if record.legacy:  # one finding per section: the old format only knew sections
            number = st.segment.section or ""
            if (st.lang, number) in legacy_sections:
                continue
            legacy_sections.add((st.lang, number))
            section = content.rules[source].section(number)
            target = content.rules[st.lang].section(number) if st.lang in content.rules else None
            out.append(
                Finding(
                    "warning",
                    "translation-stale",
                    f"§{number} '{section.title if section else ''}' changed in {source} since "
                    f"{st.lang} was last marked in sync",
                    file=view.rel(place.file),
                    line=target.line if target else place.line,
                    key=f"§{number}",
                    lang=st.lang,
                    hint=hint,
                )
            )
            continue
        out.append(
            Finding(
                "warning",
                "translation-stale",
                f"{st.ctx} changed in {source} since {st.lang} was reviewed: "
                f"was {_short(st.old)}, now {_short(st.segment.text)}",
                file=view.rel(place.file),
                line=place.line,
                key=st.ctx,
                lang=st.lang,
                hint=hint,
            )
        )
    for lang, states in unreviewed.items():
        first = states[0]
        out.append(
            Finding(
                "warning",
                "translation-unsynced",
                f"{lang}: {len(states)} translated segment(s) never marked reviewed against "
                f"{source} (first: {first.ctx})",
                file=file,
                line=record.lines.get((lang, None)),
                lang=lang,
                hint=f"review them, then `pnp i18n sync {content.id} --lang {lang}`",
            )
        )
    return out

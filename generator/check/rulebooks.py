"""The rulebooks as `pnp print` builds them, run by `pnp check` without drawing a figure.

- every error the build would stop on (numbering gaps, sections missing across languages,
  broken Jinja, unknown components or items in a helper call, missing images or icons, bad
  bilingual pairs, unknown papers) is a finding, one per broken section;
- `missing-glyph`: a character of the printed text that the bundled font lacks (WeasyPrint
  would silently take it from a system font);
- `figure-missing`: a sentence that points at a picture ("como en la imagen", "as in the
  picture", "그림") in a section that has no figure. The phrases are language data:
  `figure_phrases` in templates/languages/<lang>.yaml.
"""

from __future__ import annotations

import re
from pathlib import Path

from generator import session
from generator.check.game import GameView
from generator.errors import ContentError, Finding
from generator.load.rules_source import RulesSource, Section
from generator.load.yamlload import load_yaml, read_text
from generator.render.fonts import fontbook

# A section has a figure when it draws a face or a board, or shows an image.
FIGURE = re.compile(r"\{\{[^}]*\b(?:figure|board|scene)\s*\(|!\[[^\]]*\]\(")


def check(view: GameView) -> list[Finding]:
    content = view.content
    if not content.rules and not content.game.rulebook.bilingual:
        return []
    # Deferred for start-up time: WeasyPrint (about 80 more modules) and markdown-it (20 ms),
    # only for a game with rulebooks.
    from generator.rulebook import book as rulebook

    run = rulebook.dry_run(content)
    out = []
    for lang, exc in run.errors:
        finding = Finding.from_error(exc)
        finding.file = view.rel(exc.file) if exc.file else finding.file
        finding.lang = lang
        out.append(finding)
    out += _glyphs(view, run)
    out += figure_missing(view)
    return out


def _glyphs(view: GameView, run) -> list[Finding]:
    """Every character a rulebook prints against the faces its CSS lists (the language's fonts,
    then the scripts' fallback faces): one finding per source line that has characters none of
    them covers, so WeasyPrint never fills in from a system font."""
    # Deferred for start-up time: WeasyPrint (about 80 more modules), only for a game with
    # rulebooks.
    from generator.rulebook import book as rulebook

    try:
        book = fontbook(view.content.project.fonts)
    except ContentError as exc:
        return [Finding.from_error(exc)]
    out = []
    for lang, language in run.languages.items():
        # Each face in CSS order takes away what it covers; a face is only read while some
        # character is still uncovered (the other scripts' faces, 9 MB of CJK among them, are
        # read for a text that needs them, not for every rulebook).
        uncovered = set(rulebook.printed_text(language))
        for family in rulebook.css_families(book, lang):
            for style in ("regular", "bold"):
                if uncovered:
                    chain = book.chain(family, style, lang)
                    uncovered = {c for c in uncovered if not chain.covers(c)}
        missing = "".join(sorted(uncovered))
        if not missing:
            continue
        rules = view.content.rules.get(lang)
        lines = read_text(rules.path).splitlines() if rules else []
        placed: set[str] = set()
        for number, text in enumerate(lines, start=1):
            here = "".join(sorted({c for c in text if c in missing}))
            if here:
                placed.update(here)
                out.append(_glyph_finding(view, rules, number, lang, here))
        rest = "".join(c for c in missing if c not in placed)
        if rest:  # printed from the game's data (tables, names), not from a line of the text
            out.append(_glyph_finding(view, rules, None, lang, rest))
    return out


def _glyph_finding(view: GameView, rules, line: int | None, lang: str, chars: str) -> Finding:
    shown = " ".join(f"'{c}' (U+{ord(c):04X})" for c in chars[:8])
    return Finding(
        "error",
        "missing-glyph",
        f"rulebook: no bundled face has a glyph for {shown}; it would print from a system font",
        file=view.rel(rules.path) if rules else "",
        line=line,
        lang=lang,
        hint="use other characters, or add them to a bundled face (templates/fonts/, "
        "the fonts of templates/languages/scripts.yaml)",
    )


@session.cached
def figure_phrases(languages_dir: Path, lang: str) -> tuple[str, ...]:
    path = languages_dir / f"{lang}.yaml"
    if not path.is_file():
        return ()
    raw = load_yaml(path, allow_empty=True) or {}
    phrases = raw.get("figure_phrases") or [] if isinstance(raw, dict) else []
    if not isinstance(phrases, list) or not all(isinstance(p, str) for p in phrases):
        raise ContentError(
            "figure_phrases must be a list of strings",
            path,
            raw.line_of("figure_phrases") if hasattr(raw, "line_of") else None,
            "figure_phrases",
            code="language-data",
        )
    return tuple(p.strip().lower() for p in phrases if p.strip())


def figure_missing(view: GameView) -> list[Finding]:
    out = []
    project = view.content.project
    for lang, rules in sorted(view.content.rules.items()):
        try:
            # the language file that counts: the project's own, else pnp's (languages.py)
            phrases = figure_phrases(project.template(f"languages/{lang}.yaml").parent, lang)
        except ContentError as exc:
            return [Finding.from_error(exc)]
        if phrases:
            out += _figure_missing(view, rules, phrases)
    return out


def _figure_missing(view: GameView, rules: RulesSource, phrases: tuple[str, ...]) -> list[Finding]:
    lines = read_text(rules.path).splitlines()
    out = []
    sections = rules.sections
    for i, section in enumerate(sections):
        if FIGURE.search(section.body):
            continue
        end = sections[i + 1].line - 1 if i + 1 < len(sections) else len(lines)
        hit = _first_phrase(lines, section, end, phrases)
        if hit is None:
            continue
        line, phrase = hit
        out.append(
            Finding(
                "warning",
                "figure-missing",
                f"§{section.number} says '{phrase}' but has no figure",
                file=view.rel(rules.path),
                line=line,
                lang=rules.lang,
                key=f"§{section.number}",
                hint="add {{ figure(...) }}, {{ board(...) }}, {{ scene(...) }} or an image to the "
                "section, or reword the sentence",
            )
        )
    return out


def _first_phrase(
    lines: list[str], section: Section, end: int, phrases: tuple[str, ...]
) -> tuple[int, str] | None:
    for number in range(section.line, end + 1):
        low = lines[number - 1].lower()
        for phrase in phrases:
            if phrase in low:
                return number, phrase
    return None

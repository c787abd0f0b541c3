"""Checks of a game's content against itself, for `pnp check`. One module per job:

| module | job |
|---|---|
| `game.py` | what every check reads: content, glossary, the manifest's totals and parts |
| `numbers.py` | numbers in text: digits, es/en/ko number words, Korean counters |
| `terms.py` | glossary terms in text (Korean particles, listed plural forms) |
| `text.py` | a rulebook section as words: prose and list items, without markup and notes |
| `invariants.py` | the manifest's `invariants:` (simpleeval) |
| `counts.py` | counts a rulebook states, in every language, against the manifest |
| `translations.py` | translations against their source: sections, list items, numbers, terms |
| `segments.py` | every translated string: numbers, terms, markup, placeholders, sentences |
| `i18n.py` | `rules/i18n-sync.yaml`: stale translations; `pnp i18n status|sync` |
| `rulebooks.py` | the rulebooks run as print runs them (no figures drawn); glyphs; figure-missing |
| `accepted.py` | `accepted.yaml`: findings the designers accept, with a reason |

Every check returns findings and never raises on bad content.
"""

from __future__ import annotations

from generator.check import counts, i18n, invariants, rulebooks, segments, translations
from generator.check.game import GameView
from generator.errors import Finding
from generator.load.content import GameContent


def validate_game(content: GameContent) -> list[Finding]:
    """Invariants, rulebook counts, translations and staleness (acceptances are applied by
    check.check_game, after every other check, render checks included)."""
    view = GameView(content)
    out: list[Finding] = []
    for check in (
        invariants.check,
        counts.check,
        translations.check,
        segments.check,
        i18n.check,
        rulebooks.check,
    ):
        out += check(view)
    out += _glossary_links(view)
    out += _glossary_names(view)
    return view.problems + _one_per_structure_problem(out)


# The rulebook dry run stops a language on the same misaligned sections that translations.py
# reports one by one (with the source's titles): keep those, not both.
_ALIGNMENT = {
    "translation-missing-section",
    "translation-extra-section",
    "translation-section-order",
}
_PRINT_ALIGNMENT = {"rules-numbering", "rules-missing-section", "rules-extra-section"}


def _one_per_structure_problem(found: list[Finding]) -> list[Finding]:
    misaligned = {f.lang for f in found if f.code in _ALIGNMENT}
    return [f for f in found if not (f.code in _PRINT_ALIGNMENT and f.lang in misaligned)]


def _glossary_links(view: GameView) -> list[Finding]:
    """A glossary term's `component:` must name a component of the game (or of its manifest)."""
    glossary = view.glossary
    if glossary is None:
        return []
    known = set(view.totals)
    out = []
    for i, term in enumerate(glossary.terms):
        if term.component and term.component not in known:
            out.append(
                Finding(
                    "warning",
                    "glossary-component",
                    f"term '{term.id}' links component '{term.component}', "
                    "which the game does not have",
                    file=view.rel(glossary.path),
                    line=glossary.line_of(i),
                    key=f"terms[{i}].component",
                    hint="components: "
                    + ", ".join(sorted(known))
                    + "; counts of this term in the rulebooks are not checked",
                )
            )
    return out


def _glossary_names(view: GameView) -> list[Finding]:
    """A component's name against the glossary term that names it.

    Several terms may link one component (the deck, a kind of card, its plural), so the term
    that names it is the one whose forms hold the component's name in some language; in every
    other language where both have text, the name must be one of that term's forms (case aside).
    A language without forms in the glossary, or without a name, is not compared."""
    glossary = view.glossary
    if glossary is None:
        return []
    languages = view.content.languages
    components = {c.id: c for c in view.content.components}
    out = []
    for i, term in enumerate(glossary.terms):
        comp = components.get(term.component or "")
        if comp is None or not isinstance(comp.model.name, dict):
            continue
        names = {lang: text for lang, text in comp.model.name.items() if lang in languages}
        forms = {lang: {_fold(f) for f in term.forms(lang)} for lang in names}
        agree = [lang for lang, text in names.items() if _fold(text) in forms[lang]]
        if not agree:
            continue  # another of the component's terms (its deck, a kind of it) names it
        for lang, text in names.items():
            if not forms[lang] or _fold(text) in forms[lang]:
                continue
            out.append(
                Finding(
                    "warning",
                    "glossary-name",
                    f"name: the {lang} name '{text}' of component '{comp.id}' is not a form "
                    f"of glossary term '{term.id}' ({view.rel(glossary.path)}:"
                    f"{glossary.line_of(i)}), which "
                    f"links this component and says {lang}: "
                    + ", ".join(term.forms(lang))
                    + f" (it agrees in {', '.join(agree)})",
                    file=view.rel(comp.file),
                    line=comp.line_of.get(f"name.{lang}") or comp.line_of.get("name"),
                    component=comp.id,
                    lang=lang,
                    key="name",
                    hint=f"rename the component in {lang}, or add '{text}' to the term's {lang} "
                    "forms if it is the same term",
                )
            )
    return out


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()

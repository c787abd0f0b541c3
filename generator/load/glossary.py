"""A game's glossary: every term in every language, with the forms it takes in the texts.

The rulebook, the validator and the card texts share it: a term's first form is canonical;
`component` links a physical component to its manifest id.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import Field, model_validator

from generator import session
from generator.cache import yaml_cache
from generator.load.model import ID_RE, LANG_RE, Strict
from generator.load.validation import validate
from generator.load.yamlload import YDict, load_yaml, read_text


class Term(Strict):
    model_config = Strict.model_config | {"extra": "allow"}  # language codes are the other keys
    id: str = Field(pattern=ID_RE)
    component: str | None = None
    note: str | None = None
    not_: dict[str, list[str]] = Field(
        default_factory=dict,
        alias="not",
        description="ordinary uses that are not this term, per language: phrases around a form "
        "('pass a * check'; * is any one word). A form inside such a phrase is not the term.",
    )
    group: str | None = Field(
        None,
        description="terms of one kind (vehicle types, colours...): in prose, one said where "
        "the other language says another of its group is a swap",
    )
    omit: list[str] = Field(
        default_factory=list,
        description="languages that may leave the term out (Korean and Spanish drop subjects): "
        "its absence there is not a finding, but its replacement by another term still is",
    )

    @model_validator(mode="after")
    def _forms(self):
        extra = self.model_extra or {}
        for key, value in extra.items():
            if not LANG_RE.fullmatch(key):
                raise ValueError(
                    f"unknown key '{key}' (terms have id, component, note, group, not, omit and "
                    "language codes)"
                )
            if isinstance(value, str):
                extra[key] = [value]
            elif not (isinstance(value, list) and value and all(isinstance(v, str) for v in value)):
                raise ValueError(f"'{key}' must be a list of forms")
        return self

    @model_validator(mode="after")
    def _senses(self):
        for lang in [*self.not_, *self.omit]:
            if not LANG_RE.fullmatch(lang):
                raise ValueError(f"'{lang}' in not/omit is not a language code")
        return self

    def forms(self, lang: str) -> list[str]:
        return list((self.model_extra or {}).get(lang) or [])


class GlossaryFile(Strict):
    terms: list[Term]


@dataclass
class Glossary:
    path: Path
    terms: list[Term]
    raw: YDict

    def line_of(self, index: int) -> int | None:
        return self.raw["terms"].line_of(index)

    def term(self, term_id: str) -> Term | None:
        return next((t for t in self.terms if t.id == term_id), None)

    def for_component(self, component_id: str) -> list[Term]:
        return [t for t in self.terms if t.component == component_id]


def load_glossary(game_dir: Path) -> Glossary | None:
    path = game_dir / "glossary.yaml"
    if not path.exists():
        return None
    stat = path.stat()
    return _load(path, stat.st_mtime_ns, stat.st_size)


@session.cached  # once per command and version of the file: the check and the rulebook read it
def _load(path: Path, mtime_ns: int, size: int) -> Glossary:
    text = read_text(path)
    kept = yaml_cache.get(path, text, "glossary")  # validated before, from this very text
    if isinstance(kept, Glossary):
        return kept
    raw = load_yaml(path)
    data = validate(GlossaryFile, raw, path)
    glossary = Glossary(path, data.terms, raw)
    yaml_cache.put(path, text, glossary, "glossary")
    return glossary

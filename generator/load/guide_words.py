"""The print-and-assembly guide's words (templates/guide/texts.yaml), per language.

A project's own file is read over pnp's, so a file written before a word was added still has
every word. Each word of the project's file may use only the fields pnp's own word fills
("Sheet {n}", "Sheets {first}–{last}, each"): the guide is written after every component file,
so a misspelt field would stop `pnp print` at its very end. `pnp check` reads the words of each
language first and names the file, line and word.
"""

from __future__ import annotations

from pathlib import Path
from string import Formatter
from typing import Any

from generator.errors import ContentError
from generator.load.project import DEFAULTS
from generator.load.yamlload import load_yaml

# pnp's own words, for a project whose templates/ has no guide/ (it need not copy every template)
DEFAULT_TEXTS = DEFAULTS / "guide" / "texts.yaml"


def texts(templates: Path, lang: str) -> dict[str, Any]:
    """The guide's words in `lang`: the project's templates/guide/texts.yaml over pnp's own."""
    out = _words(DEFAULT_TEXTS, lang) if DEFAULT_TEXTS.is_file() else {}
    path = templates / "guide" / "texts.yaml"
    if path.is_file() and path.resolve() != DEFAULT_TEXTS:
        data = load_yaml(path)
        for block in (data.get("fallback"), lang):  # the two blocks this language reads
            if isinstance(block, str) and isinstance(data.get(block), dict):
                pnps = _words(DEFAULT_TEXTS, block) if DEFAULT_TEXTS.is_file() else {}
                _same_fields(data[block], pnps, path, f"{block}.")
        _merge(out, _words(path, lang))
    return out


def _words(path: Path, lang: str) -> dict[str, Any]:
    """One texts file's words in `lang`; what a language lacks comes from its `fallback` block."""
    data = load_yaml(path)
    fallback = data.get("fallback")  # the block a language's missing words come from
    if not isinstance(fallback, str) or fallback not in data:
        raise ContentError(
            "the guide texts need 'fallback: <lang>' naming one of their blocks",
            path,
            code="schema",
        )
    out = dict(data[fallback])
    _merge(out, data.get(lang) or {})
    return out


def _merge(out: dict[str, Any], words: dict[str, Any]) -> None:
    for key, value in words.items():
        out[key] = {**out.get(key, {}), **value} if isinstance(value, dict) else value


def _same_fields(own: dict[str, Any], pnps: dict[str, Any], path: Path, where: str = "") -> None:
    """A word of the project's that names a field pnp's word does not fill is a located error."""
    for key, value in own.items():
        theirs = pnps.get(key)
        if isinstance(value, dict) and isinstance(theirs, dict):
            _same_fields(value, theirs, path, f"{where}{key}.")
        elif isinstance(value, str) and isinstance(theirs, str):
            line = _line(own, key)
            filled = _fields(theirs, DEFAULT_TEXTS, None, where + key)
            extra = _fields(value, path, line, where + key) - filled
            if extra:
                known = ", ".join(f"{{{f}}}" for f in sorted(filled))
                raise ContentError(
                    f"the guide fills no {', '.join(f'{{{f}}}' for f in sorted(extra))} here",
                    path,
                    line,
                    where + key,
                    hint=f"it fills {known}" if known else "this word takes no {fields}",
                    code="schema",
                )


def _fields(text: str, path: Path, line: int | None, key: str) -> set[str]:
    """The fields a word names ("{n}"); a lone brace is a located error."""
    try:
        return {name for _, name, _, _ in Formatter().parse(text) if name is not None}
    except ValueError as exc:
        raise ContentError(
            f"not a guide word ({exc})", path, line, key, hint="write {{ for a brace", code="schema"
        ) from None


def _line(words: dict[str, Any], key: str) -> int | None:
    line_of = getattr(words, "line_of", None)
    return line_of(key) if line_of else None

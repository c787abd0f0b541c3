"""The print-and-assembly guide's words (templates/guide/texts.yaml), per language.

A project's own file is read over pnp's, so a file written before a word was added still has
every word. Each word of the project's file may use only the fields pnp's own word fills
("Sheet {n}", "Sheets {first}–{last}, each"): the guide is written after every component file,
so a misspelt field would stop `pnp print` at its very end. Each field is written plain (the
guide formats its numbers), and a word is text or a block of words as pnp's is. `pnp check`
reads the words of each language first and names the file, line and word.
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
        data = _file(path)
        for block in (data.get("fallback"), lang):  # the two blocks this language reads
            if isinstance(block, str) and _block(data, block, path):
                pnps = _words(DEFAULT_TEXTS, block) if DEFAULT_TEXTS.is_file() else {}
                _same_fields(data[block], pnps, path, f"{block}.")
        _merge(out, _words(path, lang))
    return out


def _words(path: Path, lang: str) -> dict[str, Any]:
    """One texts file's words in `lang`; what a language lacks comes from its `fallback` block."""
    data = _file(path)
    fallback = data.get("fallback")  # the block a language's missing words come from
    if not isinstance(fallback, str) or not _block(data, fallback, path):
        raise ContentError(
            "the guide texts need 'fallback: <lang>' naming one of their blocks",
            path,
            code="schema",
        )
    out = dict(data[fallback])
    _merge(out, _block(data, lang, path) or {})
    return out


def _file(path: Path) -> dict[str, Any]:
    data = load_yaml(path)
    if not isinstance(data, dict):
        raise ContentError("the guide texts are not blocks of words", path, 1, code="schema")
    return data


def _block(data: Any, lang: str, path: Path) -> dict[str, Any] | None:
    """A language's block of words (None when the file has none); anything else is an error."""
    block = data.get(lang)
    if block is None or isinstance(block, dict):
        return block
    raise ContentError(
        "not a block of words",
        path,
        _line(data, lang),
        lang,
        hint="write `word: text` under it",
        code="schema",
    )


def _merge(out: dict[str, Any], words: dict[str, Any]) -> None:
    for key, value in words.items():
        out[key] = {**out.get(key, {}), **value} if isinstance(value, dict) else value


def _same_fields(own: dict[str, Any], pnps: dict[str, Any], path: Path, where: str = "") -> None:
    """A word of the project's that the guide could not use is a located error: a field pnp's
    word does not fill, a field with a format of its own, or text where pnp has a block of
    words (or the other way round)."""
    for key, value in own.items():
        theirs = pnps.get(key)
        if theirs is None:
            continue  # a word the guide never asks for
        line = _line(own, key)
        if isinstance(theirs, dict) != isinstance(value, dict) or (
            isinstance(theirs, str) and not isinstance(value, str)
        ):
            raise ContentError(
                "not a block of words" if isinstance(theirs, dict) else "not text",
                path,
                line,
                where + key,
                hint="pnp's own templates/guide/texts.yaml has this word's shape",
                code="schema",
            )
        if isinstance(value, dict):
            _same_fields(value, theirs, path, f"{where}{key}.")
            continue
        if not isinstance(theirs, str):
            continue  # pnp's words are text or blocks of them
        filled = {f for f, _ in _fields(theirs, DEFAULT_TEXTS, None, where + key)}
        named = _fields(value, path, line, where + key)
        extra = {f for f, _ in named} - filled
        formatted = sorted(f for f, plain in named if not plain)
        if extra or formatted:
            raise ContentError(
                f"the guide fills no {', '.join(f'{{{f}}}' for f in sorted(extra))} here"
                if extra
                else f"write {{{formatted[0]}}} plain: the guide formats what it fills",
                path,
                line,
                where + key,
                hint="it fills " + ", ".join(f"{{{f}}}" for f in sorted(filled))
                if filled
                else "this word takes no {fields}",
                code="schema",
            )


def _fields(text: str, path: Path, line: int | None, key: str) -> set[tuple[str, bool]]:
    """The fields a word names, each with whether it is plain ("{n}", not "{n:>3}" or
    "{n!r}"); a lone brace is a located error."""
    try:
        return {
            (name, not spec and conversion is None)
            for _, name, spec, conversion in Formatter().parse(text)
            if name is not None
        }
    except ValueError as exc:
        raise ContentError(
            f"not a guide word ({exc})", path, line, key, hint="write {{ for a brace", code="schema"
        ) from None


def _line(words: Any, key: str) -> int | None:
    line_of = getattr(words, "line_of", None)
    return line_of(key) if line_of else None

"""`unknown-language`: per-language text with a key that is not one of the game's languages.

A misspelt key (`eng:` for `en:`) used to pass: the mapping no longer looked like per-language
text, so the card printed the mapping itself. Now templates refuse to print a mapping
(templating: `mapping-as-text`) and this check names the key, with a "did you mean".

A mapping counts as per-language text when one of its keys is a language of the game; its
other keys are then suspect when they look like language codes (two or three lowercase
letters) or come close to one of the game's languages: a key that is no language code at all
(`eng`, `esp`, `EN`) can never print. A two-letter code of a language the game does not list
(`fr` in an es/en game) is left alone: a translation not yet listed is not a mistake.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from generator.errors import ContentError, Finding, rel
from generator.load.content import GameContent
from generator.load.layouts import game_store

_CODE = re.compile(r"^[a-z]{2,3}(-[a-z]{2})?\Z")
_ISO = re.compile(r"^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-[A-Z]{2})?\Z")  # a language tag: es, pt-BR


def check(content: GameContent) -> list[Finding]:
    langs = content.languages
    root = content.project.root
    out: list[Finding] = []
    seen: set[tuple[str, int | None, str]] = set()

    def report(key: str, mapping: Any, file: Path | None, line: int | None, where: dict) -> None:
        file = getattr(mapping, "file", None) or file
        if hasattr(mapping, "line_of"):
            line = mapping.line_of(key) or line
        mark = (str(file), line, key)
        if mark in seen:
            return
        seen.add(mark)
        close = _closest(key, langs)
        out.append(
            Finding(
                "error",
                "unknown-language",
                f"'{key}' is not one of the game's languages ({', '.join(langs)})",
                file=rel(file, root),
                line=line,
                key=key,
                hint=(f"did you mean '{close}'? " if close else "")
                + "per-language text takes the codes in game.yaml's languages:",
                **where,
            )
        )

    def visit(value: Any, file: Path | None, line: int | None, where: dict) -> None:
        if isinstance(value, dict):
            keys = [k for k in value if isinstance(k, str)]
            if any(k in langs for k in keys):
                for k in keys:
                    if k in langs or (_ISO.match(k) and not _closest(k, langs)):
                        continue
                    if _CODE.match(k.lower()) or _closest(k, langs):
                        report(k, value, file, line, where)
            for v in value.values():
                visit(v, getattr(value, "file", None) or file, getattr(value, "line", line), where)
        elif isinstance(value, list):
            for v in value:
                visit(v, getattr(value, "file", None) or file, getattr(value, "line", line), where)

    game_file = content.dir / "game.yaml"
    visit(content.game.title, game_file, None, {})
    visit(content.game.data, game_file, None, {})
    layouts: dict[str, tuple[str, Path]] = {}
    for comp in content.components:
        where = {"component": comp.id}
        visit(comp.model.name, comp.file, comp.line_of.get("name"), where)
        visit(comp.model.data, comp.file, comp.line_of.get("data"), where)
        for item in comp.items:
            visit(item.data, item.file, item.line, dict(where, item=item.id))
            for name in (item.layout, item.back):
                if name:
                    layouts.setdefault(name, (comp.id, comp.file))
    out += _layouts(content, layouts, visit)
    return out


def _layouts(content: GameContent, layouts: dict[str, tuple[str, Path]], visit) -> list[Finding]:
    """Text written in layouts (a per-language `text:`) is per-language text too."""
    layout_store = game_store(content.project, content.dir)
    out: list[Finding] = []
    done: set[str] = set()
    pending = list(layouts)
    while pending:
        name = pending.pop()
        if name in done:
            continue
        done.add(name)
        try:
            layout = layout_store.get(name)
        except ContentError:
            continue  # check_faces reports a layout that does not load
        for index, box in enumerate(layout.boxes):
            file, line = layout_store.box_location(name, index)
            label = box.id or f"boxes[{index}]"
            for field in ("text", "labels"):
                value = getattr(box, field, None)
                if isinstance(value, dict):
                    visit(value, file, line, {"box": label})
            sub = box.nested_layout()
            if sub:
                pending.append(sub)
    return out


def _closest(key: str, langs: tuple[str, ...]) -> str | None:
    for lang in langs:  # eng, esp, kor: a longer spelling of a code
        if key.startswith(lang):
            return lang
    close = difflib.get_close_matches(key, langs, n=1, cutoff=0.6)
    return close[0] if close else None

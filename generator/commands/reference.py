"""docs/reference.md, written from the content models themselves, so the reference cannot rot.

Every content file's keys (game.yaml and every export format's options, components, manifest,
layouts and every box kind, and the glossary, accepted and i18n-sync files where their models
exist) with type, units and default, and each field's own description.
`python -m generator.commands.reference > docs/reference.md` rewrites it; a test fails when
the file and the models disagree.
"""

from __future__ import annotations

import importlib
import types
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from generator.load.export_options import OPTIONS
from generator.render.boxes import ORDER
from generator.units import MM, Length

LENGTH = "length"  # units explained once, in the introduction

# (title, where the file lives, "module:Model"). Optional ones are skipped when absent.
DOCUMENTS: list[tuple[str, str, str]] = [
    ("game.yaml", "content/<game>/game.yaml", "generator.load.model:Game"),
    ("Components", "content/<game>/components/*.yaml", "generator.load.model:Component"),
    ("manifest.yaml", "content/<game>/manifest.yaml", "generator.load.model:Manifest"),
    ("Layouts", "layouts/<game>/*.yaml (content/ or templates/)", "generator.render.boxes:Layout"),
    ("glossary.yaml", "content/<game>/glossary.yaml", "generator.load.glossary:GlossaryFile"),
    ("accepted.yaml", "content/<game>/accepted.yaml", "generator.check.accepted:AcceptedFile"),
    ("i18n-sync.yaml", "content/<game>/rules/i18n-sync.yaml", "generator.check.i18n:SyncSchema"),
]


def _load(spec: str) -> type[BaseModel] | None:
    module, _, name = spec.partition(":")
    try:
        found = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return found if isinstance(found, type) and issubclass(found, BaseModel) else None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    out: list[type[BaseModel]] = []
    for arg in typing.get_args(annotation):
        out += _models_in(arg)
    return out


def type_name(annotation: Any) -> str:
    """A reader's name for a field's type."""
    if annotation is Length:
        return LENGTH
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_name(args[0])
    if origin in (typing.Union, types.UnionType):
        names = [type_name(a) for a in args if a is not type(None)]
        return " or ".join(dict.fromkeys(names))
    if origin is typing.Literal:
        return " / ".join(f"`{a}`" for a in args)
    if origin in (list, tuple, set):
        inner = ", ".join(type_name(a) for a in args if a is not Ellipsis) or "value"
        return f"list of {inner}"
    if origin is dict:
        key, value = (type_name(a) for a in args) if args else ("key", "value")
        return f"mapping {key} → {value}"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return f"[{annotation.__name__}](#{annotation.__name__.lower()})"
        return {
            "str": "text",
            "int": "whole number",
            "float": "number",
            "bool": "true/false",
            "Length": LENGTH,
        }.get(annotation.__name__, annotation.__name__)
    return str(annotation).replace("typing.", "")


def default_text(value: Any) -> str:
    if value is PydanticUndefined:
        return "required"
    if isinstance(value, Length):
        if value.fraction is not None:
            return f"{value.fraction * 100:g}%"
        return f"{value.points / MM:.4g}mm"
    if isinstance(value, BaseModel):
        return "see below"
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value).lower()
    if value in ({}, []):
        return "empty"
    return f"`{value}`"


def model_table(cls: type[BaseModel], lines: list[str], seen: set[str], heading: str) -> None:
    """One table for a model, then one for each model it nests (each documented once)."""
    if cls.__name__ in seen:
        return
    seen.add(cls.__name__)
    lines += [f"{heading} {cls.__name__}", ""]
    doc = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    if doc and not doc.startswith(("Usage docs", "A base class")):
        lines += [doc, ""]
    lines += ["| key | type | default | what it is |", "|---|---|---|---|"]
    nested: list[type[BaseModel]] = []
    for name, info in cls.model_fields.items():
        key = info.alias or name
        if info.default_factory is not None:
            default = default_text(info.default_factory())  # type: ignore[call-arg]
        else:
            default = default_text(info.default)
        description = (info.description or "").replace("|", "\\|").replace("\n", " ")
        kind = type_name(info.annotation).replace("|", "\\|")
        lines.append(f"| `{key}` | {kind} | {default} | {description} |")
        nested += _models_in(info.annotation)
    lines.append("")
    for sub in nested:
        model_table(sub, lines, seen, heading)


def box_kinds(lines: list[str], seen: set[str]) -> None:
    lines += ["## Box kinds", ""]
    lines += [
        "Every box has the keys of BoxBase below; each kind adds its own. `kind:` names the kind.",
        "",
    ]
    for kind in ORDER:
        model_table(kind.model, lines, seen, "###")


def export_formats(lines: list[str], seen: set[str]) -> None:
    lines += ["## Export formats", ""]
    lines += [
        "`print.exports` lists a format's bare name or `{format: NAME, ...}` with that format's "
        "own keys, below (load/export_options.py).",
        "",
    ]
    for model in OPTIONS.values():
        seen.discard(model.__name__)
        model_table(model, lines, seen, "###")


INTRO = """# pnp reference

This file is written from pnp's content models (`python -m generator.commands.reference >
docs/reference.md`); a test fails when it and the code disagree. The tutorial is in
`tutorial.md`, printing in `print-guide.md`.

Units. A **length** is a number with a unit: `3mm`, `0.5cm`, `0.25in`, `10pt`, or `50%` (of the
face, where the key allows it); a bare number is millimetres (`3` = `3mm`). Text sizes are
lengths too: write `8pt`. **Text** shown to players is a plain string or one string per language
(`{es: Hola, en: Hello, ko: 안녕}`), and may be a Jinja template over the item's data
(`"{{ damage }} damage"`). **Colours** are `#rrggbb`, `#rgb` or a CSS name, or a template giving
one.
"""


def reference() -> str:
    lines = [INTRO]
    # each export format's options get their own section after game.yaml, not its nested tables
    seen: set[str] = {model.__name__ for model in OPTIONS.values()}
    for title, where, spec in DOCUMENTS:
        cls = _load(spec)
        if cls is None:
            continue
        lines += [f"## {title}", "", f"Where: `{where}`.", ""]
        model_table(cls, lines, seen, "###")
        if title == "game.yaml":
            export_formats(lines, seen)
        if title == "Layouts":
            box_kinds(lines, seen)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    print(reference(), end="")

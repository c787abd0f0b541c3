"""Box kinds: one module per kind, each registered once (base.register).

| module | kinds |
|---|---|
| `text.py` | text |
| `rect.py` | rect |
| `ellipse.py` | circle, ellipse |
| `line.py` | line |
| `polygon.py` | polygon |
| `image.py` | image, svg |
| `slots.py` | slots |
| `repeat.py` | repeat |

`base.py` holds what they share (the base model, the registry, geometry, paint helpers),
`walk.py` the one walk over a layout that drawing and checking share, and `fitness.py` the
per-box fitness rules the kinds' checks call. The layout model's box union, `BOX_KINDS` and the
box table in docs/layouts.md are made from the registry here, so a new kind is one new module
plus one name in `MODULES` below.
"""

from __future__ import annotations

import importlib
from functools import reduce
from operator import or_
from typing import Annotated, Any, Literal

from pydantic import Field

from generator.load.model import Colour, Strict
from generator.render.boxes.base import KINDS, ORDER, BoxBase, BoxKind

# Importing a kind's module registers it; this order is the docs' box table's.
MODULES = ("text", "rect", "ellipse", "line", "polygon", "image", "slots", "repeat")
for _name in MODULES:
    importlib.import_module(f"generator.render.boxes.{_name}")

BOX_KINDS: list[str] = list(KINDS)
_MODELS = list(dict.fromkeys(kind.model for kind in ORDER))
Box: Any = Annotated[reduce(or_, _MODELS), Field(discriminator="kind")]


class Layout(Strict):
    extends: str | None = None
    description: str | None = None
    background: Colour | None = Field(None, description="fills the face and its bleed")
    background_ink: Literal["lighten", "keep", "drop"] = Field(
        "lighten", description="ink-saver sheets: what becomes of the background"
    )
    boxes: list[Box] = Field(default_factory=list)


COMMON_KEYS = [
    name
    for name, info in ((info.alias or name, info) for name, info in BoxBase.model_fields.items())
]


def readme_table() -> str:
    """The table of box kinds in docs/layouts.md, from the registry."""
    rows = [
        f"| kind | keys (besides {', '.join(COMMON_KEYS)}) |",
        "|---|---|",
    ]
    for kind in ORDER:
        names = ", ".join(f"`{n}`" for n in kind.names)
        rows.append(f"| {names} | {kind.keys} |")
    return "\n".join(rows)


__all__ = ["BOX_KINDS", "KINDS", "Box", "BoxKind", "Layout", "readme_table"]

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

Each kind's model (its keys) is in the layout schema, generator/load/boxes.py, where the
loader validates layouts; its module here adds what the kind does (draw, check) and registers
both. `base.py` holds what they share (the registry, geometry, paint helpers), `walk.py` the one
walk over a layout that drawing and checking share, and `fitness.py` the per-box fitness rules
the kinds' checks call. A new kind is its model in load/boxes.py plus one module here and one
name in `MODULES` below; importing this package checks that the two agree. The box table in
docs/layouts.md is made from the registry.
"""

from __future__ import annotations

import importlib

from generator.load.boxes import BOX_KINDS, COMMON_KEYS, MODELS, Box, Layout
from generator.render.boxes.base import KINDS, ORDER, BoxKind

# Importing a kind's module registers it.
MODULES = ("text", "rect", "ellipse", "line", "polygon", "image", "slots", "repeat")
for _name in MODULES:
    importlib.import_module(f"generator.render.boxes.{_name}")

# The schema's order (the README table's), whatever order the modules happened to register in
# (text.py imports image.py for inline icons).
ORDER.sort(key=lambda kind: MODELS.index(kind.model))
_ordered = {name: kind for kind in ORDER for name in kind.names}
KINDS.clear()
KINDS.update(_ordered)

# The schema (load/boxes.py) and the behaviour registered here must name the same kinds.
if list(KINDS) != BOX_KINDS or tuple(kind.model for kind in ORDER) != MODELS:
    raise RuntimeError(
        f"box kinds registered {list(KINDS)} differ from the layout schema's {BOX_KINDS} "
        "(generator/load/boxes.py)"
    )


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


__all__ = ["BOX_KINDS", "COMMON_KEYS", "KINDS", "Box", "BoxKind", "Layout", "readme_table"]

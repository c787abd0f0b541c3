"""The room a face string has, as a length budget a translator can act on (`#. room: ...`).

For a component's string, the first text box of the component's layout that prints it (its
`text` names the field in a Jinja block) gives the room: its inner width and height (the box
less its padding), the lines that fit at its size and at its smallest size (`min_size`), and
the characters a line holds at the average character width of the source text in the box's
face. A single-line box whose source text is plain also says how much of the line the source
takes. Computed from the layout and the fonts only, so the same POT comes out every run, and
the POT and every PO carry the same hint (msgmerge takes the POT's comments).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from pathlib import Path

from generator.load.boxes import TextBox
from generator.load.content import ComponentSpec, GameContent
from generator.load.layouts import game_store
from generator.render.fonts import FaceLike, fontbook
from generator.units import MM

_JINJA = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
_ICON = re.compile(r":[a-z][a-z0-9_-]*:")


def _field(ctx: str) -> str | None:
    key = ctx.split(":", 1)[1] if ":" in ctx else ""
    if not key or key == "name":
        return None
    return key.rsplit(".", 1)[-1]


def _box_for(boxes: list, field: str) -> TextBox | None:
    uses = re.compile(r"\{\{[^}]*(?<![\w.])" + re.escape(field) + r"\b")
    for box in boxes:
        if not isinstance(box, TextBox):
            continue
        texts = box.text.values() if isinstance(box.text, dict) else [box.text]
        if any(uses.search(t) for t in texts):
            return box
    return None


def lines_at(height: float, size: float, leading: float, face: FaceLike, wrap: bool) -> int:
    """The lines of `size` that fit `height` (textflow.block_height, solved for n)."""
    if not wrap:
        return 1
    first = size * (face.ascent + face.descent)
    if height < first:
        return 1
    return 1 + math.floor((height - first) / (size * leading) + 1e-9)


def hint(box: TextBox, size_pt: tuple[float, float], text: str, face: FaceLike) -> str | None:
    """`room: ...` for `text` (the source) in `box` of a face `size_pt`, or None when the
    source has no letters to measure."""
    plain = _ICON.sub(" ", _JINJA.sub(" ", text))
    plain = re.sub(r"\s+", " ", plain).strip()
    if not plain:
        return None
    pad = box.padding.points
    w, h = box.w.resolve(size_pt[0]), box.h.resolve(size_pt[1])
    inner_w, inner_h = w - 2 * pad, h - 2 * pad
    if inner_w <= 0 or inner_h <= 0:
        return None
    per_char = face.width(plain, 1.0) / len(plain)  # at 1 pt
    size = box.size.points
    smallest = min(box.min_size.points, size) if box.min_size else size

    def room(s: float) -> tuple[int, int]:
        n = lines_at(inner_h, s, box.leading, face, box.wrap)
        return n, n * math.floor(inner_w / (per_char * s))

    n, chars = room(size)
    where = f"box {box.id or 'text'} {w / MM:.0f}x{h / MM:.0f} mm"
    if pad:
        where += f", padding {pad / MM:g} mm"
    out = f"room: about {chars} characters at {size:g} pt"
    if smallest < size:
        out += f", {room(smallest)[1]} at the smallest {smallest:g} pt"
    out += f" ({where}, {n} line{'s' * (n != 1)} at {size:g} pt)"
    if n == 1 and not _JINJA.search(text) and not _ICON.search(text):
        used = face.width(plain, size) / inner_w
        out += f"; the source uses {used:.0%} of the line"
    return out


def room_hints(content: GameContent, strings: Iterable[tuple[str, Path, str]]) -> dict[str, str]:
    """ctx -> `room: ...` for each component string (ctx, its file, its source text) printed in
    a text box of its component's layout."""
    source = content.languages[0]
    store = game_store(content.project, content.dir)
    fonts = fontbook(content.project.fonts)
    by_file: dict[Path, ComponentSpec] = {c.file.resolve(): c for c in content.components}
    out: dict[str, str] = {}
    for ctx, file, text in strings:
        comp = by_file.get(file.resolve())
        field = _field(ctx)
        if comp is None or field is None:
            continue
        box = _box_for(list(store.get(comp.model.layout).boxes), field)
        if box is None:
            continue
        face = fonts.chain(box.font, box.style, source)
        found = hint(box, comp.size_pt, text, face)
        if found:
            out[ctx] = found
    return out

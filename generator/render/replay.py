"""Boxes drawn once per file and replayed: what a box draws is a function of its settings, its
rectangle and its data-bound settings only, so a box whose data-bound settings give the same
values again (a frame, a cost of 3, a "Unit" label, a back) is not drawn again: the PDF
operators it wrote the first time are written again.

A layout is compiled once per box and language (`bound`): the settings holding templates are
found then, and per card only those are evaluated to make the box's key. The operators are
kept per canvas (a TrueType subset and a font's resource name belong to one document), and only
when they name no page resource (a graphics state, an image or form, a colour space, a
shading): those belong to one page, and a replay on the next page would point at nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from generator.load import templating

if TYPE_CHECKING:
    from generator.render.boxes.base import Placed
    from generator.render.engine import FaceRenderer

# Kinds whose drawing reads nothing but the box's settings, its rectangle and the templates in
# its settings (images, SVG, slots and repeats read files or other layouts: drawn each time).
KINDS = frozenset({"text", "rect", "circle", "ellipse", "line", "polygon"})
# Operators that name a resource of the page: gs (graphics state), Do (image, form),
# cs/CS/scn/SCN (colour spaces), sh (shading).
_PAGE_RESOURCE = re.compile(r"(?:^|\s)(?:gs|Do|cs|CS|scn|SCN|sh)(?:\s|$)")
_LIMIT = 4096  # kept operator lists per canvas: a 10,000-card deck holds few of them
_GIVE_UP = 1024  # drawings of a box after which a box that is seldom replayed is not kept
# Settings the walk itself reads (its key has their outcome: the rectangle and the angle), or
# that draw nothing.
_WALKED = frozenset({"if_", "rotate", "id", "kind", "holds"})


def bound(renderer: FaceRenderer, box: Any) -> tuple[str, ...] | None:
    """The names of `box`'s settings that hold templates in this language (compiled once per
    box), or None when the box is never replayed."""
    cache: dict[int, tuple[Any, tuple[str, ...] | None]] = renderer.compiled
    hit = cache.get(id(box))
    if hit is not None and hit[0] is box:
        return hit[1]
    names: tuple[str, ...] | None = None
    if box.kind in KINDS and box.opacity == 1:
        found = []
        for name in type(box).model_fields:
            value = getattr(box, name)
            if isinstance(value, dict):
                value = value.get(renderer.lang, "")
            if isinstance(value, str) and name not in _WALKED and templating.is_template(value):
                found.append(name)
        names = tuple(found)
    cache[id(box)] = (box, names)
    return names


def key(renderer: FaceRenderer, canvas: Any, placed: Placed) -> tuple | None:
    """What the box's drawing depends on, or None when it is drawn afresh each time."""
    names = bound(renderer, placed.box)
    if names is None or getattr(canvas, "ink_hooks", None) is not None:
        return None
    kept = canvas.__dict__.get("_pnp_replay")
    if kept is not None and id(placed.box) in kept.dropped:  # new on nearly every card
        return None
    r = placed.rect
    values = tuple(renderer.text(getattr(placed.box, name), placed.ctx) for name in names)
    state = canvas._extgstate._d  # an alpha set outside the box changes what the box writes
    return (
        id(placed.box),
        r.x,
        r.y,
        r.w,
        r.h,
        placed.angle,
        placed.transform,
        values,
        tuple(state.items()) if state else (),
        canvas._fontname,
        canvas._fontsize,
        canvas._leading,
    )


class Replay:
    """The operators each box wrote on one canvas, by key."""

    def __init__(self) -> None:
        self.ops: dict[tuple, list[str] | None] = {}
        self.tally: dict[int, list[int]] = {}  # per box: [replays, drawings]
        self.dropped: set[int] = set()  # boxes no longer worth a key (worth_keeping)

    @staticmethod
    def of(canvas: Any) -> Replay:
        replay = canvas.__dict__.get("_pnp_replay")
        if replay is None:
            replay = canvas._pnp_replay = Replay()
        return replay

    def play(self, canvas: Any, k: tuple) -> bool:
        ops = self.ops.get(k)
        if ops is None:
            return False
        canvas._code.extend(ops)
        self.tally[k[0]][0] += 1
        return True

    def worth_keeping(self, k: tuple) -> bool:
        """Whether to keep what this box draws now: not for a box that draws something new on
        nearly every card (a title, a card number), once that is clear."""
        tally = self.tally.get(k[0])
        if tally is None:
            tally = self.tally[k[0]] = [0, 0]
        tally[1] += 1
        if tally[1] < _GIVE_UP or tally[0] * 8 >= tally[1]:
            return True
        self.dropped.add(k[0])
        return False

    def keep(self, k: tuple, box: Any, ops: list[str]) -> None:
        if len(self.ops) >= _LIMIT:
            self.ops.clear()
        if not _PAGE_RESOURCE.search(" ".join(ops)):
            self.ops[k] = ops
        # else: not kept; drawn afresh next time (page resources are rare in such boxes)

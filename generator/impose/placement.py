"""What a placement plan hands the one sheet writer (writer.py), and what both share.

A plan says, sheet by sheet, which faces go where: grid sheets and tiles (sheets.py), packed
pieces (packed_sheets.py). Each placed face knows how to draw itself and its manifest slot,
and how to place its back behind it once the writer gives it the back sheet's transform. The
writer owns everything else: the file, the pages and their boxes, the duplex back pages, the
crop marks mirrored on them, registration targets, labels and the manifest entries.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from reportlab.pdfgen.canvas import Canvas

from generator.impose import grid as impose
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.model import PrintSettings
from generator.render.engine import colour

MARK_WIDTH = 0.25  # pt: hairline crop marks
LABEL_SIZE = 6.0  # pt: sheet labels (outside the trim, they may be below 6.5 pt)
CUT_COLOUR = "#8c8c8c"
CUT_WIDTH = 0.35  # pt

Segment = tuple[float, float, float, float]
# Operators that name a resource of the page: gs, Do, cs/CS/scn/SCN, sh.
_PAGE_RESOURCE = re.compile(r"(?:^|\s)(?:gs|Do|cs|CS|scn|SCN|sh)(?:\s|$)")


@dataclass
class Copy:
    item: ItemSpec
    copy: int


def copies(comp: ComponentSpec) -> list[Copy]:
    return [Copy(item, n + 1) for item in comp.items for n in range(item.count)]


@dataclass(frozen=True)
class SheetJob:
    """One sheet file to write: what goes on it and where it goes. `packed` names packed
    sheets (a sheet group, or a shaped component); without it the one component in `comps`
    goes on a grid, or on tiles when a face is bigger than the sheet."""

    content: GameContent
    lang: str
    paper: str
    comps: tuple[ComponentSpec, ...]
    settings: Mapping[str, PrintSettings]  # component id -> its print settings
    out: Path
    rel_path: str  # the path in the build manifest
    packed: str | None = None
    canvas_cls: type[Canvas] = Canvas  # ink-saver draws through a Canvas subclass
    kind: str = "components"  # the manifest's file kind and format
    fmt: str = "sheets"


def drawing(fn: Callable[..., None], *args: Any, **kwargs: Any) -> Callable[[Canvas], None]:
    """`fn(canvas, *args, **kwargs)` on the canvas the writer draws on; the arguments are
    bound now (a plan's loop moves on before the writer draws)."""
    return lambda canvas: fn(canvas, *args, **kwargs)


@dataclass(frozen=True)
class Face:
    """A face on a page: how to draw it, and its slot in the build manifest."""

    draw: Callable[[Canvas], None]
    slot: dict


@dataclass(frozen=True)
class Placed:
    """A face on a front page, and its back (None without one), placed by the back sheet's
    transform (the duplex flip and the back offset)."""

    front: Face
    back: Callable[[impose.Affine], Face] | None = None


@dataclass(frozen=True)
class Sheet:
    """One sheet of a plan: its faces, the rectangles for TrimBox and BleedBox, and where it
    stands in the file ("2/5") for its label."""

    placed: list[Placed]
    trim: impose.Rect
    bleed: impose.Rect
    where: str
    page: tuple[float, float] | None = None  # a size of its own (a landscape tile)
    source: Any = None  # what the plan draws the sheet's guides from (cells, blocks, a tile)
    extra: dict = field(default_factory=dict)  # more keys for the page's manifest entry


class Plan(Protocol):
    """A kind of sheet, for the writer."""

    comps: list[ComponentSpec]  # the components on the sheets, in content order
    lead: PrintSettings  # sheet-wide settings: margin, duplex, back offset
    name: str  # the manifest's `component` of the file
    sided: bool  # backs on duplex pages and labels naming the side (tiles have neither)

    def sheets(self) -> Iterator[Sheet]: ...

    def guides(self, canvas: Canvas, sheet: Sheet) -> list[Segment]:
        """Draw the front's crop marks and cut lines; return the crop marks (the back repeats
        them, mirrored; labels and targets keep out of them)."""
        ...

    def strip(self, sheet: Sheet, bleed: impose.Rect) -> impose.Rect:
        """Where the label may go on a page whose faces take `bleed`."""
        ...

    def file_extra(self) -> dict:
        """Keys of the file's manifest entry that describe this kind of sheet."""
        ...


def draw_segments(canvas, segments, stroke: str, width: float) -> None:
    if not segments:
        return
    canvas.saveState()
    canvas.setStrokeColor(colour(stroke))
    canvas.setLineWidth(width)
    for x1, y1, x2, y2 in segments:
        canvas.line(x1, y1, x2, y2)
    canvas.restoreState()


def recorded(canvas, key: Hashable, fn: Callable[..., None], *args: Any) -> None:
    """`fn(canvas, *args)`, for a drawing that writes the same operators whenever its key is
    the same (crop marks, cut lines, registration targets: the same on every sheet of a
    file): drawn once per canvas, then its operators are written again. They hold no font,
    image or page resource, and save and restore the graphics state around themselves, so
    writing them again leaves the canvas as drawing would. An ink-saver canvas rewrites
    colours as they are drawn: it draws each time. Operators naming a page resource (a
    separation colour space) are not kept: on the next page they would point at nothing."""
    if getattr(canvas, "ink_hooks", None) is not None:
        fn(canvas, *args)
        return
    kept: dict = canvas.__dict__.setdefault("_pnp_recorded", {})
    ops = kept.get(key)
    if ops is None:
        start = len(canvas._code)
        fn(canvas, *args)
        ops = canvas._code[start:]
        if not _PAGE_RESOURCE.search(" ".join(ops)):
            kept[key] = ops
    else:
        canvas._code.extend(ops)

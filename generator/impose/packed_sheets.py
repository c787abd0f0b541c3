"""Packed sheets: shaped pieces (circles, hexagons...) and components sharing a sheet.

The packing (where each piece goes) comes from `packing`; this module is its placement plan
for the one sheet writer (writer.py), and draws what is particular to it: each face
clipped to its outline grown by the bleed (and never past halfway to a neighbour), the cut line
on the outline for scissors, the die line on its own layer for cutters, crop marks only around
used rectangles, and the strip nothing else may enter, for the label. The writer puts backs on
the page after each front page, mirrored for the duplex flip as on grid sheets.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import ContentError
from generator.impose import entries, faces, packing, placement
from generator.impose import grid as impose
from generator.impose.dieline import DieLayer
from generator.impose.placement import (
    CUT_COLOUR,
    CUT_WIDTH,
    MARK_WIDTH,
    Copy,
    Sheet,
    SheetJob,
    copies,
    draw_segments,
    drawing,
)
from generator.load.content import ComponentSpec
from generator.load.model import PrintSettings
from generator.load.shapes import clip_to
from generator.render.engine import FaceRenderer, colour
from generator.units import MM

SHAPE_CUT_WIDTH = 0.4  # pt: the cut line on a shape, for scissors
SHAPE_CUT_COLOUR = "#3c3c3c"
SHAPE_HALO_WIDTH = 1.2  # pt: a white line under it


def sheet_groups(comps: list[ComponentSpec]) -> dict[str, tuple[str, tuple[str, ...]]]:
    """Component id -> (sheet group, its members in content order) for `sheet:` groups."""
    members: dict[str, list[str]] = {}
    for comp in comps:
        if comp.model.sheet:
            members.setdefault(comp.model.sheet, []).append(comp.id)
    return {m: (group, tuple(ids)) for group, ids in members.items() for m in ids}


def packed_members(comp: ComponentSpec, groups: dict) -> tuple[str, tuple[str, ...]]:
    """The name of the sheets a component prints on and the components packed on them: its
    group's, its own when it is shaped, or none (a plain grid of rectangles)."""
    if comp.id in groups:
        return groups[comp.id]
    return comp.id, (() if comp.outline.is_rect else (comp.id,))


ROOMY_BLEED = 1.5 * MM  # bleed a shaped piece gets towards its neighbours when it costs no sheet


def bands_for(
    comps: list[ComponentSpec], settings: dict[str, PrintSettings], gap_floor: float = 0.0
) -> list[packing.Band]:
    """One band per component; pieces that cannot share a cut keep `shape_gap` (or
    `gap_floor`, if larger) between them."""
    out = []
    for comp in comps:
        s = settings[comp.id]
        outline = comp.outline
        shares = _shares(outline)
        gap = max(s.gutter.points, s.shape_gap.points, min(gap_floor, 2 * s.bleed.points))
        out.append(
            packing.Band(
                comp.id,
                tuple(copies(comp)),
                outline,
                s.bleed.points,
                s.gutter.points if shares else gap,
                s.crop_marks,
                s.rotate == "auto",
            )
        )
    return out


def _shares(outline) -> bool:
    """Neighbours may abut along one cut (rectangles, hexagons); rounded corners may not."""
    return outline.shares_cuts and not (outline.kind == "rect" and outline.radius > 0)


def pack_roomy(comps, settings, paper, margin) -> list[packing.Sheet]:
    """The packing with the widest gap between shaped pieces (up to 2 x ROOMY_BLEED: a cut
    that misses by 1.5 mm still shows the piece's own colour) that needs no more sheets than
    the tightest one (`shape_gap`). The tightest packing's sheet count is never lost."""
    tight = packing.pack(bands_for(comps, settings), paper, margin)
    if all(_shares(c.outline) for c in comps):
        return tight  # no shaped gap to widen
    for floor in (2 * ROOMY_BLEED, 1.5 * ROOMY_BLEED):  # 1.5 mm of bleed, else 1.1 mm
        try:
            roomy = packing.pack(bands_for(comps, settings, floor), paper, margin)
        except packing.DoesNotFit:
            continue
        if len(roomy) <= len(tight):
            return roomy
    return tight


class PackedPlan:
    """Every copy of every component in the job packed on shared sheets (packing.py)."""

    sided = True

    def __init__(self, job: SheetJob, renderer: FaceRenderer, paper, sheets: list) -> None:
        self.comps = list(job.comps)
        self.settings = job.settings
        self.lead = job.settings[self.comps[0].id]  # sheet-wide: margin, duplex, back offset
        assert job.packed is not None
        self.name, self.renderer, self.paper, self.packing = job.packed, renderer, paper, sheets
        self.by_id = {c.id: c for c in self.comps}
        self.die: DieLayer | None = None

    @classmethod
    def make(cls, job: SheetJob, renderer: FaceRenderer, paper) -> PackedPlan:
        margin = job.settings[job.comps[0].id].margin.points
        try:
            sheets = pack_roomy(list(job.comps), job.settings, paper, margin)
        except packing.DoesNotFit as exc:
            comp = next(c for c in job.comps if c.id == str(exc))
            raise ContentError(
                f"a {comp.size_pt[0] / 72 * 25.4:.1f} mm wide piece does not fit the "
                f"{job.paper} sheet",
                comp.file,
                comp.line_of.get("size"),
                "size",
                code="does-not-fit",
            ) from None
        return cls(job, renderer, paper, sheets)

    def sheets(self) -> Iterator[Sheet]:
        for n, sheet in enumerate(self.packing, 1):
            placed = sheet.placed
            used = impose.bbox([p.trim for p in placed])
            reach = max(p.band.bleed for p in placed)
            yield Sheet(
                [self._placed(p) for p in placed],
                used,
                used.grown(reach, reach, reach, reach),
                f"{n}/{len(self.packing)}",
                source=sheet,
            )

    def _placed(self, p: packing.Placed) -> placement.Placed:
        comp, item, renderer = self.by_id[p.band.key], p.piece.item, self.renderer
        reuse = ("front", comp.id, item.id) if faces.repeats(item) else None
        ctx = renderer.context(comp, item)
        draw = drawing(draw_piece, renderer, item.layout, ctx, p, p.front, p.clip, reuse)
        front = placement.Face(draw, _entry(comp, p.piece, p, p.front))
        if not item.back:
            return placement.Placed(front)

        def back(back_sheet: impose.Affine) -> placement.Face:
            m = _back_transform(p, back_sheet)
            clip = [impose.apply(back_sheet, x, y) for x, y in p.clip]
            common = item.back == comp.model.back
            ctx = renderer.context(comp, None if common else item)
            reuse = (
                ("common-back", comp.id)
                if common
                else ("back", comp.id, item.id)
                if faces.repeats(item)
                else None
            )
            draw = drawing(draw_piece, renderer, item.back, ctx, p, m, clip, reuse)
            return placement.Face(draw, _entry(comp, p.piece, p, m))

        return placement.Placed(front, back)

    def guides(self, canvas, sheet: placement.Sheet) -> list:
        """Cut lines, crop marks around each block of rectangles, and the die line."""
        W, H = self.paper
        margin = self.lead.margin.points
        area = impose.Rect(margin, margin, W - 2 * margin, H - 2 * margin)
        packed: packing.Sheet = sheet.source
        marks = _marks_and_cuts(canvas, packed, self.settings, area)
        if self.lead.die_line:
            if self.die is None:
                self.die = DieLayer(canvas, self.lead.die_line, visible=False)
            placed = packed.placed
            self.die.add([(p.band.outline, p.front) for p in placed if not p.band.outline.is_rect])
        return marks

    def strip(self, sheet: placement.Sheet, bleed: impose.Rect) -> impose.Rect:
        """A strip at the foot of the sheet that packing keeps free for the label."""
        margin = self.lead.margin.points
        return impose.Rect(margin, margin, self.paper[0] - 2 * margin, packing.LABEL_ROOM)

    def file_extra(self) -> dict:
        return {
            "components": [c.id for c in self.comps],
            "packing": {"sheets": len(self.packing), "die_line": self.lead.die_line},
        }


def draw_piece(
    canvas, renderer, layout: str, ctx: dict, p: packing.Placed, m, clip, reuse=None
) -> None:
    """One face: clipped to its share of the sheet, then to its outline grown by the bleed; a
    face that occurs again in the file (`reuse`, see faces.draw_face) is a Form XObject."""
    outline, (w, h), bleed = p.band.outline, (p.band.outline.w, p.band.outline.h), p.band.bleed
    canvas.saveState()
    path = canvas.beginPath()
    path.moveTo(*clip[0])
    for pt in clip[1:]:
        path.lineTo(*pt)
    path.close()
    canvas.clipPath(path, stroke=0, fill=0)
    canvas.transform(*m)
    clip_to(canvas, outline, bleed)
    try:
        if reuse is None:
            renderer.draw(canvas, layout, ctx, w, h, bleed)
        else:
            faces.place_form(canvas, renderer, reuse, layout, ctx, w, h, bleed)
    except ContentError as exc:
        item = ctx.get("item", {}).get("id", "the common back")
        exc.message = f"{exc.message} (drawing {item} with layout {layout}, {renderer.lang})"
        raise exc.located(renderer.layouts.files_of.get(layout, [None])[0]) from None
    finally:
        canvas.restoreState()


def _marks_and_cuts(canvas, sheet: packing.Sheet, settings, area: impose.Rect) -> list:
    """Crop marks around each block of rectangles; cut lines on outlines or used cells."""
    marks: list = []
    for block in sheet.blocks:
        band, s = block.band, settings[block.band.key]
        cells = [p.trim for p in block.placed]
        if band.outline.is_rect:
            if s.crop_marks:
                inner = block.rect  # marks stay inside the block's own ring
                marks += impose.marks_around(cells, band.bleed, inner, packing.PACK_MARK)
            if s.cut_lines:
                draw_segments(canvas, impose.cell_edges(cells), CUT_COLOUR, CUT_WIDTH)
            continue
        # The cut line of a shape is its outline (no rectangular marks): dark on a light halo,
        # so scissors can follow it on dark art as on light.
        for stroke, width in (("#ffffff", SHAPE_HALO_WIDTH), (SHAPE_CUT_COLOUR, SHAPE_CUT_WIDTH)):
            canvas.saveState()
            canvas.setStrokeColor(colour(stroke))
            canvas.setLineWidth(width)
            for p in block.placed:
                canvas.saveState()
                canvas.transform(*p.front)
                path = canvas.beginPath()
                band.outline.add_to_path(path)
                canvas.drawPath(path, stroke=1, fill=0)
                canvas.restoreState()
            canvas.restoreState()
    draw_segments(canvas, marks, "#000000", MARK_WIDTH)
    return marks


def _back_transform(p: packing.Placed, back_sheet: impose.Affine) -> impose.Affine:
    """Face -> back sheet: the card turns over about its vertical axis, the sheet is flipped."""
    flip_card = (-1.0, 0.0, 0.0, 1.0, p.band.outline.w, 0.0)
    return impose.compose(back_sheet, impose.compose(p.front, flip_card))


def _entry(comp: ComponentSpec, cp: Copy, p: packing.Placed, m) -> dict:
    trim = impose.Rect(0, 0, p.band.outline.w, p.band.outline.h).mapped(m)
    entry = entries.slot_entry(comp.id, cp.item.id, cp.copy, trim, p.band.bleed, rotated=p.rotated)
    entry["shape"] = p.band.outline.manifest(m)
    return entry

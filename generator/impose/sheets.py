"""Grid sheets and tiles: the placement plans of one component's rectangular faces, for the
one sheet writer (writer.py). A face bigger than the sheet (a board) goes on tiles; shaped
or grouped components are packed (packed_sheets.py)."""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import ContentError
from generator.impose import entries, faces
from generator.impose import grid as impose
from generator.impose.placement import (
    CUT_COLOUR,
    CUT_WIDTH,
    MARK_WIDTH,
    Copy,
    Face,
    Placed,
    Sheet,
    SheetJob,
    copies,
    draw_segments,
    drawing,
    recorded,
)
from generator.render.engine import FaceRenderer, colour
from generator.render.textspots import text_rects


def grid_or_tiles(job: SheetJob, renderer: FaceRenderer, paper) -> GridPlan | TilesPlan:
    """Every copy of the job's component on a grid; on tiles when a face exceeds the sheet."""
    try:
        return GridPlan(job, renderer, paper)
    except impose.DoesNotFit:
        return TilesPlan(job, renderer, paper)


class _OneComponent:
    """A plan of the copies of one component (the job's only one)."""

    def __init__(self, job: SheetJob, renderer: FaceRenderer, paper) -> None:
        (self.comp,) = job.comps
        self.lead = job.settings[self.comp.id]
        self.comps, self.name = [self.comp], self.comp.id
        self.renderer, self.paper = renderer, paper


class GridPlan(_OneComponent):
    """Every copy of every item on a grid, sheet after sheet; each back behind its front."""

    sided = True

    def __init__(self, job: SheetJob, renderer: FaceRenderer, paper) -> None:
        super().__init__(job, renderer, paper)
        s, self.bleed = self.lead, self.lead.bleed.points
        self.grid = impose.plan(
            paper,
            self.comp.size_pt,
            bleed=self.bleed,
            margin=s.margin.points,
            gutter=s.gutter.points,
            crop_marks=s.crop_marks,
            rotate=s.rotate,
        )
        self.offset = (s.back_offset.x.points, s.back_offset.y.points)
        self._fills: dict[int, _Fill] = {}

    def sheets(self) -> Iterator[Sheet]:
        grid = self.grid
        all_copies = copies(self.comp)
        total = -(-len(all_copies) // grid.per_sheet)
        comp_ctx = self.renderer.context(self.comp, None)
        for sheet in range(total):
            batch = all_copies[sheet * grid.per_sheet : (sheet + 1) * grid.per_sheet]
            fill = self._fill(len(batch))
            placed = [
                self._placed(cell, cp, comp_ctx) for cell, cp in zip(fill.cells, batch, strict=True)
            ]
            yield Sheet(placed, fill.used, fill.bleed, f"{sheet + 1}/{total}", source=fill)

    def _fill(self, n: int) -> _Fill:
        """The geometry of a sheet whose first `n` slots hold faces, worked out once: every
        full sheet has the same, and only a part-filled last sheet another."""
        fill = self._fills.get(n)
        if fill is None:
            fill = self._fills[n] = _Fill.make(self, n)
        return fill

    def _placed(self, cell: _Cell, cp: Copy, comp_ctx) -> Placed:
        comp, renderer, bleed, item = self.comp, self.renderer, self.bleed, cp.item
        (w, h), again = comp.size_pt, faces.repeats(item)
        reuse = ("front", comp.id, item.id) if again else None
        ctx = renderer.context(comp, item)
        args = (renderer, item.layout, ctx, cell.clip, cell.slot.front, w, h, bleed)
        front = Face(drawing(faces.draw_face, *args, reuse=reuse), cell.entry(comp.id, cp))
        if not item.back:
            return Placed(front)

        def back(back_sheet: impose.Affine) -> Face:
            m, at = cell.back(self, back_sheet)
            if item.back == comp.model.back:  # one Form XObject for the whole component
                common = (renderer, comp, item.back, comp_ctx, at, m, w, h, bleed)
                draw = drawing(faces.draw_common_back, *common)
            else:
                ctx = renderer.context(comp, item)
                reuse = ("back", comp.id, item.id) if again else None
                args = (renderer, item.back, ctx, at, m, w, h, bleed)
                draw = drawing(faces.draw_face, *args, reuse=reuse)
            return Face(draw, cell.back_entry(comp.id, cp))

        return Placed(front, back)

    def guides(self, canvas, sheet: Sheet) -> list:
        fill: _Fill = sheet.source
        grid = self.grid
        if fill.marks is None:
            W, H = self.paper
            safe = impose.Rect(grid.margin, grid.margin, W - 2 * grid.margin, H - 2 * grid.margin)
            cells = [c.slot.trim for c in fill.cells]
            fill.marks = impose.marks_around(cells, self.bleed, safe) if grid.crop_marks else []
            fill.edges = impose.cell_edges(cells) if self.lead.cut_lines else []
        # the same marks on every sheet of this fill: their operators are written once
        recorded(canvas, ("marks", fill), draw_segments, fill.marks, "#000000", MARK_WIDTH)
        if fill.edges:
            recorded(canvas, ("cuts", fill), draw_segments, fill.edges, CUT_COLOUR, CUT_WIDTH)
        return fill.marks

    def strip(self, sheet: Sheet, bleed: impose.Rect) -> impose.Rect:
        """The bottom margin below the printed area."""
        margin = self.grid.margin
        return impose.Rect(
            margin, margin, self.paper[0] - 2 * margin, bleed.y - impose.MARK_GAP - margin
        )

    def file_extra(self) -> dict:
        grid = self.grid
        return {"grid": {"cols": grid.cols, "rows": grid.rows, "rotated": grid.rotated}}


class _Cell:
    """One slot of a fill: its clip, and its manifest geometry and back placement, computed
    once for every sheet that uses the slot."""

    __slots__ = ("_back", "_back_geo", "clip", "geo", "slot")

    def __init__(self, plan: GridPlan, slot: impose.Slot, clip: impose.Rect) -> None:
        self.slot, self.clip = slot, clip
        self.geo = {**entries.rect_mm(slot.trim), "bleed": entries.mm(plan.bleed)}
        if plan.grid.rotated:
            self.geo["rotation"] = 90
        self._back: tuple | None = None
        self._back_geo: dict | None = None

    def entry(self, component: str, cp: Copy) -> dict:
        """The slot's manifest entry (as entries.slot_entry makes it)."""
        return {"component": component, "item": cp.item.id, "copy": cp.copy, **self.geo}

    def back(self, plan: GridPlan, back_sheet: impose.Affine) -> tuple:
        """The back's transform and clip on the back sheet."""
        if self._back is None or self._back[0] != back_sheet:
            m = plan.grid.back_transform(self.slot, plan.lead.duplex, plan.offset)
            w, h = plan.comp.size_pt
            self._back = (back_sheet, m, self.clip.mapped(back_sheet))
            rect = impose.Rect(0, 0, w, h).mapped(m)
            self._back_geo = {**entries.rect_mm(rect), "bleed": entries.mm(plan.bleed)}
            if plan.grid.rotated:
                self._back_geo["rotation"] = 90
        return self._back[1], self._back[2]

    def back_entry(self, component: str, cp: Copy) -> dict:
        assert self._back_geo is not None
        return {"component": component, "item": cp.item.id, "copy": cp.copy, **self._back_geo}


class _Fill:
    """A grid sheet whose first n slots hold faces: its cells, boxes and (once drawn) marks."""

    def __init__(self, cells: list[_Cell], used: impose.Rect, bleed: impose.Rect) -> None:
        self.cells, self.used, self.bleed = cells, used, bleed
        self.marks: list | None = None
        self.edges: list = []

    @staticmethod
    def make(plan: GridPlan, n: int) -> _Fill:
        grid, b = plan.grid, plan.bleed
        used_slots = grid.slots()[:n]
        # boxes, marks and cut lines only around the cells this sheet uses
        used = impose.bbox([s.trim for s in used_slots])
        occupied = {(s.col, s.row) for s in used_slots}
        cells = [_Cell(plan, s, grid.clip_for(s, occupied)) for s in used_slots]
        return _Fill(cells, used, used.grown(b, b, b, b))


class TilesPlan(_OneComponent):
    """A face bigger than the sheet (a board), split into overlapping tiles, one per page."""

    sided = False

    def __init__(self, job: SheetJob, renderer: FaceRenderer, paper) -> None:
        super().__init__(job, renderer, paper)
        comp, s = self.comp, self.lead
        w, h = comp.size_pt
        try:
            self.plan = impose.plan_tiles(
                paper,
                (w, h),
                bleed=s.bleed.points,
                margin=s.margin.points,
                overlap=s.overlap.points,
                crop_marks=s.crop_marks,
                avoid=tuple(
                    impose.Rect(r.x, r.y, r.w, r.h)
                    for item in comp.items
                    for r in text_rects(renderer, item.layout, renderer.context(comp, item), w, h)
                ),
            )
        except impose.DoesNotFit as exc:
            raise ContentError(
                str(exc), comp.file, comp.line_of.get("size"), "size", code="does-not-fit"
            ) from None

    def sheets(self) -> Iterator[Sheet]:
        comp, plan, renderer = self.comp, self.plan, self.renderer
        (w, h), bleed = comp.size_pt, self.lead.bleed.points
        total, page_no = len(plan.tiles) * comp.total, 0
        for cp in copies(comp):
            ctx = renderer.context(comp, cp.item)
            for tile in plan.tiles:
                page_no += 1
                offset = (1.0, 0.0, 0.0, 1.0, tile.trim.x - tile.face.x, tile.trim.y - tile.face.y)
                draw = drawing(
                    faces.draw_face, renderer, cp.item.layout, ctx, tile.clip, offset, w, h, bleed
                )
                label = _tile_name(tile)
                entry = entries.slot_entry(comp.id, cp.item.id, cp.copy, tile.trim, bleed)
                entry["tile"] = {
                    "name": label,
                    "row": tile.row,
                    "col": tile.col,
                    "rows": plan.rows,
                    "cols": plan.cols,
                    **{f"face_{k}": v for k, v in entries.rect_mm(tile.face).items()},
                }
                marks = [plan.to_page(tile, x, y) for x, y in plan.marks_on(tile)]
                yield Sheet(
                    [Placed(Face(draw, entry))],
                    tile.trim,
                    tile.clip,
                    f"{label} ({tile.row + 1}/{plan.rows}, {tile.col + 1}/{plan.cols}) · "
                    f"{page_no}/{total}",
                    page=tile.page,
                    extra={
                        "marks": [[entries.mm(x), entries.mm(y)] for x, y in marks],
                        "size": [entries.mm(tile.page[0]), entries.mm(tile.page[1])],
                    },
                    source=(tile, marks),
                )

    def guides(self, canvas, sheet: Sheet) -> list:
        """Crop marks on the face's outer edges; cut lines and registration marks in the
        overlaps. None of them is a crop mark of a sheet's grid: the label goes below them."""
        tile, marks = sheet.source
        _draw_tile_guides(canvas, self.plan, tile, marks, self.lead)
        return []

    def strip(self, sheet: Sheet, bleed: impose.Rect) -> impose.Rect:
        """The bottom margin below the bleed and the crop marks."""
        margin, page_w = self.lead.margin.points, sheet.page[0] if sheet.page else 0.0
        room = bleed.y - impose.MARK_GAP - impose.MIN_MARK - margin
        return impose.Rect(margin, margin, page_w - 2 * margin, room)

    def file_extra(self) -> dict:
        plan = self.plan
        return {
            "tiles": {
                "rows": plan.rows,
                "cols": plan.cols,
                "overlap_mm": entries.mm(plan.overlap),
                "seam_crossings": plan.crossings,  # text a seam could not avoid
            }
        }


def _tile_name(tile) -> str:
    return f"{chr(ord('A') + tile.row)}{tile.col + 1}"


def _draw_tile_guides(canvas, plan, tile, marks, settings) -> None:
    """Crop marks on the face's outer edges; cut lines and registration marks in the overlaps."""
    t, margin = tile.trim, settings.margin.points
    W, H = tile.page
    canvas.saveState()
    canvas.setLineWidth(MARK_WIDTH)
    canvas.setStrokeColor(colour("#000000"))
    gap, bleed = impose.MARK_GAP, settings.bleed.points
    outer = {
        "left": tile.col == 0,
        "right": tile.col == plan.cols - 1,
        "top": tile.row == 0,
        "bottom": tile.row == plan.rows - 1,
    }
    if settings.crop_marks:
        for x, side in ((t.x, "left"), (t.x + t.w, "right")):
            if outer[side]:
                canvas.line(
                    x, t.y - bleed - gap, x, max(margin, t.y - bleed - gap - impose.MAX_MARK)
                )
                canvas.line(
                    x,
                    t.y + t.h + bleed + gap,
                    x,
                    min(H - margin, t.y + t.h + bleed + gap + impose.MAX_MARK),
                )
        for y, side in ((t.y, "bottom"), (t.y + t.h, "top")):
            if outer[side]:
                canvas.line(
                    t.x - bleed - gap, y, max(margin, t.x - bleed - gap - impose.MAX_MARK), y
                )
                canvas.line(
                    t.x + t.w + bleed + gap,
                    y,
                    min(W - margin, t.x + t.w + bleed + gap + impose.MAX_MARK),
                    y,
                )
    # This tile goes on top of its left and upper neighbours: cut it along the band's middle.
    half = plan.overlap / 2
    canvas.setDash([4, 3])
    for width, colour_ in ((2.0, "#ffffff"), (0.6, "#000000")):
        canvas.setLineWidth(width)
        canvas.setStrokeColor(colour(colour_))
        if tile.col > 0:
            canvas.line(t.x + half, t.y, t.x + half, t.y + t.h)
        if tile.row > 0:
            canvas.line(t.x, t.y + t.h - half, t.x + t.w, t.y + t.h - half)
    canvas.setDash([])
    r = plan.mark_radius
    for x, y in marks:  # a white halo keeps the mark visible on dark art
        for width, colour_ in ((1.6, "#ffffff"), (0.4, "#000000")):
            canvas.setLineWidth(width)
            canvas.setStrokeColor(colour(colour_))
            canvas.circle(x, y, r, stroke=1, fill=0)
            canvas.line(x - 1.6 * r, y, x + 1.6 * r, y)
            canvas.line(x, y - 1.6 * r, x, y + 1.6 * r)
    canvas.restoreState()

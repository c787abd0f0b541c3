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

    def sheets(self) -> Iterator[Sheet]:
        grid, bleed = self.grid, self.bleed
        slots = grid.slots()
        all_copies = copies(self.comp)
        total = -(-len(all_copies) // grid.per_sheet)
        comp_ctx = self.renderer.context(self.comp, None)
        for sheet in range(total):
            batch = all_copies[sheet * grid.per_sheet : (sheet + 1) * grid.per_sheet]
            used_slots = slots[: len(batch)]
            # boxes, marks and cut lines only around the cells this sheet uses
            used = impose.bbox([s.trim for s in used_slots])
            occupied = {(s.col, s.row) for s in used_slots}
            placed = [
                self._placed(slot, grid.clip_for(slot, occupied), cp, comp_ctx)
                for slot, cp in zip(used_slots, batch, strict=True)
            ]
            cells = [s.trim for s in used_slots]
            bleed_box = used.grown(bleed, bleed, bleed, bleed)
            yield Sheet(placed, used, bleed_box, f"{sheet + 1}/{total}", source=cells)

    def _placed(self, slot: impose.Slot, clip: impose.Rect, cp: Copy, comp_ctx) -> Placed:
        comp, renderer, bleed, item = self.comp, self.renderer, self.bleed, cp.item
        (w, h), again = comp.size_pt, faces.repeats(item)
        reuse = ("front", comp.id, item.id) if again else None
        ctx = renderer.context(comp, item)
        args = (renderer, item.layout, ctx, clip, slot.front, w, h, bleed)
        front = Face(drawing(faces.draw_face, *args, reuse=reuse), self._slot(cp, slot.trim))
        if not item.back:
            return Placed(front)

        def back(back_sheet: impose.Affine) -> Face:
            m = self.grid.back_transform(slot, self.lead.duplex, self.offset)
            at = clip.mapped(back_sheet)
            if item.back == comp.model.back:  # one Form XObject for the whole component
                common = (renderer, comp, item.back, comp_ctx, at, m, w, h, bleed)
                draw = drawing(faces.draw_common_back, *common)
            else:
                ctx = renderer.context(comp, item)
                reuse = ("back", comp.id, item.id) if again else None
                args = (renderer, item.back, ctx, at, m, w, h, bleed)
                draw = drawing(faces.draw_face, *args, reuse=reuse)
            return Face(draw, self._slot(cp, impose.Rect(0, 0, w, h).mapped(m)))

        return Placed(front, back)

    def _slot(self, cp: Copy, trim: impose.Rect) -> dict:
        return entries.slot_entry(
            self.comp.id, cp.item.id, cp.copy, trim, self.bleed, rotated=self.grid.rotated
        )

    def guides(self, canvas, sheet: Sheet) -> list:
        grid = self.grid
        W, H = self.paper
        cells = sheet.source
        safe = impose.Rect(grid.margin, grid.margin, W - 2 * grid.margin, H - 2 * grid.margin)
        marks = impose.marks_around(cells, self.bleed, safe) if grid.crop_marks else []
        draw_segments(canvas, marks, "#000000", MARK_WIDTH)
        if self.lead.cut_lines:
            draw_segments(canvas, impose.cell_edges(cells), CUT_COLOUR, CUT_WIDTH)
        return marks

    def strip(self, sheet: Sheet, bleed: impose.Rect) -> impose.Rect:
        """The bottom margin below the printed area."""
        margin = self.grid.margin
        return impose.Rect(
            margin, margin, self.paper[0] - 2 * margin, bleed.y - impose.MARK_GAP - margin
        )

    def file_extra(self) -> dict:
        grid = self.grid
        return {"grid": {"cols": grid.cols, "rows": grid.rows, "rotated": grid.rotated}}


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

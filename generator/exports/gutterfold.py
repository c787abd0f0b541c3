"""`gutterfold`: sheets for single-sided printers. Fronts fill one half of the page, their backs
the other half, each back the mirror of its front across the fold line: print, fold along the
line (printed sides out), glue, and cut along the crop marks on the outer edges.

The page is portrait or landscape, whichever holds more faces per half. A vertical fold turns
the card over about its vertical axis, exactly as a long-edge duplex flip does, so a back sits at
W - x - w and reads upright (impose's long-edge back transform with the fold as the mirror).
"""

from __future__ import annotations

import dataclasses

from generator.exports.base import (
    ExportContext,
    Job,
    Outputs,
    file_entry,
    mm,
    page_entry,
    slot_entry,
)
from generator.impose import faces, placement
from generator.impose import grid as impose
from generator.load import languages, templating
from generator.load.content import ComponentSpec
from generator.load.export_options import GutterfoldOptions
from generator.load.sizes import paper_size
from generator.render.engine import FaceRenderer, colour
from generator.units import MM

FOLD_DASH = [3, 2]


def half_grid(paper: tuple[float, float], comp: ComponentSpec, settings) -> impose.Grid | None:
    """The grid for the fronts' half of the page (portrait or landscape, the fuller one),
    expressed on the whole page; None when a face does not fit half a sheet."""
    best = None
    for W, H in (paper, (paper[1], paper[0])):
        try:
            grid = impose.plan(
                (W / 2, H),
                comp.size_pt,
                bleed=settings.bleed.points,
                margin=settings.margin.points,
                gutter=settings.gutter.points,
                crop_marks=settings.crop_marks,
                rotate=settings.rotate,
            )
        except impose.DoesNotFit:
            continue
        if best is None or grid.per_sheet > best.per_sheet:
            best = dataclasses.replace(grid, paper=(W, H))
    return best


def _foldable(comp: ComponentSpec) -> bool:
    return any(item.back for item in comp.items)


class Gutterfold:
    name = "gutterfold"
    options = GutterfoldOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        project = ctx.content.project
        jobs = []
        for comp in ctx.components():
            if not _foldable(comp):  # nothing to fold: the normal sheets already serve
                continue
            settings = ctx.settings[comp.id]
            for paper in settings.papers:
                if half_grid(paper_size(project, paper), comp, settings) is None:
                    continue  # bigger than half a sheet (a board): no gutterfold for it
                path = f"{ctx.folder()}/gutterfold/{comp.id}-{paper}.pdf"
                jobs.append(Job(self.name, ctx.lang, (path,), comp.id, paper))
        return jobs

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        content, lang = ctx.content, ctx.lang
        comp = content.component(job.component)
        settings = ctx.settings[comp.id]
        assert job.paper is not None
        grid = half_grid(paper_size(content.project, job.paper), comp, settings)
        assert grid is not None
        W, H = grid.paper
        w, h = comp.size_pt
        bleed = grid.bleed
        rel = job.paths[0]
        renderer = FaceRenderer(content, lang)
        title = templating.pick(content.game.title, lang)
        name = templating.pick(comp.model.name, lang)
        canvas = faces.new_canvas(out.path(rel), (W, H), renderer, f"{title} - {name} (gutterfold)")
        slots = grid.slots()
        mirror = grid.back_sheet_transform("long-edge", (0.0, 0.0))
        all_copies = placement.copies(comp)
        total = -(-len(all_copies) // grid.per_sheet)
        comp_ctx = renderer.context(comp, None)
        pages = []
        for n in range(total):
            batch = all_copies[n * grid.per_sheet : (n + 1) * grid.per_sheet]
            occupied = {(s.col, s.row) for s in slots[: len(batch)]}
            fronts, backs = [], []
            for slot, cp in zip(slots, batch, strict=False):
                clip = grid.clip_for(slot, occupied)
                ctx_item = renderer.context(comp, cp.item)
                again = faces.repeats(cp.item)
                faces.draw_face(
                    canvas,
                    renderer,
                    cp.item.layout,
                    ctx_item,
                    clip,
                    slot.front,
                    w,
                    h,
                    bleed,
                    reuse=("front", comp.id, cp.item.id) if again else None,
                )
                fronts.append(
                    slot_entry(comp.id, cp.item.id, cp.copy, slot.trim, bleed, rotated=grid.rotated)
                )
                if not cp.item.back:
                    continue
                transform = grid.back_transform(slot, "long-edge", (0.0, 0.0))
                back_clip = clip.mapped(mirror)
                common = cp.item.back == comp.model.back
                if common:
                    faces.draw_common_back(
                        canvas,
                        renderer,
                        comp,
                        cp.item.back,
                        comp_ctx,
                        back_clip,
                        transform,
                        w,
                        h,
                        bleed,
                    )
                else:
                    faces.draw_face(
                        canvas,
                        renderer,
                        cp.item.back,
                        ctx_item,
                        back_clip,
                        transform,
                        w,
                        h,
                        bleed,
                        reuse=("back", comp.id, cp.item.id) if again else None,
                    )
                b = impose.Rect(0, 0, w, h).mapped(transform)
                backs.append(
                    slot_entry(comp.id, cp.item.id, cp.copy, b, bleed, rotated=grid.rotated)
                )
            self._marks(canvas, grid, occupied)
            self._fold_line(canvas, renderer, grid, lang)
            canvas.showPage()
            fold = {"fold": {"x": mm(W / 2), "orientation": "vertical"}, "size": [mm(W), mm(H)]}
            pages.append(page_entry(rel, n + 1, "front", fronts, **fold))
            pages.append(page_entry(rel, n + 1, "back", backs, **fold))
        canvas.save()
        entry = file_entry(
            rel,
            "export",
            lang,
            fmt=self.name,
            paper=job.paper,
            pages=total,
            component=comp.id,
            grid={"cols": grid.cols, "rows": grid.rows, "rotated": grid.rotated},
            orientation="portrait" if W < H else "landscape",
        )
        return {"files": [entry], "sheets": pages}

    @staticmethod
    def _marks(canvas, grid: impose.Grid, occupied) -> None:
        """Crop marks on the outer edges only: none run towards the fold, where the two halves
        meet; the right half's marks mirror the left half's."""
        W, _ = grid.paper
        half = dataclasses.replace(grid, paper=(W / 2, grid.paper[1]))
        right_edge = grid.trim_box.x + grid.trim_box.w + grid.bleed
        segments = [m for m in half.marks() if not (m[0] > right_edge and m[2] > right_edge)]
        segments += [(W - x1, y1, W - x2, y2) for x1, y1, x2, y2 in segments]
        canvas.saveState()
        canvas.setStrokeColor(colour("#000000"))
        canvas.setLineWidth(placement.MARK_WIDTH)
        for x1, y1, x2, y2 in segments:
            canvas.line(x1, y1, x2, y2)
        canvas.restoreState()

    @staticmethod
    def _fold_line(canvas, renderer, grid: impose.Grid, lang: str) -> None:
        W, H = grid.paper
        margin = grid.margin
        canvas.saveState()
        canvas.setStrokeColor(colour("#7a7a7a"))
        canvas.setLineWidth(0.5)
        canvas.setDash(FOLD_DASH)
        # The line stops above its label, so the words stay readable.
        canvas.line(W / 2, margin + placement.LABEL_SIZE + 2.0 * MM, W / 2, H - margin)
        canvas.setDash([])
        face = renderer.fonts.label(lang)
        canvas.setFillColor(colour("#6b6b6b"))
        word = languages.get(lang).label("fold_glue_cut")
        face.draw(canvas, W / 2, margin + 1.0 * MM, word, placement.LABEL_SIZE, centre=True)
        canvas.restoreState()

"""Write component PDFs: imposed duplex sheets and tiled faces (exports/ calls these); shaped
or grouped components go to packed_sheets.py."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from generator.errors import ContentError
from generator.impose import entries, faces, registration
from generator.impose import grid as impose
from generator.load import languages, templating
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.model import PrintSettings
from generator.load.sizes import paper_size
from generator.render.engine import FaceRenderer, colour
from generator.render.textspots import text_rects

MARK_WIDTH = 0.25  # pt: hairline crop marks
LABEL_SIZE = 6.0


@dataclass
class Copy:
    item: ItemSpec
    copy: int


def copies(comp: ComponentSpec) -> list[Copy]:
    return [Copy(item, n + 1) for item in comp.items for n in range(item.count)]


def _setup(
    content: GameContent, comp: ComponentSpec, lang: str, paper: str, settings: PrintSettings
):
    """What every sheet writer needs: the renderer, sheet and face sizes, bleed, names."""
    return (
        FaceRenderer(content, lang),
        paper_size(content.project, paper),
        comp.size_pt,
        settings.bleed.points,
        templating.pick(comp.model.name, lang),
        templating.pick(content.game.title, lang),
    )


def write_sheets(
    content: GameContent,
    comp: ComponentSpec,
    lang: str,
    paper: str,
    settings: PrintSettings,
    out: Path,
    rel_path: str,
    canvas_cls: type[Canvas] = Canvas,
) -> dict:
    """Impose every copy of every item on sheets; backs follow each front sheet for duplex."""
    renderer, (W, H), (w, h), bleed, name, title = _setup(content, comp, lang, paper, settings)
    tag = _lang_tag(content, lang)  # "fr (Brouillon)" for a draft language
    try:
        grid = impose.plan(
            (W, H),
            (w, h),
            bleed=bleed,
            margin=settings.margin.points,
            gutter=settings.gutter.points,
            crop_marks=settings.crop_marks,
            rotate=settings.rotate,
        )
    except impose.DoesNotFit:
        return write_tiled(content, comp, lang, paper, settings, out, rel_path, canvas_cls)
    slots = grid.slots()
    offset = (settings.back_offset.x.points, settings.back_offset.y.points)
    all_copies = copies(comp)
    sheets_total = -(-len(all_copies) // grid.per_sheet)
    has_backs = any(c.item.back for c in all_copies)
    canvas = faces.new_canvas(out, (W, H), renderer, f"{title} - {name}", canvas_cls)
    pages, page_no = [], 0
    comp_ctx = renderer.context(comp, None)
    for sheet in range(sheets_total):
        batch = all_copies[sheet * grid.per_sheet : (sheet + 1) * grid.per_sheet]
        # Front: boxes, marks and cut lines only around the cells this sheet uses.
        page_no += 1
        cells = [s.trim for s in slots[: len(batch)]]
        used = impose.bbox(cells)
        used_bleed = used.grown(bleed, bleed, bleed, bleed)
        canvas.setTrimBox(faces.box(used))
        canvas.setBleedBox(faces.box(used_bleed))
        placed = []
        occupied = {(s.col, s.row) for s in slots[: len(batch)]}
        clips = [grid.clip_for(slot, occupied) for slot in slots[: len(batch)]]
        for slot, clip, cp in zip(slots[: len(batch)], clips, batch, strict=True):
            ctx = renderer.context(comp, cp.item)
            faces.draw_face(canvas, renderer, cp.item.layout, ctx, clip, slot.front, w, h, bleed)
            placed.append(
                entries.slot_entry(
                    comp.id, cp.item.id, cp.copy, slot.trim, bleed, rotated=grid.rotated
                )
            )
        safe = impose.Rect(grid.margin, grid.margin, W - 2 * grid.margin, H - 2 * grid.margin)
        marks = impose.marks_around(cells, bleed, safe) if grid.crop_marks else []
        draw_segments(canvas, marks, "#000000", MARK_WIDTH)
        if settings.cut_lines:
            draw_segments(canvas, impose.cell_edges(cells), CUT_COLOUR, CUT_WIDTH)
        label_text = (
            f"{title} · {name} · {tag} · {sheet + 1}/{sheets_total} · {_side_word('front', lang)}"
        )
        strip = _label_strip(grid.margin, W, used_bleed)
        # the duplex test: targets the back repeats where the printer's flip brings them
        targets = registration.targets_in(strip, marks) if has_backs else []
        registration.draw(canvas, targets)
        draw_label(canvas, renderer, label_text, marks + registration.as_marks(targets), strip)
        canvas.showPage()
        extra = {"targets": registration.manifest(targets)} if targets else {}
        pages.append(entries.page_entry(rel_path, page_no, "front", placed, **extra))
        last_blank = sheet == sheets_total - 1 and not any(cp.item.back for cp in batch)
        if not has_backs or last_blank:
            continue  # the last sheet's back would be blank: no page, nothing to print
        # Back: the mirror image of the front sheet, for a duplex printer.
        page_no += 1
        back_sheet = grid.back_sheet_transform(settings.duplex, offset)
        canvas.setTrimBox(faces.box(used.mapped(back_sheet)))
        canvas.setBleedBox(faces.box(used_bleed.mapped(back_sheet)))
        placed = []
        for slot, front_clip, cp in zip(slots[: len(batch)], clips, batch, strict=True):
            if not cp.item.back:
                continue
            transform = grid.back_transform(slot, settings.duplex, offset)
            clip = front_clip.mapped(back_sheet)
            common = cp.item.back == comp.model.back
            ctx = comp_ctx if common else renderer.context(comp, cp.item)
            if common:
                faces.draw_common_back(
                    canvas, renderer, comp, cp.item.back, ctx, clip, transform, w, h, bleed
                )
            else:
                faces.draw_face(canvas, renderer, cp.item.back, ctx, clip, transform, w, h, bleed)
            placed.append(
                entries.slot_entry(
                    comp.id,
                    cp.item.id,
                    cp.copy,
                    impose.Rect(0, 0, w, h).mapped(transform),
                    bleed,
                    rotated=grid.rotated,
                )
            )
        # the front's crop marks and targets, mirrored: against a light they lie over the front's
        back_marks = [_mapped_segment(back_sheet, seg) for seg in marks]
        draw_segments(canvas, back_marks, "#000000", MARK_WIDTH)
        back_targets = registration.mapped(back_sheet, targets)
        registration.draw(canvas, back_targets)
        draw_label(
            canvas,
            renderer,
            f"{title} · {name} · {tag} · {sheet + 1}/{sheets_total} · {_side_word('back', lang)}",
            back_marks + registration.as_marks(back_targets),
            _label_strip(grid.margin, W, used_bleed.mapped(back_sheet)),
        )
        canvas.showPage()
        extra = {"targets": registration.manifest(back_targets)} if back_targets else {}
        pages.append(entries.page_entry(rel_path, page_no, "back", placed, **extra))
    canvas.save()
    return {
        "file": entries.file_entry(
            rel_path,
            "components",
            lang,
            fmt="sheets",
            paper=paper,
            pages=page_no,
            component=comp.id,
            grid={"cols": grid.cols, "rows": grid.rows, "rotated": grid.rotated},
            duplex=settings.duplex if has_backs else None,
            back_offset_mm=[entries.mm(offset[0]), entries.mm(offset[1])],
        ),
        "sheets": pages,
    }


def write_tiled(
    content: GameContent,
    comp: ComponentSpec,
    lang: str,
    paper: str,
    settings: PrintSettings,
    out: Path,
    rel_path: str,
    canvas_cls: type[Canvas] = Canvas,
) -> dict:
    """A face bigger than the sheet (a board), split into overlapping tiles, one per page."""
    renderer, (W, H), (w, h), bleed, name, title = _setup(content, comp, lang, paper, settings)
    tag = _lang_tag(content, lang)  # "fr (Brouillon)" for a draft language
    try:
        plan = impose.plan_tiles(
            (W, H),
            (w, h),
            bleed=bleed,
            margin=settings.margin.points,
            overlap=settings.overlap.points,
            crop_marks=settings.crop_marks,
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
    canvas = faces.new_canvas(out, (W, H), renderer, f"{title} - {name}", canvas_cls)
    pages, page_no = [], 0
    total = len(plan.tiles)
    for cp in copies(comp):
        ctx = renderer.context(comp, cp.item)
        for tile in plan.tiles:
            page_no += 1
            canvas.setPageSize(tile.page)
            canvas.setTrimBox(faces.box(tile.trim))
            canvas.setBleedBox(faces.box(tile.clip))
            offset = (1.0, 0.0, 0.0, 1.0, tile.trim.x - tile.face.x, tile.trim.y - tile.face.y)
            faces.draw_face(canvas, renderer, cp.item.layout, ctx, tile.clip, offset, w, h, bleed)
            marks = [plan.to_page(tile, x, y) for x, y in plan.marks_on(tile)]
            _draw_tile_guides(canvas, plan, tile, marks, settings)
            label = _tile_name(tile)
            _label_at(
                canvas,
                renderer,
                f"{title} · {name} · {tag} · {label} ({tile.row + 1}/{plan.rows}, "
                f"{tile.col + 1}/{plan.cols}) · {page_no}/{total * comp.total}",
                tile.page,
                settings.margin.points,
                tile.clip,
            )
            canvas.showPage()
            entry = entries.slot_entry(comp.id, cp.item.id, cp.copy, tile.trim, bleed)
            entry["tile"] = {
                "name": label,
                "row": tile.row,
                "col": tile.col,
                "rows": plan.rows,
                "cols": plan.cols,
                **{f"face_{k}": v for k, v in entries.rect_mm(tile.face).items()},
            }
            pages.append(
                entries.page_entry(
                    rel_path,
                    page_no,
                    "front",
                    [entry],
                    marks=[[entries.mm(x), entries.mm(y)] for x, y in marks],
                    size=[entries.mm(tile.page[0]), entries.mm(tile.page[1])],
                )
            )
    canvas.save()
    return {
        "file": entries.file_entry(
            rel_path,
            "components",
            lang,
            fmt="sheets",
            paper=paper,
            pages=page_no,
            component=comp.id,
            tiles={
                "rows": plan.rows,
                "cols": plan.cols,
                "overlap_mm": entries.mm(plan.overlap),
                "seam_crossings": plan.crossings,  # text a seam could not avoid
            },
        ),
        "sheets": pages,
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


def _label_at(canvas, renderer, text: str, page, margin: float, clip) -> None:
    """A small label in the bottom margin, below the bleed and crop marks, 5 mm off the edge."""
    room = clip.y - impose.MARK_GAP - impose.MIN_MARK - margin
    face = renderer.fonts.label(renderer.lang)
    if room < LABEL_SIZE:
        return
    canvas.saveState()
    canvas.setFillColor(colour("#6b6b6b"))
    face.draw(canvas, page[0] / 2, margin + 2.0, text, LABEL_SIZE, centre=True)
    canvas.restoreState()


CUT_COLOUR = "#8c8c8c"
CUT_WIDTH = 0.35  # pt


def draw_segments(canvas, segments, stroke: str, width: float) -> None:
    if not segments:
        return
    canvas.saveState()
    canvas.setStrokeColor(colour(stroke))
    canvas.setLineWidth(width)
    for x1, y1, x2, y2 in segments:
        canvas.line(x1, y1, x2, y2)
    canvas.restoreState()


def _mapped_segment(m, seg):
    x1, y1 = impose.apply(m, seg[0], seg[1])
    x2, y2 = impose.apply(m, seg[2], seg[3])
    return (x1, y1, x2, y2)


def _lang_tag(content: GameContent, lang: str) -> str:
    """The language in a sheet label; a draft language says so ("fr (Brouillon)")."""
    from generator.i18n import drafts

    if lang in drafts.drafts(content):
        return f"{lang} ({languages.get(lang).label('draft')})"
    return lang


def _side_word(side: str, lang: str) -> str:
    """'front'/'back' in the sheet's language (templates/languages/<code>.yaml labels)."""
    return languages.get(lang).label(side)


def _label_strip(margin: float, page_w: float, used_bleed: impose.Rect) -> impose.Rect:
    """The bottom margin below the printed area, where the sheet label may go."""
    return impose.Rect(margin, margin, page_w - 2 * margin, used_bleed.y - impose.MARK_GAP - margin)


def draw_label(canvas, renderer, text: str, marks, strip: impose.Rect) -> None:
    """A small sheet label in the widest stretch of the strip that no crop mark crosses."""
    if strip.h < LABEL_SIZE * 1.2:
        return
    spot = impose.label_spot(marks, strip)
    if spot is None:
        return
    centre, room = spot
    face = renderer.fonts.label(renderer.lang)
    size = LABEL_SIZE
    if face.width(text, size) > room - 4:
        size = size * (room - 4) / face.width(text, size)
        if size < 4.0:
            return  # no room for a legible label: better none than one struck by marks
    canvas.saveState()
    canvas.setFillColor(colour("#6b6b6b"))
    y = strip.y + (min(strip.h, 3 * LABEL_SIZE) - size) / 2 + size * 0.2
    face.draw(canvas, centre, y, text, size, centre=True)
    canvas.restoreState()

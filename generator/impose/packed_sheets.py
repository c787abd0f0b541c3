"""Write packed sheets: shaped pieces (circles, hexagons...) and components sharing a sheet.

The packing (where each piece goes) comes from `packing`; this module draws it: each face
clipped to its outline grown by the bleed (and never past halfway to a neighbour), the cut line
on the outline for scissors, the die line on its own layer for cutters, crop marks only around
used rectangles, and a label in a strip nothing else may enter. Backs follow each front page,
mirrored for the duplex flip as on grid sheets.
"""

from __future__ import annotations

from pathlib import Path

from reportlab.pdfgen.canvas import Canvas

from generator.errors import ContentError
from generator.impose import entries, faces, packing, registration
from generator.impose import grid as impose
from generator.impose.dieline import DieLayer
from generator.impose.sheets import (
    CUT_COLOUR,
    CUT_WIDTH,
    MARK_WIDTH,
    Copy,
    _lang_tag,
    _side_word,
    copies,
    draw_label,
    draw_segments,
)
from generator.load import templating
from generator.load.content import ComponentSpec, GameContent
from generator.load.model import PrintSettings
from generator.load.shapes import clip_to
from generator.load.sizes import paper_size
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


def write_packed(
    content: GameContent,
    comps: list[ComponentSpec],
    lang: str,
    paper: str,
    settings: dict[str, PrintSettings],
    out: Path,
    rel_path: str,
    name_id: str,
    canvas_cls: type[Canvas] = Canvas,
) -> dict:
    """Pack every copy of every component in `comps` on shared sheets; backs follow fronts."""
    renderer = FaceRenderer(content, lang)
    W, H = paper_size(content.project, paper)
    lead = settings[comps[0].id]  # sheet-wide settings: margin, duplex, back offset
    margin = lead.margin.points
    try:
        sheets = pack_roomy(comps, settings, (W, H), margin)
    except packing.DoesNotFit as exc:
        comp = next(c for c in comps if c.id == str(exc))
        raise ContentError(
            f"a {comp.size_pt[0] / 72 * 25.4:.1f} mm wide piece does not fit the {paper} sheet",
            comp.file,
            comp.line_of.get("size"),
            "size",
            code="does-not-fit",
        ) from None
    by_id = {c.id: c for c in comps}
    names = [templating.pick(c.model.name, lang) for c in comps]
    title = templating.pick(content.game.title, lang)
    canvas = faces.new_canvas(out, (W, H), renderer, f"{title} - {' + '.join(names)}", canvas_cls)
    die = DieLayer(canvas, lead.die_line, visible=False) if lead.die_line else None
    offset = (lead.back_offset.x.points, lead.back_offset.y.points)
    duplex = lead.duplex
    has_backs = any(cp.item.back for s in sheets for p in s.placed for cp in [p.piece])
    area = impose.Rect(margin, margin, W - 2 * margin, H - 2 * margin)
    pages, page_no = [], 0
    label_names = " + ".join(names)
    for n, sheet in enumerate(sheets, 1):
        placed = sheet.placed
        used = impose.bbox([p.trim for p in placed])
        reach = max(p.band.bleed for p in placed)
        used_bleed = used.grown(reach, reach, reach, reach)
        page_no += 1
        canvas.setTrimBox(faces.box(used))
        canvas.setBleedBox(faces.box(used_bleed))
        slots = []
        for p in placed:
            comp, cp = by_id[p.band.key], p.piece
            ctx = renderer.context(comp, cp.item)
            draw_piece(canvas, renderer, cp.item.layout, ctx, p, p.front, p.clip)
            slots.append(_entry(comp, cp, p, p.front))
        marks = _marks_and_cuts(canvas, sheet, settings, area)
        if die:
            die.add([(p.band.outline, p.front) for p in placed if not p.band.outline.is_rect])
        strip = impose.Rect(margin, margin, W - 2 * margin, packing.LABEL_ROOM)
        # the duplex test: targets the back repeats where the printer's flip brings them
        targets = registration.targets_in(strip, marks) if has_backs else []
        registration.draw(canvas, targets)
        side = _side_word("front", lang)
        draw_label(
            canvas,
            renderer,
            f"{title} · {label_names} · {_lang_tag(content, lang)} · {n}/{len(sheets)} · {side}",
            marks + registration.as_marks(targets),
            strip,
        )
        canvas.showPage()
        extra = {"targets": registration.manifest(targets)} if targets else {}
        pages.append(entries.page_entry(rel_path, page_no, "front", slots, **extra))
        backed = any(p.piece.item.back for p in placed)
        if not has_backs or (n == len(sheets) and not backed):
            continue  # the last sheet's back would be blank: no page, nothing to print
        page_no += 1
        back_sheet = _back_sheet(W, H, duplex, offset)
        canvas.setTrimBox(faces.box(used.mapped(back_sheet)))
        canvas.setBleedBox(faces.box(used_bleed.mapped(back_sheet)))
        slots = []
        for p in placed:
            comp, cp = by_id[p.band.key], p.piece
            if not cp.item.back:
                continue
            m = _back_transform(p, back_sheet)
            clip = [impose.apply(back_sheet, x, y) for x, y in p.clip]
            common = cp.item.back == comp.model.back
            ctx = renderer.context(comp, None if common else cp.item)
            draw_piece(canvas, renderer, cp.item.back, ctx, p, m, clip)
            slots.append(_entry(comp, cp, p, m))
        # the front's crop marks and targets, mirrored: against a light they lie over the front's
        back_marks = [
            (*impose.apply(back_sheet, x1, y1), *impose.apply(back_sheet, x2, y2))
            for x1, y1, x2, y2 in marks
        ]
        draw_segments(canvas, back_marks, "#000000", MARK_WIDTH)
        back_targets = registration.mapped(back_sheet, targets)
        registration.draw(canvas, back_targets)
        side = _side_word("back", lang)
        draw_label(
            canvas,
            renderer,
            f"{title} · {label_names} · {_lang_tag(content, lang)} · {n}/{len(sheets)} · {side}",
            back_marks + registration.as_marks(back_targets),
            impose.Rect(margin, margin, W - 2 * margin, packing.LABEL_ROOM),
        )
        canvas.showPage()
        extra = {"targets": registration.manifest(back_targets)} if back_targets else {}
        pages.append(entries.page_entry(rel_path, page_no, "back", slots, **extra))
    canvas.save()
    return {
        "file": entries.file_entry(
            rel_path,
            "components",
            lang,
            fmt="sheets",
            paper=paper,
            pages=page_no,
            component=name_id,
            components=[c.id for c in comps],
            packing={"sheets": len(sheets), "die_line": lead.die_line},
            duplex=duplex if has_backs else None,
            back_offset_mm=[entries.mm(offset[0]), entries.mm(offset[1])],
        ),
        "sheets": pages,
    }


def draw_piece(canvas, renderer, layout: str, ctx: dict, p: packing.Placed, m, clip) -> None:
    """One face: clipped to its share of the sheet, then to its outline grown by the bleed."""
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
        renderer.draw(canvas, layout, ctx, w, h, bleed)
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


def _back_sheet(W: float, H: float, duplex: str, offset) -> impose.Affine:
    mirror = (
        (-1.0, 0.0, 0.0, 1.0, W, 0.0) if duplex == "long-edge" else (1.0, 0.0, 0.0, -1.0, 0.0, H)
    )
    return impose.compose((1.0, 0.0, 0.0, 1.0, offset[0], offset[1]), mirror)


def _back_transform(p: packing.Placed, back_sheet: impose.Affine) -> impose.Affine:
    """Face -> back sheet: the card turns over about its vertical axis, the sheet is flipped."""
    flip_card = (-1.0, 0.0, 0.0, 1.0, p.band.outline.w, 0.0)
    return impose.compose(back_sheet, impose.compose(p.front, flip_card))


def _entry(comp: ComponentSpec, cp: Copy, p: packing.Placed, m) -> dict:
    trim = impose.Rect(0, 0, p.band.outline.w, p.band.outline.h).mapped(m)
    entry = entries.slot_entry(comp.id, cp.item.id, cp.copy, trim, p.band.bleed, rotated=p.rotated)
    entry["shape"] = p.band.outline.manifest(m)
    return entry

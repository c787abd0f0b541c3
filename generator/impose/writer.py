"""The one sheet writer: grid sheets, tiles and packed sheets (and the exports and changes
files that reuse them) go through `write`.

A placement plan (placement.py) says which faces go on each sheet; this module owns the rest:
the file (its canvas, title and save), each page's TrimBox and BleedBox, the faces' drawing
order, the crop marks and cut lines the plan draws, a duplex back page after each front page
(the front's crop marks and registration targets mirrored on it, no blank last back), the sheet
labels, and the build-manifest entries of the file, its pages and their slots.
"""

from __future__ import annotations

from generator import session
from generator.i18n import drafts
from generator.impose import entries, faces, packed_sheets, registration, sheets
from generator.impose import grid as impose
from generator.impose.placement import (
    LABEL_SIZE,
    MARK_WIDTH,
    Face,
    Plan,
    Sheet,
    SheetJob,
    copies,
    draw_segments,
    recorded,
)
from generator.load import languages, templating
from generator.load.content import GameContent
from generator.load.sizes import paper_size
from generator.render import pdfcolour, pdfstate
from generator.render.engine import FaceRenderer, colour


def write(job: SheetJob) -> dict:
    """Write `job`'s sheet file; return its manifest entry (`file`) and its pages (`sheets`).

    The cyclic collector is paused meanwhile: each card leaves objects that live to the end of
    the file (its manifest slot, its page's PDF objects, the faces planned for the sheet ahead)
    and the collector walked each of them twice, for the few cycles drawing makes (about 8 %
    of the CPU of a 10,000-card file). By the time it runs again, the canvas and the plan are
    gone (`_write` returned): it has only the manifest entries left to walk."""
    with session.collector_paused():
        return _write(job)


def _write(job: SheetJob) -> dict:
    renderer = FaceRenderer(job.content, job.lang)
    paper = paper_size(job.content.project, job.paper)
    if job.packed is not None:
        plan: Plan = packed_sheets.PackedPlan.make(job, renderer, paper)
    else:
        plan = sheets.grid_or_tiles(job, renderer, paper)
    return _Writer(job, plan, renderer, paper).write()


class _Writer:
    def __init__(self, job: SheetJob, plan: Plan, renderer: FaceRenderer, paper) -> None:
        self.job, self.plan, self.renderer, self.paper = job, plan, renderer, paper
        lang = job.lang
        title = templating.pick(job.content.game.title, lang)
        names = " + ".join(templating.pick(c.model.name, lang) for c in plan.comps)
        self.prefix = f"{title} · {names} · {_lang_tag(job.content, lang)}"
        self.canvas = faces.new_canvas(
            job.out, paper, renderer, f"{title} - {names}", job.canvas_cls
        )
        lead = plan.lead
        self.offset = (lead.back_offset.x.points, lead.back_offset.y.points)
        self.back_sheet = impose.back_sheet(paper, lead.duplex, self.offset)
        self.has_backs = plan.sided and any(cp.item.back for c in plan.comps for cp in copies(c))
        self.pages: list[dict] = []
        # What follows from a sheet's crop marks alone (targets, mirrored marks, the label's
        # spot) is the same on every sheet with the same marks: worked out once per file.
        self._memo: dict[tuple, object] = {}
        self._side_label = {side: languages.get(job.lang).label(side) for side in ("front", "back")}

    def write(self) -> dict:
        self._pages()
        self.canvas.save()
        return {"file": self._file_entry(), "sheets": self.pages}

    def _pages(self) -> None:
        planned = iter(self.plan.sheets())  # one sheet ahead: is this one the last?
        upcoming = next(planned, None)
        while upcoming is not None:
            sheet, upcoming = upcoming, next(planned, None)
            marks, targets = self._front(sheet)
            backed = [p for p in sheet.placed if p.back is not None]
            if not self.has_backs or (upcoming is None and not backed):
                continue  # the last sheet's back would be blank: no page, nothing to print
            self._back(sheet, [p.back(self.back_sheet) for p in backed if p.back], marks, targets)

    def _front(self, sheet: Sheet) -> tuple[list, list]:
        canvas = self.canvas
        if sheet.page is not None:
            canvas.setPageSize(sheet.page)
        canvas.setTrimBox(faces.box(sheet.trim))
        canvas.setBleedBox(faces.box(sheet.bleed))
        for p in sheet.placed:
            p.front.draw(canvas)
        marks = self.plan.guides(canvas, sheet)
        strip = self.plan.strip(sheet, sheet.bleed)
        # the duplex test: targets the back repeats where the printer's flip brings them
        targets = (
            self._once(("targets", tuple(marks), strip), registration.targets_in, strip, marks)
            if self.has_backs
            else []
        )
        self._finish(sheet, "front", [p.front for p in sheet.placed], marks, targets, strip)
        return marks, targets

    def _back(self, sheet: Sheet, backs: list[Face], marks: list, targets: list) -> None:
        """The mirror image of the front page, for a duplex printer."""
        canvas, m = self.canvas, self.back_sheet
        canvas.setTrimBox(faces.box(sheet.trim.mapped(m)))
        canvas.setBleedBox(faces.box(sheet.bleed.mapped(m)))
        for face in backs:
            face.draw(canvas)
        # the front's crop marks and targets, mirrored: against a light they lie over the front's
        key = tuple(marks)
        back_marks: list = self._once(("back marks", key), _mirrored, m, marks)
        recorded(canvas, ("back marks", key), draw_segments, back_marks, "#000000", MARK_WIDTH)
        strip = self.plan.strip(sheet, sheet.bleed.mapped(m))
        back_targets = self._once(("back targets", *targets), registration.mapped, m, targets)
        self._finish(sheet, "back", backs, back_marks, back_targets, strip)

    def _once(self, key: tuple, fn, *args):
        """`fn(*args)`, worked out once per file for each key (a pure function of its key)."""
        memo = self._memo
        if key in memo:
            return memo[key]
        out = memo[key] = fn(*args)
        return out

    def _finish(self, sheet, side: str, placed: list[Face], marks, targets, strip) -> None:
        """Targets, the label, the page's end and its manifest entry."""
        if targets:
            recorded(self.canvas, ("targets", *targets), registration.draw, targets)
        text = f"{self.prefix} · {sheet.where}"
        if self.plan.sided:
            spot = self._once(
                ("label spot", tuple(marks), *targets, strip), _spot, marks, targets, strip
            )
            draw_label(
                self.canvas, self.renderer, f"{text} · {self._side_label[side]}", spot, strip
            )
        else:
            self._label_centred(text, sheet, strip)
        self.canvas.showPage()
        extra = dict(sheet.extra)
        if targets:
            extra["targets"] = registration.manifest(targets)
        slots = [face.slot for face in placed]
        page = len(self.pages) + 1
        self.pages.append(entries.page_entry(self.job.rel_path, page, side, slots, **extra))

    def _label_centred(self, text: str, sheet: Sheet, strip: impose.Rect) -> None:
        """A small label centred on the page, 2 pt above the strip's foot (tiles)."""
        if strip.h < LABEL_SIZE:
            return
        face = self.renderer.fonts.label(self.renderer.lang)
        canvas = self.canvas
        canvas.saveState()
        canvas.setFillColor(colour("#6b6b6b"))
        page_w = (sheet.page or self.paper)[0]
        face.draw(canvas, page_w / 2, strip.y + 2.0, text, LABEL_SIZE, centre=True)
        canvas.restoreState()

    def _file_entry(self) -> dict:
        job, plan = self.job, self.plan
        extra = plan.file_extra()
        if plan.sided:
            extra["duplex"] = plan.lead.duplex if self.has_backs else None
            extra["back_offset_mm"] = [entries.mm(self.offset[0]), entries.mm(self.offset[1])]
        return entries.file_entry(
            job.rel_path,
            job.kind,
            job.lang,
            fmt=job.fmt,
            paper=job.paper,
            pages=len(self.pages),
            component=plan.name,
            **extra,
        )


def _lang_tag(content: GameContent, lang: str) -> str:
    """The language in a sheet label; a draft language says so ("fr (Brouillon)")."""
    if lang in drafts.drafts(content):
        return f"{lang} ({languages.get(lang).label('draft')})"
    return lang


def _mirrored(m: impose.Affine, marks: list) -> list:
    return [(*impose.apply(m, x1, y1), *impose.apply(m, x2, y2)) for x1, y1, x2, y2 in marks]


def _spot(marks: list, targets: list, strip: impose.Rect) -> tuple[float, float] | None:
    """Where a sheet label goes: the widest stretch of the strip that no crop mark crosses and
    no registration target takes (None: no room)."""
    if strip.h < LABEL_SIZE * 1.2:
        return None
    return impose.label_spot(marks + registration.as_marks(targets), strip)


def draw_label(
    canvas, renderer, text: str, spot: tuple[float, float] | None, strip: impose.Rect
) -> None:
    """A small sheet label at its spot (`_spot`), in the strip's height."""
    if spot is None:
        return
    centre, room = spot
    face = renderer.fonts.label(renderer.lang)
    size = LABEL_SIZE
    if face.width(text, size) > room - 4:
        size = size * (room - 4) / face.width(text, size)
        if size < 4.0:
            return  # no room for a legible label: better none than one struck by marks
    kept = pdfstate.save(canvas)  # every sheet page has its label: no calls, the same bytes
    pdfcolour.fill(canvas, colour("#6b6b6b"))
    y = strip.y + (min(strip.h, 3 * LABEL_SIZE) - size) / 2 + size * 0.2
    face.draw(canvas, centre, y, text, size, centre=True)
    pdfstate.restore(canvas, kept)

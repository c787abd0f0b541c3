"""`print-shop`: one page per design (trim plus bleed, TrimBox and BleedBox), then its back,
and an order sheet, `print-shop/order.csv`, giving the quantity of every page.

Why one page per design and an order sheet rather than one page per copy: shops (The Game
Crafter, MakePlayingCards) take each design once with a quantity, so the files stay small (Sub
Zero's 56 action cards are 10 designs) and the CSV is what the order form asks for.

The order sheet names each PDF relative to its own folder (`tokens.pdf`, not a path into the
project), and once every file of the folder is written the build zips the folder
(`<lang>/print-shop.zip`, `zip_folder`): what a shop receives is self-contained.
"""

from __future__ import annotations

import csv
import hashlib
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from generator.exports.base import ExportContext, Job, Outputs, file_entry, page_entry, slot_entry
from generator.impose import faces
from generator.impose import grid as impose
from generator.impose.dieline import DieLayer
from generator.load import templating
from generator.load.content import ComponentSpec, ItemSpec
from generator.load.export_options import PrintShopOptions
from generator.render.engine import FaceRenderer

ORDER_COLUMNS = ["file", "page", "component", "item", "side", "quantity"]


@dataclass(frozen=True)
class DesignPage:
    page: int
    item: ItemSpec
    side: str  # front | back
    layout: str


def design_pages(comp: ComponentSpec) -> Iterator[DesignPage]:
    """Each item's front, then its back when it has one: the pages of the component's file."""
    page = 0
    for item in comp.items:
        for side, layout in (("front", item.layout), ("back", item.back)):
            if layout:
                page += 1
                yield DesignPage(page, item, side, layout)


class PrintShop:
    name = "print-shop"
    options = PrintShopOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        folder = f"{ctx.folder()}/print-shop"
        jobs = [
            Job(self.name, ctx.lang, (f"{folder}/{comp.id}.pdf",), comp.id)
            for comp in ctx.components()
        ]
        return [*jobs, Job(self.name, ctx.lang, (f"{folder}/order.csv",))]

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        if not job.component:
            return self._order_sheet(ctx, job, out)
        content, lang = ctx.content, ctx.lang
        comp = content.component(job.component)
        rel = job.paths[0]
        renderer = FaceRenderer(content, lang)
        w, h = comp.size_pt
        bleed = ctx.settings[comp.id].bleed.points
        size = (w + 2 * bleed, h + 2 * bleed)
        title = templating.pick(content.game.title, lang)
        name = templating.pick(comp.model.name, lang)
        canvas = faces.new_canvas(out.path(rel), size, renderer, f"{title} - {name} (print shop)")
        outline = comp.outline
        # A shaped piece's die line, for the shop's cutter: on its own layer, switched on here.
        die_name = ctx.settings[comp.id].die_line if not outline.is_rect else None
        die = DieLayer(canvas, die_name, visible=True) if die_name else None
        trim = impose.Rect(bleed, bleed, w, h)
        full = impose.Rect(0, 0, *size)
        place = (1.0, 0.0, 0.0, 1.0, bleed, bleed)
        comp_ctx = renderer.context(comp, None)
        pages = []
        for dp in design_pages(comp):
            common = dp.side == "back" and dp.layout == comp.model.back
            face_ctx = comp_ctx if common else renderer.context(comp, dp.item)
            canvas.setTrimBox(faces.box(trim))
            canvas.setBleedBox(faces.box(full))
            faces.draw_face(
                canvas,
                renderer,
                dp.layout,
                face_ctx,
                full,
                place,
                w,
                h,
                bleed,
                outline,
                reuse=("common-back", comp.id) if common else None,  # one page per design
            )
            if die and dp.side == "front":
                die.add([(outline, place)])
            canvas.showPage()
            slot = slot_entry(comp.id, dp.item.id, 1, trim, bleed, copies=dp.item.count)
            if not outline.is_rect:
                slot["shape"] = outline.manifest(place)
            pages.append(page_entry(rel, dp.page, dp.side, [slot], quantity=dp.item.count))
        canvas.save()
        entry = file_entry(rel, "export", lang, fmt=self.name, pages=len(pages), component=comp.id)
        return {"files": [entry], "sheets": pages}

    def _order_sheet(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        rel = job.paths[0]
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(ORDER_COLUMNS)
        rows = 0
        for comp in ctx.components():
            pdf = f"{comp.id}.pdf"  # beside order.csv: the folder travels as it is
            for dp in design_pages(comp):
                writer.writerow([pdf, dp.page, comp.id, dp.item.id, dp.side, dp.item.count])
                rows += 1
        out.path(rel).write_text(buf.getvalue(), encoding="utf-8")
        entry = file_entry(rel, "export", ctx.lang, fmt=self.name, rows=rows, role="order-sheet")
        return {"files": [entry], "sheets": []}


ZIP_TIME = (1980, 1, 1, 0, 0, 0)  # fixed: the same files give the same archive, byte for byte


def zip_folder(root: Path, folder: str, members: list[str], out: Path) -> str:
    """Zip `members` (paths relative to the project root, all under `folder`) into `out`, each
    named from the folder's own name down (`print-shop/order.csv`), so the archive unpacks to
    the folder the shop receives. Returns the members' digest, for the build key."""
    digest = hashlib.sha256()
    base = Path(folder).parent
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for rel in sorted(members):
            data = (root / rel).read_bytes()
            digest.update(rel.encode() + b"\0" + hashlib.sha256(data).digest())
            info = zipfile.ZipInfo(Path(rel).relative_to(base).as_posix(), ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return digest.hexdigest()

"""`png`: one image per face for print-on-demand shops, trim plus bleed, sRGB.

Files: output/<game>/<lang>/png/<component>/<item>-front.png, <item>-back.png for a back of its
own, and back.png for the back a whole component shares. One image per design: the manifest
gives each image's quantity (`copies`), as a shop's upload form asks. With `preset:` (from
templates/printers.yaml) the images have the shop template's exact pixel size and dpi and go to
png-<preset>/.
"""

from __future__ import annotations

from generator.exports import presets, raster
from generator.exports.base import ExportContext, Job, Outputs, file_entry
from generator.load.export_options import PngOptions
from generator.units import MM

DEFAULT_DPI = 300
COMPRESS_LEVEL = 6  # Pillow's default; the benchmark's plain script uses the same


def _name(face: raster.Face) -> str:
    return "back.png" if face.item is None else f"{face.item.id}-{face.side}.png"


class Png:
    name = "png"
    options = PngOptions

    def _folder(self, ctx: ExportContext) -> str:
        preset = ctx.options(PngOptions).preset
        sub = f"png-{preset}" if preset else "png"
        return f"{ctx.folder()}/{sub}"

    def plan(self, ctx: ExportContext) -> list[Job]:
        folder = self._folder(ctx)
        return [
            Job(
                self.name,
                ctx.lang,
                tuple(f"{folder}/{comp.id}/{_name(f)}" for f in raster.faces_of(comp)),
                comp.id,
            )
            for comp in ctx.components()
        ]

    def size(self, ctx: ExportContext, comp) -> tuple[int, tuple[int, int], str | None]:
        """dpi, pixel size and the shop size name for one component's faces."""
        w, h = comp.size_pt
        opts = ctx.options(PngOptions)
        if opts.preset:
            sizes = presets.preset_sizes(ctx.content.project, opts.preset)
            shop = presets.size_for(sizes, (w, h))
            if shop is None:
                raise presets.no_size_error(comp, sizes)
            return shop.dpi, shop.px, shop.name
        dpi = opts.dpi or DEFAULT_DPI
        bleed = ctx.settings[comp.id].bleed.points
        return dpi, (raster.pixels(w + 2 * bleed, dpi), raster.pixels(h + 2 * bleed, dpi)), None

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        comp = ctx.content.component(job.component)
        dpi, px, shop_size = self.size(ctx, comp)
        faces = raster.faces_of(comp)
        w, h = comp.size_pt
        files = []
        images = raster.render(ctx.content, ctx.lang, comp, faces, dpi=dpi, px=px)
        for rel, face, image in zip(job.paths, faces, images, strict=True):
            raster.save_png(image, out.path(rel), dpi, COMPRESS_LEVEL)
            copies = (
                face.item.count
                if face.item
                else sum(i.count for i in comp.items if i.back == comp.model.back)
            )
            files.append(
                file_entry(
                    rel,
                    "export",
                    ctx.lang,
                    fmt=self.name,
                    component=comp.id,
                    item=face.item.id if face.item else None,
                    side=face.side,
                    copies=copies,
                    px=list(px),
                    dpi=dpi,
                    trim_mm=[round(w / MM, 3), round(h / MM, 3)],
                    preset=ctx.options(PngOptions).preset,
                    shop_size=shop_size,
                )
            )
        return {"files": files, "sheets": []}

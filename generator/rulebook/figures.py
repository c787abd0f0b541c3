"""Faces as pictures for the rulebook: one face drawn by the component engine, as vectors.

A face is drawn with the same FaceRenderer as the card sheets into a one-page PDF (ReportLab)
kept in a cache folder. The rulebook's HTML holds an empty SVG of the face's size in its place
(WeasyPrint cannot embed a PDF), and `vector.place_faces` draws the face's PDF page there once
WeasyPrint has written the book: text in a figure stays text in its own embedded fonts, at
the figure's scale. The preview (`raster=True`) also rasterises the face with pypdfium2 at
300 dpi of its printed size into a PNG. The file name is a hash of everything the picture
depends on (layout files, art, fonts, the item's data, size, pnp's drawing code), so a
rulebook rebuild reuses the pictures and a changed card redraws only itself.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

from generator import fsio
from generator.cache.store import code_digest
from generator.errors import ContentError
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.project import digest_tree, hash_into, used_files
from generator.load.shapes import clip_to
from generator.render.engine import Contexts, FaceRenderer

DPI = 300
# No text in a figure prints smaller (points). Not in vector.py: reading it there would import
# pikepdf, which only writing a book needs.
MIN_TEXT_PT = 6.0


@dataclass(frozen=True)
class Picture:
    path: Path
    width_px: int
    height_px: int
    face_w_pt: float
    face_h_pt: float
    shaped: bool = False  # cut to a shape: transparent outside its outline, drawn unframed
    pdf: Path | None = None  # the face as a one-page vector PDF
    placeholder: Path | None = None  # an empty SVG of the face's size, where the PDF goes
    min_text_pt: float | None = None  # the smallest text on the face at its printed size

    def img(self, cls: str, alt: str, style: str) -> str:
        """The <img> a rulebook holds in the face's place: its empty SVG, marked with the
        face's PDF (drawn there after layout), or the PNG when there is no PDF."""
        if self.pdf is None or self.placeholder is None:
            src, face = self.path, ""
        else:
            src, face = self.placeholder, f' data-face="{self.pdf.name}"'
        cls_attr = f' class="{cls}"' if cls else ""
        return f'<img{cls_attr} src="{src.resolve().as_uri()}"{face} alt="{alt}" style="{style}">'

    def min_width_pt(self, min_text_pt: float) -> float:
        """The narrowest this face can be printed with all its text at `min_text_pt` or more."""
        if not self.min_text_pt:
            return 0.0
        return self.face_w_pt * max(1.0, min_text_pt / self.min_text_pt)


def world_digest(content: GameContent) -> str:
    """Everything outside an item's data that a face depends on."""
    h = hashlib.sha256(code_digest().encode())
    digest_tree(h, content.project.layouts)
    digest_tree(h, content.dir / "layouts")  # a game's own layouts, when it has them
    digest_tree(h, content.project.fonts)
    for path in used_files(content.dir):
        if path.suffix.lower() in (".svg", ".png", ".jpg", ".jpeg"):
            h.update(str(path.relative_to(content.dir)).encode())
            hash_into(h, path, name=False)
    return h.hexdigest()


def _pixels(w_pt: float, h_pt: float, width_pt: float) -> tuple[int, int]:
    """A face's picture size for printing it `width_pt` wide at DPI."""
    px_w = max(8, round(width_pt / 72 * DPI))
    return px_w, max(8, round(h_pt * (px_w / w_pt)))


class FaceCache:
    """Rasterised faces of one game in one language, cached as PNG files in `folder`."""

    def __init__(
        self,
        content: GameContent,
        lang: str,
        folder: Path,
        world: str | None = None,
        dry: bool = False,
        raster: bool = False,
    ):
        self.raster = raster  # also a PNG of each face (the preview shows pictures)
        self.dry = dry  # `pnp check`: every argument is checked, nothing is drawn or written
        self.content = content
        self.lang = lang
        self.folder = folder
        self.world = world if world is not None else world_digest(content)
        self._renderer: FaceRenderer | None = None
        # Contexts, not a FaceRenderer: a cached picture needs only its data to find its
        # file, and loading three TrueType fonts costs 0.2 s.
        self.contexts = Contexts(content, lang)
        self.drawn = 0  # faces drawn (cache misses), for tests and benchmarks
        self._min_text: dict[Path, float | None] = {}

    @property
    def renderer(self) -> FaceRenderer:
        if self._renderer is None:
            self._renderer = FaceRenderer(self.content, self.lang)
        return self._renderer

    def face(self, comp: ComponentSpec, item: ItemSpec, side: str, width_pt: float) -> Picture:
        """The PNG of one side of one item, rasterised for printing `width_pt` wide at 300 dpi."""
        if side not in ("front", "back"):
            raise ContentError(
                f"side '{side}' is neither front nor back",
                code="rules-figure",
                hint="use side='front' or side='back'",
            )
        layout = item.layout if side == "front" else item.back
        if layout is None:
            raise ContentError(
                f"item '{item.id}' of '{comp.id}' has no back",
                code="rules-figure",
                hint="use side='front', or give the component a 'back:' layout",
            )
        common_back = side == "back" and layout == comp.model.back
        ctx = self.contexts.context(comp, None if common_back else item)
        w, h = comp.size_pt
        px_w, px_h = _pixels(w, h, width_pt)
        scale = px_w / w
        if self.dry:  # the item and its data are checked (context above); nothing is drawn
            return Picture(self.folder / "not-drawn.png", px_w, px_h, w, h)
        parts = [
            self.world,
            self.lang,
            comp.id,
            layout,
            side,
            round(w, 3),
            round(h, 3),
            repr(comp.outline),
        ]
        try:
            state = json.dumps([*parts, ctx], sort_keys=True, default=repr, ensure_ascii=False)
        except (TypeError, ValueError):  # keys of mixed types (1 and "a") cannot be sorted
            state = repr([*parts, ctx])
        # the vector face does not depend on pixels: one PDF for every size it is shown at
        key = hashlib.sha256(state.encode()).hexdigest()[:24]
        stem = f"{self.content.id}-{comp.id}-{item.id}-{side}-{key}"
        pdf = self.folder / f"{stem}.pdf"
        path = self.folder / f"{stem}-{px_w}x{px_h}.png"
        outline = comp.outline
        if not pdf.exists() or (self.raster and not path.exists()):
            self._draw(path, pdf, layout, ctx, w, h, scale, outline)
            self.drawn += 1
        if pdf not in self._min_text:
            from generator.rulebook import vector  # start-up: pikepdf only when a face is drawn

            self._min_text[pdf] = vector.smallest_text(pdf)
        return Picture(
            path,
            px_w,
            px_h,
            w,
            h,
            not outline.is_rect,
            pdf=pdf,
            placeholder=self.empty_svg(w, h),
            min_text_pt=self._min_text[pdf],
        )

    def empty_svg(self, w_pt: float, h_pt: float) -> Path:
        """An empty picture `w_pt` x `h_pt`: it holds a face's place while WeasyPrint lays out."""
        path = self.folder / f"place-{w_pt:.3f}x{h_pt:.3f}.svg"
        if not self.dry and not path.exists():
            svg = (
                '<svg xmlns="http://www.w3.org/2000/svg" '
                f'width="{w_pt:.3f}pt" height="{h_pt:.3f}pt" '
                f'viewBox="0 0 {w_pt:.3f} {h_pt:.3f}"></svg>\n'
            )
            with fsio.atomic_path(path) as tmp:
                tmp.write_text(svg, encoding="utf-8")
        return path

    def blank(self, w_pt: float, h_pt: float, width_pt: float) -> Path:
        """An empty cell of a board: a pale face-sized card with a dashed outline (PNG)."""
        from PIL import Image, ImageDraw

        px_w, px_h = _pixels(w_pt, h_pt, width_pt)
        path = self.folder / f"blank-{px_w}x{px_h}.png"
        if not self.dry and not path.exists():
            image = Image.new("RGB", (px_w, px_h), "#ffffff")
            draw = ImageDraw.Draw(image)
            line = max(1, round(px_w / 250))
            radius = round(min(px_w, px_h) * 0.04)
            draw.rounded_rectangle((0, 0, px_w - 1, px_h - 1), radius, fill="#f4f6f8")
            dash, gap = 5 * line, 4 * line
            for x in range(radius, px_w - radius, dash + gap):  # dashed outline
                x2 = min(x + dash, px_w - radius)
                draw.rectangle((x, 0, x2, line - 1), fill="#9aa3ad")
                draw.rectangle((x, px_h - line, x2, px_h - 1), fill="#9aa3ad")
            for y in range(radius, px_h - radius, dash + gap):
                y2 = min(y + dash, px_h - radius)
                draw.rectangle((0, y, line - 1, y2), fill="#9aa3ad")
                draw.rectangle((px_w - line, y, px_w - 1, y2), fill="#9aa3ad")
            with fsio.atomic_path(path) as tmp:
                image.save(tmp, format="PNG", dpi=(DPI, DPI))
        return path

    def placeholder(self, comp: ComponentSpec, width_pt: float) -> Picture:
        """A blank card the size of `comp`'s face, for a face that cannot be drawn."""
        w, h = comp.size_pt
        px_w, px_h = _pixels(w, h, width_pt)
        return Picture(self.blank(w, h, width_pt), px_w, px_h, w, h)

    def _draw(
        self,
        path: Path,
        pdf_path: Path,
        layout: str,
        ctx: dict,
        w: float,
        h: float,
        scale: float,
        outline,
    ) -> None:
        import pypdfium2 as pdfium
        from reportlab.pdfgen.canvas import Canvas

        renderer = self.renderer
        buffer = io.BytesIO()
        # initialFontName: no unembedded Helvetica (the face's PDF is placed in the rulebook)
        canvas = Canvas(
            buffer,
            pagesize=(w, h),
            invariant=1,
            pageCompression=0,
            initialFontName=renderer.fonts.default.name,
            initialFontSize=10,
        )
        shaped = not outline.is_rect
        canvas.saveState()
        clip_to(canvas, outline, 0.0)  # a round token looks round in the rules too
        renderer.draw(canvas, layout, ctx, w, h, 0.0)
        canvas.restoreState()
        if shaped:  # the outline is the figure's frame
            canvas.setStrokeColorRGB(0.667, 0.694, 0.729)
            canvas.setLineWidth(0.8)
            frame = canvas.beginPath()
            outline.add_to_path(frame, grow=-0.4)
            canvas.drawPath(frame, stroke=1, fill=0)
        canvas.showPage()
        canvas.save()
        with fsio.atomic_path(pdf_path) as tmp:
            tmp.write_bytes(buffer.getvalue())
        if not self.raster:
            return
        pdf = pdfium.PdfDocument(buffer.getvalue())
        try:
            page = pdf[0]
            if shaped:  # transparent outside the outline
                bitmap = page.render(
                    scale=scale, may_draw_forms=True, fill_color=(255, 255, 255, 0)
                )
                image = bitmap.to_pil().convert("RGBA")
            else:
                image = page.render(scale=scale, may_draw_forms=True).to_pil().convert("RGB")
        finally:
            pdf.close()
        with fsio.atomic_path(path) as tmp:
            image.save(tmp, format="PNG", dpi=(DPI, DPI), compress_level=6)

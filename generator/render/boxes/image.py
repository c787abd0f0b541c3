"""`image` (PNG/JPEG) and `svg` (an SVG template) art from the game folder."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from generator.errors import ContentError, Finding, rel
from generator.load.boxes import ImageBox
from generator.load.project import inside, used_files
from generator.render import art
from generator.render.boxes.base import BoxKind, Placed, Rect, fit, register
from generator.render.pdfform import end_form

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

MIN_DPI = 300


def art_path(renderer: FaceRenderer, box: ImageBox, ctx: dict) -> Path:
    src = renderer.text(box.src, ctx)
    path = inside(renderer.content.dir, src, what="art")
    if not os.path.lexists(path):  # located by the caller at the layout's box (file, line)
        import difflib

        game = renderer.content.dir
        known = [p.relative_to(game).as_posix() for p in used_files(game / Path(src).parts[0])]
        close = difflib.get_close_matches(src, known, n=1, cutoff=0.6)
        raise ContentError(
            f"art file '{src}' not found in the game folder",
            key="src",
            code="missing-art",
            hint=f"did you mean '{close[0]}'?" if close else "check the name under art/",
        )
    return path


def svg_ctx(renderer: FaceRenderer, params: dict, ctx: dict) -> dict:
    if not params:
        return ctx
    return {**ctx, **{k: renderer.text(v, ctx) for k, v in params.items()}}


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    box, r = placed.box, placed.rect
    path = art_path(renderer, box, placed.ctx)
    if box.kind == "svg":
        draw_svg(renderer, canvas, placed.ctx, r, path, box.fit, box.params)
        return
    raster = art.open_raster(path)
    x, y, w, h = fit(raster.width_px, raster.height_px, r, box.fit)
    if box.fit == "cover":
        clip = canvas.beginPath()
        clip.rect(r.x, r.y, r.w, r.h)
        canvas.clipPath(clip, stroke=0, fill=0)
    canvas.drawImage(str(path), x, y, w, h, mask="auto")


def draw_svg(
    renderer: FaceRenderer, canvas, ctx: dict, r: Rect, path: Path, mode: str, params: dict
) -> None:
    """An SVG drawn once per PDF as a Form XObject, then placed wherever it is used."""
    text = art.svg_source(path, svg_ctx(renderer, params, ctx))
    drawing = art.svg_drawing(text, path)
    name = "svg" + art.digest(text)
    if not canvas.hasForm(name):
        from reportlab.graphics import renderPDF

        # Otherwise the renderer selects Helvetica, which would sit unembedded in the PDF.
        drawing.__dict__["initialFontName"] = renderer.fonts.default.name
        canvas.beginForm(name, 0, 0, drawing.width, drawing.height)
        renderPDF.draw(drawing, canvas, 0, 0)
        end_form(canvas)
    x, y, w, h = fit(drawing.width, drawing.height, r, mode)
    canvas.translate(x, y)
    canvas.scale(w / drawing.width, h / drawing.height)
    canvas.doForm(name)


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    box = placed.box
    path = art_path(renderer, box, placed.ctx)
    if box.kind == "svg":
        art.svg_check(art.svg_source(path, svg_ctx(renderer, box.params, placed.ctx)), path)
        return []
    raster = art.open_raster(path)
    _, _, w, h = fit(raster.width_px, raster.height_px, placed.rect, box.fit)
    dpi = min(raster.width_px / (w / 72), raster.height_px / (h / 72))
    if dpi < MIN_DPI - 0.5:
        return [
            placed.finding(
                "warning",
                "low-dpi",
                f"{rel(path, renderer.content.project.root)} prints at {dpi:.0f} dpi",
                hint=f"supply at least {MIN_DPI} dpi at the placed size "
                f"({w / 72 * MIN_DPI:.0f}x{h / 72 * MIN_DPI:.0f} px)",
            )
        ]
    return []


KIND = register(
    BoxKind(
        names=("image", "svg"),
        model=ImageBox,
        draw=draw,
        check=check,
        draws="art",
        keys="`image`: src (PNG/JPEG in the game folder); `svg`: src (an SVG, which may use "
        "`{{ }}` over the item's data) and params (extra variables); both: fit "
        "contain/cover/stretch",
    )
)

"""Faces as pixels: draw faces with the layout engine into an in-memory PDF, one face per page
sized to a whole number of pixels, and rasterise each page with pdfium (png and tts use this)."""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass

import pypdfium2 as pdfium
from PIL import Image, ImageCms

from generator.impose import faces
from generator.impose import grid as impose
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.render.engine import FaceRenderer


@dataclass(frozen=True)
class Face:
    """One side to rasterise: `item` None means the component's common back."""

    item: ItemSpec | None
    side: str  # front | back
    layout: str


def faces_of(comp: ComponentSpec) -> list[Face]:
    """Every design's front, each item's own back, and the common back once."""
    out = [Face(item, "front", item.layout) for item in comp.items if item.layout]
    if comp.model.back and any(item.back == comp.model.back for item in comp.items):
        out.append(Face(None, "back", comp.model.back))
    out += [
        Face(item, "back", item.back)
        for item in comp.items
        if item.back and item.back != comp.model.back
    ]
    return out


def pixels(length_pt: float, dpi: int) -> int:
    return round(length_pt / 72 * dpi)


def render(
    content: GameContent,
    lang: str,
    comp: ComponentSpec,
    sides: list[Face],
    *,
    dpi: int,
    px: tuple[int, int],
) -> Iterator[Image.Image]:
    """Each face at `dpi`, centred on a `px` canvas; the art continues into whatever bleed
    the canvas leaves around the trim (the face keeps its true size)."""
    renderer = FaceRenderer(content, lang)
    w, h = comp.size_pt
    # pdfium sizes its bitmap as ceil(page * scale): a hair under the pixel grid keeps it exact.
    page = ((px[0] - 1e-3) * 72 / dpi, (px[1] - 1e-3) * 72 / dpi)
    bx, by = (page[0] - w) / 2, (page[1] - h) / 2
    buf = io.BytesIO()
    canvas = faces.new_canvas(buf, page, renderer, comp.id)
    full = impose.Rect(0, 0, *page)
    place = (1.0, 0.0, 0.0, 1.0, bx, by)
    comp_ctx = renderer.context(comp, None)
    for face in sides:
        ctx = comp_ctx if face.item is None else renderer.context(comp, face.item)
        faces.draw_face(canvas, renderer, face.layout, ctx, full, place, w, h, max(bx, by, 0))
        canvas.showPage()
    canvas.save()
    pdf = pdfium.PdfDocument(buf.getvalue())
    try:
        for index in range(len(pdf)):
            page_obj = pdf[index]
            image = page_obj.render(scale=dpi / 72, fill_color=(255, 255, 255, 255)).to_pil()
            page_obj.close()
            yield image.convert("RGB") if image.mode != "RGB" else image
    finally:
        pdf.close()


_SRGB: bytes | None = None


def srgb_profile() -> bytes:
    """An sRGB ICC profile to embed, so a shop reads the colours as sRGB."""
    global _SRGB
    if _SRGB is None:
        profile = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
        # lcms stamps the profile with the time it was made (header bytes 24-35), which made
        # every PNG differ from the last build's; a fixed date keeps the same picture the same
        # bytes. The profile ID (bytes 84-99) is left as lcms wrote it (zero: not computed).
        profile[24:36] = _PROFILE_DATE
        _SRGB = bytes(profile)
    return _SRGB


# 2000-01-01 00:00:00 as an ICC dateTimeNumber: six big-endian 16-bit fields.
_PROFILE_DATE = b"".join(n.to_bytes(2, "big") for n in (2000, 1, 1, 0, 0, 0))


def save_png(image: Image.Image, path, dpi: int, compress_level: int) -> None:
    image.save(
        path,
        format="PNG",
        dpi=(dpi, dpi),
        icc_profile=srgb_profile(),
        compress_level=compress_level,
    )

"""One face on its own: drawn with bleed into a one-page PDF, or rasterised to PNG.

This is the designer's quick look (`pnp render`) and the preview's picture source. The face is
drawn by the same engine as the sheets, at its trim size plus bleed, so what you see is what the
sheet prints around that card. Findings of that face (overflow, glyphs, art...) come with it.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path

from generator.check import check_face
from generator.errors import ContentError, Finding, rel
from generator.fsio import write_user_file
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.shapes import clip_to
from generator.render.engine import FaceRenderer

SIDES = ("front", "back")


@dataclass(frozen=True)
class FaceRef:
    """Which face: a component's item, one side, in one language."""

    comp: ComponentSpec
    item: ItemSpec
    side: str
    lang: str

    @property
    def layout(self) -> str | None:
        return self.item.layout if self.side == "front" else self.item.back

    @property
    def common_back(self) -> bool:
        return self.side == "back" and self.item.back == self.comp.model.back


def _choose(what: str, wanted: str, known: list[str], hint_cmd: str) -> str:
    if wanted in known:
        return wanted
    close = get_close_matches(wanted, known, n=1)
    hint = f"did you mean '{close[0]}'?" if close else f"one of: {', '.join(known[:12])}"
    if len(known) > 12 and not close:
        hint += f", ... ({len(known)} in all; {hint_cmd})"
    raise ContentError(f"no {what} '{wanted}'", code="usage", hint=hint)


def find_face(
    content: GameContent, component: str, item: str, lang: str | None, side: str
) -> FaceRef:
    """Find a face by its ids; unknown ids are a usage error with a 'did you mean'."""
    comp_id = _choose(
        "component", component, [c.id for c in content.components], "see components/*.yaml"
    )
    comp = content.component(comp_id)
    item_id = _choose(
        f"item in '{comp_id}'", item, [i.id for i in comp.items], f"see {rel(comp.file)}"
    )
    spec = next(i for i in comp.items if i.id == item_id)
    lang = lang or content.languages[0]
    _choose("language", lang, list(content.languages), "see game.yaml languages")
    if side not in SIDES:
        raise ContentError(f"side '{side}' is neither front nor back", code="usage")
    ref = FaceRef(comp, spec, side, lang)
    if ref.layout is None:
        raise ContentError(
            f"item '{item_id}' of '{comp_id}' has no back",
            code="usage",
            hint="use --side front, or give the component a 'back:' layout",
        )
    return ref


def face_pdf(content: GameContent, ref: FaceRef, bleed_pt: float) -> bytes:
    """The face as a one-page PDF: trim plus bleed, with TrimBox and BleedBox."""
    from reportlab.pdfgen.canvas import Canvas

    renderer = FaceRenderer(content, ref.lang)
    w, h = ref.comp.size_pt
    size = (w + 2 * bleed_pt, h + 2 * bleed_pt)
    buffer = io.BytesIO()
    # initialFontName: no unembedded Helvetica in the page resources.
    canvas = Canvas(
        buffer,
        pagesize=size,
        invariant=1,
        initialFontName=renderer.fonts.default.name,
        initialFontSize=10,
    )
    canvas.setTrimBox((bleed_pt, bleed_pt, bleed_pt + w, bleed_pt + h))
    canvas.setBleedBox((0, 0, *size))
    ctx = renderer.context(ref.comp, None if ref.common_back else ref.item)
    canvas.translate(bleed_pt, bleed_pt)
    clip_to(canvas, ref.comp.outline, bleed_pt)  # a die-cut face: its bleed follows the outline
    layout = ref.layout
    assert layout is not None  # find_face refuses a side without a layout
    try:
        renderer.draw(canvas, layout, ctx, w, h, bleed_pt)
    except ContentError as exc:
        files = renderer.layouts.files_of.get(layout)
        raise exc.located(files[0] if files else None) from None
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def rasterise(pdf_bytes: bytes, dpi: float):
    """The first page of a PDF as an RGB Pillow image at `dpi`."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(pdf_bytes)
    try:
        page = pdf[0]
        w_pt, h_pt = page.get_size()
        image = page.render(scale=dpi / 72, may_draw_forms=True).to_pil().convert("RGB")
    finally:
        pdf.close()
    # pdfium rounds the pixel size up; the exact size is the nearest whole pixel.
    size = (round(w_pt / 72 * dpi), round(h_pt / 72 * dpi))
    return image if image.size == size else image.crop((0, 0, *size))


def face_findings(content: GameContent, ref: FaceRef) -> list[Finding]:
    """What `pnp check` says about this face (render-level findings, this language), less
    what accepted.yaml accepts."""
    found = check_face(content, ref.comp, ref.item, ref.lang, ref.side)
    return [f for f in found if not f.accepted]


def save_face(content: GameContent, ref: FaceRef, out: Path, dpi: float, bleed_pt: float) -> Path:
    """Write the face to `out`: PDF when it ends in .pdf, PNG otherwise (atomic)."""
    pdf = face_pdf(content, ref, bleed_pt)
    if out.suffix.lower() == ".pdf":
        return write_user_file(out, pdf)
    image = rasterise(pdf, dpi)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", dpi=(dpi, dpi), compress_level=3)
    return write_user_file(out, buffer.getvalue())

"""`text`: a block of text with markup (**bold**, :icon:), auto-shrink and alignment."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema

from generator import session
from generator.errors import Finding
from generator.load import templating
from generator.load.model import AbsLength, Colour, LangText, NonNegative, TypeSizeRange
from generator.render import textflow
from generator.render.boxes import fitness
from generator.render.boxes.base import BoxBase, BoxKind, Placed, Rect, fill_colour, fit, register
from generator.units import Length, parse_length

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?/?>")
_UNIT = re.compile(r"[a-z%]\s*$")


def text_size(value: Any) -> Length:
    """A type size: 8pt or 3mm. A bare number would be millimetres like every other length,
    which for type is nearly always a mistake (size: 8 meaning 8 pt, drawn 23 pt tall)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        raise ValueError(f"a bare number as a text size is ambiguous ({value!r}): write 8pt or 3mm")
    if isinstance(value, str) and value.strip() and not _UNIT.search(value.strip()):
        raise ValueError(f"a bare number as a text size is ambiguous ({value!r}): write 8pt or 3mm")
    return parse_length(value, allow_percent=False)


TextSize = Annotated[
    Length,
    BeforeValidator(text_size),
    TypeSizeRange,
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^\d*\.?\d+\s*(mm|cm|in|pt)$",
            "description": "a type size with its unit: 8pt or 3mm",
        }
    ),
]


class TextBox(BoxBase):
    kind: Literal["text"]
    text: LangText
    font: str = "gothic"
    style: Literal["regular", "bold", "black"] = "regular"
    size: TextSize = Length(10)
    min_size: TextSize | None = None
    leading: float = Field(1.2, gt=0.5, le=3)
    color: Colour = "#000000"
    align: Literal["left", "center", "right"] = "left"
    valign: Literal["top", "middle", "bottom"] = "top"
    wrap: bool = True
    padding: Annotated[AbsLength, NonNegative] = Length(0)


# ---------------------------------------------------------------- layout


def fit_text(renderer: FaceRenderer, box: TextBox, r: Rect, ctx: dict, last: bool = False):
    """The text of `box` laid out in `r`, kept for the rest of the command: checks lay out what
    drawing then reuses, and a text that is the same on every card is laid out once. Drawing
    (`last`) is the last reader of a per-card text, so it takes that out and keeps none: a
    10,000-card build does not hold 10,000 layouts."""
    text = renderer.text(box.text, ctx)
    key = (id(box), text, round(r.w, 3), round(r.h, 3))
    fits = session.current().cache("boxes.text.fits")  # shared by check and draw of a command
    raw = box.text.get(renderer.lang, "") if isinstance(box.text, dict) else box.text
    done_with = last and templating.is_template(raw)  # per-card text, drawn: not needed again
    hit = fits.pop(key, None) if done_with else fits.get(key)
    if hit is not None and hit[0] is box:  # already laid out (by the check, or another card)
        return hit[1], hit[2]
    fitted, faces = _fit_text(renderer, box, r, text)
    if done_with:
        return fitted, faces
    if len(fits) > 4096:  # bounded: a 10,000-card deck must not hold every layout
        fits.clear()
    fits[key] = (box, fitted, faces)
    return fitted, faces


def _fit_text(renderer: FaceRenderer, box: TextBox, r: Rect, text: str):
    fonts, lang = renderer.fonts, renderer.lang
    # Each style is a chain: the box's font, then per character the scripts' faces.
    faces = {s: fonts.chain(box.font, s, lang) for s in ("regular", "bold", "black")}
    faces["regular"] = fonts.chain(box.font, box.style, lang)
    atoms = textflow.parse(text, "regular", renderer.icons)
    if box.style != "regular":  # the box's own style is the base; ** steps up from it
        faces = {
            "regular": fonts.chain(box.font, box.style, lang),
            "bold": fonts.chain(box.font, "black" if box.style == "bold" else "bold", lang),
            "black": fonts.chain(box.font, "black", lang),
        }
    pad = box.padding.points
    fitted = textflow.fit(
        atoms,
        faces,
        r.w - 2 * pad,
        r.h - 2 * pad,
        box.size.points,
        box.min_size.points if box.min_size else None,
        box.leading,
        box.wrap,
    )
    fitted.text = text
    return fitted, faces


def _lines(fitted, faces, box: TextBox, r: Rect):
    """(x of each line, its width, the first baseline): where draw puts the text."""
    size, pad = fitted.size, box.padding.points
    face = faces["regular"]
    block = textflow.block_height(len(fitted.lines), size, box.leading, face)
    inner_h = r.h - 2 * pad
    top = r.y + r.h - pad
    offset = {"top": 0, "middle": (inner_h - block) / 2, "bottom": inner_h - block}[box.valign]
    baseline = top - offset - face.ascent * size
    xs = []
    for line in fitted.lines:
        width = line.width1 * size
        spare = r.w - 2 * pad - width
        xs.append((r.x + pad + {"left": 0, "center": spare / 2, "right": spare}[box.align], width))
    return xs, baseline, block, top - offset


def extent(fitted, faces, box: TextBox, r: Rect) -> Rect | None:
    """The rectangle the set lines cover (None for empty text)."""
    if not fitted.lines:
        return None
    xs, _, block, top = _lines(fitted, faces, box, r)
    left = min(x for x, _ in xs)
    right = max(x + w for x, w in xs)
    return Rect(left, top - block, right - left, block)


# ---------------------------------------------------------------- draw


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    box, r, ctx = placed.box, placed.rect, placed.ctx
    fitted, faces = fit_text(renderer, box, r, ctx, last=True)
    draw_fitted(renderer, canvas, fitted, faces, box, r, ctx)


def draw_fitted(renderer: FaceRenderer, canvas, fitted, faces, box: TextBox, r: Rect, ctx):
    size = fitted.size
    face = faces["regular"]
    xs, baseline, _, _ = _lines(fitted, faces, box, r)
    text_colour = renderer.text(box.color, ctx)
    fill_colour(canvas, box, text_colour)
    icon_ctx = {**ctx, "color": text_colour}
    space = face.width(" ", size)
    for line, (x, _) in zip(fitted.lines, xs, strict=True):
        runs: list[list] = []  # [x, text, style]; a run is one drawString
        open_run = False
        for i, atom in enumerate(line.atoms):
            spaced = i > 0 and not atom.glued  # a glued piece follows without a space
            if spaced:
                x += space
            if atom.icon:
                _draw_icon(
                    renderer,
                    canvas,
                    atom.icon,
                    x,
                    baseline - 0.12 * size,
                    size * textflow.ICON_SCALE,
                    icon_ctx,
                )
                x += atom.width1 * size
                open_run = False
                continue
            for j, (piece, style) in enumerate(atom.segments):
                run = runs[-1] if runs and open_run else None
                # Spaces are measured in the regular face, so only regular runs span them.
                joined = j > 0 or (i > 0 and atom.glued)
                if run and run[2] == style and (joined or (style == "regular" and spaced)):
                    run[1] += ("" if joined else " ") + piece
                else:
                    runs.append([x, piece, style])
                open_run = True
                x += faces[style].width(piece, size)
        for run_x, text, style in runs:
            for face_used, piece in faces[style].runs(text):  # per-character fallback
                canvas.setFont(face_used.name, size)
                canvas.drawString(run_x, baseline, piece)
                run_x += face_used.width(piece, size)
        baseline -= size * box.leading


def _draw_icon(renderer: FaceRenderer, canvas, name: str, x: float, y: float, size: float, ctx):
    from generator.render import art
    from generator.render.boxes import image

    path = renderer.icons[name]
    canvas.saveState()
    r = Rect(x, y, size, size)
    if path.suffix.lower() == ".svg":
        image.draw_svg(renderer, canvas, ctx, r, path, "contain", {})
    else:
        raster = art.open_raster(path)
        fx, fy, fw, fh = fit(raster.width_px, raster.height_px, r, "contain")
        canvas.drawImage(str(path), fx, fy, fw, fh, mask="auto")
    canvas.restoreState()


# ---------------------------------------------------------------- check


def check(renderer: FaceRenderer, placed: Placed) -> list[Finding]:
    box = placed.box
    out = []
    fitted, faces = fit_text(renderer, box, placed.rect, placed.ctx)
    tag = _HTML_TAG.search(fitted.text)
    if tag:
        out.append(
            placed.finding(
                "error",
                "raw-html",
                f"text contains HTML markup {tag.group(0)[:40]!r}; refused",
                hint="text is not HTML: use **bold** and :icon:, and write < as a plain character "
                "only when it is not followed by a tag name",
            )
        )
    used = {s for line in fitted.lines for a in line.atoms for _, s in a.segments}
    missing = "".join(
        sorted({c for s in used or {"regular"} for c in faces[s].missing(fitted.text)})
    )
    if missing:
        shown = " ".join(f"'{c}' (U+{ord(c):04X})" for c in missing[:8])
        out.append(
            placed.finding(
                "error",
                "missing-glyph",
                f"font '{box.font}' and the scripts' fallback faces have no glyph for {shown}",
                hint="use a font that covers them, or change the text (the fallback faces: "
                "templates/languages/scripts.yaml, templates/fonts/fonts.yaml)",
            )
        )
    if fitted.overflow:
        out.append(
            placed.finding(
                "error",
                "text-overflow",
                f"text does not fit at {fitted.size:g} pt: {fitted.overflow}",
                hint="shorten the text, enlarge the box or lower min_size",
            )
        )
    ink = extent(fitted, faces, box, placed.rect)
    if ink is not None and fitted.text.strip():
        out += fitness.text_size(renderer, placed, fitted.size)
        out += fitness.near_trim(renderer, placed, ink, "text")
    return out


KIND = register(
    BoxKind(
        names=("text",),
        model=TextBox,
        draw=draw,
        check=check,
        colours=("color",),
        keys="text, font, style (regular/bold/black), size and min_size (auto-shrink) with "
        "their unit (8pt, 3mm), leading, color, align, valign, wrap, padding. "
        "Markup: `**bold**`, `:icon:`, line breaks",
    )
)

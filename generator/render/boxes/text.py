"""`text`: a block of text with markup (**bold**, :icon:), auto-shrink and alignment."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from reportlab.pdfgen.canvas import Canvas

from generator.errors import Finding
from generator.load.boxes import TextBox
from generator.render import art, shaping, textflow
from generator.render.boxes import fitness, image
from generator.render.boxes.base import (
    BoxKind,
    Placed,
    Rect,
    bounds,
    fill_colour,
    fit,
    multiply,
    register,
)
from generator.render.pdftext import text_object

if TYPE_CHECKING:
    from generator.render.engine import FaceRenderer

_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?/?>")


# ---------------------------------------------------------------- layout


def fit_text(renderer: FaceRenderer, box: TextBox, r: Rect, ctx: dict):
    """The text of `box` laid out in `r`. A face keeps its own texts in its face layout
    (set_text); across faces the measurement is what is kept: each word's width per face
    (fonts.Face.width, fonts.Chain.width), so a text that recurs is wrapped again from known
    widths (microseconds) rather than kept whole. A cache of whole layouts across faces was
    measured and dropped: a 10,000-card deck's titles and bodies (each seen once) only passed
    through it, its bookkeeping cost more than the re-wrapping it saved (docs/performance.md)."""
    return _fit_text(renderer, box, r, renderer.text(box.text, ctx))


def _faces(renderer: FaceRenderer, box: TextBox) -> dict:
    """The faces a box's text is set in, by markup style: each a chain, the box's font and then,
    per character, the scripts' faces. The box's own style is the base and ** steps up from it.
    Resolved once per font, style and language."""
    key = (box.font, box.style, renderer.lang)
    faces = renderer.compiled.get(key)
    if faces is None:
        fonts, lang = renderer.fonts, renderer.lang
        if box.style == "regular":
            faces = {s: fonts.chain(box.font, s, lang) for s in ("regular", "bold", "black")}
        else:
            faces = {
                "regular": fonts.chain(box.font, box.style, lang),
                "bold": fonts.chain(box.font, "black" if box.style == "bold" else "bold", lang),
                "black": fonts.chain(box.font, "black", lang),
            }
        renderer.compiled[key] = faces
    return faces


def _fit_text(renderer: FaceRenderer, box: TextBox, r: Rect, text: str):
    faces = _faces(renderer, box)
    pad = box.padding.points
    # Plain left-to-right words (nearly every card text) are wrapped as strings, with no Atom
    # per word: the same lines.
    plain = (
        textflow.is_plain(text)
        and not shaping.is_rtl(renderer.lang)
        and not shaping.needs_bidi(text)
    )
    shape = (
        faces,
        r.w - 2 * pad,
        r.h - 2 * pad,
        box.size.points,
        box.min_size.points if box.min_size else None,
        box.leading,
        box.wrap,
    )
    if plain:
        fitted = textflow.fit_words(text, *shape)
    else:
        fitted = textflow.fit(textflow.parse(text, "regular", renderer.icons), *shape)
    fitted.text = text
    return fitted, faces


_SIDES = {  # (align, right to left) -> the side a line is set against
    ("start", False): "left",
    ("end", False): "right",
    ("start", True): "right",
    ("end", True): "left",
}


def _lines(fitted, faces, box: TextBox, r: Rect, rtl: bool = False):
    """(x of each line, its width, the first baseline): where draw puts the text. `start` and
    `end` are mirrored in a right-to-left language."""
    size, pad = fitted.size, box.padding.points
    face = faces["regular"]
    block = textflow.block_height(len(fitted.lines), size, box.leading, face)
    inner_h = r.h - 2 * pad
    top = r.y + r.h - pad
    valign = box.valign  # top, middle or bottom (the model allows no other)
    offset = (
        0 if valign == "top" else (inner_h - block) / 2 if valign == "middle" else inner_h - block
    )
    baseline = top - offset - face.ascent * size
    side = _SIDES.get((box.align, rtl), box.align)  # left, center or right
    left, inner_w = r.x + pad, r.w - 2 * pad
    xs = []
    for line in fitted.lines:  # every text box of every card: no mapping made per line
        width = line.width1 * size
        if side == "left":  # + 0 as the old sum did (-0.0 becomes 0.0): the same bytes
            xs.append((left + 0, width))
        else:
            spare = inner_w - width
            xs.append((left + (spare / 2 if side == "center" else spare), width))
    return xs, baseline, block, top - offset


def extent(fitted, faces, box: TextBox, r: Rect, rtl: bool = False) -> Rect | None:
    """The rectangle the set lines cover (None for empty text)."""
    if not fitted.lines:
        return None
    xs, _, block, top = _lines(fitted, faces, box, r, rtl)
    return _extent(xs, block, top)


def _extent(xs, block: float, top: float) -> Rect:
    left = min(x for x, _ in xs)
    right = max(x + w for x, w in xs)
    return Rect(left, top - block, right - left, block)


# ---------------------------------------------------------------- draw


class SetText:
    """A text box laid out and set: each line's icons and its pieces of one face each, at the
    positions drawing writes them, and the rectangle the lines cover (`ink`). What a face
    layout (engine.FaceLayout) keeps of a text box: no words, no atoms."""

    __slots__ = ("bidi", "icons", "ink", "lines", "size")

    def __init__(self, fitted, faces, box: TextBox, r: Rect, rtl: bool = False) -> None:
        size = self.size = fitted.size
        face = faces["regular"]
        xs, baseline, block, top = _lines(fitted, faces, box, r, rtl)
        self.ink = _extent(xs, block, top) if fitted.lines else None
        self.icons = any(atom.icon for line in fitted.lines for atom in line.atoms)
        lines: list[tuple[float, tuple, tuple]] = []
        self.lines = lines
        # Right-to-left or mixed-direction text is shaped and ordered when drawn (its own path):
        # only each line's start and baseline are kept.
        self.bidi: tuple | None = None
        if rtl or shaping.needs_bidi(fitted.text):
            placed = []
            for line, (x, _) in zip(fitted.lines, xs, strict=True):
                placed.append((line, x, baseline))
                baseline -= size * box.leading
            self.bidi = (rtl, faces, placed)
            return
        if _plain_words(fitted):
            lines += _word_lines(fitted, face, xs, baseline, size * box.leading)
            return
        space = face.width(" ", size)
        for line, (x, _) in zip(fitted.lines, xs, strict=True):
            icons: list[tuple[str, float, float, float]] = []
            runs: list[list] = []  # [x, text, style]; a run is one Tj
            open_run = False
            for i, atom in enumerate(line.atoms):
                spaced = i > 0 and not atom.glued  # a glued piece follows without a space
                if spaced:
                    x += space
                if atom.icon:
                    icons.append((atom.icon, x, baseline - 0.12 * size, size * textflow.ICON_SCALE))
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
            pieces = []
            for run_x, text, style in runs:
                for face_used, piece in faces[style].runs(text):  # per-character fallback
                    pieces.append((run_x, face_used, piece))
                    run_x += face_used.width(piece, size)
            lines.append((baseline, tuple(icons), tuple(pieces)))
            baseline -= size * box.leading


def _plain_words(fitted) -> bool:
    """Whether `fitted` is plain words (textflow.fit_words): one run a line, no icons."""
    return bool(fitted.lines) and fitted.lines[0].words is not None


def _word_lines(fitted, face, xs, baseline: float, step: float):
    """The set lines of plain words (SetText.lines): each line in pieces of one face each (a
    Chain, as every box's face), at the positions drawing writes them."""
    size = fitted.size
    lines = []
    for line, (x, _) in zip(fitted.lines, xs, strict=True):
        pieces = []
        if line.words:
            parts = face.line_runs(line.words)
            for face_used, piece in parts[:-1]:  # the last piece's width is not needed
                pieces.append((x, face_used, piece))
                x += face_used.width(piece, size)
            pieces.append((x, *parts[-1]))
        lines.append((baseline, (), tuple(pieces)))
        baseline -= step
    return lines


def set_text(renderer: FaceRenderer, placed: Placed) -> SetText:
    """The box's text laid out and set, once per face layout (placed.spot) in a command."""
    spot = placed.spot
    if spot is not None and spot.laid is not None:
        return spot.laid
    fitted, faces = fit_text(renderer, placed.box, placed.rect, placed.ctx)
    done = SetText(fitted, faces, placed.box, placed.rect, shaping.is_rtl(renderer.lang))
    if spot is not None:
        spot.laid = done
    return done


def draw(renderer: FaceRenderer, canvas, placed: Placed) -> None:
    spot = placed.spot
    if spot is None or spot.laid is None:
        # Nothing set it before (printing with no check first, or a face past the check's
        # store): plain words left to right, on a canvas that writes text as ReportLab does,
        # go from their layout straight to the page, as draw_set would write them, without
        # a SetText that no one reads again: the same bytes (tests/test_layout_once.py).
        box = placed.box
        fitted, faces = fit_text(renderer, box, placed.rect, placed.ctx)
        if (
            _plain_words(fitted)
            and type(canvas).drawString is Canvas.drawString
            and not shaping.is_rtl(renderer.lang)
        ):
            face = faces["regular"]
            xs, baseline, _, _ = _lines(fitted, faces, box, placed.rect)
            lines = _word_lines(fitted, face, xs, baseline, fitted.size * box.leading)
            text = text_object(canvas, lines, fitted.size)
            if text is not None:
                fill_colour(canvas, box, renderer.text(box.color, placed.ctx))
                if text:
                    canvas._code.append(text)
                return
        done = SetText(fitted, faces, box, placed.rect, shaping.is_rtl(renderer.lang))
        if spot is not None:
            spot.laid = done
    else:
        done = spot.laid
    draw_set(renderer, canvas, done, placed.box, placed.ctx)


def draw_fitted(renderer: FaceRenderer, canvas, fitted, faces, box: TextBox, r: Rect, ctx):
    draw_set(
        renderer, canvas, SetText(fitted, faces, box, r, shaping.is_rtl(renderer.lang)), box, ctx
    )


def draw_set(renderer: FaceRenderer, canvas, done: SetText, box: TextBox, ctx) -> None:
    size = done.size
    text_colour = renderer.text(box.color, ctx)
    fill_colour(canvas, box, text_colour)
    icon_ctx = {**ctx, "color": text_colour} if done.icons else ctx
    if done.bidi is not None:  # right to left, shaped: its own path
        rtl, faces, lines = done.bidi
        for line, x, baseline in lines:
            _draw_bidi_line(renderer, canvas, line, faces, x, baseline, size, rtl, icon_ctx)
        return
    plain = type(canvas).drawString is Canvas.drawString
    text = text_object(canvas, done.lines, size) if plain and not done.icons else None
    if text is not None:
        if text:
            canvas._code.append(text)
        return
    writer = None
    font = None
    for baseline, icons, pieces in done.lines:
        for name, x, y, icon_size in icons:
            _draw_icon(renderer, canvas, name, x, y, icon_size, icon_ctx)
        if not plain:  # a canvas that treats text itself (ink-saver's)
            for x, face_used, piece in pieces:
                canvas.setFont(face_used.name, size)
                canvas.drawString(x, baseline, piece)
            continue
        for x, face_used, piece in pieces:
            if writer is None:
                writer = canvas.beginText(x, baseline)
            else:
                writer.setTextOrigin(x, baseline)
            if face_used.name != font:
                writer.setFont(face_used.name, size)
                font = face_used.name
            writer._code.append(writer._formatText(piece))
        if done.icons and writer is not None:  # an icon is drawn over the lines before it
            canvas.drawText(writer)
            writer = font = None
    if writer is not None:  # one text object for the whole box (BT ... ET)
        canvas.drawText(writer)


_ICON = "\ufffc"  # an icon's place in a line's text: the object replacement character


def _draw_bidi_line(renderer, canvas, line, faces, x, baseline, size, rtl, icon_ctx) -> None:
    """One wrapped line in visual order: its characters in logical order, each keyed by its
    face and style (or icon), cut into runs by the bidirectional algorithm; each run shaped
    (Arabic joins) and set right to left at an odd level."""
    chars: list[tuple[str, tuple]] = []
    space_face = faces["regular"].face_for(" ")
    for i, atom in enumerate(line.atoms):
        if i > 0 and not atom.glued:
            chars.append((" ", ("regular", space_face)))
        if atom.icon:
            chars.append((_ICON, ("icon", atom.icon)))
            continue
        for text, style in atom.segments:
            chars += [(c, (style, f)) for f, piece in faces[style].runs(text) for c in piece]
    for level, text, key in shaping.visual_runs(chars, rtl):
        assert isinstance(key, tuple)
        style, what = key
        if style == "icon":
            for _ in text:
                icon = size * textflow.ICON_SCALE
                _draw_icon(renderer, canvas, what, x, baseline - 0.12 * size, icon, icon_ctx)
                x += icon
            continue
        x += what.draw_run(canvas, x, baseline, text, size, level % 2 == 1)


def _draw_icon(renderer: FaceRenderer, canvas, name: str, x: float, y: float, size: float, ctx):
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
    spot = placed.spot
    fitted, faces = fit_text(renderer, box, placed.rect, placed.ctx)
    rtl = shaping.is_rtl(renderer.lang)
    if spot is not None:
        if spot.laid is None:  # what drawing this face will set
            spot.laid = SetText(fitted, faces, box, placed.rect, rtl)
        ink = spot.laid.ink  # the rectangle its lines cover, measured once for both
    else:
        ink = extent(fitted, faces, box, placed.rect, rtl)
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
    # the styles the text is set in: plain words are all regular (and have no atoms)
    used = (
        set()
        if _plain_words(fitted)
        else {s for line in fitted.lines for a in line.atoms for _, s in a.segments}
    )
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
    if ink is not None and fitted.text.strip():
        out += fitness.text_size(renderer, placed, fitted.size)
        # A text that fits sets its lines within its box (but textflow's slack): in a box clear
        # of the trim, its lines are too. One that overflows is measured where it is set.
        if fitted.overflow or not fitness.clear_of_trim(renderer, placed, fitness.FIT_SLACK):
            out += fitness.near_trim(renderer, placed, ink, "text")
    return out


def spots(renderer: FaceRenderer, placed: Placed, inner) -> list[Rect]:
    """Where the text's ink sits on the face: the same fitting as drawing."""
    ink = set_text(renderer, placed).ink
    if ink is None:
        return []
    return [bounds(multiply(placed.frame.to_face, placed.transform), ink)]


KIND = register(
    BoxKind(
        names=("text",),
        model=TextBox,
        draw=draw,
        check=check,
        draws="text",
        spots=spots,
        colours=("color",),
        keys="text, font, style (regular/bold/black), size and min_size (auto-shrink) with "
        "their unit (8pt, 3mm), leading, color, align, valign, wrap, padding. "
        "Markup: `**bold**`, `:icon:`, line breaks",
    )
)

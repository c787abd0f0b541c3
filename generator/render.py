"""Draw one face (a card, a board, a token...) from a layout, or check it without drawing.

Coordinates: layouts measure x, y from the face's top-left; the canvas given to `draw` has its
origin at the face's bottom-left trim corner, in points. One engine serves every kind of face.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from jinja2 import StrictUndefined
from reportlab.lib import colors

from generator import art, model, templating, textflow
from generator.content import ComponentSpec, GameContent, ItemSpec
from generator.errors import ContentError, Finding, rel
from generator.fonts import FontBook, fontbook
from generator.layouts import LayoutStore, store
from generator.project import inside

MIN_DPI = 300
_HTML_TAG = re.compile(r"</?[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?/?>")
_FITS: dict = {}  # text layouts, shared by the check pass and the render pass of one process


@lru_cache(maxsize=512)
def colour(value: str):
    try:
        if not isinstance(value, str):
            raise ValueError
        return colors.toColor(value.strip())
    except (ValueError, AttributeError, AssertionError, TypeError, IndexError):
        raise ContentError(
            f"'{value}' is not a colour",
            code="bad-colour",
            hint="use #rrggbb, #rgb or a CSS colour name",
        ) from None


@dataclass
class Rect:
    x: float
    y: float  # bottom, PDF style
    w: float
    h: float


class FaceRenderer:
    """Renders the faces of one game in one language."""

    def __init__(self, content: GameContent, lang: str):
        self.content = content
        self.lang = lang
        self.fonts: FontBook = fontbook(content.project.fonts)
        self.layouts: LayoutStore = store(content.project.layouts)
        self.languages = content.languages
        self._game_ctx = templating.localize(dict(content.game.data), lang, self.languages)
        self.icons = {
            name: inside(
                content.dir, path, what="icon", file=content.dir / "game.yaml", key=f"icons.{name}"
            )
            for name, path in content.game.icons.items()
        }

    # ------------------------------------------------------------ data
    def context(self, comp: ComponentSpec, item: ItemSpec | None) -> dict[str, Any]:
        """What templates see: game data, component data, item data (innermost wins)."""
        try:
            ctx = dict(self._game_ctx)
            ctx.update(templating.localize(comp.model.data, self.lang, self.languages))
            if item is not None:
                ctx.update(templating.localize(item.data, self.lang, self.languages))
                ctx["item"] = {"id": item.id, "count": item.count}
            ctx["component"] = {"id": comp.id, "name": templating.pick(comp.model.name, self.lang)}
            ctx["lang"] = self.lang
            # Data strings may themselves be templates over the item's data (an effect text
            # "Hace {{ damage }} daño"), so the card and the rulebook share one source.
            for key, value in list(ctx.items()):
                if isinstance(value, str) and templating.is_template(value):
                    try:
                        ctx[key] = templating.render(value, ctx)
                    except ContentError:
                        if item is not None:
                            raise
                        # A common back has no item: a per-item text is simply not available.
                        ctx[key] = StrictUndefined(
                            hint=f"'{key}' needs an item's data; a common back cannot use it"
                        )
            return ctx
        except ContentError as exc:
            raise exc.located(item.file if item else comp.file, item.line if item else None)

    def text(self, value, ctx) -> str:
        if isinstance(value, dict):
            if self.lang not in value:
                raise ContentError(
                    f"no '{self.lang}' text (has {', '.join(value)})",
                    hint=f"add a '{self.lang}:' entry",
                    code="missing-language",
                )
            value = value[self.lang]
        return templating.render(value, ctx)

    # ------------------------------------------------------------ geometry
    @staticmethod
    def box_rect(box, w: float, h: float, bleed: float) -> Rect:
        bx, by = box.x.resolve(w), box.y.resolve(h)
        bw, bh = box.w.resolve(w), box.h.resolve(h)
        rect = Rect(bx, h - by - bh, bw, bh)
        if box.bleed and bleed:
            eps = 0.01
            if rect.x <= eps:
                rect.x -= bleed
                rect.w += bleed
            if rect.y <= eps:
                rect.y -= bleed
                rect.h += bleed
            if rect.x + rect.w >= w - eps:
                rect.w += bleed
            if rect.y + rect.h >= h - eps:
                rect.h += bleed
        return rect

    # ------------------------------------------------------------ walking
    def draw(
        self, canvas, layout_name: str, ctx: dict, w: float, h: float, bleed: float, depth: int = 0
    ) -> None:
        layout = self.layouts.get(layout_name)
        # An ink-saver canvas (exports/ink_saver.py) is told what each fill belongs to.
        ink = getattr(canvas, "ink_hooks", None)
        if ink is not None:
            ink.begin_layout(layout, w, h, bleed, depth)
        if layout.background and not (ink and layout.background_ink == "drop"):
            canvas.setFillColor(colour(self.text(layout.background, ctx)))
            canvas.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
        for box in layout.boxes:
            if box.if_ is not None and not templating.evaluate(box.if_, ctx):
                continue
            self._face = (w, h)  # lines are drawn between two points of the face
            rect = self.box_rect(box, w, h, bleed)
            if ink is not None and not ink.begin_box(box, rect, depth):
                continue
            canvas.saveState()
            angle = self.angle(box, ctx)
            if angle:
                cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2
                canvas.translate(cx, cy)
                canvas.rotate(angle)
                if angle % 180 == 90:
                    rect = Rect(-rect.h / 2, -rect.w / 2, rect.h, rect.w)
                else:
                    rect = Rect(-rect.w / 2, -rect.h / 2, rect.w, rect.h)
            if box.opacity < 1:
                canvas.setFillAlpha(box.opacity)
                canvas.setStrokeAlpha(box.opacity)
            if box.kind == "repeat":
                self._draw_repeat(canvas, box, rect, ctx, depth)
            else:
                self._DRAW[box.kind](self, canvas, box, rect, ctx)
            canvas.restoreState()
            if ink is not None:
                ink.end_box()

    def angle(self, box, ctx) -> float:
        return _number(box.rotate, ctx, "rotate", float) % 360

    def cells(self, box, r: Rect, ctx) -> list[tuple[Rect, dict]]:
        """The cells of a repeat box: where each element goes, and what it sees."""
        elements = templating.evaluate(box.over, ctx)
        if isinstance(elements, dict):
            elements = list(elements.values())
        if not isinstance(elements, (list, tuple)):
            raise ContentError(
                f"repeat over '{box.over}' gives {type(elements).__name__}, not a list",
                code="template",
                hint="the expression must give a list",
            )
        if len(elements) > 500:
            raise ContentError(f"repeat over {len(elements)} elements (limit 500)", code="schema")
        cols = box.cols
        rows = box.rows or max(1, -(-len(elements) // cols))
        gap = box.gap.points
        cw, ch = (r.w - gap * (cols - 1)) / cols, (r.h - gap * (rows - 1)) / rows
        out = []
        for i, element in enumerate(elements[: cols * rows]):
            col, row = i % cols, i // cols
            cell = Rect(r.x + col * (cw + gap), r.y + r.h - (row + 1) * ch - row * gap, cw, ch)
            cell_ctx = {
                **ctx,
                "cell": templating.localize(element, self.lang, self.languages),
                "index": i,
                "count": len(elements),
            }
            out.append((cell, cell_ctx))
        return out

    def _draw_repeat(self, canvas, box, r: Rect, ctx, depth: int):
        if depth > 4:
            raise ContentError("repeat boxes nested more than 4 deep", code="schema")
        for cell, cell_ctx in self.cells(box, r, ctx):
            canvas.saveState()
            canvas.translate(cell.x, cell.y)
            self.draw(canvas, box.layout, cell_ctx, cell.w, cell.h, 0, depth + 1)
            canvas.restoreState()

    # ------------------------------------------------------------ box kinds
    def _paint(self, canvas, box, ctx) -> tuple[int, int]:
        fill = stroke = 0
        if getattr(box, "fill", None):
            self._fill_colour(canvas, box, self.text(box.fill, ctx))
            fill = 1
        if getattr(box, "stroke", None):
            canvas.setStrokeColor(colour(self.text(box.stroke, ctx)))
            if box.opacity < 1:
                canvas.setStrokeAlpha(box.opacity)
            canvas.setLineWidth(box.stroke_width.points)
            if box.dash:
                canvas.setDash(box.dash)
            stroke = 1
        return stroke, fill

    @staticmethod
    def _fill_colour(canvas, box, value: str) -> None:
        # setFillColor resets the alpha to the colour's own, so the box's opacity goes after it.
        canvas.setFillColor(colour(value))
        if box.opacity < 1:
            canvas.setFillAlpha(box.opacity)

    def _draw_rect(self, canvas, box, r: Rect, ctx):
        stroke, fill = self._paint(canvas, box, ctx)
        if stroke or fill:
            if box.radius.points:
                canvas.roundRect(r.x, r.y, r.w, r.h, box.radius.points, stroke=stroke, fill=fill)
            else:
                canvas.rect(r.x, r.y, r.w, r.h, stroke=stroke, fill=fill)

    def _draw_ellipse(self, canvas, box, r: Rect, ctx):
        stroke, fill = self._paint(canvas, box, ctx)
        if stroke or fill:
            canvas.ellipse(r.x, r.y, r.x + r.w, r.y + r.h, stroke=stroke, fill=fill)

    def _draw_line(self, canvas, box, r: Rect, ctx):
        canvas.setStrokeColor(colour(self.text(box.stroke, ctx)))
        if box.opacity < 1:
            canvas.setStrokeAlpha(box.opacity)
        canvas.setLineWidth(box.stroke_width.points)
        if box.dash:
            canvas.setDash(box.dash)
        # A line runs from (x, y) to (x2, y2), both from the top-left, so rect is not used.
        w, h = self._face
        canvas.line(
            box.x.resolve(w), h - box.y.resolve(h), box.x2.resolve(w), h - box.y2.resolve(h)
        )

    def _draw_polygon(self, canvas, box, r: Rect, ctx):
        stroke, fill = self._paint(canvas, box, ctx)
        vw, vh = box.viewbox
        path = canvas.beginPath()
        for i, (px, py) in enumerate(box.points):
            x, y = r.x + px / vw * r.w, r.y + r.h - py / vh * r.h
            path.moveTo(x, y) if i == 0 else path.lineTo(x, y)
        if box.closed:
            path.close()
        canvas.drawPath(path, stroke=stroke, fill=fill if box.closed else 0)

    def _draw_slots(self, canvas, box, r: Rect, ctx):
        n = self.slot_count(box, ctx)
        if n <= 0:
            return
        stroke, fill = self._paint(canvas, box, ctx)
        row = box.direction == "row"
        along, across = (r.w, r.h) if row else (r.h, r.w)
        gap = box.gap.points
        size = box.size.points if box.size else min(across, (along - gap * (n - 1)) / n)
        used = n * size + (n - 1) * gap
        start = {"start": 0, "center": (along - used) / 2, "end": along - used}[box.align]
        labels = box.labels
        if isinstance(labels, str):
            labels = [templating.render(labels, {**ctx, "n": i + 1}) for i in range(n)]
        for i in range(n):
            offset = start + i * (size + gap)
            if row:
                x, y = r.x + offset, r.y + (r.h - size) / 2
            else:
                x, y = r.x + (r.w - size) / 2, r.y + r.h - offset - size
            if box.shape == "circle":
                canvas.circle(x + size / 2, y + size / 2, size / 2, stroke=stroke, fill=fill)
            elif box.radius.points:
                canvas.roundRect(x, y, size, size, box.radius.points, stroke=stroke, fill=fill)
            else:
                canvas.rect(x, y, size, size, stroke=stroke, fill=fill)
            if labels and i < len(labels):
                face = self.fonts.default
                fs = box.label_size.points if box.label_size else size * 0.55
                self._fill_colour(canvas, box, self.text(box.label_color, ctx))
                canvas.setFont(face.name, fs)
                canvas.drawCentredString(x + size / 2, y + size / 2 - fs * 0.35, str(labels[i]))
                self._paint(canvas, box, ctx)

    def slot_count(self, box, ctx) -> int:
        n = _number(box.n, ctx, "slot count", int)
        if not 0 <= n <= 100:
            raise ContentError(f"slot count {n} is out of range 0-100", code="schema")
        return n

    def art_path(self, box, ctx) -> Path:
        src = self.text(box.src, ctx)
        return inside(self.content.dir, src, what="art")

    def _draw_image(self, canvas, box, r: Rect, ctx):
        path = self.art_path(box, ctx)
        if box.kind == "svg":
            return self._draw_svg(canvas, box, r, ctx, path)
        raster = art.open_raster(path)
        x, y, w, h = _fit(raster.width_px, raster.height_px, r, box.fit)
        if box.fit == "cover":
            clip = canvas.beginPath()
            clip.rect(r.x, r.y, r.w, r.h)
            canvas.clipPath(clip, stroke=0, fill=0)
        canvas.drawImage(str(path), x, y, w, h, mask="auto")

    def _svg_ctx(self, box, ctx) -> dict:
        if not getattr(box, "params", None):
            return ctx
        return {**ctx, **{k: self.text(v, ctx) for k, v in box.params.items()}}

    def _draw_svg(self, canvas, box, r: Rect, ctx, path: Path):
        text = art.svg_source(path, self._svg_ctx(box, ctx))
        drawing = art.svg_drawing(text, path)
        name = "svg" + art.digest(text)
        if not canvas.hasForm(name):
            from reportlab.graphics import renderPDF

            # Otherwise the renderer selects Helvetica, which would sit unembedded in the PDF.
            drawing.__dict__["initialFontName"] = self.fonts.default.name
            canvas.beginForm(name, 0, 0, drawing.width, drawing.height)
            renderPDF.draw(drawing, canvas, 0, 0)
            canvas.endForm()
        x, y, w, h = _fit(drawing.width, drawing.height, r, box.fit)
        canvas.translate(x, y)
        canvas.scale(w / drawing.width, h / drawing.height)
        canvas.doForm(name)

    def _draw_text(self, canvas, box, r: Rect, ctx):
        fitted, faces = self.fit_text(box, r, ctx)
        self.draw_fitted(canvas, fitted, faces, box, r, ctx)

    # ------------------------------------------------------------ text
    def fit_text(self, box: model.TextBox, r: Rect, ctx):
        text = self.text(box.text, ctx)
        key = (id(box), text, round(r.w, 3), round(r.h, 3))
        hit = _FITS.get(key)
        if hit is not None and hit[0] is box:  # the check pass already laid this text out
            return hit[1], hit[2]
        fitted, faces = self._fit_text(box, r, text)
        if len(_FITS) > 20000:
            _FITS.clear()
        _FITS[key] = (box, fitted, faces)
        return fitted, faces

    def _fit_text(self, box: model.TextBox, r: Rect, text: str):
        faces = {s: self.fonts.face(box.font, s) for s in ("regular", "bold", "black")}
        faces["regular"] = self.fonts.face(box.font, box.style)
        atoms = textflow.parse(text, "regular", self.icons)
        if box.style != "regular":  # the box's own style is the base; ** steps up from it
            faces = {
                "regular": self.fonts.face(box.font, box.style),
                "bold": self.fonts.face(box.font, "black" if box.style == "bold" else "bold"),
                "black": self.fonts.face(box.font, "black"),
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

    def draw_fitted(self, canvas, fitted, faces, box, r: Rect, ctx):
        size, pad = fitted.size, box.padding.points
        face = faces["regular"]
        block = textflow.block_height(len(fitted.lines), size, box.leading, face)
        inner_h = r.h - 2 * pad
        top = r.y + r.h - pad
        offset = {"top": 0, "middle": (inner_h - block) / 2, "bottom": inner_h - block}[box.valign]
        baseline = top - offset - face.ascent * size
        text_colour = self.text(box.color, ctx)
        self._fill_colour(canvas, box, text_colour)
        icon_ctx = {**ctx, "color": text_colour}
        space = face.width(" ", size)
        for line in fitted.lines:
            width = line.width1 * size
            x = (
                r.x
                + pad
                + {
                    "left": 0,
                    "center": (r.w - 2 * pad - width) / 2,
                    "right": r.w - 2 * pad - width,
                }[box.align]
            )
            runs: list[list] = []  # [x, text, style]; a run is one drawString
            open_run = False
            for i, atom in enumerate(line.atoms):
                spaced = i > 0
                if spaced:
                    x += space
                if atom.icon:
                    self._draw_icon(
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
                    if run and run[2] == style and (j > 0 or (style == "regular" and spaced)):
                        run[1] += (" " if j == 0 else "") + piece
                    else:
                        runs.append([x, piece, style])
                    open_run = True
                    x += faces[style].width(piece, size)
            for run_x, text, style in runs:
                canvas.setFont(faces[style].name, size)
                canvas.drawString(run_x, baseline, text)
            baseline -= size * box.leading

    def _draw_icon(self, canvas, name: str, x: float, y: float, size: float, ctx):
        path = self.icons[name]
        canvas.saveState()
        r = Rect(x, y, size, size)
        if path.suffix.lower() == ".svg":
            self._draw_svg(canvas, model.ImageBox(kind="svg", src=path.name), r, ctx, path)
        else:
            raster = art.open_raster(path)
            fx, fy, fw, fh = _fit(raster.width_px, raster.height_px, r, "contain")
            canvas.drawImage(str(path), fx, fy, fw, fh, mask="auto")
        canvas.restoreState()

    # ------------------------------------------------------------ checking
    def check(
        self, layout_name: str, ctx: dict, w: float, h: float, where: dict, depth: int = 0
    ) -> list[Finding]:
        """Findings for one face: overflowing text, missing glyphs, missing or low-res art."""
        findings: list[Finding] = []
        layout = self.layouts.get(layout_name)
        for index, box in enumerate(layout.boxes):
            label = box.id or f"boxes[{index}]"
            info = dict(
                where, box=label if not depth else f"{where.get('box')}/{label}", lang=self.lang
            )
            try:
                if box.if_ is not None and not templating.evaluate(box.if_, ctx):
                    continue
                self._face = (w, h)
                r = self.box_rect(box, w, h, 0)
                if self.angle(box, ctx) % 180 == 90:
                    r = Rect(r.x, r.y, r.h, r.w)
                if box.kind == "text":
                    findings += self._check_text(box, r, ctx, info)
                elif box.kind in ("image", "svg"):
                    findings += self._check_art(box, r, ctx, info)
                elif box.kind == "slots":
                    self.slot_count(box, ctx)
                elif box.kind == "repeat":
                    if depth > 4:
                        raise ContentError("repeat boxes nested more than 4 deep", code="schema")
                    for cell, cell_ctx in self.cells(box, r, ctx):
                        # name the element too: "rows[2]", or its id when it has one
                        element = cell_ctx["cell"]
                        tag = (
                            element.get("id")
                            if isinstance(element, dict) and element.get("id")
                            else cell_ctx["index"]
                        )
                        findings += self.check(
                            box.layout,
                            cell_ctx,
                            cell.w,
                            cell.h,
                            dict(info, box=f"{info['box']}[{tag}]"),
                            depth + 1,
                        )
                for field in ("fill", "stroke", "color", "label_color"):
                    value = getattr(box, field, None)
                    if value:
                        colour(self.text(value, ctx))
            except ContentError as exc:
                file, line = self.layouts.box_location(layout_name, index)
                if exc.file:  # the problem is in an art file: point there
                    file, line = exc.file, exc.line
                findings.append(
                    Finding(
                        "error",
                        exc.code,
                        f"box '{info['box']}': {exc.message}",
                        hint=exc.hint,
                        **dict(
                            info,
                            file=rel(file) if file else info["file"],
                            line=line or info.get("line"),
                        ),
                    )
                )
        return findings

    def _check_text(self, box, r: Rect, ctx, info) -> list[Finding]:
        out = []
        fitted, faces = self.fit_text(box, r, ctx)
        tag = _HTML_TAG.search(fitted.text)
        if tag:
            out.append(
                Finding(
                    "error",
                    "raw-html",
                    f"box '{info['box']}': text contains HTML markup {tag.group(0)[:40]!r}; refused",
                    hint="text is not HTML: use **bold** and :icon:, and write < as a plain character "
                    "only when it is not followed by a tag name",
                    **info,
                )
            )
        used = {s for line in fitted.lines for a in line.atoms for _, s in a.segments}
        missing = "".join(
            sorted({c for s in used or {"regular"} for c in faces[s].missing(fitted.text)})
        )
        if missing:
            shown = " ".join(f"'{c}' (U+{ord(c):04X})" for c in missing[:8])
            out.append(
                Finding(
                    "error",
                    "missing-glyph",
                    f"box '{info['box']}': font '{box.font}' has no glyph for {shown}",
                    hint="use a font that covers them, or change the text",
                    **info,
                )
            )
        if fitted.overflow:
            out.append(
                Finding(
                    "error",
                    "text-overflow",
                    f"box '{info['box']}': text does not fit at {fitted.size:g} pt: {fitted.overflow}",
                    hint="shorten the text, enlarge the box or lower min_size",
                    **info,
                )
            )
        return out

    def _check_art(self, box, r: Rect, ctx, info) -> list[Finding]:
        path = self.art_path(box, ctx)
        if box.kind == "svg":
            art.svg_check(art.svg_source(path, self._svg_ctx(box, ctx)), path)
            return []
        raster = art.open_raster(path)
        x, y, w, h = _fit(raster.width_px, raster.height_px, r, box.fit)
        dpi = min(raster.width_px / (w / 72), raster.height_px / (h / 72))
        if dpi < MIN_DPI - 0.5:
            return [
                Finding(
                    "warning",
                    "low-dpi",
                    f"box '{info['box']}': {rel(path)} prints at {dpi:.0f} dpi",
                    hint=f"supply at least {MIN_DPI} dpi at the placed size "
                    f"({w / 72 * MIN_DPI:.0f}x{h / 72 * MIN_DPI:.0f} px)",
                    **info,
                )
            ]
        return []

    _face = (0.0, 0.0)
    _DRAW = {
        "rect": _draw_rect,
        "ellipse": _draw_ellipse,
        "circle": _draw_ellipse,
        "line": _draw_line,
        "polygon": _draw_polygon,
        "slots": _draw_slots,
        "text": _draw_text,
        "image": _draw_image,
        "svg": _draw_image,
    }


def _number(value, ctx: dict, what: str, cast):
    """A box setting that is a number or an expression giving one (a rotation, a slot count)."""
    if not isinstance(value, str):
        return cast(value)
    result = templating.evaluate(value, ctx)
    try:
        return cast(result)
    except (TypeError, ValueError):
        raise ContentError(
            f"{what} '{value}' gives {result!r}, not a number", code="template"
        ) from None


def _fit(src_w: float, src_h: float, r: Rect, mode: str) -> tuple[float, float, float, float]:
    if mode == "stretch":
        return r.x, r.y, r.w, r.h
    scale = (min if mode == "contain" else max)(r.w / src_w, r.h / src_h)
    w, h = src_w * scale, src_h * scale
    return r.x + (r.w - w) / 2, r.y + (r.h - h) / 2, w, h

"""`ink-saver`: the duplex sheets again, with large fills (backgrounds, bands, backs) turned into
a light tint and large art washed out, for home printers.

The layout engine tells the canvas which box each fill belongs to (render.py's `ink_hooks`), so
the choice is per box: a box covering at least LARGE of the face is lightened, smaller ones
(pips, icons, text) keep their colour, and a layout can say `ink: keep | lighten | drop` on any
box (and `background_ink:` for its background). Light text that sat on a lightened fill is
drawn in that fill's own colour, so it stays readable.
"""

from __future__ import annotations

from dataclasses import dataclass

from reportlab.lib.colors import Color, toColor
from reportlab.pdfgen.canvas import Canvas

from generator.exports.base import ExportContext, Job, Outputs
from generator.exports.sheets import plan_sheets, write_sheets
from generator.load.export_options import InkSaverOptions
from generator.render.boxes import KINDS, Layout

LARGE = 0.12  # share of the face's area from which a fill counts as a background
KEEP = 0.12  # share of the colour a lightened fill keeps (the rest is paper white)
WASH = 0.65  # opacity of the white laid over large art (it stays recognisable)
LIGHT_TEXT = 0.6  # luminance above which text needs a dark ground to be read


def tint(c: Color, keep: float = KEEP) -> Color:
    return Color(1 - keep * (1 - c.red), 1 - keep * (1 - c.green), 1 - keep * (1 - c.blue), c.alpha)


def luminance(c: Color) -> float:
    return 0.2126 * c.red + 0.7152 * c.green + 0.0722 * c.blue


@dataclass
class Painted:
    rect: tuple[float, float, float, float]  # face coordinates, x y w h
    lightened: bool
    colour: Color


class InkHooks:
    """What the layout engine reports while it draws a face: the layout and the current box."""

    def __init__(self) -> None:
        self.face_area = 1.0
        self.painted: list[Painted] = []
        self.stack: list = []  # (box, rect, depth)
        self.layout: Layout | None = None

    def begin_layout(self, layout, w: float, h: float, bleed: float, depth: int) -> None:
        if depth == 0:
            self.face_area = max(w * h, 1.0)
            self.painted = []
            self.stack = []
            self.layout = layout
            if layout.background and layout.background_ink != "drop":
                rect = (-bleed, -bleed, w + 2 * bleed, h + 2 * bleed)
                self.stack.append(("background", rect, depth))

    def begin_box(self, placed, depth: int) -> bool:
        """A box is about to be drawn; False leaves it out."""
        if self.stack and self.stack[-1][0] == "background":
            self.stack.pop()
        box, r = placed.box, placed.rect
        if box.ink == "drop":
            return False
        if placed.angle:  # the walk centres a turned box on the origin: back onto the face
            _, _, _, _, cx, cy = placed.transform
            w, h = (r.h, r.w) if placed.angle % 180 == 90 else (r.w, r.h)
            face_rect = (cx - w / 2, cy - h / 2, w, h)
        else:
            face_rect = (r.x, r.y, r.w, r.h)
        self.stack.append((box, face_rect, depth))
        return True

    def end_box(self) -> None:
        if self.stack:
            self.stack.pop()

    @property
    def current(self):
        return self.stack[-1] if self.stack else None

    def lighten_fill(self) -> bool:
        cur = self.current
        if cur is None:
            return False
        box, (_, _, w, h), depth = cur
        if box == "background":
            return self.layout is not None and self.layout.background_ink == "lighten"
        if KINDS[box.kind].draws != "paint":  # art is washed, text kept (the kind says which)
            return False
        if box.ink != "auto":
            return box.ink == "lighten"
        return depth == 0 and abs(w * h) >= LARGE * self.face_area

    def wash_art(self) -> bool:
        cur = self.current
        if cur is None or cur[0] == "background":
            return False
        box, (_, _, w, h), depth = cur
        if KINDS[box.kind].draws != "art":
            return False
        if box.ink != "auto":
            return box.ink == "lighten"
        return depth == 0 and abs(w * h) >= LARGE * self.face_area

    def ground_under_text(self) -> Painted | None:
        """The last fill drawn under the current text box's centre."""
        cur = self.current
        if cur is None or cur[0] == "background" or cur[2] != 0:
            return None
        x, y, w, h = cur[1]
        cx, cy = x + w / 2, y + h / 2
        for p in reversed(self.painted):
            px, py, pw, ph = p.rect
            if px <= cx <= px + pw and py <= cy <= py + ph:
                return p
        return None


class InkSaverCanvas(Canvas):
    """A ReportLab canvas that lightens what InkHooks says is a large fill or large art."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.ink_hooks = InkHooks()
        self._fill = toColor("#000000")
        self._forms: dict[str, tuple[float, float, float, float]] = {}
        self._art_form = 0  # > 0 while defining the form of a piece of art: drawn as is

    # -- colour
    def setFillColor(self, aColor, alpha=None):
        self._fill = toColor(aColor)
        super().setFillColor(aColor, alpha)

    def _filled(self, draw, rect: tuple[float, float, float, float]) -> None:
        hooks = self.ink_hooks
        lighten = not self._art_form and hooks.lighten_fill()
        if hooks.current is not None and not self._art_form and hooks.current[2] == 0:
            hooks.painted.append(Painted(hooks.current[1], lighten, self._fill))
        if not lighten:
            draw()
            return
        original = self._fill
        Canvas.setFillColor(self, tint(original))
        draw()
        Canvas.setFillColor(self, original)
        self._fill = original

    # -- shapes
    def rect(self, x, y, width, height, stroke=1, fill=0):
        if not fill:
            return super().rect(x, y, width, height, stroke, fill)
        self._filled(
            lambda: Canvas.rect(self, x, y, width, height, stroke, fill), (x, y, width, height)
        )

    def roundRect(self, x, y, width, height, radius, stroke=1, fill=0):
        if not fill:
            return super().roundRect(x, y, width, height, radius, stroke, fill)
        self._filled(
            lambda: Canvas.roundRect(self, x, y, width, height, radius, stroke, fill),
            (x, y, width, height),
        )

    def ellipse(self, x1, y1, x2, y2, stroke=1, fill=0):
        if not fill:
            return super().ellipse(x1, y1, x2, y2, stroke, fill)
        self._filled(
            lambda: Canvas.ellipse(self, x1, y1, x2, y2, stroke, fill), (x1, y1, x2 - x1, y2 - y1)
        )

    def circle(self, x_cen, y_cen, r, stroke=1, fill=0):
        if not fill:
            return super().circle(x_cen, y_cen, r, stroke, fill)
        self._filled(
            lambda: Canvas.circle(self, x_cen, y_cen, r, stroke, fill),
            (x_cen - r, y_cen - r, 2 * r, 2 * r),
        )

    def drawPath(self, aPath, stroke=1, fill=0, fillMode=None):
        if not fill:
            return super().drawPath(aPath, stroke, fill, fillMode)
        self._filled(lambda: Canvas.drawPath(self, aPath, stroke, fill, fillMode), (0, 0, 0, 0))

    # -- text: light text on a lightened ground takes the ground's own colour
    def drawString(self, x, y, text, *args, **kwargs):
        ground = self.ink_hooks.ground_under_text()
        if ground is not None and ground.lightened and luminance(self._fill) > LIGHT_TEXT:
            original = self._fill
            Canvas.setFillColor(
                self, ground.colour if luminance(ground.colour) < 0.5 else toColor("#222222")
            )
            super().drawString(x, y, text, *args, **kwargs)
            Canvas.setFillColor(self, original)
            return
        super().drawString(x, y, text, *args, **kwargs)

    # -- art: drawn as is, then washed out with white
    def beginForm(self, name, lowerx=0, lowery=0, upperx=None, uppery=None):
        self._forms[name] = (lowerx, lowery, upperx or 0, uppery or 0)
        cur = self.ink_hooks.current
        if cur is not None and cur[0] != "background" and KINDS[cur[0].kind].draws == "art":
            self._art_form += 1
            self._art_name = name
        super().beginForm(name, lowerx, lowery, upperx, uppery)

    def endForm(self, **extra):
        super().endForm(**extra)
        if self._art_form:
            self._art_form -= 1

    def doForm(self, name):
        super().doForm(name)
        if self.ink_hooks.wash_art():
            x1, y1, x2, y2 = self._forms.get(name, (0, 0, 0, 0))
            self._wash(x1, y1, x2 - x1, y2 - y1)

    def drawImage(self, image, x, y, width=None, height=None, *args, **kwargs):
        result = super().drawImage(image, x, y, width, height, *args, **kwargs)
        if self.ink_hooks.wash_art() and width and height:
            self._wash(x, y, width, height)
        return result

    def _wash(self, x: float, y: float, w: float, h: float) -> None:
        self.saveState()
        Canvas.setFillColor(self, Color(1, 1, 1, alpha=WASH))
        Canvas.rect(self, x, y, w, h, stroke=0, fill=1)
        self.restoreState()


class InkSaver:
    name = "ink-saver"
    options = InkSaverOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        return plan_sheets(ctx, self.name, f"{ctx.folder()}/ink-saver", "export")

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        """The `sheets` export's sheets (grid, tiles or packed), drawn through InkSaverCanvas."""
        return write_sheets(ctx, job, out, InkSaverCanvas, kind="export", fmt=self.name)

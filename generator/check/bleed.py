"""`no-bleed`: ink that reaches the trim line and stops there, found on the rendered face.

A cut is never exact: art that ends at the trim shows a white sliver when the cut wanders
outward. For each face, the boxes that come near the trim (from the one walk, boxes/walk.py)
are drawn with the face's background, with bleed, at low resolution; then each edge is sampled
just inside and just outside the trim. Ink inside with bare paper outside, along a stretch of
an edge, is a finding.

Kept cheap for `pnp check`: only boxes near the trim are drawn, only in the game's first
language (art rarely depends on it), at 100 dpi; faces whose near-trim boxes look the same
(same kind, place, resolved settings, art files and SVG text) are sampled once. A sample's
answer is kept in the user's cache (kind `samples`, one entry per game), keyed by what it draws
and by everything around it (pnp's code, the layouts, the fonts, the game's art: the rulebook
pictures' `world_digest`), so a check of an unchanged game draws nothing and does not even
import the SVG and PDF libraries the drawing needs; the findings are made afresh each time.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from generator import session
from generator.cache import store
from generator.errors import ContentError, Finding, rel
from generator.load import templating
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.render import art
from generator.render.boxes.base import Frame, Placed, Rect, bounds, colour
from generator.render.boxes.image import art_path, svg_ctx
from generator.render.boxes.line import ends
from generator.render.engine import FaceRenderer
from generator.rulebook.figures import world_digest
from generator.units import MM

DPI = 100
NEAR = 0.6 * MM  # a box this close to an edge may put ink on it
INSIDE = 0.4 * MM  # sample this far inside the trim...
OUTSIDE = 1.0 * MM  # ...and this far outside it (less when the bleed is smaller)
STEP = 0.5 * MM
PAPER = 250  # every channel this light: bare paper
RUN = 2.0 * MM  # ink stopping at the trim along this much of an edge is a finding
VERSION = "1"  # bump when the sampling changes: cached answers are then ignored
_SETTINGS = ("src", "fill", "stroke", "color", "text", "over", "layout", "points", "params", "n")


def check(content: GameContent, bleed_of) -> list[Finding]:
    if not content.languages:
        return []
    lang = content.languages[0]
    try:
        renderer = FaceRenderer(content, lang)
    except ContentError:
        return []  # check_faces reports it
    samples = _Samples(content)
    fills: dict[str, bool] = {}
    out: list[Finding] = []
    for comp in content.components:
        bleed = bleed_of(content, comp)
        if bleed < 0.5 * MM:
            continue  # nothing to continue into
        where = {"file": rel(comp.file, content.project.root), "component": comp.id, "lang": lang}
        back_done: set[str] = set()
        for item in comp.items:
            sides: list[tuple[str, ItemSpec | None, int | None]] = [(item.layout, item, item.line)]
            if item.back and item.back not in back_done:
                common = item.back == comp.model.back
                sides.append((item.back, None if common else item, None if common else item.line))
                if common:
                    back_done.add(item.back)
            for layout, data_item, line in sides:
                try:
                    if _fills_bleed(renderer, layout, fills):
                        continue  # known before the item's data is read
                    ctx = renderer.context(comp, data_item)
                    found = _face(renderer, comp, layout, ctx, bleed, samples)
                except ContentError:
                    continue  # check_faces reports content errors; this check only samples ink
                if found is None:
                    continue
                label, edges = found
                out.append(
                    Finding(
                        "warning",
                        "no-bleed",
                        f"box '{label}': ink reaches the trim and stops there ({edges})",
                        hint="extend the art into the bleed (bleed: true, or a larger picture)",
                        box=label,
                        line=line,
                        item=data_item.id if data_item else None,
                        **{
                            **where,
                            "file": rel(data_item.file, content.project.root)
                            if data_item
                            else where["file"],
                        },
                    )
                )
    samples.save()
    return out


class _Samples:
    """The game's sample answers: this check's by key, else those the user's cache keeps for
    the game (one entry per game, its owner, named by the game's world: code, layouts, fonts,
    art), else drawn. Saved, with the answers this check asked for only, when one was drawn."""

    def __init__(self, content: GameContent) -> None:
        self.owner = store.key(str(content.project.root), content.id, length=16)
        world = store.key(world_digest(content), VERSION)
        self.path = store.entry("samples", world, owner=self.owner, suffix=".json")
        self.stored: dict[str, Any] = {}
        with contextlib.suppress(ValueError):
            kept = json.loads(store.read(self.path) or b"{}")
            self.stored = kept if isinstance(kept, dict) else {}
        self.asked: dict[str, tuple[str, str] | None] = {}
        self.drawn = False

    def answer(self, key: str, draw: Callable[[], tuple[str, str] | None]):
        if key in self.asked:
            return self.asked[key]
        kept = self.stored.get(key, False)
        if kept is None or (type(kept) is list and len(kept) == 2):
            answer = None if kept is None else (str(kept[0]), str(kept[1]))
        else:  # not kept (or not an answer this pnp wrote)
            answer = draw()
            self.drawn = True
        self.asked[key] = answer
        return answer

    def save(self) -> None:
        if self.drawn:
            data = json.dumps(self.asked, sort_keys=True).encode()
            store.write("samples", self.path, data, owner=self.owner)


def _fills_bleed(renderer: FaceRenderer, layout_name: str, fills: dict[str, bool]) -> bool:
    """Whether the layout's background is a fixed colour that is not paper: it fills the bleed
    on every face, whatever the item's data (asked once per layout)."""
    found = fills.get(layout_name)
    if found is None:
        background = renderer.layouts.get(layout_name).background
        found = fills[layout_name] = (
            isinstance(background, str)
            and not templating.is_template(background)
            and not _paper_like(background)
        )
    return found


def _ink_rect(placed: Placed) -> Rect:
    """Where the box can put ink on the face (a line: between its ends, not its box)."""
    if placed.box.kind == "line":
        x1, y1, x2, y2 = ends(placed)
        rule = Rect(min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1))
        return bounds(placed.frame.to_face, rule)
    return placed.on_face


def _near(placed: Placed, w: float, h: float) -> bool:
    r = _ink_rect(placed)
    pad = getattr(placed.box, "stroke_width", None)
    grow = pad.points / 2 if pad is not None and getattr(placed.box, "stroke", None) else 0.0
    left, bottom = r.x - grow, r.y - grow
    right, top = r.x + r.w + grow, r.y + r.h + grow
    if right <= 0 or top <= 0 or left >= w or bottom >= h:
        return False
    return left <= NEAR or bottom <= NEAR or right >= w - NEAR or top >= h - NEAR


def _signature(renderer: FaceRenderer, placed: Placed) -> list[Any]:
    """What decides how a box looks at the trim: kind, place and its settings as resolved."""
    box, ctx = placed.box, placed.ctx
    r = placed.on_face
    sig: list[Any] = [placed.label, box.kind, round(r.x, 1), round(r.y, 1), round(r.w, 1)]
    sig.append(round(r.h, 1))
    for name in _SETTINGS:
        value = getattr(box, name, None)
        if value is None:
            continue
        if isinstance(value, (str, dict)) and name != "points":
            try:
                value = renderer.text(value, ctx) if name != "params" else value
            except ContentError:
                value = repr(value)
        sig.append((name, value))
    if box.kind == "svg":  # the SVG as its template makes it for this item
        try:
            path = art_path(renderer, box, ctx)
            text = art.svg_source(path, svg_ctx(renderer, box.params, ctx))
            sig.append(art.digest(text))
        except ContentError:
            sig.append(repr(box.src))
    elif box.kind in ("repeat", "slots"):
        # Their look depends on data the settings do not show (a list, a count).
        sig.append(json.dumps(ctx, sort_keys=True, default=repr, ensure_ascii=False))
    return sig


def _face(
    renderer: FaceRenderer,
    comp: ComponentSpec,
    layout_name: str,
    ctx: dict,
    bleed: float,
    samples: _Samples,
) -> tuple[str, str] | None:
    w, h = comp.size_pt
    frame = Frame(layout_name, ctx, w, h, bleed, face=(w, h))

    def skip(*_: object) -> None:
        return None

    layout = renderer.layouts.get(layout_name)
    if layout.background and not _paper_like(renderer.text(layout.background, ctx)):
        return None  # the background fills the bleed: nothing stops at the trim on bare paper
    laid = renderer.lay_out(frame, keep=True)  # the face layout the check and printing read
    near = [p for p in renderer.placed(frame, laid, skip) if _near(p, w, h)]
    if not near:
        return None
    key_data = [layout_name, round(w, 1), round(h, 1), round(bleed, 2)]
    key_data.append(renderer.text(layout.background, ctx) if layout.background else None)
    key_data += [_signature(renderer, p) for p in near]
    digest = hashlib.sha256(json.dumps(key_data, default=repr).encode())
    digest.update(VERSION.encode())
    for p in near:  # the art itself: an edited picture is sampled again
        src = getattr(p.box, "src", None)
        if src:
            digest.update(_file_digest(renderer.content.dir / renderer.text(src, ctx)).encode())
    return samples.answer(
        digest.hexdigest(), lambda: _sample(renderer, frame, layout.background, near)
    )


def _paper_like(value: str) -> bool:
    c = colour(value)
    return min(c.red, c.green, c.blue) * 255 >= PAPER


def _file_digest(path: Path) -> str:
    try:
        stat = path.stat()
    except OSError:
        return "missing"
    return _digest_of(str(path), stat.st_size, stat.st_mtime_ns)


@session.cached  # file contents: one command's worth, never longer
def _digest_of(path: str, size: int, mtime: int) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _sample(
    renderer: FaceRenderer, frame: Frame, background: Any, near: list[Placed]
) -> tuple[str, str] | None:
    import pypdfium2 as pdfium
    from reportlab.pdfgen.canvas import Canvas

    w, h, bleed = frame.w, frame.h, frame.bleed
    buffer = io.BytesIO()
    canvas = Canvas(
        buffer,
        pagesize=(w + 2 * bleed, h + 2 * bleed),
        invariant=1,
        pageCompression=0,
        initialFontName=renderer.fonts.default.name,
    )
    canvas.translate(bleed, bleed)
    if background:
        canvas.setFillColor(colour(renderer.text(background, frame.ctx)))
        canvas.rect(-bleed, -bleed, w + 2 * bleed, h + 2 * bleed, stroke=0, fill=1)
    for placed in near:
        renderer.draw_placed(canvas, placed)
    canvas.showPage()
    canvas.save()
    pdf = pdfium.PdfDocument(buffer.getvalue())
    try:
        image = pdf[0].render(scale=DPI / 72, may_draw_forms=True).to_pil().convert("RGB")
    finally:
        pdf.close()
    px = image.load()
    scale = DPI / 72
    out_d = min(OUTSIDE, bleed * 0.6)

    def pixel(x: float, y: float) -> tuple[int, int, int]:
        # face points (from the trim's bottom-left) -> image pixels (from the top-left)
        ix = min(image.width - 1, max(0, int((x + bleed) * scale)))
        iy = min(image.height - 1, max(0, int((h + bleed - y) * scale)))
        return px[ix, iy]

    def ink(c: tuple[int, int, int]) -> bool:
        return min(c) < 230

    def paper(c: tuple[int, int, int]) -> bool:
        return min(c) >= PAPER

    worst: tuple[float, str, Rect] | None = None
    edges = []
    for edge, length in (("left", h), ("right", h), ("bottom", w), ("top", w)):
        run = best = 0.0
        at = None
        t = 1.0 * MM
        while t <= length - 1.0 * MM:
            if edge == "left":
                inside, outside = (INSIDE, t), (-out_d, t)
            elif edge == "right":
                inside, outside = (w - INSIDE, t), (w + out_d, t)
            elif edge == "bottom":
                inside, outside = (t, INSIDE), (t, -out_d)
            else:
                inside, outside = (t, h - INSIDE), (t, h + out_d)
            if ink(pixel(*inside)) and paper(pixel(*outside)):
                run += STEP
                if run > best:
                    best, at = run, inside
            else:
                run = 0.0
            t += STEP
        if best >= RUN and at is not None:
            edges.append(edge)
            if worst is None or best > worst[0]:
                worst = (best, edge, Rect(at[0], at[1], 0, 0))
    if worst is None:
        return None
    point = worst[2]
    label = near[-1].label
    for p in reversed(near):  # the topmost box under the sample names the finding
        r = _ink_rect(p)
        if r.x - 1 <= point.x <= r.x + r.w + 1 and r.y - 1 <= point.y <= r.y + r.h + 1:
            label = p.label
            break
    return label, ", ".join(edges)

"""The version mark (`print: {version_mark: ...}`) and the face fingerprint it shows.

A face's fingerprint is a hash of what the face draws, not of the YAML it came from: the face
is drawn alone (without its mark) on a fresh, deterministic PDF canvas, and the bytes of that
one-page PDF are hashed. Every drawing operation, every resolved text, colour and length, every
embedded glyph and picture is in those bytes; file names, YAML formatting and keys that draw
nothing are not. So the hash moves when, and only when, the face's picture moves (or pnp's
drawing code changes how a face is drawn). `pnp diff` (commands/diff.py) compares faces the
same way, and pictures them from the same PDF.

The mark itself is a small box in a corner of the face's safe area: "v0.3 · 1a2b3c", the
game's version (game.yaml `version:`) and the first six hex digits of the fingerprint. It is
checked like any other box: at least 5 pt, inside the safe area, over no text and no art.
"""

from __future__ import annotations

import hashlib
import io
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reportlab.pdfgen.canvas import Canvas

from generator import session
from generator.errors import ContentError, Finding
from generator.render.boxes.base import Frame, Placed, Rect, bounds, colour, multiply
from generator.render.boxes.repeat import cells
from generator.render.boxes.text import extent, fit_text
from generator.render.boxes.walk import walk
from generator.render.shaping import is_rtl as rtl_language
from generator.units import MM

if TYPE_CHECKING:
    from generator.load.model import VersionMark
    from generator.render.engine import FaceRenderer

HASH_DIGITS = 6
PAD = 0.8  # pt of plate around the mark's text
ART_KINDS = ("image", "svg")  # boxes whose whole rectangle is art


@dataclass(frozen=True)
class Face:
    """One face to fingerprint: its layout, context and trim size (points)."""

    layout: str
    ctx: dict
    w: float
    h: float
    bleed: float


def settings(renderer: FaceRenderer, ctx: dict) -> VersionMark | None:
    """The mark asked for the component drawn over `ctx` (its own print: wins), or None."""
    content = renderer.content
    mark = content.game.print.version_mark
    comp_id = (ctx.get("component") or {}).get("id") if isinstance(ctx, dict) else None
    if comp_id:
        for comp in content.components:
            own = comp.model.print if comp.id == comp_id else None
            if own is not None and "version_mark" in own.model_fields_set:
                return own.version_mark
    return mark


def face_pdf(renderer: FaceRenderer, face: Face) -> bytes:
    """The face alone (no mark) as a deterministic one-page PDF, trimmed: what players see
    once it is cut. The bleed a writer adds (3 mm on sheets, none in a rulebook figure) must
    not change a face's hash, so the face is always drawn without it."""
    face = Face(face.layout, face.ctx, face.w, face.h, 0.0)
    key = _key(renderer, face)
    cache = renderer.face_pdfs
    if key in cache:
        return cache[key]
    b = face.bleed
    buf = io.BytesIO()
    canvas = Canvas(
        buf,
        pagesize=(face.w + 2 * b, face.h + 2 * b),
        invariant=1,
        pageCompression=0,
        initialFontName=renderer.fonts.default.name,
        initialFontSize=10,
    )
    canvas.translate(b, b)
    renderer.draw_bare(canvas, face.layout, face.ctx, face.w, face.h, b)
    canvas.showPage()
    canvas.save()
    data = buf.getvalue()
    if len(cache) > 512:
        cache.clear()
    cache[key] = data
    return data


def fingerprint(renderer: FaceRenderer, face: Face) -> str:
    """The full hex hash of what `face` draws. Worked out once per face per command: every
    file a face is printed in (sheets on each paper, print-shop pages, PNGs) shows the same
    hash, and drawing the face alone again for each of them would cost as much as the file."""
    digests = _digests(renderer)
    key = (renderer.lang, _key(renderer, Face(face.layout, face.ctx, face.w, face.h, 0.0)))
    found = digests.get(key)
    if found is None:
        found = digests[key] = hashlib.sha256(face_pdf(renderer, face)).hexdigest()
    return found


KEPT_GAMES = 8  # loaded games whose fingerprints a command keeps (pnp diff holds two versions)


def _digests(renderer: FaceRenderer) -> dict:
    """This command's fingerprints of faces of the renderer's loaded game. Per loaded game,
    not per game id: `pnp diff` draws two versions of one game in one command. The entry
    holds the game it belongs to, so its id cannot be reused while the entry lives."""
    per_game = session.current().cache("version_mark.digests")
    content = renderer.content
    held = per_game.get(id(content))
    if held is None or held[0] is not content:
        while len(per_game) >= KEPT_GAMES:
            del per_game[next(iter(per_game))]  # the oldest
        held = per_game[id(content)] = (content, {})
    return held[1]


def _key(renderer: FaceRenderer, face: Face) -> str:
    return json.dumps(
        [face.layout, face.ctx, round(face.w, 3), round(face.h, 3), round(face.bleed, 3)],
        sort_keys=True,
        default=repr,
    )


def mark_text(renderer: FaceRenderer, face: Face) -> str:
    version = renderer.content.game.version
    digest = fingerprint(renderer, face)[:HASH_DIGITS]
    return f"v{version} · {digest}" if version else digest


def mark_rect(renderer: FaceRenderer, mark: VersionMark, text: str, w: float, h: float) -> Rect:
    """Where the mark (plate included) sits on a w x h face, PDF style from the bottom-left."""
    size = mark.size.points
    face = renderer.fonts.default
    mw = face.width(text, size) + 2 * PAD
    mh = size * (face.ascent + face.descent) + 2 * PAD
    margin = renderer.content.game.check.safe_margin.points
    x = margin if mark.corner.endswith("left") else w - margin - mw
    y = margin if mark.corner.startswith("bottom") else h - margin - mh
    return Rect(x, y, mw, mh)


def draw(renderer: FaceRenderer, canvas: Any, frame: Frame) -> None:
    """Draw the mark of a face (depth 0) when the game asks for one."""
    mark = settings(renderer, frame.ctx)
    if mark is None:
        return
    text = mark_text(renderer, Face(frame.layout, frame.ctx, frame.w, frame.h, frame.bleed))
    r = mark_rect(renderer, mark, text, frame.w, frame.h)
    face = renderer.fonts.default
    size = mark.size.points
    canvas.saveState()
    if mark.plate:
        canvas.setFillColor(colour(mark.plate))
        canvas.roundRect(r.x, r.y, r.w, r.h, min(PAD * 1.5, r.h / 2), stroke=0, fill=1)
    canvas.setFillColor(colour(mark.colour))
    canvas.setFont(face.name, size)
    canvas.drawString(r.x + PAD, r.y + PAD + size * face.descent, text)
    canvas.restoreState()


def _covered(renderer: FaceRenderer, frame: Frame, placed: list[Placed]):
    """(label, kind, rectangle on the face) of what a mark must not cover: the ink of every
    text (as drawn, after fitting) and every picture, in repeat cells too."""

    for p in placed:
        box = p.box
        try:
            if box.kind == "text":
                fitted, faces = fit_text(renderer, box, p.rect, p.ctx)
                ink = extent(fitted, faces, box, p.rect, rtl_language(renderer.lang))
                if ink is not None:
                    yield p.label, "text", bounds(multiply(p.frame.to_face, p.transform), ink)
            elif box.kind in ART_KINDS:
                yield p.label, box.kind, p.on_face
            elif box.kind == "repeat":
                for cell in cells(renderer, p):
                    inner = list(walk(renderer, cell, lambda *_: None))
                    yield from _covered(renderer, cell, inner)
        except ContentError:
            continue  # a broken box: its own check says so


def check(renderer: FaceRenderer, frame: Frame, placed: list[Placed]) -> list[Finding]:
    """The mark is a box like any other: inside the safe area, over no text and no art."""
    mark = settings(renderer, frame.ctx)
    if mark is None:
        return []
    # The text's width depends on the hash only through six hex digits: measure a stand-in.
    version = renderer.content.game.version
    text = f"v{version} · {'0' * HASH_DIGITS}" if version else "0" * HASH_DIGITS
    r = mark_rect(renderer, mark, text, frame.w, frame.h)
    where = {k: v for k, v in frame.where.items() if k in ("file", "line", "component", "item")}
    where["lang"] = renderer.lang
    found = []
    if r.x < -0.01 or r.y < -0.01 or r.x + r.w > frame.w + 0.01 or r.y + r.h > frame.h + 0.01:
        found.append(
            Finding(
                "error",
                "version-mark",
                f"version mark ({r.w / MM:.1f}×{r.h / MM:.1f} mm) does not fit inside the face's "
                "safe area",
                hint="a smaller size, or a shorter version",
                box="version_mark",
                **where,
            )
        )
    for label, kind, other in _covered(renderer, frame, placed):
        dx = min(r.x + r.w, other.x + other.w) - max(r.x, other.x)
        dy = min(r.y + r.h, other.y + other.h) - max(r.y, other.y)
        if dx > 0.01 and dy > 0.01:
            found.append(
                Finding(
                    "error",
                    "version-mark",
                    f"version mark in the {mark.corner} corner covers box '{label}' ({kind})",
                    hint="pick another corner (print: version_mark: {corner: ...}) or move the box",
                    box="version_mark",
                    **where,
                )
            )
            break  # one finding per face is enough to act on
    return found

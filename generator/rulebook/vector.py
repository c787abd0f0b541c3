"""Faces drawn as vectors in a rulebook PDF.

WeasyPrint lays the book out with an empty SVG in each face's place (`<img data-face=...>`,
see figures.Picture.img); `placements` reads where each one landed from WeasyPrint's layout
boxes, and `place_faces` draws the face's own one-page PDF (ReportLab, fonts embedded) there
as a Form XObject, clipped to the picture's rounded frame. Text in a figure thus stays text,
in the card's fonts, at the figure's scale. `smallest_text` reads the smallest text size a
face's PDF shows, so a figure is never printed small enough to put text under 6 pt.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import pikepdf

from generator.errors import ContentError
from generator.units import compose

PX = 0.75  # WeasyPrint's layout unit (CSS px) in points
# Bezier handle length for a quarter circle
KAPPA = 0.5523


@dataclass(frozen=True)
class Placement:
    page: int  # 0-based
    face: str  # the face PDF's file name, in the faces folder
    x: float  # content box, points from the page's top-left
    y: float
    w: float
    h: float
    rotate: float  # degrees, clockwise as CSS turns it, about the box's centre
    radii: tuple[float, ...]  # the content box's corner radii (tl, tr, br, bl) in points


def _mul(m, n):
    """m then n (PDF order: the point is transformed by m first)."""
    return compose(n, m)


def smallest_text(path: Path) -> float | None:
    """The smallest size (points, as printed: font size x text and page matrices) of any text
    a one-page PDF shows, Form XObjects included; None when it shows none."""
    with pikepdf.open(path) as pdf:
        page = pdf.pages[0]
        found: list[float] = []
        _walk(page.obj, (1, 0, 0, 1, 0, 0), found, 0)
    return min(found) if found else None


def _operations(holder, ctm):
    """Each operation of `holder`'s content stream with the transformation it is drawn under,
    and for a text-showing one the size its text prints at (points): (operands, operator,
    name, ctm, printed size or None)."""
    stack = []
    size = 0.0
    tm: tuple[float, ...] = (1, 0, 0, 1, 0, 0)
    for operands, op in pikepdf.parse_content_stream(holder):  # type: ignore[misc]
        name = str(op)
        printed = None
        if name == "q":
            stack.append(ctm)
        elif name == "Q" and stack:
            ctm = stack.pop()
        elif name == "cm":
            ctm = _mul(tuple(float(v) for v in operands), ctm)
        elif name == "BT":
            tm = (1, 0, 0, 1, 0, 0)
        elif name == "Tf":
            size = float(operands[1])
        elif name == "Tm":
            tm = tuple(float(v) for v in operands)
        elif name in ("Tj", "TJ", "'", '"'):
            _, _, c, d, _, _ = _mul(tm, ctm)
            printed = abs(size) * math.hypot(c, d)
        yield operands, op, name, ctm, printed


def _form(xobjects, operands):
    """The Form XObject a `Do` draws, or None (an image)."""
    xobject = xobjects.get(operands[0])
    return xobject if xobject is not None and xobject.get("/Subtype") == "/Form" else None


def _form_matrix(xobject) -> tuple[float, ...]:
    return tuple(float(v) for v in xobject.get("/Matrix", [1, 0, 0, 1, 0, 0]))


def _walk(holder, ctm, found: list[float], depth: int) -> None:
    if depth > 8:  # nested forms this deep are not drawn by pnp
        return
    resources = holder.get("/Resources") or pikepdf.Dictionary()
    xobjects = resources.get("/XObject") or pikepdf.Dictionary()
    for operands, _, name, now, printed in _operations(holder, ctm):
        if printed is not None:
            text = operands[-1]
            empty = (
                len(text) == 0
                if isinstance(text, pikepdf.Array)
                else not bytes(text).strip(b" \x00")
            )
            if printed and not empty:
                found.append(printed)
        elif name == "Do" and (xobject := _form(xobjects, operands)) is not None:
            _walk(xobject, _mul(_form_matrix(xobject), now), found, depth + 1)


def _without_small_text(book, form, limit: float, ctm, depth: int = 0):
    """A copy of a Form XObject of `book` whose text shown smaller than `limit` (points, as
    printed under `ctm`) is left out, nested forms included; `form` itself when none is."""
    if depth > 8:
        return form
    resources = form.get("/Resources") or pikepdf.Dictionary()
    xobjects = resources.get("/XObject") or pikepdf.Dictionary()
    kept: list = []
    dropped = False
    replaced: dict[str, pikepdf.Object] = {}
    for operands, op, name, now, printed in _operations(form, ctm):
        if printed is not None and printed < limit:
            dropped = True
            if name == "'":  # the line feed stays
                kept.append(([], pikepdf.Operator("T*")))
            elif name == '"':
                kept.append(([operands[0]], pikepdf.Operator("Tw")))
                kept.append(([operands[1]], pikepdf.Operator("Tc")))
                kept.append(([], pikepdf.Operator("T*")))
            continue
        if name == "Do" and (xobject := _form(xobjects, operands)) is not None:
            matrix = _form_matrix(xobject)
            copy = _without_small_text(book, xobject, limit, _mul(matrix, now), depth + 1)
            if copy is not xobject:
                replaced[str(operands[0])] = copy
                dropped = True
        kept.append((operands, op))
    if not dropped:
        return form
    stream = pikepdf.Stream(book, pikepdf.unparse_content_stream(kept))
    for key, value in form.items():
        if key not in ("/Length", "/Filter", "/DecodeParms", "/Resources"):
            stream[key] = value
    if replaced:
        inner = pikepdf.Dictionary(dict(xobjects.items()))
        for key, value in replaced.items():
            inner[key] = value
        new_resources = pikepdf.Dictionary(dict(resources.items()))
        new_resources.XObject = inner
        stream.Resources = new_resources
    elif "/Resources" in form:
        stream.Resources = form.Resources
    return book.make_indirect(stream)


def _retag_fonts(holder, seed: str, seen: set, depth: int = 0) -> None:
    """Give each font subset of a face its own six-letter tag: ReportLab tags every subset
    AAAAAA+, and two different subsets under one name in one PDF confuse some RIPs."""
    if depth > 8:
        return
    resources = holder.get("/Resources") or pikepdf.Dictionary()
    for font in (resources.get("/Font") or pikepdf.Dictionary()).values():
        base = str(font.get("/BaseFont", ""))
        if font.objgen in seen or "+" not in base:
            continue
        seen.add(font.objgen)
        digest = hashlib.sha256(f"{seed}/{base}/{len(seen)}".encode()).digest()
        tag = "".join(chr(65 + b % 26) for b in digest[:6])
        name = pikepdf.Name("/" + tag + base[base.index("+") :])
        font.BaseFont = name
        descriptor = font.get("/FontDescriptor")
        if descriptor is not None and "/FontName" in descriptor:
            descriptor.FontName = name
    for xobject in (resources.get("/XObject") or pikepdf.Dictionary()).values():
        if xobject.get("/Subtype") == "/Form":
            _retag_fonts(xobject, seed, seen, depth + 1)


def placements(document) -> list[Placement]:
    """Where WeasyPrint put every face placeholder (`<img data-face=...>`) of a laid-out
    document."""
    from weasyprint.formatting_structure import boxes as B

    out: list[Placement] = []

    def walk(box, page: int):
        box = getattr(box, "_box", box)  # an absolutely placed box (a piece on a board)
        element = getattr(box, "element", None)
        if (
            isinstance(box, B.ReplacedBox)
            and element is not None
            and element.get("data-face")
            and box.width
            and box.height
        ):
            rotate = 0.0
            for name, args in box.style["transform"] or ():
                if name == "rotate":
                    rotate += math.degrees(float(args))
            x, y = box.content_box_x(), box.content_box_y()
            radii = box.rounded_content_box()[4:]
            out.append(
                Placement(
                    page,
                    element.get("data-face"),
                    x * PX,
                    y * PX,
                    box.width * PX,
                    box.height * PX,
                    rotate,
                    tuple(min(rx, ry) * PX for rx, ry in radii),
                )
            )
            return
        for child in getattr(box, "children", None) or []:
            walk(child, page)

    for number, page in enumerate(document.pages):
        walk(page._page_box, number)
    return out


def _frame(w: float, h: float, radii: tuple[float, ...]) -> str:
    """A clip path: the rectangle 0,0-w,h (PDF y up) with rounded corners tl, tr, br, bl."""
    tl, tr, br, bl = (min(r, w / 2, h / 2) for r in radii) if radii else (0, 0, 0, 0)
    k = KAPPA

    def n(v: float) -> str:
        return f"{v:.3f}"

    ops = [f"{n(bl)} 0 m", f"{n(w - br)} 0 l"]
    if br:
        ops.append(f"{n(w - br + br * k)} 0 {n(w)} {n(br - br * k)} {n(w)} {n(br)} c")
    ops.append(f"{n(w)} {n(h - tr)} l")
    if tr:
        ops.append(f"{n(w)} {n(h - tr + tr * k)} {n(w - tr + tr * k)} {n(h)} {n(w - tr)} {n(h)} c")
    ops.append(f"{n(tl)} {n(h)} l")
    if tl:
        ops.append(f"{n(tl - tl * k)} {n(h)} 0 {n(h - tl + tl * k)} 0 {n(h - tl)} c")
    ops.append(f"0 {n(bl)} l")
    if bl:
        ops.append(f"0 {n(bl - bl * k)} {n(bl - bl * k)} 0 {n(bl)} 0 c")
    return " ".join(ops) + " h W n"


def place_faces(path: Path, found: list[Placement], folder: Path, min_text_pt: float) -> int:
    """Draw each placed face's PDF into the rulebook PDF at `path` (rewritten in place), its
    text smaller than `min_text_pt` as printed left out. Returns the number of faces drawn."""
    if not found:
        return 0
    folder = folder.resolve()
    with pikepdf.open(path, allow_overwriting_input=True) as book:
        forms: dict[str, pikepdf.Object] = {}
        per_page: dict[int, list[str]] = {}
        for n, p in enumerate(found):
            source = (folder / p.face).resolve()
            if source.parent != folder or source.suffix != ".pdf" or not source.is_file():
                raise ContentError(f"rulebook figure {p.face} is missing", code="rules-figure")
            if p.face not in forms:
                with pikepdf.open(source) as face_pdf:
                    form = face_pdf.pages[0].as_form_xobject()
                    forms[p.face] = book.copy_foreign(form)
                _retag_fonts(forms[p.face], p.face, set())
            page = book.pages[p.page]
            box = [float(v) for v in page.mediabox]
            page_h = box[3] - box[1]
            form = forms[p.face]
            fx0, fy0, fx1, fy1 = (float(v) for v in form.BBox)
            fw, fh = fx1 - fx0, fy1 - fy0
            # text this figure's scale would print under min_text_pt is left out: a face
            # reduced that far (a table seen from above) shows its layout, not its words
            scale = min(p.w / fw, p.h / fh)
            key = f"{p.face}@{scale:.4f}"
            if key not in forms:
                forms[key] = _without_small_text(
                    book, form, min_text_pt, (scale, 0, 0, scale, 0, 0)
                )
            form = forms[key]
            name = pikepdf.Name(f"/PnpFace{n}")
            resources = page.obj.get("/Resources")
            if resources is None:
                page.obj.Resources = resources = pikepdf.Dictionary()
            if "/XObject" not in resources:
                resources.XObject = pikepdf.Dictionary()
            resources.XObject[name] = form
            # the box's centre, PDF coordinates (y up)
            cx = box[0] + p.x + p.w / 2
            cy = box[1] + page_h - (p.y + p.h / 2)
            turn = math.radians(-p.rotate)  # CSS turns clockwise with y down
            cos, sin = math.cos(turn), math.sin(turn)
            frame = _frame(p.w, p.h, p.radii)
            per_page.setdefault(p.page, []).append(
                "q "
                f"{cos:.6f} {sin:.6f} {-sin:.6f} {cos:.6f} {cx:.3f} {cy:.3f} cm "
                f"1 0 0 1 {-p.w / 2:.3f} {-p.h / 2:.3f} cm "
                f"{frame} "
                f"{p.w / fw:.6f} 0 0 {p.h / fh:.6f} {-fx0 * p.w / fw:.3f} "
                f"{-fy0 * p.h / fh:.3f} cm {name} Do Q"
            )
        for number, drawn in per_page.items():
            page = book.pages[number]
            # WeasyPrint's page leaves its own matrix (y down, CSS px) set: wrap it in q ... Q
            page.contents_add(pikepdf.Stream(book, b"q\n"), prepend=True)
            drawn_ops = "Q\n" + "\n".join(drawn) + "\n"
            page.contents_add(pikepdf.Stream(book, drawn_ops.encode()))
        book.save(path, deterministic_id=True)
    return len(found)

"""Imposition: where faces go on a sheet, their crop marks, and where their backs go.

All geometry is in points, origin at the sheet's bottom-left. Cards abut (gutter 0 by default)
so one cut separates two cards: the bleed is shared, drawn only on the grid's outer edges and
clipped to half the gutter inside. Backs are placed by an affine transform
B = offset . mirror . front . flip, so rotation, long- and short-edge flips and the back-offset
calibration all follow from one formula.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

from generator.units import MM, Affine, compose

MARK_GAP = 0.5 * MM  # between the bleed edge and the start of a crop mark
MIN_MARK = 2.0 * MM
MAX_MARK = 6.0 * MM


def apply(m: Affine, x: float, y: float) -> tuple[float, float]:
    a, b, c, d, e, f = m
    return a * x + c * y + e, b * x + d * y + f


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def mapped(self, m: Affine) -> Rect:
        xs, ys = zip(
            apply(m, self.x, self.y), apply(m, self.x + self.w, self.y + self.h), strict=True
        )
        return Rect(min(xs), min(ys), abs(xs[1] - xs[0]), abs(ys[1] - ys[0]))

    def grown(self, left: float, bottom: float, right: float, top: float) -> Rect:
        return Rect(self.x - left, self.y - bottom, self.w + left + right, self.h + bottom + top)


@dataclass(frozen=True)
class Slot:
    index: int
    col: int
    row: int
    trim: Rect  # on the sheet
    clip: Rect  # trim plus the bleed this slot may print
    front: Affine  # face coordinates -> sheet


@dataclass(frozen=True)
class Grid:
    paper: tuple[float, float]
    face: tuple[float, float]  # unrotated face (w, h)
    cols: int
    rows: int
    rotated: bool
    x0: float  # trim grid's bottom-left
    y0: float
    gutter: float
    bleed: float
    margin: float
    crop_marks: bool

    @property
    def cell(self) -> tuple[float, float]:
        w, h = self.face
        return (h, w) if self.rotated else (w, h)

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def trim_box(self) -> Rect:
        cw, ch = self.cell
        return Rect(
            self.x0,
            self.y0,
            self.cols * cw + (self.cols - 1) * self.gutter,
            self.rows * ch + (self.rows - 1) * self.gutter,
        )

    @property
    def bleed_box(self) -> Rect:
        b = self.bleed
        return self.trim_box.grown(b, b, b, b)

    def slots(self) -> list[Slot]:
        cw, ch = self.cell
        inner = min(self.bleed, self.gutter / 2)
        out: list[Slot] = []
        for row in range(self.rows):  # row 0 is the top row: cards read left to right, top down
            for col in range(self.cols):
                x = self.x0 + col * (cw + self.gutter)
                y = self.y0 + (self.rows - 1 - row) * (ch + self.gutter)
                trim = Rect(x, y, cw, ch)
                clip = trim.grown(
                    self.bleed if col == 0 else inner,
                    self.bleed if row == self.rows - 1 else inner,
                    self.bleed if col == self.cols - 1 else inner,
                    self.bleed if row == 0 else inner,
                )
                if self.rotated:  # the face's top points left
                    front = (0.0, 1.0, -1.0, 0.0, x + cw, y)
                else:
                    front = (1.0, 0.0, 0.0, 1.0, x, y)
                out.append(Slot(len(out), col, row, trim, clip, front))
        return out

    def clip_for(self, slot: Slot, occupied: set[tuple[int, int]]) -> Rect:
        """The slot's clip, with full bleed also towards neighbours left empty (a part-filled
        last sheet), so a slightly-off cut never shows white there."""
        inner = min(self.bleed, self.gutter / 2)

        def side(col, row):
            inside = 0 <= col < self.cols and 0 <= row < self.rows
            return inner if inside and (col, row) in occupied else self.bleed

        c, r = slot.col, slot.row
        return slot.trim.grown(side(c - 1, r), side(c, r + 1), side(c + 1, r), side(c, r - 1))

    def back_transform(self, slot: Slot, duplex: str, offset: tuple[float, float]) -> Affine:
        """Face coordinates -> back sheet, so each back lands behind its front after the flip."""
        W, H = self.paper
        w, _ = self.face
        flip_card = (-1.0, 0.0, 0.0, 1.0, w, 0.0)  # a card turns over about its vertical axis
        mirror = (
            (-1.0, 0.0, 0.0, 1.0, W, 0.0)
            if duplex == "long-edge"
            else (1.0, 0.0, 0.0, -1.0, 0.0, H)
        )
        shift = (1.0, 0.0, 0.0, 1.0, offset[0], offset[1])
        return compose(shift, compose(mirror, compose(slot.front, flip_card)))

    def back_sheet_transform(self, duplex: str, offset: tuple[float, float]) -> Affine:
        return back_sheet(self.paper, duplex, offset)

    def marks(self) -> list[tuple[float, float, float, float]]:
        """Crop marks of a full grid: every trim line, outside the bleed, never into the margin."""
        if not self.crop_marks:
            return []
        W, H = self.paper
        cw, ch = self.cell
        xs = sorted(
            {
                round(self.x0 + c * (cw + self.gutter) + dx, 4)
                for c in range(self.cols)
                for dx in (0, cw)
            }
        )
        ys = sorted(
            {
                round(self.y0 + r * (ch + self.gutter) + dy, 4)
                for r in range(self.rows)
                for dy in (0, ch)
            }
        )
        bb = self.bleed_box
        out = []
        bottom_start, top_start = bb.y - MARK_GAP, bb.y + bb.h + MARK_GAP
        left_start, right_start = bb.x - MARK_GAP, bb.x + bb.w + MARK_GAP
        for x in xs:
            out.append((x, bottom_start, x, max(self.margin, bottom_start - MAX_MARK)))
            out.append((x, top_start, x, min(H - self.margin, top_start + MAX_MARK)))
        for y in ys:
            out.append((left_start, y, max(self.margin, left_start - MAX_MARK), y))
            out.append((right_start, y, min(W - self.margin, right_start + MAX_MARK), y))
        return out


def cut_lines(grid: Grid) -> list[tuple[float, float, float, float]]:
    """Every trim line drawn across the whole grid: for token sheets cut with a ruler."""
    cw, ch = grid.cell
    tb = grid.trim_box
    xs = sorted(
        {
            round(grid.x0 + c * (cw + grid.gutter) + dx, 4)
            for c in range(grid.cols)
            for dx in (0, cw)
        }
    )
    ys = sorted(
        {
            round(grid.y0 + r * (ch + grid.gutter) + dy, 4)
            for r in range(grid.rows)
            for dy in (0, ch)
        }
    )
    return [(x, tb.y, x, tb.y + tb.h) for x in xs] + [(tb.x, y, tb.x + tb.w, y) for y in ys]


class DoesNotFit(ValueError):
    pass


def plan(
    paper: tuple[float, float],
    face: tuple[float, float],
    *,
    bleed: float,
    margin: float,
    gutter: float = 0.0,
    crop_marks: bool = True,
    rotate: str = "auto",
) -> Grid:
    """The grid holding the most faces, upright or turned a quarter, centred on the sheet."""
    W, H = paper
    outer = bleed + (MARK_GAP + MIN_MARK if crop_marks else 0.0)
    room_w, room_h = W - 2 * margin - 2 * outer, H - 2 * margin - 2 * outer
    best = None
    for rotated in (False, True) if rotate == "auto" else (False,):
        cw, ch = (face[1], face[0]) if rotated else face
        cols = int((room_w + gutter + 1e-6) // (cw + gutter))
        rows = int((room_h + gutter + 1e-6) // (ch + gutter))
        if cols >= 1 and rows >= 1 and (best is None or cols * rows > best[0] * best[1]):
            best = (cols, rows, rotated)
    if best is None:
        raise DoesNotFit(
            f"a {face[0] / MM:.1f}x{face[1] / MM:.1f} mm face with {bleed / MM:g} mm bleed "
            f"does not fit a {W / MM:.0f}x{H / MM:.0f} mm sheet with {margin / MM:g} mm margins"
        )
    cols, rows, rotated = best
    cw, ch = (face[1], face[0]) if rotated else face
    grid_w, grid_h = cols * cw + (cols - 1) * gutter, rows * ch + (rows - 1) * gutter
    return Grid(
        paper,
        face,
        cols,
        rows,
        rotated,
        (W - grid_w) / 2,
        (H - grid_h) / 2,
        gutter,
        bleed,
        margin,
        crop_marks,
    )


# ---------------------------------------------------------------- tiling


def back_sheet(paper: tuple[float, float], duplex: str, offset: tuple[float, float]) -> Affine:
    """Front sheet -> back sheet: mirrored for the printer's flip, then moved by the back
    offset, so that what is drawn there lies behind the same point of the front."""
    W, H = paper
    mirror = (
        (-1.0, 0.0, 0.0, 1.0, W, 0.0) if duplex == "long-edge" else (1.0, 0.0, 0.0, -1.0, 0.0, H)
    )
    return compose((1.0, 0.0, 0.0, 1.0, offset[0], offset[1]), mirror)


@dataclass(frozen=True)
class Tile:
    row: int  # 0 = top row of the face
    col: int
    face: Rect  # the part of the face on this tile, face coordinates (origin bottom-left)
    page: tuple[float, float]  # this tile's sheet (w, h): portrait or landscape
    trim: Rect  # where that part sits on the sheet
    clip: Rect  # trim plus bleed on the face's outer edges only


@dataclass(frozen=True)
class TilePlan:
    face: tuple[float, float]
    rows: int
    cols: int
    overlap: float
    tiles: tuple[Tile, ...]
    marks: tuple[tuple[float, float], ...]  # registration marks, face coordinates
    crossings: int = 0  # text boxes a seam runs through (0 when the seams could avoid them)
    mark_radius: float = 2.2 * MM

    def marks_on(self, tile: Tile) -> list[tuple[float, float]]:
        """The marks this tile carries: those on its part of the face, and those beyond the
        face's edge where the tile is on that edge."""
        f, (fw, fh), e = tile.face, self.face, 1e-6
        out = []
        for x, y in self.marks:
            in_x = f.x - e <= x <= f.x + f.w + e or (x < 0 and tile.col == 0)
            in_x = in_x or (x > fw and tile.col == self.cols - 1)
            in_y = f.y - e <= y <= f.y + f.h + e or (y < 0 and tile.row == self.rows - 1)
            in_y = in_y or (y > fh and tile.row == 0)
            if in_x and in_y:
                out.append((x, y))
        return out

    def to_page(self, tile: Tile, x: float, y: float) -> tuple[float, float]:
        return tile.trim.x + x - tile.face.x, tile.trim.y + y - tile.face.y


REG_RADIUS = 2.2 * MM  # a registration mark's circle; its cross arms reach 1.6 times as far
REG_ARM = 1.6
REG_CLEAR = 0.5 * MM  # between the trim and a mark beyond it
REG_MIN = 1.2 * MM  # smaller than this is hard to line up: the marks go inside the band


def plan_tiles(
    paper: tuple[float, float],
    face: tuple[float, float],
    *,
    bleed: float,
    margin: float,
    overlap: float,
    crop_marks: bool = True,
    avoid: tuple[Rect, ...] = (),
) -> TilePlan:
    """Split a face bigger than the sheet into overlapping tiles: fewest sheets first, then the
    seams that run through the fewest `avoid` rectangles (text), then the most even tiles.

    Neighbouring tiles share a band `overlap` wide; the later tile is cut along its middle and
    laid on the earlier one. Registration marks sit on that middle line beyond the face's outer
    edges, in the trimmed-off margin, so no mark is left on the assembled board; only
    a band with no outer end (a middle row or column of three or more) gets marks inside it.
    """
    outer = bleed + (MARK_GAP + MIN_MARK if crop_marks else 0.0)
    best = None
    for page in (paper, (paper[1], paper[0])):
        room_w, room_h = page[0] - 2 * margin - 2 * outer, page[1] - 2 * margin - 2 * outer
        if room_w <= overlap or room_h <= overlap:
            continue
        cols = int(max(1, -(-(face[0] - overlap) // (room_w - overlap))))
        rows = int(max(1, -(-(face[1] - overlap) // (room_h - overlap))))
        xs, cross_x = _seams(face[0], cols, room_w, overlap, [(r.x, r.x + r.w) for r in avoid])
        # rows count from the top of the face: seams measured from the top
        from_top = [(face[1] - r.y - r.h, face[1] - r.y) for r in avoid]
        ys, cross_y = _seams(face[1], rows, room_h, overlap, from_top)
        key = (cols * rows, cross_x + cross_y)
        if best is None or key < best[0]:
            best = (key, page, xs, ys)
    if best is None:
        raise DoesNotFit("the sheet is too small to tile on")
    (_, crossings), page, xs, ys = best
    cols, rows = len(xs), len(ys)
    tiles = []
    for row, (t0, t1) in enumerate(ys):
        for col, (fx0, fx1) in enumerate(xs):
            tw, th = fx1 - fx0, t1 - t0
            px, py = (page[0] - tw) / 2, (page[1] - th) / 2
            trim = Rect(px, py, tw, th)
            clip = trim.grown(
                bleed if col == 0 else 0,
                bleed if row == rows - 1 else 0,
                bleed if col == cols - 1 else 0,
                bleed if row == 0 else 0,
            )
            face_rect = Rect(fx0, face[1] - t1, tw, th)
            tiles.append(Tile(row, col, face_rect, page, trim, clip))
    marks, radius = _registration(face, xs, ys, overlap, tiles, margin)
    return TilePlan(face, rows, cols, overlap, tuple(tiles), tuple(marks), crossings, radius)


def _seams(
    length: float, n: int, room: float, overlap: float, avoid: list[tuple[float, float]]
) -> tuple[list[tuple[float, float]], int]:
    """n tiles covering [0, length], each at most `room` long, neighbours overlapping by
    `overlap`; each seam (overlap band) placed to cross the fewest `avoid` intervals, then as
    near the even split as it can. Returns the tiles' spans and the crossings."""
    even = (length + (n - 1) * overlap) / n
    starts, crossings = [0.0], 0
    step = 0.5 * MM
    for k in range(1, n):
        left = n - k  # tiles from k on
        lo = max(starts[-1] + step, length - left * room + (left - 1) * overlap)
        hi = starts[-1] + room - overlap
        ideal = k * (even - overlap)
        cands = [lo + i * step for i in range(int((hi - lo) / step) + 1)] + [ideal]
        cands = [c for c in cands if lo - 1e-6 <= c <= hi + 1e-6]

        def cost(s: float, ideal: float = ideal) -> tuple[int, float]:
            hits = sum(1 for a, b in avoid if a < s + overlap and b > s)
            return hits, abs(s - ideal)

        chosen = min(cands, key=cost)
        crossings += cost(chosen)[0]
        starts.append(chosen)
    ends = [s + overlap for s in starts[1:]] + [length]
    return list(zip(starts, ends, strict=True)), crossings


def _registration(face, xs, ys, overlap, tiles, margin) -> tuple[list[tuple[float, float]], float]:
    """Marks on each band's middle line, just beyond the face's outer edges (in the bleed and
    margin that are trimmed off), sized to the room there; inside the band only without room."""
    fw, fh = face
    rows, cols = len(ys), len(xs)
    rooms = []  # space between the trim and the printer-safe margin, where bands end
    for t in tiles:
        if cols > 1 and t.row == rows - 1:
            rooms.append(t.trim.y - margin)
        if cols > 1 and t.row == 0:
            rooms.append(t.page[1] - margin - t.trim.y - t.trim.h)
        if rows > 1 and t.col == 0:
            rooms.append(t.trim.x - margin)
        if rows > 1 and t.col == cols - 1:
            rooms.append(t.page[0] - margin - t.trim.x - t.trim.w)
    radius = min([REG_RADIUS, *((r - REG_CLEAR) / (2 * REG_ARM) for r in rooms)])
    outside = radius >= REG_MIN
    if not outside:
        radius = REG_RADIUS
    d = REG_CLEAR + radius * REG_ARM if outside else -overlap / 2  # centre beyond the trim
    marks: list[tuple[float, float]] = []
    for x0, _ in xs[1:]:  # vertical bands
        x = x0 + overlap / 2
        marks += [(x, -d), (x, fh + d)]
        marks += [(x, fh - (t0 + t1) / 2) for t0, t1 in ys[1:-1]]  # middle rows: no outer end
    for t0, _ in ys[1:]:  # horizontal bands
        y = fh - t0 - overlap / 2
        marks += [(-d, y), (fw + d, y)]
        marks += [((x0 + x1) / 2, y) for x0, x1 in xs[1:-1]]
    return marks, radius


# ---------------------------------------------------------------- marks around used cells

Segment = tuple[float, float, float, float]


def bbox(rects: list[Rect]) -> Rect:
    x0, y0 = min(r.x for r in rects), min(r.y for r in rects)
    x1, y1 = max(r.x + r.w for r in rects), max(r.y + r.h for r in rects)
    return Rect(x0, y0, x1 - x0, y1 - y0)


def marks_around(
    cells: list[Rect], bleed: float, bounds: Rect, length: float = MAX_MARK
) -> list[Segment]:
    """Crop marks for the trim lines of the used cells only.

    Each trim line gets a mark at each end of the used block, outside the bleed, but only where
    the cell it marks sits on the block's edge: a mark never crosses an empty cell. Marks stop at
    `bounds` (the printer-safe area, or the block's own ring on a shared sheet).
    """
    if not cells:
        return []
    box = bbox(cells)
    eps = 0.01
    top, bottom = box.y + box.h, box.y
    left, right = box.x, box.x + box.w
    out: list[Segment] = []
    xs = sorted({round(v, 3) for c in cells for v in (c.x, c.x + c.w)})
    ys = sorted({round(v, 3) for c in cells for v in (c.y, c.y + c.h)})
    for x in xs:
        touching = [c for c in cells if abs(c.x - x) < eps or abs(c.x + c.w - x) < eps]
        if any(abs(c.y + c.h - top) < eps for c in touching):
            start = top + bleed + MARK_GAP
            out.append((x, start, x, min(bounds.y + bounds.h, start + length)))
        if any(abs(c.y - bottom) < eps for c in touching):
            start = bottom - bleed - MARK_GAP
            out.append((x, start, x, max(bounds.y, start - length)))
    for y in ys:
        touching = [c for c in cells if abs(c.y - y) < eps or abs(c.y + c.h - y) < eps]
        if any(abs(c.x - left) < eps for c in touching):
            start = left - bleed - MARK_GAP
            out.append((start, y, max(bounds.x, start - length), y))
        if any(abs(c.x + c.w - right) < eps for c in touching):
            start = right + bleed + MARK_GAP
            out.append((start, y, min(bounds.x + bounds.w, start + length), y))
    return [s for s in out if abs(s[0] - s[2]) + abs(s[1] - s[3]) > 0.5 * MM]


def cell_edges(cells: list[Rect]) -> list[Segment]:
    """The trim lines of the used cells, each drawn once, for cutting with a ruler."""
    seen: set[tuple[float, ...]] = set()
    out: list[Segment] = []
    for c in cells:
        for seg in (
            (c.x, c.y, c.x + c.w, c.y),
            (c.x, c.y + c.h, c.x + c.w, c.y + c.h),
            (c.x, c.y, c.x, c.y + c.h),
            (c.x + c.w, c.y, c.x + c.w, c.y + c.h),
        ):
            key = tuple(round(v, 2) for v in seg)
            if key not in seen:
                seen.add(key)
                out.append(seg)
    return out


def label_spot(marks: list[Segment], strip: Rect) -> tuple[float, float] | None:
    """The centre x and the width of the widest stretch of a label strip no mark crosses."""
    cuts = sorted(
        x
        for x1, y1, x2, y2 in marks
        for x in (x1, x2)
        if min(y1, y2) < strip.y + strip.h and max(y1, y2) > strip.y
    )
    edges = [strip.x, *[c for c in cuts if strip.x < c < strip.x + strip.w], strip.x + strip.w]
    gaps = [(b - a, a, b) for a, b in itertools.pairwise(edges)]
    width, a, b = max(gaps)
    return ((a + b) / 2, width) if width > 2 * MM else None

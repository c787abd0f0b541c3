"""Imposition: where faces go on a sheet, their crop marks, and where their backs go.

All geometry is in points, origin at the sheet's bottom-left. Cards abut (gutter 0 by default)
so one cut separates two cards: the bleed is shared, drawn only on the grid's outer edges and
clipped to half the gutter inside. Backs are placed by an affine transform
B = offset . mirror . front . flip, so rotation, long- and short-edge flips and the back-offset
calibration all follow from one formula.
"""

from __future__ import annotations

from dataclasses import dataclass

from generator.units import MM

MARK_GAP = 0.5 * MM  # between the bleed edge and the start of a crop mark
MIN_MARK = 2.0 * MM
MAX_MARK = 6.0 * MM
Affine = tuple[float, float, float, float, float, float]


def compose(m: Affine, n: Affine) -> Affine:
    """m after n."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


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
        W, H = self.paper
        mirror = (
            (-1.0, 0.0, 0.0, 1.0, W, 0.0)
            if duplex == "long-edge"
            else (1.0, 0.0, 0.0, -1.0, 0.0, H)
        )
        return compose((1.0, 0.0, 0.0, 1.0, offset[0], offset[1]), mirror)

    def marks(self) -> list[tuple[float, float, float, float]]:
        """Crop-mark segments: every trim line, extended outside the bleed, never into the
        margin."""
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

    def marks_on(self, tile: Tile) -> list[tuple[float, float]]:
        f = tile.face
        return [
            (x, y)
            for x, y in self.marks
            if f.x - 1e-6 <= x <= f.x + f.w + 1e-6 and f.y - 1e-6 <= y <= f.y + f.h + 1e-6
        ]

    def to_page(self, tile: Tile, x: float, y: float) -> tuple[float, float]:
        return tile.trim.x + x - tile.face.x, tile.trim.y + y - tile.face.y


MARK_SPACING = 60 * MM  # registration marks along each overlap band


def plan_tiles(
    paper: tuple[float, float],
    face: tuple[float, float],
    *,
    bleed: float,
    margin: float,
    overlap: float,
    crop_marks: bool = True,
) -> TilePlan:
    """Split a face bigger than the sheet into overlapping tiles, fewest sheets first.

    Neighbouring tiles share a band `overlap` wide. Registration marks sit on the middle line of
    each band at the same face positions on both tiles: cut the upper/right tile along that
    line and its half-marks meet the full marks underneath.
    """
    outer = bleed + (MARK_GAP + MIN_MARK if crop_marks else 0.0)
    best = None
    for page in (paper, (paper[1], paper[0])):
        room_w, room_h = page[0] - 2 * margin - 2 * outer, page[1] - 2 * margin - 2 * outer
        if room_w <= overlap or room_h <= overlap:
            continue
        cols = max(1, -(-(face[0] - overlap) // (room_w - overlap)))
        rows = max(1, -(-(face[1] - overlap) // (room_h - overlap)))
        if best is None or cols * rows < best[0] * best[1]:
            best = (int(cols), int(rows), page)
    if best is None:
        raise DoesNotFit("the sheet is too small to tile on")
    cols, rows, page = best
    tw = (face[0] + (cols - 1) * overlap) / cols
    th = (face[1] + (rows - 1) * overlap) / rows
    tiles = []
    for row in range(rows):
        for col in range(cols):
            fx = col * (tw - overlap)
            fy = face[1] - th - row * (th - overlap)  # row 0 is the top of the face
            px, py = (page[0] - tw) / 2, (page[1] - th) / 2
            trim = Rect(px, py, tw, th)
            clip = trim.grown(
                bleed if col == 0 else 0,
                bleed if row == rows - 1 else 0,
                bleed if col == cols - 1 else 0,
                bleed if row == 0 else 0,
            )
            tiles.append(Tile(row, col, Rect(fx, fy, tw, th), page, trim, clip))
    marks = []
    for col in range(1, cols):  # vertical bands
        x = col * (tw - overlap) + overlap / 2
        n = max(2, int(face[1] // MARK_SPACING) + 1)
        marks += [(x, face[1] * (i + 0.5) / n) for i in range(n)]
    for row in range(1, rows):  # horizontal bands
        y = face[1] - row * (th - overlap) - overlap / 2  # the band's middle line
        n = max(2, int(face[0] // MARK_SPACING) + 1)
        marks += [(face[0] * (i + 0.5) / n, y) for i in range(n)]
    return TilePlan(face, rows, cols, overlap, tuple(tiles), tuple(marks))

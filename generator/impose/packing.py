"""Packing by shape: where shaped pieces (and cards sharing a sheet) go on sheets.

Each component is a *band* of pieces laid on a lattice that fits its outline:
rectangles in a grid (abutting: one cut between two cards), hexagons in offset rows (abutting:
one shared cut), circles in hexagonal rows with a gap (circles cannot share a cut), anything
else in a grid with that gap. Bands fill free rectangles of a sheet top-left first; the space
beside and below a filled block stays free for the next band (a guillotine split), so several
components share a sheet. Every orientation and several band orders are tried; the plan with
the fewest sheets wins.

All geometry is in points, origin at the sheet's bottom-left. Nothing here draws.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

from generator.impose.grid import MARK_GAP, MIN_MARK, Affine, Rect
from generator.load.shapes import Outline, Point, clip_convex
from generator.units import MM

PACK_MARK = MIN_MARK  # crop marks on shared sheets stay inside the block's ring
LABEL_ROOM = 4.0 * MM  # a strip above the bottom margin kept free for the sheet label
MAX_ORDERS = 24  # band orders tried (all of them for up to four components)


@dataclass(frozen=True)
class Band:
    """One component's pieces and how they may be laid."""

    key: str  # component id
    pieces: tuple[Any, ...]  # opaque (item, copy) records, placed in this order
    outline: Outline
    bleed: float
    gap: float  # between neighbouring trims (0: one shared cut)
    crop_marks: bool  # rectangles: crop marks around the block
    rotate: bool  # may be turned a quarter

    @property
    def ring(self) -> float:
        """Room a block needs around its trims: the bleed, plus crop marks for rectangles."""
        marks = self.crop_marks and self.outline.kind == "rect"
        return self.bleed + (MARK_GAP + PACK_MARK if marks else 0.0)


@dataclass(frozen=True)
class Lattice:
    cw: float  # cell (the piece as placed) width and height
    ch: float
    pitch: float  # horizontal distance between neighbours in a row
    row_pitch: float
    stagger: float  # odd rows shifted right by this much
    rotated: bool


def lattice(band: Band, rotated: bool) -> Lattice:
    o, g = band.outline, band.gap
    cw, ch = (o.h, o.w) if rotated else (o.w, o.h)
    if o.kind == "ellipse":  # hexagonal rows: every neighbour the same distance apart
        p = cw + g
        return Lattice(cw, ch, p, (ch + g) * math.sqrt(3) / 2, p / 2, rotated)
    if o.name == "hexagon" and o.shares_cuts:
        if _pointy(o) != rotated:  # a vertex on top: rows nest by a quarter of the height
            return Lattice(cw, ch, cw + g, 0.75 * ch + g * math.sqrt(3) / 2, (cw + g) / 2, rotated)
        # flat top: every other column, the next row half a hex lower and three quarters over
        return Lattice(
            cw, ch, 1.5 * cw + g * math.sqrt(3), ch / 2 + g / 2, 0.75 * cw + g * 0.866, rotated
        )
    return Lattice(cw, ch, cw + g, ch + g, 0.0, rotated)


def _pointy(o: Outline) -> bool:
    return any(abs(y - o.h) < 1e-6 and abs(x - o.w / 2) < 1e-6 for x, y in o.vertices)


@dataclass
class Placed:
    band: Band
    piece: Any
    trim: Rect  # the cell on the sheet
    front: Affine  # face coordinates -> sheet
    rotated: bool
    block: int  # which block of the sheet (one band's run in one free rectangle)
    row: int
    col: int
    clip: list[Point] = field(default_factory=list)  # how far this piece's bleed may reach


@dataclass
class Block:
    band: Band
    rect: Rect  # the block's trims plus its ring
    placed: list[Placed]


@dataclass
class Sheet:
    paper: tuple[float, float]
    free: list[Rect]
    blocks: list[Block] = field(default_factory=list)

    @property
    def placed(self) -> list[Placed]:
        return [p for b in self.blocks for p in b.placed]


def _fill(band: Band, lat: Lattice, region: Rect, pieces: list, block_no: int) -> Block | None:
    """Lay as many pieces as fit in `region` on one lattice, rows from the top."""
    ring = band.ring
    # Termination: each row moves down by row_pitch, each column right by pitch; a piece of
    # no size (a negative diameter the model let through) would loop forever.
    if not (lat.cw > 0 and lat.ch > 0 and lat.pitch > 0 and lat.row_pitch > 0):
        raise ValueError(f"piece of no size ({lat.cw:g} x {lat.ch:g} pt) cannot be packed")
    if not all(math.isfinite(v) for v in (lat.cw, lat.ch, lat.pitch, lat.row_pitch, lat.stagger)):
        raise ValueError("piece size is not finite")
    x0, top = region.x + ring, region.y + region.h - ring
    room_w, floor = region.w - 2 * ring, region.y + ring
    stagger = lat.stagger
    counts = [_per_row(room_w, lat, 0.0), _per_row(room_w, lat, stagger)]
    row_pitch = lat.row_pitch
    if stagger and (counts[1] == 0 or counts[0] == 0):  # one column: stack without nesting
        stagger, counts = 0.0, [counts[0], counts[0]]
        row_pitch = lat.ch + band.gap
    if counts[0] == 0:
        return None
    placed, row, i = [], 0, 0
    while i < len(pieces):
        y = top - row * row_pitch - lat.ch
        if y < floor - 1e-6:
            break
        off = stagger if row % 2 else 0.0
        for col in range(counts[row % 2]):
            if i >= len(pieces):
                break
            x = x0 + off + col * lat.pitch
            front = (0.0, 1.0, -1.0, 0.0, x + lat.cw, y) if lat.rotated else (1, 0, 0, 1, x, y)
            placed.append(
                Placed(
                    band,
                    pieces[i],
                    Rect(x, y, lat.cw, lat.ch),
                    front,
                    lat.rotated,
                    block_no,
                    row,
                    col,
                )
            )
            i += 1
        row += 1
    if not placed:
        return None
    right = max(p.trim.x + p.trim.w for p in placed) + ring
    bottom = min(p.trim.y for p in placed) - ring
    return Block(
        band, Rect(region.x, bottom, right - region.x, region.y + region.h - bottom), placed
    )


def _per_row(room_w: float, lat: Lattice, offset: float) -> int:
    if not room_w - offset >= lat.cw - 1e-6:  # (NaN: none)
        return 0
    more = (room_w - offset - lat.cw + 1e-6) // lat.pitch
    # a pitch far below the room (1e-300 pt) gives an infinite count: more than any band holds
    return int(min(more, MAX_PER_ROW)) + 1


MAX_PER_ROW = 1 << 30


def printable(paper: tuple[float, float], margin: float) -> Rect:
    W, H = paper
    return Rect(margin, margin + LABEL_ROOM, W - 2 * margin, H - 2 * margin - LABEL_ROOM)


def _pack_order(bands: list[Band], paper, margin: float, tall: bool, best_fit: bool) -> list[Sheet]:
    sheets: list[Sheet] = []
    for band in bands:
        pieces = list(band.pieces)
        sheet_no = 0
        while pieces:
            if sheet_no == len(sheets):
                sheets.append(Sheet(paper, [printable(paper, margin)]))
            sheet = sheets[sheet_no]
            placed_here = False
            fits = [
                (k, region, block)
                for k, region in enumerate(sheet.free)
                if (block := _best_block(band, region, pieces, len(sheet.blocks)))
            ]
            if (
                fits
            ):  # the first region, or the one taking the most pieces (of equals, the smallest)
                k, region, block = (
                    max(fits, key=lambda f: (len(f[2].placed), -f[1].w * f[1].h))
                    if best_fit
                    else fits[0]
                )
                sheet.blocks.append(block)
                pieces = pieces[len(block.placed) :]
                sheet.free[k : k + 1] = _split(region, block.rect, tall)
                placed_here = True
            if not placed_here:
                if not sheet.blocks:  # an empty sheet cannot hold one piece
                    raise ValueError(band.key)
                sheet_no += 1
    return sheets


def _best_block(band: Band, region: Rect, pieces: list, block_no: int) -> Block | None:
    best = None
    for rotated in (False, True) if band.rotate else (False,):
        block = _fill(band, lattice(band, rotated), region, pieces, block_no)
        if block and (best is None or _better(block, best)):
            best = block
    return best


def _better(a: Block, b: Block) -> bool:
    """More pieces, or as many in less room."""
    if len(a.placed) != len(b.placed):
        return len(a.placed) > len(b.placed)
    return a.rect.w * a.rect.h < b.rect.w * b.rect.h - 1e-6


def _split(region: Rect, used: Rect, tall: bool) -> list[Rect]:
    """The free space left beside and below a block placed at a region's top-left: either the
    space beside it runs down the whole region (`tall`) or the space below runs across it."""
    out = []
    right_w = region.x + region.w - (used.x + used.w)
    below_h = used.y - region.y
    if right_w > 1e-6:
        y0 = region.y if tall else used.y
        out.append(Rect(used.x + used.w, y0, right_w, region.y + region.h - y0))
    if below_h > 1e-6:
        out.append(Rect(region.x, region.y, used.w if tall else region.w, below_h))
    return out


class DoesNotFit(ValueError):
    pass


def pack(bands: list[Band], paper: tuple[float, float], margin: float) -> list[Sheet]:
    """Every piece of every band on as few sheets as this packer finds.

    It ends on any input. `_fill` places a piece per column step, and ends a row once every
    piece is placed or none fits. A piece of no size, or of a size that is not finite, is
    refused first, so a row always moves down. `_pack_order` ends because each step either
    places a piece, or moves to the next sheet. A fresh sheet that takes no piece is refused
    (DoesNotFit). The orders tried are at most 4 x (1 + MAX_ORDERS).
    tests/test_security_round3.py tries any sizes at all."""
    bands = [b for b in bands if b.pieces]
    if not bands:
        return []
    for b in bands:  # a negative bleed or gap would lay pieces off the sheet
        if not all(math.isfinite(v) and v >= 0 for v in (b.bleed, b.gap)):
            raise DoesNotFit(f"{b.key}: bleed {b.bleed:g} pt, gap {b.gap:g} pt: not sizes")
    best: list[Sheet] | None = None
    orders = itertools.islice(itertools.permutations(bands), MAX_ORDERS)
    tries = itertools.product([list(bands), *map(list, orders)], (False, True), (False, True))
    for order, tall, best_fit in tries:
        try:
            sheets = _pack_order(order, paper, margin, tall, best_fit)
        except ValueError as exc:
            raise DoesNotFit(str(exc)) from None
        if best is None or _score(sheets) < _score(best):
            best = sheets
    assert best is not None
    for sheet in best:
        if len(sheet.blocks) == 1:
            _centre(sheet, margin)
        _clips(sheet)
    return best


def _score(sheets: list[Sheet]) -> tuple[int, float]:
    """Fewest sheets first, then the least height used on the last one."""
    last = sheets[-1]
    top = max(r.y + r.h for r in [*last.free, *(b.rect for b in last.blocks)])
    return len(sheets), top - min(b.rect.y for b in last.blocks)


def _centre(sheet: Sheet, margin: float) -> None:
    """A sheet holding one block: centre it in the printable area."""
    area, block = printable(sheet.paper, margin), sheet.blocks[0]
    dx = area.x + (area.w - block.rect.w) / 2 - block.rect.x
    dy = area.y + (area.h - block.rect.h) / 2 - block.rect.y
    block.rect = Rect(block.rect.x + dx, block.rect.y + dy, block.rect.w, block.rect.h)
    for p in block.placed:
        p.trim = Rect(p.trim.x + dx, p.trim.y + dy, p.trim.w, p.trim.h)
        a, b, c, d, e, f = p.front
        p.front = (a, b, c, d, e + dx, f + dy)


def _clips(sheet: Sheet) -> None:
    """Each piece's bleed reaches at most halfway to each neighbour's outline, so neighbours
    never paint over each other and abutting pieces meet exactly on their shared cut."""
    placed = sheet.placed
    for p in placed:
        b = p.band.bleed
        box = p.trim.grown(b, b, b, b)
        poly = [
            (box.x, box.y),
            (box.x + box.w, box.y),
            (box.x + box.w, box.y + box.h),
            (box.x, box.y + box.h),
        ]
        cx, cy = p.trim.x + p.trim.w / 2, p.trim.y + p.trim.h / 2
        for q in placed:
            if q is p:
                continue
            qb = q.trim.grown(q.band.bleed, q.band.bleed, q.band.bleed, q.band.bleed)
            if not _overlap(box, qb):
                continue
            qx, qy = q.trim.x + q.trim.w / 2, q.trim.y + q.trim.h / 2
            dx, dy = qx - cx, qy - cy
            dist = math.hypot(dx, dy)
            if dist < 1e-6:
                continue
            ra, rb = _reach(p, dx, dy), _reach(q, -dx, -dy)
            cut = ra + (dist - ra - rb) / 2  # the middle of the gap between the two outlines
            ux, uy = dx / dist, dy / dist
            poly = clip_convex(poly, ux, uy, ux * cx + uy * cy + cut)
        p.clip = poly


def _reach(p: Placed, dx: float, dy: float) -> float:
    """How far the piece's outline reaches from its centre in a sheet direction."""
    if p.rotated:  # sheet direction -> face direction (the face is turned a quarter left)
        dx, dy = dy, -dx
    return p.band.outline.reach(dx, dy)


def _overlap(a: Rect, b: Rect) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def naive_grid_count(band: Band, paper: tuple[float, float], margin: float) -> int:
    """How many pieces a plain grid of their boxes holds (for comparison in tests and docs)."""
    area = printable(paper, margin)
    room_w, room_h = area.w - 2 * band.ring, area.h - 2 * band.ring
    o, g = band.outline, band.gap
    return int((room_w + g) // (o.w + g)) * int((room_h + g) // (o.h + g))

"""Sheet geometry for every card preset on A4 and Letter, and the back transform."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT

from generator.impose import grid as impose
from generator.units import MM, parse_length

PAPERS = {
    k: (parse_length(v["w"]).points, parse_length(v["h"]).points)
    for k, v in yaml.safe_load((ROOT / "templates/paper.yaml").read_text()).items()
}
SIZES = {
    k: (parse_length(v["w"]).points, parse_length(v["h"]).points)
    for k, v in yaml.safe_load((ROOT / "templates/card-sizes.yaml").read_text()).items()
}
PRESETS = ["poker", "bridge", "mini", "tarot", "square"]


def grid(paper="a4", size="poker", **kw):
    args = dict(bleed=3 * MM, margin=5 * MM)
    args.update(kw)
    return impose.plan(PAPERS[paper], SIZES[size], **args)


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("size", PRESETS)
def test_every_preset_fits_inside_the_safe_margin(paper, size):
    g = grid(paper, size)
    W, H = PAPERS[paper]
    bb = g.bleed_box
    assert bb.x >= 5 * MM - 1e-6 and bb.y >= 5 * MM - 1e-6
    assert bb.x + bb.w <= W - 5 * MM + 1e-6 and bb.y + bb.h <= H - 5 * MM + 1e-6
    for x1, y1, x2, y2 in g.marks():
        for x, y in ((x1, y1), (x2, y2)):
            assert (
                5 * MM - 1e-6 <= x <= W - 5 * MM + 1e-6 and 5 * MM - 1e-6 <= y <= H - 5 * MM + 1e-6
            )
        # marks start outside the bleed: they never touch the art
        assert not (bb.x < x1 < bb.x + bb.w and bb.y < y1 < bb.y + bb.h)
        assert abs(x2 - x1) + abs(y2 - y1) >= 2 * MM - 1e-6


@pytest.mark.parametrize(
    "paper,size,count",
    [
        ("a4", "poker", 9),
        ("a4", "bridge", 9),
        ("a4", "mini", 18),
        ("a4", "tarot", 4),
        ("a4", "square", 6),
        ("letter", "poker", 8),
        ("letter", "mini", 16),
    ],
)
def test_cards_per_sheet(paper, size, count):
    assert grid(paper, size).per_sheet == count


def test_shared_bleed_only_on_the_outer_edges():
    g = grid()
    slots = g.slots()
    centre = next(s for s in slots if s.col == 1 and s.row == 1)
    assert centre.clip == centre.trim  # abutting cards: no bleed inside the grid
    corner = next(s for s in slots if s.col == 0 and s.row == 0)
    assert corner.clip.x == pytest.approx(corner.trim.x - 3 * MM)
    assert corner.clip.y + corner.clip.h == pytest.approx(corner.trim.y + corner.trim.h + 3 * MM)
    assert corner.clip.x + corner.clip.w == pytest.approx(corner.trim.x + corner.trim.w)


def test_gutter_gives_each_card_its_bleed_back():
    g = grid(size="mini", gutter=6 * MM)
    s = next(s for s in g.slots() if s.col == 1 and s.row == 1)
    assert s.clip.w == pytest.approx(s.trim.w + 6 * MM)


def _corners(m, w, h):
    return [impose.apply(m, x, y) for x, y in ((0, 0), (w, 0), (0, h), (w, h))]


@pytest.mark.parametrize("paper", ["a4", "letter"])
@pytest.mark.parametrize("duplex", ["long-edge", "short-edge"])
def test_back_is_the_physical_mirror_of_the_front(paper, duplex):
    """Each point of a card's back sits on the same spot of paper as the same point seen through."""
    g = grid(paper)
    W, H = PAPERS[paper]
    w, h = g.face
    for slot in g.slots():
        back = g.back_transform(slot, duplex, (0.0, 0.0))
        for u, v in ((0, 0), (w, 0), (0, h), (10, 20)):
            fx, fy = impose.apply(slot.front, u, v)
            # seen from the back, the card's point (u, v) is at (w - u, v)
            bx, by = impose.apply(back, w - u, v)
            if duplex == "long-edge":
                assert (bx, by) == pytest.approx((W - fx, fy))
            else:
                assert (bx, by) == pytest.approx((fx, H - fy))


def test_back_offset_moves_every_back():
    g = grid()
    slot = g.slots()[0]
    plain = g.back_transform(slot, "long-edge", (0, 0))
    moved = g.back_transform(slot, "long-edge", (1 * MM, -0.5 * MM))
    assert impose.apply(moved, 0, 0)[0] - impose.apply(plain, 0, 0)[0] == pytest.approx(1 * MM)
    assert impose.apply(moved, 0, 0)[1] - impose.apply(plain, 0, 0)[1] == pytest.approx(-0.5 * MM)


def test_face_bigger_than_the_sheet_is_refused_clearly():
    with pytest.raises(impose.DoesNotFit, match="does not fit"):
        impose.plan(PAPERS["a4"], (300 * MM, 400 * MM), bleed=3 * MM, margin=5 * MM)


def test_part_filled_sheet_gives_bleed_towards_empty_neighbours():
    g = grid()
    slots = g.slots()
    last = slots[6]  # bottom-left, alone on the last row of a sheet holding 7 cards
    occupied = {(s.col, s.row) for s in slots[:7]}
    clip = g.clip_for(last, occupied)
    assert clip.x + clip.w == pytest.approx(
        last.trim.x + last.trim.w + 3 * MM
    )  # right neighbour empty
    assert clip.y + clip.h == pytest.approx(last.trim.y + last.trim.h)  # card above: shared cut
    full = {(s.col, s.row) for s in slots}
    assert g.clip_for(slots[4], full) == slots[4].clip

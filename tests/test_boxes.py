"""The box-kind registry: one module per kind, registered once; docs and model follow it;
drawing and checking share one walk."""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest
from conftest import ROOT

from generator.render import boxes
from generator.render.boxes import KINDS, Layout, readme_table
from generator.render.boxes.base import ORDER


def test_the_docs_box_table_is_the_registry():
    layouts = (ROOT / "docs" / "layouts.md").read_text()
    match = re.search(r"<!-- box kinds:[^\n]*-->\n(.*?)\n<!-- /box kinds -->", layouts, re.S)
    assert match, "docs/layouts.md has no generated box table"
    assert match.group(1).strip() == readme_table().strip()


def test_every_kind_is_one_module_registered_once():
    folder = Path(boxes.__file__).parent
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "base", "walk", "fitness"}
    assert set(boxes.MODULES) == modules
    owners = [kind.draw.__module__ for kind in ORDER]
    assert len(owners) == len(set(owners)) == len(modules)  # one kind entry per module
    assert list(KINDS) == boxes.BOX_KINDS


def test_layout_union_comes_from_the_registry():
    union = Layout.model_fields["boxes"].annotation
    (inner,) = typing.get_args(union)
    models = set(typing.get_args(typing.get_args(inner)[0]))
    assert models == {kind.model for kind in ORDER}
    for name, kind in KINDS.items():
        box = Layout.model_validate({"boxes": [_minimal(name)]}).boxes[0]
        assert isinstance(box, kind.model)


def _minimal(kind: str) -> dict:
    extra = {
        "text": {"text": "x"},
        "line": {"x2": 1, "y2": 1},
        "polygon": {"points": [[0, 0], [1, 1]]},
        "image": {"src": "a.png"},
        "svg": {"src": "a.svg"},
        "slots": {"n": 1},
        "repeat": {"over": "xs", "layout": "l"},
    }
    return {"kind": kind, **extra.get(kind, {})}


def test_draw_and_check_walk_the_same_boxes(games):
    """The one walk: every box the checker sees is placed exactly where the printer draws it
    (the same rectangle, bleed and rotation included), repeat cells too."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.render.engine import FaceRenderer

    seen: dict[str, list] = {"draw": [], "check": []}
    originals = [(k, k.draw, k.check) for k in ORDER]

    def spy(mode, fn):
        def inner(renderer, *args):
            placed = args[-1]
            seen[mode].append((placed.label, _round(placed.rect), _round(placed.on_face)))
            return fn(renderer, *args) if fn else []

        return inner

    try:
        for kind, draw, check in originals:  # BoxKind is frozen: patched for this test only
            object.__setattr__(kind, "draw", spy("draw", draw))
            object.__setattr__(kind, "check", spy("check", check))
        for content in games:
            renderer = FaceRenderer(content, content.languages[0])
            for comp in content.components:
                w, h = comp.size_pt
                item = comp.items[0]
                ctx = renderer.context(comp, item)
                canvas = Canvas("/dev/null", pagesize=(w + 20, h + 20))
                renderer.draw(canvas, item.layout, ctx, w, h, 8.5)
                renderer.check(item.layout, ctx, w, h, {"file": "x"}, 8.5)
    finally:
        for kind, draw, check in originals:
            object.__setattr__(kind, "draw", draw)
            object.__setattr__(kind, "check", check)
    labels = [label for label, _, _ in seen["draw"]]
    assert any("[" in label for label in labels)  # repeat cells were walked
    assert seen["draw"] and seen["draw"] == seen["check"]


def _round(r):
    return (round(r.x, 3), round(r.y, 3), round(r.w, 3), round(r.h, 3))


@pytest.fixture
def games():
    from generator.load.content import load_game
    from generator.load.project import Project

    return [load_game(Project(ROOT), g) for g in ("dogfight", "red-code", "the-hunt-begins")]

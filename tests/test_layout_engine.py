"""Every box kind drawn by the one layout engine, checked by pixels on a rendered page."""

from __future__ import annotations

import pytest
from conftest import copy_templates, run_pnp
from pdfutil import crop_mm, ink, render
from PIL import Image

LAYOUT = """\
extends: test/base
boxes:
  - {id: square, kind: rect, x: 5, y: 5, w: 10, h: 10, fill: "#ff0000"}
  - {id: pill, kind: rect, x: 20, y: 5, w: 20, h: 10, radius: 4mm, fill: "#00aa00"}
  - {id: disc, kind: circle, x: 45, y: 5, w: 10, h: 10, fill: "#0000ff"}
  - {id: rule, kind: line, x: 5, y: 20, x2: 75, y2: 20, stroke: "#000000", stroke_width: 4pt}
  - {id: tri, kind: polygon, x: 60, y: 5, w: 15, h: 12, points: [[0, 100], [50, 0], [100, 100]],
     fill: "#ff8800"}
  - {id: photo, kind: image, src: art/photo.png, x: 5, y: 25, w: 20, h: 20, fit: stretch}
  - {id: vector, kind: svg, src: art/mark.svg, x: 30, y: 25, w: 20, h: 20,
     params: {hue: "{{ hue }}"}}
  - {id: track, kind: slots, n: "{{ cost }}", x: 5, y: 50, w: 70, h: 8, gap: 2mm, fill: "#222222"}
  - {id: label, kind: text, text: "{{ word }} :dot:", x: 5, y: 62, w: 70, h: 12, size: 24pt,
     min_size: 6pt}
  - {id: hidden, if: "cost > 99", kind: rect, x: 55, y: 25, w: 20, h: 20, fill: "#ff00ff"}
"""
BASE = """\
background: "#ffffff"
boxes:
  - {id: corner, kind: rect, x: 75, y: 75, w: 5, h: 5, fill: "#00ffff"}
"""
SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="10">'
    '<rect x="0" y="0" width="10" height="10" fill="{{ hue }}"/></svg>'
)
DOT = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="10">'
    '<circle cx="5" cy="5" r="5" fill="{{ color }}"/></svg>'
)


@pytest.fixture
def project(tmp_path):
    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "templates/layouts/test").mkdir()
    (root / "templates/layouts/test/all.yaml").write_text(LAYOUT)
    (root / "templates/layouts/test/base.yaml").write_text(BASE)
    game = root / "content/demo"
    (game / "components").mkdir(parents=True)
    (game / "art").mkdir()
    Image.new("RGB", (300, 300), (200, 0, 200)).save(game / "art/photo.png", dpi=(300, 300))
    (game / "art/mark.svg").write_text(SVG)
    (game / "art/dot.svg").write_text(DOT)
    (game / "game.yaml").write_text(
        "id: demo\ntitle: Demo\nlanguages: [en]\nicons: {dot: art/dot.svg}\n"
        "print: {papers: [a4], one_per_page: true, bleed: 0mm}\n"
    )
    (game / "components/tiles.yaml").write_text(
        "id: tiles\nname: Tiles\nsize: {w: 80mm, h: 80mm}\nlayout: test/all\n"
        "items:\n  - {id: one, data: {cost: 4, hue: '#118811', word: Hello}}\n"
    )
    (game / "manifest.yaml").write_text("components: {tiles: 1}\n")
    return root


def colour_at(img, x_mm, y_top_mm, dpi=100, size=80):
    """Mean colour of a 1 mm square at (x, y) measured from the face's top-left."""
    region = crop_mm(img, size, dpi, x_mm - 0.5, size - y_top_mm - 0.5, 1, 1)
    pixels = list(region.get_flattened_data())
    return tuple(round(sum(c) / len(pixels)) for c in zip(*pixels, strict=True))


def test_every_box_kind_lands_where_the_layout_puts_it(project):
    run_pnp(project, "print", check=True)
    img = render(project / "output/demo/en/print-shop/tiles.pdf", 1, dpi=100)

    def near(got, want):
        return all(abs(a - b) <= 30 for a, b in zip(got, want, strict=True))

    assert near(colour_at(img, 10, 10), (255, 0, 0))  # rect
    assert near(colour_at(img, 30, 10), (0, 170, 0))  # rounded rect, centre
    assert near(colour_at(img, 20.3, 5.3), (255, 255, 255))  # its rounded corner is empty
    assert near(colour_at(img, 50, 10), (0, 0, 255))  # circle
    assert near(colour_at(img, 40, 20), (0, 0, 0))  # line
    assert near(colour_at(img, 67.5, 14), (255, 136, 0))  # polygon, inside the triangle
    assert near(colour_at(img, 61, 6), (255, 255, 255))  # outside the triangle
    assert near(colour_at(img, 15, 35), (200, 0, 200))  # PNG
    assert near(colour_at(img, 40, 35), (17, 136, 17))  # SVG recoloured by its params
    assert near(colour_at(img, 65, 35), (255, 255, 255))  # `if:` false: not drawn
    assert near(colour_at(img, 77.5, 77.5), (0, 255, 255))  # the parent layout's box (extends)
    # slots: 4 boxes of 8 mm with 2 mm gaps from x = 5: dark at 9, 19, 29, 39; light at 14 and 45
    for x in (9, 19, 29, 39):
        assert near(colour_at(img, x, 54), (34, 34, 34)), x
    for x in (14, 50):
        assert near(colour_at(img, x, 54), (255, 255, 255)), x
    text = crop_mm(img, 80, 100, 5, 80 - 74, 70, 12)
    assert ink(text, 128) > 0.03


def test_text_shrinks_to_fit_and_reports_what_cannot(project):
    comp = project / "content/demo/components/tiles.yaml"
    comp.write_text(comp.read_text().replace("word: Hello", "word: " + "Shrink " * 12))
    result = run_pnp(project, "check")
    assert result.returncode == 0, result.stdout  # 24 pt does not fit, a smaller size does
    comp.write_text(comp.read_text().replace("Shrink " * 12, "Overflowing " * 40))
    result = run_pnp(project, "check")
    assert (
        result.returncode == 1
        and "text-overflow" in result.stdout
        and "box 'label'" in result.stdout
    )


def test_low_resolution_art_is_a_warning(project):
    Image.new("RGB", (60, 60), (200, 0, 200)).save(project / "content/demo/art/photo.png")
    result = run_pnp(project, "check")
    assert result.returncode == 0
    assert "low-dpi" in result.stdout and "76 dpi" in result.stdout

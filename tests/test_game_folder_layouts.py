"""A game in one folder: layouts in content/<game>/layouts/, searched before templates/layouts/.

The game's own layouts win over a shared one of the same name, may extend the shared bases
kept in templates/layouts/, and a target's key covers only the layouts it resolves.
"""

from __future__ import annotations

import json
import re

from conftest import run_pnp
from pdfutil import reader

GAME = "content/mini"
FILES = {
    f"{GAME}/game.yaml": "id: mini\ntitle: Mini\nlanguages: [en]\nprint: {papers: [a4]}\n",
    f"{GAME}/components/cards.yaml": (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\n"
        "items:\n  - {id: a, data: {word: alpha}}\n  - {id: b, data: {word: beta}}\n"
    ),
    f"{GAME}/manifest.yaml": "components: {cards: 2}\n",
    # the game's own layout, extending a shared base
    f"{GAME}/layouts/mini/card.yaml": (
        "extends: shared/base\nboxes:\n"
        '  - {id: word, kind: text, text: "OWN {{ word }}", x: 5, y: 20, w: 53, h: 12, '
        "size: 12pt}\n"
    ),
    "templates/layouts/shared/base.yaml": (
        'background: "#ffffff"\nboxes:\n'
        '  - {id: banner, kind: text, text: "SHARED BASE", x: 5, y: 5, w: 53, h: 10, '
        "size: 10pt}\n"
    ),
    # same name in templates/: shadowed by the game's own, so never read for this game
    "templates/layouts/mini/card.yaml": (
        'boxes:\n  - {id: word, kind: text, text: "TEMPLATES {{ word }}", x: 5, y: 20, '
        "w: 53, h: 12, size: 12pt}\n"
    ),
}


def _text(root) -> str:
    pdf = reader.__wrapped__(root / "output/mini/en/cards-a4.pdf")
    return " ".join(page.extract_text() for page in pdf.pages)


def _built(result) -> int:
    return int(re.search(r"(\d+) of \d+ files? built", result.stdout).group(1))


def test_game_layouts_are_found_first_and_extend_shared_bases(make_project):
    root = make_project(FILES)
    run_pnp(root, "print", check=True)
    text = _text(root)
    assert "OWN alpha" in text and "OWN beta" in text
    assert "SHARED BASE" in text  # the base still comes from templates/layouts/
    assert "TEMPLATES" not in text  # the shadowed shared layout is not used
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    assert [f["path"] for f in manifest["files"]] == ["output/mini/en/cards-a4.pdf"]


def test_a_target_hashes_only_the_layouts_it_resolves(make_project):
    root = make_project(FILES)
    run_pnp(root, "print", check=True)
    assert _built(run_pnp(root, "print", check=True)) == 0
    # a layout the game does not resolve (shadowed): nothing to rebuild
    shadowed = root / "templates/layouts/mini/card.yaml"
    shadowed.write_text(shadowed.read_text().replace("TEMPLATES", "CHANGED"))
    assert _built(run_pnp(root, "print", check=True)) == 0
    # the shared base it extends, and its own layout: rebuilt each time
    base = root / "templates/layouts/shared/base.yaml"
    base.write_text(base.read_text().replace("SHARED BASE", "SHARED BASE 2"))
    assert _built(run_pnp(root, "print", check=True)) == 1
    assert "SHARED BASE 2" in _text(root)
    own = root / f"{GAME}/layouts/mini/card.yaml"
    own.write_text(own.read_text().replace("OWN", "MINE"))
    assert _built(run_pnp(root, "print", check=True)) == 1
    assert "MINE alpha" in _text(root)


def test_todays_locations_keep_working(make_project):
    """A game whose layouts are all under templates/layouts/ (the four kits today) builds."""
    files = {k: v for k, v in FILES.items() if "/layouts/mini/" not in k or "templates" in k}
    root = make_project(files)
    run_pnp(root, "print", check=True)
    assert "TEMPLATES alpha" in _text(root)

"""Red Code's kit, checked on the built PDFs: counts from the build manifest, control cards,
fonts."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml
from conftest import ROOT
from fontTools.ttLib import TTFont
from pdfutil import fonts, reader

GAME = ROOT / "content/red-code"
RULEBOOK_COUNTS = {
    "map-cards": 15,
    "order-cards": 30,
    "control-cards": 6,
    "score-card": 1,
    "tokens": 18 + 18 + 36 + 2,
    "ship-pieces": 6,
}


def fronts(manifest, component, lang, paper="a4"):
    path = f"output/red-code/{lang}/{component}-{paper}.pdf"
    return [
        slot
        for s in manifest["sheets"]
        if s["file"] == path and s["side"] == "front"
        for slot in s["slots"]
    ]


@pytest.mark.parametrize("lang", ["es", "ko", "en"])
def test_front_counts_equal_the_rulebook(built, lang):
    manifest = built.manifest("red-code")
    for component, count in RULEBOOK_COUNTS.items():
        assert len(fronts(manifest, component, lang)) == count, component
    tokens = Counter(s["item"] for s in fronts(manifest, "tokens", lang))
    assert tokens == {"breakdown-cube": 18, "repair-cube": 18, "crew-cube": 36, "score-token": 2}
    teams = Counter(s["item"].split("-")[1] for s in fronts(manifest, "control-cards", lang))
    assert teams == {"blue": 3, "red": 3}


def test_every_control_card_has_4_common_and_4_unique_and_all_16_are_used():
    maneuvers = yaml.safe_load((GAME / "data/maneuvers.yaml").read_text())
    ships = yaml.safe_load((GAME / "data/ships.yaml").read_text())
    ids = [m["id"] for m in maneuvers]
    assert len(ids) == len(set(ids)) == 16
    common = ships["common"]
    assert len(common) == 4
    used = set(common)
    for ship in ("submarine", "destroyer", "carrier"):
        unique = ships[ship]["unique"]
        assert len(unique) == 4 and not set(unique) & set(common)
        used |= set(unique)
    assert used == set(ids)


@pytest.mark.parametrize("lang", ["es", "ko", "en"])
def test_each_printed_control_card_shows_its_8_maneuvers(built, lang):
    maneuvers = {m["id"]: m for m in yaml.safe_load((GAME / "data/maneuvers.yaml").read_text())}
    ships = yaml.safe_load((GAME / "data/ships.yaml").read_text())
    manifest = built.manifest("red-code")
    export = next(
        f
        for f in manifest["files"]
        if f.get("format") == "print-shop"
        and f.get("component") == "control-cards"
        and f["lang"] == lang
    )
    pages = [s for s in manifest["sheets"] if s["file"] == export["path"] and s["side"] == "front"]
    assert len(pages) == 6
    pdf = reader.__wrapped__(built.path(export["path"]))
    for sheet in pages:
        ship = sheet["slots"][0]["item"].split("-")[0]
        text = " ".join(pdf.pages[sheet["page"] - 1].extract_text().split())
        names = [maneuvers[m]["name"][lang] for m in ships["common"] + ships[ship]["unique"]]
        for name in names:
            assert name in text, (ship, name)
        others = {maneuvers[m]["name"][lang] for m in maneuvers} - set(names)
        assert not [n for n in others if f" {n} " in f" {text} " and not any(n in x for x in names)]


def test_korean_pdfs_fonts_cover_all_their_text(built):
    cmap = set(TTFont(ROOT / "templates/fonts/PnPGothic-Regular.ttf").getBestCmap())
    manifest = built.manifest("red-code")
    checked = 0
    for f in manifest["files"]:
        if f["lang"] != "ko" or f["kind"] not in ("components", "export"):
            continue
        if not f["path"].endswith(".pdf"):
            continue
        path = built.path(f["path"])
        assert {str(font["/BaseFont"]).split("+")[-1] for font in fonts(path)} <= {
            "PnPGothic-Regular",
            "PnPGothic-Bold",
            "PnPGothic-ExtraBold",
        }
        text = "".join(page.extract_text() for page in reader.__wrapped__(path).pages)
        hangul = [c for c in text if "\uac00" <= c <= "\ud7a3"]
        if f["component"] != "tokens":
            assert hangul, f["path"]
        missing = {c for c in text if not c.isspace() and ord(c) not in cmap}
        assert not missing, (f["path"], missing)
        checked += 1
    assert checked >= 6

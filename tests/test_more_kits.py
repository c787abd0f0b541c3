"""Sub Zero and The Hunt Begins: counts from the build manifest, and the real tiled board."""

from __future__ import annotations

from collections import Counter

import pytest
import yaml
from conftest import ROOT

from generator.load.content import load_game
from generator.load.project import Project

ISSUE_COUNTS = {
    "sub-zero": {
        "action-cards": 56,
        "player-boards": 4,
        "pawns": 4,
        "hit-markers": 60,
        "snowball-markers": 16,
        "battle-board": 1,
    }
}


def printed(manifest, game, lang):
    """(component, item, copy) of every front printed on A4 in `lang`: a tiled board counts once."""
    seen = set()
    for sheet in manifest["sheets"]:
        if (
            sheet["side"] != "front"
            or not sheet["file"].endswith("-a4.pdf")
            or f"/{lang}/" not in sheet["file"]
        ):
            continue
        for slot in sheet["slots"]:
            seen.add((slot["component"], slot["item"], slot["copy"]))
    return seen


@pytest.mark.parametrize("game", ["sub-zero", "the-hunt-begins"])
@pytest.mark.parametrize("lang", ["es", "en", "ko"])
def test_printed_counts_match_the_deck_manifest(built, game, lang):
    manifest = built.manifest(game)
    deck = yaml.safe_load((ROOT / f"content/{game}/manifest.yaml").read_text())["components"]
    got = Counter(component for component, _, _ in printed(manifest, game, lang))
    want = {c: (v["count"] if isinstance(v, dict) else v) for c, v in deck.items()}
    assert dict(got) == want
    for component, count in ISSUE_COUNTS.get(game, {}).items():
        assert got[component] == count, component
    content = load_game(Project(built.root), game)
    for comp in content.components:  # every item printed as many times as the content says
        per_item = Counter(item for c, item, _ in printed(manifest, game, lang) if c == comp.id)
        assert per_item == {item.id: item.count for item in comp.items}, comp.id


def test_sub_zero_hit_markers_are_15_per_player(built):
    content = load_game(Project(built.root), "sub-zero")
    comp = content.component("hit-markers")
    per_player = Counter()
    for item in comp.items:
        per_player[item.data.get("player")] += item.count
    assert per_player == {"storm": 15, "smilla": 15, "icy": 15, "krystal": 15}


def test_sub_zero_board_tiles_line_up(built):
    manifest = built.manifest("sub-zero")
    for paper in ("a4", "letter"):
        path = f"output/sub-zero/es/battle-board-{paper}.pdf"
        sheets = {
            (s["slots"][0]["tile"]["row"], s["slots"][0]["tile"]["col"]): s
            for s in manifest["sheets"]
            if s["file"] == path
        }
        assert len(sheets) >= 2
        pairs = 0
        for (row, col), sheet in sheets.items():
            for other in ((row, col + 1), (row + 1, col)):
                if other not in sheets:
                    continue
                a, b = sheet["slots"][0], sheets[other]["slots"][0]

                def face(s, sl):
                    return {
                        (
                            round(x - sl["x"] + sl["tile"]["face_x"], 2),
                            round(y - sl["y"] + sl["tile"]["face_y"], 2),
                        )
                        for x, y in s["marks"]
                    }

                band = (
                    max(a["tile"]["face_x"], b["tile"]["face_x"]),
                    max(a["tile"]["face_y"], b["tile"]["face_y"]),
                    min(
                        a["tile"]["face_x"] + a["tile"]["face_w"],
                        b["tile"]["face_x"] + b["tile"]["face_w"],
                    ),
                    min(
                        a["tile"]["face_y"] + a["tile"]["face_h"],
                        b["tile"]["face_y"] + b["tile"]["face_h"],
                    ),
                )

                # marks on the band's middle line, on the face or beyond its outer edges
                side_by_side = other == (row, col + 1)

                def inside(m, band=band, sbs=side_by_side):
                    if sbs:
                        return band[0] - 0.01 <= m[0] <= band[2] + 0.01
                    return band[1] - 0.01 <= m[1] <= band[3] + 0.01

                marks_a = {m for m in face(sheet, a) if inside(m)}
                marks_b = {m for m in face(sheets[other], b) if inside(m)}
                assert marks_a and marks_a == marks_b
                pairs += 1
        assert pairs >= 2

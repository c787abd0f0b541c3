"""A component's `kind` is a free label for the designer's templates: pnp never acts on it.

The TTS export decides deck, board or tile from the face (or the export's `as:`), the rulebook's
board() tells pieces from the board by the components its cells name, and the guide's assembly
steps come from outlines, fold lines and tiling. An AST scan keeps it so; a renamed kind changes
nothing.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import yaml
from conftest import ROOT, only_languages, python_tree, run_pnp, without_rulebooks

GENERATOR = ROOT / "generator"


def kind_labels() -> set[str]:
    """Every `kind:` a real game's components use, and the examples the model documents."""
    labels = {"card", "tile", "board", "token", "standee"}
    for path in (ROOT / "content").glob("*/components/*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("kind"), str):
            labels.add(data["kind"])
    return labels


def _is_model_kind(node: ast.AST) -> bool:
    """`<something>.model.kind`: the label of a component (ComponentSpec.model is the model)."""
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "kind"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "model"
    )


def _is_any_kind(node: ast.AST) -> bool:
    """`x.kind`, `x["kind"]` or `x.get("kind")`."""
    if isinstance(node, ast.Attribute) and node.attr == "kind":
        return True
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value == "kind"
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and bool(node.args)
        and isinstance(node.args[0], ast.Constant)
        and node.args[0].value == "kind"
    )


def _strings(node: ast.AST, names: dict[str, set[str]]) -> set[str]:
    """The string literals a node is or holds (a module-level name bound to them counts)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, ast.Name):
        return names.get(node.id, set())
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return set().union(*(_strings(e, names) for e in node.elts)) if node.elts else set()
    return set()


def label_uses(source: str, labels: set[str]) -> list[tuple[int, str]]:
    """Lines where code acts on a component's kind: compares, matches or looks up
    `*.model.kind`, or compares any `kind` with a component label ('card', 'tile'...)."""
    tree = python_tree(source)
    names: dict[str, set[str]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    names[target.id] = _strings(stmt.value, names)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(_is_model_kind(s) for s in sides):
                found.append((node.lineno, "compares a component's kind"))
            elif any(_is_any_kind(s) for s in sides) and any(
                _strings(s, names) & labels for s in sides
            ):
                found.append((node.lineno, "compares a kind with a component label"))
        elif isinstance(node, ast.Match) and _is_model_kind(node.subject):
            found.append((node.lineno, "matches a component's kind"))
        elif (isinstance(node, ast.Subscript) and _is_model_kind(node.slice)) or (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
            and _is_model_kind(node.args[0])
        ):
            found.append((node.lineno, "looks something up by a component's kind"))
    return found


def scan(folder: Path) -> list[str]:
    labels = kind_labels()
    out = []
    for path in sorted(folder.rglob("*.py")):
        for line, what in label_uses(path.read_text(encoding="utf-8"), labels):
            out.append(f"{path.relative_to(folder.parent)}:{line}: {what}")
    return out


def test_no_code_acts_on_the_component_kind_label():
    found = scan(GENERATOR)
    assert not found, (
        "a component's `kind` is a free label (docs/content.md); decide from the data "
        "(shape, size, items, backs, layout) or an exporter's own option instead:\n"
        + "\n".join(found)
    )


def test_the_scan_catches_what_main_did():
    """The three places main acted on the label (tts.py twice, rulebook/data.py), as written."""
    labels = kind_labels()
    old = """
DECK_KINDS = ("card", "tile")
def is_deck(comp):
    return comp.model.kind in DECK_KINDS
def pieces(comp):
    board = comp.model.kind == "board"
found = [(c, i) for c in comps for i in c.items if c.model.kind != "tile"]
step = TEXTS[spec.model.kind]
words = TEXTS.get(spec.model.kind, "")
if row["kind"] == "token": pass
if target.kind == "rulebook": pass
if box.kind != "line": pass
"""
    lines = sorted(line for line, _ in label_uses(old, labels))
    assert lines == [4, 6, 7, 8, 9, 10]  # not the target's or the box's kind (lines 11, 12)


# ------------------------------------------------------------------ renamed kinds change nothing

_TOKEN = """\
id: {id}
name: {name}
kind: {kind}
size: {{w: 20mm, h: 20mm}}
layout: {layout}
items: [{{id: a, count: 3}}, {{id: b}}]
"""


def test_a_deck_called_anything_still_exports_to_tts_as_a_deck(dogfight_copy):
    """Dogfight's planes with `kind: foo`, its rewards with `kind: board`, and a square token
    `kind: card`: the planes and rewards are poker-sized rectangles, so decks; the token is
    20 mm, so a tile. On main the planes became Custom_Tiles and the rewards a Custom_Board."""
    root = dogfight_copy
    comps = root / "content/dogfight/components"
    planes = comps / "allied-planes.yaml"
    planes.write_text(planes.read_text().replace("kind: card", "kind: foo"))
    rewards = comps / "rewards.yaml"
    rewards.write_text(rewards.read_text().replace("kind: card", "kind: board"))
    (root / "templates/layouts/dogfight/chit.yaml").write_text(
        'boxes:\n  - {kind: rect, fill: "#336699", bleed: true}\n'
        '  - {kind: text, text: "{{ item.id }}", size: 8pt, align: center, valign: middle}\n'
    )
    (comps / "chits.yaml").write_text(
        _TOKEN.format(id="chits", name="Chits", kind="card", layout="dogfight/chit")
    )
    manifest = root / "content/dogfight/manifest.yaml"
    manifest.write_text(manifest.read_text().replace("components:\n", "components:\n  chits: 4\n"))
    only_languages(root, "dogfight", ["en"])
    without_rulebooks(root, "dogfight")  # the test reads the TTS objects only
    run_pnp(root, "print", "--export", "tts", "--paper", "a4", check=True)
    tts = root / "output/dogfight/en/tts"
    objects = {
        cid: {o["Name"] for o in json.loads((tts / f"{cid}.json").read_text())["ObjectStates"]}
        for cid in ("allied-planes", "rewards", "chits")
    }
    assert objects == {
        "allied-planes": {"DeckCustom"},
        "rewards": {"DeckCustom"},
        "chits": {"Custom_Tile"},
    }
    chits = json.loads((tts / "chits.json").read_text())["ObjectStates"]
    assert len(chits) == 4  # one per copy


def test_the_exports_own_option_says_what_a_component_becomes(dogfight_copy):
    """`as:` in the tts export's own options overrides the face's default, per component."""
    root = dogfight_copy
    comps = root / "content/dogfight/components"
    rewards = comps / "rewards.yaml"
    text = rewards.read_text()
    assert "print:" not in text
    rewards.write_text(text + "print: {exports: [{format: tts, as: board}]}\n")
    only_languages(root, "dogfight", ["en"])
    without_rulebooks(root, "dogfight")  # the test reads the TTS objects only
    run_pnp(root, "print", "--export", "tts", "--paper", "a4", check=True)
    tts = root / "output/dogfight/en/tts"
    names = {o["Name"] for o in json.loads((tts / "rewards.json").read_text())["ObjectStates"]}
    assert names == {"Custom_Board"}
    planes = json.loads((tts / "allied-planes.json").read_text())["ObjectStates"]
    assert [o["Name"] for o in planes] == ["DeckCustom"]


def test_tiles_under_another_name_are_still_the_board_in_a_rulebook(make_project, tmp_path):
    """Red Code's board() figure puts ship pieces on map cards. With the map cards renamed from
    `kind: tile` to `kind: sea-chart` and the ship pieces to `kind: tile`, the figure is still
    the 12 map cards with the 3 ships on them, and a piece named without its component whose
    id is also a map card's is the piece, not the card. On main the first failed ("piece
    'destroyer-red' names no item": tiles were never pieces) and the second was ambiguous."""
    from generator.load.content import load_game
    from generator.load.project import Project
    from generator.rulebook.data import Blocks, RulesData
    from generator.rulebook.figures import FaceCache

    root = make_project(games=("red-code",))
    comps = root / "content/red-code/components"
    maps = comps / "map-cards.yaml"
    maps.write_text(maps.read_text().replace("kind: tile", "kind: sea-chart"))
    ships = comps / "ship-pieces.yaml"
    ships.write_text(ships.read_text().replace("kind: token", "kind: tile"))
    (comps / "buoys.yaml").write_text(
        "id: buoys\nname: Buoys\nkind: token\nsize: {w: 20mm, h: 20mm}\n"
        "layout: red-code/ship-token\ndata: {ship: submarine, team: blue}\n"
        "items: [{id: islet-1}, {id: buoy}]\n"
    )
    content = load_game(Project(root), "red-code")
    faces = FaceCache(content, "en", tmp_path / "faces")
    data = RulesData(content, "en", faces, Blocks(), {}, None)
    board = yaml.safe_load((root / "content/red-code/data/board.yaml").read_text())
    pieces = board["targeting_example"]["pieces"] + [{"item": "islet-1", "cell": [0, 0]}]
    token = data.board(board["example_layout"], "map-cards", per_face=2, pieces=pieces)
    html = data.blocks.items[token][1]
    assert html.count('class="cell"') == 12
    assert html.count('class="piece"') == 4
    assert 'alt="destroyer-red"' in html and 'alt="islet-1"' in html


def test_the_face_gives_every_real_component_what_its_label_gave_before():
    """`as: auto` decided from the face agrees, for all 16 components of the four games, with
    main's rule on the label (card and tile: deck; board: board; anything else: tile), so the
    games' TTS exports are unchanged; the label itself is read here only as that old oracle."""
    from generator.exports.tts import object_for
    from generator.load.content import load_game
    from generator.load.export_options import bare
    from generator.load.project import Project

    project = Project(ROOT)
    seen = {}
    for game in ("dogfight", "red-code", "sub-zero", "the-hunt-begins"):
        for comp in load_game(project, game).components:
            label = comp.model.kind
            before = "deck" if label in ("card", "tile") else label if label == "board" else "tile"
            seen[comp.id] = (object_for(comp, bare("tts")), before)
    assert len(seen) == 16
    assert {cid: now for cid, (now, _) in seen.items()} == {
        cid: before for cid, (_, before) in seen.items()
    }
    assert {now for now, _ in seen.values()} == {"deck", "board", "tile"}

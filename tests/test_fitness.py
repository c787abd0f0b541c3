"""Per-box fitness findings of `pnp check` (issue: fitness for the table and the print shop).

Each finding has a minimal game that triggers it and a clean twin that does not. The games are
written into one private project per module and checked in-process (`check_game`), the way
`pnp check` runs them; one test goes through the CLI for the exit status and file:line.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from conftest import copy_templates, run_pnp

from generator.check import check_game
from generator.errors import ContentError
from generator.load.content import load_game
from generator.load.project import Project


@pytest.fixture(scope="module")
def root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("fitness") / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    return root


def make_game(
    root: Path,
    name: str,
    layout: str,
    *,
    items: str = "  - {id: one}\n",
    game_extra: str = "",
    languages: str = "[en]",
    extra_components: str = "",
    bleed: str = "3mm",
) -> Path:
    """A one-component game `name` whose card face is `layout` (a YAML list of boxes)."""
    game = root / "content" / name
    (game / "components").mkdir(parents=True)
    (root / "templates/layouts" / name).mkdir(parents=True)
    (root / "templates/layouts" / name / "face.yaml").write_text(
        'background: "#ffffff"\nboxes:\n' + textwrap.indent(textwrap.dedent(layout), "  ")
    )
    (game / "game.yaml").write_text(
        f"id: {name}\ntitle: T\nlanguages: {languages}\n"
        f"print: {{papers: [a4], bleed: {bleed}}}\n" + game_extra
    )
    (game / "components/cards.yaml").write_text(
        f"id: cards\nname: Cards\nsize: {{w: 60mm, h: 80mm}}\nlayout: {name}/face\nitems:\n" + items
    )
    counts = "cards: " + str(items.count("- {id"))
    if extra_components:
        (game / "components/tokens.yaml").write_text(extra_components)
        counts += ", tokens: 1"
    (game / "manifest.yaml").write_text(f"components: {{{counts}}}\n")
    return game


def findings(root: Path, name: str, code: str) -> list:
    content = load_game(Project(root), name)
    return [f for f in check_game(content) if f.code == code]


# ---------------------------------------------------------------- text-too-small


LONG = "many words " * 40


def test_text_too_small_after_shrink(root):
    make_game(
        root,
        "small-text",
        f"""\
        - {{id: rules, kind: text, text: "{LONG}", x: 10mm, y: 10mm, w: 40mm, h: 12mm,
           size: 9pt, min_size: 3pt}}
        """,
    )
    (found,) = findings(root, "small-text", "text-too-small")
    assert found.severity == "error"
    assert found.box == "rules" and found.component == "cards" and found.item == "one"
    assert found.lang == "en" and found.file.endswith("cards.yaml") and found.line
    size = float(found.message.split("set at ")[1].split(" pt")[0])
    assert size < 6


def test_text_at_min_text_is_clean_and_the_limit_is_the_games(root):
    make_game(
        root,
        "fine-text",
        """\
        - {id: rules, kind: text, text: "Short", x: 10mm, y: 10mm, w: 40mm, h: 12mm, size: 6pt}
        """,
    )
    assert findings(root, "fine-text", "text-too-small") == []
    make_game(
        root,
        "strict-text",
        """\
        - {id: rules, kind: text, text: "Short", x: 10mm, y: 10mm, w: 40mm, h: 12mm, size: 6pt}
        """,
        game_extra="check: {min_text: 7pt}\n",
    )
    assert [f.box for f in findings(root, "strict-text", "text-too-small")] == ["rules"]


def test_text_outside_the_trim_is_exempt(root):
    # a tiny label wholly in the bleed (past the bottom edge) is not read on the piece
    make_game(
        root,
        "label-text",
        """\
        - {id: note, kind: text, text: "cut here", x: 10mm, y: 80.5mm, w: 40mm, h: 2mm,
           size: 4pt}
        """,
    )
    assert findings(root, "label-text", "text-too-small") == []


# ---------------------------------------------------------------- piece-does-not-fit

TOKENS = "id: tokens\nname: Tokens\nkind: token\nsize: {w: 16mm, h: 16mm}\nlayout: GAME/face\n"
TOKENS += "items:\n  - {id: cube}\n"


def test_slots_smaller_than_the_token_they_hold(root):
    make_game(
        root,
        "crew",
        """\
        - {id: crew, kind: slots, n: 3, holds: tokens, x: 5mm, y: 5mm, w: 50mm, h: 6mm,
           size: 5mm, stroke: "#000000"}
        """,
        extra_components=TOKENS.replace("GAME", "crew"),
    )
    (found,) = [f for f in findings(root, "crew", "piece-does-not-fit") if f.component == "cards"]
    assert found.severity == "error" and found.box == "crew"
    assert "5.0×5.0 mm" in found.message and "16×16 mm" in found.message
    assert "17.0×17.0" in found.hint  # the piece plus the 1 mm clearance


def test_a_size_as_the_piece_with_and_without_room(root):
    make_game(
        root,
        "cubes",
        """\
        - {id: roomy, kind: rect, holds: 8mm, x: 5mm, y: 5mm, w: 9mm, h: 9mm, stroke: "#000000"}
        - {id: tight, kind: rect, holds: 8mm, x: 20mm, y: 5mm, w: 8.5mm, h: 9mm,
           stroke: "#000000"}
        - {id: track, kind: slots, n: 2, holds: 8mm, x: 5mm, y: 20mm, w: 40mm, h: 10mm,
           size: 9.5mm, stroke: "#000000"}
        """,
    )
    assert [f.box for f in findings(root, "cubes", "piece-does-not-fit")] == ["tight"]


def test_holds_names_something_that_exists(root):
    make_game(
        root,
        "typo-holds",
        """\
        - {id: spot, kind: rect, holds: tokenz, x: 5mm, y: 5mm, w: 20mm, h: 20mm}
        """,
        extra_components=TOKENS.replace("GAME", "typo-holds"),
    )
    found = [f for f in findings(root, "typo-holds", "bad-holds") if f.component == "cards"]
    assert found and "did you mean 'tokens'" in found[0].hint
    assert found[0].file.endswith("face.yaml") and found[0].line == 3


# ---------------------------------------------------------------- no-bleed and near-trim


def test_no_bleed_art_that_stops_at_the_trim(root):
    make_game(
        root,
        "stops",
        """\
        - {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 20mm, fill: "#203060"}
        """,
    )
    (found,) = findings(root, "stops", "no-bleed")
    assert found.severity == "warning" and found.box == "band"
    assert "left" in found.message and "right" in found.message and "top" in found.message
    assert "bottom" not in found.message


def test_no_bleed_is_quiet_when_the_art_runs_into_the_bleed(root):
    make_game(
        root,
        "bleeds",
        """\
        - {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 20mm, bleed: true, fill: "#203060"}
        - {id: inner, kind: rect, x: 10mm, y: 30mm, w: 40mm, h: 20mm, fill: "#203060"}
        """,
    )
    assert findings(root, "bleeds", "no-bleed") == []


def test_no_bleed_answers_are_kept_until_what_they_draw_changes(root, monkeypatch):
    """A second check of an unchanged game reads each sample's answer from the user's cache
    (nothing drawn) and finds the same; an edited layout is drawn and sampled again."""
    from generator import session
    from generator.check import bleed

    band = '- {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 20mm, fill: "#203060"}\n'
    make_game(root, "kept", band)
    (first,) = findings(root, "kept", "no-bleed")
    drawn = []
    sample = bleed._sample
    monkeypatch.setattr(bleed, "_sample", lambda *a: drawn.append(a) or sample(*a))
    (again,) = findings(root, "kept", "no-bleed")
    assert drawn == [] and again.as_dict() == first.as_dict()
    layout = root / "templates/layouts/kept/face.yaml"
    layout.write_text(layout.read_text().replace("w: 100%", "w: 50mm"))  # off the right edge
    with session.new():  # a new command: the layouts read again
        (moved,) = findings(root, "kept", "no-bleed")
    assert len(drawn) == 1 and "right" not in moved.message and "left" in moved.message
    assert list((Path(os.environ["PNP_CACHE_DIR"]) / "samples").glob("*.json"))


def test_near_trim_text_and_rules(root):
    make_game(
        root,
        "close",
        """\
        - {id: title, kind: text, text: "Title", x: 1mm, y: 10mm, w: 40mm, h: 8mm, size: 10pt}
        - {id: border, kind: rect, x: 1.5mm, y: 1.5mm, w: 57mm, h: 77mm, stroke: "#000000",
           stroke_width: 0.5pt}
        - {id: rule, kind: line, x: 10mm, y: 78mm, x2: 50mm, y2: 78mm, stroke: "#000000"}
        - {id: fold, kind: line, x: 0, y: 40mm, x2: 60mm, y2: 40mm, stroke: "#000000"}
        - {id: track, kind: slots, n: 3, x: 0, y: 50mm, w: 100%, h: 6mm, size: 5mm,
           stroke: "#000000"}
        """,
    )
    found = {f.box: f for f in findings(root, "close", "near-trim")}
    # a fold line running into the edge is art, not a rule near the trim
    assert set(found) == {"title", "border", "rule", "track"}
    assert all(f.severity == "warning" for f in found.values())
    assert "left 1.0 mm" in found["title"].message
    assert "bottom 2.0 mm" in found["rule"].message


def test_near_trim_clean(root):
    make_game(
        root,
        "inside",
        """\
        - {id: title, kind: text, text: "Title", x: 5mm, y: 10mm, w: 40mm, h: 8mm, size: 10pt}
        - {id: border, kind: rect, x: 4mm, y: 4mm, w: 52mm, h: 72mm, stroke: "#000000"}
        - {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 10mm, bleed: true, stroke: "#000000",
           fill: "#cc0000"}
        - {id: track, kind: slots, n: 3, x: 0, y: 40mm, w: 100%, h: 6mm, size: 5mm,
           align: center, stroke: "#000000"}
        """,
    )
    assert findings(root, "inside", "near-trim") == []  # the slots, not their box, are drawn


# ---------------------------------------------------------------- unknown-language


def test_unknown_language_key_with_did_you_mean(root):
    make_game(
        root,
        "eng",
        """\
        - {id: name, kind: text, text: "{{ name }}", x: 5mm, y: 5mm, w: 50mm, h: 10mm}
        """,
        items="  - id: one\n    data:\n      name: {es: Uno, eng: One}\n",
        languages="[es, en]",
    )
    (found,) = findings(root, "eng", "unknown-language")
    assert found.severity == "error" and found.key == "eng"
    assert "did you mean 'en'" in found.hint
    assert found.file.endswith("cards.yaml") and found.line == 8
    assert found.item == "one" and found.component == "cards"
    # and the card does not print the mapping: `eng` makes it no per-language text, refused
    refused = findings(root, "eng", "mapping-as-text")
    assert refused and refused[0].box == "name" and refused[0].severity == "error"


def test_known_languages_are_clean(root):
    make_game(
        root,
        "both",
        """\
        - {id: name, kind: text, text: "{{ name }}", x: 5mm, y: 5mm, w: 50mm, h: 10mm}
        """,
        items="  - id: one\n    data:\n      name: {es: Uno, en: One}\n",
        languages="[es, en]",
    )
    content = load_game(Project(root), "both")
    codes = {f.code for f in check_game(content)}
    assert not codes & {"unknown-language", "mapping-as-text"}


# ---------------------------------------------------------------- text sizes need a unit


def test_bare_number_as_text_size_is_an_error_with_the_hint(root):
    make_game(
        root,
        "bare-size",
        """\
        - {id: name, kind: text, text: "Hi", x: 5mm, y: 5mm, w: 50mm, h: 10mm}
        - {id: cost, kind: text, text: "3", x: 5mm, y: 20mm, w: 50mm, h: 10mm,
           size: 8}
        """,
    )
    with pytest.raises(ContentError) as caught:
        check_game(load_game(Project(root), "bare-size"))
    err = caught.value
    assert "write 8pt or 3mm" in err.message
    # line 5: the `size: 8` continuation line of the box
    assert str(err.file).endswith("face.yaml") and err.line == 5 and "size" in (err.key or "")
    result = run_pnp(root, "check", "bare-size")
    assert result.returncode != 0
    assert "face.yaml:5" in result.stderr + result.stdout
    assert "write 8pt or 3mm" in result.stderr + result.stdout


def test_text_sizes_with_units_load(root):
    make_game(
        root,
        "unit-size",
        """\
        - {id: cost, kind: text, text: "3", x: 5mm, y: 20mm, w: 50mm, h: 10mm, size: 8pt,
           min_size: 2.5mm}
        - {id: track, kind: slots, n: 2, x: 5mm, y: 40mm, w: 50mm, h: 10mm, labels: [a, b],
           label_size: 7pt}
        """,
    )
    content = load_game(Project(root), "unit-size")
    assert not [f for f in check_game(content) if f.severity == "error"]


# The shortcut of the near-trim checks (fitness.clear_of_trim): a box whose rectangle lies clear
# of the safe margin is not measured again; a text that fits sets its lines within its box.
_SHORTCUT_BOXES = [
    # text that fits, at and around the 3 mm margin, in each alignment, with and without padding
    *(
        f'- {{id: t{i}, kind: text, text: "Word {i}\\nand more", x: {x}mm, y: {y}mm, w: {w}mm,'
        f" h: 9mm, size: 9pt, align: {align}, valign: {valign}, padding: {pad}mm}}"
        for i, (x, y, w, align, valign, pad) in enumerate(
            [
                (3, 3, 20, "left", "top", 0),
                (2.99, 10, 20, "left", "top", 0),
                (3.0, 68, 54, "right", "bottom", 0),
                (2.95, 20, 54.1, "center", "middle", 0),
                (2.5, 30, 20, "left", "top", 0.5),
                (1, 40, 20, "right", "bottom", 2.1),
                (40, 3.02, 17, "right", "top", 0),
                (45, 71, 12.02, "right", "bottom", 0),
                (-2, 50, 10, "left", "top", 0),  # partly in the bleed
            ]
        )
    ),
    # text that overflows its box (no min_size), inside the margin: its lines reach the trim
    '- {id: over, kind: text, text: "a long line of many words that cannot wrap at all", '
    "x: 5mm, y: 58mm, w: 10mm, h: 5mm, size: 9pt, wrap: false}",
    '- {id: tall, kind: text, text: "one\\ntwo\\nthree\\nfour\\nfive\\nsix", x: 20mm, '
    "y: 14mm, w: 20mm, h: 4mm, size: 9pt, valign: bottom}",
    # turned text and outlines
    '- {id: turned, kind: text, text: "Turned", x: 1mm, y: 30mm, w: 30mm, h: 6mm, size: 8pt, '
    "rotate: 90}",
    '- {id: half, kind: text, text: "Half", x: 25mm, y: 74mm, w: 20mm, h: 5mm, size: 8pt, '
    "rotate: 180}",
    *(
        f'- {{id: r{i}, kind: {kind}, x: {x}mm, y: {y}mm, w: {w}mm, h: {h}mm, stroke: "#000000",'
        f" stroke_width: 0.5pt}}"
        for i, (kind, x, y, w, h) in enumerate(
            [
                ("rect", 3, 3, 54, 74),
                ("rect", 2.96, 3, 54, 74),
                ("rect", 3.1, 3.1, 53.8, 73.8),
                ("ellipse", 10, 3.04, 40, 20),
                ("rect", 30, 10, 27.02, 10),
                ("rect", -1, 20, 10, 10),
            ]
        )
    ),
]


@pytest.mark.parametrize("turned", [False, True])
def test_near_trim_shortcut_finds_what_measuring_finds(root, monkeypatch, turned):
    from generator import session
    from generator.render.boxes import fitness

    name = f"shortcut{int(turned)}"
    boxes = list(_SHORTCUT_BOXES)
    if turned:  # the same boxes, each turned a quarter by its card
        turn = ', rotate: "{{ turn }}"}'
        boxes = [b if "rotate" in b else b.replace("}", turn, 1) for b in boxes]
    make_game(
        root,
        name,
        "\n".join(boxes) + "\n",
        items="  - {id: one, data: {turn: 90}}\n  - {id: two, data: {turn: 0}}\n",
    )
    taken: list[bool] = []
    clear = fitness.clear_of_trim

    def spied(*args):
        taken.append(clear(*args))
        return taken[-1]

    def found() -> list[tuple]:
        with session.new():
            return sorted(
                (f.item or "", f.box or "", f.message)
                for f in check_game(load_game(Project(root), name))
                if f.code == "near-trim"
            )

    monkeypatch.setattr(fitness, "clear_of_trim", spied)
    shortcut = found()
    monkeypatch.setattr(fitness, "clear_of_trim", lambda *args: False)  # measure every box
    measured = found()
    assert shortcut == measured
    assert any(taken) and not all(taken)  # the shortcut was taken, and refused
    boxes_found = {box for _, box, _ in measured}
    boxes_found = {box for _, box, _ in measured}
    if turned:
        assert boxes_found
        return
    # near the trim: the overflowing texts, the boxes at it, the turned texts; not the boxes
    # clear of it, nor those whose text (padding) or outline (into the bleed) keeps clear
    assert boxes_found == {"over", "tall", "t7", "t8", "r1", "r4", "turned", "half"}

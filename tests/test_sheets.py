"""Items from a spreadsheet: `items: cards.csv` / `.xlsx` / `.ods` (`#Sheet` picks a sheet).

One row per item, `id` and `count` columns, data fields, `title.es` per language, dots nest;
every error names its cell (`cards.xlsx:Cards!B3: count: ...`). Dogfight's allied planes as an
.xlsx with es/en/ko/fr columns build the same PDFs as the YAML matrix.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_pnp, write_files

openpyxl = pytest.importorskip("openpyxl", reason="openpyxl (a dev dependency) writes the sheets")

CARDS_HEAD = """\
id: cards
name: {en: Card, es: Carta}
kind: card
size: poker
layout: card
back: card-back
data:
  deck: {en: Starter deck, es: Mazo inicial}
"""


def _head(root: Path) -> str:
    """The starter's cards.yaml up to its items (which the tests replace)."""
    text = (root / "content/g/components/cards.yaml").read_text(encoding="utf-8")
    return text[: text.index("items:")]


def _xlsx(sheets: dict[str, list[list]]) -> bytes:
    book = openpyxl.Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _project(tmp_path: Path, langs: str = "en,es") -> Path:
    """A project made by `pnp init --game`: pnp's own starter and defaults, no templates/."""
    root = tmp_path / "proj"
    from generator.commands import cli

    assert cli.main(["init", str(root), "--game", "g", "--langs", langs]) == 0
    return root


def _items(root: Path, component: str = "cards") -> list[tuple]:
    from generator import session
    from generator.load.content import load_game
    from generator.load.project import Project

    with session.new():
        content = load_game(Project(root), "g")
        comp = content.component(component)
        return [(i.id, i.count, i.data) for i in comp.items]


ROWS = [
    ["id", "count", "title.en", "title.es", "text.en", "text.es", "value"],
    ["scout", 3, "Scout", "Explorador", "Look at the top card.", "Mira la carta de arriba.", 1],
    ["knight", 3, "Knight", "Caballero", "Win a fight.", "Gana un combate.", 2],
]


def _csv(rows: list[list]) -> str:
    import csv

    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue()


def test_a_csv_gives_the_same_items_as_the_yaml(tmp_path):
    root = _project(tmp_path)
    from_yaml = _items(root)
    rows = [ROWS[0]] + [
        [i, c, d["title"]["en"], d["title"]["es"], d["text"]["en"], d["text"]["es"], d["value"]]
        for i, c, d in from_yaml
    ]
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: cards.csv\n",
            "content/g/components/cards.csv": _csv(rows),
        },
    )
    from_csv = _items(root)
    assert [(i, c) for i, c, _ in from_csv] == [("scout", 3), ("knight", 3)]
    # the starter's YAML items and the sheet's rows: the same data, field by field
    assert [d for *_, d in from_csv] == [d for *_, d in from_yaml]
    assert from_csv[0][2]["title"] == {"en": "Scout", "es": "Explorador"}
    assert from_csv[0][2]["value"] == 1  # a whole number, as YAML's `value: 1`
    result = run_pnp(root, "check", "g", "--format", "json")
    assert result.returncode == 0, result.stdout + result.stderr
    # the translations moved from the YAML to the sheet: the record asks for a review
    assert [f["code"] for f in json.loads(result.stdout)] == ["translation-unsynced"]
    run_pnp(root, "i18n", "sync", "g", "--lang", "es", check=True)
    result = run_pnp(root, "check", "g", "--format", "json")
    assert json.loads(result.stdout) == []


def test_an_xlsx_sheet_by_name_nested_fields_and_blank_cells(tmp_path):
    root = _project(tmp_path)
    book = _xlsx(
        {
            "Notes": [["not the items"]],
            "Deck 1": [
                ["id", "count", "title.en", "title.es", "stats.attack", "stats.hp", "text.en"],
                ["scout", 2, "Scout", "Explorador", 3, 4.5, "Look."],
                ["knight", 4.0, "Knight", "Caballero", 5, "12", None],
                [None, None, None, None, None, None, None],  # an empty row is skipped
            ],
        }
    )
    write_files(
        root,
        {
            "content/g/components/cards.yaml": CARDS_HEAD.replace(
                "data:\n", 'data:\n  text: {en: "Default text.", es: "Texto."}\n'
            )
            + "items: sheets/deck.xlsx#Deck 1\n",
            "content/g/components/sheets/deck.xlsx": book,
        },
    )
    items = _items(root)
    assert [(i, c) for i, c, _ in items] == [("scout", 2), ("knight", 4)]
    scout, knight = items[0][2], items[1][2]
    assert scout["stats"] == {"attack": 3, "hp": 4.5}  # `stats.hp`: not a language
    assert knight["stats"] == {"attack": 5, "hp": 12}
    assert scout["text"] == {"en": "Look."}
    assert "text" not in knight  # the blank cell: the component's data gives it


@pytest.mark.parametrize(
    ("rows", "where", "words"),
    [
        (  # a bad cell
            [["id", "count", "title.en", "title.es"], ["a", 1, "A", "A"], ["b", "many", "B", "B"]],
            "Cards!B3: count: ",
            "count 'many' is not a whole number from 1 to 1000",
        ),
        (  # a bad id
            [["id", "count", "title.en", "title.es"], ["Big One", 1, "A", "A"]],
            "Cards!A2: id: ",
            "id 'Big One' is not an item id",
        ),
        (  # a missing column
            [["name", "count", "title.en", "title.es"], ["a", 1, "A", "A"]],
            "Cards!A1: id: ",
            "missing column 'id'",
        ),
        (  # a duplicate id
            [["id", "count", "title.en", "title.es"], ["a", 1, "A", "A"], ["a", 2, "B", "B"]],
            "Cards!A3: id: ",
            "duplicate id 'a' (also Cards!A2)",
        ),
        (  # a language column the game does not have
            [["id", "count", "title.en", "title.es", "title.fr"], ["a", 1, "A", "A", "A"]],
            "Cards!E1: title.fr: ",
            "unknown language column 'title.fr': the game's languages are en, es",
        ),
        (  # a typo'd language beside real ones
            [["id", "title.en", "title.es", "title.eb"], ["a", "A", "A", "A"]],
            "Cards!D1: title.eb: ",
            "unknown language column 'title.eb'",
        ),
    ],
)
def test_each_sheet_error_names_its_cell(tmp_path, rows, where, words):
    root = _project(tmp_path)
    write_files(
        root,
        {
            "content/g/components/cards.yaml": CARDS_HEAD + "items: cards.xlsx#Cards\n",
            "content/g/components/cards.xlsx": _xlsx({"Cards": rows}),
        },
    )
    for command in ("check", "print"):
        result = run_pnp(root, command, "g")
        assert result.returncode != 0
        said = result.stdout + result.stderr
        assert f"content/g/components/cards.xlsx:{where}{words}" in said, said
    assert not [p for p in (root / "output").rglob("*") if p.suffix in (".pdf", ".png")]


def test_sheet_errors_without_a_workbook(tmp_path):
    root = _project(tmp_path)
    cases = {
        "items: nowhere.csv": "spreadsheet 'nowhere.csv' not found",
        "items: ../../../x.csv": "leaves the game folder",
        "items: cards.csv#Sheet2": "a CSV file has no sheets",
        "items: other.xlsx#Cardz": "no sheet 'Cardz'; did you mean 'Cards'?",
    }
    write_files(
        root,
        {
            "content/g/components/cards.csv": _csv(ROWS),
            "content/g/components/other.xlsx": _xlsx({"Cards": ROWS}),
        },
    )
    for items, words in cases.items():
        write_files(root, {"content/g/components/cards.yaml": CARDS_HEAD + items + "\n"})
        result = run_pnp(root, "check", "g")
        assert result.returncode != 0 and words in result.stdout + result.stderr, (
            items,
            result.stdout + result.stderr,
        )


def test_an_edited_cell_rebuilds_its_cards(tmp_path):
    from pypdf import PdfReader

    def reader(path: Path) -> PdfReader:  # not pdfutil's: that one caches by path
        return PdfReader(io.BytesIO(path.read_bytes()))

    root = _project(tmp_path, "en")
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: cards.csv\n",
            "content/g/components/cards.csv": _csv([[r[0], r[1], r[2], r[4], r[6]] for r in ROWS]),
        },
    )
    run_pnp(root, "print", "g", "--paper", "a4", check=True)
    cards = root / "output/g/en/cards-a4.pdf"
    assert "Scout" in reader(cards).pages[0].extract_text()
    again = run_pnp(root, "print", "g", "--paper", "a4", check=True)
    assert "0 of" in again.stdout  # nothing changed, nothing rebuilt
    csv_path = root / "content/g/components/cards.csv"
    csv_path.write_text(csv_path.read_text().replace("Scout", "Ranger"), encoding="utf-8")
    edited = run_pnp(root, "print", "g", "--paper", "a4", check=True)
    # the cards and the rulebook (its card figures) rebuilt; the rest of the starter kit
    # (its coins, the guide) stays up to date
    manifest = json.loads((root / "output/g/build-manifest.json").read_text(encoding="utf-8"))
    built = re.findall(r"\] \d+/\d+ (\S+)", edited.stderr)
    assert sorted(built) == ["output/g/en/cards-a4.pdf", "output/g/en/rulebook.pdf"], edited
    total = len(manifest["files"])
    assert total > 2 and f"2 of {total} files built" in edited.stdout, edited.stdout
    text = reader(cards).pages[0].extract_text()
    assert "Ranger" in text and "Scout" not in text


# Dogfight's allied planes: the YAML matrix, and the same 50 cards as an .xlsx with one
# `deflection` column per language (filled on the 10s, the only cards that print it).

PLANES = "content/dogfight/components/allied-planes.yaml"


def _dogfight_langs(root: Path) -> list[str]:
    import yaml

    game = yaml.safe_load((root / "content/dogfight/game.yaml").read_text(encoding="utf-8"))
    return list(game["languages"])


def _planes_as_xlsx(root: Path) -> None:
    import yaml

    path = root / PLANES
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    langs = _dogfight_langs(root)  # a column per language the game prints
    deflection = raw["data"].pop("deflection")
    rows: list[list] = [["id", "count", "suit", "value", *(f"deflection.{x}" for x in langs)]]
    for suit in raw["matrix"]["over"]["suit"]:
        for value in raw["matrix"]["over"]["value"]:
            text = [deflection[x] if value == 10 else None for x in langs]
            rows.append([f"{suit}-{value}", 1, suit, value, *text])
    (root / "content/dogfight/components/allied-planes.xlsx").write_bytes(
        _xlsx({"Allied planes": rows})
    )
    text = path.read_text(encoding="utf-8")
    # the YAML loses the matrix and the deflection block: the rows carry both
    text = re.sub(r"(?ms)^  # Printed on the 10s.*?(?=^matrix:)", "", text)
    text = re.sub(r"(?ms)^matrix:.*", "items: allied-planes.xlsx#Allied planes\n", text)
    assert "deflection" not in text and "matrix" not in text
    path.write_text(text, encoding="utf-8")


def _two_dogfights(make_project) -> tuple[Path, Path]:
    yaml_root = make_project(games=("dogfight",), name="yaml")
    sheet_root = make_project(games=("dogfight",), name="sheet")
    _planes_as_xlsx(sheet_root)
    return yaml_root, sheet_root


def test_dogfight_planes_from_an_xlsx_print_the_same_sheets(make_project):
    """The planes' component PDFs in every language of the game (es, en, ko, fr, de, pl): built
    from the .xlsx, byte for byte (else pixel for pixel) what the YAML matrix builds, with the
    same slots in the manifest."""
    from generator import session
    from generator.build.run import Options, plan_targets, run_target
    from generator.load.content import load_game
    from generator.load.project import Project

    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    from compare_outputs import compare

    yaml_root, sheet_root = _two_dogfights(make_project)
    langs = _dogfight_langs(yaml_root)
    assert len(langs) >= 4 and {"es", "en", "ko", "fr"} <= set(langs), langs
    parts = {}
    for root in (yaml_root, sheet_root):
        with session.new():
            project = Project(root)
            content = load_game(project, "dogfight")
            comp = content.component("allied-planes")
            assert comp.total == 50 and (comp.sheet is None) == (root == yaml_root)
            options = Options(papers=["a4"], exports=["sheets"])
            targets = [
                t
                for t in plan_targets(project, content, options)
                if t.component == "allied-planes" and t.kind == "components"
            ]
            assert {t.lang for t in targets} == set(langs)
            parts[root] = [run_target(str(root), t, options) for t in targets]
    assert json.dumps(parts[yaml_root], sort_keys=True) == json.dumps(
        parts[sheet_root], sort_keys=True
    )
    before, after = yaml_root / "output/dogfight", sheet_root / "output/dogfight"
    result = compare(before, after, dpi=72)
    assert result["different"] == [] and not result["only before"] and not result["only after"]
    assert len(result["bytes"]) + len(result["pixels"]) == len(langs)  # one PDF per language
    print("planes PDFs:", {k: len(v) for k, v in result.items()})


@pytest.mark.slow
def test_dogfight_with_xlsx_planes_builds_the_same_kit(make_project):
    """The whole kit (every language, rulebooks with their card figures, guides, exports)."""

    yaml_root, sheet_root = _two_dogfights(make_project)
    for root in (yaml_root, sheet_root):
        run_pnp(root, "print", "dogfight", "--paper", "a4", check=True)
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    from compare_outputs import compare

    before, after = yaml_root / "output/dogfight", sheet_root / "output/dogfight"
    result = compare(before, after, dpi=72)
    assert not result["only before"] and not result["only after"], result
    assert len(result["bytes"]) + len(result["pixels"]) > 300
    pdfs = [n for n in result["bytes"] + result["pixels"] if n.endswith(".pdf")]
    assert len(pdfs) >= 40, pdfs  # components, rulebooks (with card figures), guides, exports
    for name in result["different"]:
        # a Tabletop Simulator deck names its images by file:// URLs: the two projects' folders
        assert name.endswith(".json"), name
        texts = [
            (root / "output/dogfight" / name)
            .read_text(encoding="utf-8")
            .replace(root.resolve().as_uri(), "ROOT")
            for root in (yaml_root, sheet_root)
        ]
        assert texts[0] == texts[1], name
    shutil.rmtree(yaml_root / "output", ignore_errors=True)


def test_sheet_cells_are_po_entries_and_import_refuses_to_write_a_sheet(tmp_path):
    """Export offers every translated cell; an import that would change a cell names the cell
    and writes nothing (pnp never rewrites a spreadsheet); once the cell holds it, it passes."""
    import polib

    root = _project(tmp_path)
    from_yaml = _items(root)
    rows = [ROWS[0]] + [
        [i, c, d["title"]["en"], d["title"]["es"], d["text"]["en"], d["text"]["es"], d["value"]]
        for i, c, d in from_yaml
    ]
    rows[2][3] = ""  # knight's Spanish title: not translated yet
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: cards.csv\n",
            "content/g/components/cards.csv": _csv(rows),
        },
    )
    checked = json.loads(run_pnp(root, "check", "g", "--format", "json").stdout)
    (missing,) = [f for f in checked if f["code"] == "missing-language"]
    assert (missing["file"], missing["line"], missing["item"]) == (
        "content/g/components/cards.csv",
        3,
        "knight",
    )
    assert "'.es' column" in missing["hint"]
    po_path = root / "output/i18n/g.es.po"
    run_pnp(root, "i18n", "export", "g", "--lang", "es", check=True)
    po = polib.pofile(str(po_path))
    entries = {e.msgctxt: e for e in po}
    scout = entries["components/cards.csv:[scout].data.title"]
    assert (scout.msgid, scout.msgstr) == ("Scout", rows[1][3])
    assert scout.occurrences == [("components/cards.csv", "2")]
    knight = entries["components/cards.csv:[knight].data.title"]
    assert (knight.msgid, knight.msgstr) == ("Knight", "")
    knight.msgstr = "Caballero"
    po.save(str(po_path))
    sheet = root / "content/g/components/cards.csv"
    before = sheet.read_bytes()
    result = run_pnp(root, "i18n", "import", "g", str(po_path))
    assert result.returncode == 1
    said = result.stdout + result.stderr
    assert "[po-sheet-cell]" in said and "cell cards.csv:D3 (column title.es)" in said, said
    # the entry is skipped and named, the others applied (none changed here); the sheet as it was
    assert "1 entry skipped (1 po-sheet-cell)" in said, said
    assert sheet.read_bytes() == before
    sheet.write_text(_csv([*rows[:2], [*rows[2][:3], "Caballero", *rows[2][4:]]]))
    run_pnp(root, "i18n", "import", "g", str(po_path), check=True)  # the cell holds it now


MONSTER_COLUMNS = [
    "id",
    "count",
    "name.en",
    "name.es",
    "attack",
    "ability.en",
    "ability.es",
    "stats.speed",
    "flavor",
]


def test_import_sheet_makes_a_component_that_shows_every_column(tmp_path):
    from pypdf import PdfReader

    root = _project(tmp_path)
    book = tmp_path / "downloads" / "Monsters.xlsx"  # outside the project: copied in
    book.parent.mkdir()
    book.write_bytes(
        _xlsx(
            {
                "Monsters": [
                    MONSTER_COLUMNS,
                    ["goblin", 4, "Goblin", "Duende", 2, "Steal.", "Roba.", 3, "Small."],
                    ["troll", 2, "Troll", "Trol", 5, "Regenerate.", "Regenera.", 1, None],
                ]
            }
        )
    )
    result = run_pnp(root, "import-sheet", str(book), check=True)
    game = root / "content/g"
    assert "wrote content/g/components/monsters.yaml" in result.stdout
    assert (game / "components/Monsters.xlsx").read_bytes() == book.read_bytes()
    assert "items: Monsters.xlsx#Monsters" in (game / "components/monsters.yaml").read_text()
    assert "monsters: {count: 6}" in result.stdout  # what the manifest needs, said
    manifest = game / "manifest.yaml"
    manifest.write_text(manifest.read_text() + "  monsters:\n    count: 6\n")
    checked = run_pnp(root, "check", "g", "--format", "json")
    assert [f for f in json.loads(checked.stdout) if f["severity"] == "error"] == []

    def face(item: str, lang: str) -> str:
        out = tmp_path / f"{item}-{lang}.pdf"
        run_pnp(root, "render", "g", "monsters", item, "--lang", lang, "-o", str(out), check=True)
        return " ".join(PdfReader(io.BytesIO(out.read_bytes())).pages[0].extract_text().split())

    goblin, troll = face("goblin", "en"), face("troll", "es")
    for label in ("name:", "attack:", "ability:", "stats.speed:", "flavor:"):
        assert label in goblin, goblin
    assert "Goblin" in goblin and "Steal." in goblin and "Small." in goblin
    assert "Trol" in troll and "Regenera." in troll and "speed: 1" in troll
    assert "flavor:" not in troll  # its cell is blank: the line is left out
    again = run_pnp(root, "import-sheet", str(book))
    assert again.returncode == 2 and "exists already" in again.stderr


def _ods(name: str, rows: list[list]) -> bytes:
    """A minimal OpenDocument spreadsheet (what LibreOffice saves, less styles and settings)."""
    import zipfile
    from xml.sax.saxutils import escape

    def cell(value) -> str:
        if value is None:
            return "<table:table-cell/>"
        if isinstance(value, int | float):
            return (
                f'<table:table-cell office:value-type="float" office:value="{value}">'
                f"<text:p>{value}</text:p></table:table-cell>"
            )
        return (
            f'<table:table-cell office:value-type="string"><text:p>{escape(value)}</text:p>'
            "</table:table-cell>"
        )

    body = "".join(
        "<table:table-row>" + "".join(cell(v) for v in row) + "</table:table-row>" for row in rows
    )
    content = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"'
        ' xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"'
        ' xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">'
        f'<office:body><office:spreadsheet><table:table table:name="{name}">{body}'
        "</table:table></office:spreadsheet></office:body></office:document-content>"
    )
    manifest = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"'
        ' manifest:version="1.2"><manifest:file-entry manifest:full-path="/"'
        ' manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/>'
        '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>'
        "</manifest:manifest>"
    )
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("mimetype", "application/vnd.oasis.opendocument.spreadsheet")
        z.writestr("META-INF/manifest.xml", manifest, zipfile.ZIP_DEFLATED)
        z.writestr("content.xml", content, zipfile.ZIP_DEFLATED)
    return out.getvalue()


def test_an_ods_sheet_and_its_cell_errors(tmp_path):
    root = _project(tmp_path)
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: cards.ods#Deck\n",
            "content/g/components/cards.ods": _ods(
                "Deck", [["id", "count", "title.en", "title.es"], ["scout", 3, "Scout", "Exp"]]
            ),
        },
    )
    assert _items(root) == [("scout", 3, {"title": {"en": "Scout", "es": "Exp"}})]
    write_files(
        root,
        {
            "content/g/components/cards.ods": _ods(
                "Deck", [["id", "count", "title.en", "title.es"], ["scout", 0, "Scout", "Exp"]]
            )
        },
    )
    result = run_pnp(root, "check", "g")
    assert "cards.ods:Deck!B2: count: count '0' is not a whole number" in result.stderr


def test_a_finding_on_a_card_from_a_sheet_points_at_its_row(tmp_path):
    root = _project(tmp_path, "en")
    long = "A very long title that will never fit on the header of a poker card " * 3
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: cards.csv\n",
            "content/g/components/cards.csv": _csv(
                [
                    ["id", "count", "title.en", "text.en", "value"],
                    ["scout", 3, "Scout", "Look.", 1],
                    ["knight", 3, long, "Fight.", 2],
                ]
            ),
        },
    )
    result = run_pnp(root, "check", "g", "--format", "json")
    found = [f for f in json.loads(result.stdout) if f.get("item") == "knight"]
    assert found, result.stdout
    assert {(f["file"], f["line"]) for f in found} == {("content/g/components/cards.csv", 3)}


def test_sheet_translations_get_the_checks_yaml_strings_get_at_their_cells(tmp_path):
    """Defect: a number or a glossary term changed in a sheet's translated cell passed
    `pnp check`, while the same text in YAML was an error; an open `**` and English left in a
    Spanish cell were found at the row, not the cell. Each is now found at its cell."""
    root = _project(tmp_path)
    book = _xlsx(
        {
            "Deck": [
                ["id", "count", "title.en", "title.es", "text.en", "text.es"],
                ["scout", 1, "Scout", "Explorador", "Gain 6 coins.", "Gana 7 monedas."],
                ["knight", 1, "Knight", "Caballero", "Take a lantern.", "Toma una moneda."],
                ["mage", 1, "Mage", "Mago", "**Draw** a card.", "**Roba una carta."],
                ["monk", 1, "Monk", "Monje", "Gain 2 coins.", "Gana 2 monedas."],
                ["druid", 1, "Druid", "Druida", *["Put the top card of the deck under it."] * 2],
            ]
        }
    )
    write_files(
        root,
        {
            "content/g/components/cards.yaml": _head(root) + "items: deck.xlsx#Deck\n",
            "content/g/components/deck.xlsx": book,
            "content/g/glossary.yaml": (
                "terms:\n"
                "  - {id: coin, en: [coin, coins], es: [moneda, monedas]}\n"
                "  - {id: lantern, en: [lantern, lanterns], es: [linterna, linternas]}\n"
            ),
        },
    )
    result = run_pnp(root, "check", "g", "--format", "json")
    found = {
        (f["code"], f.get("cell")): f
        for f in json.loads(result.stdout)
        if f["code"]
        in (
            "translation-number",
            "translation-term",
            "translation-markup",
            "translation-in-source-language",
        )
    }
    assert set(found) == {
        ("translation-number", "Deck!F2"),
        ("translation-term", "Deck!F3"),
        ("translation-markup", "Deck!F4"),
        ("translation-in-source-language", "Deck!F6"),  # the English text left in es
    }, result.stdout
    for f in found.values():
        assert f["severity"] == "error" and f["file"] == "content/g/components/deck.xlsx"
    assert "says 7" in found[("translation-number", "Deck!F2")]["message"]
    text = run_pnp(root, "check", "g")
    assert text.returncode == 1
    assert "content/g/components/deck.xlsx:Deck!F2: error: [translation-number]" in text.stdout

"""The CLI end to end on a copy of the project: duplex options, incremental builds, findings."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import PNP, ROOT, copy_templates, run_pnp
from pdfutil import reader


def _manifest(root, game="dogfight"):
    return json.loads((root / "output" / game / "build-manifest.json").read_text())


@pytest.mark.slow  # a full Dogfight build; the flip and offset arithmetic: test_imposition.py
def test_short_edge_flip_and_back_offset(dogfight_copy):
    root = dogfight_copy
    run_pnp(
        root,
        "print",
        "--paper",
        "a4",
        "--duplex",
        "short-edge",
        "--back-offset",
        "1,-0.5",
        "--export",
        "sheets",
        check=True,
    )
    m = _manifest(root)
    path = "output/dogfight/en/allied-planes-a4.pdf"
    sheets = [s for s in m["sheets"] if s["file"] == path]
    assert {f["paper"] for f in m["files"] if f["kind"] == "components"} == {"a4"}
    for front, back in zip(sheets[::2], sheets[1::2], strict=True):
        backs = {(b["item"], b["copy"]): b for b in back["slots"]}
        for f in front["slots"]:
            b = backs[(f["item"], f["copy"])]
            assert b["x"] == pytest.approx(f["x"] + 1.0, abs=0.1)
            assert b["y"] == pytest.approx(297 - f["y"] - f["h"] - 0.5, abs=0.1)


@pytest.mark.slow  # four full Dogfight builds; small-project rebuilds: test_game_folder_layouts.py
def test_noop_rebuild_builds_nothing_and_a_change_rebuilds_only_its_targets(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"  # sheets and print-shop files keep this quick
    game.write_text(re.sub(r"exports: \[.*\]", "exports: [sheets, print-shop]", game.read_text()))
    first = run_pnp(root, "print", check=True)
    # 24 sheet PDFs + 12 print-shop PDFs + 6 order sheets + 16 rulebooks (es, en, ko, fr, de, pl;
    # bilingual es-en and es-fr) + 12 guides (6 languages x 2 papers) + 6 print-shop.zip:
    # files, not jobs
    assert "76 of 76 files built" in first.stdout
    pdf = root / "output/dogfight/es/rewards-a4.pdf"

    def outputs() -> list[Path]:
        """The kit's PDFs (not pnp's cache folder, where rulebook figures' faces are kept)."""
        return [p for p in (root / "output").rglob("*.pdf") if ".pnp-cache" not in p.parts]

    before = {p: p.stat().st_mtime_ns for p in outputs()}
    again = run_pnp(root, "print", check=True)
    assert "0 of 76 files built" in again.stdout
    assert {p: p.stat().st_mtime_ns for p in outputs()} == before
    # Edit one Spanish string of one component: only its Spanish PDFs (2 papers + the print-shop
    # file) rebuild, the Spanish order sheet that lists it, the editions that include Spanish
    # (2 rulebooks + 4 bilingual), and the Spanish print-shop.zip that holds the changed file.
    comp = root / "content/dogfight/components/rewards.yaml"
    comp.write_text(comp.read_text().replace("Avión alemán derribado", "Avión enemigo derribado"))
    changed = run_pnp(root, "print", check=True)
    assert "11 of 76 files built" in changed.stdout
    rebuilt = {str(p.relative_to(root)) for p in outputs() if p.stat().st_mtime_ns != before[p]}
    assert rebuilt == {
        "output/dogfight/es/rewards-a4.pdf",
        "output/dogfight/es/rewards-letter.pdf",
        "output/dogfight/es/print-shop/rewards.pdf",
        "output/dogfight/es/rulebook.pdf",
        "output/dogfight/es/rulebook-letter.pdf",
        "output/dogfight/rulebook.es-en.pdf",
        "output/dogfight/rulebook.es-en-letter.pdf",
        "output/dogfight/rulebook.es-fr.pdf",
        "output/dogfight/rulebook.es-fr-letter.pdf",
    }
    assert "Avión enemigo derribado" in reader.__wrapped__(pdf).pages[0].extract_text()
    # A damaged output is noticed and rebuilt.
    pdf.write_bytes(b"%PDF-1.4 broken")
    repaired = run_pnp(root, "print", check=True)
    assert "1 of 76 files built" in repaired.stdout
    assert len(reader.__wrapped__(pdf).pages) == 6
    # A damaged cache only costs a rebuild.
    (root / "output/.pnp-cache/dogfight.json").write_text("{not json")
    assert "76 of 76 files built" in run_pnp(root, "print", check=True).stdout
    assert not list((root / "output").rglob("*.tmp"))


# Two ideographs of CJK Extension B, which no bundled face covers (the Japanese and Chinese
# subsets cover the common ones, such as 飛機 or 鬱, which per-character fallback prints).
UNCOVERED = "\U00020000\U0002a6a5"
SHOWN = ("'\U00020000' (U+20000)", "'\U0002a6a5' (U+2A6A5)")


def test_missing_glyph_is_an_error_finding_naming_item_language_and_characters(dogfight_copy):
    from fontTools.ttLib import TTFont

    for font in (ROOT / "templates/fonts").glob("*.ttf"):
        cmap = TTFont(font).getBestCmap()
        assert not any(ord(c) in cmap for c in UNCOVERED), f"{font.name} covers {UNCOVERED}"
    root = dogfight_copy
    comp = root / "content/dogfight/components/allied-planes.yaml"
    comp.write_text(comp.read_text().replace("ko: 연합군 비행기,", f"ko: 연합군 {UNCOVERED}기,"))
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode == 1
    findings = json.loads(result.stdout)
    glyphs = [f for f in findings if f["code"] == "missing-glyph" and f.get("box")]
    assert {f.get("box") for f in glyphs} == {"deck", "name"}, findings  # card text and sheet label
    # the component's name is also printed in the ko rulebook's component list
    rulebook = [f for f in findings if f["code"] == "missing-glyph" and not f.get("box")]
    assert [(f["file"], f["lang"]) for f in rulebook] == [("content/dogfight/rules/ko.md", "ko")]
    assert all(shown in rulebook[0]["message"] for shown in SHOWN)
    for f in glyphs:
        assert f["lang"] == "ko" and f["component"] == "allied-planes"
        assert all(shown in f["message"] for shown in SHOWN)
    card = next(f for f in glyphs if f["box"] == "deck" and f.get("item"))
    assert card["item"] == "red-1" and "50 items" in card["message"]
    # print refuses to write anything when check finds errors
    shutil.rmtree(root / "output", ignore_errors=True)
    printed = run_pnp(root, "print")
    assert printed.returncode == 1
    assert not list((root / "output").rglob("*.pdf")) if (root / "output").exists() else True


def test_overflowing_text_is_a_finding(dogfight_copy):
    root = dogfight_copy
    comp = root / "content/dogfight/components/allied-planes.yaml"
    long = "Deflexión: " + "muy " * 60
    comp.write_text(
        comp.read_text().replace(
            'es: "**Deflexión:** quien tenga más de 4 cartas en la mano descarta '
            'hasta quedarse con 4."',
            f'es: "{long}"',
        )
    )
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode == 1
    over = [f for f in json.loads(result.stdout) if f["code"] == "text-overflow"]
    assert len(over) == 1 and over[0]["lang"] == "es" and over[0]["box"] == "deflection"
    assert "5 items" in over[0]["message"]  # one finding for the five 10s


def test_clean_kit_checks_clean(dogfight_copy):
    result = run_pnp(dogfight_copy, "check")
    assert result.returncode == 0, result.stdout
    assert "0 error(s), 0 warning(s)" in result.stdout


def test_manifest_count_mismatch(dogfight_copy):
    root = dogfight_copy
    manifest = root / "content/dogfight/manifest.yaml"
    manifest.write_text(manifest.read_text().replace("count: 25", "count: 24"))
    findings = json.loads(run_pnp(root, "check", "--format", "json").stdout)
    mismatch = [f for f in findings if f["code"] == "count-mismatch"]
    assert len(mismatch) == 1 and "24" in mismatch[0]["message"] and "25" in mismatch[0]["message"]


def test_schema_command_writes_editor_schemas(tmp_path, dogfight_copy):
    out = tmp_path / "schema"
    run_pnp(dogfight_copy, "schema", "--out", str(out), check=True)
    component = json.loads((out / "component.schema.json").read_text())
    assert "matrix" in component["properties"] and component["additionalProperties"] is False
    layout = json.loads((out / "layout.schema.json").read_text())
    assert "boxes" in layout["properties"]
    try:
        import jsonschema  # noqa: F401  (optional: validate a real file against the schema)
    except ImportError:
        return


def test_a_closed_pipe_stops_pnp_quietly(dogfight_copy):
    """`pnp check | head -1`: the reader is gone before pnp writes; no error, no traceback."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen(
        [*PNP, "--root", str(dogfight_copy), "check", "dogfight", "--show-accepted"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # as `head` does once it has its line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141, err  # what a shell shows for SIGPIPE
    assert err == "", err  # not "cannot read or write (Broken pipe)", nor "Exception ignored"


def test_print_options_rebuild_only_the_files_they_change(tmp_path):
    """`--duplex` as the game has it, or `--paper` of a paper already built, builds nothing;
    a back offset rebuilds the card sheets but not the rulebooks (they hold no backs)."""
    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    # one language: the rules are per file, and each language more is two rulebooks more
    run_pnp(root, "new", "g", "--langs", "en", check=True)
    first = run_pnp(root, "print", "g", check=True).stdout
    # files, not jobs: cards and coins on A4 and Letter, the rulebooks, the guides
    assert "8 of 8 files built" in first
    assert "0 of 8 files built" in run_pnp(root, "print", "g", "--duplex", "long-edge").stdout
    assert "0 of 4 files built" in run_pnp(root, "print", "g", "--paper", "a4").stdout
    before = {p: p.stat().st_mtime_ns for p in (root / "output/g").rglob("rulebook*.pdf")}
    assert len(before) == 2
    shifted = run_pnp(root, "print", "g", "--back-offset", "0.5,-0.3", check=True).stdout
    # the sheets with backs and the guides that list them, not the rulebooks
    assert "6 of 8 files built" in shifted
    assert {p: p.stat().st_mtime_ns for p in before} == before


# slow: five builds of a starter kit, one a PNG of every face;
# test_print_options_rebuild_only_the_files_they_change keeps the rebuild rules in `make test`
@pytest.mark.slow
def test_a_run_of_some_exports_still_lists_the_whole_current_kit(tmp_path):
    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    run_pnp(root, "new", "g", "--langs", "es,en", check=True)
    run_pnp(root, "print", "g", check=True)
    kit = _manifest(root, "g")
    run_pnp(root, "print", "g", "--export", "png", check=True)
    after = _manifest(root, "g")
    paths = {f["path"] for f in after["files"]}
    assert {f["path"] for f in kit["files"]} <= paths  # sheets, guides, rulebooks: still there
    assert any(f.get("format") == "png" for f in after["files"])  # and what this run made
    assert after["sheets"] == kit["sheets"]
    # A forced run of one paper rebuilds it and keeps the other paper's records and entries.
    run_pnp(root, "print", "g", "--force", "--paper", "a4", check=True)
    assert {f["path"] for f in kit["files"]} <= {f["path"] for f in _manifest(root, "g")["files"]}
    assert "0 of 16 files built" in run_pnp(root, "print", "g", check=True).stdout
    # An edited card's sheets, not rebuilt by a PNG run, are out of date: no longer listed.
    cards = root / "content/g/components/cards.yaml"
    cards.write_text(cards.read_text().replace("Explorador", "Exploradora"))
    run_pnp(root, "print", "g", "--export", "png", check=True)
    stale = {f["path"] for f in _manifest(root, "g")["files"]}
    assert "output/g/es/cards-a4.pdf" in paths and "output/g/es/cards-a4.pdf" not in stale
    assert "output/g/es/coins-a4.pdf" in stale  # the coins did not change

"""Fonts are parsed when drawn with, yet every font fonts.yaml names is vouched for up front.

A command used to parse all 17 bundled faces (14 MB, 0.14 s of CPU) whatever it drew; a Latin
deck draws with two or three. Faces are now parsed the first time a text needs them (a
fallback face only for a character the primary one lacks), while a font file that cannot be
used is still one located error when the font book is made, as before: its bytes either
parsed before (kept in the cache) or are parsed then.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import ROOT, run_pnp

from generator import session
from generator.cache import font_cache
from generator.load.project import DEFAULTS
from generator.render import fonts

CORPUS = ROOT / "tests" / "bad_inputs"


def test_a_latin_text_parses_its_own_face_and_a_missing_letter_its_fallbacks():
    book = fonts.fontbook(DEFAULTS / "fonts")
    assert book.parsed() == []
    chain = book.chain("gothic", "bold", "en")
    assert chain.width("Deal 3 damage", 9) > 0 and chain.runs("Deal 3") == [
        (chain.primary, "Deal 3")
    ]
    assert [f.name for f in book.parsed()] == ["gothic-bold"]
    # a Greek letter the gothic face lacks: the first fallback (Latin's sans) has it
    assert chain.runs("Deal 3 α") == [(chain.primary, "Deal 3 "), (book.face("sans", "bold"), "α")]
    assert [f.name for f in book.parsed()] == ["gothic-bold", "sans-bold"]
    # a letter no face has: every face is tried, in order, and it is missing
    assert chain.missing("Deal ☃") == "☃"
    parsed = {f.name for f in book.parsed()}
    assert {"gothic-bold", "sans-bold", "jp-bold"} <= parsed
    assert len(chain.faces) == len(parsed)


def test_a_face_that_parsed_before_is_vouched_for_without_parsing(tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(fonts, "_PARSED", {})
    monkeypatch.setattr(fonts, "_USABLE", set())
    parsed: list[str] = []
    real_load = font_cache.load

    def counted(name, data, digest):
        parsed.append(name)
        return real_load(name, data, digest)

    monkeypatch.setattr(font_cache, "load", counted)
    with session.new():
        fonts.fontbook(DEFAULTS / "fonts")
    assert parsed == []  # an empty cache, but the bytes of the fonts pnp ships
    # a font pnp does not ship, with an empty cache: each file is parsed to be vouched for
    monkeypatch.setattr(fonts, "shipped_digests", frozenset)
    with session.new():
        fonts.fontbook(DEFAULTS / "fonts")
    assert len(parsed) == 17
    parsed.clear()
    monkeypatch.setattr(fonts, "_PARSED", {})
    monkeypatch.setattr(fonts, "_USABLE", set())
    with session.new():
        book = fonts.fontbook(DEFAULTS / "fonts")
        assert parsed == [] and book.parsed() == []  # the kept parses vouch for them
        book.face("sans", "italic")
    assert parsed == ["sans-italic"]


def _project(dest: Path, font_bytes: bytes) -> Path:
    """The bad-input corpus's base game, whose fonts.yaml adds a family no layout uses."""
    shutil.copytree(CORPUS / "_base", dest)
    spec = (DEFAULTS / "fonts/fonts.yaml").read_text(encoding="utf-8")
    spec = spec.rstrip("\n") + "\n  spare:\n    regular: Spare.ttf\n"  # the last family
    (dest / "templates/fonts").mkdir(parents=True)
    (dest / "templates/fonts/fonts.yaml").write_text(spec, encoding="utf-8")
    (dest / "templates/fonts/Spare.ttf").write_bytes(font_bytes)
    return dest


def test_a_font_no_face_draws_with_that_cannot_be_used_is_still_an_error(tmp_path):
    root = _project(tmp_path / "p", b"\x00\x01\x00\x00 not really a font" * 40)
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode != 0, result.stdout
    spec = (root / "templates/fonts/fonts.yaml").read_text(encoding="utf-8").splitlines()
    line = spec.index("    regular: Spare.ttf") + 1
    errors = [f for f in json.loads(result.stdout) if f["severity"] == "error"]
    assert errors, result.stdout
    for found in errors:  # the game's, and each language's faces
        assert found["code"] == "bad-font" and "Spare.ttf" in found["message"], found
        assert found["file"] == "templates/fonts/fonts.yaml" and found["line"] == line, found


def test_sheets_embed_only_the_faces_they_draw_with_and_pass_the_font_lint(tmp_path):
    """The lint of every written PDF (pdflint.BundledFonts) allows what was drawn without
    parsing the rest; the sheets embed only the faces their texts need."""
    import pikepdf

    spare = (DEFAULTS / "fonts/PnPSansHebrew-Regular.ttf").read_bytes()
    root = _project(tmp_path / "p", spare)
    result = run_pnp(root, "print", "--export", "sheets")
    assert result.returncode == 0, result.stdout + result.stderr
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    sheets = [f["path"] for f in manifest["files"] if f["kind"] == "components"]
    assert sheets
    embedded = set()
    for rel in sheets:
        with pikepdf.open(root / rel) as pdf:
            for page in pdf.pages:
                for font in (page.obj.get("/Resources", {}).get("/Font") or {}).values():
                    embedded.add(str(font.get("/BaseFont")).split("+")[-1])
    assert embedded and all(name.startswith("PnPGothic") for name in embedded), embedded


def test_line_breaks_are_never_missing_and_a_carriage_return_still_is_not_covered():
    face = fonts.fontbook(DEFAULTS / "fonts").chain("gothic", "regular", "en").primary
    assert face.missing("Deal 3\ndamage\tnow\u00ad") == ""
    assert face.missing("Deal\n☃\r") == "☃"  # a carriage return is not reported either
    assert face.covers("\n") and face.covers("\u200b") and not face.covers("\r")
    assert not face.covers("☃")


def test_check_parses_before_forking_only_the_faces_its_languages_are_set_in():
    """`pnp check` parses fonts once before its workers fork: the default family and the
    faces of the games' scripts, not the other scripts' faces (9 MB of CJK) that only a
    character they alone have would reach."""
    with session.new():
        book = fonts.fontbook(DEFAULTS / "fonts")
        book.parse_for(["en", "ko"])
        assert {f.name.split("-")[0] for f in book.parsed()} == {"gothic", "sans"}
    with session.new():
        book = fonts.fontbook(DEFAULTS / "fonts")
        book.parse_for(["he"])
        assert "hebrew" in {f.name.split("-")[0] for f in book.parsed()}


def test_the_rulebook_glyph_check_reads_a_fallback_face_only_for_a_letter_that_needs_it(
    monkeypatch,
):
    from types import SimpleNamespace

    from generator.check import rulebooks
    from generator.rulebook import book as rulebook

    monkeypatch.setattr(rulebook, "printed_text", lambda text: text)
    project = SimpleNamespace(fonts=DEFAULTS / "fonts")
    view = SimpleNamespace(content=SimpleNamespace(project=project, rules={}), rel=str)
    with session.new():
        book = fonts.fontbook(DEFAULTS / "fonts")
        run = SimpleNamespace(languages={"en": "Deal 3 damage", "ko": "피해 3을 준다"})
        assert rulebooks._glyphs(view, run) == []
        assert {f.name.split("-")[0] for f in book.parsed()} <= {"gothic", "sans"}
        run = SimpleNamespace(languages={"en": "Deal 3 damage (שלום)"})
        assert rulebooks._glyphs(view, run) == []  # the Hebrew face has them
        assert "hebrew" in {f.name.split("-")[0] for f in book.parsed()}
        run = SimpleNamespace(languages={"en": "Deal ☃"})
        (found,) = rulebooks._glyphs(view, run)
        assert found.code == "missing-glyph" and "U+2603" in found.message


def test_the_shipped_digests_are_the_bundled_fonts_and_each_one_parses():
    """fonts/digests.yaml lets a font book vouch for pnp's own fonts without parsing them: it
    lists exactly the bundled font files, by their bytes, and ReportLab parses each one."""
    import hashlib

    from reportlab.pdfbase.ttfonts import TTFont

    files = sorted((DEFAULTS / "fonts").glob("*.ttf"))
    digests = {f.name: hashlib.sha256(f.read_bytes()).hexdigest() for f in files}
    listed = (DEFAULTS / "fonts/digests.yaml").read_text(encoding="utf-8")
    entries = dict(
        line.split(": ") for line in listed.splitlines() if line and not line.startswith("#")
    )
    assert entries == digests, "\n".join(f"{n}: {d}" for n, d in digests.items())
    assert fonts.shipped_digests() == frozenset(digests.values())
    for file in files:
        assert TTFont(f"shipped-{file.stem}", str(file)).face.charToGlyph

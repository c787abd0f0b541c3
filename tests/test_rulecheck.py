"""pdf-structure (the PDF lint and the Form XObject fix), rulebooks run by `pnp check`,
figure-missing, missing glyphs in rulebooks, the accepted summary and the schemas.

Each finding has a minimal game that triggers it and the same game clean. The game ("mini")
is written here: two cards with a shared back whose SVG art is half transparent (the defect
of Form XObjects losing their ExtGState), es/en rulebooks with a component list and a figure.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from conftest import ROOT, run_pnp, shared_build

from generator.build import pdflint
from generator.render.pdfform import end_form

GAME = "mini"

FILES = {
    "game.yaml": """\
id: mini
title: {es: Mini, en: Mini}
languages: [es, en]
print: {papers: [a4], one_per_page: false}
rulebook: {bilingual: [[es, en]]}
""",
    "manifest.yaml": "components:\n  cards: {count: 3}\n",
    "components/cards.yaml": """\
id: cards
name: {es: Carta, en: Card}
kind: card
size: poker
layout: mini/front
back: mini/back
items:
  - {id: ace, count: 2, data: {label: A}}
  - {id: king, count: 1, data: {label: K}}
""",
    "art/smoke.svg": """\
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="100" height="100">
  <rect x="0" y="0" width="100" height="100" fill="#ff0000" fill-opacity="0.4"/>
</svg>
""",
    "rules/es.md": """\
# Mini

## 1 Componentes

{{ component_list() }}

## 2 Preparación

Coloca las cartas como en la imagen.

{{ figure('cards', 'ace') }}

- Cartas:
  - el as y el rey (una lista anidada: su viñeta ◦ viene de la fuente incluida)
""",
    "rules/en.md": """\
# Mini

## 1 Components

{{ component_list() }}

## 2 Setup

Lay out the cards as in the picture.

{{ figure('cards', 'ace') }}

- Cards:
  - the ace and the king (a nested list: its ◦ bullet comes from the bundled font)
""",
}
LAYOUTS = {
    "front.yaml": """\
background: "#ffffff"
boxes:
  - {id: name, kind: text, text: "{{ label }}", x: 5, y: 5, w: 53, h: 12, size: 12pt}
""",
    # the whole back is the half-transparent SVG: a shared back is one Form XObject per PDF,
    # and the SVG another one inside it
    "back.yaml": """\
background: "#ffffff"
boxes:
  - {id: smoke, kind: svg, src: art/smoke.svg, x: 0, y: 0, w: 100%, h: 100%, fit: stretch,
     bleed: true}
""",
}


def mini_project(tmp_path: Path) -> Path:
    """A project with the real templates (but the fonts: pnp's own, as in a project made by
    `pnp init`) and the mini game's layouts and content."""
    root = tmp_path / "proj"
    templates = root / "templates"
    templates.mkdir(parents=True)
    # copies, not links: a link out of the project is refused (untrusted content)
    for entry in (ROOT / "templates").iterdir():
        if entry.name in ("layouts", "fonts"):
            continue
        if entry.is_dir():
            shutil.copytree(entry, templates / entry.name)
        else:
            shutil.copy(entry, templates / entry.name)
    (templates / "layouts").mkdir()
    shutil.copytree(ROOT / "templates/layouts/base", templates / "layouts" / "base")
    for name, text in LAYOUTS.items():
        path = templates / "layouts" / GAME / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for name, text in FILES.items():
        path = root / "content" / GAME / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "content" / GAME / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def check_json(root: Path) -> tuple[int, list[dict]]:
    result = run_pnp(root, "check", "--format", "json")
    return result.returncode, json.loads(result.stdout)


def errors(found: list[dict]) -> list[dict]:
    return [f for f in found if f["severity"] == "error" and not f.get("accepted")]


@pytest.fixture
def mini(tmp_path) -> Path:
    return mini_project(tmp_path)


@pytest.fixture(scope="module")
def mini_printed(tmp_path_factory) -> Path:
    """The mini project printed (`pnp print -j 1`), once per test run for the tests that only
    read what it wrote (tests/conftest.py: shared_build)."""

    def build(folder: Path) -> None:
        run_pnp(mini_project(folder), "print", "-j", "1", check=True)

    return shared_build(tmp_path_factory, "rulecheck-mini-printed", build)[0] / "proj"


# ---------------------------------------------------------------- the PDF lint


def _form_pdf(path: Path, fixed: bool) -> Path:
    from reportlab.pdfgen.canvas import Canvas

    canvas = Canvas(str(path), pagesize=(200, 200), initialFontName="Times-Roman")
    canvas.beginForm("smoke", 0, 0, 200, 200)
    canvas.setFillAlpha(0.4)
    canvas.setFillColorRGB(1, 0, 0)
    canvas.rect(0, 0, 200, 200, fill=1, stroke=0)
    if fixed:
        end_form(canvas)
    else:
        canvas.endForm()
    canvas.doForm("smoke")
    canvas.showPage()
    canvas.save()
    return path


def test_lint_finds_an_undefined_extgstate_in_a_form_and_end_form_fixes_it(tmp_path):
    broken = pdflint.lint(_form_pdf(tmp_path / "broken.pdf", fixed=False))
    assert [str(p) for p in broken if "ExtGState" in p.message] == [
        "page 1, form /FormXob.smoke: ExtGState /gRLs0 is used but not defined in its resources"
    ]
    fixed = pdflint.lint(_form_pdf(tmp_path / "fixed.pdf", fixed=True))
    assert not [p for p in fixed if "ExtGState" in p.message]


# Content streams with every trap the fast scanner must step over: operators inside literal
# strings (nested and escaped parentheses), hex strings, comments, dictionaries, arrays.
_TRICKY_STREAMS = [
    b"q /gRLs0 gs BT /F1 12 Tf (text /F9 12 Tf \\( and (nested /X0 Do) parens) Tj ET /Fm0 Do Q",
    b"% a comment /Gone gs\n0.5 /P0 scn /DeviceRGB cs /CS0 CS <2F41207368> Tj /Sh1 sh",
    b"/OC /oc1 BDC << /MCID 0 /Y /Z >> BDC BT /F2 -8.5 Tf [(a) 20 (b\\) /F7 1 Tf)] TJ ET EMC",
    b"/A#20B gs (a string with /Q0 Do inside) Tj",
    # an inline image's binary data may hold anything: such a stream goes to qpdf's tokenizer
    b"q /GS1 gs BI /W 2 /H 1 /BPC 8 /CS /G ID \x00/F9 1 Tf EI Q /Fm1 Do",
    b"",
]


@pytest.mark.parametrize("data", _TRICKY_STREAMS)
def test_the_resource_scanner_agrees_with_qpdfs_tokenizer(data):
    assert pdflint.names_used(data) == pdflint._names_used_parsed(data)


@pytest.mark.parametrize("data", _TRICKY_STREAMS)
def test_reading_a_stream_plainly_misses_no_use(data):
    """The lint reads a stream first as it is (no string blanked): it may find more uses (a
    string reading "/F9 12 Tf", an inline image's data), never fewer; a stream with a comment
    is not read that way (a comment can hide the use a match ends in)."""
    plain = pdflint._uses_read_plainly(data)
    if b"%" in data:
        assert plain is None
        return
    assert plain is not None
    for kind, names in pdflint.names_used(data).items():
        assert names <= plain.get(kind, set())
    if b"/F9 12 Tf" in data:  # inside a string: found plainly, not by the careful reading
        assert "/F9" in plain["Font"] and "/F9" not in pdflint.names_used(data).get("Font", ())


@pytest.mark.parametrize(
    ("added", "found"),
    [
        (b" BT /F1 12 Tf (reads /F9 12 Tf) Tj ET", []),
        (b" BT /F9 12 Tf (text) Tj ET", ["page 1, page: Font /F9 is used but not defined"]),
        (b" BT /F9 % /F1\n12 Tf (text) Tj ET", ["page 1, page: Font /F9 is used but not defined"]),
    ],
)
def test_a_use_is_judged_by_the_careful_reading(tmp_path, added, found):
    """A name the plain reading finds undefined sends the page to the careful reading: a
    string that reads like a use is no problem, a real use of an undefined font is one, also
    where a comment ends on the line before it."""
    import pikepdf
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "page.pdf"
    canvas = Canvas(str(path), pagesize=(200, 200), initialFontName="Times-Roman")
    canvas.drawString(10, 10, "page")
    canvas.showPage()
    canvas.save()
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        page = pdf.pages[0].obj
        page["/Contents"].write(page["/Contents"].read_bytes() + added)
        pdf.save(path)
    problems = [str(p) for p in pdflint.lint(path) if "not embedded" not in p.message]
    assert [p.split(" in its")[0] for p in problems] == found


@pytest.mark.slow  # qpdf over every stream of a whole real kit
def test_the_resource_scanner_agrees_with_qpdf_on_every_stream_of_a_real_kit(mini):
    """The scanner reads only the operators that name resources; qpdf tokenizes every one.
    On every content stream pnp writes (cards, sheets, boards, rulebooks), they agree."""
    import pikepdf

    run_pnp(mini, "print", "-j", "1", check=True)
    pdfs = sorted((mini / "output" / GAME).rglob("*.pdf"))
    streams = 0

    def walk(contents, resources, seen):
        nonlocal streams
        data = pdflint._stream_bytes(contents)
        assert pdflint.names_used(data) == pdflint._names_used_parsed(data), pdf
        streams += 1
        forms = (resources or {}).get("/XObject") or {}
        for _name, form in forms.items():
            if form.get("/Subtype") == "/Form" and form.objgen not in seen:
                seen.add(form.objgen)
                walk(form, form.get("/Resources") or resources, seen)

    for pdf in pdfs:
        seen: set = set()
        with pikepdf.open(pdf) as doc:
            for page in doc.pages:
                walk(page.obj["/Contents"], page.obj.get("/Resources"), seen)
    assert len(pdfs) >= 5 and streams >= 15


def test_pages_sharing_one_font_dictionary_are_each_checked_against_it(tmp_path):
    """A sheet file's pages share one indirect /Font dictionary: its names are read once, and
    its fonts looked at once, yet a font a later page uses and the dictionary lacks is found on
    that page, and an unembedded font in it is one problem (the first page's)."""
    import pikepdf
    from reportlab.pdfgen.canvas import Canvas

    path = tmp_path / "pages.pdf"
    canvas = Canvas(str(path), pagesize=(200, 200), initialFontName="Times-Roman")
    for n in range(3):
        canvas.drawString(10, 10, f"page {n + 1}")
        canvas.showPage()
    canvas.save()
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        fonts = [page.obj["/Resources"]["/Font"] for page in pdf.pages]
        assert fonts[0].is_indirect and {f.objgen for f in fonts} == {fonts[0].objgen}
        third = pdf.pages[2].obj
        third["/Contents"].write(third["/Contents"].read_bytes() + b" BT /F9 12 Tf ET")
        pdf.save(path)
    found = [str(p) for p in pdflint.lint(path)]
    assert found == [
        "page 1, page: font /F1 (Times-Roman) is not embedded",
        "page 3, page: Font /F9 is used but not defined in its resources",
    ]


def test_lint_finds_unembedded_and_foreign_fonts(tmp_path):
    # The canvas's standard font (Times-Roman, never embedded) sits in every resource dictionary
    found = pdflint.lint(_form_pdf(tmp_path / "times.pdf", fixed=True))
    assert any("(Times-Roman) is not embedded" in p.message for p in found)

    # A TrueType font that is embedded but does not come from templates/fonts/
    fontTools = pytest.importorskip("fontTools.ttLib")
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas

    font = fontTools.TTFont(ROOT / "templates/fonts/PnPGothic-Regular.ttf")
    for record in font["name"].names:
        if record.nameID in (1, 4, 6, 16):
            record.string = "OtherSans"
    font.save(tmp_path / "other.ttf")
    pdfmetrics.registerFont(TTFont("other-sans-test", str(tmp_path / "other.ttf")))
    path = tmp_path / "other.pdf"
    canvas = Canvas(str(path), pagesize=(200, 200), initialFontName="other-sans-test")
    canvas.setFont("other-sans-test", 12)
    canvas.drawString(10, 10, "hola")
    canvas.showPage()
    canvas.save()
    allowed = pdflint.bundled_font_names(ROOT / "templates/fonts")
    found = pdflint.lint(path, allowed)
    assert len(found) == 1 and "(OtherSans) is not one of the bundled fonts" in found[0].message
    # as a build asks (build/run.py): the faces parsed so far first, then all of them
    asked = pdflint.lint(path, pdflint.BundledFonts(ROOT / "templates/fonts"))
    assert [p.message for p in asked] == [p.message for p in found]
    assert pdflint.lint(path) == []  # without a list of bundled fonts, only embedding counts


def test_a_pdf_failing_the_lint_is_not_committed(mini, monkeypatch):
    """The build writes into a temporary file, lints it, and only then renames it."""
    from generator import fsio
    from generator.build import run as build
    from generator.errors import ContentError
    from generator.load.project import Project

    def broken(tmp: Path, allowed=None):
        return [pdflint.Problem(1, "page", "ExtGState /gRLs9 is used but not defined")]

    monkeypatch.setattr(pdflint, "lint", broken)
    out = mini / "output" / GAME / "es" / "cards-a4.pdf"
    with pytest.raises(ContentError) as caught, fsio.atomic_path(out) as tmp:
        tmp.write_bytes(b"%PDF-1.4 not really")
        build.lint_written(Project(mini), tmp, "output/mini/es/cards-a4.pdf")
    assert caught.value.code == "pdf-structure"
    assert "gRLs9" in caught.value.message
    assert not out.exists() and not list(out.parent.iterdir())
    # and through the CLI: `pnp print` stops with the finding and commits nothing
    monkeypatch.undo()


def test_print_stops_on_a_pdf_structure_problem_and_writes_no_pdf(mini):
    plugin = mini / "sitecustomize.py"  # makes the lint fail inside the pnp process
    plugin.write_text(
        "from generator.build import pdflint\n"
        "pdflint.lint = lambda path, allowed=None: "
        "[pdflint.Problem(1, 'page', 'ExtGState /gRLs0 is used but not defined')]\n"
    )
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=f"{mini}{os.pathsep}{ROOT}")
    result = subprocess.run(
        [sys.executable, "-m", "generator", "--root", str(mini), "print", "-j", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert result.returncode != 0
    assert "pdf-structure" in result.stderr and "gRLs0" in result.stderr
    assert not list((mini / "output").rglob("*.pdf"))


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(
            f"{name} not installed (Debian: {'ghostscript' if name == 'gs' else 'poppler-utils'})"
        )
    return path


def open_with_tools(pdf: Path) -> list[str]:
    """Messages Ghostscript (stopping on any error) and poppler print when opening `pdf`."""
    messages = []
    gs = subprocess.run(
        [
            _tool("gs"),
            "-q",
            "-dPDFSTOPONERROR",
            "-dBATCH",
            "-dNOPAUSE",
            "-dSAFER",
            "-sDEVICE=nullpage",
            str(pdf),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if gs.returncode or gs.stdout.strip() or gs.stderr.strip():
        messages.append(f"gs ({gs.returncode}): {(gs.stdout + gs.stderr).strip()[:300]}")
    with tempfile.TemporaryDirectory() as pages:  # not beside `pdf`: it may be a shared build
        pop = subprocess.run(
            [_tool("pdftoppm"), "-r", "10", "-png", str(pdf), str(Path(pages) / pdf.stem)],
            capture_output=True,
            text=True,
            timeout=300,
        )
    if pop.returncode or pop.stderr.strip():
        messages.append(f"pdftoppm ({pop.returncode}): {pop.stderr.strip()[:300]}")
    return messages


def test_tools_reject_the_broken_form_and_accept_the_fixed_one(tmp_path):
    assert open_with_tools(_form_pdf(tmp_path / "broken.pdf", fixed=False))
    assert open_with_tools(_form_pdf(tmp_path / "fixed.pdf", fixed=True)) == []


def test_transparent_art_in_a_shared_back_prints_clean_and_transparent(mini_printed):
    mini = mini_printed
    pdf = mini / "output" / GAME / "es" / "cards-a4.pdf"
    allowed = pdflint.bundled_font_names(ROOT / "templates/fonts")
    assert pdflint.lint(pdf, allowed) == []
    assert open_with_tools(pdf) == []
    # the back page: the 40 % red SVG over white is pink, not opaque red
    import pypdfium2 as pdfium

    manifest = json.loads((mini / "output" / GAME / "build-manifest.json").read_text())
    sheet = next(
        s
        for s in manifest["sheets"]
        if s["file"].endswith("es/cards-a4.pdf") and s["side"] == "back"
    )
    slot = sheet["slots"][0]
    doc = pdfium.PdfDocument(str(pdf))
    px_per_mm = 4
    image = doc[sheet["page"] - 1].render(scale=px_per_mm * 25.4 / 72).to_pil()
    x = (slot["x"] + slot["w"] / 2) * px_per_mm
    y = image.height - (slot["y"] + slot["h"] / 2) * px_per_mm
    r, g, b = image.convert("RGB").getpixel((int(x), int(y)))
    assert r > 240 and 130 < g < 180 and 130 < b < 180, (r, g, b)  # 255, 153, 153


def test_rulebooks_of_the_mini_game_use_only_bundled_fonts(mini_printed):
    """Nested list bullets (◦) used to come from a system font (DejaVu)."""
    mini = mini_printed
    allowed = pdflint.bundled_font_names(ROOT / "templates/fonts")
    rulebooks = sorted((mini / "output" / GAME).rglob("rulebook*.pdf"))
    assert len(rulebooks) == 3  # es, en and the es-en edition
    for pdf in rulebooks:
        assert pdflint.lint(pdf, allowed) == [], pdf


def _korean_emphasis_pdf(path: Path, extra_css: str) -> Path:
    from weasyprint import HTML

    regular = (ROOT / "templates/fonts/PnPGothic-Regular.ttf").as_uri()
    bold = (ROOT / "templates/fonts/PnPGothic-Bold.ttf").as_uri()
    html = f"""<html><head><style>
    @font-face {{ font-family: "PnP Gothic"; src: url("{regular}"); font-weight: 400; }}
    @font-face {{ font-family: "PnP Gothic"; src: url("{bold}"); font-weight: 700; }}
    body {{ font-family: "PnP Gothic"; }} em {{ font-style: italic; }} {extra_css}
    </style></head><body lang="ko"><p>보통 <em><span class="kw">강조</span></em></p>"""
    HTML(string=html).write_pdf(str(path))
    return path


def test_synthetic_oblique_hangul_is_found_and_the_rulebook_style_avoids_it(tmp_path):
    allowed = pdflint.bundled_font_names(ROOT / "templates/fonts")
    slanted = pdflint.lint(_korean_emphasis_pdf(tmp_path / "slanted.pdf", ""), allowed)
    assert [p.message.split(") ", 1)[1] for p in slanted] == [
        "sets Hangul in a synthetic oblique (a script without italics: scripts.yaml)"
    ]
    css = (ROOT / "templates/rulebook/rulebook.css").read_text(encoding="utf-8")
    rule = next(line for line in css.splitlines() if line.startswith("em .kw"))
    assert pdflint.lint(_korean_emphasis_pdf(tmp_path / "upright.pdf", rule), allowed) == []


@pytest.mark.parametrize("game", ["dogfight", "red-code", "sub-zero", "the-hunt-begins"])
def test_every_pdf_of_every_game_passes_the_lint_and_opens_in_gs_and_poppler(built, game):
    """Every PDF `pnp print` writes (components, print-shop, rulebooks, bilingual editions)."""
    pdfs = sorted((built.root / "output" / game).rglob("*.pdf"))
    listed = {f["path"] for f in built.manifest(game)["files"] if f["path"].endswith(".pdf")}
    assert pdfs and {str(p.relative_to(built.root)) for p in pdfs} == listed
    allowed = pdflint.bundled_font_names(ROOT / "templates/fonts")
    problems = {str(p.relative_to(built.root)): pdflint.lint(p, allowed) for p in pdfs}
    assert {k: v for k, v in problems.items() if v} == {}
    messages = {str(p.relative_to(built.root)): open_with_tools(p) for p in pdfs}
    assert {k: v for k, v in messages.items() if v} == {}


# ---------------------------------------------------------------- rulebooks in `pnp check`


def test_mini_is_clean_and_prints(mini):
    code, found = check_json(mini)
    assert code == 0, found
    assert [f for f in found if f["severity"] != "info"] == []


RULEBOOK_ERRORS = [
    # (what, file, old, new, code of the finding, line)
    (
        "broken Jinja",
        "rules/es.md",
        "{{ component_list() }}",
        "{{ component_list( }}",
        "rules-template",
        5,
    ),
    (
        "unknown helper argument",
        "rules/en.md",
        "{{ component_list() }}",
        "{{ component_list(only=['dice']) }}",
        "rules-template",
        5,
    ),
    (
        "unknown item in a figure",
        "rules/es.md",
        "figure('cards', 'ace')",
        "figure('cards', 'queen')",
        "rules-template",
        11,
    ),
    ("numbering gap", "rules/es.md", "## 2 Preparación", "## 3 Preparación", "rules-numbering", 7),
    (
        "section missing in a translation",
        "rules/en.md",
        "## 2 Setup",
        "### 1.1 Setup",
        "rules-missing-section",
        None,
    ),
    (
        "missing image",
        "rules/en.md",
        "Lay out the cards",
        "![](art/setup.png) Lay out the cards",
        "missing-art",
        None,
    ),
    (
        "same language twice in a bilingual edition",
        "game.yaml",
        "[[es, en]]",
        "[[es, es]]",
        "schema",  # refused when game.yaml loads
        None,
    ),
    (
        "unknown rulebook paper",
        "game.yaml",
        "bilingual: [[es, en]]",
        "bilingual: [[es, en]], papers: [a9]",
        None,
        None,
    ),
]


@pytest.mark.parametrize("case", RULEBOOK_ERRORS, ids=[c[0] for c in RULEBOOK_ERRORS])
def test_rulebook_errors_are_check_findings_so_print_never_fails_on_them(mini, case):
    what, name, old, new, code, line = case
    edit(mini, name, old, new)
    exit_code, found = check_json(mini)
    assert exit_code in (1, 2), found
    bad = errors(found)
    assert bad, f"{what}: no error"
    if code is not None:
        assert code in {f["code"] for f in bad}, bad
    if line is not None:
        assert any(f.get("line") == line for f in bad if f["code"] == code), bad
    # and print refuses before writing anything
    result = run_pnp(mini, "print", "-j", "1")
    assert result.returncode in (1, 2)
    assert not list((mini / "output").rglob("*.pdf")) if (mini / "output").exists() else True


def test_check_reports_every_broken_section_not_only_the_first(mini):
    edit(mini, "rules/es.md", "{{ component_list() }}", "{{ component_list( }}")
    edit(mini, "rules/es.md", "figure('cards', 'ace')", "figure('cards', 'queen')")
    _, found = check_json(mini)
    assert sorted((f["code"], f["line"]) for f in errors(found)) == [
        ("rules-template", 5),
        ("rules-template", 11),
    ]


def test_check_draws_no_figure_and_writes_nothing(mini):
    run_pnp(mini, "check", check=True)
    assert not (mini / "output").exists()


# ---------------------------------------------------------------- glyphs, figures


def test_a_rulebook_character_the_bundled_font_lacks_is_named(mini):
    edit(mini, "rules/en.md", "Lay out the cards", "Lay out the ☃ cards")
    _, found = check_json(mini)
    glyphs = [f for f in found if f["code"] == "missing-glyph"]
    assert len(glyphs) == 1
    assert "'☃' (U+2603)" in glyphs[0]["message"]
    assert glyphs[0]["file"].endswith("rules/en.md") and glyphs[0]["line"] == 9


def test_figure_missing(mini):
    edit(mini, "rules/en.md", "{{ figure('cards', 'ace') }}", "")
    _, found = check_json(mini)
    missing = [f for f in found if f["code"] == "figure-missing"]
    assert [(f["lang"], f["line"], f["severity"]) for f in missing] == [("en", 9, "warning")]
    assert "'as in the picture'" in missing[0]["message"]
    # an image is a figure too
    edit(mini, "rules/en.md", "as in the picture.", "as in the picture.\n\n![](art/smoke.svg)")
    _, found = check_json(mini)
    assert not [f for f in found if f["code"] == "figure-missing"]


def test_figure_phrases_are_language_data(mini):
    """A phrase added to templates/languages/<lang>.yaml is found; nothing is hard-coded."""
    languages = mini / "templates" / "languages"
    edit(mini, "rules/es.md", "{{ figure('cards', 'ace') }}", "")
    edit(mini, "rules/es.md", "como en la imagen", "según el esquema")
    _, found = check_json(mini)
    assert not [f for f in found if f["code"] == "figure-missing"]
    with open(languages / "es.yaml", "a", encoding="utf-8") as fh:
        fh.write("  - el esquema\n")
    _, found = check_json(mini)
    assert [f["lang"] for f in found if f["code"] == "figure-missing"] == ["es"]


# ---------------------------------------------------------------- accepted, schema


def test_accepted_findings_are_one_line_per_game_unless_asked(mini):
    edit(mini, "rules/en.md", "{{ figure('cards', 'ace') }}", "")
    (mini / "content" / GAME / "accepted.yaml").write_text(
        "accepted:\n  - code: figure-missing\n    reason: the picture comes in the next edition\n"
    )
    short = run_pnp(mini, "check")
    assert short.returncode == 0
    assert "mini: 1 accepted (figure-missing 1); --show-accepted lists them" in short.stdout
    assert "next edition" not in short.stdout
    full = run_pnp(mini, "check", "--show-accepted")
    assert "accepted: [figure-missing]" in full.stdout and "next edition" in full.stdout


def test_schema_covers_glossary_accepted_and_i18n_sync(tmp_path):
    result = run_pnp(ROOT, "schema", "--out", str(tmp_path))
    assert result.returncode == 0, result.stderr
    for name in ("glossary", "accepted", "i18n-sync"):
        schema = json.loads((tmp_path / f"{name}.schema.json").read_text())
        assert schema["title"] == f"pnp {name} file"
    accepted = json.loads((tmp_path / "accepted.schema.json").read_text())
    item = accepted["$defs"]["Acceptance"]
    assert set(item["required"]) == {"code", "reason"}
    sync = json.loads((tmp_path / "i18n-sync.schema.json").read_text())
    assert {"source", "languages"} <= set(sync["properties"])

"""Rulebooks on real PDFs: Dogfight in es, en, ko and the es-en bilingual edition.

Everything is read back from the PDFs: the text (pypdfium2), the embedded fonts (pypdf +
fontTools) and, for the bilingual edition, each column of each page by position.
"""

from __future__ import annotations

import html as htmllib
import io
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import copy_project, shared_build
from fontTools.ttLib import TTFont
from pdfutil import font_is_embedded, fonts, reader

from generator.errors import ContentError
from generator.load.content import load_game
from generator.load.project import Project
from generator.load.rules_source import parse_rules
from generator.rulebook import book as rulebook

MM = 72 / 25.4
LANGS = ("es", "en", "ko")
HANGUL = re.compile(r"[\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


def norm(text: str) -> str:
    return " ".join(text.split())


def page_texts(path: Path) -> list[str]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        return [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    finally:
        pdf.close()


def headings(content, lang: str) -> list[tuple[str, str]]:
    rules = parse_rules(content.dir / "rules" / f"{lang}.md", lang)
    return [(s.number, s.title) for s in rules.sections]


def heading_re(number: str, title: str) -> re.Pattern:
    return re.compile(r"(?<![\d.])" + re.escape(f"{number} {norm(title)}"))


def is_toc(text: str) -> bool:
    return ". . . ." in text


@pytest.fixture(scope="module")
def dogfight(tmp_path_factory):
    """Dogfight's rulebooks built once (for every `-n` process) into a copy of the project."""

    def build(folder: Path) -> dict:
        root = copy_project(folder, ("dogfight",))
        content = load_game(Project(root), "dogfight")
        out = root / "output" / "dogfight"
        built = {}
        for lang in LANGS:
            path = out / lang / "rules-a4.pdf"
            built[lang] = (path, rulebook.render_rulebook(content, lang, "a4", path))
        for a, b in (("es", "en"), ("es", "ko")):
            path = out / f"{a}-{b}" / "rules-a4.pdf"
            built[f"{a}-{b}"] = (path, rulebook.render_bilingual(content, a, b, "a4", path))
        return built

    root, built = shared_build(tmp_path_factory, "rulebook-dogfight", build)
    return load_game(Project(root), "dogfight"), built


# ---------------------------------------------------------------- one language


@pytest.mark.parametrize("lang", LANGS)
def test_every_section_of_the_source_appears_in_order(dogfight, lang):
    content, built = dogfight
    path, result = built[lang]
    source = [n for n, _ in headings(content, content.languages[0])]
    assert result["sections"] == source
    assert result["pages"] == len(reader(path).pages)
    texts = page_texts(path)
    body = norm(" ".join(t for t in texts[1:] if not is_toc(t)))
    position = 0
    for number, title in headings(content, lang):
        match = heading_re(number, title).search(body, position)
        assert match, f"{lang}: heading '{number} {title}' not found after position {position}"
        position = match.end()
    # and each heading sits on the page the API reports
    for number, title in headings(content, lang):
        page = result["section_pages"][number]
        assert heading_re(number, title).search(norm(texts[page - 1])), (lang, number, page)


@pytest.mark.parametrize("lang", LANGS)
def test_table_of_contents_gives_the_right_pages(dogfight, lang):
    _content, built = dogfight
    path, result = built[lang]
    toc = next(t for t in page_texts(path) if is_toc(t))
    listed = {}
    for line in toc.splitlines():
        m = re.match(r"^\s*(\d+(?:\.\d+)*)\s+.*?[ .]+(\d+)\s*$", line)
        if m:
            listed[m.group(1)] = int(m.group(2))
    assert listed == result["section_pages"]


@pytest.mark.parametrize("lang", LANGS)
def test_component_list_shows_the_manifest_counts(dogfight, lang):
    content, built = dogfight
    path, _ = built[lang]
    text = norm(" ".join(page_texts(path)))
    from generator.load.templating import localize

    for comp in content.components:
        count = content.manifest.entry(comp.id).count
        name = localize(comp.model.name, lang, content.languages)
        assert re.search(rf"(?<!\d){count} {re.escape(name)}", text), (lang, count, name)
    assert {content.manifest.entry(c.id).count for c in content.components} == {50, 25}


def test_korean_fonts_cover_every_hangul_character(dogfight):
    _, built = dogfight
    path, _ = built["ko"]
    text = "".join(page_texts(path))
    hangul = set(HANGUL.findall(text))
    assert len(hangul) > 200
    covered: set[int] = set()
    for font in fonts(path):
        assert font_is_embedded(font), font.get("/BaseFont")
        assert "PnP" in str(font["/BaseFont"]), f"fallback font {font['/BaseFont']} in the PDF"
        if "/DescendantFonts" not in font:
            # a card face's subset (ReportLab, in a figure): codes 0-255 of its own glyphs,
            # each one mapped to its character in /ToUnicode (a glyph the subset holds)
            cmap = font["/ToUnicode"].get_object().get_data().decode("latin-1")
            for pair in re.finditer(r"<[0-9A-Fa-f]{2}>\s*<([0-9A-Fa-f]{4,8})>", cmap):
                covered.add(int(pair.group(1), 16))
            continue
        descendant = font["/DescendantFonts"][0].get_object()
        descriptor = descendant["/FontDescriptor"].get_object()
        program = descriptor["/FontFile2"].get_object().get_data()
        covered |= set(TTFont(io.BytesIO(program)).getBestCmap())
    missing = sorted(c for c in hangul if ord(c) not in covered)
    assert not missing, f"Hangul drawn without a glyph (tofu): {''.join(missing[:20])}"


def test_korean_words_are_never_broken(dogfight):
    """Every Hangul 'word' in the PDF's text is a word of the source: no line broke inside one."""
    content, built = dogfight
    path, _ = built["ko"]
    html = rulebook.rulebook_html(content, "ko", "a4")
    plain = htmllib.unescape(re.sub(r"<[^>]+>", " ", html.split("<body", 1)[1]))
    words = {w for w in plain.split() if HANGUL.search(w)}
    # the words of the cards' faces in its figures (each face's own PDF, drawn as vectors)
    for face in (content.project.output / ".pnp-cache" / "rulebook").glob("*.pdf"):
        words |= {w for t in page_texts(face) for w in t.split() if HANGUL.search(w)}
    broken = []
    for page, text in enumerate(page_texts(path), start=1):
        if is_toc(text):  # leader dots touch the titles
            continue
        for token in text.split():
            if HANGUL.search(token) and token not in words:
                broken.append((page, token))
    assert not broken, f"Korean words split across lines: {broken[:10]}"


@pytest.mark.parametrize("lang", LANGS)
def test_fonts_are_embedded_and_ours(dogfight, lang):
    _, built = dogfight
    path, _ = built[lang]
    found = fonts(path)
    assert found
    for font in found:
        assert font_is_embedded(font)
        assert "PnP" in str(font["/BaseFont"])


def test_pages_are_a4_and_letter(dogfight, tmp_path):
    content, built = dogfight
    box = reader(built["es"][0]).pages[0].mediabox
    assert float(box.width) / MM == pytest.approx(210, abs=0.2)
    assert float(box.height) / MM == pytest.approx(297, abs=0.2)
    out = tmp_path / "letter.pdf"
    rulebook.render_rulebook(content, "en", "letter", out)
    box = reader(out).pages[0].mediabox
    assert (float(box.width), float(box.height)) == pytest.approx((612, 792), abs=0.5)


# ---------------------------------------------------------------- bilingual


def _columns(path: Path, page_index: int) -> tuple[str, str]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        page = pdf[page_index]
        w, h = page.get_size()
        tp = page.get_textpage()
        top, bottom = h - 21 * MM, 20 * MM  # inside the page margins: no running header or folio
        left = tp.get_text_bounded(0, bottom, w / 2, top)
        right = tp.get_text_bounded(w / 2, bottom, w, top)
        return norm(left), norm(right)
    finally:
        pdf.close()


@pytest.mark.parametrize("pair", ["es-en", "es-ko"])
def test_bilingual_pairs_the_same_sections_on_every_page(dogfight, pair):
    content, built = dogfight
    path, result = built[pair]
    a, b = pair.split("-")
    assert result["sections"] == [n for n, _ in headings(content, a)]
    es, en = headings(content, a), headings(content, b)
    seen = set()
    for index in range(1, result["pages"]):
        left, right = _columns(path, index)
        on_left = {n for n, t in es if heading_re(n, t).search(left)}
        on_right = {n for n, t in en if heading_re(n, t).search(right)}
        assert on_left == on_right, (
            f"page {index + 1}: {a} {sorted(on_left)} vs {b} {sorted(on_right)}"
        )
        if not is_toc(left):
            seen |= on_left
    assert seen == set(result["sections"])


def test_bilingual_columns_start_level(dogfight):
    """Each heading pair starts at the same height in both columns."""
    content, built = dogfight
    path, result = built["es-en"]
    es, en = dict(headings(content, "es")), dict(headings(content, "en"))
    pdf = pdfium.PdfDocument(str(path))
    try:
        for number, page_no in result["section_pages"].items():
            page = pdf[page_no - 1]
            tp = page.get_textpage()
            w, _ = page.get_size()
            tops = []
            for title, half in ((es[number], 0), (en[number], 1)):
                needle = f"{number} {title}"
                searcher = tp.search(needle, match_case=True)
                found = None
                while (hit := searcher.get_next()) is not None:
                    box = tp.get_charbox(hit[0])
                    if (box[0] < w / 2) == (half == 0):
                        found = box
                        break
                assert found, (number, title)
                tops.append(found[3])
            assert tops[0] == pytest.approx(tops[1], abs=3), (number, tops)
    finally:
        pdf.close()


# ---------------------------------------------------------------- safety


def test_url_fetcher_refuses_network_and_foreign_files(dogfight, tmp_path):
    content, _ = dogfight
    fetcher = rulebook.url_fetcher(content)
    for url in (
        "http://example.com/a.png",
        "https://example.com/font.ttf",
        "file:///etc/passwd",
        "ftp://example.com/x",
        "data:image/png;base64,AAAA",
    ):
        with pytest.raises(ContentError) as info:
            fetcher(url)
        assert "refused" in str(info.value)
    inside = fetcher((content.dir / "game.yaml").resolve().as_uri())
    assert b"dogfight" in inside.read()
    link = content.dir / "art" / "escape.txt"
    link.symlink_to("/etc/passwd")
    try:
        with pytest.raises(ContentError, match="refused"):
            fetcher(link.as_uri())
    finally:
        link.unlink()


def _edit(content, lang: str, old: str, new: str) -> None:
    path = content.dir / "rules" / f"{lang}.md"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture
def game(tmp_path):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    return load_game(Project(root), "dogfight")


def test_raw_html_in_markdown_is_printed_as_text(game, tmp_path):
    _edit(
        game,
        "es",
        "## 2 Preparación\n",
        '## 2 Preparación\n\nAntes <img src="http://example.com/evil.png"> y <script>x()</script> '
        "y ![foto](http://example.com/pic.png)? no.\n\n",
    )
    with pytest.raises(ContentError, match="URL"):  # a Markdown image may not be a URL
        rulebook.rulebook_html(game, "es", "a4")
    _edit(game, "es", " y ![foto](http://example.com/pic.png)? no.", " fin.")
    html = rulebook.rulebook_html(game, "es", "a4")
    assert '<img src="http://example.com' not in html and "<script>" not in html
    assert "&lt;img src=&quot;http://example.com/evil.png&quot;&gt;" in html
    out = tmp_path / "es.pdf"
    rulebook.render_rulebook(game, "es", "a4", out)  # the fetcher would raise on any http URL
    text = norm(" ".join(page_texts(out)))
    assert '<img src="http://example.com/evil.png">' in text
    assert "<script>x()</script>" in text


def test_bad_jinja_is_located(game):
    _edit(game, "es", "{{ component_list() }}", "{{ component_list( }}")
    with pytest.raises(ContentError) as info:
        rulebook.rulebook_html(game, "es", "a4")
    err = info.value
    lines = (game.dir / "rules" / "es.md").read_text(encoding="utf-8").splitlines()
    assert Path(err.file).name == "es.md"
    assert "component_list(" in lines[err.line - 1]
    assert err.hint and err.key == "§1"


def test_unknown_component_and_item_are_located(game):
    _edit(game, "en", "{{ component_list() }}", "Text.\n\n{{ figure('planes', 'red-1') }}")
    with pytest.raises(ContentError) as info:
        rulebook.rulebook_html(game, "en", "a4")
    err = info.value
    lines = (game.dir / "rules" / "en.md").read_text(encoding="utf-8").splitlines()
    assert "figure('planes'" in lines[err.line - 1]
    assert "unknown component 'planes'" in err.message and "allied-planes" in err.hint
    _edit(game, "en", "figure('planes', 'red-1')", "figure('allied-planes', 'red-11')")
    with pytest.raises(ContentError, match="no item 'red-11'") as info:
        rulebook.rulebook_html(game, "en", "a4")
    assert "red-1" in info.value.hint


def test_missing_section_in_a_translation_is_an_error(game):
    _edit(game, "en", "### 5.2 ", "Placing planes in your zone: ")
    with pytest.raises(ContentError) as info:
        rulebook.rulebook_html(game, "en", "a4")
    err = info.value
    assert Path(err.file).name == "en.md" and err.code == "rules-missing-section"
    assert "5.2" in err.message and err.line
    with pytest.raises(ContentError, match=r"5\.2"):
        rulebook.bilingual_html(game, "es", "en", "a4")


def test_numbering_gap_is_an_error(game):
    _edit(game, "es", "## 9 Fin del juego", "## 19 Fin del juego")
    with pytest.raises(ContentError) as info:
        rulebook.rulebook_html(game, "es", "a4")
    assert info.value.code == "rules-numbering" and info.value.line


# ---------------------------------------------------------------- data, figures, board


def test_tables_figures_and_board_from_the_component_model(game, tmp_path):
    _edit(
        game,
        "es",
        "{{ component_list() }}",
        """{{ component_list() }}

Las recompensas rojas:

{{ table(items('rewards')[:5], {'Carta': 'id', 'Coste': 'cost', 'Puntos': 'points'}) }}

{{ figure('rewards', 'red-3') }} {{ figure('allied-planes', 'blue-7', side='back', width='30mm',
   caption='Reverso') }}

{{ board([['red-1', 'red-2', 'red-3'], ['blue-1', 'blue-2', 'blue-3'],
          ['green-1', '', 'green-3'], ['yellow-1', 'yellow-2', 'yellow-3']],
         component='allied-planes', caption='Ejemplo') }}
""",
    )
    cache = tmp_path / "cache"
    out = tmp_path / "es.pdf"
    result = rulebook.render_rulebook(game, "es", "a4", out, cache_dir=cache)
    text = norm(" ".join(page_texts(out)))
    # numbers come from the data: the cost template over each item's value
    for value in range(5):
        assert f"red-{value} Descarta {max(value, 1)}" in text
    assert "Reverso" in text and "Ejemplo" in text
    # one vector PDF per face, whatever sizes it is shown at (the cover shares the board's)
    faces = sorted(cache.glob("*.pdf"))
    assert 2 + 11 <= len(faces) <= 2 + 2 + 11  # cover, two figures, eleven board cells
    assert result["figures_drawn"] == len(faces)
    pdf = pdfium.PdfDocument(str(out))
    forms = sum(
        1
        for i in range(len(pdf))
        for obj in pdf[i].get_objects()
        if obj.type == pdfium.raw.FPDF_PAGEOBJ_FORM
    )
    pdf.close()
    assert forms >= 15  # each face placed as a form, vectors
    again = rulebook.render_rulebook(game, "es", "a4", out, cache_dir=cache)
    assert again["figures_drawn"] == 0  # cached by the hash of each face's inputs
    assert sorted(cache.glob("*.pdf")) == faces


def test_fetcher_refuses_and_render_reports_it(game, tmp_path, monkeypatch):
    """A file URL outside the allowed folders stops the render with a ContentError."""
    from generator.rulebook import data as rulebook_data

    def evil(self, *args, **kwargs):
        return self.blocks.add('<img src="file:///etc/passwd">', "figure")

    monkeypatch.setattr(rulebook_data.RulesData, "figure", evil)
    _edit(game, "es", "{{ component_list() }}", "{{ figure('rewards', 'red-3') }}")
    with pytest.raises(ContentError, match="refused"):
        rulebook.render_rulebook(game, "es", "a4", tmp_path / "x.pdf", cache_dir=tmp_path / "c")
    assert not (tmp_path / "x.pdf").exists()


def test_keep_words_keeps_markup_nested():
    from generator.rulebook.markup import keep_words

    out = keep_words("<p><strong>보상</strong>을 받습니다 and Latin words</p>")
    assert out == (
        '<p><span class="kw"><strong>보상</strong>을</span> <span class="kw">받습니다</span>'
        " and Latin words</p>"
    )
    out = keep_words("<li><strong>굵게 말함</strong>조사 끝</li>")
    assert '<span class="kw"><strong>말함</strong>조사</span>' in out
    assert out.count("<strong>") == out.count("</strong>")


# ---------------------------------------------------------------- typography


def _heading_boxes(path: Path, result: dict, titles: dict, column: int | None = None):
    """(number, text page, page size, heading box) for every section heading in the body
    (the running header, which repeats a title, is skipped)."""
    pdf = pdfium.PdfDocument(str(path))
    try:
        for number, page_no in result["section_pages"].items():
            page = pdf[page_no - 1]
            tp = page.get_textpage()
            w, h = page.get_size()
            searcher = tp.search(f"{number} {titles[number]}", match_case=True)
            while (hit := searcher.get_next()) is not None:
                box = tp.get_charbox(hit[0])
                if box[3] > h - 21 * MM:
                    continue  # running header
                if column is None or (box[0] < w / 2) == (column == 0):
                    yield number, tp, (w, h), box
                    break
            else:
                raise AssertionError(f"heading {number} not found on page {page_no}")
    finally:
        pdf.close()


@pytest.mark.parametrize("edition", ["es", "ko", "es-en", "es-ko"])
def test_no_heading_is_left_alone_at_the_bottom_of_a_page(dogfight, edition):
    content, built = dogfight
    path, result = built[edition]
    langs = edition.split("-")
    for column, lang in enumerate(langs):
        titles = dict(headings(content, lang))
        for number, tp, (w, _h), box in _heading_boxes(
            path, result, titles, column if len(langs) == 2 else None
        ):
            left, right = ((0, w / 2) if column == 0 else (w / 2, w)) if len(langs) == 2 else (0, w)
            below = tp.get_text_bounded(left, 20 * MM, right, box[1] - 2)
            assert len(norm(below)) > 20, f"{edition}: {lang} heading {number} ends its page"


def test_spanish_and_english_are_hyphenated(dogfight):
    import pyphen

    assert pyphen.language_fallback("es") and pyphen.language_fallback("en")
    _, built = dogfight
    for lang in ("es", "en"):
        text = "\n".join(page_texts(built[lang][0]))
        # pdfium reports a hyphen that ends a line as U+FFFE and joins the two halves
        assert re.search("[a-záéíóúñ](?:\ufffe|-\r?\n)[a-záéíóúñ]", text), (
            f"no hyphenation in {lang}"
        )


def test_long_tables_repeat_their_header_and_keep_rows_whole(game, tmp_path):
    _edit(
        game,
        "en",
        "{{ component_list() }}",
        "{{ table(items('allied-planes'), "
        "[['Card', 'id'], ['Deck', 'deck'], ['Copies', 'count']]) }}",
    )
    out = tmp_path / "en.pdf"
    rulebook.render_rulebook(game, "en", "a4", out, cache_dir=tmp_path / "c")
    ids = [i.id for i in game.component("allied-planes").items]
    pages = [t for t in page_texts(out) if any(f"{i} Allied Planes" in norm(t) for i in ids)]
    assert len(pages) >= 2, "the 50-row table should span pages"
    for text in pages:
        assert "Card Deck Copies" in norm(text)  # the header row is repeated on every page
    found = [
        i for text in pages for i in ids if re.search(rf"(?<![\w-]){i} Allied Planes 1", norm(text))
    ]
    assert sorted(found) == sorted(ids)  # each row printed once, whole


def test_an_unchanged_rulebook_is_the_same_bytes(dogfight, tmp_path):
    content, built = dogfight
    out = tmp_path / "again.pdf"
    rulebook.render_rulebook(content, "en", "a4", out)
    assert out.read_bytes() == built["en"][0].read_bytes()


def test_icons_and_template_output_are_safe(game):
    _edit(
        game,
        "en",
        "{{ component_list() }}",
        "Discard a :card: now. {{ '<b>bold?</b>' }} :nope: stays text.\n\n{{ icon('card') }}",
    )
    html = rulebook.rulebook_html(game, "en", "a4")
    body = html.split("<main", 1)[1]
    assert body.count('<img class="icon" src="file://') == 2
    assert "&lt;b&gt;bold?&lt;/b&gt;" in body and "<b>" not in body
    assert ":nope: stays text" in body
    with pytest.raises(ContentError, match="unknown icon 'plane'"):
        _edit(game, "en", "{{ icon('card') }}", "{{ icon('plane') }}")
        rulebook.rulebook_html(game, "en", "a4")


def test_nothing_sticks_out_of_its_column(dogfight):
    _, built = dogfight
    for edition, (_, result) in built.items():
        assert result["overflows"] == [], edition


def test_a_table_too_wide_for_its_column_is_reported(game, tmp_path):
    wide = (
        "{{ table(items('rewards')[:2], "
        + repr([[f"Column{n}", "{{ 'Unbreakable' ~ id ~ 'WordWordWord' }}"] for n in range(6)])
        + ") }}"
    )
    _edit(game, "es", "{{ component_list() }}", wide)
    result = rulebook.render_bilingual(
        game, "es", "en", "a4", tmp_path / "bi.pdf", cache_dir=tmp_path / "c"
    )
    assert any(o["column"] == "a" and o["mm"] > 5 for o in result["overflows"]), result["overflows"]


# ------------------------------------------------------- Red Code: data tables, figures, board


# slow: two whole Red Code rulebooks laid out (es, ko-en); `make test` keeps the data-driven
# rulebook in test_tables_figures_and_board_from_the_component_model
@pytest.mark.slow
@pytest.mark.skipif(
    not (Path(__file__).resolve().parents[1] / "content/red-code/game.yaml").exists(),
    reason="Red Code is not in this checkout",
)
def test_red_code_rulebook_prints_its_data(tmp_path):
    root = copy_project(tmp_path / "proj", ("red-code",))
    content = load_game(Project(root), "red-code")
    out = tmp_path / "es.pdf"
    result = rulebook.render_rulebook(content, "es", "a4", out)
    assert result["overflows"] == []
    text = norm(" ".join(page_texts(out)))
    from generator.load.templating import localize

    manifest = content.manifest
    for cid in manifest.components:
        assert re.search(rf"(?<!\d){manifest.entry(cid).count} ", text)
    for maneuver in content.game.data["maneuvers"]:  # every maneuver, with numbers from its data
        assert localize(maneuver["name"], "es", content.languages) in text
    pdf = pdfium.PdfDocument(str(out))
    faces = [  # each face placed as a form: vectors, its words text
        o
        for i in range(len(pdf))
        for o in pdf[i].get_objects(max_depth=0)
        if o.type == pdfium.raw.FPDF_PAGEOBJ_FORM
    ]
    pdf.close()
    layout = content.game.data["board"]["example_layout"]
    assert len(faces) >= sum(len(r) for r in layout) + 2  # the board and the two figures
    bi = rulebook.render_bilingual(content, "ko", "en", "a4", tmp_path / "ko-en.pdf")
    assert bi["overflows"] == [] and bi["sections"] == result["sections"]


# ---------------------------------------------------------------- a near-empty last page


def _book(paragraphs: int, then_on_a_new_page: int = 0) -> str:
    lines = "".join(
        f"<p>Line {n} of the rules, long enough to read.</p>" for n in range(paragraphs)
    )
    lines += '<p style="break-before: page">The last words.</p>' * then_on_a_new_page
    return (
        "<html><head><style>@page { size: 100mm 100mm; margin: 10mm 10mm 20mm } "
        "p { margin: 0; font-size: 10pt; line-height: 14pt }</style></head>"
        f"<body>{lines}</body></html>"
    )


def _pages_for(paragraphs: int, then_on_a_new_page: int = 0) -> tuple[int, float, int]:
    """Pages as laid out, how full the last one is, and pages after the near-empty rule."""
    from weasyprint import HTML

    html = _book(paragraphs, then_on_a_new_page)

    def lay_out(extra_css: str = ""):
        return HTML(string=html.replace("</head>", f"<style>{extra_css}</style></head>")).render()

    document = lay_out()
    kept = rulebook._without_a_near_empty_last_page(lay_out, document)
    return len(document.pages), rulebook.last_page_fill(document), len(kept.pages)


def test_a_last_page_holding_a_line_or_two_is_pulled_back():
    # a 70 mm text area holds 14 lines of 14 pt (5 mm): 43 lines are three full pages and one
    # line on a fourth; a smaller bottom margin on every page takes that line back
    pages, fill, kept = _pages_for(43)
    assert (pages, kept) == (4, 3) and fill < rulebook.NEAR_EMPTY
    # a last page with more than a few lines is left as it is: a fuller book is not squeezed
    pages, fill, kept = _pages_for(36)
    assert fill > rulebook.NEAR_EMPTY and kept == pages == 3
    # two pages never shrink (a cover and one page), and nothing is lost when it cannot help
    assert _pages_for(15)[2] == 2
    pages, fill, kept = _pages_for(20, then_on_a_new_page=1)  # a forced break: cannot help
    assert fill < rulebook.NEAR_EMPTY and kept == pages == 3


def test_a_book_whose_parts_are_one_page_each_is_laid_out_once():
    """The cover, the contents and rules that fit one page: the rules page is near empty, but
    a page that opens a part of its own cannot be taken back, so no tighter layout is tried;
    tried, they would keep every page."""
    from weasyprint import HTML

    html = (
        "<html><head><style>@page { size: 100mm 100mm; margin: 10mm 10mm 20mm } "
        "@page cover { margin: 12mm } section.cover { page: cover; break-after: page } "
        "nav { page: front; break-after: page } "
        "p { margin: 0; font-size: 10pt; line-height: 14pt }</style></head><body>"
        '<section class="cover"><p>Mini</p></section><nav><p>1 Play</p></nav>'
        "<p>Play a card.</p></body></html>"
    )
    made: list[str] = []

    def lay_out(extra_css: str = ""):
        made.append(extra_css)
        return HTML(string=html.replace("</head>", f"<style>{extra_css}</style></head>")).render()

    document = lay_out()
    names = [p._page_box.page_type.name for p in document.pages]
    assert names == ["cover", "front", ""] and rulebook.last_page_fill(document) < 0.2
    assert rulebook._without_a_near_empty_last_page(lay_out, document) is document
    assert made == [""]  # laid out once
    # the tries, made anyway, keep the three pages
    for bottom in rulebook.TIGHTER_BOTTOMS_MM:
        assert len(lay_out(f"@page {{ margin-bottom: {bottom}mm }}").pages) == 3
    # two pages of rules (of one name) are still tried, and pulled back when they can be
    pages, _, kept = _pages_for(43)
    assert (pages, kept) == (4, 3)

"""Right-to-left rulebooks (issue 24): Arabic and Hebrew drafts of Dogfight, with real rules
texts (tests/fixtures/rtl/), built as single-language and bilingual editions and measured on
the PDF: the words extracted, paragraphs set flush right and ragged left, list markers on the
right, the script's face embedded, each column of a bilingual edition in its own direction."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import ROOT, copy_project, shared_build

from generator.load.content import load_game
from generator.load.project import Project
from generator.rulebook import book as rulebook

FIXTURES = Path(__file__).parent / "fixtures" / "rtl"

# What the drafts translate besides the rulebook: every per-language string a rulebook reads
# (the cover draws a face of each deck, the component table names them).
WORDS = {
    "ar": {
        "title": "دوغفايت",
        "description": "لعبة حظ ومجازفة للاعب واحد أو لاعبَين.",
        "suits": ["أحمر", "أزرق", "أخضر", "أصفر", "بنفسجي"],
        "plane": "طائرة حليفة",
        "planes": "طائرات الحلفاء",
        "deflection": "**الانحراف:** من في يده أكثر من 4 أوراق يرمي الزائد حتى تبقى معه 4.",
        "reward": "مكافأة",
        "rewards": "المكافآت",
        "subtitle": "طائرة ألمانية مُسقطة",
        "cost": "ارمِ {{ [value, 1] | max }} :card: {{ suits[suit].name }}",
        "points": "{% if value %}{{ value }} نقاط{% else %}0 نقاط · تُحسب للمجموعات{% endif %}",
    },
    "he": {
        "title": "דוגפייט",
        "description": "משחק מזל וסיכון לשחקן אחד או לשניים.",
        "suits": ["אדום", "כחול", "ירוק", "צהוב", "סגול"],
        "plane": "מטוס בעלות הברית",
        "planes": "מטוסי בעלות הברית",
        "deflection": "**הסטה:** מי שיש לו ביד יותר מ-4 קלפים משליך קלפים עד שנשארים לו 4.",
        "reward": "פרס",
        "rewards": "פרסים",
        "subtitle": "מטוס גרמני שהופל",
        "cost": "השלך {{ [value, 1] | max }} :card: {{ suits[suit].name }}",
        "points": "{% if value %}{{ value }} נק׳{% else %}0 נק׳ · נספר לסדרות{% endif %}",
    },
}
BILINGUAL = [("ar", "en"), ("es", "he")]


def _put(text: str, marker: str, added: str) -> str:
    """`added` inserted right after the first `marker` (which must be there)."""
    assert marker in text, marker
    return text.replace(marker, marker + added, 1)


def rtl_project(root: Path) -> Path:
    """A copy of Dogfight with Arabic and Hebrew draft languages, their rulebooks and the
    bilingual editions ar-en (right to left first) and es-he (right to left second)."""
    copy_project(root, ("dogfight",))
    game_dir = root / "content" / "dogfight"
    game = (game_dir / "game.yaml").read_text(encoding="utf-8")
    game = re.sub(r"(?m)^(languages: \[.*)\]$", r"\1, {ar: draft}, {he: draft}]", game)
    planes = (game_dir / "components" / "allied-planes.yaml").read_text(encoding="utf-8")
    rewards = (game_dir / "components" / "rewards.yaml").read_text(encoding="utf-8")
    for lang, w in WORDS.items():
        game = _put(game, "title: {", f"{lang}: {w['title']}, ")
        game = _put(game, "description:\n", f"  {lang}: {w['description']}\n")
        for es, word in zip(
            ["Rojo", "Azul", "Verde", "Amarillo", "Morado"], w["suits"], strict=True
        ):
            game = re.sub(rf"(name: \{{)([^}}]*es: {es},)", rf"\1{lang}: {word}, \2", game)
        planes = _put(planes, "\nname: {", f"{lang}: {w['plane']}, ")
        planes = _put(planes, "  deck: {", f"{lang}: {w['planes']}, ")
        planes = _put(planes, "\n  deflection:\n", f"    {lang}: {_quoted(w['deflection'])}\n")
        rewards = _put(rewards, "\nname: {", f"{lang}: {w['reward']}, ")
        rewards = _put(rewards, "  deck: {", f"{lang}: {w['rewards']}, ")
        rewards = _put(rewards, "  subtitle: {", f"{lang}: {w['subtitle']}, ")
        rewards = _put(rewards, "  cost:\n", f"    {lang}: {_quoted(w['cost'])}\n")
        rewards = _put(rewards, "  points:\n", f"    {lang}: {_quoted(w['points'])}\n")
        shutil.copy(FIXTURES / f"{lang}.md", game_dir / "rules" / f"{lang}.md")
    pairs = ", ".join(f"[{a}, {b}]" for a, b in BILINGUAL)
    game = re.sub(r"(?m)^(  bilingual: \[.*)\]$", rf"\1, {pairs}]", game)
    (game_dir / "game.yaml").write_text(game, encoding="utf-8")
    (game_dir / "components" / "allied-planes.yaml").write_text(planes, encoding="utf-8")
    (game_dir / "components" / "rewards.yaml").write_text(rewards, encoding="utf-8")
    return root


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def build_editions(folder: Path, editions=("ar", "he", "ar-en", "es-he")) -> dict:
    """Each edition's PDF in `folder` (ar.pdf, ar-en.pdf...); returns their page counts."""
    root = rtl_project(folder / "proj")
    content = load_game(Project(root), "dogfight")
    pages = {}
    for edition in editions:
        out = folder / f"{edition}.pdf"
        if "-" in edition:
            a, b = edition.split("-")
            pages[edition] = rulebook.render_bilingual(content, a, b, "a4", out)["pages"]
        else:
            pages[edition] = rulebook.render_rulebook(content, edition, "a4", out)["pages"]
    return pages


# ---------------------------------------------------------------- measuring the PDF

MM = 72 / 25.4
ARABIC_HEBREW = re.compile("[\u0590-\u06ff\ufb1d-\ufeff]")


@pytest.fixture(scope="module")
def books(tmp_path_factory) -> Path:
    """ar.pdf, he.pdf, ar-en.pdf and es-he.pdf, built once."""
    return shared_build(tmp_path_factory, "rtl-rulebooks", build_editions)[0]


def _chars(pdf_path: Path, page: int) -> tuple[list[tuple[str, float, float, float]], float, float]:
    """Every character pdfium reads on `page` (1-based): (char, left, right, middle height) in
    pt, with the page's width and height."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        text = pdf[page - 1].get_textpage()
        out = []
        for i in range(text.count_chars()):
            char = text.get_text_range(i, 1)
            left, bottom, right, top = text.get_charbox(i)
            if right > left and char.strip():
                out.append((char, left, right, (bottom + top) / 2))
        return out, pdf[page - 1].get_width(), pdf[page - 1].get_height()
    finally:
        pdf.close()


def _find(pdf_path: Path, phrase: str, after: int = 0) -> tuple[int, float, float]:
    """(page, middle height, x middle) of the first character of `phrase` in the PDF, on a
    page after page `after`."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        for number in range(after, len(pdf)):
            text = pdf[number].get_textpage()
            hit = text.search(phrase, match_case=True).get_next()
            if hit is not None:
                left, bottom, right, top = text.get_charbox(hit[0])
                return number + 1, (bottom + top) / 2, (left + right) / 2
    finally:
        pdf.close()
    raise AssertionError(f"{phrase!r} not found in {pdf_path}")


def line_of(pdf_path: Path, phrase: str, column: tuple[float, float] | None = None, after: int = 0):
    """The printed line that holds the start of `phrase` (on a page after `after`): (left,
    right) of its ink in pt (within `column`, an x range, when given), the characters on it and
    the page width."""
    page, middle, _ = _find(pdf_path, phrase, after)
    chars, width, _ = _chars(pdf_path, page)
    lo, hi = column or (0.0, width)
    on_line = [c for c in chars if abs(c[3] - middle) < 5 and lo <= (c[1] + c[2]) / 2 <= hi]
    assert on_line, (phrase, page)
    return min(c[1] for c in on_line), max(c[2] for c in on_line), on_line, width


def extracted(pdf_path: Path) -> str:
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        return "\n".join(p.get_textpage().get_text_range() for p in pdf)
    finally:
        pdf.close()


def _embedded(path: Path) -> set[str]:
    from pdfutil import fonts

    return {str(f["/BaseFont"]).lstrip("/").split("+", 1)[-1] for f in fonts(path)}


# ---------------------------------------------------------------- the tests

# Words without a lam-alef or lam-yeh ligature: pdfium reads a ligature glyph back as its two
# letters in visual order ("للاعب" comes back "لالعب"); every other word comes back in logical
# order, as typed.
WORDS_READ_BACK = {
    "ar": ["المكونات", "طائرات الحلفاء", "اخلط مجموعة", "سير اللعب", "حساب النقاط", "Hexenflug"],
    "he": ["רכיבים", "מטוסי בעלות הברית", "מהלך המשחק", "חפיסת פרסים", "ניקוד", "Hexenflug"],
}


@pytest.mark.parametrize("lang", ["ar", "he"])
def test_a_right_to_left_rulebook_reads_back_in_logical_order_in_its_face(books, lang):
    """The Arabic and Hebrew rulebooks hold their words in the order they were typed (pdfium's
    extraction; a lam-alef ligature comes back as its two letters in visual order), numbers
    left to right ("50", "3.0"), the contents page, and they print from
    PnP Sans Arabic / Hebrew with PnP Sans for digits and Latin: only bundled faces, and the
    PDF lint finds nothing."""
    pdf = books / f"{lang}.pdf"
    text = extracted(pdf)
    for word in [*WORDS_READ_BACK[lang], "50", "3.0", languages_label(lang, "contents")]:
        assert word in text, (word, text[:400])
    if lang == "ar":  # "للاعب": lam-alef was set as one ligature glyph (shaped), read back as
        assert "ومجازفة لالعب" in text, text[:200]  # its two letters in visual order
    names = {n.replace("-", "") for n in _embedded(pdf)}
    face = {"ar": "PnPSansArabic", "he": "PnPSansHebrew"}[lang]
    assert face in names and "PnPSans" in names, names
    assert all(n.startswith("PnP") for n in names), names  # never a system font
    assert _lint(pdf) == []


def _lint(pdf: Path) -> list:
    """What the PDF lint `pnp print` runs on every output finds in `pdf`."""
    from generator.build import pdflint

    return pdflint.lint(pdf, pdflint.bundled_font_names(ROOT / "templates" / "fonts"))


def languages_label(lang: str, key: str) -> str:
    from generator.load import languages

    return languages.get(lang).label(key)


# a one-line paragraph, a paragraph of two lines, its last line's start, a list item's start
PARAGRAPHS = {
    "ar": ("إذا تحطمت إحدى طائراتك", "عندما تظهر طائرة قيمتها", "الورقة كطائرة", "اخلط مجموعة"),
    "he": ("אם אחד המטוסים שלך מתרסק", "כאשר מופיע מטוס בערך", "לאחר מכן הקלף", "ערבב את חפיסת"),
}


@pytest.mark.parametrize("lang", ["ar", "he"])
def test_right_to_left_paragraphs_are_flush_right_and_ragged_left(books, lang):
    """Every line of a paragraph ends at the text area's right margin (26 mm from the edge of
    an A4 page) and a short line starts far from the left one; a list's bullet is to the right
    of its item's text. Without dir="rtl" the same lines are flush left (see
    test_without_dir_rtl_the_same_paragraph_is_flush_left)."""
    pdf = books / f"{lang}.pdf"
    short, long_first, long_last, item = PARAGRAPHS[lang]
    left, right, _, width = line_of(pdf, short)
    margin_left, margin_right = 26 * MM, width - 26 * MM
    assert abs(right - margin_right) < 1.5, (right, margin_right)
    assert left > margin_left + 60, (left, margin_left)  # ragged left: a short line
    for phrase in (long_first, long_last):
        _, r2, _, _ = line_of(pdf, phrase)
        assert abs(r2 - margin_right) < 1.5, (phrase, r2, margin_right)
    _, _, chars, _ = line_of(pdf, item)
    bullet = [c for c in chars if c[0] == "•"]
    text = [c for c in chars if ARABIC_HEBREW.match(c[0])]
    assert bullet and text, chars
    assert bullet[0][1] > max(c[2] for c in text), (bullet, max(c[2] for c in text))
    # the marker sits in the list's indent (4.6 mm) at the right margin, as it does at the left
    assert margin_right - 4.6 * MM < bullet[0][1] and bullet[0][2] < margin_right, bullet


def test_section_numbers_start_the_line_at_the_right_margin(books):
    """In "1 المكونات", on the contents page and as the section's heading, the section number
    is the rightmost glyph, flush with the right margin (the contents were indented by a list
    indent and the heading by the number's left-to-right spacing); and the component table's
    first column (the count) is its rightmost one."""
    pdf = books / "ar.pdf"
    for after in (1, 2):  # page 2 is the contents, the heading comes after it
        _, _, line, width = line_of(pdf, "المكونات", after=after)
        rightmost = max(line, key=lambda c: c[2])
        # within the digit's side bearing, 2.5 pt in the heading (the indents were 5.5 and 13 pt)
        assert rightmost[0] == "1", (after, rightmost)
        assert abs(rightmost[2] - (width - 26 * MM)) < 4, (after, rightmost)
    _, _, row, _ = line_of(pdf, "طائرة حليفة")
    by_x = sorted(row, key=lambda c: -c[2])
    assert [c[0] for c in by_x[:3]] == ["0", "5", "ط"], by_x[:3]  # "50", then "طائرة حليفة"


@pytest.mark.parametrize(
    "edition,rtl_phrase,ltr_phrase",
    [
        ("ar-en", "إذا تحطمت إحدى طائراتك", "If one of your planes crashes"),
        ("es-he", "אם אחד המטוסים שלך מתרסק", "Si uno de tus aviones se estrella"),
    ],
)
def test_each_column_of_a_bilingual_edition_has_its_own_direction(
    books, edition, rtl_phrase, ltr_phrase
):
    """ar-en (a right-to-left first language) and es-he (second): the right-to-left column is
    the right-hand one whatever its place in the pair, its paragraphs flush with the page's
    right margin (17 mm) and ragged left; the left-to-right column is flush with the left
    margin; and each running head sits over its own column."""
    pdf = books / f"{edition}.pdf"
    assert _lint(pdf) == []
    document = pdfium.PdfDocument(str(pdf))
    last = len(document)
    document.close()
    chars, width, height = _chars(pdf, last)  # a page where both columns have begun a section
    middle = width / 2
    left, right, _, _ = line_of(pdf, rtl_phrase, (middle, width))
    assert abs(right - (width - 17 * MM)) < 1.5, (right, width - 17 * MM)
    assert left > middle + 40, (left, middle)  # one short line, ragged left
    l2, _, _, _ = line_of(pdf, ltr_phrase, (0, middle))
    assert abs(l2 - 17 * MM) < 1.5, (l2, 17 * MM)
    head = [c for c in chars if c[3] > height - 21 * MM]
    script = [c for c in head if ARABIC_HEBREW.match(c[0])]
    latin = [c for c in head if c[0].isascii() and c[0].isalpha()]
    assert script and latin, head
    assert min(c[1] for c in script) > middle and max(c[2] for c in latin) < middle, head


def test_without_dir_rtl_the_same_paragraph_is_flush_left(tmp_path_factory):
    """The measurement above can fail: the same Arabic rulebook built from a rulebook.html that
    does not set dir="rtl" prints the paragraph flush left (WeasyPrint still shapes and orders
    the Arabic words, but the page is left to right)."""

    def build(folder: Path) -> None:
        root = rtl_project(folder / "proj")
        page = root / "templates" / "rulebook" / "rulebook.html"
        html = page.read_text(encoding="utf-8")
        without = re.sub(
            r'\{% if doc\.spec\.direction == "rtl" %\} dir="rtl"\{% endif %\}', "", html
        )
        assert without != html
        page.write_text(without, encoding="utf-8")
        content = load_game(Project(root), "dogfight")
        rulebook.render_rulebook(content, "ar", "a4", folder / "ar.pdf")

    pdf = shared_build(tmp_path_factory, "rtl-rulebook-ltr", build)[0] / "ar.pdf"
    left, right, _, width = line_of(pdf, PARAGRAPHS["ar"][0])
    assert abs(left - 26 * MM) < 1.5, left
    assert right < width - 26 * MM - 60, right


def _images(pdf_path: Path, page: int) -> list[tuple[float, float, float, float]]:
    """(left, bottom, right, top) in pt of every image drawn on `page` (1-based)."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        return [
            obj.get_bounds()
            for obj in pdf[page - 1].get_objects(max_depth=4)
            if obj.type == pdfium.raw.FPDF_PAGEOBJ_IMAGE
        ]
    finally:
        pdf.close()


def test_the_cover_and_a_board_are_centred_on_a_right_to_left_page(books, tmp_path_factory):
    """WeasyPrint 70 pushes a block narrower than its right-to-left container off to the right
    (as if its margins were swapped): the cover's subtitle was 30 pt right of centre and its
    rule off the page. Both are centred now, and a board() figure too, its faces left to right
    as on the table (red 1, 2, 3: a picture is not mirrored)."""
    pdf = books / "ar.pdf"
    left, right, _, width = line_of(pdf, WORDS["ar"]["description"][:12])
    assert abs((left + right) / 2 - width / 2) < 2, (left, right, width)

    def build(folder: Path) -> None:
        root = rtl_project(folder / "proj")
        rules = root / "content" / "dogfight" / "rules" / "ar.md"
        board = (
            "{{ board([['red-1', 'red-2', 'red-3']], component='allied-planes', width='90mm', "
            "caption='ثلاث طائرات حمراء: 1 و2 و3.') }}"
        )
        text = rules.read_text(encoding="utf-8")
        rules.write_text(_put(text, "## 2 التحضير\n", f"\n{board}\n"), encoding="utf-8")
        content = load_game(Project(root), "dogfight")
        rulebook.render_rulebook(content, "ar", "a4", folder / "ar.pdf")

    board_pdf = shared_build(tmp_path_factory, "rtl-rulebook-board", build)[0] / "ar.pdf"
    page, _, _ = _find(board_pdf, "طائرات حمراء")  # ثلاث has a lam-alef
    faces = sorted(_images(board_pdf, page))
    assert len(faces) == 3, faces
    middle = (faces[0][0] + faces[-1][2]) / 2
    assert abs(middle - width / 2) < 2, (faces, width)
    caption_left, caption_right, _, _ = line_of(board_pdf, "طائرات حمراء")
    assert abs((caption_left + caption_right) / 2 - width / 2) < 2

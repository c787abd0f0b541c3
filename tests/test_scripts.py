"""Fonts by script, real italics, coverage before drawing, script rules as data (issue 24)."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import ROOT, kit_rulebook, python_tree, run_pnp

DPI = 300


def _phrase_box(pdf_path: Path, phrase: str) -> tuple[int, tuple[float, float, float, float]]:
    """(page, (left, bottom, right, top) in pt) of the first `phrase` on any page."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        for number in range(len(pdf)):
            text = pdf[number].get_textpage()
            found = text.search(phrase, match_case=True)
            hit = found.get_next()
            if hit is None:
                continue
            start, count = hit
            boxes = [text.get_charbox(i) for i in range(start, start + count)]
            boxes = [b for b in boxes if b[2] > b[0]]
            return number + 1, (
                min(b[0] for b in boxes),
                min(b[1] for b in boxes),
                max(b[2] for b in boxes),
                max(b[3] for b in boxes),
            )
    finally:
        pdf.close()
    raise AssertionError(f"{phrase!r} not found in {pdf_path}")


def slant(pdf_path: Path, phrase: str) -> float:
    """How far the ink of `phrase` leans: the shear (dx/dy) that makes its strokes most upright.
    An upright face gives about 0, a real italic about 0.2 (12 degrees)."""
    page, (left, bottom, right, top) = _phrase_box(pdf_path, phrase)
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        image = pdf[page - 1].render(scale=DPI / 72).to_pil().convert("L")
        height = pdf[page - 1].get_height()
    finally:
        pdf.close()
    s = DPI / 72
    crop = image.crop(
        (
            round((left - 1) * s),
            round((height - top) * s),
            round((right + 1) * s),
            round((height - bottom) * s),
        )
    )
    w, h = crop.size
    pixels = crop.load()
    ink = [(x, y) for y in range(h) for x in range(w) if pixels[x, y] < 128]
    assert len(ink) > 50, f"no ink where {phrase!r} is"
    best, best_score = 0.0, -1.0
    for step in range(-30, 31):
        shear = step / 100
        columns: dict[int, int] = {}
        for x, y in ink:  # undo a lean of `shear`: x shifts left by shear * height above base
            col = round(x - shear * (h - y))
            columns[col] = columns.get(col, 0) + 1
        score = sum(n * n for n in columns.values())
        if score > best_score:
            best, best_score = shear, score
    return best


@pytest.fixture
def red_code_es_pdf(kits_a4) -> Path:
    """Red Code's Spanish A4 rulebook, from the run's shared kit (tests/conftest.py)."""
    return kit_rulebook(kits_a4, "red-code", "es")


def test_italic_emphasis_is_visibly_slanted(red_code_es_pdf):
    """*Por ejemplo:* and *(Partidas de 2 contra 2)* print in a real italic (they printed upright:
    a synthetic oblique of PnP Gothic whose text matrix had no skew); the plain text beside
    them stays upright."""
    for phrase in ("Por ejemplo:", "Partidas de 2 contra 2"):
        leaning = slant(red_code_es_pdf, phrase)
        assert 0.12 <= leaning <= 0.3, f"{phrase!r} leans {leaning}, not an italic"
    upright = slant(red_code_es_pdf, "La maniobra de contramedida")
    assert abs(upright) <= 0.04, f"plain text leans {upright}"


# ---------------------------------------------------------------- fallback per character

GERMAN = "**Ablenkung:** „Kriegshunde“ mit Öl, Ärger und Übermut — Żółć ĄĘŚ, Ελλάδα, Москва."


def _deflection(root: Path, es: str) -> None:
    path = root / "content/dogfight/components/allied-planes.yaml"
    text = path.read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith('    es: "**Deflexión'))
    path.write_text(text.replace(old, f"    es: {es!r}"), encoding="utf-8")


def _pdf_fonts(path: Path) -> set[str]:
    from pdfutil import fonts

    return {str(f["/BaseFont"]).lstrip("/").split("+", 1)[-1] for f in fonts(path)}


def test_a_character_the_layout_font_lacks_prints_from_its_scripts_face(make_project, tmp_path):
    """German, Polish, Greek and Russian on a card: the characters PnP Gothic lacks (Ö „ Ż Ą λ
    Д) come from PnP Sans, everything else stays in PnP Gothic; nothing is a finding."""
    root = make_project(games=("dogfight",))
    _deflection(root, GERMAN)
    found = run_pnp(root, "check", "dogfight", "--format", "json")
    assert "missing-glyph" not in found.stdout, found.stdout
    out = tmp_path / "red-10.pdf"
    run_pnp(
        root,
        "render",
        "dogfight",
        "allied-planes",
        "red-10",
        "--lang",
        "es",
        "-o",
        str(out),
        check=True,
    )
    names = _pdf_fonts(out)
    assert any(n.startswith("PnPGothic") for n in names), names
    assert any(n.startswith("PnPSans") for n in names), names
    pdf = pdfium.PdfDocument(str(out))
    text = pdf[0].get_textpage().get_text_range()
    pdf.close()
    for word in ("„Kriegshunde“", "Öl,", "Ärger", "Übermut", "Żółć", "Ελλάδα", "Москва."):
        assert word in text, (word, text)
    # a plain Spanish card draws nothing from the fallback face: today's output, unchanged
    plain = tmp_path / "red-1.pdf"
    run_pnp(
        root,
        "render",
        "dogfight",
        "allied-planes",
        "red-1",
        "--lang",
        "es",
        "-o",
        str(plain),
        check=True,
    )
    assert not any(n.startswith("PnPSans") for n in _pdf_fonts(plain))


def test_a_glyph_no_face_has_is_one_finding_per_string_before_anything_is_drawn(make_project):
    """Devanagari has no bundled face: the card text and the rulebook line are each one
    finding with file, line and the characters; print stops with exit 1 before writing, never a
    system font (DejaVu) and never an internal error (exit 2)."""
    root = make_project(games=("dogfight",))
    _deflection(root, "नमस्ते **Deflexión**")
    rules = root / "content/dogfight/rules/es.md"
    lines = rules.read_text(encoding="utf-8").splitlines()
    lines[2] = lines[2] + " — क्षत्रिय"
    rules.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_pnp(root, "check", "dogfight", "--format", "json")
    assert result.returncode == 1

    glyphs = [f for f in json.loads(result.stdout) if f["code"] == "missing-glyph"]
    card = [f for f in glyphs if f["file"].endswith("allied-planes.yaml")]
    book = [f for f in glyphs if f["file"].endswith("rules/es.md")]
    assert len(card) == 1 and "U+0928" in card[0]["message"] and card[0]["line"], card
    assert len(book) == 1 and book[0]["line"] == 3 and "U+0915" in book[0]["message"], book
    printed = run_pnp(root, "print", "dogfight", "--export", "sheets")
    assert printed.returncode == 1, printed.stderr
    assert "a bug in pnp" not in printed.stderr
    assert not list((root / "output").rglob("*.pdf"))
    # accepting it does not help: it would end in a system font (DejaVu) and an internal error
    accepted = root / "content/dogfight/accepted.yaml"
    accepted.write_text(
        accepted.read_text(encoding="utf-8")
        + "  - code: missing-glyph\n    reason: we want Hindi anyway\n",
        encoding="utf-8",
    )
    result = run_pnp(root, "check", "dogfight", "--format", "json")
    found = json.loads(result.stdout)
    assert result.returncode == 1
    assert all(not f.get("accepted") for f in found if f["code"] == "missing-glyph")
    assert [f["message"] for f in found if f["code"] == "accepted-bad"] == [
        "missing-glyph cannot be accepted: "
        "a missing glyph would print from a system font or as a box"
    ]
    printed = run_pnp(root, "print", "dogfight", "--export", "sheets")
    assert printed.returncode == 1 and "a bug in pnp" not in printed.stderr, printed.stderr


# ---------------------------------------------------------------- script rules are data


def _script_literals(source: str) -> list[tuple[int, str]]:
    """Script knowledge written in code: a string (not a docstring) holding letters of a
    script other than Latin, a \\u escape or a hex number inside a non-Latin script's range
    ("[\\uac00-\\ud7a3]", 0xAC00), or a script's name ("hangul")."""
    from generator.load import languages

    scripts = {k: v for k, v in languages.scripts().items() if k != "latin"}
    ranges = []
    for rules in scripts.values():
        for r in rules.get("ranges") or ():
            lo, _, hi = str(r).partition("-")
            ranges.append((int(lo, 16), int(hi or lo, 16)))

    def in_script(code: int) -> bool:
        return any(lo <= code <= hi for lo, hi in ranges)

    tree = python_tree(source)
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    out = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and id(node) not in docstrings
            and isinstance(node.value, str)
            and (node.value.lower() in scripts or any(in_script(ord(c)) for c in node.value))
        ):
            out.append((node.lineno, repr(node.value)[:40]))
    lines = source.splitlines()
    for number, line in enumerate(lines, start=1):
        code = line.split("#", 1)[0]
        for m in re.finditer(r"\\[uU]([0-9a-fA-F]{4,8})|\b0x([0-9a-fA-F]{4,6})\b", code):
            if in_script(int(m.group(1) or m.group(2), 16)):
                out.append((number, m.group(0)))
    return out


def test_no_script_specific_literal_in_generator():
    """Unicode ranges of a script, its letters and its name live in templates/languages/
    scripts.yaml; language codes in templates/languages/<code>.yaml (test_languages.py)."""
    # The reference's introduction is documentation (it quotes Korean examples), not a rule.
    prose = {("generator/commands/reference.py", "'# pnp reference")}
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sorted((ROOT / "generator").rglob("*.py"))
        for line, text in _script_literals(path.read_text(encoding="utf-8"))
        if not any(str(path.relative_to(ROOT)) == f and text.startswith(t) for f, t in prose)
    ]
    assert not found, "script knowledge belongs in templates/languages/scripts.yaml: " + "; ".join(
        found
    )


def test_the_script_literal_test_catches_what_main_had():
    """The four places issue 24 found (markup.HANGUL, terms._HANGUL_END, pdflint._hangul)."""
    sample = (
        'HANGUL = re.compile(r"[\\u1100-\\u11ff\\uac00-\\ud7af]")\n'
        '_HANGUL_END = re.compile(r"[가-힣]$")\n'
        "hit = any(0xAC00 <= int(h, 16) <= 0xD7A3 for h in codes)\n"
        'if script == "hangul":\n    pass\n'
        'def f():\n    """A docstring may quote 회복 and U+AC00."""\n'
    )
    assert sorted({line for line, _ in _script_literals(sample)}) == [1, 2, 3, 4]


# ---------------------------------------------------------------- language tags (BCP 47)


@pytest.mark.parametrize("tag", ["de", "pt-BR", "zh-Hant", "sr-Latn", "es", "ko"])
def test_bcp47_tags_are_language_codes(tag):
    from generator.load import languages

    assert languages.check_code(tag) is None


@pytest.mark.parametrize(
    ("tag", "said"),
    [
        ("jp", "did you mean 'ja'? (Japanese)"),
        ("sp", "did you mean 'es'? (Spanish)"),
        ("xx", "'xx' is not an ISO 639-1 language code"),
        ("qq", "'qq' is not an ISO 639-1 language code"),
        ("pt_BR", "did you mean 'pt-BR'?"),
        ("de-XX", "'XX' in 'de-XX' is not an ISO 3166-1 region code"),
        ("fr\n", "did you mean 'fr'?"),
    ],
)
def test_unknown_or_misspelt_codes_are_refused_with_did_you_mean(make_project, tag, said):
    from generator.load import languages

    assert said in (languages.check_code(tag) or "")
    root = make_project(games=("dogfight",))
    game = root / "content/dogfight/game.yaml"
    text = game.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^languages: \[es, ", f"languages: [es, {json.dumps(tag)}, ", text)
    game.write_text(text, encoding="utf-8")
    result = run_pnp(root, "check", "dogfight")
    assert result.returncode == 2  # like every error in game.yaml: the game cannot load
    assert said in result.stderr and "content/dogfight/game.yaml:4: languages:" in result.stderr


def test_a_po_locale_names_the_games_language():
    from generator.load import languages

    assert languages.from_locale("de_DE", ["es", "de"]) == "de"
    assert languages.from_locale("fr_FR.UTF-8", ["es", "fr"]) == "fr"
    assert languages.from_locale("pt_BR", ["es", "pt-BR"]) == "pt-BR"
    assert languages.from_locale("zh_Hant_TW", ["zh-Hant"]) == "zh-Hant"
    assert languages.get("sr-Latn").script == "latin"  # the tag's script subtag wins
    assert languages.get("pt-BR").code == "pt-BR"


# ---------------------------------------------------------------- scripts pnp cannot print


def test_a_script_marked_unsupported_is_refused_naming_why_before_anything_is_written(
    make_project, tmp_path
):
    """A script scripts.yaml marks `supported: false` (here a project's own copy marking Arabic
    so): `pnp i18n add` and a language in game.yaml are refused with one clear message naming
    the script and the reason, and nothing is written (no PO file, no game.yaml change, no
    PDF). Chinese, Arabic and Hebrew themselves print (the tests below)."""
    root = make_project(games=("dogfight",))
    own = root / "templates/languages/scripts.yaml"
    own.parent.mkdir(parents=True, exist_ok=True)
    bundled = (ROOT / "templates/languages/scripts.yaml").read_text(encoding="utf-8")
    own.write_text(
        bundled.replace(
            "  direction: rtl\n  shaping: true\n  font: arabic\n",
            "  supported: false\n  reason: no face for it in this project\n  font: arabic\n",
        ),
        encoding="utf-8",
    )
    assert own.read_text(encoding="utf-8") != bundled
    game = root / "content/dogfight/game.yaml"
    before = game.read_text(encoding="utf-8")
    added = run_pnp(root, "i18n", "add", "dogfight", "ar", "-o", str(tmp_path / "ar.po"))
    assert added.returncode == 2
    assert "language 'ar' (العربية) is written in the arabic script" in added.stderr
    assert "no face for it in this project" in added.stderr
    assert "a bug in pnp" not in added.stderr
    assert not (tmp_path / "ar.po").exists() and game.read_text(encoding="utf-8") == before
    game.write_text(before.replace("languages: [es, ", "languages: [es, ar, "), encoding="utf-8")
    printed = run_pnp(root, "print", "dogfight", "--export", "sheets")
    assert printed.returncode == 2
    assert "language 'ar' (العربية) is written in the arabic script" in printed.stderr
    assert not (root / "output").exists() or not list((root / "output").rglob("*.pdf"))


# ---------------------------------------------------------------- Japanese: line breaking by script

JA_TEXT = (
    "**偏差射撃：**手札が４枚より多い人は、４枚になるまで「捨て札」に捨てます。"
    "残りのカードは、そのまま手札に残ります。"
)


def test_japanese_breaks_between_characters_but_never_against_kinsoku():
    from generator.load import languages
    from generator.render import textflow

    _, before, after = languages.line_breaking()
    assert {"、", "。", "」", "ー", "っ"} <= before and {"「", "（"} <= after
    pieces = [a.text for a in textflow.parse("まで「捨て札」に捨てます。OK ok", "regular", {})]
    assert pieces == ["ま", "で", "「捨", "て", "札」", "に", "捨", "て", "ま", "す。", "OK", "ok"]
    glued = [a.glued for a in textflow.parse("まで「捨て", "regular", {})]
    assert glued == [False, True, True, True]
    # Latin and Korean text are cut as before: at spaces only
    assert [a.text for a in textflow.parse("Por ejemplo: 한국어 단어", "regular", {})] == [
        "Por",
        "ejemplo:",
        "한국어",
        "단어",
    ]


def _lines_of(pdf_path: Path, first: str, last: str) -> list[tuple[str, float, float]]:
    """The lines of the text from `first` to `last` on page 1: (text, left, right) in pt. A
    line ends where the next character sits clearly lower (punctuation boxes differ in height,
    so characters are grouped by their box's middle, 3 pt apart)."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        text = pdf[0].get_textpage()
        everything = text.get_text_range()
        start = everything.index(first)
        end = everything.index(last, start) + len(last)
        lines: list[list[tuple[float, str, float]]] = []
        middle = None
        for i in range(start, end):
            char = everything[i]
            if char.isspace():
                continue
            left, bottom, right, top = text.get_charbox(i)
            if middle is None or (bottom + top) / 2 < middle - 3:
                lines.append([])
                middle = (bottom + top) / 2
            lines[-1].append((left, char, right))
    finally:
        pdf.close()
    return [("".join(c for _, c, _ in line), line[0][0], line[-1][2]) for line in lines]


def test_a_japanese_card_text_wraps_inside_its_box_with_kinsoku(make_project, tmp_path):
    """A Japanese draft of Dogfight's 10: the text wraps between characters (it has no spaces),
    no line starts with 、。」 or ends with 「, everything stays inside the card's text box,
    and every glyph comes from the bundled faces (PnP Sans JP for kana and kanji)."""
    root = make_project(games=("dogfight",))
    game = root / "content/dogfight/game.yaml"
    text = game.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(languages: \[.*)\]$", r"\1, {ja: draft}]", text)  # a draft
    for es, ja in [
        ("Rojo", "赤"),
        ("Azul", "青"),
        ("Verde", "緑"),
        ("Amarillo", "黄"),
        ("Morado", "紫"),
    ]:
        text = text.replace(f"name: {{es: {es},", f"name: {{ja: {ja}, es: {es},")
    game.write_text(text, encoding="utf-8")
    planes = root / "content/dogfight/components/allied-planes.yaml"
    text = planes.read_text(encoding="utf-8")
    text = text.replace(
        "  deck: {es: Aviones Aliados,", "  deck: {ja: 連合軍機, es: Aviones Aliados,"
    )
    text = text.replace("name: {es: Avión aliado,", "name: {ja: 連合軍機, es: Avión aliado,")
    text = text.replace('    es: "**Deflexión', f'    ja: {JA_TEXT!r}\n    es: "**Deflexión')
    planes.write_text(text, encoding="utf-8")
    out = tmp_path / "red-10.pdf"
    done = run_pnp(
        root, "render", "dogfight", "allied-planes", "red-10", "--lang", "ja", "-o", str(out)
    )
    assert done.returncode == 0 and "0 finding(s)" in done.stdout, done.stdout + done.stderr
    assert any(n.startswith("PnPSansJP") for n in _pdf_fonts(out)), _pdf_fonts(out)
    lines = _lines_of(out, "偏差射撃", "残ります。")
    assert len(lines) >= 3, lines
    assert "".join(t for t, _, _ in lines) == JA_TEXT.replace("**", "")
    from generator.load import languages

    _, before, after = languages.line_breaking()
    for number, (line, _, _) in enumerate(lines):
        assert number == 0 or line[0] not in before, lines
        assert line[-1] not in after, lines
    pdf = pdfium.PdfDocument(str(out))
    page_w = pdf[0].get_width()
    pdf.close()
    width, safe = 63 * 72 / 25.4, 3 * 72 / 25.4  # a poker card, and 3 mm inside its trim
    inset = (page_w - width) / 2  # the bleed around the trim
    assert all(left > inset + safe and right < inset + width - safe for _, left, right in lines), (
        lines
    )


def test_a_designers_fonts_yaml_comes_first_and_the_scripts_faces_still_fall_back(
    make_project, tmp_path
):
    """A project whose fonts.yaml predates the script faces (gothic only): its own family is
    the layouts' font, and German characters it lacks still come from the bundled PnP Sans."""
    root = make_project(games=("dogfight",))  # no font files of its own: pnp's
    (root / "templates/fonts").mkdir()
    (root / "templates/fonts/fonts.yaml").write_text(
        "families:\n  gothic:\n    regular: PnPGothic-Regular.ttf\n"
        "    bold: PnPGothic-Bold.ttf\n    black: PnPGothic-ExtraBold.ttf\n",
        encoding="utf-8",
    )
    _deflection(root, GERMAN)
    found = run_pnp(root, "check", "dogfight", "--format", "json")
    assert "missing-glyph" not in found.stdout, found.stdout
    out = tmp_path / "red-10.pdf"
    run_pnp(root, "render", "dogfight", "allied-planes", "red-10", "-o", str(out), check=True)
    names = _pdf_fonts(out)
    assert any(n.startswith("PnPGothic") for n in names)
    assert any(n.startswith("PnPSans") for n in names), names


# ---------------------------------------------------------------- Chinese, Arabic, Hebrew drafts

DRAFTS = {
    "zh-Hans": {
        "suits": ["红", "蓝", "绿", "黄", "紫"],
        "deck": "盟军飞机",
        "name": "盟军飞机",
        "deflection": "**偏转射击：**手牌多于4张的玩家弃牌，直到手中只剩下4张为止。"
        "其余的牌仍留在手中。",
    },
    "zh-Hant": {
        "suits": ["紅", "藍", "綠", "黃", "紫"],
        "deck": "盟軍飛機",
        "name": "盟軍飛機",
        "deflection": "**偏轉射擊：**手牌多於4張的玩家棄牌，直到手中只剩下4張為止。"
        "其餘的牌仍留在手中。",
    },
    "ar": {
        "suits": ["أحمر", "أزرق", "أخضر", "أصفر", "بنفسجي"],
        "deck": "طائرات الحلفاء",
        "name": "طائرة حليفة",
        "deflection": "**الانحراف:** من في يده أكثر من 4 أوراق يرمي الزائد حتى تبقى معه 4.",
    },
    "he": {
        "suits": ["אדום", "כחול", "ירוק", "צהוב", "סגול"],
        "deck": "מטוסי בעלות הברית",
        "name": "מטוס בעלות הברית",
        "deflection": "**הסטה:** מי שיש לו ביד יותר מ-4 קלפים משליך קלפים עד שנשארים לו 4.",
    },
}


def _draft(root: Path, lang: str) -> None:
    """Dogfight with a draft language `lang`: the suit names, the allied deck and plane names
    and the 10s' deflection text translated (DRAFTS), everything else falling back."""
    words = DRAFTS[lang]
    game = root / "content/dogfight/game.yaml"
    text = game.read_text(encoding="utf-8")
    text = re.sub(r"(?m)^(languages: \[.*)\]$", rf"\1, {{{lang}: draft}}]", text)
    for es, word in zip(
        ["Rojo", "Azul", "Verde", "Amarillo", "Morado"], words["suits"], strict=True
    ):
        text = text.replace(f"name: {{es: {es},", f"name: {{{lang}: {word}, es: {es},")
    game.write_text(text, encoding="utf-8")
    planes = root / "content/dogfight/components/allied-planes.yaml"
    text = planes.read_text(encoding="utf-8")
    text = text.replace("  deck: {es: Aviones", f"  deck: {{{lang}: {words['deck']}, es: Aviones")
    text = text.replace(
        "name: {es: Avión aliado,", f"name: {{{lang}: {words['name']}, es: Avión aliado,"
    )
    text = text.replace(
        '    es: "**Deflexión',
        f'    {lang}: {json.dumps(words["deflection"])}\n    es: "**Deflexión',
    )
    planes.write_text(text, encoding="utf-8")


def _render_draft(make_project, tmp_path: Path, lang: str, card: str = "red-10") -> Path:
    root = make_project(games=("dogfight",))
    _draft(root, lang)
    out = tmp_path / f"{lang}-{card}.pdf"
    done = run_pnp(
        root, "render", "dogfight", "allied-planes", card, "--lang", lang, "-o", str(out)
    )
    assert done.returncode == 0 and "0 finding(s)" in done.stdout, done.stdout + done.stderr
    return out


def _chars(pdf_path: Path, first: str | None = None) -> list[tuple[str, float, float, float]]:
    """Every character pdfium reads on page 1: (char, left, right, middle height) in pt."""
    pdf = pdfium.PdfDocument(str(pdf_path))
    try:
        text = pdf[0].get_textpage()
        out = []
        for i in range(text.count_chars()):
            char = text.get_text_range(i, 1)
            left, bottom, right, top = text.get_charbox(i)
            out.append((char, left, right, (bottom + top) / 2))
    finally:
        pdf.close()
    return out


def _inside_card(pdf_path: Path, lefts_rights: list[tuple[float, float]]) -> bool:
    pdf = pdfium.PdfDocument(str(pdf_path))
    page_w = pdf[0].get_width()
    pdf.close()
    width, safe = 63 * 72 / 25.4, 3 * 72 / 25.4  # a poker card, and 3 mm inside its trim
    inset = (page_w - width) / 2
    return all(inset + safe < a and b < inset + width - safe for a, b in lefts_rights)


@pytest.mark.parametrize("lang,face", [("zh-Hans", "PnPSansSC"), ("zh-Hant", "PnPSansTC")])
def test_a_chinese_card_text_wraps_between_characters_in_its_own_face(
    make_project, tmp_path, lang, face
):
    """Chinese drafts of Dogfight's 10: zh-Hans prints from PnP Sans SC and zh-Hant from PnP
    Sans TC (the embedded fonts say so, and neither uses the Japanese face), the text wraps
    between characters inside the card's text box, no line starts with ，or 。"""
    out = _render_draft(make_project, tmp_path, lang)
    embedded = _pdf_fonts(out)
    assert any(n.startswith(face) for n in embedded), embedded
    assert not any(n.startswith("PnPSansJP") for n in embedded), embedded
    text = DRAFTS[lang]["deflection"].replace("**", "")
    lines = _lines_of(out, text[:4], text[-4:])
    assert len(lines) >= 2, lines  # no spaces: it wraps between characters
    assert "".join(t for t, _, _ in lines) == text
    assert all(line[0] not in "，。：" for line, _, _ in lines[1:]), lines
    assert _inside_card(out, [(a, b) for _, a, b in lines]), lines


def test_chinese_tags_pick_their_face():
    from generator.load import languages

    for tag in ("zh", "zh-Hans", "zh-CN"):
        assert languages.script_font(tag) == "sc", tag
    for tag in ("zh-Hant", "zh-TW", "zh-HK", "zh-Hant-TW"):
        assert languages.script_font(tag) == "tc", tag
        assert languages.get(tag).label("contents") == "目錄"
    assert languages.get("zh-CN").label("contents") == "目录"
    assert all(languages.refusal(t) is None for t in ("zh", "zh-Hant", "ar", "he"))


def test_arabic_letters_are_shaped_into_their_joined_forms():
    """HarfBuzz shaping: "الانحراف" in PnP Sans Arabic is other glyphs than its letters set
    one by one (initial, medial, final forms), lam-alef is one ligature glyph, and the shaped
    width is what wrapping measures."""
    from generator.render import shaping
    from generator.render.fonts import fontbook

    face = fontbook(ROOT / "templates" / "fonts").face("arabic")
    word = "الانحراف"
    joined = shaping.glyphs(face.name, word, True)
    alone = [shaping.glyphs(face.name, c, True)[0].char for c in word]
    assert len(joined) == len(word) - 1  # lam-alef: one ligature glyph
    assert len({g.char for g in joined} - set(alone)) >= 4, (joined, alone)
    assert face.width(word, 1.0) == pytest.approx(sum(g.advance for g in joined))
    assert face.width(word, 1.0) != pytest.approx(sum(face.width(c, 1.0) for c in word))


@pytest.mark.parametrize(
    "lang,face,first", [("ar", "PnPSansArabic", "ا"), ("he", "PnPSansHebrew", "ה")]
)
def test_right_to_left_card_text_reads_right_to_left_and_wraps_in_its_box(
    make_project, tmp_path, lang, face, first
):
    """Arabic and Hebrew drafts of Dogfight's 10: the deflection text prints from the script's
    face, its first letter is the rightmost glyph of its first line (right to left), the number
    4 inside stays a digit, the text wraps over two lines or more and every line stays inside
    the card."""
    out = _render_draft(make_project, tmp_path, lang)
    assert any(n.startswith(face) for n in _pdf_fonts(out)), _pdf_fonts(out)
    script = re.compile("[\u0590-\u06ff\ufb1d-\ufeff]")
    chars = sorted((c for c in _chars(out) if script.match(c[0])), key=lambda c: -c[3])
    lines: list[list[tuple[str, float, float, float]]] = []
    for c in chars:  # a line: characters whose middles are within 4 pt of its first one
        if not lines or lines[-1][0][3] - c[3] > 4:
            lines.append([])
        lines[-1].append(c)
    deflection = lines[2:]  # under the deck name and the suit
    assert len(deflection) >= 2, lines
    rightmost = max(deflection[0], key=lambda c: c[2])
    assert unicodedata_nfkc(rightmost[0])[0] == first, deflection[0]
    low, high = deflection[-1][0][3] - 4, deflection[0][0][3] + 4
    assert any(ch == "4" and low < mid < high for ch, _, _, mid in _chars(out))
    assert _inside_card(out, [(min(c[1] for c in r), max(c[2] for c in r)) for r in deflection])


def unicodedata_nfkc(text: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKC", text)

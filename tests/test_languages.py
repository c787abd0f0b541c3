"""Languages are data (templates/languages/<code>.yaml): no Python branches on a language code."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

from conftest import ROOT

from generator import languages
from generator.check.numbers import find_numbers

CODES = {"es", "en", "ko", "fr"}


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String literals in Python code (not comments) whose value is a bare language code."""
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
    previous = None
    for tok in tokens:
        if tok.type == tokenize.STRING:
            body = tok.string.lstrip("rbuRBU")
            is_code = body[:1] in "\"'" and body.strip("\"'") in CODES and len(body) <= 4
            # `key + "es"` is a plural suffix, not a language
            if is_code and not (previous is not None and previous.string == "+"):
                out.append((tok.start[0], tok.string))
        if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
            previous = tok
    return out


def test_no_language_code_in_generator():
    found = [
        f"{path.relative_to(ROOT)}:{line}: {text}"
        for path in sorted((ROOT / "generator").rglob("*.py"))
        for line, text in _code_strings(path)
    ]
    assert not found, "language knowledge belongs in templates/languages/: " + "; ".join(found)


def test_the_grep_test_catches_a_branch(tmp_path):
    sample = tmp_path / "x.py"
    sample.write_text(
        'if lang == "ko":\n    pass\nlabels = {\'es\': 1}\nplural = key + "es"\n', encoding="utf-8"
    )
    assert [t for _, t in _code_strings(sample)] == ['"ko"', "'es'"]


def test_every_shipped_language_loads_with_its_labels():
    for code in languages.known():
        lang = languages.get(code)
        assert lang.file is not None and lang.name and lang.name != code
        for key in languages.LABELS:
            assert lang.labels.get(key), f"{code}: label {key}"


def test_keep_words_comes_from_the_script():
    assert languages.get("ko").script == "hangul" and languages.get("ko").keep_words
    assert not languages.get("es").keep_words
    assert languages.get("xx").name == "xx"  # no file: default.yaml, digits only
    assert [n.value for n in find_numbers("3 cartes et cinq jetons", "xx")] == [3]


def test_french_number_words_are_numbers():
    # "cinq" once gave a false number error: fr.yaml now lists its number words.
    found = find_numbers("Défaussez cinq cartes, puis vingt-deux et 3", "fr")
    assert [n.value for n in found] == [5, 22, 3]
    assert [n.value for n in find_numbers("la 2e manche", "fr")] == []  # an ordinal

"""Languages are data (templates/languages/<code>.yaml): no Python branches on a language code."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import ROOT, python_tree

from generator.check.numbers import find_numbers
from generator.load import languages

CODES = {"es", "en", "ko", "fr", "de", "pl", "ja", "zh", "ar", "he"}


def _is_code(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in CODES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_is_code(e) for e in node.elts)
    return False


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """Places where code branches on a language code: a comparison with one (`lang == "ko"`,
    `lang in ("es", "en")`), a match case on one, or a table keyed by one (`{"es": ...}`)."""
    out = []
    for node in ast.walk(python_tree(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Compare) and any(
            _is_code(n) for n in (node.left, *node.comparators)
        ):
            out.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Dict) and any(k is not None and _is_code(k) for k in node.keys):
            out.append((node.lineno, ast.unparse(node)[:60]))
        elif isinstance(node, ast.MatchValue) and _is_code(node.value):
            out.append((node.lineno, ast.unparse(node.value)))
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
        'if lang == "ko":\n    pass\nlabels = {"es": 1}\nok = lang in ("en", "fr")\n'
        'plural = key + "es"\nlanguages.get("ko")\n',
        encoding="utf-8",
    )
    assert [t for _, t in _code_strings(sample)] == [
        "lang == 'ko'",
        "{'es': 1}",
        "lang in ('en', 'fr')",
    ]


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

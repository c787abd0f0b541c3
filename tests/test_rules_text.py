"""Counts anywhere in the rules, term swaps in running paragraphs, and glossary senses
(`not:`, `omit:`, `group:`): a mutation test per rule, on the validator's fixture (Red Code es/ko
from the seeds) and on copies of the real games."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import copy_project
from test_validate import RC, edit, findings, make_project

SENTENCE_ES = "La caja contiene 15 cartas de mapa, 30 cartas de orden y 6 piezas de barco.\n\n"
SENTENCE_KO = "상자에는 맵 카드 15장, 명령 카드 30장과 함선 말 6개가 들어 있습니다.\n\n"


@pytest.fixture
def red(tmp_path) -> Path:
    root = make_project(tmp_path, "red-code")
    (root / RC / "rules/i18n-sync.yaml").unlink()  # the mutations below are not reviewed
    edit(root / RC / "rules/es.md", "## 3 Contenido\n\n", "## 3 Contenido\n\n" + SENTENCE_ES)
    edit(root / RC / "rules/ko.md", "## 3 구성물\n\n", "## 3 구성물\n\n" + SENTENCE_KO)
    return root


def errors(root: Path, game: str = "red-code") -> list[tuple[str, str, int | None]]:
    return sorted(
        (f.code, f.lang or "", f.line)
        for f in findings(root, game)
        if f.severity == "error" and not f.accepted
    )


def test_counts_in_a_sentence_that_agree_are_clean(red):
    assert errors(red) == []


def test_mutation_wrong_count_in_a_spanish_sentence(red):
    edit(red / RC / "rules/es.md", "30 cartas de orden y", "31 cartas de orden y")
    found = findings(red, "red-code")
    count = [f for f in found if f.code == "rules-count"]
    assert [(f.lang, f.line) for f in count] == [("es", 5)]
    assert count[0].message == (
        "order-cards: rulebook says 31, manifest says 30 (§3 '31 cartas de orden')"
    )
    assert "translation-number" in {f.code for f in found}  # and ko says 30


def test_mutation_same_wrong_count_in_source_and_translation_is_still_rules_count(red):
    edit(red / RC / "rules/es.md", "30 cartas de orden y", "31 cartas de orden y")
    edit(red / RC / "rules/ko.md", "명령 카드 30장과", "명령 카드 31장과")
    assert errors(red) == [("rules-count", "es", 5), ("rules-count", "ko", 5)]


def test_mutation_deck_cut_while_the_sentence_keeps_the_old_count(red):
    edit(red / RC / "manifest.yaml", "order-cards: 30", "order-cards: 28")
    edit(
        red / RC / "components/order-cards.yaml", "{id: order, count: 30}", "{id: order, count: 28}"
    )
    found = errors(red)
    assert ("rules-count", "es", 5) in found and ("rules-count", "ko", 5) in found


def test_mutation_korean_list_with_wa(red):
    edit(red / RC / "rules/ko.md", "함선 말 6개가", "함선 말 7개가")
    found = findings(red, "red-code")
    count = [f for f in found if f.code == "rules-count"]
    assert [(f.lang, f.line) for f in count] == [("ko", 5)]
    assert "ship-pieces: rulebook says 7, manifest says 6 (§3 '함선 말 7개')" in count[0].message


def test_mutation_english_and_list(tmp_path):
    root = copy_project(tmp_path / "proj", ("red-code",))
    en = root / "content/red-code/rules/en.md"
    text = en.read_text(encoding="utf-8")
    head = text.index("\n## 4 ")
    en.write_text(
        text[:head]
        + "\n\nThe box holds 15 map cards, 30 order cards and 6 ship pieces.\n"
        + text[head:],
        encoding="utf-8",
    )
    assert [f for f in errors(root) if f[0] == "rules-count"] == []
    edit(en, "30 order cards and 6", "32 order cards and 6")
    assert [f[:2] for f in errors(root) if f[0] == "rules-count"] == [("rules-count", "en")]


def test_an_effect_with_two_counts_is_not_a_list_of_contents(red):
    edit(
        red / RC / "rules/es.md",
        SENTENCE_ES,
        SENTENCE_ES + "Cada jugador roba 2 cartas de orden y 1 carta de control.\n\n",
    )
    edit(
        red / RC / "rules/ko.md",
        SENTENCE_KO,
        SENTENCE_KO + "각 플레이어는 명령 카드 2장과 조종 카드 1장을 뽑습니다.\n\n",
    )
    assert [f for f in errors(red) if f[0] == "rules-count"] == []


# ---------------------------------------------------------------- terms in running paragraphs


def test_mutation_term_swapped_in_a_paragraph(tmp_path):
    """es "el destructor rojo puede apuntar al submarino azul"; en says "red submarine": the
    translation drops destroyer and says submarine once more than es (group: ship-kind)."""
    root = copy_project(tmp_path / "proj", ("red-code",))
    assert [f for f in errors(root) if f[0] == "translation-term"] == []
    edit(
        root / "content/red-code/rules/en.md",
        "the red destroyer can target",
        "the red submarine can target",
    )
    swaps = [
        f for f in findings(root, "red-code") if f.code == "translation-term" and not f.accepted
    ]
    assert [(f.lang, f.line) for f in swaps] == [("en", 56)]  # §3.2, where prose is reported
    assert "es says destroyer ('destructor') where en says submarine ('submarine')" in (
        swaps[0].message
    )


# ---------------------------------------------------------------- glossary senses


def test_not_phrases_silence_ordinary_uses_only(tmp_path):
    root = copy_project(tmp_path / "proj", ("the-hunt-begins",))
    game = root / "content/the-hunt-begins"
    assert [f for f in errors(root, "the-hunt-begins") if f[0] == "translation-term"] == []
    # without the exclusion, "must pass a CC check" is read as the Pass action again
    edit(game / "glossary.yaml", '    not: {en: ["pass a * check", "pass a check"]}', "")
    lines = sorted(
        f.line
        for f in findings(root, "the-hunt-begins")
        if f.code == "translation-term" and not f.accepted
    )
    assert lines == [127, 140]


def test_mutation_the_pass_action_is_still_checked(tmp_path):
    root = copy_project(tmp_path / "proj", ("the-hunt-begins",))
    edit(
        root / "content/the-hunt-begins/rules/es.md",
        "Movimiento acechante y pasar son",
        "Movimiento acechante y esperar son",
    )
    found = [f for f in findings(root, "the-hunt-begins") if f.code == "translation-term"]
    assert any("en says pass ('pass'), es has no 'Pasar'" in f.message for f in found), found


def test_omit_lets_korean_drop_the_subject_but_not_swap_it(tmp_path):
    root = copy_project(tmp_path / "proj", ("sub-zero",))
    game = root / "content/sub-zero"
    assert [f for f in errors(root, "sub-zero") if f[0] == "translation-term"] == []
    # without omit: the ko sentence without a subject is a finding again (§7 item 3)
    edit(game / "glossary.yaml", "    omit: [ko]", "")
    assert [f[1:] for f in errors(root, "sub-zero") if f[0] == "translation-term"] == [("ko", 78)]


def test_mutation_omissible_term_replaced_by_another_is_an_error(tmp_path):
    root = copy_project(tmp_path / "proj", ("sub-zero",))
    edit(root / "content/sub-zero/rules/ko.md", "- 플레이어 말 4개.", "- 눈덩이 말 4개.")
    found = [f for f in errors(root, "sub-zero") if f[0] == "translation-term"]
    assert found == [("translation-term", "ko", 32)]


def test_glossary_senses_are_validated(tmp_path):
    from generator.errors import ContentError

    root = copy_project(tmp_path / "proj", ("sub-zero",))
    edit(root / "content/sub-zero/glossary.yaml", "    omit: [ko]", "    omit: [korean]")
    with pytest.raises(ContentError) as caught:
        findings(root, "sub-zero")
    assert "'korean' in not/omit is not a language code" in caught.value.message
    assert caught.value.line is not None


# ---------------------------------------------------------------- unit words that are terms


@pytest.mark.parametrize("langs", ["fr,en", "es,en,fr,ko"])
def test_a_unit_word_that_is_a_glossary_form_says_its_term(tmp_path, langs):
    """fr "12 pièces" is a count in a unit word (fr.yaml's units) and the glossary's coin: it
    answers en "12 coins" and es "12 monedas", while a wrong term in its place is still one."""
    from conftest import run_pnp

    root = make_project(tmp_path)
    run_pnp(root, "new", "g", "--langs", langs, check=True)
    assert errors(root, "g") == []
    edit(root / "content/g/rules/fr.md", "- 12 pièces.", "- 12 cartes.")
    terms = [f for f in errors(root, "g") if f[0] == "translation-term"]
    assert [line for _, _, line in terms] == [8]  # §1 item 2, wherever the source is

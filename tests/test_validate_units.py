"""The validator's parts on their own: numbers and number words, glossary terms with Korean
particles, count statements as the designers write them, invariants, acceptances."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.check import counts, numbers
from generator.check.accepted import Acceptance, finding_id, matches
from generator.check.invariants import evaluate
from generator.check.numbers import find_numbers
from generator.check.text import Item
from generator.errors import Finding
from generator.load import languages
from generator.load.glossary import load_glossary
from generator.load.terms import index, normalize

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"
RED = load_glossary(FIXTURES / "red-code")
SUB = load_glossary(FIXTURES / "sub-zero")


def nums(text, lang):
    return [n.value for n in find_numbers(text, lang)]


# ---------------------------------------------------------------- numbers


@pytest.mark.parametrize(
    "lang, text, expected",
    [
        ("es", "15 cartas de mapa", [15]),
        ("es", "Mover dos casillas", [2]),
        ("es", "Hay 3 tipos de barcos", [3]),
        ("es", "tres, cuatro, cinco, seis, siete, ocho, nueve, diez", [3, 4, 5, 6, 7, 8, 9, 10]),
        ("es", "treinta y dos cartas, una carta, un barco, uno", [32, 1, 1, 1]),
        ("es", "su segunda acción, el 1º", []),  # ordinals are not counts
        ("es", "todos los dosieres", []),  # words, not parts of words
        ("en", "twenty-one cards, two spaces, one of them", [21, 2, 1]),
        ("en", "the 2nd turn", []),
        ("ko", "맵 카드 15장", [15]),
        ("ko", "두 칸 이동합니다", [2]),
        ("ko", "한 칸에는 함선 한 척만", [1, 1]),
        ("ko", "세 종류 함선, 네 칸으로, 다섯 장", [3, 4, 5]),
        ("ko", "둘 다 사용하고 하나를 고릅니다", [2, 1]),
        ("ko", "셋 중 하나, 넷이 함께, 승무원 여섯 명", [3, 1, 4, 6]),
        ("ko", "두개를 놓습니다", [2]),
        ("ko", "세 번째 행동, 제2차 세계대전, 두 번째", []),  # ordinals
        ("ko", "비공개로 둘 수 있습니다", []),  # 둘 수: the verb 두다, not two
        ("ko", "그리고 네, 실수로라도", []),  # 네: yes
        ("ko", "8세 이상, 1~4 숫자", [8, 1, 4]),
    ],
)
def test_numbers(lang, text, expected):
    assert nums(text, lang) == expected


@pytest.mark.parametrize("lang", ["en", "es", "fr", "de", "pl"])
def test_number_words_grouped_by_first_letter_find_what_a_flat_list_finds(lang):
    words = sorted(languages.get(lang).numbers.words, key=len, reverse=True)
    flat = re.compile(
        r"(?<![\w-])(?:"
        + "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in words)
        + r")(?![\w-])",
        re.IGNORECASE,
    )
    # every word, as written, capitalised, shouted, glued to its neighbour, and split by a line
    text = " ".join(words) + ". " + ", ".join(w.capitalize() for w in words) + "; "
    text += " ".join(w.upper() for w in words) + " " + "".join(words) + " "
    text += " ".join(w.replace(" ", "\n ") for w in words)
    found = [(m.span(), m.group()) for m in numbers._word_regex(lang).finditer(text)]
    assert found == [(m.span(), m.group()) for m in flat.finditer(text)]
    assert len(found) > 3 * len(words)


def test_korean_counter_is_kept():
    n = find_numbers("명중 마커 60개(플레이어당 15개)", "ko")
    assert [(x.value, x.counter, x.text) for x in n] == [(60, "개", "60개"), (15, "개", "15개")]


# ---------------------------------------------------------------- terms


def terms_in(glossary, lang, text, all_=False):
    idx = index(glossary, lang)
    found = idx.find_all(normalize(text)) if all_ else idx.find(normalize(text))
    return [sorted(m.terms) for m in found]


def test_korean_particles_are_prefix_matched():
    assert terms_in(RED, "ko", "맵 카드를 섞은 뒤") == [["map-card"], ["shuffle"]]
    assert ["repair"] in terms_in(RED, "ko", "수리를 2 줄입니다")
    assert ["breakdown"] in terms_in(RED, "ko", "고장이 나면")
    assert ["space"] in terms_in(RED, "ko", "최대 사거리 2칸에서")  # a counter glued to a number


def test_spanish_plurals_come_from_the_glossary_forms():
    assert terms_in(RED, "es", "18 cubos rojos") == [["breakdown-cube"]]
    assert terms_in(RED, "es", "las cartas de orden") == [["order-card"]]
    assert terms_in(RED, "es", "cartasde") == []  # whole words only


def test_longest_form_wins_and_overlaps_are_found_by_find_all():
    assert terms_in(RED, "es", "Recupera 1 cubo de reparación") == [["recover"], ["repair-cube"]]
    every = terms_in(RED, "es", "Recupera 1 cubo de reparación", all_=True)
    assert ["repair-cube"] in every and ["repair"] in every


def test_exact_case_wins_over_folded_case():
    assert terms_in(SUB, "es", "Movimiento (12 cartas)")[0] == ["move-card"]
    assert terms_in(SUB, "es", "el movimiento")[0] == ["move"]


def test_counter_forms_match_only_after_numbers(tmp_path):
    (tmp_path / "glossary.yaml").write_text(
        "terms:\n  - {id: points, es: [puntos], ko: [점, 승점]}\n"
        "  - {id: score, es: [puntuación], ko: [점수]}\n",
        encoding="utf-8",
    )
    glossary = load_glossary(tmp_path)
    assert terms_in(glossary, "ko", "35점이면") == [["points"]]
    assert terms_in(glossary, "ko", "최고 점수는") == [["score"]]
    assert terms_in(glossary, "ko", "다섯 점") == [["points"]]


# ---------------------------------------------------------------- count statements


def statements(glossary, lang, text):
    idx = index(glossary, lang)
    return [
        (s.value, s.component, s.term, s.per_player)
        for s in counts.statements(Item(1, normalize(text), 1), lang, idx)
    ]


@pytest.mark.parametrize(
    "glossary, lang, text, expected",
    [
        (RED, "es", "15 cartas de mapa", [(15, "map-cards", "map-card", None)]),
        (RED, "es", "3 cartas de control azules", [(3, "control-cards", "control-card", None)]),
        (RED, "ko", "맵 카드 15장", [(15, "map-cards", "map-card", None)]),
        (RED, "ko", "파란색 조종 카드 3장", [(3, "control-cards", "control-card", None)]),
        (RED, "ko", "빨간색 큐브 18개", [(18, "tokens", "breakdown-cube", None)]),
        (RED, "en", "3 blue control cards", [(3, "control-cards", "control-card", None)]),
        (SUB, "es", "Roll = 16 piezas", [(16, "action-cards", "roll-card", None)]),
        (SUB, "es", "Move 1 = 4 piezas", [(4, "action-cards", "move-card", None)]),
        (SUB, "es", "Move/ attack 2 = 4 piezas", [(4, "action-cards", "move-attack-card", None)]),
        (
            SUB,
            "es",
            "Bola de Nieve estrellada: 14 piezas.",
            [(14, "hit-markers", "splatted-snowball", None)],
        ),
        (
            SUB,
            "es",
            "Movimiento (12 cartas) (numeradas de 1 a 4) (Move)",
            [(12, "action-cards", "move-card", None)],
        ),
        (
            SUB,
            "es",
            "Movimiento / Lanzamiento (8 cartas)",
            [(8, "action-cards", "move-shoot-card", None)],
        ),
        (
            SUB,
            "es",
            "60 marcadores de golpe (15 para cada jugador).",
            [(60, "hit-markers", "hit-marker", 15)],
        ),
        (SUB, "ko", "명중 마커 60개(플레이어당 15개).", [(60, "hit-markers", "hit-marker", 15)]),
        (SUB, "ko", "이동 (12장) (1~4 숫자) (Move)", [(12, "action-cards", "move-card", None)]),
        (SUB, "ko", "Roll = 16장", [(16, "action-cards", "roll-card", None)]),
        (SUB, "en", "60 hit markers (15 per player).", [(60, "hit-markers", "hit-marker", 15)]),
        # effects, not counts
        (
            RED,
            "es",
            "Capitán: 1 daño de reparación a la nave objetivo, y luego roba 1 carta de orden.",
            [],
        ),
        (RED, "es", "Reparación: Recupera 1 cubo de reparación.", []),
        (RED, "ko", "수리(Repair): 수리 큐브 1개를 회복합니다.", []),
        (SUB, "es", "Bola de Nieve : 4 piezas.", []),  # "Bola de Nieve" links no component
    ],
)
def test_count_statements(glossary, lang, text, expected):
    assert statements(glossary, lang, text) == expected


def test_a_count_in_cards_beats_a_count_of_decks():
    dogfight = load_glossary(Path(__file__).resolve().parents[1] / "content" / "dogfight")
    if dogfight is None:
        pytest.skip("no dogfight glossary")
    es = statements(
        dogfight,
        "es",
        "Un mazo de Aviones Aliados, de 50 cartas, distribuidas en 5 palos de "
        "cartas numeradas del 1 al 10.",
    )
    ko = statements(
        dogfight,
        "ko",
        "연합군 비행기 덱 1개, 카드 50장: 1부터 10까지 숫자가 적힌 카드가 5개 문양으로 "
        "나뉘어 있습니다.",
    )
    assert [s[:2] for s in es] == [(50, "allied-planes")] == [s[:2] for s in ko]


# ---------------------------------------------------------------- invariants


def test_invariant_messages_name_both_sides():
    values = {
        "crew_cubes": 36,
        "ships": 6,
        "crew_per_ship": 5,
        "map_cards_used": 12,
        "map_cards": 15,
    }
    assert evaluate("crew_cubes == ships * crew_per_ship", values) == (
        False,
        "crew_cubes (36) == ships * crew_per_ship (6 × 5 = 30)",
    )
    assert evaluate("map_cards_used == 12 <= map_cards", values) == (True, "")
    assert evaluate("map_cards_used == 12 <= map_cards - 4", values) == (
        False,
        "12 <= map_cards - 4 (15 - 4 = 11)",
    )
    assert evaluate("crew_cubes == 36 and ships == 6", values) == (
        True,
        "crew_cubes == 36 and ships == 6 is false",
    )


# ---------------------------------------------------------------- acceptances


def test_acceptance_matching():
    f = Finding(
        "error",
        "rules-count",
        "action-cards: rulebook says 56, manifest says 60 (§2 '56 cartas')",
        file="content/sub-zero/rules/es.md",
        line=40,
        lang="es",
        game="sub-zero",
    )
    assert matches(Acceptance(code="rules-count", reason="fine", file="rules/es.md"), f)
    assert matches(Acceptance(code="rules-count", reason="fine", message="rulebook says 56"), f)
    assert matches(Acceptance(code="rules-count", reason="fine", id=finding_id(f)), f)
    assert not matches(Acceptance(code="rules-count", reason="fine", file="s/es.md"), f)
    assert not matches(Acceptance(code="rules-count", reason="fine", lang="ko"), f)
    assert not matches(Acceptance(code="translation-term", reason="fine"), f)
    moved = Finding(**{**f.__dict__, "line": 99})
    assert finding_id(moved) == finding_id(f)  # the id survives edits elsewhere in the file

"""`pnp check`'s content checks on fixtures copied from the seed texts (tests/fixtures/validate/):
Red Code es/ko (seeds 000, 001) and Sub Zero es (seed 004), then one mutation at a time, each
expecting exactly the findings it should cause."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, run_pnp

from generator.check import check_game
from generator.load.content import load_game
from generator.load.project import Project

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "validate"
SEEDS = ROOT.parent / "shared" / "seeds"


def make_project(tmp_path: Path, *games: str, seed_rules: bool = False) -> Path:
    root = tmp_path / "proj"
    (root / "content").mkdir(parents=True)
    (root / "templates").symlink_to(ROOT / "templates", target_is_directory=True)
    for game in games:
        shutil.copytree(FIXTURES / game, root / "content" / game)
    if seed_rules:
        for md in (FIXTURES / "red-code-seed").glob("*.md"):
            shutil.copy(md, root / "content/red-code/rules" / md.name)
        (root / "content/red-code/rules/i18n-sync.yaml").unlink()  # these texts were never reviewed
    return root


def findings(root: Path, game: str):
    return check_game(load_game(Project(root), game))


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def codes(found, include_accepted=True):
    return sorted(
        (f.code, f.lang or "", Path(f.file).name)
        for f in found
        if include_accepted or not f.accepted
    )


@pytest.fixture
def red(tmp_path) -> Path:
    return make_project(tmp_path, "red-code")


@pytest.fixture
def sub(tmp_path) -> Path:
    return make_project(tmp_path, "sub-zero")


RC = "content/red-code"


# ---------------------------------------------------------------- the seed texts


def test_fixture_texts_are_copied_from_the_seeds():
    """Every line of prose and every list item of the fixture rulebooks is in its seed, word for
    word (headings and Markdown markup aside)."""
    if not SEEDS.is_dir():
        pytest.skip("shared/seeds is not beside the checkout")
    sources = {
        "red-code/rules/es.md": "000",
        "red-code/rules/ko.md": "001",
        "red-code-seed/es.md": "000",
        "red-code-seed/ko.md": "001",
        "sub-zero/rules/es.md": "004",
    }
    for rel, seed_prefix in sources.items():
        seed = next(SEEDS.glob(f"{seed_prefix}_*.txt")).read_text(encoding="utf-8")
        seed_words = " ".join(seed.replace("•", " ").split())
        for line in (FIXTURES / rel).read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            text = re.sub(r"^\s*-\s+", "", line).replace("**", "")
            assert " ".join(text.split()) in seed_words, (
                f"{rel}: {text!r} is not in seed {seed_prefix}"
            )


def test_clean_fixture_gives_no_findings(red):
    """A correct translation (same numbers, same terms), counts that match the manifest,
    invariants that hold and sections marked in sync: nothing to report."""
    assert findings(red, "red-code") == []
    result = run_pnp(red, "check")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 error(s), 0 warning(s)" in result.stdout


def test_red_code_es_vs_ko_medical_equipment_repair_vs_breakdown(tmp_path):
    root = make_project(tmp_path, "red-code", seed_rules=True)
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode == 1
    found = json.loads(result.stdout)
    medical = [f for f in found if "Medical equipment" in f["message"]]
    assert len(medical) == 1, found
    f = medical[0]
    assert f["code"] == "translation-term" and f["severity"] == "error"
    assert f["file"] == f"{RC}/rules/ko.md" and f["line"] == 40 and f["lang"] == "ko"
    assert "es says repair-cube ('cubo de reparación'), repair ('reparación')" in f["message"]
    assert "ko says breakdown-cube ('고장 큐브'), breakdown ('고장')" in f["message"]
    assert "§3.2 item 15" in f["message"]
    # the seeds' other real differences in these sections, and nothing else
    others = sorted((g["code"], g["line"]) for g in found if g is not f)
    assert others == [("translation-term", 16), ("translation-term", 31)], found
    terrain = next(g for g in found if g["line"] == 16)
    assert "terrain ('Terrenos') where ko says island ('섬')" in terrain["message"]


def test_sub_zero_rules_against_the_piece_list_manifest(sub):
    result = run_pnp(sub, "check", "--format", "json")
    assert result.returncode == 1
    found = {f["message"].split(" (§")[0]: f for f in json.loads(result.stdout)}
    assert set(found) == {
        "action-cards: rulebook says 56, manifest says 60",
        "action-cards: rulebook's counts add up to 56, manifest says 60",
        "action-cards (move): rulebook says 12, manifest says 16",
        "hit-markers: rulebook says 60, manifest says 56",
    }, list(found)
    cards = found["action-cards: rulebook says 56, manifest says 60"]
    assert cards["file"] == "content/sub-zero/rules/es.md" and cards["line"] == 40
    assert "'56 cartas de acción'" in cards["message"]
    move = found["action-cards (move): rulebook says 12, manifest says 16"]
    assert "'Movimiento (12 cartas)'" in move["message"] and move["line"] == 50
    hits = found["hit-markers: rulebook says 60, manifest says 56"]
    assert (
        "'60 marcadores de golpe (15 para cada jugador)'" in hits["message"] and hits["line"] == 43
    )
    for f in found.values():
        assert f["code"] == "rules-count" and f["severity"] == "error"


def test_sub_zero_hit_markers_per_player_times_players(sub):
    """15 per player x 4 players (manifest constants) = 60: consistent with the stated total;
    14 per player is not."""
    rules = sub / "content/sub-zero/rules/es.md"
    edit(rules, "(15 para cada jugador)", "(14 para cada jugador)")
    per = [f for f in findings(sub, "sub-zero") if f.code == "rules-count-per-player"]
    assert len(per) == 1
    assert per[0].message.startswith(
        "hit-markers: 14 per player × 4 players = 56, but the rulebook's total is 60"
    )
    assert per[0].line == 43


# ---------------------------------------------------------------- mutations, one at a time


def test_mutation_manifest_count(red):
    edit(red / RC / "manifest.yaml", "order-cards: 30", "order-cards: 32")
    edit(red / RC / "components/order-cards.yaml", "count: 30", "count: 32")
    edit(red / RC / "manifest.yaml", "order_cards == 30", "order_cards == 32")
    found = findings(red, "red-code")
    assert codes(found) == [("rules-count", "es", "es.md"), ("rules-count", "ko", "ko.md")]
    assert all(
        f.message.startswith("order-cards: rulebook says 30, manifest says 32") for f in found
    )


def test_mutation_manifest_count_without_content_is_count_mismatch_and_rules(red):
    edit(red / RC / "manifest.yaml", "map-cards: 15", "map-cards: 16")
    assert codes(findings(red, "red-code")) == [
        ("count-mismatch", "", "manifest.yaml"),
        ("rules-count", "es", "es.md"),
        ("rules-count", "ko", "ko.md"),
    ]


def test_mutation_rulebook_count_es(red):
    edit(red / RC / "rules/es.md", "- 30 cartas de orden", "- 31 cartas de orden")
    found = findings(red, "red-code")
    assert codes(found) == [
        ("rules-count", "es", "es.md"),
        ("translation-number", "ko", "ko.md"),
        ("translation-stale", "ko", "ko.md"),
    ]
    count = next(f for f in found if f.code == "rules-count")
    assert (
        count.message == "order-cards: rulebook says 31, manifest says 30 (§3 '31 cartas de orden')"
    )
    assert count.line == 6
    number = next(f for f in found if f.code == "translation-number")
    assert (
        number.message
        == "§3 item 2 ('명령 카드 30장'): numbers differ: es says 31 where ko says 30"
    )


def test_mutation_rulebook_count_ko_counter(red):
    edit(red / RC / "rules/ko.md", "- 명령 카드 30장", "- 명령 카드 31장")
    found = findings(red, "red-code")
    assert codes(found) == [("rules-count", "ko", "ko.md"), ("translation-number", "ko", "ko.md")]
    assert (
        next(f for f in found if f.code == "rules-count").message
        == "order-cards: rulebook says 31, manifest says 30 (§3 '명령 카드 31장')"
    )


def test_mutation_rulebook_count_adds_up_across_items(red):
    edit(red / RC / "rules/ko.md", "파란색 조종 카드 3장", "파란색 조종 카드 4장")
    found = findings(red, "red-code")
    assert codes(found) == [("rules-count", "ko", "ko.md"), ("translation-number", "ko", "ko.md")]
    assert next(f for f in found if f.code == "rules-count").message.startswith(
        "control-cards: rulebook's counts add up to 7, manifest says 6"
    )


def test_mutation_rulebook_count_of_a_part(red):
    edit(red / RC / "rules/ko.md", "흰색 큐브 36개", "흰색 큐브 30개")
    edit(red / RC / "rules/es.md", "36 cubos blancos", "30 cubos blancos")
    found = [f for f in findings(red, "red-code") if f.code == "rules-count"]
    messages = sorted(f.message.split(" (§")[0] for f in found)
    assert (
        messages
        == ["tokens (crew-cube): rulebook says 30, content says 36"] * 2
        + ["tokens: rulebook's counts add up to 68, manifest says 74"] * 2
    )


def test_mutation_number_word_in_a_translated_section(red):
    edit(red / RC / "rules/ko.md", "맵 카드는 네 칸으로", "맵 카드는 세 칸으로")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-number", "ko", "ko.md")]
    assert found[0].message == "§3.1: numbers differ: es says 4 where ko says 3"
    assert found[0].line == 16


def test_mutation_number_in_a_list_item(red):
    edit(
        red / RC / "rules/es.md", "distancia máxima de 3 espacios", "distancia máxima de 4 espacios"
    )
    found = findings(red, "red-code")
    assert codes(found) == [
        ("translation-number", "ko", "ko.md"),
        ("translation-stale", "ko", "ko.md"),
    ]
    assert (
        found[0].message
        == "§3.2 item 6 ('중어뢰(Heavy torpedo)'): numbers differ: es says 4 where ko says 3"
    )
    assert found[0].line == 27


def test_mutation_spanish_number_word(red):
    edit(red / RC / "rules/es.md", "Mover dos casillas", "Mover tres casillas")
    found = [f for f in findings(red, "red-code") if f.code == "translation-number"]
    assert [f.message for f in found] == [
        "§3.2 item 5 ('잠항(Immersion)'): numbers differ: es says 3 where ko says 2"
    ]


def test_mutation_dropped_section(red):
    ko = red / RC / "rules/ko.md"
    text = ko.read_text(encoding="utf-8")
    start, end = text.index("### 3.1"), text.index("### 3.2")
    ko.write_text(text[:start] + text[end:], encoding="utf-8")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-missing-section", "ko", "ko.md")]
    assert found[0].message == "§3.1 'Cartas de mapa' (es) is missing in ko"
    assert found[0].line == 16  # where it should be: before §3.2


def test_mutation_extra_section(red):
    edit(red / RC / "rules/ko.md", "## 4 게임 준비", "### 3.3 명령 카드\n\n## 4 게임 준비")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-extra-section", "ko", "ko.md")]


def test_mutation_sections_out_of_order(red):
    ko = red / RC / "rules/ko.md"
    text = ko.read_text(encoding="utf-8")
    a, b, c = text.index("### 3.1"), text.index("### 3.2"), text.index("## 4 ")
    ko.write_text(text[:a] + text[b:c] + text[a:b] + text[c:], encoding="utf-8")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-section-order", "ko", "ko.md")]
    assert found[0].message == "§3.1 comes after §3.2 in ko, before it in es"


def test_mutation_swapped_glossary_term_in_a_list_item(red):
    edit(
        red / RC / "rules/ko.md",
        "최대 사거리 3칸으로 수리 피해 2를",
        "최대 사거리 3칸으로 승무원 피해 2를",
    )
    found = findings(red, "red-code")
    assert codes(found) == [("translation-term", "ko", "ko.md")]
    assert found[0].message == (
        "§3.2 item 6 ('중어뢰(Heavy torpedo)'): es says repair-damage ('daños de reparación'), "
        "repair ('reparación') where ko says crew-damage ('승무원 피해'), crew ('승무원')"
    )


def test_mutation_swapped_glossary_term_in_prose(red):
    edit(
        red / RC / "rules/ko.md",
        "보드 옆에 뒷면으로 쌓아 둡니다",
        "보드 옆에 앞면이 보이도록 쌓아 둡니다",
    )
    found = findings(red, "red-code")
    assert codes(found) == [("translation-term", "ko", "ko.md")]
    assert (
        found[0].message
        == "§4.1: es says face-down ('boca abajo') where ko says face-up ('앞면이 보이도록')"
    )


def test_mutation_term_missing_with_korean_particles(red):
    """수리 큐브를 / 수리 큐브 1개를: Korean particles stay attached to the glossary form."""
    edit(red / RC / "rules/ko.md", "수리 큐브 1개를 회복합니다", "승무원 1명을 회복합니다")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-term", "ko", "ko.md")]
    assert "es says repair-cube ('cubo de reparación')" in found[0].message
    assert "where ko says crew ('승무원')" in found[0].message


def test_mutation_dropped_list_item(red):
    edit(
        red / RC / "rules/ko.md",
        "- **폭뢰(Depth charge):** 최대 사거리 1칸으로 수리 피해 2를 줍니다.\n",
        "",
    )
    found = findings(red, "red-code")
    assert codes(found) == [("translation-list-items", "ko", "ko.md")]
    assert found[0].message == "§3.2: es has 7 list items, ko has 6"


def test_mutation_edited_source_section_is_stale_until_synced(red):
    edit(red / RC / "rules/es.md", "junto al tablero.", "junto al tablero, a la vista de todos.")
    found = findings(red, "red-code")
    assert codes(found) == [("translation-stale", "ko", "ko.md")]
    assert found[0].severity == "warning" and found[0].line == 32
    assert (
        found[0].message
        == "§4.1 'Comienza la partida' changed in es since ko was last marked in sync"
    )
    # a file of the section-digest format: the changed section's segments are stale together
    status = run_pnp(red, "i18n", "status")
    assert "ko: 33/33 translated, 31 reviewed, 2 stale, 0 never reviewed" in status.stdout
    assert "stale: rules:§4.1:p-" in status.stdout
    refused = run_pnp(red, "i18n", "sync", "red-code")
    assert refused.returncode == 2 and "--lang L, --section N or --all" in refused.stderr
    synced = run_pnp(
        red, "i18n", "sync", "red-code", "--lang", "ko", "--section", "4.1", check=True
    )
    assert "ko: 2 segment(s) marked reviewed" in synced.stdout
    # the file is now per segment, and what the old format counted as reviewed (the card
    # strings it never tracked, the sections in sync) is still reviewed
    text = (red / RC / "rules/i18n-sync.yaml").read_text()
    assert "format: stable" in text
    assert findings(red, "red-code") == []
    status = run_pnp(red, "i18n", "status")
    assert "ko: 33/33 translated, 33 reviewed, 0 stale, 0 never reviewed" in status.stdout


def test_i18n_sync_tracks_new_translations(red):
    (red / RC / "rules/i18n-sync.yaml").unlink()
    assert findings(red, "red-code") == []  # nothing tracked without the file
    status = run_pnp(red, "i18n", "status", "red-code")
    assert "nothing reviewed yet (no rules/i18n-sync.yaml)" in status.stdout
    run_pnp(red, "i18n", "sync", "--all", check=True)
    assert findings(red, "red-code") == []
    text = (red / RC / "rules/i18n-sync.yaml").read_text()
    assert "source: es" in text and "format: stable" in text and "rules:§3.2:li-" in text


def test_mutation_invariant_fails_naming_both_sides(red):
    edit(red / RC / "manifest.yaml", "crew_per_ship: 6", "crew_per_ship: 5")
    found = findings(red, "red-code")
    assert codes(found) == [("invariant-failed", "", "manifest.yaml")]
    assert found[0].message == (
        "invariant does not hold: tokens.crew_cube (36) == ships * crew_per_ship (6 × 5 = 30)"
    )
    assert found[0].line == 17


def test_mutation_chained_invariant(red):
    edit(red / RC / "manifest.yaml", "map_cards_used: 12", "map_cards_used: 16")
    found = findings(red, "red-code")
    assert [f.message for f in found] == ["invariant does not hold: map_cards_used (16) == 12"]


def test_mutation_bad_invariant_is_a_located_finding(red):
    edit(red / RC / "manifest.yaml", "  - order_cards == 30", "  - order_cards == = 30")
    found = findings(red, "red-code")
    assert codes(found) == [("invariant-bad", "", "manifest.yaml")]
    assert found[0].line == 18 and "cannot be evaluated" in found[0].message


def test_mutation_invariant_unknown_name_has_a_hint(red):
    edit(red / RC / "manifest.yaml", "order_cards == 30", "order_card == 30")
    found = findings(red, "red-code")
    assert codes(found) == [("invariant-bad", "", "manifest.yaml")]
    assert (
        "unknown name 'order_card'" in found[0].message
        and "did you mean 'order_cards'" in found[0].hint
    )


@pytest.mark.parametrize(
    "expression",
    [
        "__import__('os').system('touch /tmp/pnp-pwned') == 0",
        "(1).__class__.__bases__[0] == 1",
        "'a' * 10 ** 9 == 1",
        "9 ** 9 ** 9 == 1",
        "order_cards",
    ],
)
def test_invariants_are_sandboxed(red, expression):
    edit(red / RC / "manifest.yaml", "  - order_cards == 30", f'  - "{expression}"')
    found = findings(red, "red-code")
    assert codes(found) == [("invariant-bad", "", "manifest.yaml")]
    assert not Path("/tmp/pnp-pwned").exists()


def test_mutation_glossary_links_an_unknown_component(red):
    edit(red / RC / "glossary.yaml", "component: map-cards", "component: map-card")
    found = findings(red, "red-code")
    assert codes(found) == [("glossary-component", "", "glossary.yaml")]
    assert found[0].severity == "warning"


def test_mutation_component_name_differs_from_its_glossary_term(red):
    """Defect: the glossary says map card is 맵 카드 in Korean and links the term to
    map-cards, but a Korean component name of 지도 카드 was never compared with it."""
    assert findings(red, "red-code") == []
    edit(red / RC / "components/map-cards.yaml", "ko: 맵 카드", "ko: 지도 카드")
    found = findings(red, "red-code")
    assert codes(found) == [("glossary-name", "ko", "map-cards.yaml")]
    f = found[0]
    assert f.severity == "warning" and f.key == "name" and f.component == "map-cards"
    assert f.line == 2
    assert "'지도 카드'" in f.message and "glossary term 'map-card'" in f.message
    assert "glossary.yaml:" in f.message and "맵 카드" in f.message


def test_a_term_that_does_not_name_its_component_is_not_compared(red):
    """Several terms link one component (its deck, a kind of it): only the term whose forms
    hold the name in some language is the component's name."""
    edit(
        red / RC / "glossary.yaml",
        "  - id: map-card\n",
        "  - id: map-deck\n    es: [mazo de mapa]\n    ko: [맵 덱]\n    en: [map deck]\n"
        "    component: map-cards\n  - id: map-card\n",
    )
    assert [f for f in findings(red, "red-code") if f.code == "glossary-name"] == []


# ---------------------------------------------------------------- accepted.yaml


def test_accepted_finding_still_shows_and_does_not_block(red):
    edit(red / RC / "rules/ko.md", "- 명령 카드 30장", "- 명령 카드 31장")
    (red / RC / "accepted.yaml").write_text(
        "accepted:\n"
        "  - code: rules-count\n"
        "    file: rules/ko.md\n"
        '    message: "order-cards: rulebook says 31"\n'
        "    reason: the Korean edition ships one spare order card\n"
        "  - code: translation-number\n"
        '    message: "es says 30 where ko says 31"\n'
        "    reason: same spare card\n",
        encoding="utf-8",
    )
    found = findings(red, "red-code")
    assert codes(found) == [("rules-count", "ko", "ko.md"), ("translation-number", "ko", "ko.md")]
    assert [f.accepted for f in found] == [
        "the Korean edition ships one spare order card",
        "same spare card",
    ]
    result = run_pnp(red, "check")
    assert result.returncode == 0, result.stdout
    assert "red-code: 2 accepted (rules-count 1, translation-number 1)" in result.stdout
    result = run_pnp(red, "check", "--show-accepted")
    assert (
        "content/red-code/rules/ko.md:6: accepted: [rules-count] order-cards: "
        "rulebook says 31, manifest says 30 "
        "(§3 '명령 카드 31장') (reason: the Korean edition ships one spare order card)"
    ) in result.stdout
    assert "0 error(s), 0 warning(s), 2 accepted" in result.stdout
    as_json = json.loads(run_pnp(red, "check", "--format", "json").stdout)
    assert {f["accepted"] for f in as_json} == {
        "the Korean edition ships one spare order card",
        "same spare card",
    }
    assert all(re.fullmatch(r"[0-9a-f]{8}", f["id"]) for f in as_json)


def test_accepted_by_id(red):
    edit(red / RC / "rules/ko.md", "맵 카드는 네 칸으로", "맵 카드는 세 칸으로")
    as_json = json.loads(run_pnp(red, "check", "--format", "json").stdout)
    assert len(as_json) == 1
    (red / RC / "accepted.yaml").write_text(
        "accepted:\n  - code: translation-number\n"
        f"    id: {as_json[0]['id']}\n    reason: checked\n"
    )
    assert [f.accepted for f in findings(red, "red-code")] == ["checked"]


def test_unused_acceptance_is_a_warning(red):
    (red / RC / "accepted.yaml").write_text(
        "# nothing left to accept\naccepted:\n"
        '  - code: rules-count\n    message: "rulebook says 99"\n'
        "    reason: an old difference\n"
    )
    found = findings(red, "red-code")
    assert codes(found) == [("accepted-unused", "", "accepted.yaml")]
    assert found[0].severity == "warning" and found[0].line == 3
    assert run_pnp(red, "check").returncode == 0


def test_bad_accepted_file_is_an_error_with_its_line(red):
    (red / RC / "accepted.yaml").write_text("accepted:\n  - code: rules-count\n    reasn: typo\n")
    found = findings(red, "red-code")
    assert codes(found) == [("accepted-bad", "", "accepted.yaml")]
    assert found[0].line == 3 and "reasn" in found[0].message


def test_check_still_exits_2_when_content_cannot_load(red):
    (red / RC / "manifest.yaml").write_text("components: [\n")
    assert run_pnp(red, "check").returncode == 2

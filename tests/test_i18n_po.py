"""The translators' round trip: PO export and import, segment-level change tracking, drafts."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polib
import pytest
import yaml
from conftest import ROOT, copy_project, run_pnp
from poutil import entry
from pypdf import PdfReader

from generator.i18n import po as po_mod
from generator.i18n.segments import all_segments
from generator.load.content import load_game
from generator.load.project import Project

GAMES = sorted(p.name for p in (ROOT / "content").iterdir() if (p / "game.yaml").exists())


def _msgfmt() -> str:
    path = shutil.which("msgfmt")
    if path is None:
        pytest.skip("msgfmt (GNU gettext) not installed: apt-get install gettext")
    return path


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "content").rglob("*"))
        if p.is_file()
    }


def export(root: Path, lang: str, out: Path) -> polib.POFile:
    run_pnp(root, "i18n", "export", "dogfight", "--lang", lang, "-o", str(out), check=True)
    return polib.pofile(str(out))


# ---------------------------------------------------------------- export


@pytest.mark.slow  # msgfmt over every language of a whole real game
@pytest.mark.parametrize("game", GAMES)
def test_msgfmt_accepts_every_exported_po_and_polib_reads_it(game, tmp_path):
    msgfmt = _msgfmt()
    content = load_game(Project(ROOT), game)
    segments = all_segments(content)
    for lang in [*content.languages[1:], None]:
        path = tmp_path / f"{game}.{lang or 'pot'}.po"
        po_mod.write_po(po_mod.export(content, lang, template=lang is None), path)
        done = subprocess.run(
            [msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        read = polib.pofile(str(path))
        assert len(read) == len(segments) > 10
        assert len({(e.msgctxt, e.msgid) for e in read}) == len(read)  # every context unique
        if lang is None:
            assert all(e.msgstr == "" and not any(e.msgstr_plural.values()) for e in read)
        else:  # every language is complete today (a counted string: every plural form)
            assert all(
                e.msgstr or (e.msgstr_plural and all(e.msgstr_plural.values())) for e in read
            )
            assert read.metadata["Language"] == lang


def test_entries_carry_context_reference_placeholders_and_glossary(tmp_path):
    root = copy_project(tmp_path / "p", ("dogfight",))
    po = export(root, "fr", tmp_path / "fr.po")
    cost = entry(po, "components/rewards.yaml:data.cost")
    assert cost.msgid == "Descarta {0} :card: {1}"
    lines = (root / "content/dogfight/components/rewards.yaml").read_text().split("\n")
    line = next(i for i, t in enumerate(lines, 1) if t.startswith('    es: "Descarta'))
    assert cost.occurrences == [("components/rewards.yaml", str(line))]
    # ko writes `{{ suits[suit].name }}` for `{{ suits[suit].name | lower }}` (no case): not
    # every translation uses {1}, so no msgfmt check, in the POT and every PO alike
    assert "python-brace-format" not in cost.flags
    assert "{0} = {{ [value, 1] | max }}" in cost.comment
    assert "component rewards (card, poker 63x88 mm, layout dogfight/reward)" in cost.comment
    assert "glossary: Descarta (discard) -> en: discard / Discard / discarded; ko:" in cost.comment
    assert "fr: défausser / Défaussez" in cost.comment
    flagged = [e for e in po if "python-brace-format" in e.flags]
    assert [e.msgctxt for e in flagged] == ["components/rewards.yaml:data.points"]
    item = entry(po, "rules:§5.2:li1")
    assert item.msgid.startswith("Coloca los aviones en tu zona de vuelo boca arriba")
    assert item.occurrences[0][0] == "rules/es.md"
    assert "(face-up) -> en: face up; ko: 앞면이 보이게; fr: face" in item.comment


# ---------------------------------------------------------------- import


def test_export_then_import_with_no_edit_is_byte_identical(dogfight_copy, tmp_path):
    before = snapshot(dogfight_copy)
    for lang in ("en", "ko", "fr"):
        path = tmp_path / f"{lang}.po"
        export(dogfight_copy, lang, path)
        done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), check=True)
        assert "0 translation(s) changed, 0 marked reviewed" in done.stdout
    assert snapshot(dogfight_copy) == before


def test_a_changed_msgstr_lands_in_its_yaml_key_and_rulebook_segment(dogfight_copy, tmp_path):
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    entry(po, "components/rewards.yaml:data.subtitle").msgstr = "Avion ennemi abattu"
    entry(po, "rules:§5.2:li2").msgstr = "Posez-les par ordre croissant, valeurs visibles."
    po.save(str(path))
    game = dogfight_copy / "content/dogfight"
    yaml_before = (game / "components/rewards.yaml").read_text().split("\n")
    rules_before = (game / "rules/fr.md").read_text().split("\n")
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), check=True)
    yaml_after = (game / "components/rewards.yaml").read_text().split("\n")
    changed = [i for i, (a, b) in enumerate(zip(yaml_before, yaml_after, strict=True)) if a != b]
    assert len(changed) == 1  # one line: the fr value of that mapping, nothing reformatted
    assert yaml.safe_load("\n".join(yaml_after))["data"]["subtitle"] == {
        "es": "Avión alemán derribado",
        "en": "German plane shot down",
        "ko": "격추된 독일군 비행기",
        "de": "Abgeschossenes deutsches Flugzeug",
        "pl": "Zestrzelony niemiecki samolot",
        "fr": "Avion ennemi abattu",
    }
    rules_after = (game / "rules/fr.md").read_text().split("\n")
    diff = [(a, b) for a, b in zip(rules_before, rules_after, strict=True) if a != b]
    assert diff == [
        (
            "- Ils doivent être placés par ordre croissant, de façon que la valeur des cartes "
            "inférieures reste visible.",
            "- Posez-les par ordre croissant, valeurs visibles.",
        )
    ]
    status = run_pnp(dogfight_copy, "i18n", "status", "dogfight", "--lang", "fr", check=True)
    assert "fr: 95/95 translated, 95 reviewed, 0 stale" in status.stdout


@pytest.mark.parametrize(
    ("ctx", "msgstr", "code", "says"),
    [
        ("components/rewards.yaml:data.cost", "Défaussez {0} :card: {7}", "po-placeholder", "{7}"),
        ("components/rewards.yaml:data.cost", "Défaussez :card: {1}", "po-placeholder", "{0}"),
        ("components/rewards.yaml:data.cost", "Défaussez {0 :card: {1}", "po-placeholder", "{"),
        ("components/rewards.yaml:data.points", "{0}{1} PV{2}0 PV", "po-placeholder", "{3}"),
        ("rules:§5.2:li2", "Par ordre croissant.\n\n## 9 Fin", "po-broken-segment", "structure"),
        ("rules:§5:title", "Phase 1\n- Mission", "po-broken-segment", "structure"),
    ],
)
def test_a_broken_entry_is_skipped_and_the_others_still_apply(
    dogfight_copy, tmp_path, ctx, msgstr, code, says
):
    """One bad entry does not stop the others: it is skipped and named (exit 1), the good one
    lands, and the bad entry's translation is left as it was."""
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    entry(po, "components/rewards.yaml:data.subtitle").msgstr = "Avion ennemi abattu"  # fine
    bad = entry(po, ctx)
    bad.msgstr = msgstr
    po.save(str(path))
    game = dogfight_copy / "content/dogfight"
    rules_before = (game / "rules/fr.md").read_text()
    data_before = yaml.safe_load((game / "components/rewards.yaml").read_text())["data"]
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path))
    assert done.returncode == 1
    assert f"[{code}] entry '{bad.msgctxt}'" in done.stderr and says in done.stderr
    assert "1 entry skipped" in done.stderr and "the others were applied" in done.stderr
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout
    rewards = yaml.safe_load((game / "components/rewards.yaml").read_text())["data"]
    assert rewards["subtitle"]["fr"] == "Avion ennemi abattu"
    data_before["subtitle"]["fr"] = "Avion ennemi abattu"
    assert rewards == data_before
    assert (game / "rules/fr.md").read_text() == rules_before


def test_an_unknown_context_is_refused(dogfight_copy, tmp_path):
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    entry(po, "rules:§12:p3").msgctxt = "rules:§99:p-00000000"  # no such section
    po.save(str(path))
    before = snapshot(dogfight_copy)
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path))
    assert done.returncode == 1
    assert "[po-unknown-context] entry 'rules:§99:p-00000000'" in done.stderr
    assert snapshot(dogfight_copy) == before  # the other entries were all unchanged


# ---------------------------------------------------------------- change tracking


def test_a_source_edit_makes_exactly_that_entry_fuzzy_with_its_previous_msgid(
    dogfight_copy, tmp_path
):
    es = dogfight_copy / "content/dogfight/rules/es.md"
    old = "Sólo puedes hacerlo una vez por turno."
    es.write_text(es.read_text().replace(old, "Solo puedes hacerlo una única vez por turno."))
    po = export(dogfight_copy, "fr", tmp_path / "fr.po")
    fuzzy = [e for e in po if "fuzzy" in e.flags]
    assert [e.msgctxt for e in fuzzy] == [entry(po, "rules:§5.3:p2").msgctxt]
    assert fuzzy[0].previous_msgid == old
    assert fuzzy[0].msgid == "Solo puedes hacerlo una única vez por turno."
    assert fuzzy[0].msgstr == "Vous ne pouvez le faire qu'une fois par tour."
    if shutil.which("msgfmt"):
        assert (
            subprocess.run(
                ["msgfmt", "--check", "-o", "/dev/null", str(tmp_path / "fr.po")]
            ).returncode
            == 0
        )
    # importing it as it is (still fuzzy) writes nothing and marks nothing reviewed
    before = snapshot(dogfight_copy)
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "fr.po"), check=True)
    assert snapshot(dogfight_copy) == before
    # the translator reviews it and clears the flag: now it is reviewed
    fuzzy[0].flags.remove("fuzzy")
    fuzzy[0].msgstr = "Vous ne pouvez le faire qu'une seule fois par tour."
    po.save(str(tmp_path / "fr.po"))
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "fr.po"))
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout
    status = run_pnp(dogfight_copy, "i18n", "status", "dogfight", check=True).stdout
    assert "fr: 95/95 translated, 95 reviewed, 0 stale" in status
    assert "en: 95/95 translated, 94 reviewed, 1 stale" in status


def test_a_card_string_edit_makes_it_stale_in_the_other_languages(dogfight_copy):
    rewards = dogfight_copy / "content/dogfight/components/rewards.yaml"
    rewards.write_text(
        rewards.read_text().replace("es: Avión alemán derribado", "es: Avión alemán abatido")
    )
    check = run_pnp(dogfight_copy, "check", "dogfight", "--format", "json")
    stale = [f for f in yaml.safe_load(check.stdout) if f["code"] == "translation-stale"]
    assert sorted(f["lang"] for f in stale) == ["de", "en", "fr", "ko", "pl"]
    assert {f["key"] for f in stale} == {"components/rewards.yaml:data.subtitle"}
    assert {f["file"] for f in stale} == {"content/dogfight/components/rewards.yaml"}
    assert "was 'Avión alemán derribado', now 'Avión alemán abatido'" in stale[0]["message"]
    status = run_pnp(dogfight_copy, "i18n", "status", "dogfight", check=True).stdout
    assert "ko: 95/95 translated, 94 reviewed, 1 stale" in status
    assert "Avión alemán derribado" in status and "| Avión alemán abatido" in status


def test_sync_refuses_while_the_language_has_errors(dogfight_copy):
    fr = dogfight_copy / "content/dogfight/rules/fr.md"
    fr.write_text(fr.read_text().replace("de 50 cartes", "de 51 cartes"))
    done = run_pnp(dogfight_copy, "i18n", "sync", "dogfight", "--lang", "fr")
    assert done.returncode == 1 and "fr still has errors" in done.stderr
    ok = run_pnp(dogfight_copy, "i18n", "sync", "dogfight", "--lang", "en")
    assert ok.returncode == 0 and "en: 95 segment(s) marked reviewed" in ok.stdout


# ---------------------------------------------------------------- drafts


def test_a_draft_language_with_errors_does_not_stop_the_others(dogfight_copy):
    game = dogfight_copy / "content/dogfight"
    text = (game / "game.yaml").read_text()
    # two other languages and no bilingual edition: each more is a rulebook built, never read
    text = text.replace("languages: [es, en, ko, fr, de, pl]", "languages: [es, en, {fr: draft}]")
    text = text.replace("bilingual: [[es, en], [es, fr]]", "bilingual: []")
    (game / "game.yaml").write_text(text)
    fr = game / "rules/fr.md"
    fr.write_text(fr.read_text().replace("## 2 Mise en place", "## 1 Mise en place"))  # twice §1
    rewards = game / "components/rewards.yaml"
    rewards.write_text(rewards.read_text().replace(", fr: Avion allemand abattu}", "}"))
    check = run_pnp(dogfight_copy, "check", "dogfight")
    assert check.returncode == 0, check.stdout
    assert "warning: [rules-heading] (draft fr) section 1 appears twice" in check.stdout
    assert "warning: [missing-language] (draft fr) data.subtitle: no 'fr' text" in check.stdout
    # sheets only: a skipped draft is left out of the plan for every export alike (build.py)
    done = run_pnp(
        dogfight_copy, "print", "dogfight", "--paper", "a4", "--export", "sheets", "-j", "1"
    )
    assert done.returncode == 0, done.stderr
    assert "draft language fr has errors" in done.stderr
    out = dogfight_copy / "output/dogfight"
    for lang in ("es", "en"):
        assert (out / lang / "rulebook.pdf").exists()
        assert (out / lang / "allied-planes-a4.pdf").exists()
    assert not (out / "fr").exists()


# ---------------------------------------------------------------- French, end to end


def test_dogfight_builds_in_es_en_ko_and_fr(built):
    files = built.manifest("dogfight")["files"]
    for lang in ("es", "en", "ko", "fr"):
        kinds = {f["kind"] for f in files if f["lang"] == lang}
        assert {"components", "rulebook"} <= kinds, lang
    bilingual = [f for f in files if f["kind"] == "bilingual-rulebook" and f["lang"] == "es-fr"]
    assert bilingual
    reader = PdfReader(built.path("output/dogfight/fr/rulebook.pdf"))
    text = " ".join(page.extract_text() for page in reader.pages)
    assert "Mise en place" in text and "Déflexion" in text and "Sommaire" in text
    both = PdfReader(built.path(bilingual[0]["path"]))
    text = " ".join(page.extract_text() for page in both.pages)
    assert "Édition bilingue" in text and "Edición bilingüe" in text
    assert "Atterrissage forcé" in text and "Aterrizaje forzoso" in text


def _with_languages(root: Path, languages: str) -> None:
    game = root / "content/dogfight/game.yaml"
    game.write_text(game.read_text().replace("languages: [es, en, ko, fr, de, pl]", languages))


def test_a_complete_draft_builds_with_a_draft_mark(dogfight_copy, tmp_path):
    from generator.i18n import drafts
    from generator.impose import writer
    from generator.rulebook import book as rulebook

    _with_languages(dogfight_copy, "languages: [es, en, ko, {fr: draft}]")
    content = load_game(Project(dogfight_copy), "dogfight")
    assert drafts.drafts(content) == {"fr"}
    assert writer._lang_tag(content, "fr") == "fr (Brouillon)"
    assert writer._lang_tag(content, "es") == "es"
    out = tmp_path / "fr.pdf"
    rulebook.render_rulebook(content, "fr", "a4", out)
    cover = PdfReader(out).pages[0].extract_text()
    assert "brouillon" in cover.lower() and "Français" in cover


def test_a_completeness_threshold_makes_a_language_a_draft_only_while_under_it(dogfight_copy):
    from generator.i18n import drafts

    _with_languages(dogfight_copy, "languages: [es, en, ko, {fr: {complete: 90%}}]")
    assert drafts.drafts(load_game(Project(dogfight_copy), "dogfight")) == set()
    (dogfight_copy / "content/dogfight/rules/fr.md").unlink()  # 15 of 95 strings left
    content = load_game(Project(dogfight_copy), "dogfight")
    assert drafts.completeness(content, "fr") == pytest.approx(15 / 95)
    assert drafts.drafts(content) == {"fr"}
    status = run_pnp(dogfight_copy, "i18n", "status", "dogfight", "--lang", "fr", check=True)
    assert "fr (draft): 15/95 translated" in status.stdout and "80 missing" in status.stdout


def test_a_new_language_from_a_partial_po_file(dogfight_copy, tmp_path):
    """`i18n add`, three strings translated: the new rulebook keeps the source's other segments
    in place, but they count as missing, are exported empty, and the draft never blocks."""
    path = tmp_path / "it.po"
    added = run_pnp(dogfight_copy, "i18n", "add", "dogfight", "it", "-o", str(path), check=True)
    assert "95 strings to translate" in added.stdout
    game = dogfight_copy / "content/dogfight"
    assert "languages: [es, en, ko, fr, de, pl, {it: draft}]" in (game / "game.yaml").read_text()
    po = polib.pofile(str(path))
    assert all(e.msgstr == "" for e in po)
    entry(po, "components/rewards.yaml:data.deck").msgstr = "Ricompense"
    entry(po, "rules:§2:title").msgstr = "Preparazione"
    entry(po, "rules:§2:li1").msgstr = "Mescola il mazzo degli Aerei alleati: è il mazzo di pesca."
    po.save(str(path))
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), check=True)
    it = (game / "rules/it.md").read_text()
    assert "## 2 Preparazione\n\n- Mescola il mazzo degli Aerei alleati" in it
    assert "## 1 Componentes" in it  # copied to keep its place
    status = run_pnp(dogfight_copy, "i18n", "status", "dogfight", "--lang", "it", check=True)
    assert "it (draft): 3/95 translated, 3 reviewed, 0 stale, 0 never reviewed, 92 missing" in (
        status.stdout
    )
    again = polib.pofile(str(export(dogfight_copy, "it", tmp_path / "again.po").fpath))
    assert entry(again, "rules:§1:title").msgstr == ""  # the copied Spanish is not offered
    assert entry(again, "rules:§2:title").msgstr == "Preparazione"
    check = run_pnp(dogfight_copy, "check", "dogfight")
    assert check.returncode == 0 and "(draft it)" in check.stdout


def test_a_misspelt_draft_entry_is_one_located_error(dogfight_copy):
    _with_languages(dogfight_copy, "languages: [es, en, ko, {fr: maybe}]")
    done = run_pnp(dogfight_copy, "check", "dogfight")
    assert done.returncode == 2
    assert "game.yaml:4: languages: language 'fr': write `fr: draft`" in done.stderr


def test_a_language_not_in_the_game_is_refused_and_nothing_is_written(make_project, tmp_path):
    """export, status, sync, import and add each refuse a language they cannot work on: one
    line naming the game's languages and `pnp i18n add`, exit 2, no file written."""
    root = make_project(templates="all")
    run_pnp(root, "new", "g", "--langs", "es,en", check=True)
    po = tmp_path / "g.en.po"
    run_pnp(root, "i18n", "export", "g", "--lang", "en", "-o", str(po), check=True)
    before = snapshot(root)
    refused = {
        "export g --lang english": "'english' is not a language of g (es, en); did you mean 'en'?",
        "export g --lang de": "'de' is not a language of g (es, en); add it first: "
        "`pnp i18n add g de`",
        f"export g --lang zz -o {root / 'out.po'}": "'zz' is not a language of g (es, en)",
        "export g --lang es": "es is the source language of g",
        "status g --lang zz": "'zz' is not a language of g (es, en)",
        "status --lang zz": "'zz' is not a language of g (es, en)",
        "sync g --lang zz": "'zz' is not a language of g (es, en)",
        "sync g --lang es": "es is the source language of g",
        f"import g {po} --lang de": "`pnp i18n add g de`",
        "add g eng": "'eng' is not an ISO 639-1 language code: did you mean 'en'? (English)",
    }
    for command, said in refused.items():
        done = run_pnp(root, "i18n", *command.split())
        assert (done.returncode, done.stdout) == (2, ""), command
        assert said in done.stderr and done.stderr.count("\n") == 1, done.stderr
        assert snapshot(root) == before, command
        assert not (root / "output").exists() and not (root / "out.po").exists(), command


@pytest.mark.parametrize("tracked", [True, False], ids=["starter", "untracked-game"])
def test_adding_a_language_leaves_the_translations_nobody_changed_reviewed(
    make_project, tmp_path, tracked
):
    """The starter records its own translations as reviewed (rules/i18n-sync.yaml); a game
    that was never tracked gets its translations taken as they stand by `i18n add`. Either
    way, adding fr and importing it leaves en reviewed, while a string nobody reviewed, or a
    changed source, still warns."""
    root = make_project(templates="all")
    run_pnp(root, "new", "g", "--langs", "es,en", check=True)
    game = root / "content/g"
    assert (game / "rules/i18n-sync.yaml").exists()
    if not tracked:
        (game / "rules/i18n-sync.yaml").unlink()
    po = tmp_path / "g.fr.po"
    run_pnp(root, "i18n", "add", "g", "fr", "-o", str(po), check=True)
    catalogue = polib.pofile(str(po))
    for e in catalogue:
        e.msgstr = "Fr " + e.msgid
    catalogue.save(str(po))
    run_pnp(root, "i18n", "import", "g", str(po), check=True)
    check = run_pnp(root, "check", "g")
    assert check.returncode == 0 and "translation-unsynced" not in check.stdout, check.stdout
    status = run_pnp(root, "i18n", "status", "g", check=True).stdout
    assert "en: 19/19 translated, 19 reviewed, 0 stale, 0 never reviewed" in status
    # A list item added by hand, in every language, was never reviewed; a source edit is stale.
    for lang, item in {
        "es": "Nadie empieza con monedas.",
        "en": "Nobody starts with coins.",
    }.items():
        path = game / f"rules/{lang}.md"
        text = path.read_text(encoding="utf-8").replace("\n\n## 3 ", f"\n- {item}\n\n## 3 ")
        path.write_text(text, encoding="utf-8")
    path = game / "rules/fr.md"
    path.write_text(
        path.read_text(encoding="utf-8").replace("\n\n## 3 ", "\n- Fr Personne.\n\n## 3 "),
        encoding="utf-8",
    )
    yaml_file = game / "components/cards.yaml"
    yaml_file.write_text(yaml_file.read_text().replace("Mazo", "Pila"), encoding="utf-8")
    found = run_pnp(root, "check", "g").stdout
    assert "[translation-unsynced] en: 1 translated segment(s) never marked reviewed" in found
    assert "[translation-unsynced] fr: 1 translated segment(s)" in found
    assert "[translation-stale] components/cards.yaml:data.deck changed in es" in found

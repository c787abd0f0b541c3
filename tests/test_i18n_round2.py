"""Translators, round two (issue 25): no reviewed work lost, every string checked.

Each test here names the defect it guards against; each failed on main before the fix."""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import polib
import pytest
import yaml
from conftest import copy_project, only_languages, run_pnp
from poutil import entry

SUBTITLE = "components/rewards.yaml:data.subtitle"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "content").rglob("*"))
        if p.is_file()
    }


def export(root: Path, lang: str, out: Path, game: str = "dogfight") -> polib.POFile:
    run_pnp(root, "i18n", "export", game, "--lang", lang, "-o", str(out), check=True)
    return polib.pofile(str(out))


def status_line(root: Path, lang: str, game: str = "dogfight") -> str:
    out = run_pnp(root, "i18n", "status", game, "--lang", lang, check=True).stdout
    return next(line.strip() for line in out.splitlines() if line.strip().startswith(lang))


def counts(line: str) -> dict[str, int]:
    return {k: int(n) for n, k in re.findall(r"(\d+) (reviewed|stale|fuzzy|missing)", line)} | {
        "never": int(re.search(r"(\d+) never reviewed", line).group(1))  # type: ignore[union-attr]
    }


def rewards(root: Path) -> dict:
    text = (root / "content/dogfight/components/rewards.yaml").read_text(encoding="utf-8")
    return yaml.safe_load(text)["data"]


def set_es_subtitle(root: Path, new: str) -> None:
    path = root / "content/dogfight/components/rewards.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace("es: Avión alemán derribado", f"es: {new}"),
        encoding="utf-8",
    )


def _strip_lang(value: object, lang: str) -> object:
    if isinstance(value, dict):
        return {k: _strip_lang(v, lang) for k, v in value.items() if k != lang}
    if isinstance(value, list):
        return [_strip_lang(v, lang) for v in value if v != lang]
    return value


def without_language(game: Path, lang: str) -> None:
    """Take a complete language out of a copied game (its rulebook, its strings, its reviews), so
    a test can walk through adding it. Dogfight ships de and pl as complete languages; the
    tests that add German start from a Dogfight without it. Edits the text in place (comments
    and layout kept) and checks the result is the same content minus that language."""
    (game / "rules" / f"{lang}.md").unlink()
    sync = game / "rules/i18n-sync.yaml"
    data = yaml.safe_load(sync.read_text(encoding="utf-8"))
    del data["languages"][lang]
    for key in ("anchors", "approved"):
        data.get(key, {}).pop(lang, None)
    sync.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    for path in sorted(game.rglob("*.yaml")):
        if path == sync:
            continue
        text = path.read_text(encoding="utf-8")
        new = re.sub(rf"(?m)^(languages: \[.*)\b{lang}, ", r"\1", text)
        new = re.sub(rf"(?m)^(languages: \[.*), {lang}\]", r"\1]", new)
        # `, de: Rot` in a flow map, also first on a line continuing one; else a block entry
        flow = rf"{lang}: [^,{{}}\n\"'\[]*"
        new = re.sub(rf"(?<=, ){flow}, ", "", new)
        new = re.sub(rf", {flow}}}", "}", new)
        new = re.sub(rf"(?m)(,\n[ \t]*){flow}, ", r"\1", new)
        new = re.sub(rf"(?m)^[ \t]*{lang}: .*\n", "", new)  # a block entry: its whole line
        assert yaml.safe_load(new) == _strip_lang(yaml.safe_load(text), lang), path
        path.write_text(new, encoding="utf-8")


# ---------------------------------------------------------------- import keeps reviewed work


def test_a_fuzzy_entry_is_written_but_stays_unreviewed_and_fuzzy_on_reexport(
    dogfight_copy, tmp_path
):
    """Defect: a fuzzy entry was written into the content and still counted as reviewed, and a
    re-export dropped the flag."""
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    e = entry(po, SUBTITLE)
    e.msgstr = "Avion ennemi abattu (à relire)"
    e.flags.append("fuzzy")
    po.save(str(path))
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), check=True)
    assert "1 translation(s) changed, 0 marked reviewed, 1 fuzzy" in done.stdout
    assert rewards(dogfight_copy)["subtitle"]["fr"] == "Avion ennemi abattu (à relire)"
    line = status_line(dogfight_copy, "fr")
    assert counts(line)["reviewed"] == 94 and counts(line)["fuzzy"] == 1, line
    again = export(dogfight_copy, "fr", tmp_path / "again.po")
    assert "fuzzy" in entry(again, SUBTITLE).flags
    assert entry(again, SUBTITLE).msgstr == "Avion ennemi abattu (à relire)"
    assert sum("fuzzy" in x.flags for x in again) == 1
    check = run_pnp(dogfight_copy, "check", "dogfight", "--format", "json")
    found = [f for f in yaml.safe_load(check.stdout) if f["code"] == "translation-fuzzy"]
    assert [(f["lang"], f["key"]) for f in found] == [("fr", SUBTITLE)]
    # the translator clears the flag: now it is reviewed
    entry(again, SUBTITLE).flags.remove("fuzzy")
    again.save(str(tmp_path / "again.po"))
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "again.po"))
    assert "0 translation(s) changed, 1 marked reviewed" in done.stdout
    assert counts(status_line(dogfight_copy, "fr"))["reviewed"] == 95


def test_an_old_po_does_not_overwrite_newer_reviewed_work(dogfight_copy, tmp_path):
    """Defect: a PO exported before a source change, imported over the updated translation,
    put the old text back and marked it reviewed."""
    old_po = tmp_path / "old.fr.po"
    export(dogfight_copy, "fr", old_po)
    po = polib.pofile(str(old_po))
    entry(po, "components/rewards.yaml:data.deck").msgstr = "Récompenses !"  # a fine edit
    po.save(str(old_po))
    set_es_subtitle(dogfight_copy, "Avión enemigo derribado")
    # the translator updates fr through a fresh PO and it is reviewed
    fresh = export(dogfight_copy, "fr", tmp_path / "fresh.po")
    e = entry(fresh, SUBTITLE)
    assert "fuzzy" in e.flags and e.previous_msgid == "Avión alemán derribado"
    e.msgstr = "Avion ennemi abattu"
    e.flags.remove("fuzzy")
    fresh.save(str(tmp_path / "fresh.po"))
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "fresh.po"), check=True)
    assert counts(status_line(dogfight_copy, "fr"))["reviewed"] == 95
    # now the old PO comes back
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(old_po))
    assert done.returncode == 1
    assert f"[po-conflict] entry '{SUBTITLE}'" in done.stderr
    assert "'Avión alemán derribado'" in done.stderr  # the PO's source
    assert "'Avión enemigo derribado'" in done.stderr  # today's source
    assert "'Avion allemand abattu'" in done.stderr and "'Avion ennemi abattu'" in done.stderr
    assert "1 entry skipped (1 po-conflict)" in done.stderr
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout  # the deck name
    data = rewards(dogfight_copy)
    assert data["subtitle"]["fr"] == "Avion ennemi abattu"
    assert data["deck"]["fr"] == "Récompenses !"
    assert counts(status_line(dogfight_copy, "fr"))["reviewed"] == 95
    # asked for: the old text goes in, recorded against its old source, so it shows stale
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(old_po), "--accept-old")
    assert done.returncode == 0, done.stderr
    assert rewards(dogfight_copy)["subtitle"]["fr"] == "Avion allemand abattu"
    line = status_line(dogfight_copy, "fr")
    assert counts(line)["stale"] == 1 and counts(line)["reviewed"] == 94, line


@pytest.mark.parametrize("how", ["header", "--lang"])
def test_a_po_for_another_language_is_refused(dogfight_copy, tmp_path, how):
    """Defect: the Language header was trusted: a French PO labelled `Language: ko` overwrote
    the Korean strings and marked them reviewed."""
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    for e in po:
        if e.msgctxt and e.msgctxt.startswith("rules:§5"):
            e.msgstr = e.msgstr.replace("carte", "Carte")  # changes, so an import would write
    if how == "header":
        po.metadata["Language"] = "ko"
        args: tuple[str, ...] = ()
        said = "read as fr"
    else:
        args = ("--lang", "ko")
        said = "this PO file is for 'fr' (its Language header), not ko"
    po.save(str(path))
    before = snapshot(dogfight_copy)
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert said in done.stderr
    assert snapshot(dogfight_copy) == before


# slow: the whole of Red Code exported, imported and checked; test_i18n_stable_ids.py's migration of
# a positional record stays in `make test`
@pytest.mark.slow
def test_the_first_import_of_a_section_tracked_game_keeps_what_was_reviewed(make_project, tmp_path):
    """Defect: Red Code tracked per section; its first import migrated the file and marked
    nearly every string "never reviewed"."""
    root = make_project(games=("red-code",))
    # Red Code's record as it was before this change: one digest per rulebook section
    legacy = Path(__file__).parent / "fixtures/i18n/red-code-i18n-sync-sections.yaml"
    shutil.copy(legacy, root / "content/red-code/rules/i18n-sync.yaml")
    before = status_line(root, "en", "red-code")
    assert counts(before)["never"] == 0 and counts(before)["stale"] == 0
    path = tmp_path / "en.po"
    po = export(root, "en", path, game="red-code")
    title = next(e for e in po if e.msgctxt == "rules:title")
    title.msgstr = title.msgstr + " (revised)"
    po.save(str(path))
    done = run_pnp(root, "i18n", "import", "red-code", str(path), check=True)
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout
    sync = (root / "content/red-code/rules/i18n-sync.yaml").read_text(encoding="utf-8")
    assert "format: stable" in sync  # migrated to per-string tracking, by stable ids
    assert status_line(root, "en", "red-code") == before
    assert status_line(root, "ko", "red-code").startswith("ko: 187/187 translated, 187 reviewed")
    check = run_pnp(root, "check", "red-code")
    assert "translation-unsynced" not in check.stdout, check.stdout


def test_reviewed_and_approved_are_separate_states(dogfight_copy, tmp_path):
    """Reviewed (a translator cleared the entry against today's source) is not approved (a second
    reader signed it off); an approval lapses when the translation changes."""
    line = status_line(dogfight_copy, "fr")
    assert "approved" not in line
    done = run_pnp(dogfight_copy, "i18n", "approve", "dogfight", "--lang", "fr", check=True)
    assert "dogfight fr: 95 reviewed segment(s) approved" in done.stdout
    assert "(95 of the reviewed approved)" in status_line(dogfight_copy, "fr")
    path = tmp_path / "fr.po"
    po = export(dogfight_copy, "fr", path)
    entry(po, SUBTITLE).msgstr = "Avion ennemi abattu"
    po.save(str(path))
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(path), check=True)
    line = status_line(dogfight_copy, "fr")
    assert counts(line)["reviewed"] == 95 and "(94 of the reviewed approved)" in line


# ---------------------------------------------------------------- every string checked

CARD = "components/rewards.yaml"


def _findings(root: Path, game: str = "dogfight") -> list[dict]:
    done = run_pnp(root, "check", game, "--format", "json")
    return [f for f in yaml.safe_load(done.stdout) if not f.get("accepted")]


def _replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def dogfight_errors(tmp_path_factory) -> list[dict]:
    """The errors `pnp check` finds in Dogfight as shipped, printing Spanish and French only
    (checked once for the module: every case starts from these same files)."""
    root = copy_project(tmp_path_factory.mktemp("clean"), ("dogfight",))
    only_languages(root, "dogfight", ["es", "fr"])
    return [f for f in _findings(root) if f["severity"] == "error"]


@pytest.mark.parametrize(
    ("file", "old", "new", "code", "says"),
    [
        # a number changed in a card text (4 -> 5)
        (
            "components/allied-planes.yaml",
            "en main en défausse jusqu'à n'en garder que 4",
            "en main en défausse jusqu'à n'en garder que 5",
            "translation-number",
            "fr says 5",
        ),
        # a deck name swapped for another deck's (fr is followed by de and pl in the map)
        (CARD, "fr: Récompenses,", "fr: Avions alliés,", "translation-term", "reward"),
        # ** left open: the card prints all bold with a stray *
        (
            "components/allied-planes.yaml",
            ":** qui a plus de 4 cartes",
            ": qui a plus de 4 cartes",
            "translation-markup",
            "** open",
        ),
        # an icon dropped
        (
            CARD,
            "Défaussez {{ [value, 1] | max }}\u00a0:card:",
            "Défaussez {{ [value, 1] | max }}",
            "translation-markup",
            ":card:",
        ),
        # a placeholder replaced by other Jinja: prints "Défaussez 0" where es says 1
        (
            CARD,
            "Défaussez {{ [value, 1] | max }}",
            "Défaussez {{ value }}",
            "translation-placeholder",
            "[value, 1] | max",
        ),
    ],
    ids=["number", "deck-name", "bold", "icon", "placeholder"],
)
def test_card_texts_get_the_checks_rules_paragraphs_get(
    dogfight_errors, dogfight_copy, file, old, new, code, says
):
    """Defect: card texts got no translation checks: all of these passed `pnp check`.

    Each edit is to the French text against the Spanish source: the game prints those two
    only (each other language is a sixth more of the check, none of it read here)."""
    only_languages(dogfight_copy, "dogfight", ["es", "fr"])
    assert not dogfight_errors
    _replace(dogfight_copy / "content/dogfight" / file, old, new)
    # one check: its exit code does not depend on --format (cmd_check)
    done = run_pnp(dogfight_copy, "check", "dogfight", "--format", "json")
    found = [f for f in yaml.safe_load(done.stdout) if not f.get("accepted") and f["code"] == code]
    assert found, code
    assert found[0]["severity"] == "error" and says in found[0]["message"], found
    assert found[0]["file"] == f"content/dogfight/{file}"
    assert done.returncode == 1


def test_a_sentence_dropped_from_a_data_string(make_project):
    """Defect: a sentence dropped from a card or data text passed."""
    root = make_project(games=("the-hunt-begins",))
    assert not [f for f in _findings(root, "the-hunt-begins") if f["severity"] == "error"]
    _replace(
        root / "content/the-hunt-begins/data/actions.yaml",
        " Not in contested quadrants. Pick up or drop an :objective: objective marker; its "
        'carrier moves no more than two quadrants per activation."',
        '"',
    )
    found = [
        f for f in _findings(root, "the-hunt-begins") if f["code"] == "translation-dropped-sentence"
    ]
    assert [(f["lang"], f["key"]) for f in found] == [
        ("en", "data/actions.yaml:general.actions[interact].summary")
    ]
    assert "es has 3 sentences, en 1" in found[0]["message"]


def test_a_glossary_term_swapped_in_a_korean_card_text(make_project):
    """Defect: 수리 (repair) -> 고장 (breakdown) on a Korean card passed."""
    root = make_project(games=("red-code",))
    path = root / "content/red-code/data/maneuvers.yaml"
    text = path.read_text(encoding="utf-8")
    line = next(x for x in text.split("\n") if x.strip().startswith("ko:") and "수리 큐브" in x)
    _replace(path, line, line.replace("수리 큐브", "고장 큐브"))
    found = [f for f in _findings(root, "red-code") if f["code"] == "translation-term"]
    assert any("breakdown" in f["message"] and f["lang"] == "ko" for f in found), found


def test_a_complete_language_still_in_the_source_language_is_an_error(dogfight_copy):
    """Defect: a complete German rulebook with 20 segments still in Spanish passed."""
    game = dogfight_copy / "content/dogfight"
    # Dogfight ships German complete: start from Dogfight without it, then add it back
    without_language(game, "de")
    _replace(
        game / "game.yaml", "languages: [es, en, ko, fr, pl]", "languages: [es, en, ko, fr, pl, de]"
    )
    _replace(game / "game.yaml", "bilingual: [[es, en], [es, fr]]", "bilingual: []")
    # German: the English rulebook with 20 of its paragraphs and items left in Spanish
    from generator.i18n.segments import positional_contexts  # block N of es = block N of en

    es = positional_contexts((game / "rules/es.md").read_text(encoding="utf-8").split("\n"))
    lines = (game / "rules/en.md").read_text(encoding="utf-8").split("\n")
    en = positional_contexts(lines)
    swapped = 0
    for ctx, (_, block) in sorted(en.items(), key=lambda kv: -kv[1][1].first):
        long = ctx in es and len(es[ctx][1].text.split()) >= 8  # a 4-word line may be anything
        if block.kind in ("paragraph", "item") and long and swapped < 20:
            src = es[ctx][1]
            lines[block.first - 1 : block.last] = (block.prefix + src.text).split("\n")
            swapped += 1
    (game / "rules/de.md").write_text("\n".join(lines), encoding="utf-8")
    for yaml_file in game.rglob("*.yaml"):  # the strings: German = English, for this test
        text = yaml_file.read_text(encoding="utf-8")
        text = re.sub(r"(?m)^(\s*)en: (.*)$", r"\1en: \2\n\1de: \2", text)
        text = re.sub(r", en: ([^,}]*)", r", en: \1, de: \1", text)
        yaml_file.write_text(text, encoding="utf-8")
    found = [f for f in _findings(dogfight_copy) if f["code"] == "translation-in-source-language"]
    assert len(found) == 1 and found[0]["severity"] == "error", found
    assert found[0]["file"] == "content/dogfight/rules/de.md"
    assert found[0]["message"].startswith("20 segment(s) of de still read as es")


def test_a_missing_rulebook_language_file_is_an_error_naming_it(dogfight_copy):
    """Defect: a language without its rulebook passed check and was left out of the build."""
    (dogfight_copy / "content/dogfight/rules/fr.md").unlink()
    found = [f for f in _findings(dogfight_copy) if f["code"] == "translation-missing-rulebook"]
    assert [(f["severity"], f["file"], f["lang"]) for f in found] == [
        ("error", "content/dogfight/rules/fr.md", "fr")
    ]
    assert "create content/dogfight/rules/fr.md" in found[0]["message"]
    assert run_pnp(dogfight_copy, "check", "dogfight").returncode == 1


# ---------------------------------------------------------------- gettext tools agree


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} (GNU gettext) not installed: apt-get install gettext")
    return path


@pytest.mark.slow  # GNU gettext over every language of a whole real game
@pytest.mark.parametrize("game", ["dogfight", "red-code", "sub-zero"])
def test_weblate_cycle_pot_msgmerge_msgfmt_import_is_byte_identical(make_project, tmp_path, game):
    """Defect: the POT and the POs disagreed on python-brace-format (28 entries vs 5 in Red
    Code), so msgmerge against the POT, as Weblate's update does, made correct entries fuzzy
    and msgfmt then failed. Now: POT -> msgmerge into each PO -> msgfmt --check -> import
    leaves every content file byte-identical, with no fuzzy added."""
    msgmerge, msgfmt = _tool("msgmerge"), _tool("msgfmt")
    root = make_project(games=(game,))
    before = snapshot(root)
    pot = tmp_path / f"{game}.pot"
    run_pnp(root, "i18n", "export", game, "--template", "-o", str(pot), check=True)
    langs = yaml.safe_load((root / f"content/{game}/game.yaml").read_text())["languages"][1:]
    for lang in langs:
        po = tmp_path / f"{game}.{lang}.po"
        exported = export(root, lang, po, game=game)
        flags = {e.msgctxt: [f for f in e.flags if f != "fuzzy"] for e in exported}
        assert flags == {e.msgctxt: e.flags for e in polib.pofile(str(pot))}, (
            "the POT and the PO carry the same flags"
        )
        assert exported.metadata["Plural-Forms"].startswith("nplurals=")
        merged = tmp_path / f"{game}.{lang}.merged.po"
        subprocess.run(
            [msgmerge, "-q", "--previous", "-o", str(merged), str(po), str(pot)], check=True
        )
        fuzzy = [e.msgctxt for e in polib.pofile(str(merged)) if "fuzzy" in e.flags]
        assert fuzzy == [], f"msgmerge made {len(fuzzy)} {lang} entries fuzzy: {fuzzy[:5]}"
        done = subprocess.run(
            [msgfmt, "--check", "-o", "/dev/null", str(merged)], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        imported = run_pnp(root, "i18n", "import", game, str(merged), check=True)
        assert "0 translation(s) changed, 0 marked reviewed" in imported.stdout
    assert snapshot(root) == before


# ---------------------------------------------------------------- the German walk-through

DEFLECTION = "components/allied-planes.yaml:data.deflection"
COST = "components/rewards.yaml:data.cost"
# §5.3's second paragraph, by its content-anchored id (generator/i18n/segments.py)
ONCE = (
    "rules:§5.3:p-"
    + hashlib.sha256("Sólo puedes hacerlo una vez por turno.".encode()).hexdigest()[:8]
)


def test_german_dogfight_walkthrough(dogfight_copy, tmp_path):
    """German added as a draft, exported, translated, imported; the source edited; the old PO
    refused with its conflicts; fuzzy kept; card-text errors caught at import and by check."""
    root = dogfight_copy
    # Dogfight ships German complete: the walk-through starts from Dogfight without it
    without_language(root / "content/dogfight", "de")
    de_po = tmp_path / "dogfight.de.po"
    added = run_pnp(root, "i18n", "add", "dogfight", "de", "-o", str(de_po), check=True)
    assert "95 strings to translate" in added.stdout
    # German for the strings this walk-through follows; the rest is left as the source's text
    # (a PO of English text is refused as de: the file would be for another language)
    po = polib.pofile(str(de_po))
    # templates/languages/de.yaml says German's plural rule: the PO header carries it
    assert po.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    german = {
        SUBTITLE: "Abgeschossenes deutsches Flugzeug",
        DEFLECTION: "**Ablenkung:** Wer mehr als 4 Karten auf der Hand hat, wirft bis auf 4 ab.",
        COST: "Wirf {0} :card: {1} ab",
        ONCE: "Das darfst du nur einmal pro Zug tun.",
    }
    for e in po:
        e.msgstr = german.get(e.msgctxt, e.msgid)
    po.save(str(de_po))
    done = run_pnp(root, "i18n", "import", "dogfight", str(de_po), check=True)
    assert "95 translation(s) changed, 95 marked reviewed" in done.stdout
    assert counts(status_line(root, "de"))["reviewed"] == 95
    old_po = tmp_path / "old.de.po"
    shutil.copy(de_po, old_po)
    # the designer edits the source: a card string and a rules paragraph
    set_es_subtitle(root, "Avión enemigo derribado")
    _replace(
        root / "content/dogfight/rules/es.md",
        "Sólo puedes hacerlo una vez por turno.",
        "Solo puedes hacerlo una única vez por turno.",
    )
    status = run_pnp(root, "i18n", "status", "dogfight", "--lang", "de", check=True).stdout
    assert "95 translated, 93 reviewed, 2 stale" in status
    assert f"stale: {SUBTITLE}" in status and f"stale: {ONCE}" in status
    assert "Avión alemán derribado" in status and "| Avión enemigo derribado" in status
    fresh_po = tmp_path / "fresh.de.po"
    fresh = export(root, "de", fresh_po)
    assert [e.msgctxt for e in fresh if "fuzzy" in e.flags] == [SUBTITLE, ONCE]
    assert entry(fresh, ONCE).previous_msgid == "Sólo puedes hacerlo una vez por turno."
    # the old PO, edited meanwhile by someone else, comes back: refused with its conflicts
    old = polib.pofile(str(old_po))
    entry(old, SUBTITLE).msgstr = "Deutsches Flugzeug abgeschossen"
    entry(old, ONCE).msgstr = "Nur einmal pro Zug."
    old.save(str(old_po))
    before = snapshot(root)
    done = run_pnp(root, "i18n", "import", "dogfight", str(old_po))
    assert done.returncode == 1
    assert done.stderr.count("[po-conflict]") == 2
    assert "'Sólo puedes hacerlo una vez por turno.'" in done.stderr
    assert "'Solo puedes hacerlo una única vez por turno.'" in done.stderr
    assert "2 entries skipped (2 po-conflict)" in done.stderr
    assert snapshot(root) == before
    # the translator works the fresh PO: the subtitle done, the paragraph left fuzzy, and two
    # card-text mistakes (4 -> 5, the :card: icon dropped)
    e = entry(fresh, SUBTITLE)
    e.msgstr, e.flags = "Abgeschossenes feindliches Flugzeug", []
    entry(fresh, ONCE).msgstr = "Das darfst du nur ein einziges Mal pro Zug tun."
    entry(fresh, DEFLECTION).msgstr = german[DEFLECTION].replace("bis auf 4", "bis auf 5")
    entry(fresh, COST).msgstr = "Wirf {0} {1} ab"
    fresh.save(str(fresh_po))
    done = run_pnp(root, "i18n", "import", "dogfight", str(fresh_po))
    assert done.returncode == 0, done.stderr
    assert "4 translation(s) changed, 3 marked reviewed, 1 fuzzy" in done.stdout
    assert f"[translation-number] entry '{DEFLECTION}' (applied)" in done.stderr
    assert "de says 5" in done.stderr
    assert f"[translation-markup] entry '{COST}' (applied)" in done.stderr
    line = status_line(root, "de")
    assert counts(line)["fuzzy"] == 1 and counts(line)["reviewed"] == 94, line
    again = export(root, "de", tmp_path / "again.de.po")
    assert [e.msgctxt for e in again if "fuzzy" in e.flags] == [ONCE]
    assert entry(again, ONCE).msgstr == "Das darfst du nur ein einziges Mal pro Zug tun."
    found = {(f["code"], f["key"]) for f in _findings(root) if f.get("lang") == "de"}
    assert {
        ("translation-number", DEFLECTION),
        ("translation-markup", COST),
        ("translation-fuzzy", ONCE),
    } <= found


def test_strings_inside_template_calls_are_offered_and_land_in_place(make_project, tmp_path):
    """Defect: Red Code's table headers and board caption were not offered for translation and
    stayed Spanish in a new language."""
    root = make_project(games=("red-code",))
    path = tmp_path / "fr.po"
    run_pnp(root, "i18n", "add", "red-code", "fr", "-o", str(path), check=True)
    po = polib.pofile(str(path))
    caption = entry(po, "rules:§3.2:call1")  # the figure's caption, then the table's headers
    assert caption.msgid.startswith("Ejemplo de campo visual: el destructor rojo")
    headers = [entry(po, f"rules:§3.2:call{n}").msgid for n in (2, 3, 4, 5)]
    assert headers == ["Maniobra", "Coste", "Distancia", "Efecto"]
    caption.msgstr = "Exemple de ligne de vue : le destroyer rouge peut viser le sous-marin bleu."
    for e, fr in zip(
        [entry(po, f"rules:§3.2:call{n}") for n in (2, 3, 4, 5)],
        ["Manœuvre", "Coût", "Portée", "L'effet"],  # a quote, to be escaped in the call
        strict=True,
    ):
        e.msgstr = fr
    po.save(str(path))
    run_pnp(root, "i18n", "import", "red-code", str(path), check=True)
    text = (root / "content/red-code/rules/fr.md").read_text(encoding="utf-8")
    assert "caption='Exemple de ligne de vue : le destroyer rouge peut viser le sous-marin" in text
    assert "[['Manœuvre', \"**{{ name }}**" in text and "['L\\'effet', 'effect']" in text
    from generator.load import templating

    line = next(x for x in text.split("\n") if "Manœuvre" in x)
    templating.check_syntax(line)  # still a valid template
    again = polib.pofile(str(export(root, "fr", tmp_path / "again.po", game="red-code").fpath))
    assert entry(again, "rules:§3.2:call5").msgstr == "L'effet"
    assert entry(again, "rules:§3.3:call1").msgstr == ""  # still the Spanish: not offered


# ---------------------------------------------------------------- a picture per string


def _red_box(path: Path) -> tuple[int, int, int, int] | None:
    from PIL import Image

    image = Image.open(path).convert("RGB")
    w, h = image.size
    red = [
        (x, y)
        for y in range(h)
        for x in range(w)
        if image.getpixel((x, y)) == (220, 0, 0)  # the outline's own colour
    ]
    if not red:
        return None
    xs, ys = [p[0] for p in red], [p[1] for p in red]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.slow  # a whole rulebook laid out, 80 pictures rasterised and read back with pdftotext
def test_export_context_writes_a_picture_per_string_with_its_place_outlined(
    dogfight_copy, tmp_path
):
    """Defect: translators could not see where a string lands. Now `--context DIR` writes a
    PNG of a face where each component string prints, its place outlined, named by its id."""
    out = tmp_path / "context"
    done = run_pnp(
        dogfight_copy,
        "i18n",
        "export",
        "dogfight",
        "--lang",
        "fr",
        "-o",
        str(tmp_path / "fr.po"),
        "--context",
        str(out),
        check=True,
    )
    assert "11 picture(s)" in done.stdout and "4 string(s) print on no face" in done.stdout
    names = sorted(p.name for p in out.iterdir())
    assert "components_allied-planes.yaml_data.deflection.png" in names
    assert "game.yaml_data.suits.purple.name.png" in names  # game.yaml data printed on cards
    assert "80 rulebook picture(s)" in done.stdout
    _rulebook_pictures_outline_their_segments(out, polib.pofile(str(tmp_path / "fr.po")))
    # the deflection rule is printed across the bottom of the 10s: its outline is there
    from PIL import Image

    path = out / "components_allied-planes.yaml_data.deflection.png"
    w, h = Image.open(path).size
    box = _red_box(path)
    assert box is not None
    x0, y0, x1, y1 = box
    assert y0 > 0.6 * h and x1 - x0 > 0.6 * w, (box, w, h)
    # the subtitle sits at the top right of a reward card
    path = out / "components_rewards.yaml_data.subtitle.png"
    x0, y0, x1, y1 = _red_box(path) or (0, 0, 0, 0)
    w, h = Image.open(path).size
    assert y1 < 0.35 * h and x0 > 0.35 * w, (x0, y0, x1, y1, w, h)


def _letters(text: str) -> str:
    return re.sub(r"[\W\d_]+", "", text).casefold()


def _rulebook_pictures_outline_their_segments(out: Path, po: polib.POFile) -> None:
    """Every rulebook entry has a picture named by its id, with a red outline; the text of the
    laid-out book inside that outline (pdftotext) is the entry's translation: its first and
    last letters, and about as many letters as it has (no neighbour inside)."""
    import json

    from PIL import Image

    index = json.loads((out / "rulebook.fr.json").read_text(encoding="utf-8"))
    assert index["pdf"] == "rulebook.fr.pdf"
    rules = [e for e in po if e.msgctxt and e.msgctxt.startswith("rules:")]
    assert len(rules) == 80
    for e in rules:
        info = index["pictures"][e.msgctxt]
        png = out / info["png"]
        assert png.name == re.sub(r"[^A-Za-z0-9._-]+", "_", e.msgctxt).strip("_") + ".png"
        image = Image.open(png).convert("RGB")
        x0, y0, x1, y1 = info["outline_pt"]
        scale, top = info["dpi"] / 72, info["crop_pt"][1]
        corner = (round(x0 * scale) - 4, round((y0 - top) * scale) - 4)
        r, g, b = image.getpixel(corner)  # type: ignore[misc]
        assert r > 180 and g < 60 and b < 60, (png.name, corner, (r, g, b))
        if not shutil.which("pdftotext"):
            continue
        where = [str(int(x0) - 1), str(int(y0) - 1), str(int(x1 - x0) + 3), str(int(y1 - y0) + 3)]
        page = str(info["page"])
        text = subprocess.run(
            [
                "pdftotext",
                "-f",
                page,
                "-l",
                page,
                "-x",
                where[0],
                "-y",
                where[1],
                "-W",
                where[2],
                "-H",
                where[3],
                str(out / "rulebook.fr.pdf"),
                "-",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        got, want = _letters(text), _letters(re.sub(r"\{\d+\}|:[a-z_-]+:", " ", e.msgstr))
        assert want[:12] in got and want[-12:] in got, (e.msgctxt, want, got)
        assert 0.8 <= len(got) / len(want) <= 1.3, (e.msgctxt, want, got)


# slow: a whole Korean rulebook laid out, its pictures rasterised and read back with pdftotext
@pytest.mark.slow
def test_strings_inside_template_calls_get_a_picture_of_their_caption_or_header(
    make_project, tmp_path
):
    """Defect: strings inside template calls (Red Code's board caption, its tables' headers)
    had no picture. Now the element the call renders them in is outlined: every `call` entry
    has its picture, and the laid-out text inside the outline is the entry's string."""
    import json

    if not shutil.which("pdftotext"):
        pytest.skip("pdftotext (poppler-utils) is not installed")
    root = make_project(games=("red-code",))
    out = tmp_path / "context"
    done = run_pnp(
        root,
        "i18n",
        "export",
        "red-code",
        "--lang",
        "ko",
        "-o",
        str(tmp_path / "ko.po"),
        "--context",
        str(out),
        check=True,
    )
    assert "(0 segment(s) not found in the laid-out book)" in done.stdout, done.stdout
    po = polib.pofile(str(tmp_path / "ko.po"))
    calls = [e for e in po if e.msgctxt and re.match(r"rules:[^:]*:call-", e.msgctxt)]
    assert len(calls) >= 8, [e.msgctxt for e in calls]  # a caption and 7 table headers
    assert any(len(e.msgstr) > 60 for e in calls)  # the board's caption
    index = json.loads((out / "rulebook.ko.json").read_text(encoding="utf-8"))
    for e in calls:
        info = index["pictures"][e.msgctxt]
        assert (out / info["png"]).is_file()
        x0, y0, x1, y1 = info["outline_pt"]
        page = str(info["page"])
        where = [int(x0) - 1, int(y0) - 1, int(x1 - x0) + 3, int(y1 - y0) + 3]
        text = subprocess.run(
            ["pdftotext", "-f", page, "-l", page]
            + [a for k, v in zip("xyWH", where, strict=True) for a in (f"-{k}", str(v))]
            + [str(out / "rulebook.ko.pdf"), "-"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        got, want = _letters(text), _letters(e.msgstr)
        assert want and want in got, (e.msgctxt, want, got)
        assert len(got) <= 1.3 * len(want) + 2, (e.msgctxt, want, got)  # no neighbour inside


def test_a_glossary_term_swapped_in_a_spanish_card_text(make_project):
    """Defect: linternas -> monedas in a Spanish card text (English source) passed."""
    root = make_project(templates="all")
    run_pnp(root, "new", "g", "--langs", "en,es", check=True)
    game = root / "content/g"
    _replace(
        game / "glossary.yaml",
        "terms:\n",
        'terms:\n  - id: lantern\n    en: ["lantern", "lanterns"]\n'
        '    es: ["linterna", "linternas"]\n',
    )
    cards = game / "components/cards.yaml"
    _replace(cards, 'en: "Gain {{ value }} coins."', 'en: "Gain {{ value }} lanterns."')
    _replace(cards, 'es: "Gana {{ value }} monedas."', 'es: "Gana {{ value }} linternas."')
    assert not [f for f in _findings(root, "g") if f["code"] == "translation-term"]
    _replace(cards, 'es: "Gana {{ value }} linternas."', 'es: "Gana {{ value }} monedas."')
    found = [f for f in _findings(root, "g") if f["code"] == "translation-term"]
    assert len(found) == 1 and found[0]["lang"] == "es", found
    assert "lantern" in found[0]["message"] and "coin" in found[0]["message"]
    assert found[0]["file"] == "content/g/components/cards.yaml"

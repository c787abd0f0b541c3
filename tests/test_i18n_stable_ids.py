"""Stable, content-anchored ids for rulebook segments (issue 25, item 1).

Rulebook contexts used to be positional (`rules:§5:p3`): inserting a source paragraph shifted
every following paragraph onto its neighbour's translation. Each test here failed on main."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import polib
from conftest import run_pnp

ES = "content/dogfight/rules/es.md"
DE = "content/dogfight/rules/de.md"
SYNC = "content/dogfight/rules/i18n-sync.yaml"
FIXTURES = Path(__file__).parent / "fixtures/i18n"
# the first paragraphs of §5 in Spanish, and the German of the second
P1 = "Patrulla y roba cartas, de una en una, del mazo de Aviones Aliados o de la zona de vuelo"
P2 = "Cada vez que robas una carta debes decidir:"
P2_DE = "Jedes Mal, wenn du eine Karte ziehst, musst du entscheiden:"
P5 = "Si se agota el mazo de Aviones Aliados baraja la pila de descartes."
NEW = "Antes de empezar, cada jugador comprueba que su zona de vuelo está vacía."


def export(root: Path, out: Path, lang: str = "de") -> polib.POFile:
    run_pnp(root, "i18n", "export", "dogfight", "--lang", lang, "-o", str(out), check=True)
    return polib.pofile(str(out))


def rules(po: polib.POFile) -> dict[str, tuple[str, str, bool]]:
    """msgctxt -> (msgid, msgstr, fuzzy) of the rulebook entries."""
    return {
        e.msgctxt: (e.msgid, e.msgstr, "fuzzy" in e.flags)
        for e in po
        if e.msgctxt and e.msgctxt.startswith("rules:")
    }


def edit(root: Path, rel: str, old: str, new: str) -> None:
    path = root / rel
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def status(root: Path, lang: str = "de") -> dict[str, int]:
    out = run_pnp(root, "i18n", "status", "dogfight", "--lang", lang, check=True).stdout
    line = next(x for x in out.splitlines() if x.strip().startswith(f"{lang}:"))
    found = {k: int(n) for n, k in re.findall(r"(\d+) (reviewed|stale|fuzzy|missing|never)", line)}
    found["total"] = int(re.search(r"/(\d+) translated", line).group(1))  # type: ignore[union-attr]
    return found


def insert_first_in_section_5(root: Path) -> None:
    edit(root, ES, "## 5 Fase 1: Misión\n\n", f"## 5 Fase 1: Misión\n\n{NEW}\n\n")


def test_inserting_a_paragraph_shifts_no_other_segment(dogfight_copy, tmp_path):
    before = rules(export(dogfight_copy, tmp_path / "before.po"))
    insert_first_in_section_5(dogfight_copy)
    after = rules(export(dogfight_copy, tmp_path / "after.po"))
    new = [ctx for ctx, (msgid, _, _) in after.items() if msgid == NEW]
    assert len(new) == 1 and new[0].startswith("rules:§5:p-")
    assert after.pop(new[0]) == (NEW, "", False)  # the new one is untranslated
    assert after == before  # every other entry: same id, same source, same translation
    for lang in ("de", "en", "ko"):
        got = status(dogfight_copy, lang)
        assert got["missing"] == 1 and got["stale"] == 0 and got["reviewed"] == got["total"] - 1
    check = run_pnp(dogfight_copy, "check", "dogfight")
    assert "translation-stale" not in check.stdout, check.stdout


def test_moving_or_deleting_a_paragraph_shifts_no_other_segment(dogfight_copy, tmp_path):
    before = rules(export(dogfight_copy, tmp_path / "before.po"))
    # P5 moves to the top of §5, P1 is deleted
    text = (dogfight_copy / ES).read_text(encoding="utf-8")
    p1 = next(line for line in text.splitlines() if line.startswith(P1))
    edit(dogfight_copy, ES, f"{P5}\n\n", "")
    edit(dogfight_copy, ES, f"{p1}\n\n", f"{P5}\n\n")
    after = rules(export(dogfight_copy, tmp_path / "after.po"))
    gone = [ctx for ctx, (msgid, _, _) in before.items() if msgid == p1]
    assert len(gone) == 1 and gone[0] not in after
    del before[gone[0]]
    assert after == before
    got = status(dogfight_copy)
    assert got["stale"] == 0 and got["missing"] == 0 and got["reviewed"] == got["total"]


def test_editing_a_paragraph_makes_only_it_fuzzy_with_its_previous_msgid(dogfight_copy, tmp_path):
    before = rules(export(dogfight_copy, tmp_path / "before.po"))
    edited = P2.replace("debes decidir", "tienes que decidir")
    insert_first_in_section_5(dogfight_copy)  # and a neighbour inserted at the same time
    edit(dogfight_copy, ES, P2, edited)
    po = export(dogfight_copy, tmp_path / "after.po")
    fuzzy = [e for e in po if "fuzzy" in e.flags]
    assert [(e.msgid, e.previous_msgid, e.msgstr) for e in fuzzy] == [(edited, P2, P2_DE)]
    ctx = fuzzy[0].msgctxt
    assert before[ctx][0] == P2  # the same id as before the edit
    got = status(dogfight_copy)
    assert got["stale"] == 1 and got["missing"] == 1


def test_an_old_po_imports_onto_the_right_paragraphs_after_an_insertion(dogfight_copy, tmp_path):
    old = export(dogfight_copy, tmp_path / "old.po")
    target = next(e for e in old if e.msgid == P2)
    target.msgstr = "Jedes Mal, wenn du eine Karte ziehst, entscheidest du:"
    old.save(str(tmp_path / "old.po"))
    insert_first_in_section_5(dogfight_copy)
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "old.po"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout
    de = (dogfight_copy / DE).read_text(encoding="utf-8")
    assert "entscheidest du:" in de and P2_DE not in de
    got = status(dogfight_copy)
    assert got["stale"] == 0 and got["missing"] == 1 and got["reviewed"] == got["total"] - 1
    # the new paragraph, translated in a fresh export, is inserted in its place
    fresh = export(dogfight_copy, tmp_path / "fresh.po")
    entry = next(e for e in fresh if e.msgid == NEW)
    entry.msgstr = "Vor dem Start prüft jeder, dass sein Flugbereich leer ist."
    fresh.save(str(tmp_path / "fresh.po"))
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "fresh.po"), check=True)
    de = (dogfight_copy / DE).read_text(encoding="utf-8")
    assert (
        "## 5 Phase 1: Mission\n\nVor dem Start prüft jeder, dass sein Flugbereich leer ist.\n\n"
        in de
    )
    assert got["total"] == status(dogfight_copy)["reviewed"]
    again = export(dogfight_copy, tmp_path / "again.po")
    assert rules(again)[entry.msgctxt][1] == entry.msgstr


def test_a_po_with_positional_contexts_lands_on_the_right_paragraphs(dogfight_copy, tmp_path):
    """A PO file made before the ids were anchored (`rules:§5:p2`) still imports: each entry
    goes to the segment of its section whose source is its msgid."""
    po = export(dogfight_copy, tmp_path / "old.po")
    counters: dict[tuple[str, str], int] = {}
    for e in po:
        m = re.match(r"rules:([^:]+):(p|li)-", e.msgctxt or "")
        if m:
            counters[m.groups()] = counters.get(m.groups(), 0) + 1
            e.msgctxt = f"rules:{m.group(1)}:{m.group(2)}{counters[m.groups()]}"
    target = next(e for e in po if e.msgid == P2)
    assert target.msgctxt == "rules:§5:p2"
    target.msgstr = "Jedes Mal, wenn du eine Karte ziehst, entscheidest du:"
    po.save(str(tmp_path / "old.po"))
    insert_first_in_section_5(dogfight_copy)  # p2 of the old file is p3 now
    done = run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "old.po"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 translation(s) changed" in done.stdout
    de = (dogfight_copy / DE).read_text(encoding="utf-8")
    assert "entscheidest du:" in de and P2_DE not in de
    assert status(dogfight_copy)["stale"] == 0


def test_a_positional_record_is_migrated_keeping_what_was_reviewed(dogfight_copy, tmp_path):
    """Dogfight's record as it was (positional contexts), with the source's paragraph already
    inserted: the following paragraphs find their own translations, none stale; the first
    write migrates the file and keeps every review."""
    shutil.copy(FIXTURES / "dogfight-i18n-sync-positional.yaml", dogfight_copy / SYNC)
    assert "format: segments" in (dogfight_copy / SYNC).read_text(encoding="utf-8")
    untouched = status(dogfight_copy)
    assert untouched["reviewed"] == untouched["total"]
    insert_first_in_section_5(dogfight_copy)
    got = status(dogfight_copy)
    assert got["stale"] == 0 and got["missing"] == 1 and got["reviewed"] == got["total"] - 1
    po = export(dogfight_copy, tmp_path / "de.po")
    assert rules(po)[next(e.msgctxt for e in po if e.msgid == P2)][1] == P2_DE
    entry = next(e for e in po if e.msgctxt == "rules:title")
    entry.msgstr += " (neu)"
    po.save(str(tmp_path / "de.po"))
    run_pnp(dogfight_copy, "i18n", "import", "dogfight", str(tmp_path / "de.po"), check=True)
    text = (dogfight_copy / SYNC).read_text(encoding="utf-8")
    assert "format: stable" in text and "rules:§5:p1:" not in text and "anchors:" in text
    for lang in ("de", "en", "ko", "fr", "pl"):
        got = status(dogfight_copy, lang)
        assert got["stale"] == 0 and got["missing"] == 1 and got["reviewed"] == got["total"] - 1

"""Counted strings as real gettext plural entries (issue 25, item 2).

They used to be Jinja inside one msgstr (`{{ 'space' if value == 1 else 'spaces' }}`), which
PO editors and msgfmt cannot check per plural form. Each test here failed on main."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import polib
import pytest
from conftest import run_pnp

RC_LOSS = "components/order-cards.yaml:items[ambush].data.effect"


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted((root / "content").rglob("*"))
        if p.is_file()
    }


def export(root: Path, game: str, out: Path, *args: str) -> polib.POFile:
    run_pnp(root, "i18n", "export", game, *args, "-o", str(out), check=True)
    return polib.pofile(str(out))


def entry(po: polib.POFile, ctx: str) -> polib.POEntry:
    return next(e for e in po if e.msgctxt == ctx)


def msgfmt_check(path: Path) -> None:
    if not shutil.which("msgfmt"):
        return
    done = subprocess.run(
        ["msgfmt", "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def counted_ctx(po: polib.POFile, word: str) -> str:
    return next(e.msgctxt for e in po if e.msgid_plural and word in e.msgid_plural)


# slow: three catalogues of the whole of Red Code; test_a_language_with_three_plural_forms keeps the
# plural path (export, import, write-back) on Sub Zero in `make test`
@pytest.mark.slow
def test_counted_strings_are_plural_entries_per_the_languages_plural_forms(make_project, tmp_path):
    root = make_project(games=("red-code",))
    before = snapshot(root)
    pot = export(root, "red-code", tmp_path / "rc.pot", "--template")
    en = export(root, "red-code", tmp_path / "en.po", "--lang", "en")
    ko = export(root, "red-code", tmp_path / "ko.po", "--lang", "ko")
    assert en.metadata["Plural-Forms"] == "nplurals=2; plural=(n != 1);"
    assert ko.metadata["Plural-Forms"] == "nplurals=1; plural=0;"
    e = entry(en, RC_LOSS)
    assert (e.msgid, e.msgid_plural) == (
        "El barco objetivo pierde {0} reparación.",
        "El barco objetivo pierde {0} reparaciones.",
    )
    assert e.msgstr_plural == {
        0: "The target ship loses {0} repair.",
        1: "The target ship loses {0} repairs.",
    }
    assert "{0} = {{ repair_loss }}" in e.comment and "counted by repair_loss" in e.comment
    k = entry(ko, RC_LOSS)
    assert k.msgid_plural == e.msgid_plural and list(k.msgstr_plural) == [0]
    assert "{0}" in k.msgstr_plural[0] and "{{" not in k.msgstr_plural[0]
    plural = {x.msgctxt for x in pot if x.msgid_plural}
    assert (
        plural
        == {x.msgctxt for x in en if x.msgid_plural}
        == {x.msgctxt for x in ko if x.msgid_plural}
    )
    assert len(plural) >= 3
    for path in (tmp_path / "rc.pot", tmp_path / "en.po", tmp_path / "ko.po"):
        msgfmt_check(path)
    for lang in ("en", "ko"):  # the round trip changes no byte
        done = run_pnp(root, "i18n", "import", "red-code", str(tmp_path / f"{lang}.po"))
        assert done.returncode == 0 and "0 translation(s) changed" in done.stdout, done.stdout
    assert snapshot(root) == before


# slow: the whole of Red Code exported, checked with msgfmt and imported;
# test_a_language_with_three_plural_forms keeps the write-back in `make test`
@pytest.mark.slow
def test_edited_plural_forms_are_written_back_as_jinja(make_project, tmp_path):
    root = make_project(games=("red-code",))
    path = tmp_path / "en.po"
    po = export(root, "red-code", path, "--lang", "en")
    e = entry(po, RC_LOSS)
    e.msgstr_plural = {
        0: "The target ship loses {0} repair point.",
        1: "The target ship loses {0} repair points.",
    }
    po.save(str(path))
    msgfmt_check(path)
    done = run_pnp(root, "i18n", "import", "red-code", str(path), check=True)
    assert "1 translation(s) changed, 1 marked reviewed" in done.stdout
    text = (root / "content/red-code/components/order-cards.yaml").read_text(encoding="utf-8")
    assert (
        "The target ship loses {{ repair_loss }} repair {{ 'point.' if repair_loss == 1 else "
        "'points.' }}" in text
    )
    again = export(root, "red-code", tmp_path / "again.po", "--lang", "en")
    assert entry(again, RC_LOSS).msgstr_plural == e.msgstr_plural
    assert "fuzzy" not in entry(again, RC_LOSS).flags
    check = run_pnp(root, "check", "red-code")
    assert check.returncode == 0, check.stdout + check.stderr


def test_a_language_with_three_plural_forms(make_project, tmp_path):
    """Polish (nplurals=3): three msgstr, written back as an if/elif/else on the Polish rule,
    which gives each form for its numbers (1; 2-4, 22-24...; 0, 5-21, 25...)."""
    root = make_project(games=("sub-zero",))
    path = tmp_path / "pl.po"
    run_pnp(root, "i18n", "add", "sub-zero", "pl", "-o", str(path), check=True)
    po = polib.pofile(str(path))
    move = next(e for e in po if e.msgid_plural and e.msgid.startswith("Mueve exactamente"))
    assert move.msgstr_plural == {0: "", 1: "", 2: ""}
    forms = {
        0: "Przesuń się o dokładnie {0} pole.",
        1: "Przesuń się o dokładnie {0} pola.",
        2: "Przesuń się o dokładnie {0} pól.",
    }
    move.msgstr_plural = dict(forms)
    po.save(str(path))
    msgfmt_check(path)
    run_pnp(root, "i18n", "import", "sub-zero", str(path), check=True)
    again = export(root, "sub-zero", tmp_path / "again.po", "--lang", "pl")
    assert entry(again, move.msgctxt).msgstr_plural == forms
    from generator.load import templating

    text = (root / "content/sub-zero/components/action-cards.yaml").read_text(encoding="utf-8")
    line = next(x for x in text.splitlines() if "Przesuń" in x)
    template = line.split("pl: ", 1)[1].strip().strip('"').replace('\\"', '"')
    rendered = {n: templating.ENV.from_string(template).render(value=n) for n in (1, 3, 5, 22)}
    assert rendered == {
        1: "Przesuń się o dokładnie 1 pole.",
        3: "Przesuń się o dokładnie 3 pola.",
        5: "Przesuń się o dokładnie 5 pól.",
        22: "Przesuń się o dokładnie 22 pola.",
    }


@pytest.mark.slow  # GNU gettext over every language of a whole real game
@pytest.mark.skipif(not shutil.which("msgmerge"), reason="needs GNU gettext's msgmerge")
def test_msgmerge_against_the_pot_keeps_plural_entries_and_the_cycle_is_byte_identical(
    make_project, tmp_path
):
    root = make_project(games=("sub-zero",))
    before = snapshot(root)
    export(root, "sub-zero", tmp_path / "sz.pot", "--template")
    for lang in ("en", "ko"):
        po = tmp_path / f"{lang}.po"
        export(root, "sub-zero", po, "--lang", lang)
        merged = tmp_path / f"{lang}.merged.po"
        subprocess.run(
            ["msgmerge", "--quiet", "-o", str(merged), str(po), str(tmp_path / "sz.pot")],
            check=True,
        )
        catalogue = polib.pofile(str(merged))
        assert not [e.msgctxt for e in catalogue if "fuzzy" in e.flags]
        assert entry(catalogue, counted_ctx(catalogue, "casillas")).msgstr_plural
        msgfmt_check(merged)
        done = run_pnp(root, "i18n", "import", "sub-zero", str(merged), check=True)
        assert "0 translation(s) changed" in done.stdout
    assert snapshot(root) == before

"""What lets a command skip work without changing what it writes.

- The kit stamp (generator/build/stamp.py): a plain `pnp print` of a game nothing touched since
  its last whole-kit build answers from the stamp, loading nothing; any change to an input or
  an output, any print option, --force or a draft language takes the ordinary path.
- The font cache (generator/cache/font_cache.py): a font read back from the user's cache folder is
  the font ReportLab would parse, attribute by attribute, and draws the same PDF.
- The exit (cli.leave): the `pnp` command leaves without tearing the interpreter down, yet says
  everything, runs the exit handlers and waits for a running thread.
- ReportLab's web address pattern (generator/build/platypus.py): compiled when first used, not
  when the guide imports platypus, and then the very pattern ReportLab compiles.
- A file's strings as some languages see them (load/strings_digest.py): texts skip the call,
  the same data as the plain recursion.
- The guide's item names (build/guide.py): worked out once per game and language in a command.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, run_pnp, spawn_pnp

GAME = "content/mini"
FILES = {
    f"{GAME}/game.yaml": "id: mini\ntitle: Mini\nlanguages: [en]\nprint: {papers: [a4]}\n",
    f"{GAME}/components/cards.yaml": (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\n"
        "items:\n  - {id: a, data: {word: alpha}}\n  - {id: b, data: {word: beta}}\n"
    ),
    f"{GAME}/manifest.yaml": "components: {cards: 2}\n",
    "templates/layouts/mini/card.yaml": (
        'background: "#ffffff"\nboxes:\n'
        '  - {id: word, kind: text, text: "{{ word }}", x: 5, y: 20, w: 53, h: 12, size: 12pt}\n'
    ),
}
CARDS = "output/mini/en/cards-a4.pdf"


def _built(result) -> tuple[int, int]:
    found = re.search(r"(\d+) of (\d+) files? built", result.stdout)
    assert found, result.stdout + result.stderr
    return int(found[1]), int(found[2])


@pytest.fixture
def stamped(make_project):
    root = make_project(FILES)
    # files written, not jobs: the card sheets and the guide
    assert _built(run_pnp(root, "print", check=True)) == (2, 2)
    assert (root / "output/.pnp-cache/mini.stamp").is_file()
    return root


def _no_loading(monkeypatch):
    """Make any load of a game fail: a print that still succeeds answered from the stamp."""
    from generator.load import content

    def refuse(*args, **kwargs):
        raise AssertionError("the game was loaded")

    monkeypatch.setattr(content, "load_game", refuse)


def test_unchanged_kit_answers_from_its_stamp_without_loading_the_game(stamped, monkeypatch):
    before = (stamped / CARDS).stat().st_mtime_ns
    _no_loading(monkeypatch)
    again = run_pnp(stamped, "print", check=True)
    assert _built(again) == (0, 2)
    assert run_pnp(stamped, "print", "mini", check=True).returncode == 0  # named, likewise
    assert (stamped / CARDS).stat().st_mtime_ns == before


@pytest.mark.parametrize(
    "change",
    [
        "edit a card's text",
        "edit a shared layout",
        "add a file to the game folder",
        "delete an output",
        "damage an output",
        "touch an output",
        "damage the build record",
        "damage the stamp",
    ],
)
def test_any_change_takes_the_ordinary_path(stamped, change):
    cards = stamped / GAME / "components/cards.yaml"
    layout = stamped / "templates/layouts/mini/card.yaml"
    pdf = stamped / CARDS
    if change == "edit a card's text":
        cards.write_text(cards.read_text().replace("alpha", "gamma"))
    elif change == "edit a shared layout":
        layout.write_text(layout.read_text().replace("12pt", "11pt"))
    elif change == "add a file to the game folder":
        (stamped / GAME / "art").mkdir()
        (stamped / GAME / "art/new.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
    elif change == "delete an output":
        pdf.unlink()
    elif change == "damage an output":
        pdf.write_bytes(b"%PDF-1.4 broken")
    elif change == "touch an output":
        os.utime(pdf, ns=(pdf.stat().st_atime_ns, pdf.stat().st_mtime_ns + 10**9))
    elif change == "damage the build record":
        (stamped / "output/.pnp-cache/mini.json").write_text("{not json")
    else:
        (stamped / "output/.pnp-cache/mini.stamp").write_text('{"format": 1, "inputs"')
    loaded = []
    from generator.load import content

    real = content.load_game

    def spy(*args, **kwargs):
        loaded.append(args[1])
        return real(*args, **kwargs)

    content.load_game, saved = spy, content.load_game
    try:
        result = run_pnp(stamped, "print", check=True)
    finally:
        content.load_game = saved
    assert loaded == ["mini"], change  # the ordinary path: loaded, planned, checked
    built, total = _built(result)
    assert total == 2  # the card sheets and the guide
    # what changed what the kit holds is rebuilt; a touched but intact file is not; the guide
    # is written again when what it says changed or its record was lost
    expected = {"damage the build record": 2}
    assert built == expected.get(
        change, 0 if change in ("touch an output", "damage the stamp") else 1
    ), change
    if change == "edit a card's text":
        from pdfutil import reader

        assert "gamma" in reader.__wrapped__(pdf).pages[0].extract_text()
    # and the kit is stamped again: the next print answers from the stamp
    assert _built(run_pnp(stamped, "print", check=True)) == (0, 2)


def test_a_file_named_inside_a_manifest_entry_is_watched_too(make_project):
    """A Tabletop Simulator deck's pictures are listed inside its entry, not as files of their
    own: deleting one still takes the ordinary path, which writes it again."""
    files = dict(FILES)
    files[f"{GAME}/game.yaml"] = (
        "id: mini\ntitle: Mini\nlanguages: [en]\nprint: {papers: [a4], exports: [sheets, tts]}\n"
    )
    root = make_project(files)
    run_pnp(root, "print", check=True)
    manifest = json.loads((root / "output/mini/build-manifest.json").read_text())
    (tts,) = [f for f in manifest["files"] if f.get("format") == "tts"]
    picture = root / tts["images"][0]
    assert picture.is_file() and picture.name not in {
        Path(f["path"]).name for f in manifest["files"]
    }
    picture.unlink()
    # the deck's job runs again: it writes its JSON and every picture (files, not jobs)
    assert _built(run_pnp(root, "print", check=True))[0] == 1 + len(tts["images"])
    assert picture.is_file()


def test_a_forced_whole_kit_build_is_stamped_too(stamped):
    stamp = stamped / "output/.pnp-cache/mini.stamp"
    stamp.unlink()
    assert _built(run_pnp(stamped, "print", "--force", check=True)) == (2, 2)
    assert stamp.is_file()
    # a partial run leaves no stamp (it builds only some files); the next whole-kit run stamps
    assert _built(run_pnp(stamped, "print", "--paper", "a4", check=True)) == (0, 2)
    assert not stamp.exists()
    assert _built(run_pnp(stamped, "print", check=True)) == (0, 2)
    assert stamp.is_file()


def test_options_and_force_never_use_the_stamp(stamped, monkeypatch):
    _no_loading(monkeypatch)
    for args in (["--force"], ["--paper", "a4"], ["--export", "sheets"], ["--duplex", "long-edge"]):
        result = run_pnp(stamped, "print", *args)
        assert result.returncode != 0 and "the game was loaded" in result.stdout + result.stderr, (
            args
        )


def test_a_failed_check_leaves_no_stamp_to_answer_from(stamped):
    cards = stamped / GAME / "components/cards.yaml"
    cards.write_text(cards.read_text().replace("poker", "pokr"))
    assert run_pnp(stamped, "print").returncode != 0
    assert run_pnp(stamped, "print").returncode != 0  # still refused, not "up to date"
    cards.write_text(cards.read_text().replace("pokr", "poker"))
    assert _built(run_pnp(stamped, "print", check=True)) == (0, 2)


def test_a_game_with_a_draft_language_is_never_stamped(make_project):
    files = dict(FILES)
    files[f"{GAME}/game.yaml"] = (
        "id: mini\ntitle: Mini\nlanguages: [en, {fr: draft}]\nprint: {papers: [a4]}\n"
    )
    root = make_project(files)
    run_pnp(root, "print", check=True)
    assert not (root / "output/.pnp-cache/mini.stamp").exists()


# ------------------------------------------------------------------ the font cache

FONT = ROOT / "templates/fonts/PnPGothic-Bold.ttf"


def test_a_cached_font_is_the_font_reportlab_parses(tmp_path, monkeypatch):
    from reportlab.pdfbase.ttfonts import TTFont

    from generator.cache import font_cache

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path))
    data = FONT.read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    font_cache.load("probe-bold", data, digest)  # parsed, and kept
    (entry,) = (tmp_path / "fonts").iterdir()
    kept = font_cache.load("probe-bold", data, digest)  # read back
    fresh = TTFont("probe-bold", io.BytesIO(data))
    assert sorted(vars(kept)) == sorted(vars(fresh))
    assert sorted(vars(kept.face)) == sorted(vars(fresh.face))
    for name, value in vars(fresh.face).items():
        if name == "_pdfScale":
            assert [kept.face._pdfScale(v) for v in (0, 517, 2048)] == [
                value(0),
                value(517),
                value(2048),
            ]
        else:
            assert getattr(kept.face, name) == value, name
    for name in ("fontName", "_asciiReadable", "shapable"):
        assert getattr(kept, name) == getattr(fresh, name), name
    text = "Sub Zero: ¡Atención! 잠수함 어뢰 3×"
    assert kept.stringWidth(text, 9) == fresh.stringWidth(text, 9)
    # drawn and subset: the same PDF, byte for byte
    assert _pdf(kept) == _pdf(TTFont("probe-bold", io.BytesIO(data)))
    # a damaged entry is a miss: parsed afresh (and the entry rewritten)
    entry.write_bytes(b"not a pickle")
    again = font_cache.load("probe-bold", data, digest)
    assert again.face.charToGlyph == fresh.face.charToGlyph
    assert entry.read_bytes() != b"not a pickle"


def _pdf(font) -> bytes:
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfgen.canvas import Canvas

    pdfmetrics.registerFont(font)
    out = io.BytesIO()
    c = Canvas(out, invariant=1, initialFontName=font.fontName)
    c.setFont(font.fontName, 12)
    c.drawString(40, 700, "Sub Zero: ¡Atención! 잠수함 어뢰 3×")
    c.showPage()
    c.save()
    return out.getvalue()


def test_fonts_are_cached_by_content(tmp_path, monkeypatch):
    """A font file edited in place (same name, other bytes) is never answered by its old entry."""
    from generator.cache import font_cache

    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path))
    regular = (ROOT / "templates/fonts/PnPGothic-Regular.ttf").read_bytes()
    bold = FONT.read_bytes()
    a = font_cache.load("probe", regular, hashlib.sha256(regular).hexdigest())
    b = font_cache.load("probe", bold, hashlib.sha256(bold).hexdigest())
    assert len(list((tmp_path / "fonts").iterdir())) == 2
    assert a.face.name != b.face.name  # PnPGothic-Regular, PnPGothic-Bold


# ------------------------------------------------------------------ the exit


def _python(code: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120
    )


def test_leave_says_everything_and_runs_the_exit_handlers():
    """The `pnp` command skips the interpreter's teardown: what it printed (past any buffer),
    its exit code and the exit handlers all still come out."""
    result = _python(
        "import atexit, sys\n"
        "from generator.commands.cli import leave\n"
        "atexit.register(lambda: sys.stderr.write('handler ran\\n'))\n"
        "sys.stdout.write('x' * 200_000 + 'end')\n"
        "leave(3)\n"
    )
    assert result.returncode == 3
    assert len(result.stdout) == 200_003 and result.stdout.endswith("end")
    assert result.stderr == "handler ran\n"


def test_leave_waits_for_a_running_thread_as_an_ordinary_exit_does():
    result = _python(
        "import threading, time, sys\n"
        "from generator.commands.cli import leave\n"
        "def late():\n"
        "    time.sleep(0.3)\n"
        "    sys.stdout.write('thread finished')\n"
        "threading.Thread(target=late).start()\n"
        "leave(5)\n"
    )
    assert result.returncode == 5
    assert result.stdout == "thread finished"


def test_the_pnp_command_exits_with_its_findings_complete(stamped):
    """`python -m generator` (the `pnp` script's entry) through run(): the JSON report of a
    failing check arrives whole, with exit 1."""
    cards = stamped / GAME / "components/cards.yaml"
    cards.write_text(cards.read_text().replace("{id: b, data: {word: beta}}", "{id: b}"))
    result = spawn_pnp(stamped, "check", "--format", "json")
    findings = json.loads(result.stdout)
    assert result.returncode == (1 if any(f["severity"] == "error" for f in findings) else 0)
    assert any(f["item"] == "b" for f in findings if f.get("item")), findings


def test_platypus_is_imported_without_compiling_its_web_address_pattern():
    """A fresh process importing the guide has ReportLab's `uri_pat` deferred (not compiled)
    and `re.compile` back as it was."""
    probe = (
        "import re, sys; compile_ = re.compile; import generator.build.guide; "
        "p = sys.modules['reportlab.platypus.paragraph'].uri_pat; "
        "print(type(p).__name__, 'compiled' in vars(p), re.compile is compile_)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    assert out == ["DeferredPattern", "False", "True"]


def test_the_deferred_web_address_pattern_answers_as_reportlabs_own():
    from reportlab.platypus import paragraph

    from generator.build.platypus import DeferredPattern

    source = paragraph.uri_pat.pattern
    assert source.startswith("(^(?:[a-z0-9")  # the pattern platypus.py defers, as it reads now
    theirs, ours = re.compile(source, re.I), DeferredPattern(source, re.I)
    for text in [
        "https://example.com/a/b?c=d#e",
        "HTTP://WWW.EXAMPLE.ORG/Some/Long/Path",
        "ftp://user:pw@10.0.0.1:21/file",
        "http://[::1]/x",
        "http://münchen.de/straße",
        "http://localhost:8080/",
        "www.example.com",
        "not a web address",
        "http://-bad-.com",
        "",
    ]:
        for method in ("match", "search", "fullmatch"):
            a, b = getattr(theirs, method)(text), getattr(ours, method)(text)
            assert (a and (a.span(), a.groups())) == (b and (b.span(), b.groups())), text
    assert ours.pattern == source and ours.flags == theirs.flags


def _projected_plainly(value, langs, languages):
    """strings_digest.project_langs as first written: the rule, with no shortcut."""
    if isinstance(value, dict):
        keys = list(value)
        if (
            keys
            and all(
                isinstance(k, str) and re.match(r"^[a-z]{2,3}(-[A-Za-z0-9]+)?\Z", k) for k in keys
            )
            and any(k in languages for k in keys)
        ):
            if all(lang in value for lang in langs):
                return {lang: _projected_plainly(value[lang], langs, languages) for lang in langs}
            return value
        return {str(k): _projected_plainly(v, langs, languages) for k, v in value.items()}
    if isinstance(value, list):
        return [_projected_plainly(v, langs, languages) for v in value]
    return value


class _Text(str):
    pass


@pytest.mark.parametrize(
    "langs, languages", [(("en",), ("en",)), (("es",), ("es", "en")), (("es", "en"), ("es", "en"))]
)
def test_a_files_strings_as_languages_see_them_are_the_plain_rules(langs, languages):
    import yaml

    from generator.load.strings_digest import project_langs
    from generator.load.yamlload import load_yaml

    tricky = {
        "id": "c1",  # a key that looks like a language code, beside others that do not
        1: {"en": "one", "es": "uno", "de": "eins"},  # a key that is not text
        2.5: ["x", {"es": "sí"}],  # a language missing: kept whole
        None: None,
        "data": {"en": {"name": {"es": "nombre", "en": "name"}}, "fr": "non"},  # not a game's
        "mixed": {"en": "a", "size": 3},  # not every key a language code
        "deep": [[{"en-GB": "colour", "es": "color", "en": "color"}], 1.5, False],
        _Text("sub"): _Text("a str subclass"),
        "empty": {},
    }
    values = [tricky, [tricky, "x", 3], "text", 7]
    for folder in ("content/red-code/components", "content/dogfight/components"):
        values += [load_yaml(p) for p in sorted((ROOT / folder).glob("*.yaml"))]
        values += [yaml.safe_load(p.read_text()) for p in sorted((ROOT / folder).glob("*.yaml"))]
    for value in values:
        got = project_langs(value, langs, languages)
        assert got == _projected_plainly(value, langs, languages)
        as_json = json.dumps(got, sort_keys=True, default=str, ensure_ascii=False)
        assert as_json == json.dumps(
            _projected_plainly(value, langs, languages),
            sort_keys=True,
            default=str,
            ensure_ascii=False,
        )


def test_the_guides_item_names_are_worked_out_once_per_game_and_language(make_project):
    from generator import session
    from generator.build import guide
    from generator.load.content import load_game
    from generator.load.project import Project
    from generator.render.engine import FaceRenderer

    root = make_project(FILES)
    content = load_game(Project(root), "mini")
    renderer = FaceRenderer(content, "en")
    first = guide.item_names(content, renderer, "en")
    assert guide.item_names(content, FaceRenderer(content, "en"), "en") is first
    assert first("cards", "a") is None and first("cards", "zz") is None
    with session.new():
        assert guide.item_names(content, renderer, "en") is not first  # a new command
    other = load_game(Project(root), "mini")  # a game loaded afresh is asked afresh
    assert guide.item_names(other, renderer, "en") is not first

"""The designer's loop: one face (`pnp render`), a new game (`pnp new`), fine-grained
invalidation of build targets, the preview gallery in a real browser, and `pnp watch`."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, copy_templates, only_languages, run_pnp
from PIL import Image

from generator.build import run as build
from generator.commands import cli
from generator.load.content import load_game
from generator.load.project import Project


def _pnp(root: Path, *args: str) -> int:
    return cli.main(["--root", str(root), *args])


# ------------------------------------------------------------------ pnp render


def test_render_one_face_to_png_and_pdf(dogfight_copy, capsys):
    root = dogfight_copy
    out = root / "face.png"
    assert (
        _pnp(
            root,
            "render",
            "dogfight",
            "allied-planes",
            "red-7",
            "--lang",
            "ko",
            "--dpi",
            "150",
            "-o",
            str(out),
        )
        == 0
    )
    said = capsys.readouterr().out
    assert "finding(s)" in said and "error:" not in said  # warnings may show, no error
    # Trim 63 x 88 mm plus 3 mm bleed on each side, at 150 dpi.
    with Image.open(out) as image:
        assert image.size == (round(69 / 25.4 * 150), round(94 / 25.4 * 150))
        # The red header runs into the bleed: the top-left pixel is the suit colour, not paper.
        r, g, b = image.convert("RGB").getpixel((2, 2))
        assert r > 150 and g < 80 and b < 80
    pdf = root / "back.pdf"
    assert (
        _pnp(root, "render", "dogfight", "rewards", "blue-2", "--side", "back", "-o", str(pdf)) == 0
    )
    from pypdf import PdfReader

    page = PdfReader(str(pdf)).pages[0]
    trim = [round(float(v) / 72 * 25.4, 2) for v in page.trimbox]
    assert trim == [3.0, 3.0, 66.0, 91.0]


def test_render_prints_the_face_findings_and_names_unknown_ids(dogfight_copy, capsys):
    root = dogfight_copy
    comp = root / "content/dogfight/components/rewards.yaml"
    long = "Discard " + "many " * 80
    comp.write_text(comp.read_text().replace('en: "Discard {{ [value, 1] | max }}', f'en: "{long}'))
    code = _pnp(
        root, "render", "dogfight", "rewards", "red-3", "--lang", "en", "-o", str(root / "x.png")
    )
    said = capsys.readouterr().out
    assert code == 1
    assert "[text-overflow]" in said or "overflow" in said
    assert (root / "x.png").exists()  # the face is drawn anyway: the designer sees the problem
    assert _pnp(root, "render", "dogfight", "reward", "red-3") == 2
    assert "did you mean 'rewards'" in capsys.readouterr().err


def test_a_face_that_cannot_be_drawn_is_reported_where_it_is_not_a_crash(dogfight_copy, capsys):
    """A typo in a layout (`{{ valeu }}`) is a located finding in render and in the preview,
    as in check; the preview still shows every other face."""
    root = dogfight_copy
    only_languages(root, "dogfight", ["es", "en"])  # the preview draws every language's faces
    layout = root / "templates/layouts/dogfight/reward.yaml"
    text = layout.read_text()
    box_line = text[: text.index("id: value")].count("\n") + 1  # findings name the box's line
    layout.write_text(text.replace('text: "{{ value }}"', 'text: "{{ valeu }}"'))
    out = root / "face.png"
    code = _pnp(root, "render", "dogfight", "rewards", "red-3", "--lang", "en", "-o", str(out))
    said = capsys.readouterr().out
    assert code == 1, said
    assert re.search(rf"reward\.yaml:{box_line}: error: \[template\].*'valeu' is undefined", said)
    assert "not written" in said and not out.exists()
    assert _pnp(root, "render", "dogfight", "rewards", "red-3", "-o", str(root / "f.jpg")) == 2
    assert ".png or .pdf" in capsys.readouterr().err
    assert _pnp(root, "preview", "dogfight") == 1
    page = (root / "output/dogfight/preview/index.html").read_text()
    assert "&#x27;valeu&#x27; is undefined" in page or "'valeu' is undefined" in page
    pictures = re.findall(r"src='faces/([^']+)'", page) + re.findall(r'src="faces/([^"]+)"', page)
    blank = [p for p in pictures if p.startswith("blank-")]
    drawn = [p for p in pictures if not p.startswith("blank-")]
    assert blank and drawn  # the broken reward fronts are blanks; planes and backs are drawn
    assert any(p.startswith("dogfight-allied-planes-") for p in drawn)


# ------------------------------------------------------------------ pnp new


def _empty_project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    copy_templates(root, "all")  # not the fonts: pnp's own
    (root / "content").mkdir()
    return root


def test_new_game_passes_check_and_builds(tmp_path, capsys):
    root = _empty_project(tmp_path)
    assert _pnp(root, "new", "my-game", "--langs", "es,en,ko") == 0
    assert _pnp(root, "check", "my-game") == 0
    assert "0 error(s), 0 warning(s)" in capsys.readouterr().out
    result = run_pnp(root, "print", "my-game", "--paper", "a4", check=True)
    # files: 2 components + 1 rulebook + the guide, x 3 languages
    assert "12 of 12 files built" in result.stdout
    manifest = json.loads((root / "output/my-game/build-manifest.json").read_text())
    placed = [s for sheet in manifest["sheets"] if sheet["side"] == "front" for s in sheet["slots"]]
    per_lang = {c: sum(1 for s in placed if s["component"] == c) for c in ("cards", "coins")}
    assert per_lang == {"cards": 3 * 6, "coins": 3 * 12}
    # The same id twice is refused, and nothing is overwritten.
    before = (root / "content/my-game/game.yaml").read_text()
    assert _pnp(root, "new", "my-game") == 2
    assert (root / "content/my-game/game.yaml").read_text() == before
    assert _pnp(root, "new", "Not_An_Id") == 2


def test_new_refuses_a_language_it_has_no_text_for_and_says_what_to_do(tmp_path):
    root = _empty_project(tmp_path)
    refused = {
        "es,eng": "--langs: 'eng' is not an ISO 639-1 language code",
        "en,english": "did you mean 'en'?",
        "es,spa": "did you mean 'es'?",
        "es,es": "--langs names 'es' twice",
        "de,en": "the starter has no text in de; it has en, es, fr, ko",
    }
    for langs, said in refused.items():
        result = run_pnp(root, "new", "g", "--langs", langs)
        assert (result.returncode, result.stdout) == (2, ""), langs
        assert said in result.stderr and result.stderr.count("\n") == 1, result.stderr
        assert list((root / "content").iterdir()) == [], langs  # nothing written
    assert "did you mean 'en'?" in run_pnp(root, "new", "g", "--langs", "es,eng").stderr
    # What it says to do instead works, and the game passes check with German as a draft.
    hint = run_pnp(root, "new", "g", "--langs", "de,en").stderr
    commands = re.findall(r"`pnp ([^`]+)`", hint)
    assert commands == ["new g --langs en", "i18n add g de"]
    for command in commands:
        run_pnp(root, *command.split(), check=True)
    assert run_pnp(root, "check", "g").returncode == 0
    assert "languages: [en, {de: draft}]" in (root / "content/g/game.yaml").read_text()


# ------------------------------------------------------------------ invalidation


def _keys(root: Path) -> dict[str, str]:
    """Every target's key, as one `pnp print` command would plan them (its own cache session)."""
    from generator import session

    with session.new():
        project = Project(root)
        content = load_game(project, "dogfight")
        return {t.path: t.key for t in build.plan_targets(project, content, build.Options())}


def test_an_edit_in_one_language_changes_only_the_targets_that_read_it(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"  # sheets and print-shop files: the other exports
    game.write_text(re.sub(r"exports: \[.*\]", "exports: [sheets, print-shop]", game.read_text()))
    before = _keys(root)
    comp = root / "content/dogfight/components/rewards.yaml"
    rules = root / "content/dogfight/rules/ko.md"
    layout = root / "templates/layouts/dogfight/reward.yaml"
    originals = {path: path.read_bytes() for path in (comp, rules, layout)}
    text = comp.read_text()
    comp.write_text(text.replace("en: German plane shot down", "en: German plane downed"))
    changed = {p for p, k in _keys(root).items() if before[p] != k}
    assert changed >= {
        "output/dogfight/en/rewards-a4.pdf",
        "output/dogfight/en/rewards-letter.pdf",
        "output/dogfight/en/print-shop/rewards.pdf",
        "output/dogfight/en/print-shop/order.csv",
        "output/dogfight/en/rulebook.pdf",
        "output/dogfight/en/rulebook-letter.pdf",
        "output/dogfight/rulebook.es-en.pdf",
        "output/dogfight/rulebook.es-en-letter.pdf",
    }
    # Every other target that moved is an English output of the rewards (its exports: images,
    # TTS, gutterfold, ink-saver, the order sheet); no Spanish or Korean one, no other deck.
    for path in changed:
        assert "/en/" in path or "rulebook.es-en" in path, path
        assert "allied-planes" not in path, path
    # A Korean rulebook edit moves only the Korean editions.
    comp.write_bytes(originals[comp])
    rules.write_text(rules.read_text() + "\n")
    changed = {p for p, k in _keys(root).items() if before[p] != k}
    assert changed == {"output/dogfight/ko/rulebook.pdf", "output/dogfight/ko/rulebook-letter.pdf"}
    # A layout edit moves only the component that resolves it (every language), and the
    # rulebooks (their figures may draw it).
    rules.write_bytes(originals[rules])
    layout.write_text(layout.read_text().replace("size: 30pt", "size: 29pt"))
    changed = {p for p, k in _keys(root).items() if before[p] != k}
    assert not any("allied-planes" in p for p in changed)
    assert {p for p in changed if "rewards" in p} >= {
        f"output/dogfight/{lang}/{name}"
        for lang in ("es", "en", "ko")
        for name in ("rewards-a4.pdf", "rewards-letter.pdf", "print-shop/rewards.pdf")
    }
    # Undone, every key is as before; another game's layout moves nothing of this one.
    layout.write_bytes(originals[layout])
    other = root / "templates/layouts/other-game/card.yaml"
    other.parent.mkdir()
    other.write_text("boxes: []\n")
    assert _keys(root) == before


# ------------------------------------------------------------------ the preview in a browser


def _chromium():
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        pytest.skip("Chromium is not installed (Debian package 'chromium'; .ci/run installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("playwright is not installed (pip install -e '.[dev]')")
    return path, sync_playwright


_BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.mark.slow
def test_preview_in_a_browser_from_file(dogfight_copy, capsys):
    exe, sync_playwright = _chromium()
    root = dogfight_copy
    comp = root / "content/dogfight/components/rewards.yaml"
    long = "Discard " + "many " * 80
    comp.write_text(comp.read_text().replace('en: "Discard {{ [value, 1] | max }}', f'en: "{long}'))
    assert _pnp(root, "preview", "dogfight") == 1  # the overflow is an error, shown on the faces
    index = root / "output/dogfight/preview/index.html"
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=_BROWSER_ARGS)
        page = browser.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.goto(index.as_uri())
        # Every picture, in every language panel: load them all, then none may be broken.
        page.evaluate(
            "document.querySelectorAll('[data-lang-panel]').forEach(p => p.hidden = false);"
            "document.querySelectorAll('img').forEach(i => i.loading = 'eager');"
        )
        page.wait_for_function(
            "Array.from(document.querySelectorAll('figure img')).every(i => i.complete)",
            timeout=60_000,
        )
        faces = page.evaluate(
            "Array.from(document.querySelectorAll('figure img')).map(i => i.naturalWidth)"
        )
        langs = len(load_game(Project(root), "dogfight").languages)
        assert len(faces) == langs * (50 + 25 + 2)  # fronts and the two common backs, per language
        assert all(w > 0 for w in faces)
        # The finding sits on the right card: en rewards red-3, box 'cost', and nowhere else.
        page.click("button[data-lang=en]")
        marked = page.evaluate(
            "Array.from(document.querySelectorAll('figure.face-error'))"
            ".filter(f => f.offsetParent !== null)"
            ".map(f => f.dataset.component + '/' + f.dataset.item)"
        )
        assert "rewards/red-3" in marked
        assert all(m.startswith("rewards/") for m in marked)
        card = page.locator("[data-lang-panel=en] figure[data-component=rewards][data-item=red-3]")
        assert card.locator(".mark.error").count() >= 1
        assert "overflow" in card.locator(".msg").first.inner_text()
        # The language switch shows one language at a time.
        assert page.locator("[data-lang-panel=en]").is_visible()
        assert not page.locator("[data-lang-panel=es]").is_visible()
        # Enlarge on click.
        card.locator(".pic").click()
        assert page.locator("#zoom").is_visible()
        browser.close()
    leaving = [u for u in requests if not u.startswith(("file:", "data:", "about:"))]
    assert leaving == []


@pytest.mark.slow
def test_watch_rebuilds_and_the_page_reloads_with_the_new_face(tmp_path):
    exe, sync_playwright = _chromium()
    root = _empty_project(tmp_path)
    assert _pnp(root, "new", "demo", "--langs", "en") == 0
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    watcher = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "generator",
            "--root",
            str(root),
            "watch",
            "demo",
            "--port",
            "0",
            "-j",
            "1",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    try:
        url = None
        deadline = time.monotonic() + 180
        while url is None and time.monotonic() < deadline:
            line = watcher.stdout.readline()
            found = re.search(r"open (http://127\.0\.0\.1:\d+/\S+)", line)
            url = found.group(1) if found else None
        assert url, "pnp watch never said where the preview is"
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=exe, args=_BROWSER_ARGS)
            page = browser.new_page()
            page.goto(url)
            selector = "figure[data-component=cards][data-item=scout][data-side=front] img"
            old_src = page.get_attribute(selector, "src")
            # Save an edit: the watcher rebuilds, the page reloads by itself.
            cards = root / "content/demo/components/cards.yaml"
            cards.write_text(cards.read_text().replace("Scout", "Pathfinder"))
            page.wait_for_function(
                f"document.querySelector('{selector}') && "
                f"document.querySelector('{selector}').getAttribute('src') !== '{old_src}'",
                timeout=120_000,
            )
            new_src = page.get_attribute(selector, "src")
            browser.close()
        # The faces show first; then the PDFs are rebuilt (the watcher says when).
        rebuilt = False
        while not rebuilt and time.monotonic() < deadline + 120:
            rebuilt = "rebuilt in" in watcher.stdout.readline()
        picture = root / "output/demo/preview" / new_src
        assert picture.exists()
        # The new text is on the rebuilt card PDF too.
        from pypdf import PdfReader

        text = PdfReader(str(root / "output/demo/en/cards-a4.pdf")).pages[0].extract_text()
        assert "Pathfinder" in text
        # A broken save: the watcher says so and keeps running.
        cards.write_text(cards.read_text().replace("count: 3", "count: [3"))
        time.sleep(3)
        assert watcher.poll() is None
        cards.write_text(cards.read_text().replace("count: [3", "count: 3"))
    finally:
        watcher.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            watcher.wait(timeout=10)
        if watcher.poll() is None:
            watcher.kill()

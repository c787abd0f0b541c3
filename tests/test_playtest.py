"""Playtest iterations (issue 28, docs/playtest.md): the version mark on every face, `pnp diff`
and `pnp print --changed-since`, in a temporary git repository of a Dogfight copy."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from conftest import only_languages, run_pnp, without_rulebooks
from PIL import Image
from reportlab.pdfgen.canvas import Canvas

from generator import session
from generator.build import pdflint
from generator.load.content import load_game
from generator.load.project import Project
from generator.render.engine import FaceRenderer
from generator.render.version_mark import Face, mark_rect, mark_text

SUITS = ("red", "blue", "green", "yellow", "purple")


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.email=t@example.org", "-c", "user.name=t", *args],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


@pytest.fixture
def dogfight_repo(make_project) -> Path:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    root = make_project(games=("dogfight",))
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    return root


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text()
    assert text.count(old) >= count, old
    path.write_text(text.replace(old, new, count))


def _three_edits(root: Path) -> None:
    """One text (the English deflection rule), one number (the Spanish one: 4 -> 5 cards), one
    layout box moved (the reward's points disc and value: every reward front)."""
    planes = root / "content/dogfight/components/allied-planes.yaml"
    _edit(planes, "anyone with more than 4 cards", "every player with more than 4 cards")
    _edit(
        planes,
        "más de 4 cartas en la mano descarta hasta quedarse con 4",
        "más de 5 cartas en la mano descarta hasta quedarse con 5",
    )
    reward = root / "templates/layouts/dogfight/reward.yaml"
    _edit(
        reward,
        "    x: 5\n    y: 5\n    w: 16\n    h: 16\n    fill",
        "    x: 6\n    y: 5\n    w: 16\n    h: 16\n    fill",
    )
    _edit(reward, '    text: "{{ value }}"\n    x: 5', '    text: "{{ value }}"\n    x: 6')


def _expected() -> dict[str, set[str]]:
    rewards = {f"rewards/{s}-{v}" for s in SUITS for v in range(5)}
    tens = {f"allied-planes/{s}-10" for s in SUITS}
    # es and en had their text edited; every other language (ko, fr, de, pl) only the rewards
    others = {"ko": rewards, "fr": rewards, "de": rewards, "pl": rewards}
    return {"es": rewards | tens, "en": rewards | tens} | others


def _listed(summary: str) -> dict[str, set[str]]:
    """Per language, the faces a `pnp diff` summary names as changed."""
    out: dict[str, set[str]] = {}
    body = summary.split("changed: ", 1)[1]
    for part in body.split("; "):
        m = re.fullmatch(r"(\S+) ((?:[a-z]{2}, )*[a-z]{2})", part.strip())
        if not m:
            break
        for lang in m.group(2).split(", "):
            out.setdefault(lang, set()).add(m.group(1))
    return out


# ------------------------------------------------------------------ the version mark


def _with_mark(root: Path, corner: str = "bottom-left") -> None:
    game = root / "content/dogfight/game.yaml"
    # after the `languages:` line, whatever languages the game has (an edit that silently
    # matched nothing would leave the game without a version, and the marks without one)
    text, n = re.subn(r"(?m)^(languages: .*)$", r"\1\nversion: '0.4'", game.read_text(), count=1)
    assert n == 1 and "  duplex: long-edge\n" in text
    game.write_text(
        text.replace("  duplex: long-edge\n", f"  duplex: long-edge\n  version_mark: {corner}\n")
    )


def _marks(root: Path, lang: str = "en") -> dict[str, str]:
    with session.new():  # as a new pnp command: no layout or model kept from the last call
        return _marks_now(root, lang)


def _marks_now(root: Path, lang: str) -> dict[str, str]:
    content = load_game(Project(root), "dogfight")
    renderer = FaceRenderer(content, lang)
    out = {}
    for comp in content.components:
        w, h = comp.size_pt
        for item in comp.items:
            ctx = renderer.context(comp, item)
            out[f"{comp.id}/{item.id}"] = mark_text(renderer, Face(item.layout, ctx, w, h, 8.5))
    return out


def test_the_mark_hash_is_stable_and_moves_only_with_the_picture(dogfight_repo):
    root = dogfight_repo
    _with_mark(root)
    first = _marks(root)
    assert all(m.startswith("v0.4 · ") and len(m) == len("v0.4 · 123456") for m in first.values())
    assert len(set(first.values())) == len(first)  # every card draws something of its own
    assert _marks(root) == first  # stable across loads and renderers
    # Reformatting YAML (flow mapping -> block, comments, key order) moves no mark.
    planes = root / "content/dogfight/components/allied-planes.yaml"
    planes.write_text(
        planes.read_text().replace(
            "kind: card\nsize: poker\n", "# reordered\nsize: poker\nkind:   card\n"
        )
    )
    assert _marks(root) == first
    _three_edits(root)
    after = _marks(root)
    moved = {k for k in first if first[k] != after[k]}
    assert moved == {k for k in first if k.startswith("rewards/")} | {
        f"allied-planes/{s}-10" for s in SUITS
    }
    # Drawing a face draws its mark: the text of the drawn card carries it.
    with session.new():
        content = load_game(Project(root), "dogfight")
        renderer = FaceRenderer(content, "en")
        comp = content.component("allied-planes")
        item = comp.items[0]
        buf = io.BytesIO()
        canvas = Canvas(buf, pagesize=comp.size_pt, initialFontName=renderer.fonts.default.name)
        renderer.draw(canvas, item.layout, renderer.context(comp, item), *comp.size_pt, 0.0)
        canvas.save()
    text = pdfium.PdfDocument(buf.getvalue())[0].get_textpage().get_text_range()
    assert after[f"allied-planes/{item.id}"] in text.replace("\r\n", " ")


def test_a_face_is_fingerprinted_once_per_command(make_project, monkeypatch):
    """Every file a face is printed in shows its mark; the face is drawn alone for its hash once
    per command, whatever the renderers, and again in the next command. Two loaded versions of
    one game (as `pnp diff` holds) keep their own hashes."""
    from generator.render import version_mark

    root = make_project(games=("dogfight",))
    _with_mark(root)
    drawn: list[str] = []
    bare = FaceRenderer.draw_bare

    def counting(self, canvas, layout, *args, **kwargs):
        drawn.append(layout)
        return bare(self, canvas, layout, *args, **kwargs)

    monkeypatch.setattr(FaceRenderer, "draw_bare", counting)

    def marks_of(content, renderers: int) -> set[str]:
        out = set()
        for _ in range(renderers):  # one renderer per file written, as the build makes them
            renderer = FaceRenderer(content, "en")
            comp = content.component("rewards")
            w, h = comp.size_pt
            for item in comp.items[:3]:
                face = version_mark.Face(item.layout, renderer.context(comp, item), w, h, 8.5)
                out.add(mark_text(renderer, face))
        return out

    # the same game with the reward's points disc moved, in another folder (as pnp diff's
    # earlier version is)
    other = make_project(games=("dogfight",), name="edited")
    _with_mark(other)
    _edit(
        other / "templates/layouts/dogfight/reward.yaml", "    x: 5\n    y: 5", "    x: 6\n    y: 5"
    )
    with session.new():
        content = load_game(Project(root), "dogfight")
        first = marks_of(content, renderers=3)
        assert len(first) == 3 and len(drawn) == 3  # three files, each face drawn alone once
        edited = load_game(Project(other), "dogfight")
        assert marks_of(edited, renderers=2).isdisjoint(first)  # the other version: its own
        assert len(drawn) == 6
        assert marks_of(content, renderers=1) == first and len(drawn) == 6  # still known
    with session.new():  # the next command draws again
        marks_of(load_game(Project(root), "dogfight"), renderers=1)
        assert len(drawn) == 9


def _covering(root: Path, game: str, lang: str, only: str | None = None) -> list[str]:
    """Faces whose mark's rectangle meets the ink of a text (as textspots finds it, the same
    rectangles tile seams avoid) or an image or SVG box: worked out apart from the check."""
    from generator.render.boxes.base import Frame
    from generator.render.boxes.walk import walk
    from generator.render.textspots import text_rects
    from generator.render.version_mark import settings

    content = load_game(Project(root), game)
    renderer = FaceRenderer(content, lang)
    margin = content.game.check.safe_margin.points
    bad = []
    for comp in content.components:
        if only and comp.id != only:
            continue
        w, h = comp.size_pt
        for item in comp.items:
            ctx = renderer.context(comp, item)
            mark = settings(renderer, ctx)
            assert mark is not None
            text = mark_text(renderer, Face(item.layout, ctx, w, h, 8.5))
            r = mark_rect(renderer, mark, text, w, h)
            assert r.h >= 5  # at least 5 pt
            assert r.x >= margin - 0.01 and r.y >= margin - 0.01  # inside the safe area
            assert r.x + r.w <= w - margin + 0.01 and r.y + r.h <= h - margin + 0.01
            frame = Frame(item.layout, ctx, w, h, 0.0, face=(w, h))
            shown = walk(renderer, frame, lambda *a: None)
            art = [p.on_face for p in shown if p.box.kind in ("image", "svg")]
            for o in text_rects(renderer, item.layout, ctx, w, h) + art:
                dx = min(r.x + r.w, o.x + o.w) - max(r.x, o.x)
                dy = min(r.y + r.h, o.y + o.h) - max(r.y, o.y)
                if dx > 0.01 and dy > 0.01:
                    bad.append(f"{comp.id}/{item.id}")
                    break
    return bad


def _mark_findings(root: Path, game: str) -> list[dict]:
    result = run_pnp(root, "check", game, "--format", "json")
    return [f for f in json.loads(result.stdout) if f["code"] == "version-mark"]


def test_the_mark_never_covers_text_or_art_and_check_says_so(dogfight_repo, make_project):
    # Dogfight's cards have a value or a suit in every corner: check says so, per box.
    root = dogfight_repo
    _with_mark(root, "bottom-right")
    found = _mark_findings(root, "dogfight")
    assert {f["component"] for f in found} == {"allied-planes", "rewards"}
    assert all(f["severity"] == "error" and f["box"] == "version_mark" for f in found)
    assert "covers box 'value-low' (text)" in " ".join(f["message"] for f in found)
    assert len(_covering(root, "dogfight", "en")) == 75  # the check was right, on every card
    assert run_pnp(root, "print", "dogfight", "--paper", "a4").returncode == 1  # and it stops
    # Red Code's order cards keep their bottom corners free: a component opts in on its own.
    rc = make_project(games=("red-code",), name="rc")
    orders = rc / "content/red-code/components/order-cards.yaml"
    orders.write_text(
        re.sub(
            r"^(layout: .*)$",
            r"\1\nprint: {version_mark: bottom-right}",
            orders.read_text(),
            count=1,
            flags=re.M,
        )
    )
    assert _mark_findings(rc, "red-code") == []
    for lang in ("es", "ko"):
        assert _covering(rc, "red-code", lang, only="order-cards") == []


def _with_mark_corner(root: Path, corner: str) -> None:
    game = root / "content/dogfight/game.yaml"
    game.write_text(re.sub(r"version_mark: \S+", f"version_mark: {corner}", game.read_text()))


# ------------------------------------------------------------------ diff and changed-since


@pytest.mark.slow
def test_diff_and_changed_since_list_exactly_the_changed_faces(dogfight_repo):
    root = dogfight_repo
    # Reformatting YAML alone is no change.
    game = root / "content/dogfight/game.yaml"
    game.write_text(
        "# reflowed\n"
        + game.read_text().replace("papers: [a4, letter]", "papers:\n    - a4\n    - letter")
    )
    _git(root, "commit", "-qam", "reformat")
    result = run_pnp(root, "diff", "dogfight", "--since", "HEAD~1")
    assert result.returncode == 0, result.stderr
    assert "nothing changed" in result.stdout

    _three_edits(root)
    # print-shop and png on (png at a low dpi, for speed): their changes equivalents are written
    _edit(
        game,
        "exports: [sheets, print-shop, png, tts, gutterfold, ink-saver]",
        "exports: [sheets, print-shop, {format: png, dpi: 100}, tts]",
    )
    _git(root, "commit", "-qam", "three cards")
    result = run_pnp(root, "diff", "dogfight", "--since", "HEAD~1")
    assert result.returncode == 0, result.stderr
    summary = result.stdout.splitlines()[0]
    assert summary.startswith("dogfight since HEAD~1: 30 faces changed: ")
    assert _listed(summary) == _expected()
    assert "added" not in summary and "rulebook" not in summary
    assert (root / "output/dogfight/diff/index.html").is_file()

    result = run_pnp(root, "print", "dogfight", "--changed-since", "HEAD~1", "--paper", "a4")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((root / "output/dogfight/build-manifest.json").read_text())
    files = {f["lang"]: f for f in manifest["files"] if f.get("format") == "changes"}
    assert set(files) == set(_expected())
    fonts = pdflint.bundled_font_names(Project(root).fonts)
    content = load_game(Project(root), "dogfight")
    counts = {(c.id, i.id): i.count for c in content.components for i in c.items}
    for lang, entry in files.items():
        path = root / entry["path"]
        assert entry["path"] == f"output/dogfight/{lang}/changes-a4.pdf"
        assert pdflint.lint(path, fonts) == []
        assert len(pdfium.PdfDocument(path)) == entry["pages"]
        slots = [s for s in manifest["sheets"] if s["file"] == entry["path"]]
        for side in ("front", "back"):
            placed = Counter(
                f"{slot['component']}/{slot['item']}"
                for s in slots
                if s["side"] == side
                for slot in s["slots"]
            )
            # exactly the changed faces, each in the copies the content asks for, with its back
            assert set(placed) == _expected()[lang]
            for face, n in placed.items():
                comp, item = face.split("/")
                assert n == counts[(comp, item)]
        assert min(s["page"] for s in slots) == 2  # page 1 says what to replace
        assert {f"{r['component']}/{r['item']}" for r in entry["replace"]} == _expected()[lang]
        first = pdfium.PdfDocument(path)[0].get_textpage().get_text_range()
        assert ("red-10" in first) == (lang in ("es", "en"))
        # the sheets are packed: no more pages than the copies need at 9 poker cards a sheet
        copies = sum(counts[tuple(f.split("/"))] for f in _expected()[lang])
        assert entry["pages"] == 1 + 2 * -(-copies // 9)
        _check_print_shop_changes(root, manifest, lang, counts, fonts)
        _check_png_changes(root, manifest, lang, counts, content)
    # nothing but the changes: tts is on, yet it has no changes equivalent
    assert {f["format"] for f in manifest["files"]} == {
        "changes",
        "changes-print-shop",
        "changes-png",
    }
    first = pdfium.PdfDocument(root / "output/dogfight/en/changes/print-shop/allied-planes.pdf")
    assert "every player" in first[0].get_textpage().get_text_range().replace("\r\n", " ")

    # A later run replaces the earlier one's files: since HEAD nothing changed, so none is left.
    result = run_pnp(root, "print", "dogfight", "--changed-since", "HEAD", "--paper", "a4")
    assert result.returncode == 0, result.stderr
    manifest = json.loads((root / "output/dogfight/build-manifest.json").read_text())
    assert [f for f in manifest["files"] if f["format"].startswith("changes")] == []
    for lang in files:
        left = root / f"output/dogfight/{lang}"
        assert not (left / "changes-a4.pdf").exists()
        assert not (left / "changes").exists()  # nor the folders that held them


def _check_print_shop_changes(root: Path, manifest: dict, lang: str, counts: dict, fonts) -> None:
    """changes/print-shop/: one page per changed design and one per its back, and an order
    sheet of exactly those pages, in the copies the content asks for."""
    folder = f"output/dogfight/{lang}/changes/print-shop"
    mine = [
        f for f in manifest["files"] if f["lang"] == lang and f["format"] == "changes-print-shop"
    ]
    pdfs = [f for f in mine if f["path"].endswith(".pdf")]
    (order,) = [f for f in mine if f.get("role") == "order-sheet"]
    assert order["path"] == f"{folder}/order.csv"
    pages: dict[tuple[str, str], int] = {}  # (face, side) -> quantity, from the manifest pages
    where: dict[tuple[str, str], tuple[str, int]] = {}
    for entry in pdfs:
        assert entry["path"] == f"{folder}/{entry['component']}.pdf"
        path = root / entry["path"]
        assert pdflint.lint(path, fonts) == []
        assert len(pdfium.PdfDocument(path)) == entry["pages"]
        for page in (s for s in manifest["sheets"] if s["file"] == entry["path"]):
            (slot,) = page["slots"]
            key = (f"{slot['component']}/{slot['item']}", page["side"])
            assert key not in pages
            pages[key] = page["quantity"]
            where[key] = (entry["path"], page["page"])
        assert entry["pages"] == len([k for k in where if where[k][0] == entry["path"]])
    expected = {(face, side) for face in _expected()[lang] for side in ("front", "back")}
    assert set(pages) == expected  # exactly the changed designs, each with its back
    for (face, _side), n in pages.items():
        assert n == counts[tuple(face.split("/"))]
    rows = list(csv.DictReader((root / order["path"]).open(encoding="utf-8")))
    assert len(rows) == order["rows"] == len(expected)
    for row in rows:
        key = (f"{row['component']}/{row['item']}", row["side"])
        assert int(row["quantity"]) == pages[key]
        pdf, page = where[key]
        assert row["file"].endswith(pdf.rsplit("/", 1)[1]) and int(row["page"]) == page
        assert (root / row["file"]).is_file() or (root / folder / row["file"]).is_file()


def _check_png_changes(root: Path, manifest: dict, lang: str, counts: dict, content) -> None:
    """changes/png/: one image per changed front, and the backs those cards need, with the
    manifest's copies matching the content's counts; no other image in the folder."""
    folder = root / f"output/dogfight/{lang}/changes/png"
    mine = [f for f in manifest["files"] if f["lang"] == lang and f["format"] == "changes-png"]
    on_disk = {p.relative_to(root).as_posix() for p in folder.rglob("*") if p.is_file()}
    assert on_disk == {f["path"] for f in mine}
    fronts = {f"{f['component']}/{f['item']}": f["copies"] for f in mine if f["side"] == "front"}
    assert set(fronts) == _expected()[lang]
    assert all(n == counts[tuple(face.split("/"))] for face, n in fronts.items())
    backs = Counter[str]()
    for f in mine:
        if f["side"] == "back":
            assert "item" not in f or f"{f['component']}/{f['item']}" in fronts
            backs[f["component"]] += f["copies"]
    # every changed card has a back image, and the backs' copies are those cards' copies
    for comp in {face.split("/")[0] for face in fronts}:
        spec = content.component(comp)
        assert all(i.back for i in spec.items)
        assert backs[comp] == sum(n for face, n in fronts.items() if face.startswith(comp + "/"))
    for f in mine:  # the images are the exporter's: its dpi, its pixel size
        with Image.open(root / f["path"]) as image:
            assert f["dpi"] == 100 and list(image.size) == f["px"]


def test_diff_without_since_compares_with_the_last_build(dogfight_repo):
    root = dogfight_repo
    only_languages(root, "dogfight", ["es", "en"])  # the source and the edited language
    without_rulebooks(root, "dogfight")  # the diff reads faces only
    _git(root, "commit", "-qam", "two languages, no rulebooks")
    result = run_pnp(root, "diff", "dogfight")
    assert result.returncode == 2 and "pnp print" in result.stderr  # no build yet: says what to do
    assert run_pnp(root, "print", "dogfight", "--paper", "a4", "--export", "sheets").returncode == 0
    planes = root / "content/dogfight/components/allied-planes.yaml"
    _edit(planes, "anyone with more than 4 cards", "every player with more than 4 cards")
    result = run_pnp(root, "diff", "dogfight")  # uncommitted: the build's record, not git
    assert result.returncode == 0, result.stderr
    assert _listed(result.stdout.splitlines()[0]) == {
        "en": {f"allied-planes/{s}-10" for s in SUITS}
    }


def test_diff_names_a_bad_revision(dogfight_repo):
    result = run_pnp(dogfight_repo, "diff", "dogfight", "--since", "no-such-ref")
    assert result.returncode == 2
    assert "git rev-parse" in result.stderr and "--since" in result.stderr


@pytest.mark.slow
def test_the_diff_page_in_a_browser_from_file(dogfight_repo):
    from test_designer_loop import _BROWSER_ARGS, _chromium

    exe, sync_playwright = _chromium()
    root = dogfight_repo
    planes = root / "content/dogfight/components/allied-planes.yaml"
    _edit(planes, "anyone with more than 4 cards", "every player with more than 4 cards")
    _git(root, "commit", "-qam", "one text")
    assert run_pnp(root, "diff", "dogfight", "--since", "HEAD~1").returncode == 0
    index = root / "output/dogfight/diff/index.html"
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=exe, args=_BROWSER_ARGS)
        page = browser.new_page()
        page.on("request", lambda r: requests.append(r.url))
        page.goto(index.as_uri())
        page.wait_for_function(
            "Array.from(document.querySelectorAll('img')).every(i => i.complete)", timeout=60_000
        )
        widths = page.evaluate(
            "Array.from(document.querySelectorAll('img')).map(i => i.naturalWidth)"
        )
        assert len(widths) == 2 * 5 and all(w > 0 for w in widths)  # before and after, 5 cards
        faces = page.evaluate(
            "Array.from(document.querySelectorAll('article')).map(a => a.dataset.face)"
        )
        assert sorted(faces) == sorted(f"allied-planes/{s}-10" for s in SUITS)
        # side by side: the after picture sits to the right of the before picture
        before = page.locator("article figure.before img").first.bounding_box()
        after = page.locator("article figure.after img").first.bounding_box()
        assert before and after and after["x"] > before["x"] + before["width"] - 1
        assert abs(after["y"] - before["y"]) < 2
        # the changed words are marked
        assert page.locator("article .after ins").first.inner_text() == "every player"
        assert page.locator("article .before del").first.inner_text() == "anyone"
        browser.close()
    assert [u for u in requests if not u.startswith(("file:", "data:", "about:"))] == []

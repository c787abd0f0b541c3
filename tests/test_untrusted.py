"""Untrusted content, round two (one test or more per class of attack): no code runs, nothing is
read outside the project, nothing hangs or eats memory, and every failure is one located line."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT, run_pnp
from test_bad_inputs import CORPUS
from test_hostile_content import run_audited

CARD = "templates/layouts/mini/card.yaml"
COMP = "content/mini/components/cards.yaml"
GAME = "content/mini/game.yaml"
RULES_ES = "content/mini/rules/es.md"


def mini(dest):
    """The bad-input corpus's base game: two kinds of card, a PNG, an SVG, two rulebooks."""
    shutil.copytree(
        ROOT / "templates", dest / "templates", ignore=shutil.ignore_patterns("layouts")
    )
    shutil.copytree(CORPUS / "_base", dest, dirs_exist_ok=True)
    return dest


def edit(root, rel, old, new):
    path = root / rel
    text = path.read_text()
    assert old in text, (rel, old)
    path.write_text(text.replace(old, new, 1))


def one_line(result) -> str:
    """The single located error line of a failed run (and no traceback, no internal error)."""
    out = result.stdout + result.stderr
    assert "Traceback" not in out and "internal error" not in out, out
    lines = [
        ln
        for ln in result.stderr.splitlines()
        if ln.strip() and not ln.startswith(("pnp print: stopped", "0 error", "1 error"))
    ]
    assert len(lines) == 1, out
    return lines[0]


# ------------------------------------------------------------------ 1. code execution

EPS = """%!PS-Adobe-3.0 EPSF-3.0
%%BoundingBox: 0 0 10 10
({marker}) (w) file dup (ran) writestring closefile
showpage
"""


def test_eps_named_png_never_reaches_ghostscript(tmp_path):
    gs = shutil.which("gs")
    if not gs:
        pytest.skip("ghostscript not installed (apt-get install ghostscript)")
    root = mini(tmp_path / "p")
    marker = tmp_path / "outside" / "pwned"
    marker.parent.mkdir()
    payload = EPS.format(marker=marker)
    (root / "content/mini/art/photo.png").write_text(payload)
    # Control: the payload is live. Ghostscript without -dSAFER runs it and writes the marker.
    probe = tmp_path / "probe.eps"
    probe.write_text(payload)
    subprocess.run(
        [gs, "-q", "-dNOSAFER", "-dBATCH", "-dNOPAUSE", "-sDEVICE=nullpage", str(probe)],
        capture_output=True,
        timeout=60,
    )
    assert marker.read_text() == "ran"
    marker.unlink()
    # Control: Pillow left to guess would hand this '.png' to Ghostscript.
    sniff = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.addaudithook(lambda e, a: e == 'subprocess.Popen' and "
            "print('EXEC', a[0], flush=True)); from PIL import Image; "
            f"im = Image.open({str(root / 'content/mini/art/photo.png')!r}); print(im.format)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "EPS" in sniff.stdout, sniff.stdout + sniff.stderr
    # pnp: a located error, no program started, nothing written.
    for command in ("check", "print"):
        result, log = run_audited(tmp_path, root, command)
        assert result.returncode in (1, 2)
        line = one_line(result) if command == "print" else result.stdout
        assert "content/mini/art/photo.png" in line and "not a PNG file" in line, line
        assert "EXEC" not in log, [ln for ln in log.splitlines() if ln.startswith("EXEC")]
        assert not marker.exists()
    assert not (root / "output").exists()


def test_jpeg_declared_art_refuses_a_png(tmp_path):
    root = mini(tmp_path / "p")
    shutil.copy(root / "content/mini/art/photo.png", root / "content/mini/art/photo.jpg")
    edit(root, CARD, "src: art/photo.png", "src: art/photo.jpg")
    result = run_pnp(root, "check")
    assert result.returncode == 1
    assert "photo.jpg" in result.stdout and "not a JPEG file" in result.stdout


# ------------------------------------------------------------------ 2. reads outside the project


def test_symlinked_rulebook_and_component_are_refused_and_never_read(tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("# Secret\n\n## 1 Secret\n\nTOP SECRET TEXT\n")
    for rel in (RULES_ES, COMP):
        root = mini(tmp_path / rel.replace("/", "_"))
        (root / rel).unlink()
        (root / rel).symlink_to(secret)
        result, log = run_audited(tmp_path, root, "print")
        line = one_line(result)
        assert result.returncode == 2, line
        assert rel in line and "resolves outside the project" in line, line
        opened = [ln[5:] for ln in log.splitlines() if ln.startswith("OPEN ")]
        assert str(secret) not in opened  # the audit log holds real paths: an escape would show
        assert not (root / "output").exists()


@pytest.mark.parametrize("special", ["fifo", "dev-zero", "big-file"])
def test_special_and_huge_files_in_the_game_folder(tmp_path, special):
    """A FIFO blocks a reader forever, /dev/zero never ends, a huge file fills memory: the
    build neither hangs nor reads them whole (bounded by pytest's own timeout on run_pnp)."""
    root = mini(tmp_path / "p")
    art = root / "content/mini/art"
    if special == "fifo":
        os.mkfifo(art / "pipe.png")
    elif special == "dev-zero":
        (art / "zero.png").symlink_to("/dev/zero")
    else:
        with open(art / "huge.png", "wb") as fh:  # sparse: 3 GB on paper, nothing on disk
            fh.truncate(3 * 1024**3)
    name = {"fifo": "pipe.png", "dev-zero": "zero.png", "big-file": "huge.png"}[special]
    # Unused, the file is skipped by the build's hashing; the game builds.
    result = run_pnp(root, "print", "-j", "1")
    assert result.returncode == 0, result.stdout + result.stderr
    # Used as art, it is one located error.
    edit(root, CARD, "src: art/photo.png", f"src: art/{name}")
    result = run_pnp(root, "check")
    assert result.returncode == 1
    assert f"art/{name}" in result.stdout, result.stdout
    expected = {
        "fifo": "not a regular file",
        "dev-zero": "outside the project",
        "big-file": "over the limit",
    }
    assert expected[special] in result.stdout, result.stdout


def test_symlinked_lock_is_refused_and_its_target_untouched(tmp_path):
    root = mini(tmp_path / "p")
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (root / ".pnp.lock").symlink_to(victim)
    result = run_pnp(root, "print")
    assert result.returncode == 2
    assert ".pnp.lock" in one_line(result) and "symlink" in one_line(result)
    assert victim.read_text() == "precious"


def test_lock_that_is_a_directory_is_a_located_error(tmp_path):
    root = mini(tmp_path / "p")
    (root / ".pnp.lock").mkdir()
    result = run_pnp(root, "print")
    assert result.returncode == 2 and ".pnp.lock" in one_line(result)

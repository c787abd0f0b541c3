"""A project of one's own: `pnp init`, pnp's defaults overridden file by file, `pnp templates`,
and the project found from any folder below it (pnp.toml)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import PNP, ROOT, run_pnp


def _init(tmp_path: Path, *args: str) -> tuple[Path, subprocess.CompletedProcess]:
    from generator.commands import cli

    root = tmp_path / "games"
    out, err = io.StringIO(), io.StringIO()
    import contextlib

    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(["init", str(root), *args])
    return root, subprocess.CompletedProcess([], code, out.getvalue(), err.getvalue())


def test_init_makes_a_project_and_refuses_to_make_it_twice(tmp_path):
    root, result = _init(tmp_path, "--name", "Rainy-day games", "--game", "g", "--langs", "en")
    assert result.returncode == 0, result.stderr
    assert (root / "pnp.toml").read_text().endswith('name = "Rainy-day games"\n')
    assert (root / ".gitignore").read_text().splitlines()[1:] == ["/output/", "/.pnp.lock"]
    assert "pnp new GAME" in (root / "README.md").read_text()
    assert (root / "content/g/game.yaml").is_file() and not (root / "templates").exists()
    again = run_pnp(root, "init", str(root))
    assert again.returncode == 2 and "already a pnp project" in again.stderr
    inner = run_pnp(root, "init", str(root / "content" / "sub"))
    assert inner.returncode == 2 and "inside the pnp project" in inner.stderr
    assert not (root / "content" / "sub").exists()


def test_init_keeps_what_a_folder_already_has(tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "README.md").write_text("my notes\n")
    (folder / ".gitignore").write_text("*.tmp")  # no final newline
    _root, result = _init(tmp_path)
    assert result.returncode == 0, result.stderr
    assert (folder / "README.md").read_text() == "my notes\n"
    assert (folder / ".gitignore").read_text() == "*.tmp\n/output/\n"


def test_pnp_finds_the_project_from_a_subfolder_and_says_how_in_its_help(tmp_path):
    root, _ = _init(tmp_path, "--game", "g", "--langs", "en")
    deep = root / "content" / "g" / "rules"
    env = {k: v for k, v in os.environ.items() if k != "PNP_ROOT"}
    env["PYTHONPATH"] = str(ROOT)
    found = subprocess.run(
        [*PNP, "check", "--format", "json"], cwd=deep, env=env, capture_output=True, text=True
    )
    assert found.returncode == 0, found.stderr
    assert json.loads(found.stdout) == []
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    lost = subprocess.run([*PNP, "check"], cwd=nowhere, env=env, capture_output=True, text=True)
    assert lost.returncode == 2 and "pnp init" in lost.stderr
    helped = subprocess.run([*PNP, "--help"], env=env, capture_output=True, text=True)
    assert "PNP_ROOT" in helped.stdout and "pnp.toml" in helped.stdout


def test_a_project_file_overrides_the_default_of_the_same_name_only(tmp_path):
    """templates/paper.yaml alone: its own paper is known, card sizes still come from pnp."""
    root, _ = _init(tmp_path, "--game", "g", "--langs", "en")
    (root / "templates").mkdir()
    (root / "templates/paper.yaml").write_text(
        "a4: {w: 210mm, h: 297mm}\ntabloid: {w: 11in, h: 17in}\n"
    )
    game = root / "content/g/game.yaml"
    game.write_text(game.read_text().replace("papers: [a4, letter]", "papers: [tabloid]"))
    run_pnp(root, "print", "g", check=True)
    from pdfutil import page_size_mm

    w, h = page_size_mm(root / "output/g/en/cards-tabloid.pdf", 1)
    assert (round(w, 1), round(h, 1)) == (279.4, 431.8)
    # the paper the project's file no longer has is unknown: its file replaced pnp's
    game.write_text(game.read_text().replace("papers: [tabloid]", "papers: [letter]"))
    result = run_pnp(root, "check", "g")
    assert result.returncode != 0 and "letter" in result.stdout + result.stderr


def test_eject_copies_one_default_and_an_edit_rebuilds_what_reads_it(tmp_path):
    root, _ = _init(tmp_path, "--game", "g", "--langs", "en")
    run_pnp(root, "print", "g", "--paper", "a4", check=True)
    listed = run_pnp(root, "templates", "list", check=True).stdout.splitlines()
    assert "rulebook/rulebook.css" in listed and "fonts/fonts.yaml" in listed
    assert not [line for line in listed if line.startswith("layouts/") and "/base/" not in line]
    ejected = run_pnp(root, "templates", "eject", "rulebook.css", check=True)
    css = root / "templates/rulebook/rulebook.css"
    assert "wrote templates/rulebook/rulebook.css" in ejected.stdout
    assert css.read_bytes() == (ROOT / "templates/rulebook/rulebook.css").read_bytes()
    assert "(yours: templates/rulebook/rulebook.css)" in "\n".join(
        run_pnp(root, "templates", "list").stdout.splitlines()
    )
    same = run_pnp(root, "print", "g", "--paper", "a4", check=True)
    assert "0 of" in same.stdout  # a copy of the default changes nothing
    css.write_text(css.read_text() + "\nh2 { color: #a01010; }\n")
    edited = run_pnp(root, "print", "g", "--paper", "a4", check=True)
    assert "1 of" in edited.stdout  # the rulebook, not the cards
    twice = run_pnp(root, "templates", "eject", "rulebook/rulebook.css")
    assert twice.returncode == 2 and "exists already" in twice.stderr
    wrong = run_pnp(root, "templates", "eject", "rulebok.css")
    assert wrong.returncode == 2 and "did you mean" in wrong.stderr
    escape = run_pnp(root, "templates", "eject", "../pyproject.toml")
    assert escape.returncode == 2 and "not a template name" in escape.stderr
    here = run_pnp(ROOT, "templates", "eject", "paper.yaml")  # this repository: they are its own
    assert here.returncode == 2 and "are pnp's defaults already" in here.stderr


def test_a_fonts_file_of_the_project_may_name_pnps_font_files(tmp_path):
    root, _ = _init(tmp_path, "--game", "g", "--langs", "en")
    run_pnp(root, "templates", "eject", "fonts/fonts.yaml", check=True)
    assert sorted(p.name for p in (root / "templates/fonts").iterdir()) == ["fonts.yaml"]
    result = run_pnp(root, "render", "g", "cards", "scout", "-o", str(tmp_path / "s.pdf"))
    assert result.returncode == 0, result.stderr
    from pdfutil import font_is_embedded, fonts

    used = fonts(tmp_path / "s.pdf")
    assert used and all(font_is_embedded(f) for f in used)
    # a fonts folder without a fonts.yaml: pnp's, file by file
    (root / "templates/fonts/fonts.yaml").unlink()
    again = run_pnp(root, "render", "g", "cards", "scout", "-o", str(tmp_path / "t.pdf"))
    assert again.returncode == 0, again.stderr


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_this_repository_is_still_a_project_of_its_own():
    from generator.load.project import DEFAULTS, find_project

    project = find_project(ROOT / "content" / "dogfight")
    assert project.root == ROOT and project.own_defaults
    assert DEFAULTS == ROOT / "templates"  # a source checkout reads its own templates/

"""Untrusted content, round three, the last gaps: a time limit that holds in a serial build, a
packer that always ends, an `i18n import` that is one transaction against a full disk or a
power cut, and errors located at the key at fault."""

from __future__ import annotations

from pathlib import Path

from test_untrusted import mini

# ------------------------------------------------------------------ a project's root


def test_a_relative_root_is_the_same_project_as_its_absolute_path(tmp_path, monkeypatch):
    """`Project(Path("."))` is resolved: the model loaded through it (and cached under the
    resolved path) holds absolute paths, so a later load by the absolute path from another
    folder reads files that exist and renders the rulebook (main cached '.'-relative paths,
    which broke as soon as the working folder changed)."""
    from generator.load.content import load_game
    from generator.load.project import Project
    from generator.rulebook import book

    root = mini(tmp_path / "p")
    monkeypatch.chdir(root)
    first = load_game(Project(Path(".")), "mini")
    assert first.project.root == root.resolve()
    monkeypatch.chdir(tmp_path)
    again = load_game(Project(root), "mini")
    assert again.dir.is_absolute() and (again.dir / "game.yaml").is_file(), again.dir
    out = tmp_path / "rules.pdf"
    info = book.render_rulebook(again, "es", "a4", out)
    assert info["pages"] >= 1 and out.stat().st_size > 1000

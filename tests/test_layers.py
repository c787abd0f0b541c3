"""The stages of generator/ as layers (docs/architecture-layers.md): the import contracts hold,
every import left inside a function says the start-up time it buys, and the paths that must
start fast (`pnp --help`, a no-op `pnp print` answered by the kit stamp) stay light."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("pydantic", "reportlab", "weasyprint", "jinja2", "pikepdf")


def _loaded_after(*modules: str) -> list[str]:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in modules)
        + f"print(' '.join(m for m in {HEAVY!r} if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return result.stdout.split()


def test_the_cli_itself_imports_no_heavy_library():
    assert _loaded_after("generator.commands.cli") == []


def test_a_no_op_print_imports_no_content_model():
    """What `pnp print` imports before the kit stamp says whether anything changed: the lock,
    the options and the stamp, not pydantic, Jinja or ReportLab (about 120 more modules)."""
    assert (
        _loaded_after("generator.commands.cli", "generator.build.run", "generator.build.stamp")
        == []
    )


def test_every_deferred_import_says_why():
    sys.path.insert(0, str(ROOT / "tests" / "tools"))
    try:
        import deferred_imports
    finally:
        sys.path.pop(0)
    assert deferred_imports.main(["--check"]) == 0


def test_the_import_contracts_hold():
    lint = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    if lint is None:
        pytest.skip("import-linter is not installed (pip install -e '.[dev]')")
    result = subprocess.run([lint], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]
    assert "0 broken" in result.stdout


def test_checking_a_game_without_rulebooks_imports_no_rulebook_code(tmp_path):
    """The rulebook check of a game with no rules/ answers before importing the rulebook's
    modules (markdown-it, about 20 ms; WeasyPrint)."""
    game = tmp_path / "content" / "mini"
    (game / "components").mkdir(parents=True)
    (tmp_path / "templates" / "layouts").mkdir(parents=True)
    (game / "game.yaml").write_text("id: mini\ntitle: Mini\nlanguages: [en]\n")
    (game / "components" / "cards.yaml").write_text(
        "id: cards\nname: Cards\nsize: poker\nlayout: card\nitems:\n  - {id: a}\n"
    )
    (game / "manifest.yaml").write_text("components: {cards: 1}\n")
    (tmp_path / "templates" / "layouts" / "card.yaml").write_text(
        'boxes:\n  - {id: t, kind: text, text: "A", x: 5, y: 5, w: 40, h: 10}\n'
    )
    code = (
        "import sys\nfrom generator.commands import cli\n"
        f"status = cli.main(['--root', {str(tmp_path)!r}, 'check'])\n"
        "print('loaded:', status, *(m for m in ('markdown_it', 'weasyprint', "
        "'generator.rulebook.book') if m in sys.modules))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    loaded = result.stdout.split("loaded:")[-1].split()
    assert loaded == ["0"], result.stdout + result.stderr

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

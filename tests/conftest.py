"""Shared fixtures: a private copy of the project, built once per test session through the CLI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PNP = [sys.executable, "-m", "generator"]
MM = 72 / 25.4


def copy_project(dest: Path, games: tuple[str, ...] | None = None) -> Path:
    """content/ and templates/ of the real project, copied so tests may change them."""
    shutil.copytree(ROOT / "templates", dest / "templates")
    (dest / "content").mkdir(parents=True)
    for game in games or [
        p.name for p in (ROOT / "content").iterdir() if (p / "game.yaml").exists()
    ]:
        shutil.copytree(ROOT / "content" / game, dest / "content" / game)
    return dest


def run_pnp(root: Path, *args: str, check: bool = False) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PNP_ROOT", None)
    result = subprocess.run(
        [*PNP, "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=600,
    )
    if check and result.returncode != 0:
        raise AssertionError(
            f"pnp {' '.join(args)} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
        )
    return result


class Built:
    def __init__(self, root: Path):
        self.root = root

    def manifest(self, game: str) -> dict:
        return json.loads((self.root / "output" / game / "build-manifest.json").read_text())

    def path(self, rel: str) -> Path:
        return self.root / rel


@pytest.fixture(scope="session")
def built(tmp_path_factory) -> Built:
    """Every game built into a fresh copy of the project, exactly as `make print` does it."""
    root = copy_project(tmp_path_factory.mktemp("project"))
    run_pnp(root, "print", check=True)
    return Built(root)


@pytest.fixture
def dogfight_copy(tmp_path) -> Path:
    return copy_project(tmp_path / "proj", ("dogfight",))


def pytest_terminal_summary(terminalreporter):
    """Say how many bad-input cases ran (the corpus in tests/bad_inputs/)."""
    passed = [r for r in terminalreporter.stats.get("passed", []) if "test_bad_input[" in r.nodeid]
    failed = [r for r in terminalreporter.stats.get("failed", []) if "test_bad_input[" in r.nodeid]
    if passed or failed:
        terminalreporter.write_line(
            f"bad-input corpus: {len(passed)} of {len(passed) + len(failed)} cases passed"
        )

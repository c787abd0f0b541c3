"""pnp as an installed tool: the wheel alone makes and builds a project anywhere.

In a temporary folder outside the repository: build the wheel, install it into a fresh virtual
environment, then `pnp init`, `pnp new`, `pnp check`, `pnp print`, `pnp preview` there, with no
file of this repository copied into the project. The fast variant installs the wheel without
its dependencies into a venv that sees this checkout's .venv packages (a .pth line); the slow
one installs everything from the package index, as a designer's `pip install` does.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT
from pdfutil import font_is_embedded, fonts

PIP = (sys.executable, "-m", "pip")
SOURCES = ("pyproject.toml", "setup.py", "README.md", "generator", "templates")


def _wheel(tmp: Path) -> Path:
    """The wheel, built from a copy of the sources (a build writes build/ and *.egg-info beside
    them: never into the checkout), with this interpreter's setuptools (no network)."""
    src = tmp / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in SOURCES:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, src / name, ignore=ignore)
        else:
            shutil.copy2(path, src / name)
    dist = tmp / "dist"
    built = subprocess.run(
        [*PIP, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(dist), str(src)],
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    # Every folder of defaults is declared, so setuptools has nothing to warn about.
    assert "absent from the `packages` configuration" not in built.stdout + built.stderr
    (wheel,) = dist.glob("pnp-*.whl")
    return wheel


def _venv(folder: Path, see_ours: bool) -> Path:
    """A fresh venv (no pip: this interpreter's pip installs into it with --python); with
    `see_ours`, a .pth line puts this checkout's installed packages after its own."""
    venv.EnvBuilder(with_pip=False, clear=True).create(folder)
    python = folder / "bin" / "python"
    if see_ours:
        purelib = subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            check=True,
            capture_output=True,
            text=True,
        ).stdout.strip()
        ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
        Path(purelib, "zz-pnp-test-deps.pth").write_text("\n".join(sorted(ours)) + "\n")
    return python


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PNP_", "PYTHON"))}
    env["PNP_CACHE_DIR"] = "off"  # nothing from a cache another pnp filled
    return env


def _pnp(venv_dir: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    result = subprocess.run(
        [str(venv_dir / "bin" / "pnp"), *args],
        cwd=cwd,
        env=_env(),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"pnp {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
    return result


def _try_the_installed_pnp(tmp: Path, venv_dir: Path) -> None:
    python = venv_dir / "bin" / "python"
    where = subprocess.run(
        [str(python), "-c", "import generator.load.project as p; print(p.__file__, p.DEFAULTS)"],
        cwd=tmp,
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    # the installed package, and its own defaults: nothing read from this checkout
    assert Path(where[0]).is_relative_to(venv_dir), where
    assert Path(where[1]) == Path(where[0]).parents[1] / "defaults", where

    work = tmp / "somewhere"
    work.mkdir()
    _pnp(venv_dir, work, "init", "my-games", "--game", "my-game", "--langs", "en,es")
    project = work / "my-games"
    assert (project / "pnp.toml").read_text().count('name = "my-games"') == 1
    assert "/output/" in (project / ".gitignore").read_text().splitlines()
    assert (project / "README.md").is_file()
    assert not (project / "templates").exists()  # pnp's defaults are in the wheel

    deep = project / "content" / "my-game" / "components"
    _pnp(venv_dir, deep, "new", "second-game", "--langs", "en")  # found from a subfolder
    assert (project / "content" / "second-game" / "game.yaml").is_file()
    checked = _pnp(venv_dir, deep, "check", "--format", "json")
    assert json.loads(checked.stdout) == []
    _pnp(venv_dir, project, "print", "--paper", "a4")
    _pnp(venv_dir, project, "preview", "my-game")

    manifest = json.loads((project / "output/my-game/build-manifest.json").read_text())
    kinds = {(f["kind"], f["lang"]) for f in manifest["files"]}
    assert {("components", "en"), ("components", "es"), ("rulebook", "en")} <= kinds
    cards = project / "output/my-game/es/cards-a4.pdf"
    used = fonts(cards)
    assert used and all(font_is_embedded(f) for f in used)
    assert any("PnPGothic" in str(f.get("/BaseFont")) for f in used)
    rulebook = fonts(project / "output/my-game/en/rulebook.pdf")
    assert any("PnP" in str(f.get("/BaseFont")) for f in rulebook), rulebook
    assert (project / "output/second-game/en/cards-a4.pdf").is_file()
    assert (project / "output/my-game/preview/index.html").is_file()
    # a default overridden by the project, file by file
    _pnp(venv_dir, project, "templates", "eject", "paper.yaml")
    paper = project / "templates" / "paper.yaml"
    assert paper.is_file() and not (project / "templates" / "card-sizes.yaml").exists()
    _pnp(venv_dir, project, "check")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return _wheel(tmp_path_factory.mktemp("wheel"))


def test_the_wheel_carries_every_default(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {n.split("generator/defaults/", 1)[1] for n in names if "generator/defaults/" in n}
    templates = ROOT / "templates"
    for folder in ("fonts", "languages", "rulebook", "guide", "starter", "layouts/base"):
        for path in (templates / folder).rglob("*"):
            if path.is_file() and "__pycache__" not in path.parts:
                assert path.relative_to(templates).as_posix() in shipped, path
    for name in ("paper.yaml", "card-sizes.yaml", "printers.yaml"):
        assert name in shipped
    # this repository's games are a project like any other: their layouts are not defaults
    assert not [n for n in shipped if n.startswith("layouts/") and "/base/" not in n]
    assert not [n for n in names if n.endswith(".pyc")]


@pytest.mark.slow  # a new virtualenv, the wheel installed, a project built by its pnp
def test_the_installed_wheel_makes_a_project_anywhere(tmp_path, wheel):
    venv_dir = tmp_path / "venv"
    _venv(venv_dir, see_ours=True)
    python = str(venv_dir / "bin" / "python")
    subprocess.run(
        [*PIP, "--python", python, "install", "-q", "--no-deps", "--no-index", str(wheel)],
        check=True,
        capture_output=True,
        timeout=300,
    )
    _try_the_installed_pnp(tmp_path, venv_dir)


@pytest.mark.slow
def test_pip_install_from_the_index_then_a_project(tmp_path, wheel):
    """What a designer does: a fresh venv, `pip install` of the wheel with its dependencies."""
    venv_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
    result = subprocess.run(
        [str(venv_dir / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
        capture_output=True,
        text=True,
        timeout=1200,
    )
    if result.returncode != 0 and "No matching distribution" in result.stderr:
        pytest.skip(f"the package index cannot be reached: {result.stderr[-300:]}")
    assert result.returncode == 0, result.stderr[-3000:]
    _try_the_installed_pnp(tmp_path, venv_dir)

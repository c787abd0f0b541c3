"""The guide cannot rot: the tutorial's commands run, and the reference matches the models."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

DOCS = ROOT / "docs"


def sh_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.S | re.M)


@pytest.mark.slow
def test_the_tutorial_runs_as_written(tmp_path):
    project = tmp_path / "project"
    shutil.copytree(ROOT / "templates", project / "templates")
    (project / "content").mkdir()
    blocks = sh_blocks((DOCS / "tutorial.md").read_text(encoding="utf-8"))
    assert len(blocks) >= 6
    script = "\n".join(
        [
            "set -euo pipefail",
            f'pnp() {{ "{sys.executable}" -m generator "$@"; }}',
            *blocks,
        ]
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PNP_ROOT", None)
    result = subprocess.run(
        ["bash", "-c", script], cwd=project, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # What the tutorial says happened, happened.
    assert (project / "output/my-game/render/cards-wizard-en-front.png").exists()
    assert (project / "output/knight-back.png").exists()
    assert (project / "output/my-game/preview/index.html").exists()
    assert (project / "output/my-game/en/cards-a4.pdf").exists()
    assert "Wizard" in (project / "content/my-game/components/cards.yaml").read_text()


def test_the_reference_is_written_from_the_models():
    from generator.commands.reference import reference

    on_disk = (DOCS / "reference.md").read_text(encoding="utf-8")
    assert on_disk == reference(), (
        "docs/reference.md is out of date: "
        "python -m generator.commands.reference > docs/reference.md"
    )


def test_every_box_kind_and_content_file_is_in_the_reference():
    from generator.render.boxes import ORDER

    text = (DOCS / "reference.md").read_text(encoding="utf-8")
    for kind in ORDER:
        assert f"### {kind.model.__name__}" in text
    for name in ("game.yaml", "Components", "manifest.yaml", "Layouts"):
        assert f"## {name}" in text

"""What a command hashes to find its kept work (the content model, the build stamps) is read
once per state of each file in a process, and an edit is always seen by the next command.

A watch loop or a test run runs many commands in one process; each used to read and hash
pnp's templates and the unchanged game again (project.digest_tree). A file's digest is now kept
under its inode, size, modification and change time: an edit that restores the size and the
modification time (rsync -t, some editors) still changes the change time.
"""

from __future__ import annotations

import json
import os
import shutil

from conftest import ROOT, run_pnp

CARDS = "content/mini/components/cards.yaml"


def _errors(root) -> list[dict]:
    result = run_pnp(root, "check", "--format", "json")
    return [f for f in json.loads(result.stdout) if f["severity"] == "error"]


def test_a_small_file_edited_keeping_size_and_mtime_is_seen_by_the_next_command(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))  # the model cache on
    root = tmp_path / "p"
    shutil.copytree(ROOT / "tests/bad_inputs/_base", root)
    assert _errors(root) == []
    path = root / CARDS
    info = path.stat()
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("layout: mini/card", "layout: mini/cxrd"), encoding="utf-8")
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert path.stat().st_size == info.st_size and path.stat().st_mtime_ns == info.st_mtime_ns
    errors = _errors(root)
    assert errors and all("mini/cxrd" in f["message"] for f in errors), errors

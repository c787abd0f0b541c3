"""The bad-input corpus (tests/bad_inputs/): every case gives exactly one clear message,
the right exit code, file, line and key, no traceback, and writes nothing to output/."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
import yaml
from conftest import run_pnp

from generator.errors import ContentError
from generator.load.yamlload import load_yaml

CORPUS = Path(__file__).resolve().parent / "bad_inputs"
CASES = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and p.name[:2].isdigit())


def build_tree(case: str, dest: Path) -> Path:
    # Fonts, paper and card sizes, the rulebook page templates: pnp's own (no copy, as in a
    # project made by `pnp init`); the base's layouts and the case's files over them.
    shutil.copytree(CORPUS / "_base", dest, dirs_exist_ok=True)
    tree = CORPUS / case / "tree"
    for src in sorted(tree.rglob("*")):
        target = dest / src.relative_to(tree)
        if src.is_dir():
            if target.is_file():
                target.unlink()
            target.mkdir(parents=True, exist_ok=True)
        elif src.name != ".keep":
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, target)
    # Things a folder of files cannot hold: symlinks (out of the project) and FIFOs.
    expected = yaml.safe_load((CORPUS / case / "expected.yaml").read_text()) or {}
    outside = dest.parent / "outside-secret.txt"
    outside.write_text("TOP SECRET: never to be read by pnp\n")
    for rel, to in (expected.get("links") or {}).items():
        (dest / rel).unlink(missing_ok=True)
        (dest / rel).parent.mkdir(parents=True, exist_ok=True)
        (dest / rel).symlink_to(outside if to == "@outside" else to)
    for rel in expected.get("fifos") or []:
        (dest / rel).unlink(missing_ok=True)
        os.mkfifo(dest / rel)
    return dest


def test_corpus_is_big_enough():
    print(f"\nbad-input corpus: {len(CASES)} cases")
    assert len(CASES) >= 110


def test_base_tree_is_clean(tmp_path):
    root = build_tree(CASES[0], tmp_path / "p")
    shutil.copy(
        CORPUS / "_base/content/mini/components/cards.yaml",
        root / "content/mini/components/cards.yaml",
    )
    result = run_pnp(root, "check")
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("case", CASES)
def test_bad_input(tmp_path, case):
    expected = yaml.safe_load((CORPUS / case / "expected.yaml").read_text())
    root = build_tree(case, tmp_path / "p")
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode == expected["exit"], result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    findings = [f for f in json.loads(result.stdout) if f["severity"] == "error"]
    assert len(findings) == 1, findings
    found = findings[0]
    for field in ("code", "file", "line", "key", "cell"):
        if field in expected:
            assert found.get(field) == expected[field], (field, found)
    if "message" in expected:
        assert expected["message"] in found["message"] + " " + found.get("hint", ""), found
    # The same through `pnp print`: one line, same exit code, nothing written.
    printed = run_pnp(root, "print")
    assert printed.returncode == expected["exit"]
    text = printed.stderr.strip().splitlines()
    lines = [t for t in text if not t.startswith(("pnp print: stopped", "0 error", "1 error"))]
    assert len(lines) == 1, text
    assert expected.get("file", "") in lines[0]
    if expected.get("cell"):
        assert f":{expected['cell']}:" in lines[0]
    if expected.get("line"):
        assert f":{expected['line']}:" in lines[0]
    assert not (root / "output").exists()


def test_unreadable_file_is_one_clear_error(tmp_path, monkeypatch):
    """Root can read any file, so the permission error is simulated where pnp reads."""
    path = tmp_path / "cards.yaml"
    path.write_text("id: x\n")

    real_open = os.open

    def refuse(file, *args, **kwargs):
        if os.fspath(file) == str(path):
            raise PermissionError(13, "Permission denied")
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(os, "open", refuse)
    with pytest.raises(ContentError) as info:
        load_yaml(path)
    assert info.value.code == "unreadable" and "permission denied" in info.value.format()


def test_leading_bom_is_accepted(tmp_path):
    path = tmp_path / "a.yaml"
    path.write_bytes("\ufeffid: x\n".encode("utf-8"))
    assert load_yaml(path) == {"id": "x"}


def test_a_large_deck_is_no_alias_bomb_but_a_small_bomb_still_is(tmp_path, monkeypatch):
    """20,000 cards (the copies a game may hold) are about 220,000 YAML nodes: more than the
    alias budget of 200,000, yet nothing is expanded. The same at a tenth of the scale, with
    the budget a tenth too (a 20,000-card file takes seconds to load). A file that expands
    aliases past the budget is still refused, with or without an ampersand in its text."""
    from generator.load import yamlload

    monkeypatch.setattr(yamlload, "MAX_EXPANDED_NODES", yamlload.MAX_EXPANDED_NODES // 10)
    deck = tmp_path / "cards.yaml"
    items = "".join(
        f"  - {{id: c{i}, data: {{title: Card {i}, number: {i % 100}, body: R&D {i}}}}}\n"
        for i in range(2_000)
    )
    deck.write_text(f"id: cards\nitems:\n{items}")
    loaded = load_yaml(deck)
    assert len(loaded["items"]) == 2_000 and loaded["items"][-1]["data"]["body"] == "R&D 1999"

    bomb = tmp_path / "bomb.yaml"
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 7)]
    bomb.write_text("\n".join(lines) + "\n")
    with pytest.raises(ContentError) as info:
        load_yaml(bomb)
    assert info.value.code == "alias-bomb"

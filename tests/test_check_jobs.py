"""`pnp check` of several games in two forked workers (check.check_games) finds exactly what one
process finds, in the same order, with the same exit code."""

from __future__ import annotations

import json

import pytest
from conftest import copy_project, spawn_pnp


@pytest.mark.slow  # two real processes, each checking two whole games, one with forked workers
def test_two_workers_find_what_one_process_finds(tmp_path, monkeypatch):
    root = copy_project(tmp_path / "proj", ("red-code", "the-hunt-begins"))
    # a broken face in one game, so the split has errors to carry back
    cards = root / "content/red-code/components/order-cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    (root / "templates/layouts/red-code/order.yaml").write_text(
        "boxes:\n  - {id: t, kind: text, text: '{{ no_such_name }}', x: 1, y: 1, w: 5, h: 5}\n",
        encoding="utf-8",
    )
    runs = {}
    for jobs in ("1", "2"):
        monkeypatch.setenv("PNP_CHECK_JOBS", jobs)
        # the smaller game first: the workers take the bigger one first, the report must not
        result = spawn_pnp(
            root, "check", "the-hunt-begins", "red-code", "--format", "json", "--show-accepted"
        )
        runs[jobs] = (result.returncode, json.loads(result.stdout))
    assert runs["1"] == runs["2"]
    code, findings = runs["2"]
    assert code == 1
    games = [f["game"] for f in findings]
    assert games == sorted(games, key=["the-hunt-begins", "red-code"].index)
    assert set(games) == {"red-code", "the-hunt-begins"}
    assert any(f["code"] == "template" and "no_such_name" in f["message"] for f in findings)

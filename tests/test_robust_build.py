"""A killed build loses nothing; two builds at once do not corrupt each other."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest
from conftest import ROOT, copy_project, run_pnp
from pdfutil import reader

BIG = 400  # cards: enough for the build to be caught in the middle


def _add_big_game(root):
    game = root / "content/big"
    (game / "components").mkdir(parents=True)
    (game / "game.yaml").write_text(
        "id: big\ntitle: Big\nlanguages: [en, es]\nprint: {papers: [a4, letter]}\n"
    )
    items = "\n".join(f"  - {{id: c{i}, data: {{n: {i}}}}}" for i in range(BIG))
    for deck in ("one", "two", "three"):
        (game / f"components/{deck}.yaml").write_text(
            f"id: {deck}\nname: {deck}\nsize: poker\n"
            "layout: dogfight/plane-back\nback: dogfight/reward-back\n"
            f"data: {{deck: {deck}}}\nitems:\n{items}\n"
        )
    (game / "manifest.yaml").write_text(f"components: {{one: {BIG}, two: {BIG}, three: {BIG}}}\n")


def _env():
    return dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.mark.slow  # a real process killed mid-build, then two full rebuilds
def test_sigkill_mid_build_keeps_every_previous_output_and_the_next_build_repairs(tmp_path):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    _add_big_game(root)
    game = root / "content/dogfight/game.yaml"  # the default exports keep this test quick
    game.write_text(re.sub(r"exports: \[.*\]", "exports: [sheets, print-shop]", game.read_text()))
    run_pnp(root, "print", check=True)
    manifest = json.loads((root / "output/big/build-manifest.json").read_text())
    before = {f["path"]: f["pages"] for f in manifest["files"] if f["path"].endswith(".pdf")}
    # Change every big deck, so everything rebuilds, and kill the build while it writes.
    for deck in ("one", "two", "three"):
        path = root / f"content/big/components/{deck}.yaml"
        path.write_text(path.read_text().replace("data: {deck:", "data: {extra: 1, deck:"))
    proc = subprocess.Popen(
        [sys.executable, "-m", "generator", "--root", str(root), "print", "-j", "2"],
        env=_env(),
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not list((root / "output/big").rglob(".*.tmp")):
        time.sleep(0.01)
    assert list((root / "output/big").rglob(".*.tmp")), "the build was never caught writing"
    os.killpg(proc.pid, signal.SIGKILL)  # the build and its workers
    proc.wait()
    for path, pages in before.items():  # old or new, every output is complete and readable
        assert len(reader.__wrapped__(root / path).pages) == pages, path
    result = run_pnp(root, "print", check=True)
    assert "files built" in result.stdout
    assert not list((root / "output").rglob("*.tmp"))
    again = run_pnp(root, "print", check=True)
    assert " 0 of " in again.stdout  # repaired: everything is now up to date


def test_second_build_gets_a_clear_message_while_one_runs(tmp_path):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    with open(root / ".pnp.lock", "a+") as held:  # as a running build holds it
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result = run_pnp(root, "print")
    assert result.returncode == 2
    assert "another pnp build is running" in result.stderr
    assert not (root / "output").exists()


@pytest.mark.slow  # two real processes race for the lock, each a full build
def test_two_builds_started_together_leave_a_good_build(tmp_path):
    root = copy_project(tmp_path / "proj", ("dogfight",))
    procs = [
        subprocess.Popen(
            [sys.executable, "-m", "generator", "--root", str(root), "print", "--export", "sheets"],
            env=_env(),
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    results = [(p.wait(), p.stdout.read(), p.stderr.read()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes in ([0, 0], [0, 2]), results  # the second waits its turn or is told to
    for code, _out, err in results:
        if code == 2:
            assert "another pnp build is running" in err
    manifest = json.loads((root / "output/dogfight/build-manifest.json").read_text())
    for f in manifest["files"]:
        if f["path"].endswith(".pdf"):
            assert len(reader.__wrapped__(root / f["path"]).pages) == f["pages"]

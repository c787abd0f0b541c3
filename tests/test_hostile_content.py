"""Content from someone else cannot read files, reach the network or run code.

pnp runs in a subprocess with a Python audit hook that records every file opened and every
socket event, so "nothing fetched or read" is observed, not assumed.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import ROOT

COMP = "content/dogfight/components/rewards.yaml"
LAYOUT = "templates/layouts/dogfight/reward.yaml"

RUNNER = r"""
import os, sys
log = open(sys.argv[1], "w", buffering=1)
def hook(event, args):
    # Resolved real paths: a symlink escaping the project shows where it really leads.
    if event == "open" and isinstance(args[0], (str, bytes)):
        path = os.fsdecode(args[0])
        log.write("OPEN " + os.path.realpath(path) + "\n")
    elif event.startswith("socket."):
        log.write("SOCKET " + event + "\n")
    elif event in ("subprocess.Popen", "os.exec", "os.posix_spawn", "os.spawn", "os.system"):
        log.write("EXEC " + event + " " + repr(args)[:200] + "\n")
sys.addaudithook(hook)
from generator.commands.cli import main
sys.exit(main(sys.argv[2:]))
"""


def run_audited(tmp_path, root, *args):
    runner = tmp_path / "runner.py"
    runner.write_text(RUNNER)
    log = tmp_path / "audit.log"
    result = subprocess.run(
        [sys.executable, str(runner), str(log), "--root", str(root), *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=root,
        timeout=300,
    )
    return result, log.read_text()


def edit(root, path, old, new):
    f = root / path
    text = f.read_text()
    assert old in text
    f.write_text(text.replace(old, new, 1))


HOSTILE = {
    "html image": (
        COMP,
        "subtitle: {es: Avión alemán derribado,",
        "subtitle: {es: '<img src=\"http://example.com/x.png\">',",
        "raw-html",
    ),
    "html link": (
        COMP,
        "subtitle: {es: Avión alemán derribado,",
        "subtitle: {es: '<link href=\"file:///etc/passwd\">',",
        "raw-html",
    ),
    "template escape": (
        COMP,
        "subtitle: {es: Avión alemán derribado,",
        "subtitle: {es: \"{{ ''.__class__.__mro__ }}\",",
        "refused by the sandbox",
    ),
    "python tag": (
        COMP,
        "kind: card",
        "kind: !!python/object/apply:os.system [touch /tmp/pwned]",
        "is not allowed",
    ),
    "absolute art": (
        LAYOUT,
        "src: art/german-plane.svg",
        "src: /etc/passwd",
        "is absolute; refused",
    ),
    "escaping art": (
        LAYOUT,
        "src: art/german-plane.svg",
        "src: ../../secret",
        "leaves the game folder",
    ),
}


# slow: a real process per case (its audit hook sees every file opened and every socket), each
# building Dogfight; test_symlink_escaping_the_game_folder_is_refused stays in `make test`
@pytest.mark.slow
@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_content_is_refused_and_nothing_is_fetched_or_read(tmp_path, dogfight_copy, name):
    root = dogfight_copy
    secret = root.parent / "secret"
    secret.write_text("TOP SECRET")
    path, old, new, refusal = HOSTILE[name]
    edit(root, path, old, new)
    result, log = run_audited(tmp_path, root, "print")
    output = result.stdout + result.stderr
    assert result.returncode in (1, 2), output
    assert refusal in output, output
    assert "Traceback" not in output
    assert "SOCKET" not in log
    opened = [line[5:] for line in log.splitlines() if line.startswith("OPEN ")]
    assert not any(
        p.endswith("/etc/passwd") or p == str(secret) or os.path.basename(p) == "secret"
        for p in opened
    ), [p for p in opened if "passwd" in p or "secret" in p]
    assert not os.path.exists("/tmp/pwned")
    assert not (root / "output").exists()


def test_symlink_escaping_the_game_folder_is_refused(tmp_path, dogfight_copy):
    root = dogfight_copy
    outside = tmp_path / "outside.svg"
    outside.write_text((root / "content/dogfight/art/german-plane.svg").read_text())
    (root / "content/dogfight/art/link.svg").symlink_to(outside)
    edit(root, LAYOUT, "src: art/german-plane.svg", "src: art/link.svg")
    result, log = run_audited(tmp_path, root, "check")
    assert result.returncode == 1 and "resolves outside the project" in result.stdout
    assert str(outside) not in [entry[5:] for entry in log.splitlines()]

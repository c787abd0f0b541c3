"""Broken content gives one clear line, file:line: key: what is wrong; hint. No traceback."""

from __future__ import annotations

import re

import pytest
from conftest import run_pnp

COMP = "content/dogfight/components/rewards.yaml"
LAYOUT = "templates/layouts/dogfight/reward.yaml"


def replace(path, old, new):
    def edit(root):
        f = root / path
        text = f.read_text()
        assert old in text, (path, old)
        f.write_text(text.replace(old, new, 1))

    return edit


def write(path, text):
    def edit(root):
        (root / path).write_text(text)

    return edit


# (name, edit, command, exit code, file:line it must name, words the message must contain)
CASES = [
    (
        "yaml syntax",
        replace(COMP, "kind: card", "kind: [card"),
        "check",
        2,
        f"{COMP}:",
        "YAML syntax error",
    ),
    ("tab indent", replace(COMP, "  deck:", "\tdeck:"), "check", 2, f"{COMP}:9", "tabs"),
    (
        "duplicate key",
        replace(COMP, "kind: card", "kind: card\nkind: token"),
        "check",
        2,
        f"{COMP}:5",
        "duplicate key 'kind'",
    ),
    (
        "wrong type",
        replace(COMP, "    value: [0, 1, 2, 3, 4]", "    value: [0, 1, 2, 3, 4]\n  count: many"),
        "check",
        2,
        f"{COMP}:32",
        "count",
    ),
    (
        "absurd count",
        replace(
            COMP, "    value: [0, 1, 2, 3, 4]", "    value: [0, 1, 2, 3, 4]\n  count: 1000000000"
        ),
        "check",
        2,
        f"{COMP}:32",
        "less than or equal to 1000",
    ),
    (
        "unknown key with hint",
        replace(COMP, "layout: dogfight/reward", "layuot: dogfight/reward"),
        "check",
        2,
        f"{COMP}:6",
        "unknown key 'layuot'; did you mean 'layout'?",
    ),
    (
        "misspelt box kind",
        replace(LAYOUT, "    kind: rect\n", "    kind: rectt\n"),
        "check",
        2,
        f"{LAYOUT}:5",
        "unknown box kind 'rectt'; did you mean 'rect'?",
    ),
    (
        "missing layout",
        replace(COMP, "layout: dogfight/reward", "layout: dogfight/rewardz"),
        "check",
        2,
        f"{COMP}",
        "no layout 'dogfight/rewardz' (rewardz.yaml not found); did you mean 'dogfight/reward'?",
    ),
    (
        "circular extends",
        write("templates/layouts/base/card.yaml", "extends: dogfight/reward\nboxes: []\n"),
        "check",
        2,
        "templates/layouts/",
        "circular extends",
    ),
    (
        "unclosed jinja",
        replace(COMP, 'es: "Descarta {{ [value, 1] | max }}', 'es: "Descarta {{ [value, 1] | max'),
        "check",
        1,
        f"{COMP}:",
        "template error",
    ),
    (
        "undefined data",
        replace(LAYOUT, 'text: "{{ subtitle }}"', 'text: "{{ subtitel }}"'),
        "check",
        1,
        f"{LAYOUT}:",
        "'subtitel' is undefined",
    ),
    (
        "python tag",
        replace(COMP, "kind: card", "kind: !!python/object/apply:os.system [ls]"),
        "check",
        2,
        f"{COMP}:4",
        "not allowed",
    ),
    (
        "non utf-8",
        lambda root: (root / COMP).write_bytes((root / COMP).read_bytes() + b"\nx: \xff\xfe\n"),
        "check",
        2,
        f"{COMP}:",
        "not valid UTF-8",
    ),
    ("empty file", write(COMP, ""), "check", 2, f"{COMP}:1", "empty"),
    (
        "art outside the project",
        replace(LAYOUT, "src: art/german-plane.svg", "src: ../../../../etc/passwd"),
        "check",
        1,
        f"{LAYOUT}:",
        "refused",
    ),
    (
        "unknown paper",
        replace("content/dogfight/game.yaml", "papers: [a4, letter]", "papers: [a5x]"),
        "print",
        2,
        "",
        "unknown paper 'a5x'",
    ),
]


@pytest.mark.parametrize("name,edit,command,code,where,words", CASES, ids=[c[0] for c in CASES])
def test_broken_content_gives_one_clear_line(
    dogfight_copy, name, edit, command, code, where, words
):
    edit(dogfight_copy)
    result = run_pnp(dogfight_copy, command)
    output = (result.stderr + result.stdout).strip()
    assert result.returncode == code, output
    assert "Traceback" not in output
    lines = [
        line
        for line in output.splitlines()
        if "error" in line
        and not re.match(r"^\d+ error", line)
        and not line.startswith("pnp print: stopped")
    ]
    assert len(lines) == 1, output
    assert where in lines[0] and words in lines[0], lines[0]
    if where:
        assert re.search(r"\.(yaml|svg):\d+: ", lines[0]), lines[0]
    assert not (dogfight_copy / "output").exists()  # nothing written, not even a folder

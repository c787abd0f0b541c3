"""What a first build does that a rebuild does not (load the YAML, check every face), kept
cheap without changing what it finds: no cyclic garbage per face, the collector handed back,
translation segments read without composing a file twice (docs/performance.md)."""

from __future__ import annotations

import gc
from types import SimpleNamespace

import pytest
from conftest import composed_files

from generator import session
from generator.commands import cli
from generator.errors import ContentError
from generator.i18n import segments as seg_mod
from generator.load import templating
from generator.load.yamlload import load_yaml


def test_a_face_context_leaves_no_cyclic_garbage():
    """A face's data templates are rendered per card: with 10,000 cards any reference cycle
    they leave is 10,000 cycles for the collector (render_data's closures were)."""

    def on_error(key, exc):
        return "?"

    def faces(count: int) -> None:
        for n in range(count):
            data = {"n": n, "title": "Card {{ n }}", "cost": "{{ n + 1 }}", "name": "x"}
            templating.render_data(data, on_error=on_error)
            assert data["title"] == f"Card {n}" and data["cost"] == str(n + 1)
            game = {"a": 2, "stats": {"b": "{{ a }}", "rows": [{"c": "{{ a + 1 }}"}]}}
            templating.render_data(game, nested=True)

    faces(1)  # compiling the templates once may leave garbage of its own
    gc.collect()
    enabled = gc.isenabled()
    gc.disable()
    try:
        faces(50)
        found = gc.collect()
    finally:
        if enabled:
            gc.enable()
    assert found == 0


@pytest.mark.parametrize("raising", [False, True])
def test_a_one_shot_check_hands_the_collector_back(monkeypatch, raising):
    """`pnp` loads and checks with the collector off; the drawing after them needs it on, and
    so does anything after a check that failed."""
    import generator.check as check

    def check_games(contents):
        assert not gc.isenabled()  # off while checking
        if raising:
            raise ContentError("boom")
        return []

    monkeypatch.setattr(cli, "_ONE_SHOT", True)
    monkeypatch.setattr(check, "check_games", check_games)
    assert gc.isenabled()
    was = session.frozen()  # the test process froze what its collection made (conftest.py)
    try:
        if raising:
            with pytest.raises(ContentError):
                cli._check([])
        else:
            assert cli._check([]) == []
        assert gc.isenabled()
    finally:
        if not was:
            session.unfreeze()


_PAUSED_PROBE = """
import gc, sys
from generator import session

class Node:
    pass

gc.collect()
if sys.argv[1] == "frozen":
    session.freeze()  # as a one-shot command does with what it loaded
before = gc.get_freeze_count()
count = gc.get_freeze_count
gc.get_freeze_count = None  # it walks every frozen object: the stretch's end must not ask it
with session.collector_paused():
    kept = [Node() for _ in range(50_000)]
    a, b = Node(), Node()
    a.b, b.a = b, a  # a cycle that does not live on
    del a, b
gc.get_freeze_count = count
oldest = any(o is kept for o in gc.get_objects(generation=2))
young = any(o is kept for o in gc.get_objects(generation=0) + gc.get_objects(generation=1))
print(gc.isenabled(), gc.get_freeze_count() - before, oldest, young, gc.collect())
"""


def test_what_a_paused_stretch_made_is_not_walked_when_it_ends():
    """A stretch with the collector paused (a model unpickled, a sheet file written) leaves
    what it made where no young collection walks it: frozen in a command that froze what it
    keeps, else in the oldest generation, where a full collection still finds its cycles.
    Which of the two is known without counting the frozen objects (a walk of all of them)."""
    import subprocess
    import sys

    from conftest import ROOT

    def probe(mode: str) -> list[str]:
        out = subprocess.run(
            [sys.executable, "-c", _PAUSED_PROBE, mode],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.split()

    enabled, frozen, oldest, young, collected = probe("free")
    assert (enabled, frozen, oldest, young) == ("True", "0", "True", "False")
    assert int(collected) >= 2  # the cycle: found by the full collection
    enabled, frozen, oldest, young, _ = probe("frozen")
    assert enabled == "True" and int(frozen) > 50_000 and (oldest, young) == ("False", "False")


@pytest.mark.parametrize(
    "text, possible",
    [
        ('a: "x\\ny"\n', False),  # an escape in a value, not in a key
        ("a: R&D and Tom & Jerry\n", False),
        ("a: b\nc: [x, y]\n", False),
        ("a:\n  en: x\n", True),
        ("a: {'en' : x}\n", True),
        ('a: {"en": x}\n', True),
        ('"\\x65n": x\n', True),  # a key spelled with an escape
        ("x: &a en\n*a : y\n", True),  # an alias as a key
        ("? en\n: y\n", True),  # an explicit key
        ("{? en : y}\n", True),
        ("a: then:\n", True),  # not a key, but cannot be told apart cheaply: composed
    ],
)
def test_which_files_may_hold_per_language_strings(text, possible):
    assert seg_mod._may_have_strings(text, "en") is possible


def test_segments_are_the_same_when_loaded_files_are_not_composed_again(tmp_path, monkeypatch):
    """A game's files composed again (nothing parsed before) or, for the files the loader
    parsed that hold no per-language string, skipped: the same segments, in the same order."""
    files = {
        "cards.yaml": "items:\n  - id: a\n    data: {title: {en: Fire, es: Fuego}}\n",
        "plain.yaml": 'items:\n  - id: b\n    data: {title: Plain, body: "one\\ntwo"}\n',
        "anchored.yaml": "base: &b {en: Ice, es: Hielo}\nother: *b\n",
        "unparsed.yaml": "name: {en: Sea, es: Mar}\n",
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    content = SimpleNamespace(dir=tmp_path)
    composed = composed_files(monkeypatch)

    def segments():
        found = seg_mod.yaml_segments(content, "en")  # type: ignore[arg-type]
        return [(s.ctx, s.text, {k: p.text for k, p in s.places.items()}) for s in found]

    with session.new():
        fresh = segments()
    assert sorted(composed) == sorted(files)
    composed.clear()
    with session.new():
        for name in ("cards.yaml", "plain.yaml", "anchored.yaml"):
            load_yaml(tmp_path / name)
        assert segments() == fresh
    assert "plain.yaml" not in composed  # parsed by the loader, no per-language string
    assert sorted(composed) == ["anchored.yaml", "cards.yaml", "unparsed.yaml"]
    assert [ctx for ctx, _, _ in fresh] == [
        "anchored.yaml:base",
        "anchored.yaml:other",
        "cards.yaml:items[a].data.title",
        "unparsed.yaml:name",
    ]


def test_texts_are_constructed_as_pyyaml_constructs_them(tmp_path):
    """load_yaml hands texts straight to their constructor: the same values as PyYAML's own
    safe loader through anchors, aliases, merge keys, explicit tags and quoting, with the same
    lines kept; a text past the limit is still refused at its line, as a key, a value or an
    item."""
    import yaml

    from generator.load.yamlload import MAX_STRING, YDict, YList

    text = (
        "base: &b {kind: text, 'size': 9pt, note: &n plain words}\n"
        "card:\n  <<: *b\n  title: !!str 12\n  again: *n\n  number: 7\n  ratio: 0.5\n"
        '  body: "two\\nlines"\n  empty: ""\n  none: ~\n  flag: yes\n'
        "items:\n  - *n\n  - !!str true\n  - [x, *n, 3]\n  - {? complex : value}\n"
    )
    path = tmp_path / "a.yaml"
    path.write_text(text)
    ours = load_yaml(path)
    assert ours == yaml.safe_load(text)
    assert isinstance(ours, YDict) and isinstance(ours["items"], YList)
    assert ours["card"].line_of("title") == 4 and ours["items"].line_of(2) == 15
    long = "x" * (MAX_STRING + 1)
    for where, line in (
        (f"? {long}\n: 1\n", 1),
        (f"a: 1\nb: {long}\n", 2),
        (f"- a\n- {long}\n", 2),
    ):
        path.write_text(where)
        with pytest.raises(ContentError) as err:
            load_yaml(path)
        assert err.value.code == "too-long" and err.value.line == line

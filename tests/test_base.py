"""The engineering base: the one atomic write, caches owned by a command's session, the content
model cache."""

from __future__ import annotations

import os

import pytest

from generator import fsio, session
from generator.cache import store
from generator.load import model_cache
from generator.load.content import load_game
from generator.load.project import Project

MINI = {
    "content/mini/game.yaml": "id: mini\ntitle: Mini\nlanguages: [en]\nprint: {papers: [a4]}\n",
    "content/mini/components/cards.yaml": (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\n"
        "items:\n  - {id: a, data: {word: alpha}}\n  - {id: b, count: 2, data: {word: beta}}\n"
    ),
    "content/mini/layouts/mini/card.yaml": (
        'boxes:\n  - {id: w, kind: text, text: "{{ word }}", x: 5, y: 5, w: 50, h: 10, '
        "size: 12pt}\n"
    ),
}


def test_atomic_write_replaces_whole_or_not_at_all(tmp_path):
    target = tmp_path / "out" / "file.pdf"
    fsio.write_bytes(target, b"first")
    assert target.read_bytes() == b"first"
    with pytest.raises(RuntimeError), fsio.atomic_path(target) as tmp:
        tmp.write_bytes(b"half of the sec")
        raise RuntimeError("killed while writing")
    assert target.read_bytes() == b"first"  # the old file, whole
    assert sorted(p.name for p in target.parent.iterdir()) == ["file.pdf"]  # no temp left
    fsio.write_text(target, "second")
    assert target.read_text() == "second"


def test_atomic_write_gives_the_mode_a_plain_write_would(tmp_path):
    old = os.umask(0o027)
    try:
        fsio._umask.cache_clear()
        fresh = tmp_path / "new.pdf"
        fsio.write_bytes(fresh, b"x")
        assert fresh.stat().st_mode & 0o777 == 0o640  # 0666 less the umask, not mkstemp's 0600
        kept = tmp_path / "game.yaml"
        kept.write_text("a")
        kept.chmod(0o664)
        fsio.write_text(kept, "b")  # a source file rewritten in place keeps its mode
        assert kept.stat().st_mode & 0o777 == 0o664
    finally:
        os.umask(old)
        fsio._umask.cache_clear()


def test_session_caches_live_for_one_command(tmp_path):
    calls = []

    @session.cached
    def read(path):
        calls.append(path)
        return path.read_text()

    path = tmp_path / "x.txt"
    path.write_text("one")
    with session.new():
        assert read(path) == "one"
        path.write_text("two")
        assert read(path) == "one"  # one command reads a file once
    with session.new():
        assert read(path) == "two"  # the next command sees the edit
    assert len(calls) == 2


def test_model_cache_hits_for_the_same_files_and_misses_after_an_edit(make_project):
    root = make_project(MINI)
    project = Project(root)
    first = load_game(project, "mini")
    digest = model_cache.key(project, "mini")
    assert digest and model_cache.get(project, "mini", digest) is not None  # kept
    again = load_game(project, "mini")
    assert again is not first  # read back, a fresh object
    assert [(i.id, i.count, i.data) for c in again.components for i in c.items] == [
        ("a", 1, {"word": "alpha"}),
        ("b", 2, {"word": "beta"}),
    ]
    comp = root / "content/mini/components/cards.yaml"
    comp.write_text(comp.read_text().replace("count: 2", "count: 3"))
    assert model_cache.key(project, "mini") != digest
    edited = load_game(project, "mini")
    assert [i.count for i in edited.components[0].items] == [1, 3]


def test_model_cache_brings_the_validated_layouts_and_misses_after_a_layout_edit(
    make_project, monkeypatch
):
    from generator.load import validation
    from generator.load.layouts import game_store
    from generator.render import boxes

    root = make_project(MINI)
    project = Project(root)
    with session.new():
        load_game(project, "mini")  # validates the layout and keeps it with the model
    validated = []
    real = validation.validate

    def spy(model, raw, file, *args, **kwargs):
        validated.append(model)
        return real(model, raw, file, *args, **kwargs)

    monkeypatch.setattr("generator.load.layouts.validate", spy)
    with session.new():
        content = load_game(project, "mini")
        layout = game_store(project, content.dir).get("mini/card")
    assert boxes.Layout not in validated  # read back, not validated again
    assert [b.id for b in layout.boxes] == ["w"]
    card = root / "content/mini/layouts/mini/card.yaml"
    card.write_text(card.read_text().replace("size: 12pt", "size: 14pt"))
    with session.new():
        content = load_game(project, "mini")
        layout = game_store(project, content.dir).get("mini/card")
    assert boxes.Layout in validated  # the edit is seen
    assert layout.boxes[0].size.points == 14


def test_model_cache_lives_outside_the_project_and_can_be_turned_off(make_project, monkeypatch):
    root = make_project(MINI)
    where = model_cache.folder()
    assert where is not None and root not in where.parents
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    assert model_cache.key(Project(root), "mini") is None
    assert load_game(Project(root), "mini").components[0].items[0].id == "a"


def test_string_digests_are_kept_per_file_and_languages_and_a_damaged_one_is_recomputed(
    make_project,
):
    from generator.build import keys as inputs

    root = make_project(MINI)
    project = Project(root)
    content = load_game(project, "mini")
    comp = content.components[0]
    langs = content.languages
    first = inputs.component_key(content, comp, langs[0], "x")
    where = store.folder("digests")
    assert where is not None and root not in where.parents
    kept = sorted(where.iterdir())
    assert kept  # the parsed YAML's digest is remembered outside the project
    for path in kept:  # damaged entries are never trusted
        path.write_text("not a digest")
    assert inputs.component_key(content, comp, langs[0], "x") == first
    comp.file.write_text(comp.file.read_text().replace("alpha", "alpha!"))
    changed = inputs.component_key(content, comp, langs[0], "x")
    assert changed != first
    assert inputs.component_key(content, comp, langs[0], "x") == changed  # from the cache
    owners = [p.name.split("-")[0] for p in where.iterdir()]
    assert len(owners) == len(set(owners))  # one entry per file and languages, not one per edit

"""The one cache store (generator/cache/store.py): every cache pnp keeps in the user's cache
folder goes through it (one folder, one key scheme, one eviction rule), and `pnp cache info` /
`pnp cache clear` report and empty it without changing what pnp makes."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from conftest import composed_files, run_pnp, spawn_pnp

from generator import session
from generator.cache import store, yaml_cache
from generator.check import accepted
from generator.errors import ContentError
from generator.load import glossary, yamlload
from generator.load.glossary import load_glossary
from generator.load.yamlload import load_yaml

MINI = {
    "content/mini/game.yaml": "id: mini\ntitle: Mini\nlanguages: [en]\nprint: {papers: [a4]}\n",
    "content/mini/components/cards.yaml": (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\n"
        "items:\n  - {id: a, data: {word: alpha}}\n  - {id: b, count: 2, data: {word: beta}}\n"
    ),
    "content/mini/layouts/mini/card.yaml": (
        'boxes:\n  - {id: w, kind: text, text: "{{ word }} {{ 2 * 3 }}", x: 5, y: 5, w: 50, '
        "h: 10, size: 12pt}\n"
    ),
}


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    where = tmp_path / "user-cache"
    monkeypatch.setenv("PNP_CACHE_DIR", str(where))
    monkeypatch.setattr(store, "_WRITES", {})
    return where


def _info(root) -> dict:
    result = run_pnp(root, "cache", "info", "--format", "json", check=True)
    return json.loads(result.stdout)


def test_every_kind_lives_in_the_one_folder_and_info_counts_it(make_project, cache_dir):
    # a deck big enough (4 KB of YAML) for its parsed file to be kept too
    items = "".join(f"  - {{id: c{i}, data: {{word: word{i}}}}}\n" for i in range(150))
    cards = "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\nitems:\n" + items
    # and a band that stops at the trim, so the no-bleed check draws a sample
    layout = MINI["content/mini/layouts/mini/card.yaml"] + (
        '  - {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 4, fill: "#203060"}\n'
    )
    root = make_project(
        dict(
            MINI,
            **{"content/mini/components/cards.yaml": cards},
            **{"content/mini/layouts/mini/card.yaml": layout},
        )
    )
    before = _info(root)
    assert before["folder"] == str(cache_dir)
    assert {k["kind"]: k["entries"] for k in before["kinds"]} == dict.fromkeys(store.KINDS, 0)
    # a fresh process: in this one, fonts another test registered are not parsed again
    first = spawn_pnp(root, "check", "--format", "json")
    after = _info(root)
    entries = {k["kind"]: k["entries"] for k in after["kinds"]}
    # a check loads the model (kept), parses and digests the component file per language,
    # compiles the card's template, parses the fonts and samples the band's edges: each kept
    # in its kind's folder
    assert all(entries[kind] > 0 for kind in store.KINDS), entries
    on_disk = {p.name for p in cache_dir.iterdir()}
    assert on_disk == set(store.KINDS)
    for kind in after["kinds"]:
        files = list((cache_dir / kind["kind"]).iterdir())
        assert kind["entries"] == len(files)
        assert kind["bytes"] == sum(f.stat().st_size for f in files)
    # the project's own records are listed (read-only), not counted as the user cache
    assert [r["what"] for r in after["project"]] == [
        "kit stamps",
        "passed checks",
        "build records",
        "rulebook figures",
    ]
    text = run_pnp(root, "cache", "info", check=True).stdout
    assert str(cache_dir) in text and "templates" in text and "project records" in text
    # clearing changes nothing but time: the same findings come back, recomputed
    cleared = run_pnp(root, "cache", "clear", check=True).stdout
    assert "entries" in cleared
    assert all(k["entries"] == 0 for k in _info(root)["kinds"])
    assert run_pnp(root, "check", "--format", "json").stdout == first.stdout


def test_clear_one_kind_leaves_the_others_and_foreign_files(make_project, cache_dir):
    root = make_project(MINI)
    run_pnp(root, "check")
    (cache_dir / "notes.txt").write_text("not pnp's")
    run_pnp(root, "cache", "clear", "templates", check=True)
    entries = {k["kind"]: k["entries"] for k in _info(root)["kinds"]}
    assert entries["templates"] == 0
    assert entries["models"] > 0 and entries["digests"] > 0
    assert (cache_dir / "notes.txt").read_text() == "not pnp's"
    bad = run_pnp(root, "cache", "clear", "bogus")
    assert bad.returncode == 2 and "unknown cache kind 'bogus'" in bad.stderr


def test_a_parsed_yaml_file_is_read_back_and_an_edit_is_seen(tmp_path, cache_dir, monkeypatch):
    path = tmp_path / "big.yaml"
    text = "".join(f"key{i}: value {i}\n" for i in range(400))
    assert len(text) >= yaml_cache.MIN_CHARS
    path.write_text(text)
    with session.new():
        first = load_yaml(path)
    assert len(list((cache_dir / "yaml").iterdir())) == 1
    # an edit of the same size and modification time: only the text tells them apart
    stat = path.stat()
    path.write_text(text.replace("value 7\n", "VALUE 7\n"))
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with session.new():
        edited = load_yaml(path)
    assert first["key7"] == "value 7" and edited["key7"] == "VALUE 7"
    assert len(list((cache_dir / "yaml").iterdir())) == 1  # the edit replaced the entry
    # read back, not parsed: the same data, lines and file, with no YAML parser at hand
    monkeypatch.setattr(yamlload, "_Loader", None)
    with session.new():
        kept = load_yaml(path)
    assert kept == edited and kept.line_of("key7") == 8 and kept.file == path


def test_a_validated_glossary_is_read_back_and_an_edit_is_seen(tmp_path, cache_dir, monkeypatch):
    path = tmp_path / "glossary.yaml"
    path.write_text("terms:\n  - {id: move, en: [move], es: [mover]}\n")
    with session.new():
        first = load_glossary(tmp_path)
    # an edit of the same size and modification time: only the text tells them apart
    stat = path.stat()
    path.write_text("terms:\n  - {id: move, en: [step], es: [mover]}\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with session.new():
        edited = load_glossary(tmp_path)
    assert first is not None and first.terms[0].forms("en") == ["move"]
    assert edited is not None and edited.terms[0].forms("en") == ["step"]
    # read back, not validated again: the same terms and lines, with no validator at hand
    monkeypatch.setattr(glossary, "validate", None)
    with session.new():
        kept = load_glossary(tmp_path)
    assert kept is not None and kept.terms == edited.terms and kept.line_of(0) == 2


def test_validated_acceptances_are_read_back_and_an_edit_is_seen(tmp_path, cache_dir, monkeypatch):
    path = tmp_path / "accepted.yaml"
    path.write_text("accepted:\n  - {code: near-trim, reason: art bleeds on purpose}\n")
    first = accepted.load(tmp_path)
    # an edit of the same size and modification time: only the text tells them apart
    stat = path.stat()
    path.write_text("accepted:\n  - {code: near-trim, reason: ART bleeds on purpose}\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    edited = accepted.load(tmp_path)
    assert first is not None and first.entries[0].reason == "art bleeds on purpose"
    assert edited is not None and edited.entries[0].reason == "ART bleeds on purpose"
    # read back, not validated again: the same entries and lines, with no validator at hand
    monkeypatch.setattr(accepted, "validate", None)
    kept = accepted.load(tmp_path)
    assert kept is not None and kept.entries == edited.entries and kept.lines == [2]


def test_cache_info_works_outside_a_project_and_when_off(tmp_path, monkeypatch):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    monkeypatch.chdir(tmp_path)
    from generator.commands import cli

    assert cli.main(["cache", "info"]) == 0
    assert cli.main(["cache", "clear"]) == 0
    assert store.folder("models") is None and store.entry("fonts", "k") is None


def test_one_key_scheme_and_an_owner_keeps_only_its_newest_entry(cache_dir):
    assert store.key("a", "b") == store.key("a", "b") != store.key("a\0b")
    assert len(store.key("x")) == 32 and len(store.key("x", length=16)) == 16
    owner = store.key("/project", "game", length=16)
    old = store.entry("models", store.key("v1"), owner=owner, suffix=".pickle")
    new = store.entry("models", store.key("v2"), owner=owner, suffix=".pickle")
    other = store.entry("models", store.key("v1"), owner=store.key("elsewhere", length=16))
    assert old is not None and new is not None and other is not None
    assert old.name == f"{owner}-{store.key('v1')}.pickle"
    store.write("models", old, b"one", owner=owner)
    store.write("models", other, b"other", owner=other.name.split("-")[0])
    store.write("models", new, b"two", owner=owner)
    assert not old.exists() and store.read(new) == b"two"
    assert store.read(other) == b"other"
    assert store.read(old) is None  # a miss, never an error


def test_an_owners_entry_from_an_earlier_process_goes_and_the_folder_is_listed_once(
    cache_dir, monkeypatch
):
    """A new process (nothing listed yet) drops the entry an earlier one left for the same
    owner; after that, writing lists the folder no more (it held up to 20,000 entries)."""
    monkeypatch.setattr(store, "_OWNED", {})
    owner = store.key("/project/cards.yaml", "en", length=16)
    earlier = store.entry("digests", store.key("v1"), owner=owner)
    assert earlier is not None
    earlier.parent.mkdir(parents=True)
    earlier.write_bytes(b"old")  # as an earlier pnp command left it
    listed = []
    scandir = os.scandir

    def counted(path):
        listed.append(path)
        return scandir(path)

    monkeypatch.setattr(os, "scandir", counted)
    for version in ("v2", "v3", "v4"):
        newer = store.entry("digests", store.key(version), owner=owner)
        store.write("digests", newer, version.encode(), owner=owner)
    assert [p.name for p in (cache_dir / "digests").iterdir()] == [newer.name]
    owner_lists = [p for p in listed if Path(p) == cache_dir / "digests"]
    # once for the owners, once for the eviction rule on this process's first write
    assert len(owner_lists) == 2, listed


def test_eviction_drops_the_least_recently_used_half(cache_dir, monkeypatch):
    monkeypatch.setitem(store.KINDS, "digests", store.Kind("test", keep=8))
    paths = []
    for i in range(8):
        path = store.entry("digests", store.key(str(i)))
        assert path is not None
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"x")
        stamp = time.time() - 1000 + i  # entry 0 is the oldest
        os.utime(path, (stamp, stamp))
        paths.append(path)
    assert store.evict("digests") == 0  # at the limit: nothing goes
    assert store.read(paths[0]) == b"x"  # a hit makes the oldest the most recent
    ninth = store.entry("digests", store.key("9"))
    store.write("digests", ninth, b"y")  # the first write of this process applies the rule
    left = {p.name for p in (cache_dir / "digests").iterdir()}
    assert len(left) == 8 // 2
    assert paths[0].name in left and ninth is not None and ninth.name in left
    assert paths[1].name not in left  # the least recently used went first


def test_every_cache_module_goes_through_the_store():
    """No cache module picks its own folder or eviction: they all name a store kind."""
    from pathlib import Path

    package = Path(store.__file__).resolve().parents[1]
    users = {
        "cache/font_cache.py": '"fonts"',
        "cache/template_cache.py": '"templates"',
        "load/model_cache.py": '"models"',
        "load/strings_digest.py": '"digests"',
    }
    for rel, kind in users.items():
        text = (package / rel).read_text()
        assert kind in text, rel
        assert "XDG_CACHE_HOME" not in text and "Path.home()" not in text, rel
        assert "scandir" not in text and "unlink" not in text, rel  # no eviction of its own


def test_a_file_parsed_cleanly_before_is_known_valid_only_for_that_very_text(tmp_path, cache_dir):
    path = tmp_path / "big.yaml"
    text = "".join(f"key{i}: value {i}\n" for i in range(400))
    path.write_text(text)
    assert not yaml_cache.parsed_cleanly(path, text)  # never parsed
    with session.new():
        load_yaml(path)
    assert yaml_cache.parsed_cleanly(path, text)
    assert not yaml_cache.parsed_cleanly(path, text.replace("value 7\n", "VALUE 7\n"))
    assert not yaml_cache.parsed_cleanly(tmp_path / "other.yaml", text)
    broken = text + "key9: [unclosed\n"
    path.write_text(broken)
    with session.new(), pytest.raises(ContentError):
        load_yaml(path)
    assert not yaml_cache.parsed_cleanly(path, broken)


def test_a_warm_check_does_not_compose_a_big_one_language_file_again(
    cache_dir, monkeypatch, make_project
):
    items = "".join(f"  - {{id: c{i}, data: {{word: word{i}}}}}\n" for i in range(300))
    files = dict(MINI)
    files["content/mini/components/cards.yaml"] = (
        "id: cards\nname: Cards\nsize: poker\nlayout: mini/card\nitems:\n" + items
    )
    root = make_project(files)
    run_pnp(root, "check", check=True)  # fills the model and the parsed YAML
    composed = composed_files(monkeypatch)
    run_pnp(root, "check", check=True)
    assert "cards.yaml" not in composed
    # an edit (still one language) is parsed by the loader again: valid, and not composed
    cards = root / "content/mini/components/cards.yaml"
    cards.write_text(cards.read_text().replace("word7}", "seven}"))
    run_pnp(root, "check", check=True)
    assert "cards.yaml" not in composed
    # a file that could hold per-language strings is still composed and read for them
    cards.write_text(cards.read_text().replace("{word: seven}", "{word: {en: seven}}"))
    run_pnp(root, "check", check=True)
    assert "cards.yaml" in composed

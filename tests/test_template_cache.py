"""The compiled-template cache (generator/cache/template_cache.py): Jinja templates compiled by one
command are read back by the next, keyed by their source; a changed source, a changed pnp and a
corrupt file never give stale or broken code."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from generator.cache import template_cache
from generator.errors import ContentError
from generator.load import templating
from generator.rulebook import book as rulebook


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    """A cache folder of this test's own, and no compiled template remembered in memory: each
    compile below is what a new pnp process would do."""
    monkeypatch.setenv("PNP_CACHE_DIR", str(tmp_path / "cache"))
    _forget()
    yield tmp_path / "cache" / "templates"
    _forget()


def _forget() -> None:
    templating._compile.cache_clear()
    templating._compile_expr.cache_clear()
    rulebook._PAGE_ENV.clear()


@pytest.fixture
def generated(monkeypatch) -> list[str]:
    """Sources Jinja generated Python code for (a cache hit generates none)."""
    seen: list[str] = []
    real = jinja2.Environment._generate

    def spy(self, source, name, filename, defer_init=False):
        seen.append(name or "<string>")
        return real(self, source, name, filename, defer_init)

    monkeypatch.setattr(jinja2.Environment, "_generate", spy)
    return seen


def _files(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.jinja")) if folder.is_dir() else []


def test_a_template_compiled_once_is_read_back(cache_dir, generated):
    assert templating.render("{{ n * 2 }} cards", {"n": 21}) == "42 cards"
    assert len(generated) == 1
    assert len(_files(cache_dir)) == 1
    _forget()  # a new command
    assert templating.render("{{ n * 2 }} cards", {"n": 5}) == "10 cards"
    assert len(generated) == 1  # no second compile: the code came from the file


def test_an_expression_is_kept_too(cache_dir, generated):
    assert templating.evaluate("team == 'red'", {"team": "red"}) is True
    _forget()
    assert templating.evaluate("team == 'red'", {"team": "blue"}) is False
    assert len(generated) == 1
    assert len(_files(cache_dir)) == 1


def test_a_changed_source_is_compiled_afresh(cache_dir, generated):
    assert templating.render("Hace {{ damage }} daño", {"damage": 3}) == "Hace 3 daño"
    _forget()
    assert templating.render("Deals {{ damage }} damage", {"damage": 3}) == "Deals 3 damage"
    assert len(generated) == 2
    assert len(_files(cache_dir)) == 2


def test_a_changed_page_template_file_is_not_served_stale(cache_dir, tmp_path, generated):
    """The rulebook page templates are files with a fixed name: the name alone must not find
    the code compiled from its old text."""
    templates = tmp_path / "templates"
    page = templates / "rulebook" / "page.html"
    page.parent.mkdir(parents=True)
    page.write_text("old {{ title }}", encoding="utf-8")
    assert (
        rulebook._page_env([templates / "rulebook"]).get_template("page.html").render(title="T")
        == "old T"
    )
    _forget()
    page.write_text("new {{ title }}", encoding="utf-8")
    assert (
        rulebook._page_env([templates / "rulebook"]).get_template("page.html").render(title="T")
        == "new T"
    )
    assert len(generated) == 2
    _forget()
    page.write_text("old {{ title }}", encoding="utf-8")  # back again: the first code is good
    assert (
        rulebook._page_env([templates / "rulebook"]).get_template("page.html").render(title="T")
        == "old T"
    )
    assert len(generated) == 2


def test_another_pnp_does_not_reuse_the_code(cache_dir, generated, monkeypatch):
    """pnp's code (the sandbox, its filters), Jinja's version and limits.yaml are in the key."""
    templating.render("{{ a + b }}", {"a": 1, "b": 2})
    _forget()
    monkeypatch.setattr(template_cache, "_stamp", lambda: "another pnp")
    assert templating.render("{{ a + b }}", {"a": 1, "b": 2}) == "3"
    assert len(generated) == 2
    assert len(_files(cache_dir)) == 2


@pytest.mark.parametrize(
    "damage",
    [
        b"",  # empty
        b"garbage, not a cache file at all",
        b"TRUNCATED",  # replaced below by the real file's first bytes
        b"BITFLIP",  # replaced below by the real file with its code bytes scrambled
    ],
)
def test_a_corrupt_file_is_ignored_and_replaced(cache_dir, generated, damage):
    text = "{% for i in range(n) %}{{ i }}{% endfor %}"
    assert templating.render(text, {"n": 3}) == "012"
    (cached,) = _files(cache_dir)
    good = cached.read_bytes()
    if damage == b"TRUNCATED":
        damage = good[: len(good) // 2]
    elif damage == b"BITFLIP":
        damage = good[:40] + bytes(b ^ 0x5A for b in good[40:])
    cached.write_bytes(damage)
    _forget()
    assert templating.render(text, {"n": 4}) == "0123"  # compiled afresh, never a crash
    assert len(generated) == 2
    assert cached.read_bytes() == good  # and the file is good again


def test_a_template_that_does_not_compile_is_an_error_every_time(cache_dir):
    for _ in range(2):
        with pytest.raises(ContentError, match="template error"):
            templating.render("{{ unclosed", {})
        _forget()
    assert _files(cache_dir) == []


def test_the_sandbox_still_holds_with_cached_code(cache_dir):
    """Code read back runs in the same sandbox: the budget checks are in the environment."""
    templating.render("{{ x }}", {"x": 1})
    for _ in range(2):
        with pytest.raises(ContentError, match="sandbox"):
            templating.render("{{ 'ab' * n }}", {"n": 10**9})
        _forget()


def test_off_writes_nothing(tmp_path, monkeypatch, generated):
    monkeypatch.setenv("PNP_CACHE_DIR", "off")
    _forget()
    assert templating.render("{{ 1 + 1 }}", {}) == "2"
    _forget()
    assert templating.render("{{ 1 + 1 }}", {}) == "2"
    assert len(generated) == 2
    assert template_cache.store("content") is None


def test_an_unwritable_folder_is_no_cache_and_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder would go")
    monkeypatch.setenv("PNP_CACHE_DIR", str(blocker))
    _forget()
    assert templating.render("{{ 2 * 3 }}", {}) == "6"
    _forget()


def test_the_folder_stays_bounded(cache_dir, monkeypatch):
    monkeypatch.setattr(template_cache, "KEEP", 10)
    for i in range(25):
        templating.render(f"{{{{ {i} }}}}", {})
        _forget()
    assert 0 < len(_files(cache_dir)) <= 10 + 10 // 4 + 1


def test_text_utf8_cannot_hold_is_compiled_uncached(cache_dir):
    """A lone surrogate (a YAML escape such as "\\ud800") renders as it did without the cache."""
    assert templating.render("\ud800{{ 1 }}", {}) == "\ud8001"
    assert templating.evaluate("x == '\ud800'", {"x": "\ud800"}) is True
    assert _files(cache_dir) == []

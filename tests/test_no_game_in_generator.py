"""A new game is content, never Python: no literal string in generator/ names game data.

Checked structurally rather than against a word list. Every string literal in generator/ (not
docstrings: they explain, with examples) is compared with every id, title, name and glossary
term id of every game in content/:
- a literal that is one of them (`"tile"`, `"Red Code"`) is game data;
- a literal that contains a game's compound id (`"...-cards"` ids such as `order-cards`) is;
- a literal that reads as a regular expression, one of whose alternatives spells letters and
  matches one of them, is (`pi[e]ces?`).
The format's own words (the JSON Schemas' property names and allowed values: `kind: card` is
the format speaking, not a game) and the code's own names (a literal "players" next to a
variable `players`) are not game data. `[가-힣]+` spells no word.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterator
from pathlib import Path

import yaml
from conftest import ROOT, python_tree

from generator.load import model
from generator.render import boxes

_REGEX_META = re.compile(r"[\[\]?*+|(){}]")
RE_FUNCS = {
    "compile",
    "match",
    "fullmatch",
    "search",
    "sub",
    "subn",
    "finditer",
    "findall",
    "split",
}


def _strings(value) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


# libyaml's parser where it is installed, as pnp reads these files (the pure-Python one takes
# about a second for the four games' component files).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _yaml(text: str):
    return yaml.load(text, Loader=_LOADER)


def game_words(game_dir: Path) -> dict[str, str]:
    """Ids, titles, names and glossary term ids of one game -> where each comes from."""
    words: dict[str, str] = {game_dir.name: "game id"}
    game = _yaml((game_dir / "game.yaml").read_text())
    for title in _strings(game.get("title")):
        words[title] = "game title"
    for comp_file in sorted((game_dir / "components").glob("*.yaml")):
        comp = _yaml(comp_file.read_text())
        words[comp["id"]] = f"component id ({comp_file.name})"
        for name in _strings(comp.get("name")):
            words[name] = f"component name ({comp_file.name})"
        for item in comp.get("items") or []:
            words[str(item["id"])] = f"item id ({comp_file.name})"
    glossary = game_dir / "glossary.yaml"
    if glossary.exists():  # term ids are the game's vocabulary; their forms are the languages'
        for term in _yaml(glossary.read_text()).get("terms") or []:
            words[term["id"]] = "a glossary term id"
    return words


def format_words() -> set[str]:
    """Property names, allowed values and defaults of every content file's JSON Schema."""
    out: set[str] = set()

    def walk(node) -> None:
        if isinstance(node, dict):
            out.update(k for k in node.get("properties", {}))
            out.update(v for v in node.get("enum", []) if isinstance(v, str))
            for key in ("const", "default"):
                if isinstance(node.get(key), str):
                    out.add(node[key])
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for cls in (model.Game, model.Component, model.Manifest, boxes.Layout):
        walk(cls.model_json_schema(by_alias=True, mode="validation"))
    return {w.lower() for w in out}


def _tree(path: Path) -> ast.Module:
    """A module parsed once for both passes (its names, then its literals)."""
    return python_tree(path.read_text())


def code_names(paths: list[Path]) -> set[str]:
    """Every identifier of the code: variables, arguments, attributes, functions, classes."""
    out: set[str] = set()
    for path in paths:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Name):
                out.add(node.id)
            elif isinstance(node, ast.arg):
                out.add(node.arg)
            elif isinstance(node, ast.Attribute):
                out.add(node.attr)
            elif isinstance(node, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
                out.add(node.name)
            elif isinstance(node, ast.keyword) and node.arg:
                out.add(node.arg)
    return {n.lower() for n in out}


def _spells_letters(part: str) -> bool:
    """Whether a regex alternative spells at least three letters outside character classes."""
    bare = re.sub(r"\[[^\]]*\]|\\.", "", part)
    return len(re.findall(r"[^\W\d_]", bare)) >= 3


def literals(path: Path) -> Iterator[tuple[int, str, bool]]:
    """(line, text, used as a regular expression) for every string constant in a module, less
    docstrings."""
    patterns: set[int] = set()
    docs: set[int] = set()
    strings: list[ast.Constant] = []
    for node in ast.walk(_tree(path)):  # one walk: docstrings, patterns and strings
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                docs.add(id(body[0].value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in RE_FUNCS
            and node.args
        ):
            patterns.update(id(n) for n in ast.walk(node.args[0]) if isinstance(n, ast.Constant))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node)
    for node in strings:
        if id(node) not in docs:
            yield node.lineno, node.value, id(node) in patterns


def _compounds(text: str) -> set[str]:
    """The hyphenated words of a literal: where a game's compound id would show."""
    return set(re.findall(r"[^\W_]+(?:-[^\W_]+)+", text.lower()))


def _pattern_parts(pattern: str) -> list[str]:
    """A regular expression's top-level alternatives ("cards?|units?" -> two)."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(pattern):
        if c == "\\":
            continue
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
    parts.append(pattern[start:])
    return parts


def findings() -> list[str]:
    games = sorted(p for p in (ROOT / "content").iterdir() if (p / "game.yaml").exists())
    modules = sorted((ROOT / "generator").rglob("*.py"))
    schema, names = format_words(), code_names(modules)
    data: dict[str, str] = {}  # every game word but the format's own
    for game in games:
        for word, where in game_words(game).items():
            key = word.strip().lower()
            if len(key) >= 3 and key not in schema:
                data.setdefault(key, f"{game.name}: {where}")
    words = {k: v for k, v in data.items() if k not in names}  # a literal may name the code
    compounds = {w for w in words if "-" in w}
    found = []
    for path in modules:
        rel = path.relative_to(ROOT)
        for line, text, is_pattern in literals(path):
            whole = text.strip().lower()
            if whole in words:
                found.append(f"{rel}:{line}: {whole!r} is {words[whole]}")
            for piece in _compounds(text) & compounds:
                found.append(f"{rel}:{line}: {piece!r} is {words[piece]}")
            if not (is_pattern or _REGEX_META.search(text)):
                continue
            for part in _pattern_parts(text):
                if not _spells_letters(part):
                    continue
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")  # "possible nested set" in odd literals
                        regex = re.compile(part, re.IGNORECASE)
                except re.error:
                    continue
                for word, where in data.items():  # a pattern spelling a word never names code
                    if regex.fullmatch(word):
                        found.append(f"{rel}:{line}: pattern {part!r} matches {word!r}, {where}")
    return found


def test_generator_holds_no_game_data():
    found = findings()
    assert not found, "game data in generator/ (move it to content/ or templates/):\n" + "\n".join(
        found
    )


def test_the_check_finds_game_data(tmp_path, monkeypatch):
    """The check is not vacuous: a module naming a real component id, or a pattern spelt to
    dodge a word list, is caught."""
    comp = yaml.safe_load((ROOT / "content/dogfight/components/allied-planes.yaml").read_text())
    fake = tmp_path / "generator" / "leak.py"
    fake.parent.mkdir()
    fake.write_text(
        f"SPECIAL = {comp['id']!r}\nimport re\nDODGE = re.compile(r'allied-pl[a]nes?')\n"
    )
    (tmp_path / "content").symlink_to(ROOT / "content")
    monkeypatch.setattr("test_no_game_in_generator.ROOT", tmp_path)
    found = findings()
    assert any("leak.py:1:" in f and comp["id"] in f for f in found), found
    assert any("leak.py:3:" in f and "pattern" in f for f in found), found

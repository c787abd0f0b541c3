"""Safe YAML loading that remembers where every key and list item came from.

Only plain data is accepted (no Python tags). Duplicate keys, alias bombs, oversized files,
tabs, and encodings other than UTF-8 become a ContentError naming the file and line.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from generator import session
from generator.cache import yaml_cache
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load.project import read_bytes

MAX_FILE_BYTES = LIMITS.files.text_bytes
MAX_EXPANDED_NODES = 200_000  # after aliases are expanded; stops "billion laughs"
MAX_STRING = 20_000  # characters in one value: far more than any card or rule paragraph

# The C loader when libyaml is there (much faster), else the pure-Python one.
_Base: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YDict(dict):
    """A mapping that knows its file and the line of each key (1-based)."""

    file: Path | None = None
    line: int | None = None
    key_lines: dict

    def line_of(self, key) -> int | None:
        return self.key_lines.get(key, self.line)


class YList(list):
    file: Path | None = None
    line: int | None = None
    item_lines: list

    def line_of(self, index: int) -> int | None:
        if isinstance(index, int) and 0 <= index < len(self.item_lines):
            return self.item_lines[index]
        return self.line


class _Loader(_Base):  # type: ignore[valid-type,misc]  # a base chosen at import time
    file: Path | None = None


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> YDict:
    result = YDict()
    result.file, result.line, result.key_lines = loader.file, node.start_mark.line + 1, {}
    loader.flatten_mapping(node)
    for key_node, value_node in node.value:
        key = _construct(loader, key_node)
        if not isinstance(key, (str, int, float, bool)) or key is None:
            raise ContentError(
                "mapping keys must be plain text or numbers",
                loader.file,
                key_node.start_mark.line + 1,
            )
        if key in result:
            raise ContentError(
                f"duplicate key '{key}' (first at line {result.key_lines[key]})",
                loader.file,
                key_node.start_mark.line + 1,
                str(key),
                "remove one of them",
                code="duplicate-key",
            )
        result[key] = _construct(loader, value_node)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> YList:
    result = YList(_construct(loader, child) for child in node.value)
    result.file, result.line = loader.file, node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_STR = "tag:yaml.org,2002:str"


def _construct(loader: _Loader, node: yaml.Node) -> Any:
    """`loader.construct_object(node, deep=True)`. A text (most keys and values: a 10,000-card
    file holds 80,000) goes straight to its constructor: it holds nothing to construct first,
    and an alias to it is the same text again."""
    if node.tag == _STR and type(node) is yaml.ScalarNode:
        return _construct_str(loader, node)
    return loader.construct_object(node, deep=True)


def _construct_str(loader: _Loader, node: yaml.ScalarNode) -> str:
    value = loader.construct_scalar(node)
    if len(value) > MAX_STRING:
        raise ContentError(
            f"a text of {len(value)} characters (limit {MAX_STRING})",
            loader.file,
            node.start_mark.line + 1,
            hint="split it, or move long prose to the rulebook",
            code="too-long",
        )
    return value


def _number_guard(construct):
    """Numbers of thousands of digits: Python refuses to parse them (or takes ages); say where."""

    def build(loader: _Loader, node: yaml.ScalarNode):
        digits = sum(c.isdigit() for c in str(node.value))
        if digits > LIMITS.counts.number_digits:
            raise ContentError(
                f"a number of {digits} digits (limit {LIMITS.counts.number_digits})",
                loader.file,
                node.start_mark.line + 1,
                hint="a real game never needs numbers this long; check for a typo",
                code="limit",
            )
        return construct(loader, node)

    return build


_Loader.add_constructor("tag:yaml.org,2002:int", _number_guard(_Base.construct_yaml_int))
_Loader.add_constructor("tag:yaml.org,2002:float", _number_guard(_Base.construct_yaml_float))
_Loader.add_constructor("tag:yaml.org,2002:str", _construct_str)
_Loader.add_constructor("tag:yaml.org,2002:map", _construct_mapping)
_Loader.add_constructor("tag:yaml.org,2002:seq", _construct_sequence)
_Loader.add_constructor("tag:yaml.org,2002:omap", _construct_mapping)


def _refuse_tag(loader: _Loader, suffix: str, node: yaml.Node):
    raise ContentError(
        f"YAML tag '{node.tag}' is not allowed",
        loader.file,
        node.start_mark.line + 1,
        hint="content is plain data only; remove the '!!' tag",
        code="yaml-tag",
    )


_Loader.add_multi_constructor("", _refuse_tag)
_Loader.add_multi_constructor("!", _refuse_tag)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _refuse_tag)


def _expanded_size(node: yaml.Node, memo: dict, budget: int) -> int:
    """Node count after alias expansion, computed without expanding (memoised on identity)."""
    key = id(node)
    if key in memo:
        return memo[key]
    memo[key] = 1  # guards recursive anchors
    size = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            size += _expanded_size(k, memo, budget) + _expanded_size(v, memo, budget)
            if size > budget:
                break
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            size += _expanded_size(v, memo, budget)
            if size > budget:
                break
    memo[key] = size
    return size


def _alias_bomb(node: yaml.Node) -> bool:
    """Whether expanding the aliases of a document adds more than MAX_EXPANDED_NODES nodes to
    those the file itself holds. Only a file with an anchor (`&`) can have aliases; without
    one, nothing is expanded and a large deck (20,000 cards are 220,000 nodes) is no bomb."""
    held: set[int] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in held:
            continue
        held.add(id(current))
        if isinstance(current, yaml.MappingNode):
            stack += [n for pair in current.value for n in pair]
        elif isinstance(current, yaml.SequenceNode):
            stack += current.value
    budget = MAX_EXPANDED_NODES + len(held)
    return _expanded_size(node, {}, budget) > budget


def read_text(path: Path) -> str:
    """Read a content file as UTF-8 text (a BOM is allowed), with clear errors. The file must be
    a regular file inside the project, under the size limit (see project.read_bytes)."""
    data = read_bytes(path, MAX_FILE_BYTES)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ContentError(
            f"not valid UTF-8 (byte 0x{data[exc.start]:02x})",
            path,
            line,
            hint="save the file as UTF-8",
            code="encoding",
        ) from None


def yaml_error(
    exc: yaml.YAMLError,
    path: Path,
    text: str,
    what: str = "YAML syntax error",
    code: str = "yaml-syntax",
) -> ContentError:
    """A YAML parser's error as one located ContentError (every reader of YAML uses it)."""
    if not isinstance(exc, yaml.MarkedYAMLError):
        return ContentError(f"{what}: {exc}", path, code=code)
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    problem = exc.problem or exc.context or "invalid YAML"
    hint = "check indentation and quoting"
    lines = text.splitlines()
    bad_line = lines[line - 1] if line and line <= len(lines) else ""
    if "\t" in problem or "\t" in bad_line[: len(bad_line) - len(bad_line.lstrip())]:
        hint = "YAML does not allow tabs for indentation; use spaces"
    return ContentError(f"{what}: {problem}", path, line, hint=hint, code=code)


def load_yaml(path: Path, *, allow_empty: bool = False) -> Any:
    text = read_text(path)
    if not text.strip():
        if allow_empty:
            return None
        raise ContentError("file is empty", path, 1, code="empty-file")
    kept = yaml_cache.get(path, text)
    if kept is not None:
        session.current().cache(_PARSED)[path] = (len(text), hash(text))
        return kept
    loader = _Loader(text)
    loader.file = path
    try:
        node = loader.get_single_node()
        if node is None:
            if allow_empty:
                return None
            raise ContentError("file has no content (only comments)", path, 1, code="empty-file")
        if "&" in text and _alias_bomb(node):
            raise ContentError(
                "too many nodes after expanding aliases (possible alias bomb)",
                path,
                node.start_mark.line + 1,
                hint="use fewer anchors and aliases",
                code="alias-bomb",
            )
        data = loader.construct_document(node)
        session.current().cache(_PARSED)[path] = (len(text), hash(text))
        yaml_cache.put(path, text, data)
        return data
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path, text) from None
    except RecursionError:
        raise ContentError("structure nested too deeply", path, code="too-deep") from None
    finally:
        loader.dispose()


_PARSED = "load.yamlload.parsed"  # the texts load_yaml parsed in this command, by file


def parsed_before(path: Path, text: str) -> bool:
    """load_yaml parsed this very text of `path` in this command: it is valid YAML (another
    reader need not compose it again only to find its syntax errors)."""
    return session.current().cache(_PARSED).get(path) == (len(text), hash(text))


def locate(data: Any, path: tuple) -> tuple[Path | None, int | None, str]:
    """File, line and dotted key name of the deepest part of `path` that exists in `data`.

    Parts that are not keys (pydantic adds union tags to error paths) are skipped.
    """
    file, line = getattr(data, "file", None), getattr(data, "line", None)
    node = data
    parts: list[str] = []
    for i, part in enumerate(path):
        if isinstance(node, YDict) and node.get("kind") == part and i + 1 < len(path):
            continue  # pydantic names the union member by its tag; it is not a key
        if isinstance(node, YDict) and part in node:
            line = node.line_of(part)
            file = node.file or file
            node = node[part]
            parts.append(str(part))
        elif isinstance(node, YList) and isinstance(part, int) and part < len(node):
            line = node.line_of(part)
            file = node.file or file
            node = node[part]
            parts.append(f"[{part}]")
        elif isinstance(node, YDict) and i + 1 < len(path) and path[i + 1] in node:
            continue  # a union tag, not a key
        elif isinstance(node, YList) and not isinstance(part, int) and i + 1 < len(path):
            continue  # a union tag before a list index (items: list or spreadsheet name)
        else:
            if isinstance(node, YDict) and not isinstance(part, int) and "[" not in str(part):
                parts.append(str(part))  # a key that is missing or unknown (not a validator)
            break
    key = ".".join(parts).replace(".[", "[")
    return file, line, key

"""Every string a translator translates, as segments with stable contexts.

Two kinds of source:

- YAML strings: every per-language mapping (`{es: ..., en: ...}`) in the game's YAML files
  (game.yaml, components/, data files; not the glossary, manifest or acceptances). Context:
  file and key path, list elements named by their `id` when they have one:
  `components/rewards.yaml:data.cost`, `data/maneuvers.yaml:[move].name`.
- Rulebook segments, po4a-style: the title, each intro paragraph, each numbered heading, each
  paragraph, list item and table cell of a section. Context: `rules:§5.2:p1` (heading `:title`,
  list item `:li2`, table cell `:t1r2c1`, intro `rules:intro:p1`). Paragraphs, list items and
  tables are counted separately within their section, so every language's file is segmented
  the same way and segment N of a translation is the translation of segment N of the source.
  Translator's notes, fenced code and paragraphs that are only Jinja blocks (`{{ component_list()
  }}`) are not segments: they are kept as they are.

Each segment knows where it is (file, line, and for rulebooks the span of lines it occupies)
so an import can write a new translation back in place.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from generator.load import sheets
from generator.load.content import GameContent
from generator.load.languages import note_pattern
from generator.load.rules_source import HEADING, LIST_ITEM, NUMBERED, rules_files
from generator.load.yamlload import read_text, yaml_error

LANG = re.compile(r"^[a-z]{2}(?:-[A-Z][a-z]{3})?(?:-[A-Z]{2})?\Z")  # a language tag: es, zh-Hant
NOT_TRANSLATED = {"glossary.yaml", "accepted.yaml", "manifest.yaml", "i18n-sync.yaml"}
_TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")


@dataclass
class Place:
    """Where a segment's text is, in one language's file."""

    file: Path
    line: int  # 1-based line of the text
    text: str
    # YAML: character span of the scalar (start, end) and of its mapping, with the mapping's style
    span: tuple[int, int] | None = None
    # rulebooks: lines [first, last] (1-based) and how to rebuild them around new text
    lines: tuple[int, int] | None = None
    prefix: str = ""  # "- ", "## 5.2 " ...
    cell: tuple[int, int] | None = None  # (row line, column index) for a table cell
    call: tuple[int, int] | None = None  # a template call's string: (start, end) in its line


@dataclass
class SheetPlace(Place):
    """A spreadsheet cell: `ref` is "Sheet1!C14" (line: its row)."""

    ref: str = ""


@dataclass
class Segment:
    ctx: str
    kind: str  # "string", "title", "heading", "paragraph", "item", "cell", "call"
    source: Place
    places: dict[str, Place] = field(default_factory=dict)  # lang -> where its translation is
    mapping: MappingNode | None = None  # YAML: the per-language mapping (for inserting a key)
    section: str | None = None  # rulebook section number ("5.2"), None for the intro and YAML
    cells: dict[str, str] = field(default_factory=dict)  # a sheet cell's: lang -> "Sheet1!D3"

    @property
    def text(self) -> str:
        return self.source.text

    def translation(self, lang: str) -> str | None:
        place = self.places.get(lang)
        return place.text if place is not None else None


# ---------------------------------------------------------------- YAML strings


def yaml_files(content: GameContent) -> list[Path]:
    out = []
    for path in sorted(content.dir.rglob("*.yaml")):
        rel = path.relative_to(content.dir)
        if path.name in NOT_TRANSLATED or any(p.startswith(".") for p in rel.parts):
            continue
        out.append(path)
    return out


# libyaml's composer when PyYAML has it: the same nodes and marks, several times faster.
_LOADER: type[yaml.SafeLoader] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _compose(path: Path) -> tuple[str, Node | None]:
    text = read_text(path)
    try:
        return text, yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        raise yaml_error(exc, path, text, "not valid YAML", "yaml") from None


def _lang_mapping(node: MappingNode, source: str) -> bool:
    keys = [k.value for k, _ in node.value if isinstance(k, ScalarNode)]
    return (
        bool(keys)
        and len(keys) == len(node.value)
        and all(LANG.match(k) for k in keys)
        and source in keys
        and all(isinstance(v, ScalarNode) for _, v in node.value)
    )


def _element_name(node: Node, index: int) -> str:
    if isinstance(node, MappingNode):
        for k, v in node.value:
            if isinstance(k, ScalarNode) and k.value == "id" and isinstance(v, ScalarNode):
                return f"[{v.value}]"
    return f"[{index}]"


def walk_yaml(path: Path, root: Node | None, content: GameContent, source: str) -> list[Segment]:
    """The per-language strings of one composed YAML file."""
    out: list[Segment] = []
    rel = path.relative_to(content.dir).as_posix()

    def walk(node: Node, key: str) -> None:
        if isinstance(node, MappingNode):
            if _lang_mapping(node, source):
                places = {
                    k.value: Place(
                        path,
                        v.start_mark.line + 1,
                        v.value,
                        span=(v.start_mark.index, v.end_mark.index),
                    )
                    for k, v in node.value
                }
                out.append(Segment(f"{rel}:{key}", "string", places.pop(source), places, node))
                return
            for k, v in node.value:
                if isinstance(k, ScalarNode):
                    walk(v, f"{key}.{k.value}" if key else str(k.value))
        elif isinstance(node, SequenceNode):
            for index, element in enumerate(node.value):
                walk(element, key + _element_name(element, index))

    if root is not None:
        walk(root, "")
    return out


def yaml_segments(content: GameContent, source: str) -> list[Segment]:
    out: list[Segment] = []
    for path in yaml_files(content):
        out += walk_yaml(path, _compose(path)[1], content, source)
    return out


# ---------------------------------------------------------------- rulebooks


@dataclass
class _Block:
    kind: str
    first: int  # 1-based
    last: int
    text: str
    prefix: str = ""
    cell: tuple[int, int, int] | None = None  # table (in its section), row, column
    # a string inside a template call: (call in its section, role, start, end) in its line,
    # start and end around the quotes
    call: tuple[int, str, int, int] | None = None


def _note(line: str) -> bool:
    return bool(note_pattern().match(line))


_CLOSERS = {"{{": "}}", "{%": "%}", "{#": "#}"}


def jinja_spans(text: str) -> list[tuple[int, int]]:
    """(start, end) of each Jinja block. Quotes are respected, so a template inside a string
    argument (`{{ table(rows, [['Name', "**{{ name }}**"]]) }}`) stays inside its block."""
    out, i, n = [], 0, len(text)
    while i < n - 1:
        closer = _CLOSERS.get(text[i : i + 2])
        if closer is None:
            i += 1
            continue
        j, quote = i + 2, None
        while j < n:
            ch = text[j]
            if quote:
                if ch == "\\":
                    j += 1
                elif ch == quote:
                    quote = None
            elif ch in "'\"" and closer != "#}":
                quote = ch
            elif text.startswith(closer, j):
                break
            j += 1
        end = min(n, j + 2)
        out.append((i, end))
        i = end
    return out


def strip_jinja(text: str) -> str:
    for start, end in reversed(jinja_spans(text)):
        text = text[:start] + " " + text[end:]
    return text


def _words(text: str) -> bool:
    return bool(re.search(r"[^\W\d_]", strip_jinja(text)))


# Strings inside a template call that readers see: a `caption=` (`title=`, `label=`, `alt=`)
# argument, and the column headers of `table(rows, [['Header', 'field'], ...])`.
_TEXT_KWARG = re.compile(r"\b(caption|title|label|alt)\s*=\s*$")
_HEADER = re.compile(r"(?:\[\s*\[|\]\s*,\s*\[)\s*$")
_STRING = re.compile(r"'(?:[^'\\]|\\.)*'" + r'|"(?:[^"\\]|\\.)*"')


def call_strings(line: str) -> list[tuple[str, int, int, str]]:
    """(role, start, end, text) of each translatable string of the template calls of a line:
    `caption`, or `h1`, `h2`... for table headers. start/end are around the quotes."""
    out: list[tuple[str, int, int, str]] = []
    for start, end in jinja_spans(line):
        if not line.startswith("{{", start):
            continue
        headers = 0
        block = line[start:end]
        for m in _STRING.finditer(block):
            raw = m.group()
            if "{{" in raw or "{%" in raw:
                continue  # a template inside a string: left as it is
            before = block[: m.start()]
            kwarg = _TEXT_KWARG.search(before)
            if kwarg:
                role = kwarg.group(1)
            elif _HEADER.search(before):
                headers += 1
                role = f"h{headers}"
            else:
                continue
            text = _unquote(raw)
            if _words(re.sub(r":[a-z][a-z0-9_-]*:", " ", text)):  # not an icon alone
                out.append((role, start + m.start(), start + m.end(), text))
    return out


def _unquote(raw: str) -> str:
    return re.sub(r"\\(.)", r"\1", raw[1:-1])


def quote(text: str, like: str) -> str:
    """`text` as a Jinja string literal, in the quotes of `like`."""
    q = like[0] if like[:1] in ("'", '"') else "'"
    return q + text.replace("\\", "\\\\").replace(q, "\\" + q) + q


def rules_blocks(lines: list[str]) -> list[tuple[str | None, _Block]]:
    """(section number or None for the title and intro, block) for every segment of a file."""
    out: list[tuple[str | None, _Block]] = []
    section: str | None = None
    tables = calls = 0
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("```"):  # fenced code: kept as it is
            i += 1
            while i < n and not lines[i].strip().startswith("```"):
                i += 1
            i += 1
            continue
        heading = HEADING.match(line)
        if heading:
            level, title = len(heading.group(1)), heading.group(2)
            numbered = NUMBERED.match(title)
            if level == 1:
                prefix = line[: line.index(title)]
                out.append((None, _Block("title", i + 1, i + 1, title, prefix)))
            elif numbered:
                section, tables, calls = numbered.group(1), 0, 0
                words = numbered.group(2)
                prefix = line[: line.index(words, line.index(section) + len(section))]
                if line.rstrip() != prefix + words:
                    prefix = line[: len(line) - len(line.lstrip("# "))]  # unusual: keep whole
                    words = line[len(prefix) :]
                out.append((section, _Block("heading", i + 1, i + 1, words, prefix)))
            i += 1
            continue
        if not stripped:
            i += 1
            continue
        if _note(line):  # a translator's note belongs to its language: skipped
            i += 1
            while i < n and lines[i].lstrip().startswith(">"):
                i += 1
            continue
        if stripped.startswith("|"):
            first = i
            tables += 1
            while i < n and lines[i].strip().startswith("|"):
                i += 1
            row_index = 0
            for r in range(first, i):
                if _TABLE_SEPARATOR.match(lines[r]):
                    continue
                row_index += 1
                cells = _cells(lines[r])
                for c, (_, _, text) in enumerate(cells, start=1):
                    if _words(text):
                        block = _Block("cell", r + 1, r + 1, text, cell=(tables, row_index, c))
                        out.append((section, block))
            continue
        item = LIST_ITEM.match(line)
        if item:
            first = i
            prefix = line[: item.start(1)]
            i += 1
            while (
                i < n
                and lines[i].strip()
                and lines[i].startswith((" ", "\t"))
                and not LIST_ITEM.match(lines[i])
            ):
                i += 1
            text = "\n".join([line[len(prefix) :], *lines[first + 1 : i]])
            out.append((section, _Block("item", first + 1, i, text, prefix)))
            continue
        first = i
        i += 1
        while (
            i < n
            and lines[i].strip()
            and not HEADING.match(lines[i])
            and not LIST_ITEM.match(lines[i])
            and not lines[i].strip().startswith(("|", "```"))
        ):
            i += 1
        text = "\n".join(lines[first:i])
        if _words(text):
            out.append((section, _Block("paragraph", first + 1, i, text)))
            continue
        # only template calls: the strings readers see in them are segments of their own
        for r in range(first, i):
            found = call_strings(lines[r])
            for role, a, b, string in found:
                block = _Block("call", r + 1, r + 1, string, call=(calls + 1, role, a, b))
                out.append((section, block))
            calls += bool(found)
    return out


def _cells(row: str) -> list[tuple[int, int, str]]:
    """(start, end, text) of each cell of a table row, text stripped."""
    out = []
    bars = [m.start() for m in re.finditer(r"(?<!\\)\|", row)]
    for a, b in itertools.pairwise(bars):
        raw = row[a + 1 : b]
        start = a + 1 + (len(raw) - len(raw.lstrip()))
        end = b - (len(raw) - len(raw.rstrip()))
        out.append((start, max(start, end), raw.strip()))
    return out


def rules_contexts(path: Path) -> dict[str, tuple[str | None, _Block]]:
    return rules_contexts_of(read_text(path).split("\n"))


def rules_contexts_of(lines: list[str]) -> dict[str, tuple[str | None, _Block]]:
    """Context -> (section, block) for every segment of a rulebook's lines."""
    out: dict[str, tuple[str | None, _Block]] = {}
    counters: dict[tuple[str | None, str], int] = {}
    short = {"paragraph": "p", "item": "li"}
    for section, block in rules_blocks(lines):
        where = f"§{section}" if section is not None else "intro"
        if block.kind == "title":
            ctx = "rules:title"
        elif block.kind == "heading":
            ctx = f"rules:{where}:title"
        elif block.kind == "cell":
            table, row, col = block.cell or (0, 0, 0)
            ctx = f"rules:{where}:t{table}r{row}c{col}"
        elif block.kind == "call":
            number, role = block.call[:2] if block.call else (0, "")
            ctx = f"rules:{where}:call{number}.{role}"
        else:
            key = (section, short[block.kind])
            counters[key] = counters.get(key, 0) + 1
            ctx = f"rules:{where}:{short[block.kind]}{counters[key]}"
        out.setdefault(ctx, (section, block))
    return out


def _place(path: Path, block: _Block) -> Place:
    return Place(
        path,
        block.first,
        block.text,
        lines=(block.first, block.last),
        prefix=block.prefix,
        cell=(block.first, block.cell[2]) if block.cell else None,
        call=(block.call[2], block.call[3]) if block.call else None,
    )


def rules_segments(content: GameContent, source: str) -> list[Segment]:
    files = rules_files(content.dir)
    if source not in files:
        return []
    out = []
    targets = {lang: rules_contexts(path) for lang, path in files.items() if lang != source}
    for ctx, (section, block) in rules_contexts(files[source]).items():
        places = {
            lang: _place(files[lang], found[ctx][1])
            for lang, found in targets.items()
            if ctx in found
        }
        out.append(Segment(ctx, block.kind, _place(files[source], block), places, None, section))
    return out


# ---------------------------------------------------------------- spreadsheet cells


def sheet_segments(content: GameContent, source: str) -> list[Segment]:
    """The translated cells of the components whose items come from a spreadsheet: one segment
    per item and field (`components/cards.xlsx:[scout].data.title`), its places the cells of
    the field's language columns (file: the spreadsheet, line: the row)."""

    out: list[Segment] = []
    known = sheets.known_languages(content.project.template_dirs("languages"))
    for comp in content.components:
        if comp.sheet is None:
            continue
        sheet = sheets.read(comp.sheet, comp.sheet_name, content.languages, known)
        rel = comp.sheet.relative_to(content.dir).as_posix()
        for row in sheet.rows:
            for name, langs in sheet.translated.items():
                value: object = row.item["data"]
                for part in name.split("."):
                    value = value.get(part) if isinstance(value, dict) else None
                texts = value if isinstance(value, dict) else {}
                if source not in texts:
                    continue
                places = {
                    lang: SheetPlace(comp.sheet, row.row, texts[lang], ref=row.cells[key])
                    for lang in langs
                    if lang in texts and (key := f"data.{name}.{lang}") in row.cells
                }
                empty = {
                    lang: row.cells[f"data.{name}.{lang}"] for lang in langs if lang not in texts
                }
                first = places.pop(source)
                ctx = f"{rel}:[{row.item['id']}].data.{name}"
                cells = {**{k: p.ref for k, p in places.items()}, **empty}
                out.append(Segment(ctx, "sheet-cell", first, dict(places), cells=cells))
    return out


def source_language(content: GameContent) -> str:
    return content.languages[0]


def all_segments(content: GameContent) -> list[Segment]:
    """Every translatable segment of a game: YAML strings, spreadsheet cells, the rulebook."""
    source = source_language(content)
    return (
        yaml_segments(content, source)
        + sheet_segments(content, source)
        + rules_segments(content, source)
    )

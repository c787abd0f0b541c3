"""Every string a translator translates, as segments with stable contexts.

Two kinds of source:

- YAML strings: every per-language mapping (`{es: ..., en: ...}`) in the game's YAML files
  (game.yaml, components/, data files; not the glossary, manifest or acceptances). Context:
  file and key path, list elements named by their `id` when they have one:
  `components/rewards.yaml:data.cost`, `data/maneuvers.yaml:[move].name`.
- Rulebook segments, po4a-style: the title, each intro paragraph, each numbered heading, each
  paragraph, list item and table cell of a section, and the strings readers see inside a
  template call. Context: `rules:title`, a section's heading `rules:§5.2:title`, and for the
  others an id anchored to content (`rules:§5.2:p-3f1c9a0b`, `li-`, `cell-`, `call-`, intro
  `rules:intro:p-...`; see stable_ids()). A translation's file is segmented the same way and
  its blocks are aligned to the source's ids by the record of what each id's translation was
  (align()), so a paragraph inserted, moved or deleted in the source shifts no other one.
  Translator's notes, fenced code and paragraphs that are only Jinja blocks (`{{ component_list()
  }}`) are not segments: they are kept as they are.

Each segment knows where it is (file, line, and for rulebooks the span of lines it occupies)
so an import can write a new translation back in place.
"""

from __future__ import annotations

import difflib
import hashlib
import itertools
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from generator.cache import yaml_cache
from generator.errors import ContentError
from generator.load import sheets
from generator.load.content import GameContent
from generator.load.languages import note_pattern
from generator.load.rules_source import HEADING, LIST_ITEM, NUMBERED, rules_files
from generator.load.yamlload import load_yaml, parsed_before, read_text, yaml_error

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


def _compose(path: Path, text: str | None = None) -> tuple[str, Node | None]:
    if text is None:
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
        text = read_text(path)
        if not _may_have_strings(text, source) and (
            parsed_before(path, text) or yaml_cache.parsed_cleanly(path, text)
        ):
            continue  # valid YAML (the loader parsed it, now or before) with no per-language string
        out += walk_yaml(path, _compose(path, text)[1], content, source)
    return out


# What could make a key that reads as a language code without the code itself followed by a
# colon in the text: an escape in a double-quoted key (a key is on one line), an anchor (for an
# alias as a key), an explicit key (`? en`, in block or flow style).
_HIDDEN_KEY = re.compile(r'\\[^\n]*"[ \t]*:|(?:^|[\s\[{,:-])&\S|^[ \t-]*\?|[{,][ \t]*\?', re.M)


def _may_have_strings(text: str, source: str) -> bool:
    """Whether `text` may hold a per-language mapping (one with a `source:` key): false only
    when no `source` followed by a colon (quoted or not, spaces between) appears anywhere and
    nothing else could spell such a key. A file of plain strings (a one-language game's
    10,000 cards) is then not composed a second time."""
    if _HIDDEN_KEY.search(text):
        return True
    return re.search(re.escape(source) + r"['\"]?\s*:", text) is not None


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
        i = text.find("{", i)  # every opener starts with a brace: skip to the next one
        if i < 0:
            break
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


@lru_cache(maxsize=8192)  # pure; the checks of one text ask for it about five times
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


def positional_contexts(lines: list[str]) -> dict[str, tuple[str | None, _Block]]:
    """The contexts of the earlier, positional scheme (`rules:§5.2:p3` = third paragraph of
    §5.2) -> (section, block). Read only to migrate a record or a PO file made with them."""
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


# ---------------------------------------------------------------- stable ids

# A rulebook segment's id is anchored to its content, not its position: the kind, a short hash
# of its whitespace-normalised source text, and `-2`, `-3`... for a second, third segment of the
# same kind and text in the section (`rules:§5.2:p-3f1c9a0b`). Inserting, moving or deleting a
# neighbour changes no other id. An edited text keeps the id it had when the record
# (rules/i18n-sync.yaml) knows that id and the new text is close to the recorded one (the same
# section and kind, difflib ratio >= FUZZY_RATIO), as msgmerge re-matches a changed msgid.
SHORT = {"paragraph": "p", "item": "li", "cell": "cell", "call": "call"}
FUZZY_RATIO = 0.6
SYNC_FILE = "i18n-sync.yaml"
STABLE_FORMAT = "stable"


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _content_hash(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode("utf-8")).hexdigest()[:8]


def _where(section: str | None) -> str:
    return f"§{section}" if section is not None else "intro"


@dataclass
class Recorded:
    """What rules/i18n-sync.yaml says about rulebook ids (read leniently: tracking.load
    reports a malformed file): the ids it tracks with the source text each was recorded
    against, and per language the digest of the translation text each id was last seen with."""

    texts: dict[str, str] = field(default_factory=dict)  # id -> recorded source text
    anchors: dict[str, dict[str, str]] = field(default_factory=dict)  # lang -> id -> digest
    # `format: segments` (positional contexts): lang -> old context -> source text reviewed
    positional: dict[str, dict[str, str]] = field(default_factory=dict)


def recorded(content: GameContent) -> Recorded:
    path = content.dir / "rules" / SYNC_FILE
    out = Recorded()
    try:
        raw = _sync_data(path) if path.exists() else None
    except (OSError, yaml.YAMLError, ContentError):
        return out
    if not isinstance(raw, dict) or raw.get("format") not in (STABLE_FORMAT, "segments"):
        return out  # the first format (per section): migrated by tracking on the next write
    positional = raw.get("format") != STABLE_FORMAT
    texts = raw.get("texts")
    texts = texts if isinstance(texts, dict) else {}
    languages = raw.get("languages")
    for lang, entries in (languages if isinstance(languages, dict) else {}).items():
        if not isinstance(entries, dict):
            continue
        for ctx, value in entries.items():
            if not str(ctx).startswith("rules:") or not isinstance(value, str):
                continue
            basis = value.split(":", 1)[1] if value.startswith("fuzzy:") else value
            text = texts.get(basis)
            if positional:
                if isinstance(text, str):
                    out.positional.setdefault(str(lang), {})[str(ctx)] = text
                continue
            if isinstance(text, str) or str(ctx) not in out.texts:
                out.texts[str(ctx)] = text if isinstance(text, str) else ""
    anchors = raw.get("anchors")
    if isinstance(anchors, dict):
        out.anchors = {
            str(lang): {str(k): str(v) for k, v in entries.items()}
            for lang, entries in anchors.items()
            if isinstance(entries, dict)
        }
    return out


def _sync_data(path: Path):
    """The record as plain data. load_yaml's reading is the same data, and the check has read
    the file that way already (tracking.py), so it is kept parsed (cache/yaml_cache.py); a file
    load_yaml refuses (a duplicate key) is read as a plain YAML reader reads it."""
    try:
        return load_yaml(path, allow_empty=True)
    except ContentError:
        return yaml.load(read_text(path), Loader=_LOADER)


def stable_ids(
    blocks: list[tuple[str | None, _Block]], known: dict[str, str] | None = None
) -> list[str]:
    """The id of each block (see above). `known`: id -> recorded source text of the ids a
    record tracks; an id of it that no block has any more is given to the most similar new
    block of its section and kind."""
    ids: list[str] = []
    seen: dict[str, int] = {}
    for section, block in blocks:
        where = _where(section)
        if block.kind == "title":
            ids.append("rules:title")
            continue
        if block.kind == "heading":
            ids.append(f"rules:{where}:title")
            continue
        base = f"rules:{where}:{SHORT[block.kind]}-{_content_hash(block.text)}"
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base}-{seen[base]}")
    if not known:
        return ids
    present = set(ids)
    orphans = [i for i in known if i not in present and known[i]]
    fresh = [n for n, i in enumerate(ids) if i not in known and "-" in i.rsplit(":", 1)[-1]]
    if not orphans or not fresh:
        return ids
    pairs = []
    for n in fresh:
        group = ids[n].split("-", 1)[0]  # rules:§5.2:p
        for orphan in orphans:
            if orphan.split("-", 1)[0] != group:
                continue
            ratio = difflib.SequenceMatcher(
                None, " ".join(known[orphan].split()), " ".join(blocks[n][1].text.split())
            ).ratio()
            if ratio >= FUZZY_RATIO:
                pairs.append((ratio, n, orphan))
    taken_n: set[int] = set()
    taken_o: set[str] = set()
    for _, n, orphan in sorted(pairs, key=lambda p: -p[0]):
        if n in taken_n or orphan in taken_o:
            continue
        ids[n] = orphan
        taken_n.add(n)
        taken_o.add(orphan)
    return ids


def _group(section: str | None, block: _Block) -> tuple[str | None, str]:
    return (section, block.kind if block.kind in SHORT else "head")


def align(
    ids: list[str],
    blocks: list[tuple[str | None, _Block]],
    target: list[tuple[str | None, _Block]],
    anchors: dict[str, str],
) -> dict[str, int]:
    """Which block of a translation's file (index into `target`) holds each source id.

    Within each section and kind: a translation block whose text is the one recorded for an id
    (`anchors`: id -> digest of the translation text) is that id's, wherever it has moved;
    the blocks left over between two such anchors take the ids left over between them, in
    order (with no record at all, that is segment N for segment N). A new source paragraph
    therefore has no translation yet instead of taking its neighbour's."""
    source_groups: dict[tuple[str | None, str], list[str]] = {}
    for i, (section, block) in zip(ids, blocks, strict=True):
        source_groups.setdefault(_group(section, block), []).append(i)
    target_groups: dict[tuple[str | None, str], list[int]] = {}
    for n, (section, block) in enumerate(target):
        target_groups.setdefault(_group(section, block), []).append(n)
    out: dict[str, int] = {}
    for key, wanted in source_groups.items():
        have = target_groups.get(key, [])
        if key[1] == "head":  # the title, a section's heading: one per section
            if have:
                out[wanted[0]] = have[0]
            continue
        pos = {i: k for k, i in enumerate(wanted)}
        by_digest: dict[str, list[str]] = {}
        for i in wanted:
            if i in anchors:
                by_digest.setdefault(anchors[i], []).append(i)
        owner: list[str | None] = [None] * len(have)
        for k, n in enumerate(have):
            free = [i for i in by_digest.get(text_digest(target[n][1].text), []) if i not in out]
            if free:
                best = min(free, key=lambda i: abs(pos[i] - k))
                out[best] = n
                owner[k] = best
        k = 0
        while k < len(have):
            if owner[k] is not None:
                k += 1
                continue
            start = k
            while k < len(have) and owner[k] is None:
                k += 1
            before = owner[start - 1] if start > 0 else None
            after = owner[k] if k < len(have) else None
            lo = pos[before] + 1 if before is not None else 0
            hi = pos[after] if after is not None else len(wanted)
            free_ids = [wanted[m] for m in range(lo, max(lo, hi)) if wanted[m] not in out]
            for m, i in zip(range(start, k), free_ids, strict=False):
                out[i] = have[m]
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


@dataclass
class RulesLayout:
    """The source rulebook's segments with their ids, and a translation's blocks aligned."""

    ids: list[str]
    blocks: list[tuple[str | None, _Block]]
    record: Recorded


def source_layout(content: GameContent, source: str) -> RulesLayout | None:
    files = rules_files(content.dir)
    if source not in files:
        return None
    blocks = rules_blocks(read_text(files[source]).split("\n"))
    record = recorded(content)
    ids = stable_ids(blocks, record.texts)
    if record.positional:
        _positional_anchors(record, ids, blocks, files)
    return RulesLayout(ids, blocks, record)


def _positional_anchors(
    record: Recorded, ids: list[str], blocks: list[tuple[str | None, _Block]], files: dict
) -> None:
    """Anchors from a record of the positional format, until it is migrated: the translation
    block at an old context (`rules:§5:p1`) belongs to the source segment whose text is the one
    it was reviewed against (found in the same section), so a translation shown against the
    wrong paragraph since a paragraph was inserted finds its own again."""
    for lang, entries in record.positional.items():
        if lang not in files:
            continue
        target = positional_contexts(read_text(files[lang]).split("\n"))
        anchors = record.anchors.setdefault(lang, {})
        for old, text in entries.items():
            if old not in target or old.count(":") < 2:
                continue
            where = old.split(":")[1]
            same = [
                i
                for i, (section, block) in zip(ids, blocks, strict=True)
                if _where(section) == where and block.text == text
            ]
            if len(same) == 1 and same[0] not in anchors:
                anchors[same[0]] = text_digest(target[old][1].text)


def rules_places(
    layout: RulesLayout, lang: str, lines: list[str], anchors: dict[str, str] | None = None
) -> dict[str, tuple[int, _Block]]:
    """id -> (index, block) of the translation's blocks in `lines` (see align())."""
    target = rules_blocks(lines)
    wanted = layout.record.anchors.get(lang, {}) if anchors is None else anchors
    found = align(layout.ids, layout.blocks, target, wanted)
    return {i: (n, target[n][1]) for i, n in found.items()}


def rules_segments(content: GameContent, source: str) -> list[Segment]:
    layout = source_layout(content, source)
    if layout is None:
        return []
    files = rules_files(content.dir)
    targets = {
        lang: rules_places(layout, lang, read_text(path).split("\n"))
        for lang, path in files.items()
        if lang != source
    }
    out = []
    for ctx, (section, block) in zip(layout.ids, layout.blocks, strict=True):
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

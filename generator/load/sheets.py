"""Items from a spreadsheet: `items: cards.csv` (or `.xlsx`, `.ods`, `cards.xlsx#Sheet name`).

One row per item under a header row. Columns:
- `id` (required) and `count` (default 1), `layout` and `back` (optional): as an item's keys;
- every other column is a data field; dots nest (`stats.attack` gives `{stats: {attack: ...}}`);
- a translated field is one column per language, `title.es`, `title.en`: the last part of the
  name is a language of the game. A last part that is a language pnp knows (a file in
  templates/languages/) but not one of the game's, or a sibling of such columns (`title.de`
  next to `title.es`), is an error: a language column the game does not print is a typo or a
  forgotten `languages:` entry.

A cell reads as a whole number when it is one (`3`, or 3.0 in a spreadsheet), as a decimal when
it is one (`2.5`), as true/false from a spreadsheet's boolean cell, else as text; translated
cells are always text. An empty cell leaves its field out of that item (the component's `data`
then gives it, as for a YAML item that does not name it). A row whose cells are all empty is
skipped. Every error names the cell: `cards.xlsx:Sheet1!C14: count: ...`.

python-calamine reads .xlsx, .xlsm, .xls and .ods (a Rust reader: fast, no formulas run, no
macros); the standard csv module reads CSV (UTF-8, with or without a BOM).
"""

from __future__ import annotations

import csv
import io
import os
import re
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from pathlib import Path
from typing import Any

from generator.errors import ContentError

SUFFIXES = (".csv", ".xlsx", ".xlsm", ".xls", ".ods")
RESERVED = ("id", "count", "layout", "back")
_INT = re.compile(r"-?(0|[1-9][0-9]{0,17})")
_DEC = re.compile(r"-?[0-9]{1,18}\.[0-9]{1,18}")
_ERRORS = {"#DIV/0!", "#N/A", "#NAME?", "#NULL!", "#NUM!", "#REF!", "#VALUE!", "#GETTING_DATA"}


def is_sheet_ref(value: Any) -> bool:
    """Whether a component's `items:` names a spreadsheet rather than listing items."""
    if not isinstance(value, str):
        return False
    name = value.split("#", 1)[0].strip().lower()
    return name.endswith(SUFFIXES)


@dataclass(frozen=True)
class Row:
    """One item read from a sheet: its keys as a YAML item has them, and where it is."""

    item: dict[str, Any]  # id, count, data, layout?, back?
    row: int  # 1-based row number as the spreadsheet shows it
    cells: dict[str, str]  # key ("id", "count", "data.title.es"...) -> "Sheet1!C14"


@dataclass(frozen=True)
class Sheet:
    path: Path
    sheet: str | None  # the sheet's name (None for a CSV)
    rows: list[Row]
    columns: list[str]
    translated: dict[str, list[str]]  # field ("title", "stats.name") -> its languages

    def where(self, ref: str) -> str:
        return f"{self.sheet}!{ref}" if self.sheet else ref


def column_letter(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA."""
    out = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        out = chr(65 + rest) + out
    return out


def split_ref(ref: str) -> tuple[str, str | None]:
    """'cards.xlsx#Planes' -> ('cards.xlsx', 'Planes')."""
    name, _, sheet = ref.partition("#")
    return name.strip(), (sheet.strip() or None) if "#" in ref else None


def _error(path: Path, where: str | None, message: str, hint: str | None = None, **kw):
    return ContentError(message, path, hint=hint, code=kw.pop("code", "sheet"), cell=where, **kw)


def read(
    path: Path, sheet_name: str | None, languages: tuple[str, ...], known: frozenset[str]
) -> Sheet:
    """Read the items of one sheet (see the module's text). `languages`: the game's;
    `known`: every language pnp has a file for (to tell `title.de` from `stats.hp`)."""
    from generator.limits import LIMITS
    from generator.load.project import read_bytes

    suffix = path.suffix.lower()
    data = read_bytes(path, LIMITS.files.art_bytes, "spreadsheet")
    max_rows = LIMITS.counts.items_per_component + 1
    if suffix == ".csv":
        if sheet_name is not None:
            raise _error(path, None, f"a CSV file has no sheets ('#{sheet_name}')", code="sheet")
        grid, label = _csv(path, data, max_rows), None
    else:
        grid, label = _workbook(path, data, sheet_name, max_rows)
    return _parse(path, label, grid, languages, known)


def _csv(path: Path, data: bytes, max_rows: int) -> list[list[Any]]:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise _error(
            path,
            None,
            f"not UTF-8 text (byte {exc.start})",
            "export the sheet as 'CSV UTF-8'",
            code="sheet",
        ) from None
    try:
        sample = text[:4096]
        dialect = csv.Sniffer().sniff(sample, delimiters=",;\t") if sample.strip() else csv.excel
    except csv.Error:
        dialect = csv.excel
    rows: list[list[Any]] = []
    try:
        for row in csv.reader(io.StringIO(text, newline=""), dialect):
            rows.append(row)
            if len(rows) > max_rows:
                break
    except csv.Error as exc:
        raise _error(path, f"row {len(rows) + 1}", f"not valid CSV: {exc}", code="sheet") from None
    return rows


def _workbook(
    path: Path, data: bytes, sheet_name: str | None, max_rows: int
) -> tuple[list[list[Any]], str]:
    from python_calamine import CalamineWorkbook

    try:
        book = CalamineWorkbook.from_filelike(io.BytesIO(data))
    except Exception as exc:  # calamine's own error types: a broken or foreign file
        raise _error(path, None, f"cannot be read as a spreadsheet ({exc})", code="sheet") from None
    names = list(book.sheet_names)
    if sheet_name is None:
        if not names:
            raise _error(path, None, "the workbook has no sheet", code="sheet")
        sheet_name = names[0]
    elif sheet_name not in names:
        import difflib

        close = difflib.get_close_matches(sheet_name, names, n=1)
        raise _error(
            path,
            None,
            f"no sheet '{sheet_name}'",
            (f"did you mean '{close[0]}'? " if close else "") + "sheets: " + ", ".join(names),
            code="sheet",
        )
    try:
        sheet = book.get_sheet_by_name(sheet_name)
        if sheet.height > max_rows:
            raise _error(
                path,
                sheet_name,
                f"{sheet.height:,} rows: more than the {max_rows - 1:,} items a component may have",
                code="limit",
            )
        grid = sheet.to_python(skip_empty_area=False)
    except ContentError:
        raise
    except Exception as exc:
        raise _error(path, sheet_name, f"cannot be read ({exc})", code="sheet") from None
    return grid, sheet_name


def _number(text: str) -> Any:
    if _INT.fullmatch(text):
        return int(text)
    if _DEC.fullmatch(text):
        return float(text)
    return text


def _value(raw: Any, translated: bool) -> Any:
    """A cell as a data value; None for an empty cell. Raises ValueError for an error cell."""
    if raw is None:
        return None
    if isinstance(raw, bool):
        return str(raw).lower() if translated else raw
    if isinstance(raw, float):
        if raw != raw or raw in (float("inf"), float("-inf")):
            raise ValueError("not a number")
        value: Any = int(raw) if raw.is_integer() else raw
        return str(value) if translated else value
    if isinstance(raw, int):
        return str(raw) if translated else raw
    if isinstance(raw, datetime | date | time):
        return raw.isoformat()
    if isinstance(raw, timedelta):
        return str(raw)
    text = str(raw)
    if text.strip() in _ERRORS:
        raise ValueError(f"the cell holds the error {text.strip()}")
    if not text.strip():
        return None
    return text if translated else _number(text.strip())


def _parse(
    path: Path,
    label: str | None,
    grid: list[list[Any]],
    languages: tuple[str, ...],
    known: frozenset[str],
) -> Sheet:
    from generator.limits import LIMITS, exceeded
    from generator.load.model import ID_RE, MAX_COUNT

    def where(col: int, row: int) -> str:
        ref = f"{column_letter(col)}{row}"
        return f"{label}!{ref}" if label else ref

    # the header: the first row with anything in it
    start = next((i for i, r in enumerate(grid) if any(_blank(c) is False for c in r)), None)
    if start is None:
        raise _error(path, label, "the sheet is empty: it needs a header row (id, count, ...)")
    header = grid[start]
    columns: dict[int, str] = {}
    for col, cell in enumerate(header):
        name = "" if cell is None else str(cell).strip()
        if not name:
            continue
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*", name):
            raise _error(
                path,
                where(col, start + 1),
                f"column name '{name}' cannot be used",
                "letters, digits, '_' and '-', parts joined by dots: title.es, stats.attack",
                key=name,
            )
        if name in columns.values():
            first = next(c for c, n in columns.items() if n == name)
            raise _error(
                path,
                where(col, start + 1),
                f"column '{name}' appears twice (also {where(first, start + 1)})",
                key=name,
            )
        columns[col] = name
    if "id" not in columns.values():
        raise _error(
            path,
            where(0, start + 1),
            "missing column 'id'",
            "the header row names the columns: id, count, then your data (title.en, cost...)",
            key="id",
            code="sheet-column",
        )
    lang_of = _language_columns(path, label, columns, start + 1, languages, known, where)
    _check_nesting(path, columns, lang_of, start + 1, where)
    rows: list[Row] = []
    seen: dict[str, str] = {}
    for index in range(start + 1, len(grid)):
        cells = grid[index]
        row_no = index + 1
        if all(_blank(c) is not False for c in cells):
            continue
        for col, cell in enumerate(cells):
            if col not in columns and _blank(cell) is False:
                raise _error(
                    path,
                    where(col, row_no),
                    "a value in a column with no name",
                    "name the column in the header row, or empty the cell",
                )
        item: dict[str, Any] = {"data": {}}
        refs: dict[str, str] = {}
        for col, name in columns.items():
            raw = cells[col] if col < len(cells) else None
            try:
                value = _value(raw, translated=col in lang_of)
            except ValueError as exc:
                raise _error(path, where(col, row_no), str(exc), key=name) from None
            ref = where(col, row_no)
            if name in RESERVED:
                refs[name] = ref
                if value is not None:
                    item[name] = value
                continue
            refs[f"data.{name}"] = ref  # empty cells too: where a translation would go
            if value is None:
                continue
            parts = name.split(".")
            if col in lang_of:
                parts = parts[:-1]
            target = item["data"]
            for part in parts[:-1]:
                target = target.setdefault(part, {})
            if col in lang_of:
                target.setdefault(parts[-1], {})[lang_of[col]] = value
            else:
                target[parts[-1]] = value
        _check_item(path, item, refs, row_no, ID_RE, MAX_COUNT, where, columns)
        if item["id"] in seen:
            raise _error(
                path,
                refs["id"],
                f"duplicate id '{item['id']}' (also {seen[item['id']]})",
                "item ids must be unique in a component",
                key="id",
                code="duplicate-id",
            )
        seen[item["id"]] = refs["id"]
        rows.append(Row(item, row_no, refs))
        if len(rows) > LIMITS.counts.items_per_component:
            raise exceeded(
                "the number of items",
                f"over {LIMITS.counts.items_per_component:,}",
                f"{LIMITS.counts.items_per_component:,}",
                file=path,
            )
    if not rows:
        raise _error(path, label, "no items: the sheet has a header row and nothing under it")
    translated: dict[str, list[str]] = {}
    for col, lang in lang_of.items():
        translated.setdefault(columns[col].rpartition(".")[0], []).append(lang)
    return Sheet(path, label, rows, list(columns.values()), translated)


def _blank(cell: Any) -> bool:
    return cell is None or (isinstance(cell, str) and not cell.strip())


def _language_columns(path, label, columns, header_row, languages, known, where) -> dict[int, str]:
    """Column -> language for translated columns; an error for an unknown language column."""
    by_prefix: dict[str, list[int]] = {}
    for col, name in columns.items():
        prefix, _, last = name.rpartition(".")
        if prefix and re.fullmatch(r"[a-z]{2}", last):
            by_prefix.setdefault(prefix, []).append(col)
    out: dict[int, str] = {}
    for prefix, cols in by_prefix.items():
        lasts = {col: columns[col].rpartition(".")[2] for col in cols}
        is_text = any(v in languages or v in known for v in lasts.values())
        if not is_text:
            continue  # stats.hp, pos.xy: nested fields
        for col, lang in lasts.items():
            if lang not in languages:
                raise _error(
                    path,
                    where(col, header_row),
                    f"unknown language column '{columns[col]}': the game's languages are "
                    + ", ".join(languages),
                    f"add '{lang}' to game.yaml's languages, or rename or delete the column",
                    key=columns[col],
                    code="sheet-language",
                )
            out[col] = lang
        if prefix in columns.values():
            col = next(c for c, n in columns.items() if n == prefix)
            raise _error(
                path,
                where(col, header_row),
                f"column '{prefix}' and per-language columns '{prefix}.<lang>' both",
                "keep one: a text in every language, or one per language",
                key=prefix,
            )
    return out


def _check_nesting(path, columns, lang_of, header_row, where) -> None:
    """`stats` and `stats.attack` cannot both be columns (a value is not a mapping)."""
    fields = {
        name.rpartition(".")[0] if col in lang_of else name: col for col, name in columns.items()
    }
    for name, col in fields.items():
        parts = name.split(".")
        if parts[0] in RESERVED and len(parts) > 1:
            raise _error(
                path,
                where(col, header_row),
                f"column '{columns[col]}': '{parts[0]}' is an item key, not a data field",
                key=columns[col],
            )
        for i in range(1, len(parts)):
            parent = ".".join(parts[:i])
            if parent in fields:
                raise _error(
                    path,
                    where(col, header_row),
                    f"column '{columns[col]}' nests under the column '{parent}', which holds a "
                    "value",
                    key=columns[col],
                )


def _check_item(path, item, refs, row_no, id_re, max_count, where, columns) -> None:
    item_id = item.get("id")
    if item_id is None:
        raise _error(path, refs["id"], "this row has no id", key="id", code="sheet-cell")
    item_id = str(item_id).strip()
    if len(item_id) > 64 or not re.fullmatch(id_re, item_id):
        raise _error(
            path,
            refs["id"],
            f"id '{item_id}' is not an item id",
            "use a-z, 0-9, '-' and '_', starting with a letter or digit, at most 64 characters",
            key="id",
            code="sheet-cell",
        )
    item["id"] = item_id
    count = item.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= max_count:
        raise _error(
            path,
            refs.get("count", where(0, row_no)),
            f"count '{count}' is not a whole number from 1 to {max_count}",
            key="count",
            code="sheet-cell",
        )
    item["count"] = count
    for key in ("layout", "back"):
        if key in item and not isinstance(item[key], str):
            raise _error(path, refs[key], f"{key} '{item[key]}' is not a layout name", key=key)


def known_languages(folders: list[Path]) -> frozenset[str]:
    """Language codes pnp has a file for (templates/languages/xx.yaml)."""
    out: set[str] = set()
    for folder in folders:
        if folder.is_dir():
            out.update(p.stem for p in folder.glob("*.yaml") if re.fullmatch(r"[a-z]{2}", p.stem))
    return frozenset(out)


def resolve(game_dir: Path, comp_file: Path, ref: str, line: int | None) -> tuple[Path, str | None]:
    """The spreadsheet an `items:` names (relative to the component file, inside the game)."""
    from generator.load.project import inside

    name, sheet = split_ref(ref)
    relative = os.path.normpath(os.path.join(os.path.relpath(comp_file.parent, game_dir), name))
    path = inside(
        game_dir,
        relative.replace(os.sep, "/"),
        what="spreadsheet",
        file=comp_file,
        line=line,
        key="items",
    )
    if not path.is_file():
        raise ContentError(
            f"spreadsheet '{name}' not found",
            comp_file,
            line,
            "items",
            f"items: names a file relative to {comp_file.name} ({path})",
            code="missing-file",
        )
    return path, sheet

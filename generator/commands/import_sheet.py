"""`pnp import-sheet FILE`: a component whose items are a spreadsheet's rows, with a layout that
shows every column, so a designer sees their data on cards at once.

Writes `content/GAME/components/ID.yaml` (`items: FILE#Sheet`) and `content/GAME/layouts/ID.yaml`
(one text box per data field, its column name in bold before the value; translated fields once,
in the language being printed). A spreadsheet outside the game folder is copied into
`components/` first, so the game stays one folder. Nothing is replaced: an existing component,
layout or a different file of the same name stops it before anything is written.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import yaml

from generator.errors import ContentError
from generator.load import sheets
from generator.load.project import Project

MAX_FIELDS = 30  # one card shows this many lines at 6 pt at least; more is a deck to design
CARD_W, CARD_H, MARGIN = 63.0, 88.0, 4.0  # poker, mm


def import_sheet(
    project: Project,
    file: Path,
    game: str | None,
    component: str | None,
    sheet_name: str | None = None,
) -> tuple[list[Path], list[str]]:
    """Write the component and its layout. Returns the files written and notes for the user."""
    from generator.load.content import load_game_yaml
    from generator.load.model import ID_RE

    game = _game(project, game)
    game_dir = project.game_dir(game)
    raw_game = load_game_yaml(game_dir / "game.yaml")
    langs = tuple(
        next(iter(x)) if isinstance(x, dict) else str(x) for x in raw_game.get("languages") or []
    )
    name, _, picked = str(file).partition("#")
    sheet_name = sheet_name or (picked or None)
    source = Path(name)
    if not source.is_file():
        raise ContentError("no such spreadsheet", source, code="usage")
    if not source.name.lower().endswith(sheets.SUFFIXES):
        raise ContentError(
            "not a spreadsheet",
            source,
            code="usage",
            hint="pnp reads " + ", ".join(sheets.SUFFIXES),
        )
    comp_id = component or re.sub(r"[^a-z0-9_-]+", "-", source.stem.lower()).strip("-_")
    if not re.fullmatch(ID_RE, comp_id) or len(comp_id) > 64:
        raise ContentError(
            f"'{comp_id}' is not a component id", code="usage", hint="pass --id my-cards"
        )
    comp_dir = game_dir / "components"
    comp_file = comp_dir / f"{comp_id}.yaml"
    layout_file = game_dir / "layouts" / f"{comp_id}.yaml"
    for path in (comp_file, layout_file):
        if path.exists():
            raise ContentError("exists already", path, code="usage", hint="pass --id another-id")
    inside_game = _inside(source, game_dir)
    sheet_path = source if inside_game else comp_dir / source.name
    if not inside_game and sheet_path.exists():
        raise ContentError(
            "a different file of this name is in the game already",
            sheet_path,
            code="usage",
            hint="rename one of them",
        )
    known = sheets.known_languages(project.template_dirs("languages"))
    # read from where it is: every error names the designer's own file and cell
    sheet = sheets.read(source.absolute(), sheet_name, langs, known)
    fields = _fields(sheet)
    if not fields:
        raise ContentError(
            "no data columns to show (only id and count)",
            source,
            code="usage",
            hint="add columns: title.en, cost, text.en ...",
        )
    if len(fields) > MAX_FIELDS:
        raise ContentError(
            f"{len(fields)} data columns: more than the {MAX_FIELDS} one card can show",
            source,
            code="usage",
            hint="import a copy with the columns you want on the card first",
        )
    ref = os.path.relpath(sheet_path, comp_dir).replace(os.sep, "/")
    if sheet.sheet is not None:
        ref += f"#{sheet.sheet}"
    title = comp_id.replace("-", " ").replace("_", " ").capitalize()
    component_yaml = {
        "id": comp_id,
        "name": dict.fromkeys(langs, title) if len(langs) > 1 else title,
        "kind": "card",
        "size": "poker",
        "layout": comp_id,
        "items": ref,
    }
    layout_yaml = {
        "extends": "base/card",
        "boxes": _boxes(fields, sheet),
    }
    written: list[Path] = []
    try:
        if not inside_game:
            comp_dir.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, sheet_path)
            written.append(sheet_path)
        head = (
            f"# Made by `pnp import-sheet {source.name}`: one card per row of "
            f"{source.name}{' (sheet ' + sheet.sheet + ')' if sheet.sheet else ''}; "
            f"edit the sheet, the card follows.\n"
            f"# The layout, layouts/{comp_id}.yaml, shows every column: make it yours.\n"
        )
        _write_new(comp_file, head + _dump(component_yaml))
        written.append(comp_file)
        layout_file.parent.mkdir(parents=True, exist_ok=True)
        _write_new(
            layout_file,
            f"# Every column of {source.name}, one line each (made by `pnp import-sheet`).\n"
            + _dump(layout_yaml),
        )
        written.append(layout_file)
    except BaseException:
        for path in written:
            path.unlink(missing_ok=True)
        raise
    total = sum(r.item.get("count", 1) for r in sheet.rows)
    notes = [
        f"{len(sheet.rows)} items, {total} cards, {len(fields)} fields on each card",
        f"manifest.yaml: add `{comp_id}: {{count: {total}}}` under components if the box holds "
        "them",
    ]
    return written, notes


def _game(project: Project, game: str | None) -> str:
    games = project.game_ids()
    if game is None:
        if len(games) != 1:
            raise ContentError(
                "which game?" if games else "no game in this project yet",
                code="usage",
                hint=f"pass --game, one of: {', '.join(games)}"
                if games
                else "start one with `pnp new GAME`",
            )
        return games[0]
    if game not in games:
        raise ContentError(
            f"no game '{game}' in content/",
            code="usage",
            hint=f"games: {', '.join(games) or 'none'}",
        )
    return game


def _inside(path: Path, folder: Path) -> bool:
    real, base = path.resolve(), folder.resolve()
    return base in real.parents


def _fields(sheet: sheets.Sheet) -> list[str]:
    """The data fields, in column order, a translated one once."""
    out: list[str] = []
    for column in sheet.columns:
        if column in sheets.RESERVED:
            continue
        prefix, _, last = column.rpartition(".")
        name = prefix if prefix in sheet.translated and last in sheet.translated[prefix] else column
        if name not in out:
            out.append(name)
    return out


def _has_blank(sheet: sheets.Sheet, field: str) -> bool:
    for row in sheet.rows:
        value = row.item["data"]
        for part in field.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return True
    return False


def _boxes(fields: list[str], sheet: sheets.Sheet) -> list[dict]:
    step = min(12.0, (CARD_H - 2 * MARGIN) / len(fields))
    size = max(6.0, min(9.0, step * 2.835 / 1.3))
    boxes = []
    for index, field in enumerate(fields):
        box: dict = {
            "id": "f-" + re.sub(r"[^a-z0-9_-]+", "-", field.lower()),
            "kind": "text",
            "text": f"**{field}:** {{{{ {field} }}}}",
            "x": f"{MARGIN}mm",
            "y": f"{round(MARGIN + index * step, 2)}mm",
            "w": f"{CARD_W - 2 * MARGIN}mm",
            "h": f"{round(step, 2)}mm",
            "size": f"{round(size, 1)}pt",
            "min_size": "6pt",
            "valign": "middle",
            "color": "#1b1b1b",
        }
        if _has_blank(sheet, field):  # a blank cell: the line is left out on that card
            parts = field.split(".")
            box["if"] = " and ".join(
                f"{'.'.join(parts[: i + 1])} is defined" for i in range(len(parts))
            )
        boxes.append(box)
    return boxes


def _dump(data: dict) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False, width=100)


def _write_new(path: Path, text: str) -> None:
    with path.open("x", encoding="utf-8") as fh:
        fh.write(text)

"""Load a game folder into the typed model: game.yaml, components/*.yaml, manifest.yaml.

Every error is a ContentError naming file, line and key. Matrices are expanded into items
here, so later stages see one flat list of items per component.
"""

from __future__ import annotations

import difflib
import itertools
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from generator.errors import ContentError
from generator.limits import LIMITS, exceeded
from generator.load import languages, model, model_cache, sheets, templating
from generator.load.layouts import game_store
from generator.load.project import Project, inside
from generator.load.rules_source import parse_rules, rules_files
from generator.load.shapes import NAMED_SIDES, Outline, outline_of, regular_box
from generator.load.sizes import face_size, paper_size
from generator.load.strings_digest import remember_strings
from generator.load.validation import validate
from generator.load.yamlload import YDict, load_yaml
from generator.units import MM


@dataclass(slots=True)
class ItemSpec:
    """One printable item after matrix expansion: its raw data and where it was written."""

    id: str
    count: int
    data: dict[str, Any]
    layout: str
    back: str | None
    file: Path
    line: int | None
    data_lines: dict[str, int] = field(default_factory=dict)  # "label", "label.es": lines


@dataclass
class ComponentSpec:
    model: model.Component
    file: Path
    line_of: dict[str, int]
    items: list[ItemSpec]
    size_pt: tuple[float, float]
    sheet: Path | None = None  # the spreadsheet its items come from (`items: cards.csv`)
    sheet_name: str | None = None  # its sheet (`items: cards.xlsx#Planes`); None: the first
    data_lines: dict[str, int] = field(default_factory=dict)  # its `data:` keys' lines

    def data_line(self, key: str, lang: str | None = None) -> int | None:
        """The line of `data.<key>` (of its `lang` text when it has one)."""
        lines = self.data_lines
        return lines.get(f"{key}.{lang}") or lines.get(key) or self.line_of.get("data")

    @property
    def id(self) -> str:
        return self.model.id

    @property
    def total(self) -> int:
        return sum(i.count for i in self.items)

    @property
    def outline(self) -> Outline:
        """The die-cut outline of every face of this component (a plain rectangle by default)."""
        return outline_of(self.model.shape, self.size_pt)


@dataclass
class GameContent:
    project: Project
    dir: Path
    game: model.Game
    components: list[ComponentSpec]
    manifest: model.Manifest | None
    manifest_raw: Any = None
    files: list[Path] = field(default_factory=list)
    rules: dict = field(default_factory=dict)  # lang -> RulesSource
    draft_errors: list = field(default_factory=list)  # draft languages' rulebooks that did not load
    game_lines: dict[str, int] = field(default_factory=dict)  # game.yaml's keys: their lines

    def game_error(self, exc: ContentError, key: str) -> ContentError:
        """An error in game.yaml's `key` (its title in one language), located there."""
        return exc.located(self.dir / "game.yaml", self.game_lines.get(key), key)

    @property
    def id(self) -> str:
        return self.game.id

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(self.game.languages)

    def component(self, component_id: str) -> ComponentSpec:
        return next(c for c in self.components if c.id == component_id)


def lang_lines(raw: Any, key: str) -> dict[str, int]:
    """The lines of a per-language text's entries ("name.es"), so a finding about one
    language's text is located at its own line."""
    value = raw.get(key) if isinstance(raw, dict) else None
    if not isinstance(value, YDict):
        return {}
    return {f"{key}.{lang}": value.line_of(lang) or 0 for lang in value}


def data_lines(raw: Any) -> dict[str, int]:
    """The lines of a `data:` mapping's keys and of their language texts ("label",
    "label.es"), so an error in one is located at its own line."""
    out: dict[str, int] = {}
    data = raw.get("data") if isinstance(raw, dict) else None
    if not isinstance(data, YDict):
        return out
    for key, value in data.items():
        out[str(key)] = data.line_of(key) or 0
        if isinstance(value, YDict):
            for sub in value:
                out[f"{key}.{sub}"] = value.line_of(sub) or 0
    return out


def _expand_items(
    comp: model.Component,
    raw: YDict,
    file: Path,
    game: model.Game,
    sheet: sheets.Sheet | None = None,
) -> list[ItemSpec]:
    items: list[ItemSpec] = []
    raw_items = raw.get("items") or []
    assert isinstance(comp.items, list)  # a spreadsheet's rows replaced its name (_sheet_items)
    for index, written in enumerate(comp.items):
        line = raw_items.line_of(index) if hasattr(raw_items, "line_of") else None
        where = file
        if sheet is not None:  # an item from a spreadsheet is found at its row
            where, line = sheet.path, sheet.rows[index].row
        items.append(
            ItemSpec(
                written.id,
                written.count,
                dict(written.data),
                written.layout or comp.layout,
                written.back if written.back is not None else comp.back,
                where,
                line,
                data_lines(raw_items[index]) if sheet is None else {},
            )
        )
    if comp.matrix:
        matrix = comp.matrix
        line = raw.line_of("matrix")
        keys = list(matrix.over)
        planned = len(items) + math.prod(len(v) for v in matrix.over.values())
        if planned > LIMITS.counts.items_per_component:
            raise exceeded(
                "the number of items (matrix included)",
                f"{planned:,}",
                f"{LIMITS.counts.items_per_component:,}",
                file=file,
                line=line,
                key="matrix.over",
            )
        templating.check_syntax(matrix.id)
        for values in itertools.product(*(matrix.over[k] for k in keys)):
            data = {**matrix.data, **dict(zip(keys, values, strict=True))}
            try:
                item_id = templating.render(matrix.id, {**game.data, **comp.data, **data}).strip()
            except ContentError as exc:
                exc.located(file, line, "matrix.id")
                raise
            # The same rule as a written id (ASCII, at most 64): ids become file names.
            if len(item_id) > 64 or not re.fullmatch(model.ID_RE, item_id.lower()):
                raise ContentError(
                    f"matrix id gives '{item_id}', not a valid item id",
                    file,
                    line,
                    "matrix.id",
                    "use a-z, 0-9, '-' and '_', at most 64 characters",
                    code="schema",
                )
            items.append(
                ItemSpec(item_id.lower(), matrix.count, data, comp.layout, comp.back, file, line)
            )
    seen: dict[str, ItemSpec] = {}
    for item in items:
        if item.id in seen:
            raise ContentError(
                f"duplicate item id '{item.id}' (also at line {seen[item.id].line})",
                file,
                item.line,
                "items",
                "item ids must be unique in a component",
                code="duplicate-id",
            )
        seen[item.id] = item
    return items


def _check_face(size: tuple[float, float], comp: model.Component, game: model.Game) -> None:
    """A face must be printable: within the size budget, and bigger than twice its bleed."""
    w, h = (v / MM for v in size)
    low, high = LIMITS.lengths.face_min, LIMITS.lengths.face_max
    if not (low <= w <= high and low <= h <= high):
        raise ContentError(
            f"size {w:g} x {h:g} mm is out of range ({low:g}-{high:g} mm a side)",
            hint="bigger faces are printed in tiles; a real card is 20-150 mm",
            code="limit",
        )
    printing = comp.print if comp.print and "bleed" in comp.print.model_fields_set else game.print
    bleed = printing.bleed.points / MM
    if 2 * bleed >= min(w, h):
        raise ContentError(
            f"bleed {bleed:g} mm is too large for a {w:g} x {h:g} mm face",
            hint="bleed is usually 3 mm; it must be less than half the smaller side",
            code="limit",
        )


def load_game(project: Project, game_id: str) -> GameContent:
    """The game, loaded and validated; read back from the model cache when neither its files,
    the shared templates nor pnp changed since it last loaded (model_cache.py)."""
    key = model_cache.key(project, game_id)
    kept = model_cache.get(project, game_id, key) if key else None
    if kept is not None:
        content, layouts = kept
        # The validated layouts come with it (the key covers templates/ and the game folder):
        # a cached build never validates a layout, so it never builds the box validators.
        game_store(project, content.dir).adopt(layouts)
        return content
    content = _load_game(project, game_id)
    if key:
        layouts = game_store(project, content.dir).snapshot()
        model_cache.put(project, game_id, key, (content, layouts))
    return content


def _load_game(project: Project, game_id: str) -> GameContent:
    languages.use_project_templates(project.templates)
    game_dir = project.game_dir(game_id)
    game_file = game_dir / "game.yaml"
    if not game_dir.is_dir():
        known = project.game_ids()
        close = difflib.get_close_matches(game_id, known, n=1)
        raise ContentError(
            f"no game '{game_id}' in {project.content}",
            code="unknown-game",
            hint=f"did you mean '{close[0]}'?" if close else f"games: {', '.join(known) or 'none'}",
        )
    raw_game = load_game_yaml(game_file)
    game = validate(model.Game, raw_game, game_file)
    if game.id != game_id:
        raise ContentError(
            f"id '{game.id}' differs from the folder name '{game_id}'",
            game_file,
            raw_game.line_of("id"),
            "id",
            "rename one of them",
            code="schema",
        )
    files = [game_file]
    for name, rel_path in game.data_files.items():
        path = inside(
            game_dir,
            rel_path,
            what="data file",
            file=game_file,
            line=raw_game["data_files"].line_of(name),
            key=f"data_files.{name}",
        )
        if name in game.data:
            raise ContentError(
                f"'{name}' is both in data and data_files",
                game_file,
                raw_game["data_files"].line_of(name),
                f"data_files.{name}",
                code="schema",
            )
        game.data[name] = load_yaml(path)
        files.append(path)
    components: list[ComponentSpec] = []
    comp_dir = game_dir / "components"
    comp_files = sorted(comp_dir.glob("*.yaml")) if comp_dir.is_dir() else []
    if not comp_files:
        raise ContentError(
            "no component files", comp_dir, hint="add components/<name>.yaml", code="no-components"
        )
    for comp_file in comp_files:
        raw = load_yaml(comp_file)
        if not isinstance(raw, YDict):
            raise ContentError(
                "a component file must be a mapping of keys", comp_file, 1, code="schema"
            )
        sheet = _sheet_items(project, game, game_dir, comp_file, raw)
        if sheet is not None:
            comp = validate(model.Component, _with_sheet_items(raw, sheet), comp_file)
            files.append(sheet.path)
        else:
            comp = validate(model.Component, raw, comp_file)
        remember_strings(comp_file, raw, tuple(game.languages))
        if any(c.id == comp.id for c in components):
            raise ContentError(
                f"duplicate component id '{comp.id}'",
                comp_file,
                raw.line_of("id"),
                "id",
                code="duplicate-id",
            )
        try:
            size = face_size(project, comp.size)
            _check_face(size, comp, game)
        except ContentError as exc:
            exc.located(comp_file, raw.line_of("size"), "size")
            raise
        size = _shape_size(comp, size, comp_file, raw)
        items = _expand_items(comp, raw, comp_file, game, sheet)
        comp.items = []  # now ItemSpecs: one copy of each item's data, not two (big decks)
        _load_layouts(project, comp, items, raw, comp_file)
        components.append(
            ComponentSpec(
                comp,
                comp_file,
                {**raw.key_lines, **lang_lines(raw, "name")},
                items,
                size,
                sheet.path if sheet is not None else None,
                sheet.sheet if sheet is not None else None,
                data_lines(raw),
            )
        )
        files.append(comp_file)
    copies = sum(c.total for c in components)
    if copies > LIMITS.counts.copies_total:
        raise exceeded(
            "the number of copies in the game",
            f"{copies:,}",
            f"{LIMITS.counts.copies_total:,}",
            file=game_file,
        )
    _check_paths_and_papers(project, game, raw_game, game_file, game_dir, components)
    _check_sheet_groups(components)
    draft_errors: list[ContentError] = []
    rules = _load_rules(game_dir, game, draft_errors)
    manifest, manifest_raw = None, None
    manifest_file = game_dir / "manifest.yaml"
    if manifest_file.exists():
        manifest_raw = load_yaml(manifest_file)
        manifest = validate(model.Manifest, manifest_raw, manifest_file)
        files.append(manifest_file)
    content = GameContent(project, game_dir, game, components, manifest, manifest_raw, files, rules)
    content.draft_errors = draft_errors
    content.game_lines = {
        **raw_game.key_lines,
        **lang_lines(raw_game, "title"),
        **lang_lines(raw_game, "description"),
    }
    return content


def _sheet_items(
    project: Project, game: model.Game, game_dir: Path, comp_file: Path, raw: YDict
) -> sheets.Sheet | None:
    """The spreadsheet a component's `items:` names, read (None when it lists its items)."""
    ref = raw.get("items")
    if not isinstance(ref, str) or not model.is_sheet_ref(ref):
        return None
    line = raw.line_of("items")
    path, sheet_name = sheets.resolve(game_dir, comp_file, ref, line)
    known = sheets.known_languages(project.template_dirs("languages"))
    return sheets.read(path, sheet_name, tuple(game.languages), known)


def _with_sheet_items(raw: YDict, sheet: sheets.Sheet) -> YDict:
    """The component's mapping with the sheet's rows as its items (the file's own stays as
    read: it is shared by the build's keys)."""
    out = YDict(raw)
    out.file, out.line, out.key_lines = raw.file, raw.line, raw.key_lines
    out["items"] = [row.item for row in sheet.rows]
    return out


def _load_layouts(
    project: Project, comp: model.Component, items: list[ItemSpec], raw: YDict, file: Path
) -> None:
    """Every layout a component uses must load: a broken layout is a load error, found once."""
    layouts = game_store(project, file.parent.parent)  # file: <game>/components/x.yaml
    for item in items:
        for key, name in (("layout", item.layout), ("back", item.back)):
            if name is None:
                continue
            try:
                layouts.get_tree(name)
            except ContentError as exc:
                if exc.code in ("missing-layout", "bad-layout"):
                    line = item.line if name not in (comp.layout, comp.back) else raw.line_of(key)
                    exc.located(file, line, key)
                    raise
                raise


def _check_paths_and_papers(project, game, raw_game, game_file, game_dir, components) -> None:
    """Icons must exist inside the game folder; papers must be known.

    Found at load, not mid-build."""
    for name, rel_path in game.icons.items():
        line = raw_game["icons"].line_of(name)
        path = inside(
            game_dir, rel_path, what="icon", file=game_file, line=line, key=f"icons.{name}"
        )
        if not path.is_file():
            raise ContentError(
                f"icon file '{rel_path}' not found",
                game_file,
                line,
                f"icons.{name}",
                code="missing-art",
            )
    settings = [(game.print, game_file, raw_game)] + [
        (c.model.print, c.file, None) for c in components if c.model.print
    ]
    for printing, file, raw in settings:
        for paper in printing.papers:
            try:
                paper_size(project, paper)
            except ContentError as exc:
                line = (
                    raw["print"].line_of("papers") if raw is not None and "print" in raw else None
                )
                exc.located(file, line, "print.papers")
                raise
    known = [c.id for c in components]
    for cover_id in game.rulebook.cover or []:
        if cover_id not in known:
            close = difflib.get_close_matches(cover_id, known, n=1)
            raise ContentError(
                f"rulebook.cover names '{cover_id}', which is not a component of this game",
                game_file,
                raw_game["rulebook"].line_of("cover"),
                "rulebook.cover",
                f"did you mean '{close[0]}'?" if close else "components: " + ", ".join(known),
                code="unknown-component",
            )


def _check_sheet_groups(components: list[ComponentSpec]) -> None:
    """A sheet group's file is <group>-<paper>.pdf: it must not take another component's name."""
    ids = {c.id: c for c in components}
    for comp in components:
        group = comp.model.sheet
        other = ids.get(group) if group else None
        if other is not None and other.model.sheet != group:
            raise ContentError(
                f"sheet group '{group}' has the name of component '{group}', which prints on "
                "its own sheets: both would write the same file",
                comp.file,
                comp.line_of.get("sheet"),
                "sheet",
                hint=f"rename the group, or add 'sheet: {group}' to component '{group}'",
                code="schema",
            )


def _shape_size(comp: model.Component, size, comp_file: Path, raw) -> tuple[float, float]:
    """A shape given by its diameter or across-flats sets the face size; a size given as well
    must agree with it."""
    shape = comp.shape
    if not isinstance(shape, model.ShapeSpec) or (
        shape.diameter is None and shape.across_flats is None
    ):
        return size
    if shape.diameter is not None:
        derived = (shape.diameter.points, shape.diameter.points)
    elif shape.across_flats is not None:
        sides = NAMED_SIDES.get(shape.kind, shape.sides or 6)
        derived = regular_box(sides, shape.across_flats.points, shape.orientation == "pointy")
    if (
        "size" in comp.model_fields_set
        and max(abs(a - b) for a, b in zip(derived, size, strict=True)) > 0.05 * MM
    ):
        raise ContentError(
            f"the shape's size ({derived[0] / MM:.2f} x {derived[1] / MM:.2f} mm) disagrees with "
            f"size ({size[0] / MM:.2f} x {size[1] / MM:.2f} mm)",
            comp_file,
            raw.line_of("size"),
            "size",
            hint="give the size or the shape's diameter/across_flats, not both",
            code="schema",
        )
    return derived


def _load_rules(game_dir: Path, game: model.Game, draft_errors: list[ContentError]) -> dict:
    """Every rulebook; one of a draft language that does not parse is left out, its error kept
    for `pnp check` (a draft language never stops the others)."""
    rules = {}
    for lang, path in rules_files(game_dir).items():
        try:
            rules[lang] = parse_rules(path, lang)
        except ContentError as exc:
            if lang not in game.drafts:
                raise
            exc.lang = lang  # type: ignore[attr-defined]
            draft_errors.append(exc)
    return rules


def load_game_yaml(path: Path) -> YDict:
    raw = load_yaml(path)
    if not isinstance(raw, YDict):
        raise ContentError("game.yaml must be a mapping of keys", path, 1, code="schema")
    return raw


def print_settings(content: GameContent, comp: ComponentSpec | None) -> model.PrintSettings:
    """The game's print block with a component's own `print:` over it (only the keys the
    component sets); the game's alone for `comp` None. Command-line options go on top
    (build/run.py settings_for)."""
    settings = content.game.print.model_copy(deep=True)
    if comp is not None and comp.model.print is not None:
        for key in comp.model.print.model_fields_set:
            setattr(settings, key, getattr(comp.model.print, key))
    return settings

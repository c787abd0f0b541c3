"""Layouts: YAML files named by their path, with `extends`.

A game's layouts may live in its own folder, `content/<game>/layouts/`, which is searched
first; `templates/layouts/` keeps the shared ones (bases a game extends) and the layouts of
games written before game folders had their own. `mygame/card` is `mygame/card.yaml` under
the first of those folders that has it.

A child layout's boxes replace the parent's boxes that have the same `id` (key by key) and
are appended otherwise; other top-level keys override the parent's.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path

from generator import session
from generator.errors import ContentError
from generator.load import boxes
from generator.load.project import Project
from generator.load.validation import validate
from generator.load.yamlload import YDict, YList, load_yaml

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]*(/[a-z0-9][a-z0-9_-]*)*\Z")
MAX_DEPTH = 16


class LayoutStore:
    def __init__(self, *roots: Path):
        self.roots = roots  # searched in order
        self._cache: dict[str, boxes.Layout] = {}
        self.files_of: dict[str, list[Path]] = {}
        self.raw: dict[str, YDict] = {}

    def path(self, name: str) -> Path:
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise ContentError(
                f"'{name}' is not a layout name",
                code="bad-layout",
                hint="names are like 'mygame/card' (a file under the game's layouts/ folder "
                "or templates/layouts/)",
            )
        for root in self.roots:
            path = root / f"{name}.yaml"
            if path.is_file():
                return path
        return self.roots[-1] / f"{name}.yaml"

    def get(self, name: str) -> boxes.Layout:
        if name not in self._cache:
            raw, files = self._raw(name, ())
            self._cache[name] = validate(boxes.Layout, raw, files[0])
            self.files_of[name] = files
            self.raw[name] = raw
        return self._cache[name]

    def snapshot(self) -> dict[str, tuple]:
        """Every layout loaded so far, with its files and raw YAML (for the model cache)."""
        return {n: (self._cache[n], self.files_of[n], self.raw[n]) for n in self._cache}

    def adopt(self, loaded: dict[str, tuple]) -> None:
        """Take layouts validated by an earlier command from the same files (model_cache.py)."""
        for name, (layout, files, raw) in loaded.items():
            if name not in self._cache:
                self._cache[name], self.files_of[name], self.raw[name] = layout, files, raw

    def _missing_hint(self, name: str) -> str:
        """'did you mean' from every layout the game can see; else the game's own layouts (the
        first folder searched), then the shared ones, saying how many there are."""
        seen = [n for root in self.roots for n in _names(root)]
        close = difflib.get_close_matches(name, seen, n=1, cutoff=0.6)
        if close:
            return f"did you mean '{close[0]}'?"
        own = _names(self.roots[0]) if len(self.roots) > 1 else []  # the game's own folder
        listed = own[:12] or seen[:12]
        more = len(seen) - len(listed)
        where = "this game's layouts" if own else "layouts"
        return f"{where}: " + ", ".join(listed) + (f" (and {more} more)" if more > 0 else "")

    def get_tree(self, name: str, _chain: tuple[str, ...] = ()) -> boxes.Layout:
        """A layout and every layout its repeat boxes draw, all loaded (errors located)."""
        layout = self.get(name)
        for index, box in enumerate(layout.boxes):
            nested = box.nested_layout()
            if nested is None:
                continue
            if nested in _chain or nested == name:
                file, line = self.box_location(name, index)
                raise ContentError(
                    f"{box.kind} draws '{nested}', which contains this layout",
                    file,
                    line,
                    "layout",
                    code="circular-extends",
                )
            try:
                self.get_tree(nested, (*_chain, name))
            except ContentError as exc:
                if exc.code in ("missing-layout", "bad-layout"):
                    file, line = self.box_location(name, index)
                    exc.located(file, line, "layout")
                    raise
                raise
        return layout

    def box_location(self, name: str, index: int) -> tuple[Path | None, int | None]:
        """Where box `index` of layout `name` was written (it may be in a parent layout)."""
        raw = self.raw.get(name)
        boxes = raw.get("boxes") if raw is not None else None
        if not isinstance(boxes, YList) or index >= len(boxes):
            return None, None
        return getattr(boxes[index], "file", None) or boxes.file, boxes.line_of(index)

    def _raw(self, name: str, chain: tuple[str, ...]) -> tuple[YDict, list[Path]]:
        path = self.path(name)
        if name in chain:
            loop = " -> ".join((*chain, name))
            raise ContentError(
                f"circular extends: {loop}",
                code="circular-extends",
                hint="a layout cannot extend itself, directly or not",
            )
        if len(chain) > MAX_DEPTH:
            raise ContentError("extends chain too deep", path, code="circular-extends")
        if not path.is_file():
            raise ContentError(
                f"no layout '{name}' ({path.name} not found)",
                code="missing-layout",
                hint=self._missing_hint(name),
            )
        raw = load_yaml(path)
        if not isinstance(raw, YDict):
            raise ContentError("a layout must be a mapping with 'boxes'", path, 1, code="schema")
        boxes = raw.get("boxes")
        if boxes is not None and not (
            isinstance(boxes, YList) and all(isinstance(b, YDict) for b in boxes)
        ):
            raise ContentError(
                "'boxes' must be a list of boxes (mappings with a kind)",
                path,
                raw.line_of("boxes"),
                "boxes",
                code="schema",
            )
        parent_name = raw.get("extends")
        if parent_name is not None and not isinstance(parent_name, str):
            raise ContentError(
                "'extends' must be a layout name",
                path,
                raw.line_of("extends"),
                "extends",
                code="schema",
            )
        if parent_name is None:
            return raw, [path]
        try:
            parent, files = self._raw(parent_name, (*chain, name))
        except ContentError as exc:
            if exc.code in ("missing-layout", "bad-layout", "circular-extends"):
                exc.located(path, raw.line_of("extends"), "extends")
                raise
            raise
        return _merge(parent, raw), [path, *files]


def _names(root: Path) -> list[str]:
    return sorted(p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml"))


def _merge(parent: YDict, child: YDict) -> YDict:
    merged = YDict(parent)
    merged.file, merged.line = child.file, child.line
    merged.key_lines = {**parent.key_lines, **child.key_lines}
    for key, value in child.items():
        if key != "boxes":
            merged[key] = value
    merged.pop("extends", None)
    boxes = YList(parent.get("boxes") or [])
    boxes.file, boxes.line = child.file, child.line
    boxes.item_lines = list(getattr(parent.get("boxes"), "item_lines", [None] * len(boxes)))
    index = {
        b.get("id"): i
        for i, b in enumerate(boxes)
        if isinstance(b, dict) and isinstance(b.get("id"), str)
    }
    child_boxes = child.get("boxes") or []
    for j, box in enumerate(child_boxes):
        box_id = box.get("id") if isinstance(box, dict) and isinstance(box.get("id"), str) else None
        line = child_boxes.line_of(j) if hasattr(child_boxes, "line_of") else None
        if box_id in index:
            combined = YDict({**boxes[index[box_id]], **box})
            combined.file, combined.line = box.file, box.line
            combined.key_lines = {**boxes[index[box_id]].key_lines, **box.key_lines}
            boxes[index[box_id]] = combined
            boxes.item_lines[index[box_id]] = line
        else:
            boxes.append(box)
            boxes.item_lines.append(line)
    merged["boxes"] = boxes
    return merged


@session.cached
def store(*roots: Path) -> LayoutStore:
    return LayoutStore(*roots)


def game_store(project: Project, game_dir: Path) -> LayoutStore:
    """The layouts a game sees: its own layouts/ folder first, then templates/layouts/, then
    pnp's own (the shared bases, for a project whose templates/ does not have them)."""
    own = game_dir / "layouts"
    shared = project.template_dirs("layouts") or [project.layouts]
    return store(own, *shared) if own.is_dir() else store(*shared)

"""What a rulebook's Jinja blocks can use: the game's data, and helpers that build tables and
figures.

A rules file is Markdown with Jinja blocks, run in the sandbox (`generator.load.templating.ENV`).
The blocks see the game's data (in the rulebook's language, data templates rendered, so a
ability's effect "Deals {{ damage }} damage" reads its own numbers) and these helpers:

    components                      every component: id, name, count (from the manifest), ...
    component(id)                   one of them
    component_list(breakdown=True)  a table of the box contents with the manifest's counts
    items(component_id)             an item list (each item's data in this language), for table()
    table(rows, columns)            a table from a list of mappings; columns {header: key}
    figure(component, item, side='front', width='45mm', caption=None)   a face, drawn by the
                                    component engine and embedded as a 300 dpi picture
    board(rows, component=None, width=None, gap='1.5mm', pieces=None, per_face=1)
                                    a grid of faces (item ids), with pieces on its cells
    scene(pieces, size, width='150mm')   faces laid out on a table (setup, example positions)
    icon(name)                      one of the game's icons

Helpers that make HTML return a placeholder; the HTML replaces it after Markdown, so the
designer's own text is always escaped by the Markdown parser and never taken as HTML.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

from jinja2 import StrictUndefined

from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load import languages, templating
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.glossary import Glossary
from generator.rulebook import markup
from generator.rulebook.figures import MIN_TEXT_PT as MIN_FIGURE_TEXT_PT
from generator.rulebook.figures import FaceCache
from generator.units import MM, parse_length


def ui(lang: str) -> dict[str, str]:
    """Interface labels printed in a rulebook ("Contents", "Bilingual edition"...), from the
    language's file in templates/languages/."""
    language = languages.get(lang)
    return {**language.labels, "language": language.name}


def keep_words(html: str, lang: str) -> str:
    """Words kept whole when the language's script never breaks inside a word."""
    return markup.keep_words(html) if languages.get(lang).keep_words else html


# A placeholder (any Blocks' nonce), and a paragraph made of placeholders only: compiled once,
# where a pattern of one Blocks' own nonce was compiled afresh for every section.
_TOKEN = re.compile(r"pnpblk([0-9a-f]{8})n\d+x")
_TOKEN_PARAGRAPH = re.compile(r"<p>((?:\s*pnpblk[0-9a-f]{8}n\d+x)+)\s*</p>")


class Blocks:
    """HTML made by helpers, parked behind placeholders while Markdown runs."""

    def __init__(self) -> None:
        self.nonce = secrets.token_hex(4)
        self.items: dict[str, tuple[str, str]] = {}  # token -> (kind, html)
        self._re = re.compile(rf"pnpblk{self.nonce}n(\d+)x")

    def add(self, html: str, kind: str = "block") -> str:
        token = f"pnpblk{self.nonce}n{len(self.items)}x"
        self.items[token] = (kind, html)
        return token

    def restore(self, html: str) -> str:
        def paragraph(match: re.Match) -> str:
            tokens = _TOKEN.findall(match.group(1))
            if any(nonce != self.nonce for nonce in tokens):  # another Blocks' paragraph
                return match.group(0)
            found = [
                self.items[t[0]] for t in self._re.finditer(match.group(1)) if t[0] in self.items
            ]
            if found and all(kind == "figure" for kind, _ in found):
                # n figures share one row even in a narrow column: each may shrink to 1/n
                return (
                    f'<div class="figure-row n{min(len(found), 4)}">'
                    + "".join(h for _, h in found)
                    + "</div>"
                )
            return "".join(h for _, h in found)

        html = _TOKEN_PARAGRAPH.sub(paragraph, html)
        return self._re.sub(lambda m: self.items.get(m.group(0), ("", m.group(0)))[1], html)


def _unavailable(key: str, exc: ContentError) -> StrictUndefined:
    # e.g. a component's text that needs an item's data: only an error when used
    return StrictUndefined(
        hint=f"'{key}' is a template that cannot be rendered from the game's data alone"
    )


_NUMBERISH = re.compile(r"^\s*([+-]?\d+(?:[.,]\d+)?|[—–-])?\s*$")


def _numeric(value) -> bool:
    """A number, or a short text that is one (or a dash): centred in its column."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)) or value is None:
        return True
    return isinstance(value, str) and bool(_NUMBERISH.match(value))


# No text in a figure prints smaller (points); a figure is enlarged to this, up to the widest
# figure a page takes (the column may still narrow it: vector.place_faces then leaves out
# what would print smaller).
MIN_TEXT_PT = MIN_FIGURE_TEXT_PT
MAX_FIGURE_PT = 158 * MM  # the text column of an A4 page

SHORT_TABLE = 10  # rows: a shorter table is never split across pages


def _table_class(rows: int) -> str:
    return "data short" if rows <= SHORT_TABLE else "data"


def _length(value, what: str) -> float:
    try:
        return parse_length(value, allow_percent=False).points
    except (ValueError, TypeError) as exc:
        raise ContentError(f"{what}: {exc}", code="rules-template") from None


class RulesData:
    """The Jinja globals of one rulebook language."""

    def __init__(
        self,
        content: GameContent,
        lang: str,
        faces: FaceCache,
        blocks: Blocks,
        icons: dict[str, str],
        glossary: Glossary | None,
    ):
        self.content = content
        self.lang = lang
        self.faces = faces
        self.blocks = blocks
        self.icons = icons
        self.glossary = glossary
        self.ui = ui(lang)
        languages = content.languages
        self.data = templating.render_data(
            templating.localize(dict(content.game.data), lang, languages),
            nested=True,
            on_error=_unavailable,
        )
        try:
            self.title = templating.localize(content.game.title, lang, languages)
        except ContentError as exc:
            raise content.game_error(exc, "title") from None
        try:
            self.description = (
                templating.localize(content.game.description, lang, languages)
                if content.game.description
                else ""
            )
        except ContentError as exc:
            raise content.game_error(exc, "description") from None
        self._components = self._component_rows()

    # ------------------------------------------------------------ plain data
    def context(self) -> dict[str, Any]:
        ctx = dict(self.data)
        ctx.update(
            lang=self.lang,
            data=self.data,  # every data key, also those a helper's name hides (data.board)
            game={
                "id": self.content.id,
                "title": self.title,
                "description": self.description,
                "languages": list(self.content.languages),
                "data": self.data,
            },
            components=self._components,
            component=self.component,
            component_list=self.component_list,
            items=self.items,
            table=self.table,
            figure=self.figure,
            board=self.board,
            scene=self.scene,
            icon=self.icon,
        )
        return ctx

    def _name(self, component_id: str) -> str:
        spec = next((c for c in self.content.components if c.id == component_id), None)
        if spec is not None:
            try:
                return templating.localize(spec.model.name, self.lang, self.content.languages)
            except ContentError as exc:  # the component's own name, in its own file
                raise exc.located(spec.file, spec.line_of.get("name"), "name") from None
        if self.glossary:
            for term in self.glossary.for_component(component_id):
                forms = term.forms(self.lang)
                if forms:
                    return forms[0][:1].upper() + forms[0][1:]
        return component_id.replace("-", " ").capitalize()

    def _component_rows(self) -> list[dict]:
        manifest = self.content.manifest
        ids = list(manifest.components) if manifest else []
        ids += [c.id for c in self.content.components if c.id not in ids]
        rows = []
        for cid in ids:
            spec = next((c for c in self.content.components if c.id == cid), None)
            entry = manifest.entry(cid) if manifest else None
            count = entry.count if entry is not None else (spec.total if spec else 0)
            rows.append(
                {
                    "id": cid,
                    "name": self._name(cid),
                    "count": count,
                    "kind": spec.model.kind if spec else None,
                    "items": len(spec.items) if spec else 0,
                    "breakdown": dict(entry.breakdown) if entry else {},
                    "printed": spec is not None,
                }
            )
        return rows

    def _spec(self, component_id) -> ComponentSpec:
        spec = next((c for c in self.content.components if c.id == component_id), None)
        if spec is None:
            import difflib

            known = [c.id for c in self.content.components]
            close = difflib.get_close_matches(str(component_id), known, n=1)
            raise ContentError(
                f"unknown component '{component_id}'",
                code="rules-template",
                hint=(f"did you mean '{close[0]}'? " if close else "")
                + "components: "
                + ", ".join(known),
            )
        return spec

    def _item(self, spec: ComponentSpec, item_id) -> ItemSpec:
        item = next((i for i in spec.items if i.id == str(item_id)), None)
        if item is None:
            import difflib

            known = [i.id for i in spec.items]
            close = difflib.get_close_matches(str(item_id), known, n=1)
            shown = ", ".join(known[:12]) + (" ..." if len(known) > 12 else "")
            raise ContentError(
                f"component '{spec.id}' has no item '{item_id}'",
                code="rules-template",
                hint=(f"did you mean '{close[0]}'? " if close else "") + f"items: {shown}",
            )
        return item

    def component(self, component_id: str) -> dict:
        row = next((r for r in self._components if r["id"] == component_id), None)
        if row is None:
            self._spec(component_id)  # raises with a hint
            raise AssertionError(component_id)  # not reached: _spec raised
        return row

    def items(self, component_id: str) -> list[dict]:
        spec = self._spec(component_id)
        out = []
        for item in spec.items:
            ctx = self.faces.contexts.context(spec, item)
            row = {
                k: v
                for k, v in ctx.items()
                if k not in self.data or k in item.data or k in spec.model.data
            }
            row.setdefault("id", item.id)
            row.setdefault("count", item.count)
            out.append(row)
        return out

    # ------------------------------------------------------------ HTML blocks
    def _cell(self, value) -> str:
        if value is None:
            return ""
        if isinstance(value, StrictUndefined):
            str(value)  # raises the undefined error with its hint
        html = markup.inline_html(str(value), {"icons": self.icons})
        return keep_words(html, self.lang)

    def _text(self, value) -> str:
        """Plain text as HTML (escaped; Korean words kept whole)."""
        html = markup.escape(value)
        return keep_words(html, self.lang)

    def _label(self, component_id: str, key: str, value) -> str:
        """A breakdown value as players read it: value 'v' of key 'k' is the `name` of entry v
        in a mapping called k or k + 's' anywhere in the game's data, else the name of the one
        item of the component whose data has k == v, else the value itself."""
        names = (key, key + "s", key + "es")

        def search(data, depth: int):
            if not isinstance(data, dict) or depth > 3:
                return None
            for name, table in data.items():
                if name in names and isinstance(table, dict) and isinstance(table.get(value), dict):
                    label = table[value].get("name")
                    if isinstance(label, str):
                        return label
            for table in data.values():
                found = search(table, depth + 1)
                if found:
                    return found
            return None

        label = search(self.data, 0)
        if label:
            return label
        spec = next((c for c in self.content.components if c.id == component_id), None)
        if spec is not None:
            matches = [i for i in spec.items if i.data.get(key) == value]
            if len(matches) == 1:
                name = templating.localize(
                    matches[0].data.get("name"), self.lang, self.content.languages
                )
                if isinstance(name, str) and name:
                    return name
        return str(value)

    def component_list(self, only=None, breakdown: bool = True) -> str:
        rows = [r for r in self._components if only is None or r["id"] in only]
        if only is not None:
            for cid in only:
                if not any(r["id"] == cid for r in self._components):
                    self._spec(cid)
        detail = breakdown and any(r["breakdown"] for r in rows)
        t = self.ui
        head = (
            f'<th class="num">{self._text(t["count"])}</th>'
            f"<th>{self._text(t['component'])}</th>"
            + (f"<th>{self._text(t['detail'])}</th>" if detail else "")
        )
        body = []
        for r in rows:
            parts = []
            for key, values in r["breakdown"].items():
                parts.append(
                    "\u00a0· ".join(
                        f"{self._label(r['id'], key, v)}\u00a0{n}" for v, n in values.items()
                    )
                )
            body.append(
                f'<tr><td class="num">{r["count"]}</td><td>{self._text(r["name"])}</td>'
                + (f'<td class="detail">{self._text("; ".join(parts))}</td>' if detail else "")
                + "</tr>"
            )
        html = (
            f'<table class="{_table_class(len(body))} components"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>"
        )
        return self.blocks.add(html)

    def _value(self, row: dict, key, header: str, index: int):
        if isinstance(key, str) and key in row:
            return row[key]
        if isinstance(key, str) and templating.is_template(key):
            return templating.render(key, {**self.data, **row})
        raise ContentError(
            f"table column '{header}': row {index + 1} has no '{key}'",
            code="rules-template",
            hint="keys: " + ", ".join(map(str, list(row)[:20])),
        )

    def table(self, rows, columns=None, caption=None, group=None) -> str:
        """A table from mappings. columns: {header: key}, [key, ...] or [[header, key], ...];
        a key may also be a template over the row ("{{ cost }} :coin:"). `group` (a key or a
        template) starts a sub-heading row each time its value changes: narrower than a column."""
        if not isinstance(rows, (list, tuple)):
            raise ContentError(
                "table() needs a list of rows (mappings)",
                code="rules-template",
                hint="e.g. table(items('orders'), {'Carta': 'name', 'Efecto': 'effect'})",
            )
        rows = list(rows)
        if len(rows) > LIMITS.counts.table_rows:
            raise ContentError(
                f"table() of {len(rows):,} rows (limit {LIMITS.counts.table_rows:,})",
                code="limit",
                hint="a rulebook table that long is a runaway template; split it",
            )
        if columns is None:
            columns = list(rows[0]) if rows and isinstance(rows[0], dict) else []
        if isinstance(columns, dict):
            cols = [(str(h), k) for h, k in columns.items()]
        else:
            cols = []
            for c in columns:
                if isinstance(c, (list, tuple)) and len(c) == 2:
                    cols.append((str(c[0]), c[1]))
                else:
                    cols.append((str(c), c))
        if not cols:
            raise ContentError(
                "table() has no columns",
                code="rules-template",
                hint="give columns, e.g. {'Name': 'name'}",
            )
        values: list[list] = []
        groups: list = []
        for index, row in enumerate(rows):
            if not isinstance(row, dict):
                raise ContentError(
                    f"table row {index + 1} is not a mapping",
                    code="rules-template",
                    hint="rows are mappings such as items('...') or a data list",
                )
            values.append([self._value(row, key, header, index) for header, key in cols])
            groups.append(self._value(row, group, "group", index) if group is not None else None)
        numeric = [bool(values) and all(_numeric(v[i]) for v in values) for i in range(len(cols))]
        head = "".join(
            f"<th{' class=num' if numeric[i] else ''}>{self._cell(h)}</th>"
            for i, (h, _) in enumerate(cols)
        )
        body, current, size = [], object(), 0
        for line, label in zip(values, groups, strict=True):
            size += sum(len(str(v)) for v in line) + len(str(label or ""))
            if size > LIMITS.jinja.table_chars:
                raise ContentError(
                    f"table() text over {LIMITS.jinja.table_chars:,} characters",
                    code="limit",
                    hint="a rulebook table that big is a runaway template",
                )
            if group is not None and label != current:
                current = label
                body.append(
                    f'<tr class="group"><th colspan="{len(cols)}">{self._cell(label)}</th></tr>'
                )
            body.append(
                "<tr>"
                + "".join(
                    f"<td{' class=num' if numeric[i] else ''}>{self._cell(v)}</td>"
                    for i, v in enumerate(line)
                )
                + "</tr>"
            )
        cap = f"<caption>{self._cell(caption)}</caption>" if caption else ""
        return self.blocks.add(
            f'<table class="{_table_class(len(body))}">{cap}<thead><tr>{head}</tr>'
            f"</thead><tbody>{''.join(body)}</tbody></table>"
        )

    def _caption(self, spec: ComponentSpec, item: ItemSpec) -> str:
        data = templating.localize(item.data, self.lang, self.content.languages)
        for key in ("name", "title"):
            value = data.get(key)
            if isinstance(value, str) and value.strip():
                ctx = self.faces.contexts.context(spec, item)
                value = ctx.get(key, value)
                if isinstance(value, str):
                    return value
        return self._name(spec.id)

    def figure(self, component_id, item_id, side: str = "front", width="45mm", caption=None) -> str:
        spec = self._spec(component_id)
        item = self._item(spec, item_id)
        width_pt = _length(width, "figure width")
        if not 5 * MM <= width_pt <= 180 * MM:
            raise ContentError(
                f"figure width {width} is out of range 5-180 mm", code="rules-template"
            )
        picture = self.faces.face(spec, item, side, width_pt)
        # a figure too small for its text to print at MIN_TEXT_PT is enlarged (up to the
        # widest figure), and never shrunk to share a row below that
        need = picture.min_width_pt(MIN_TEXT_PT)
        if need > width_pt:
            width_pt = min(need, MAX_FIGURE_PT)
        if caption is None:
            caption = self._caption(spec, item)
        cap = f'<span class="caption">{self._cell(caption)}</span>' if caption else ""
        mm = width_pt / MM
        alt = markup.escape(f"{self._name(spec.id)} {item.id}")
        cls = "face shaped" if picture.shaped else "face"  # a die-cut face is not framed
        keep = " keep" if picture.min_text_pt else ""
        # as wide as the column: without its side margins (2 mm each) it fits it
        wide = "; margin-left: 0; margin-right: 0" if width_pt > 150 * MM else ""
        # the narrowest it may be drawn to fit a page (book._figures_floated): text at 6 pt
        least = max(picture.min_width_pt(MIN_TEXT_PT), 0.75 * width_pt) / MM
        html = (
            f'<span class="figure{keep}" data-least="{least:.2f}" '
            f'style="width: {mm:.2f}mm{wide}">'
            + picture.img(cls, alt, f"width: {mm:.2f}mm")
            + f"{cap}</span>"
        )
        return self.blocks.add(html, "figure")

    def board(
        self,
        rows,
        component=None,
        width=None,
        gap="1.5mm",
        caption=None,
        pieces=None,
        per_face=1,
    ) -> str:
        """A grid of faces: rows of item ids ('id', 'id:back', or '' / None for an empty cell).

        `pieces` puts faces of other components on it, for an example position: a list of
        {item, component (optional), cell: [row, col], side (optional)}, cells counted over the
        whole board when each face is divided into `per_face` x `per_face` cells (e.g. 2 x 2)."""
        if isinstance(rows, str):
            rows = [r for r in rows.splitlines() if r.strip()]
        grid = [r.split() if isinstance(r, str) else list(r) for r in rows or []]
        if not grid or not any(grid):
            raise ContentError(
                "board() needs rows of item ids",
                code="rules-template",
                hint="e.g. board([['a1', 'a2', 'a3'], ['b1', 'b2', 'b3']])",
            )
        if len(grid) > 12 or any(len(r) > 12 for r in grid):
            raise ContentError("board() is limited to 12 x 12 faces", code="rules-template")
        if component is not None:
            candidates = [self._spec(component)]
        else:
            candidates = list(self.content.components)
        cells: list[list[tuple[ComponentSpec, ItemSpec, str] | None]] = []
        for row in grid:
            line: list[tuple[ComponentSpec, ItemSpec, str] | None] = []
            for entry in row:
                if entry in (None, "", "-", "."):
                    line.append(None)
                    continue
                item_id, _, side = str(entry).partition(":")
                side = side or "front"
                found = [(c, i) for c in candidates for i in c.items if i.id == item_id]
                if not found:
                    where = ", ".join(c.id for c in candidates)
                    raise ContentError(
                        f"board(): no item '{item_id}' in {where}",
                        code="rules-template",
                        hint="use item ids of the game's components, or pass component='...'",
                    )
                if len(found) > 1:
                    raise ContentError(
                        f"board(): item '{item_id}' is in several components "
                        f"({', '.join(c.id for c, _ in found)})",
                        code="rules-template",
                        hint="pass component='...'",
                    )
                line.append((found[0][0], found[0][1], side))
            cells.append(line)
        cols = max(len(r) for r in cells)
        first = next(c for r in cells for c in r if c)
        fw, fh = first[0].size_pt
        g = _length(gap, "board gap")
        natural_w = cols * fw + (cols - 1) * g
        natural_h = len(cells) * fh + (len(cells) - 1) * g
        if width is None:
            total = natural_w * min(1.0, 150 * MM / natural_w, 185 * MM / natural_h)
        else:
            total = _length(width, "board width")
        # pieces are items of the other components: the board's own faces cannot stand on it
        board_of = {cell[0].id for row in cells for cell in row if cell}
        # enlarged (up to the widest figure) until its faces' and pieces' text prints at
        # MIN_TEXT_PT; what still cannot is left out of the picture when it is placed
        need = self._board_scale(cells, pieces, board_of)
        if need * fw > (total - (cols - 1) * g) / cols:
            total = max(total, min(MAX_FIGURE_PT, cols * fw * need + (cols - 1) * g))
        cell_w = (total - (cols - 1) * g) / cols
        if cell_w <= 2 * MM:
            raise ContentError(
                "board(): the cells would be narrower than 2 mm",
                code="rules-template",
                hint="give a larger width or fewer columns",
            )
        pct_w = cell_w / total * 100
        pct_g = g / total * 100
        lines = []
        for r, row in enumerate(cells):
            parts = []
            for c in range(cols):
                cell = row[c] if c < len(row) else None
                margin = f"margin-right: {pct_g:.3f}%; " if c < cols - 1 else ""
                if cell is None:
                    blank = self.faces.blank(fw, fh, cell_w).resolve().as_uri()
                    parts.append(
                        f'<img class="cell blank" src="{blank}" alt="" '
                        f'style="{margin}width: {pct_w:.3f}%">'
                    )
                    continue
                spec, item, side = cell
                picture = self.faces.face(spec, item, side, cell_w)
                alt = markup.escape(f"{item.id}")
                parts.append(picture.img("cell", alt, f"{margin}width: {pct_w:.3f}%"))
            bottom = f' style="margin-bottom: {pct_g:.3f}%"' if r < len(cells) - 1 else ""
            lines.append(f'<div class="board-row"{bottom}>{"".join(parts)}</div>')
        cell_h = cell_w * fh / fw
        overlay = self._pieces(
            pieces, per_face, cell_w, cell_h, g, len(cells), cols, cell_w / fw, board_of
        )
        cap = f'<p class="caption">{self._cell(caption)}</p>' if caption else ""
        html = (
            f'<div class="board" style="width: {total / MM:.2f}mm">{"".join(lines)}{overlay}</div>'
            f"{cap}"
        )
        return self.blocks.add(f'<div class="board-figure">{html}</div>')

    def _board_scale(self, cells, pieces, board_of) -> float:
        """The smallest scale at which every face of a board (cells and pieces) prints its
        text at MIN_TEXT_PT or more."""
        need = 0.0
        faces = [c for row in cells for c in row if c]
        for piece in pieces or []:
            found = [
                (c, i, piece.get("side", "front"))
                for c in self.content.components
                if isinstance(piece, dict) and piece.get("component") in (None, c.id)
                for i in c.items
                if i.id == piece.get("item") and c.id not in board_of
            ]
            faces.extend(found[:1])  # a wrong piece is reported by _pieces
        for spec, item, side in faces:
            try:
                picture = self.faces.face(spec, item, side, spec.size_pt[0])
            except ContentError:
                continue  # reported where the face is drawn
            if picture.min_text_pt:
                need = max(need, MIN_TEXT_PT / picture.min_text_pt)
        return need

    def _pieces(self, pieces, per_face, cell_w, cell_h, gap, rows, cols, scale, board_of) -> str:
        """Absolutely placed faces over a board(), centred on their cells, at the board's scale.
        A piece without `component` is looked up among the components the board is not made
        of (`board_of`), so a piece and a tile may share an item id."""
        if not pieces:
            return ""
        if not isinstance(per_face, int) or not 1 <= per_face <= 8:
            raise ContentError(
                "board(): per_face must be a whole number 1-8", code="rules-template"
            )
        out = []
        for piece in pieces:
            if not isinstance(piece, dict) or "item" not in piece or "cell" not in piece:
                raise ContentError(
                    "board(): each piece needs item and cell",
                    code="rules-template",
                    hint="e.g. {'item': 'a-piece', 'cell': [3, 4]}",
                )
            found = [
                (c, i)
                for c in self.content.components
                if piece.get("component") in (None, c.id)
                for i in c.items
                if i.id == piece["item"] and c.id not in board_of
            ]
            if len(found) != 1:
                raise ContentError(
                    f"board(): piece '{piece['item']}' names "
                    + ("no item" if not found else "an item of several components"),
                    code="rules-template",
                    hint="pass 'component' to say which",
                )
            spec, item = found[0]
            row, col = (int(v) for v in piece["cell"])
            if not (0 <= row < rows * per_face and 0 <= col < cols * per_face):
                raise ContentError(
                    f"board(): cell [{row}, {col}] is off the board",
                    code="rules-template",
                    hint=f"rows 0-{rows * per_face - 1}, columns 0-{cols * per_face - 1}",
                )
            pw, ph = (v * scale for v in spec.size_pt)
            x = (col // per_face) * (cell_w + gap) + (col % per_face + 0.5) * cell_w / per_face
            y = (row // per_face) * (cell_h + gap) + (row % per_face + 0.5) * cell_h / per_face
            picture = self.faces.face(spec, item, piece.get("side", "front"), pw)
            # percentages of the board, so a board narrowed to its column keeps its pieces
            total_w = cols * cell_w + (cols - 1) * gap
            total_h = rows * cell_h + (rows - 1) * gap
            out.append(
                picture.img(
                    "piece",
                    markup.escape(item.id),
                    f"left: {(x - pw / 2) / total_w * 100:.3f}%; "
                    f"top: {(y - ph / 2) / total_h * 100:.3f}%; width: {pw / total_w * 100:.3f}%",
                )
            )
        return "".join(out)

    def scene(self, pieces, size, width="150mm", caption=None, side=None) -> str:
        """Faces laid out on a table, seen from above: a setup or an example position.

        `size` is the table area [w, h] in mm; each piece is {component, item, side (optional),
        at: [x, y] (its centre, mm from the top-left), rotate: 0, 90, 180 or 270}. The whole
        scene is scaled to `width`, every piece at the same scale, so sizes stay true.
        side='right' (or 'left') floats the picture beside the text ("the picture on the right")."""
        try:
            area_w, area_h = (float(v) for v in size)
        except (TypeError, ValueError):
            raise ContentError(
                "scene(): size is [width, height] in mm", code="rules-template"
            ) from None
        if not (10 <= area_w <= 5000 and 10 <= area_h <= 5000):
            raise ContentError("scene(): size must be 10-5000 mm a side", code="rules-template")
        total = _length(width, "scene width")
        if not 20 * MM <= total <= 180 * MM:
            raise ContentError("scene(): width must be 20-180 mm", code="rules-template")
        scale = total / (area_w * MM)
        parts = []
        for piece in pieces or []:
            if not isinstance(piece, dict) or not {"component", "item", "at"} <= set(piece):
                raise ContentError(
                    "scene(): each piece needs component, item and at",
                    code="rules-template",
                    hint="e.g. {'component': 'boards', 'item': 'north', 'at': [120, 80]}",
                )
            spec = self._spec(piece["component"])
            item = self._item(spec, piece["item"])
            rotate = piece.get("rotate", 0)
            if rotate not in (0, 90, 180, 270):
                raise ContentError("scene(): rotate is 0, 90, 180 or 270", code="rules-template")
            x, y = (float(v) for v in piece["at"])
            fw, fh = spec.size_pt
            pw, ph = fw * scale, fh * scale
            picture = self.faces.face(spec, item, piece.get("side", "front"), pw)
            cx, cy = x * MM * scale, y * MM * scale
            turn = f" transform: rotate({rotate}deg);" if rotate else ""
            parts.append(
                picture.img(
                    "piece",
                    markup.escape(item.id),
                    f"left: {(cx - pw / 2) / MM:.2f}mm; "
                    f"top: {(cy - ph / 2) / MM:.2f}mm; width: {pw / MM:.2f}mm;{turn}",
                )
            )
        height = area_h * MM * scale
        cap = f'<p class="caption">{self._cell(caption)}</p>' if caption else ""
        html = (
            f'<div class="scene" style="width: {total / MM:.2f}mm; height: {height / MM:.2f}mm">'
            f"{''.join(parts)}</div>{cap}"
        )
        if side not in (None, "left", "right"):
            raise ContentError("scene(): side is 'left' or 'right'", code="rules-template")
        float_css = f' float-{side}" style="width: {total / MM:.2f}mm' if side else ""
        return self.blocks.add(f'<div class="board-figure{float_css}">{html}</div>')

    def icon(self, name: str) -> str:
        if name not in self.icons:
            raise ContentError(
                f"unknown icon '{name}'",
                code="rules-template",
                hint="icons: " + (", ".join(sorted(self.icons)) or "none in game.yaml"),
            )
        return self.blocks.add(
            f'<img class="icon" src="{markup.escape(self.icons[name])}" '
            f'alt=":{markup.escape(name)}:">',
            "inline",
        )

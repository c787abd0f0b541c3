"""The print-and-assembly guide: one PDF per game, language and paper, made from the build plan.

It is written after the component and rulebook files, from their build-manifest parts, so what
it lists is what was written: every component PDF of its language and paper (pages, sheets,
duplex or not, the paper to use), the rulebooks, a 50 mm scale bar to check "print at 100 %",
the back-offset hint, cut/fold/glue steps per kind of component, and each sheet's contents.
Its words are data (templates/guide/texts.yaml); nothing here knows a game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas

from generator import session
from generator.build.platypus import platypus
from generator.errors import ContentError
from generator.load import languages, templating
from generator.load.content import GameContent
from generator.load.guide_words import texts
from generator.load.sizes import paper_size
from generator.render.engine import FaceRenderer, colour
from generator.units import MM

SCALE_BAR_MM = 50.0
LAST_PAGE_MIN = 0.3  # a last page filled less than this is worth a tighter setting
INK = "#1d1d1b"
ACCENT = "#1f3a5f"


def guide_path(game: str, lang: str, paper: str) -> str:
    return f"output/{game}/{lang}/guide-{paper}.pdf"


@dataclass
class FileInfo:
    """One component PDF as the guide describes it, all from its build-manifest entries."""

    path: str
    component: str
    pages: int
    sheets: int
    duplex: bool
    inventory: list[Counter]  # per front sheet: (component, item) -> copies
    components: list[str] = field(default_factory=list)  # in the order the file lists them
    tiles: dict | None = None  # the manifest's tiling of a face bigger than the sheet
    tile_names: list[list[str]] = field(default_factory=list)  # per front sheet
    copies: dict[str, int] = field(default_factory=dict)  # component -> pieces (not tiles)
    on_sheets: dict[str, list[int]] = field(default_factory=dict)  # component -> sheet numbers
    backs: set[str] = field(default_factory=set)  # components with a back in this file


def component_files(manifest: dict, lang: str, paper: str) -> list[FileInfo]:
    """The component PDFs of one language and paper, with what each front sheet holds."""
    out = []
    by_file: dict[str, list[dict]] = {}  # each file's pages, in the manifest's order
    for s in manifest["sheets"]:
        by_file.setdefault(s["file"], []).append(s)
    for f in manifest["files"]:
        if f.get("kind") != "components" or f.get("lang") != lang or f.get("paper") != paper:
            continue
        pages = by_file.get(f["path"], [])
        fronts = sorted((s for s in pages if s["side"] == "front"), key=lambda s: s["page"])
        inventory = []
        found: dict[str, None] = {}
        pieces: set[tuple[str, str, int]] = set()
        on_sheets: dict[str, list[int]] = {}
        for n, s in enumerate(fronts, 1):
            slots = s["slots"]
            inventory.append(Counter([(slot["component"], slot["item"]) for slot in slots]))
            pieces.update([(slot["component"], slot["item"], slot["copy"]) for slot in slots])
            for comp in dict.fromkeys([slot["component"] for slot in slots]):
                found[comp] = None
                on_sheets.setdefault(comp, []).append(n)
        listed = f.get("components") or []
        components = list(dict.fromkeys([*listed, *found]))
        out.append(
            FileInfo(
                f["path"],
                f.get("component") or (components[0] if components else ""),
                f["pages"],
                len(fronts),
                any(s["side"] == "back" for s in pages),
                inventory,
                components,
                f.get("tiles"),
                [[slot["tile"]["name"] for slot in s["slots"] if "tile" in slot] for s in fronts],
                dict(Counter(c for c, _, _ in pieces)),
                on_sheets,
                {slot["component"] for s in pages if s["side"] == "back" for slot in s["slots"]},
            )
        )
    return out


def rulebook_files(manifest: dict, lang: str, paper: str) -> list[dict]:
    return [
        f
        for f in manifest["files"]
        if f.get("paper") == paper
        and (
            (f.get("kind") == "rulebook" and f.get("lang") == lang)
            or (f.get("kind") == "bilingual-rulebook" and lang in (f.get("langs") or []))
        )
    ]


def other_versions(manifest: dict, lang: str, paper: str) -> list[tuple[str, str]]:
    """The export folders of one language (and paper) besides the duplex sheets, in the order
    the manifest lists them: (format, folder relative to the language's folder)."""
    found: dict[tuple[str, str], None] = {}  # in order, once each
    for f in manifest["files"]:
        if f.get("kind") != "export" or f.get("lang") != lang or f.get("format") == "sheets":
            continue
        if f.get("paper") not in (None, paper):
            continue
        parts = Path(f["path"]).parts  # output/<game>/<lang>/<folder>/...
        where = parts.index(lang) + 1 if lang in parts else len(parts)
        if where < len(parts) - 1:  # a file in a folder of its format's
            found[(f["format"], parts[where])] = None
    return list(found)


def guide_inputs(manifest: dict, lang: str, paper: str) -> list[dict]:
    """The manifest's file entries a guide describes: its paper's files of its language (or of
    an edition with it) and the exports of its language that have no paper (print-shop, png)."""
    return [
        f
        for f in manifest["files"]
        if (f.get("paper") == paper or (f.get("kind") == "export" and not f.get("paper")))
        and lang in (f.get("langs") or [f.get("lang")])
    ]


class ScaleBar(platypus.Flowable):
    """A bar exactly 50 mm long with a tick every 10 mm: measure it to check the print scale."""

    def __init__(self, label: str, font: str):
        super().__init__()
        self.label, self.font = label, font
        self.width, self.height = SCALE_BAR_MM * MM + 40, 12 * MM

    def draw(self) -> None:
        c = self.canv
        length = SCALE_BAR_MM * MM
        c.setStrokeColor(colour(INK))
        c.setFillColor(colour(INK))
        c.rect(0, 5 * MM, length, 2.5 * MM, stroke=0, fill=1)
        c.setLineWidth(0.5)
        for i in range(int(SCALE_BAR_MM // 10) + 1):
            x = i * 10 * MM
            c.line(x, 3.5 * MM, x, 9 * MM)
        c.setFont(self.font, 8)
        c.drawString(length + 3 * MM, 5.3 * MM, self.label)


def _styles(renderer: FaceRenderer, compact: bool = False) -> dict[str, ParagraphStyle]:
    """The guide's styles; `compact` sets it tighter (still 8 pt at the least) to save a sheet."""
    regular = renderer.fonts.face("gothic", "regular").name
    bold = renderer.fonts.face("gothic", "bold").name
    size, lead, small = (9.0, 11.2, 8.0) if compact else (9.5, 12.5, 8.5)
    base = ParagraphStyle(
        "base", fontName=regular, bulletFontName=regular, fontSize=size, leading=lead
    )
    return {
        "regular": regular,
        "bold": bold,
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=small, leading=small + 2),
        "title": ParagraphStyle(
            "title", parent=base, fontName=bold, fontSize=17, leading=22, textColor=ACCENT
        ),
        "h2": ParagraphStyle(
            "h2",
            parent=base,
            fontName=bold,
            fontSize=12,
            leading=16,
            spaceBefore=4 if compact else 7,
            spaceAfter=2 if compact else 3,
            textColor=ACCENT,
            keepWithNext=1,
        ),
        "cell": ParagraphStyle("cell", parent=base, fontSize=small, leading=small + 2.5),
        "head": ParagraphStyle(
            "head", parent=base, fontName=bold, fontSize=small, leading=small + 2.5
        ),
    }


def _p(text: str, style: ParagraphStyle) -> platypus.Paragraph:
    safe = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return platypus.Paragraph(safe, style)


def piece_kind(spec, renderer: FaceRenderer, f: FileInfo) -> str:
    """How a component's pieces are made, from the data alone (never the free `kind` label):
    join (a face tiled over sheets, from the manifest), fold (dashed edge-to-edge lines in its
    layout), round / hex / shaped (its die-cut outline), or cut (rectangles)."""
    if f.tiles:
        return "join"
    if spec is None:
        return "cut"
    if fold_lines(spec, renderer):
        return "fold"
    outline = spec.outline
    if outline.is_rect:
        return "cut"
    if outline.kind == "ellipse":
        return "round"
    return "hex" if outline.name == "hexagon" else "shaped"


def fold_lines(spec, renderer: FaceRenderer) -> int:
    """Dashed lines running from one edge of the face to the other: where the piece folds."""
    try:
        layout = renderer.layouts.get(spec.model.layout)
    except ContentError:
        return 0
    w, h = spec.size_pt
    count = 0
    for box in layout.boxes:
        if getattr(box, "kind", "") != "line" or not getattr(box, "dash", None):
            continue
        try:
            x1, y1 = box.x.resolve(w), box.y.resolve(h)
            x2, y2 = box.x2.resolve(w), box.y2.resolve(h)
        except (AttributeError, TypeError, ValueError):
            continue
        across = abs(y1 - y2) < 0.5 and min(x1, x2) <= 0.5 and max(x1, x2) >= w - 0.5
        down = abs(x1 - x2) < 0.5 and min(y1, y2) <= 0.5 and max(y1, y2) >= h - 0.5
        count += across or down
    return count


class StepPicture(platypus.Flowable):
    """A small drawing of one assembly step: what the piece looks like and where to cut or fold."""

    W, H = 26 * MM, 17 * MM

    def __init__(self, kind: str, folds: int = 0):
        super().__init__()
        self.kind, self.folds = kind, folds
        self.width, self.height = self.W, self.H

    def draw(self) -> None:
        c = self.canv
        c.setLineWidth(0.6)
        c.setStrokeColor(colour(INK))
        c.setFillColor(colour("#dfe6ef"))
        getattr(self, "_" + self.kind, self._cut)(c)

    def _marks(self, c, x, y, w, h) -> None:
        c.setLineWidth(0.4)
        for mx in (x, x + w):
            c.line(mx, y - 1 * MM, mx, y - 3 * MM)
            c.line(mx, y + h + 1 * MM, mx, y + h + 3 * MM)
        for my in (y, y + h):
            c.line(x - 1 * MM, my, x - 3 * MM, my)
            c.line(x + w + 1 * MM, my, x + w + 3 * MM, my)

    def _cut(self, c) -> None:
        x, y, w, h = 5 * MM, 4 * MM, 16 * MM, 10 * MM
        c.rect(x, y, w, h, stroke=0, fill=1)
        self._marks(c, x, y, w, h)
        c.setDash([2, 2])
        c.setStrokeColor(colour(ACCENT))
        c.line(x, 0.5 * MM, x, self.H - 0.5 * MM)  # a straight cut through the marks
        c.setDash([])

    def _round(self, c) -> None:
        for i, cx in enumerate((7 * MM, 19 * MM)):
            c.setStrokeColor(colour("#3c3c3c"))
            c.circle(cx, 8.5 * MM, 5.5 * MM, stroke=1, fill=1)
            if i == 0:  # scissors follow the line
                c.setStrokeColor(colour(ACCENT))
                c.setDash([2, 2])
                c.circle(cx, 8.5 * MM, 6.5 * MM, stroke=1, fill=0)
                c.setDash([])

    def _polygon(self, c, sides: int) -> None:
        import math

        for i, cx in enumerate((7 * MM, 19 * MM)):
            p = c.beginPath()
            pts = [
                (
                    cx + 5.5 * MM * math.cos(2 * math.pi * k / sides),
                    8.5 * MM + 5.5 * MM * math.sin(2 * math.pi * k / sides),
                )
                for k in range(sides)
            ]
            p.moveTo(*pts[0])
            for pt in pts[1:]:
                p.lineTo(*pt)
            p.close()
            c.setStrokeColor(colour("#3c3c3c" if i else ACCENT))
            c.drawPath(p, stroke=1, fill=1)

    def _hex(self, c) -> None:
        self._polygon(c, 6)

    def _shaped(self, c) -> None:
        self._polygon(c, 8)

    def _fold(self, c) -> None:
        # left: the flat strip with its dashed fold lines; right: the folded piece, side view
        x, w, h = 2 * MM, 6 * MM, 15 * MM
        c.rect(x, 1 * MM, w, h, stroke=1, fill=1)
        c.setDash([1.5, 1.5])
        n = max(1, self.folds)
        for k in range(1, n + 1):
            y = 1 * MM + h * k / (n + 1)
            c.line(x, y, x + w, y)
        c.setDash([])
        # the folded standee seen from the side: a tall inverted V glued shut, feet outwards
        base, top, mid = 2 * MM, 15 * MM, 18.5 * MM
        c.setLineWidth(1.0)
        c.line(mid, base, mid, top)
        if n >= 3:
            c.line(mid, base, mid - 4 * MM, base)
            c.line(mid, base, mid + 4 * MM, base)
        else:
            c.line(mid, top, mid - 4 * MM, base)
            c.line(mid, top, mid + 4 * MM, base)
        c.setStrokeColor(colour(ACCENT))
        c.line(11 * MM, 8.5 * MM, 13.5 * MM, 8.5 * MM)
        c.line(13.5 * MM, 8.5 * MM, 12.6 * MM, 9.3 * MM)
        c.line(13.5 * MM, 8.5 * MM, 12.6 * MM, 7.7 * MM)

    def _join(self, c) -> None:
        c.rect(2 * MM, 3 * MM, 12 * MM, 11 * MM, stroke=1, fill=1)
        c.setFillColor(colour("#c3cfdd"))
        c.rect(12 * MM, 3 * MM, 12 * MM, 11 * MM, stroke=1, fill=1)
        c.setDash([1.5, 1.5])
        c.line(13 * MM, 2 * MM, 13 * MM, 15 * MM)  # the overlap band's middle: cut here
        c.setDash([])
        for y in (5 * MM, 12 * MM):  # registration marks meet
            c.circle(13 * MM, y, 1.1 * MM, stroke=1, fill=0)
            c.line(11.5 * MM, y, 14.5 * MM, y)

    def _targets(self, c) -> None:
        """The duplex test: right (targets over each other) and wrong (apart)."""
        for cx, dx in ((7 * MM, 0.0), (19 * MM, 1.6 * MM)):
            for off, ink in ((0.0, INK), (dx, "#c0262d")):
                c.setStrokeColor(colour(ink))
                c.circle(cx + off, 8.5 * MM, 2.6 * MM, stroke=1, fill=0)
                c.line(cx + off - 3.8 * MM, 8.5 * MM, cx + off + 3.8 * MM, 8.5 * MM)
                c.line(cx + off, 4.7 * MM, cx + off, 12.3 * MM)
        c.setStrokeColor(colour("#2e7d32"))
        c.setLineWidth(1.2)
        c.line(5 * MM, 1.5 * MM, 6.5 * MM, 0.4 * MM)
        c.line(6.5 * MM, 0.4 * MM, 9 * MM, 2.6 * MM)
        c.setStrokeColor(colour("#c0262d"))
        c.line(18 * MM, 0.4 * MM, 20.5 * MM, 2.6 * MM)
        c.line(18 * MM, 2.6 * MM, 20.5 * MM, 0.4 * MM)


def _pictured(
    picture: platypus.Flowable, paragraphs: list[platypus.Flowable], font: str
) -> platypus.Table:
    table = platypus.Table([[picture, paragraphs]], colWidths=[30 * MM, None])
    table.setStyle(
        platypus.TableStyle(
            [
                ("FONTNAME", (0, 0), (-1, -1), font),  # else Helvetica, unembedded
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("LEFTPADDING", (0, 0), (-1, -1), 0),
                ("TOPPADDING", (0, 0), (-1, -1), 1),
                ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
            ]
        )
    )
    return table


def _ranges(numbers: list[int]) -> str:
    """[1, 2, 3, 5] -> "1–3, 5"."""
    out, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            out.append(str(start) if start == n else f"{start}–{n}")
            start = None
    return ", ".join(out)


def item_names(content: GameContent, renderer: FaceRenderer, lang: str):
    """item_name(component, item) -> the item's name in `lang`, or None when content has none.

    The item's own `name`, else the names its data points at (`ship: submarine` names the
    game data's `submarine` entry, `team: blue` its `blue` entry), joined. Never the id: an id
    is a designer's word, usually English, and the guide is in the player's language.
    One per game and language in a command: the guide's build key and the guide ask the same."""
    store = session.current().cache("guide.item_names")
    hit = store.get((id(content), lang))
    if hit is not None and hit[0] is content:
        return hit[1]
    by_id = {(c.id, i.id): (c, i) for c in content.components for i in c.items}
    game = renderer.context(content.components[0], None) if content.components else {}
    named: dict[str, str] = {}

    def collect(value: Any, depth: int) -> None:
        if not isinstance(value, dict) or depth > 3:
            return
        for key, entry in value.items():
            if isinstance(entry, dict):
                if isinstance(entry.get("name"), str) and isinstance(key, str):
                    named.setdefault(key, entry["name"])
                collect(entry, depth + 1)

    collect(game, 0)
    known: dict[tuple[str, str], str | None] = {}  # asked for the build key and per sheet

    def item_name(component_id: str, item_id: str) -> str | None:
        key = (component_id, item_id)
        if key not in known:
            known[key] = _name(component_id, item_id)
        return known[key]

    def _name(component_id: str, item_id: str) -> str | None:
        found = by_id.get((component_id, item_id))
        if found is None:
            return None
        _comp, item = found
        value = item.data.get("name")
        if isinstance(value, (str, dict)):
            try:
                text = str(templating.pick(value, lang))
                if "{" not in text:
                    return text
            except ContentError:
                pass
        if not named:  # no game data names anything (asked for each of 10,000 cards)
            return None
        parts = [named[v] for v in item.data.values() if isinstance(v, str) and v in named]
        return " · ".join(dict.fromkeys(parts)) or None

    store[(id(content), lang)] = (content, item_name)
    return item_name


def facts(content: GameContent, lang: str) -> list:
    """What the guide reads from content besides the manifest, for its build key: the title,
    each component's name, fold lines and outline, each item's name (its data may point at
    named game data). A change elsewhere (a card's rules text) leaves the guide as it is."""
    renderer = FaceRenderer(content, lang)
    item_name = item_names(content, renderer, lang)
    return [
        templating.pick(content.game.title, lang),
        [
            [
                c.id,
                templating.pick(c.model.name, lang),
                fold_lines(c, renderer),
                c.outline.name,
                [item_name(c.id, i.id) for i in c.items],
            ]
            for c in content.components
        ],
    ]


def write_guide(content: GameContent, manifest: dict, lang: str, paper: str, out: Path) -> dict:
    """Write the guide of one language and paper to `out`; returns its manifest file entry."""
    t = texts(content.project.templates, lang)
    renderer = FaceRenderer(content, lang)  # registers the bundled fonts (Hangul included)
    st = _styles(renderer)
    game = templating.pick(content.game.title, lang)
    specs = {c.id: c for c in content.components}

    def name(component_id: str) -> str:
        spec = specs.get(component_id)
        return templating.pick(spec.model.name, lang) if spec else component_id

    item_name = item_names(content, renderer, lang)
    files = component_files(manifest, lang, paper)
    language = languages.get(lang).name

    def make_story(st: dict) -> list[platypus.Flowable]:
        story: list[platypus.Flowable] = [
            _p(t["title"].format(game=game), st["title"]),
            _p(t["paper_line"].format(paper=paper.upper(), language=language), st["body"]),
            _p(t["scale_title"], st["h2"]),
            _p(t["scale_text"], st["body"]),
            platypus.Spacer(1, 2 * MM),
            ScaleBar(t["scale_label"], st["regular"]),
        ]
        # Which files to print
        story.append(_p(t["files_title"], st["h2"]))
        duplex_word = {
            "long-edge": t["duplex_yes"],
            "short-edge": t["duplex_short"],
        }
        kinds = {
            (f.path, comp): piece_kind(specs.get(comp), renderer, f)
            for f in files
            for comp in f.components
        }
        rows = [[_p(t[k], st["head"]) for k in ("file", "pages", "sheets", "duplex", "weight")]]
        for f in files:
            duplex = content.game.print.duplex if f.duplex else None
            held = ", ".join(name(c) for c in f.components)
            first = kinds.get((f.path, f.components[0]), "cut") if f.components else "cut"
            rows.append(
                [
                    _p(f"{Path(f.path).name} ({held})", st["cell"]),
                    _p(str(f.pages), st["cell"]),
                    _p(str(f.sheets), st["cell"]),
                    _p(duplex_word.get(duplex or "", t["duplex_no"]), st["cell"]),
                    _p(t["weights"].get(first, t["weights"]["cut"]), st["cell"]),
                ]
            )
        table = platypus.Table(
            rows, colWidths=[60 * MM, 16 * MM, 14 * MM, 36 * MM, 44 * MM], repeatRows=1
        )
        table.setStyle(
            platypus.TableStyle(
                [
                    ("FONTNAME", (0, 0), (-1, -1), st["regular"]),  # else Helvetica, unembedded
                    ("VALIGN", (0, 0), (-1, -1), "TOP"),
                    ("LINEBELOW", (0, 0), (-1, 0), 0.8, colour(ACCENT)),
                    ("LINEBELOW", (0, 1), (-1, -1), 0.3, colour("#c3c9d1")),
                    ("TOPPADDING", (0, 0), (-1, -1), 2),
                    ("BOTTOMPADDING", (0, 0), (-1, -1), 3),
                ]
            )
        )
        story.append(table)
        rulebooks = rulebook_files(manifest, lang, paper)
        if rulebooks:
            story.append(_p(t["rulebooks_title"], st["h2"]))
            for r in rulebooks:
                line = t["rulebook_line"].format(file=Path(r["path"]).name, pages=r["pages"])
                story.append(_p(line, st["body"]))
        versions = other_versions(manifest, lang, paper)
        described = [
            f"{folder}/ ({t['exports'][fmt]})" for fmt, folder in versions if fmt in t["exports"]
        ]
        if described:
            story.append(platypus.Spacer(1, 1.5 * MM))
            story.append(_p(f"{t['exports_title']} " + "; ".join(described) + ".", st["small"]))
        duplex_files = [f for f in files if f.duplex]
        if duplex_files:  # the duplex test, with the targets every duplex sheet carries
            story.append(_p(t["offset_title"], st["h2"]))
            gutterfold = [folder for fmt, folder in versions if fmt == "gutterfold"]
            check = t["offset_check"].format(file=Path(duplex_files[0].path).name)
            if gutterfold:
                check += " " + t["offset_gutterfold"].format(folder=gutterfold[0])
            words = [_p(check, st["body"]), _p(t["offset_text"].format(paper=paper), st["small"])]
            story.append(_pictured(StepPicture("targets"), words, st["regular"]))
        # Cut, fold and glue: one step per component, in the order of the files
        story.append(_p(t["steps_title"], st["h2"]))
        n = 0
        for f in files:
            if len(f.components) > 1:
                story.append(_p(t["shared"].format(file=Path(f.path).name), st["body"]))
            for comp in f.components:
                n += 1
                kind = kinds[(f.path, comp)]
                spec = specs.get(comp)
                folds = fold_lines(spec, renderer) if kind == "fold" and spec else 0
                step_words = t["steps"]
                if kind == "fold":
                    text = step_words["fold_3" if folds >= 3 else "fold"]
                else:
                    text = step_words.get(kind, step_words["cut"])
                head = t["step_head"].format(
                    n=n,
                    name=name(comp),
                    count=f.copies.get(comp, 0),
                    file=Path(f.path).name,
                    sheets=_ranges(f.on_sheets.get(comp, [])),
                )
                if kind == "join":
                    tiles = f.tiles or {}
                    text = text.format(
                        tiles=tiles.get("rows", 1) * tiles.get("cols", 1),
                        overlap=f"{tiles.get('overlap_mm', 0):g}",
                    )
                words = [_p(head, st["head"]), _p(text, st["body"])]
                if comp in f.backs and f.duplex:
                    words.append(_p(t["steps"]["two_sided"], st["small"]))
                story.append(
                    platypus.KeepTogether(_pictured(StepPicture(kind, folds), words, st["regular"]))
                )
        # Sheet inventory
        inventory_title: list[platypus.Flowable] = [_p(t["inventory_title"], st["h2"])]
        for f in files:
            # the section's title stays with its first file (never alone at a page's foot)
            block: list[platypus.Flowable] = [
                *inventory_title,
                _p(f"{Path(f.path).name}", st["head"]),
            ]
            inventory_title = []
            lines: list[str] = []  # what each sheet holds, in order
            for n, sheet in enumerate(f.inventory, 1):
                if f.tiles:
                    tile_list = ", ".join(f.tile_names[n - 1])
                    comps = ", ".join(dict.fromkeys(name(c) for c, _ in sheet))
                    lines.append(t["tile_line"].format(name=comps, tile=tile_list))
                    continue
                per_component: dict[str, Counter] = {}
                for (comp_id, item_id), copies in sheet.items():
                    per_component.setdefault(comp_id, Counter())[item_id] += copies
                parts = []
                for comp_id, items in per_component.items():
                    named: Counter[str] = Counter()
                    for i, c in items.items():
                        label = item_name(comp_id, i)
                        if label is not None:
                            named[label] += c
                    listed = ", ".join(f"{label} × {c}" for label, c in named.items())
                    unnamed = sum(items.values()) - sum(named.values())
                    if unnamed and named:
                        listed += ", " + t["others"].format(count=unnamed)
                    head = f"{name(comp_id)} ({sum(items.values())})"
                    parts.append(f"{head}: {listed}" if listed else head)
                lines.append("; ".join(parts))
            # sheets in a row that hold the same are one line ("Sheets 1–1111, each: ..."),
            # not a page of identical lines per hundred sheets
            run_start = 1
            for n, line in enumerate(lines, 1):
                if n < len(lines) and lines[n] == line:
                    continue
                which = (
                    t["sheet"].format(n=n)
                    if run_start == n
                    else t["sheet_run"].format(first=run_start, last=n)
                )
                block.append(_p(f"{which}: {line}", st["small"]))
                run_start = n + 1
            if f.tiles:
                total = t["total_tiled"].format(
                    count=sum(f.copies.values()), tiles=sum(len(x) for x in f.tile_names)
                )
            else:
                total = t["total"].format(count=sum(f.copies.values()))
            block.append(_p(total, st["small"]))
            block.append(platypus.Spacer(1, 2 * MM))
            story.append(platypus.KeepTogether(block))
        return story

    size = paper_size(content.project, paper)
    regular = st["regular"]

    def canvas_maker(*args, **kwargs):
        # initialFontName: otherwise ReportLab puts unembedded Helvetica in the resources
        kwargs.update(invariant=1, initialFontName=regular, initialFontSize=10)
        return Canvas(*args, **kwargs)

    def build(styles: dict, margin: float) -> tuple[int, float]:
        """Write the guide; return its pages and how full its last page is (0 to 1)."""
        doc = platypus.SimpleDocTemplate(
            str(out),
            pagesize=size,
            leftMargin=18 * MM,
            rightMargin=18 * MM,
            topMargin=margin,
            bottomMargin=margin,
            title=t["title"].format(game=game),
            author="pnp",
            creator="pnp",
        )
        doc.build(make_story(styles), canvasmaker=canvas_maker)
        frame = doc.pageTemplates[0].frames[0]
        used = (frame._y1 + frame._height - frame._y) / frame._height
        return doc.page, used

    pages, used = build(st, 14 * MM)
    if pages > 1 and used < LAST_PAGE_MIN:
        # A few lines spilt onto one more sheet of paper: set the guide tighter; keep that only
        # when it saves the sheet.
        tight, _ = build(_styles(renderer, compact=True), 10 * MM)
        if tight < pages:
            pages = tight
        else:
            pages, _ = build(st, 14 * MM)
    return {
        "path": None,  # filled in by the build
        "kind": "guide",
        "lang": lang,
        "paper": paper,
        "pages": pages,
        "lists": [f.path for f in files]
        + [r["path"] for r in rulebook_files(manifest, lang, paper)],
    }

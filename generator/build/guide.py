"""The print-and-assembly guide: one PDF per game, language and paper, made from the build plan.

It is written after the component and rulebook files, from their build-manifest parts, so what
it lists is what was written: every component PDF of its language and paper (pages, sheets,
duplex or not, the paper to use), the rulebooks, a 50 mm scale bar to check "print at 100 %",
the back-offset hint, cut/fold/glue steps per kind of component, and each sheet's contents.
Its words are data (templates/guide/texts.yaml); nothing here knows a game.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from reportlab.lib.styles import ParagraphStyle
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    KeepTogether,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
    Table,
    TableStyle,
)

from generator.errors import ContentError
from generator.load import languages, templating
from generator.load.content import GameContent
from generator.load.project import DEFAULTS
from generator.load.sizes import paper_size
from generator.load.yamlload import load_yaml
from generator.render.engine import FaceRenderer, colour
from generator.units import MM

SCALE_BAR_MM = 50.0
INK = "#1d1d1b"
ACCENT = "#1f3a5f"


# pnp's own words, for a project whose templates/ has no guide/ (it need not copy every template)
DEFAULT_TEXTS = DEFAULTS / "guide" / "texts.yaml"


def texts(templates: Path, lang: str) -> dict[str, Any]:
    """The guide's words in `lang`: the project's templates/guide/texts.yaml over pnp's own, so
    a project's file written before a word was added still has every word."""
    out = _words(DEFAULT_TEXTS, lang) if DEFAULT_TEXTS.is_file() else {}
    path = templates / "guide" / "texts.yaml"
    if path.is_file() and path.resolve() != DEFAULT_TEXTS:
        _merge(out, _words(path, lang))
    return out


def _words(path: Path, lang: str) -> dict[str, Any]:
    """One texts file's words in `lang`; what a language lacks comes from its `fallback` block."""
    data = load_yaml(path)
    fallback = data.get("fallback")  # the block a language's missing words come from
    if not isinstance(fallback, str) or fallback not in data:
        raise ContentError(
            "the guide texts need 'fallback: <lang>' naming one of their blocks",
            path,
            code="schema",
        )
    out = dict(data[fallback])
    _merge(out, data.get(lang) or {})
    return out


def _merge(out: dict[str, Any], words: dict[str, Any]) -> None:
    for key, value in words.items():
        out[key] = {**out.get(key, {}), **value} if isinstance(value, dict) else value


def guide_path(game: str, lang: str, paper: str) -> str:
    return f"output/{game}/{lang}/guide-{paper}.pdf"


@dataclass
class FileInfo:
    """One component PDF as the guide describes it."""

    path: str
    component: str
    pages: int
    sheets: int
    duplex: bool
    inventory: list[Counter]  # per front sheet: (component, item) -> copies


def component_files(manifest: dict, lang: str, paper: str) -> list[FileInfo]:
    """The component PDFs of one language and paper, with what each front sheet holds."""
    out = []
    for f in manifest["files"]:
        if f.get("kind") != "components" or f.get("lang") != lang or f.get("paper") != paper:
            continue
        pages = [s for s in manifest["sheets"] if s["file"] == f["path"]]
        fronts = sorted((s for s in pages if s["side"] == "front"), key=lambda s: s["page"])
        inventory = [
            Counter((slot["component"], slot["item"]) for slot in s["slots"]) for s in fronts
        ]
        components = sorted({slot["component"] for s in fronts for slot in s["slots"]})
        out.append(
            FileInfo(
                f["path"],
                components[0] if components else "",
                f["pages"],
                len(fronts),
                any(s["side"] == "back" for s in pages),
                inventory,
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


class ScaleBar(Flowable):
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


def _styles(renderer: FaceRenderer) -> dict[str, ParagraphStyle]:
    regular = renderer.fonts.face("gothic", "regular").name
    bold = renderer.fonts.face("gothic", "bold").name
    base = ParagraphStyle(
        "base", fontName=regular, bulletFontName=regular, fontSize=9.5, leading=12.5
    )
    return {
        "regular": regular,
        "bold": bold,
        "body": base,
        "small": ParagraphStyle("small", parent=base, fontSize=8.5, leading=10.5),
        "title": ParagraphStyle(
            "title", parent=base, fontName=bold, fontSize=17, leading=22, textColor=ACCENT
        ),
        "h2": ParagraphStyle(
            "h2",
            parent=base,
            fontName=bold,
            fontSize=12,
            leading=16,
            spaceBefore=7,
            spaceAfter=3,
            textColor=ACCENT,
            keepWithNext=1,
        ),
        "cell": ParagraphStyle("cell", parent=base, fontSize=8.5, leading=11),
        "head": ParagraphStyle("head", parent=base, fontName=bold, fontSize=8.5, leading=11),
    }


def _p(text: str, style: ParagraphStyle) -> Paragraph:
    safe = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return Paragraph(safe, style)


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

    by_id = {(c.id, i.id): i for c in content.components for i in c.items}  # one look-up each

    def item_name(component_id: str, item_id: str) -> str:
        item = by_id.get((component_id, item_id))
        value = item.data.get("name") if item is not None else None
        if isinstance(value, (str, dict)):
            try:
                return str(templating.pick(value, lang))
            except ContentError:
                pass
        return item_id

    files = component_files(manifest, lang, paper)
    language = languages.get(lang).name
    story: list[Flowable] = [
        _p(t["title"].format(game=game), st["title"]),
        _p(t["paper_line"].format(paper=paper.upper(), language=language), st["body"]),
        _p(t["scale_title"], st["h2"]),
        _p(t["scale_text"], st["body"]),
        Spacer(1, 2 * MM),
        ScaleBar(t["scale_label"], st["regular"]),
    ]
    # Which files to print
    story.append(_p(t["files_title"], st["h2"]))
    duplex_word = {
        "long-edge": t["duplex_yes"],
        "short-edge": t["duplex_short"],
    }
    rows = [[_p(t[k], st["head"]) for k in ("file", "pages", "sheets", "duplex", "weight")]]
    for f in files:
        spec = specs.get(f.component)
        kind = spec.model.kind if spec else "card"
        duplex = content.game.print.duplex if f.duplex else None
        rows.append(
            [
                _p(f"{Path(f.path).name} ({name(f.component)})", st["cell"]),
                _p(str(f.pages), st["cell"]),
                _p(str(f.sheets), st["cell"]),
                _p(duplex_word.get(duplex or "", t["duplex_no"]), st["cell"]),
                _p(t["weights"].get(kind, t["weights"]["card"]), st["cell"]),
            ]
        )
    table = Table(rows, colWidths=[56 * MM, 18 * MM, 14 * MM, 36 * MM, 46 * MM], repeatRows=1)
    table.setStyle(
        TableStyle(
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
    if described:  # one short paragraph under the table: the guide should stay one sheet
        story.append(Spacer(1, 1.5 * MM))
        story.append(_p(f"{t['exports_title']} " + "; ".join(described) + ".", st["small"]))
    story.append(_p(t["offset_title"], st["h2"]))
    gutterfold = [folder for fmt, folder in versions if fmt == "gutterfold"]
    # Whoever prints the kit may not have pnp: a test with the files at hand comes first.
    check = t["offset_check"]
    if gutterfold:
        check += " " + t["offset_gutterfold"].format(folder=gutterfold[0])
    story.append(_p(check, st["body"]))
    story.append(_p(t["offset_text"].format(paper=paper), st["small"]))
    # Cut, fold and glue: one step per component, in the order of the files
    story.append(_p(t["steps_title"], st["h2"]))
    for n, f in enumerate(files, 1):
        spec = specs.get(f.component)
        kind = spec.model.kind if spec else "card"
        step = t["steps"].get(kind, t["steps"]["card"]).format(name=name(f.component))
        story.append(_p(f"{n}. {step}", st["body"]))
    # Sheet inventory
    story.append(_p(t["inventory_title"], st["h2"]))
    for f in files:
        block: list[Flowable] = [_p(f"{Path(f.path).name}", st["head"])]
        for n, sheet in enumerate(f.inventory, 1):
            per_component: dict[str, Counter] = {}
            for (comp_id, item_id), copies in sheet.items():
                per_component.setdefault(comp_id, Counter())[item_id] += copies
            parts = []
            for comp_id, items in per_component.items():
                listed = ", ".join(
                    f"{item_name(comp_id, i)} × {c}" for i, c in sorted(items.items())
                )
                parts.append(f"{name(comp_id)} ({sum(items.values())}): {listed}")
            block.append(_p(f"{t['sheet'].format(n=n)}: " + "; ".join(parts), st["small"]))
        total = sum(sum(s.values()) for s in f.inventory)
        block.append(_p(t["total"].format(count=total), st["small"]))
        block.append(Spacer(1, 2 * MM))
        story.append(KeepTogether(block))
    size = paper_size(content.project, paper)
    regular = st["regular"]

    def canvas_maker(*args, **kwargs):
        # initialFontName: otherwise ReportLab puts unembedded Helvetica in the resources
        kwargs.update(invariant=1, initialFontName=regular, initialFontSize=10)
        return Canvas(*args, **kwargs)

    doc = SimpleDocTemplate(
        str(out),
        pagesize=size,
        leftMargin=18 * MM,
        rightMargin=18 * MM,
        # 14 mm, not 18: the sheet inventory of a mid-size game then fits the first page
        # instead of spilling a few lines onto a second sheet of paper.
        topMargin=14 * MM,
        bottomMargin=14 * MM,
        title=t["title"].format(game=game),
        author="pnp",
        creator="pnp",
    )
    doc.build(story, canvasmaker=canvas_maker)
    return {
        "path": None,  # filled in by the build
        "kind": "guide",
        "lang": lang,
        "paper": paper,
        "pages": doc.page,
        "lists": [f.path for f in files] + [r["path"] for r in rulebooks],
    }

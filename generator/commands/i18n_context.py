"""A picture per string: `pnp i18n export GAME --lang L --context DIR`.

For each string of a component (its name, its data, an item's data), a PNG of a face where it
prints, with the string's place outlined, named by the entry's id (its msgctxt, made safe for a
file name). The place is found without knowing the layout: the face is drawn twice, once as it
is and once with that one string replaced, in a copy of the game; the pixels that differ are
where the string lands. The face is drawn in the target language when the string has a
translation there, else in the source language.

Strings that print on no face (game.yaml's title) get no picture; the export says how many.

Each rulebook segment gets a picture of the page region where its block lands in the rulebook
(write_rule_pictures): the book is laid out once with each block marked by its line in the
rules file (`data-line`; a string inside a template call, such as a board's caption or a
table's header, marks the element the call renders it in: `data-call`), WeasyPrint's boxes say
where each landed, and the page is rasterised
and cropped around the block, outlined in red.
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator.commands.face import FaceRef, face_pdf, rasterise
from generator.errors import ContentError
from generator.fsio import write_bytes
from generator.i18n.po import Edit, _yaml_edits
from generator.i18n.segments import Segment
from generator.load.content import ComponentSpec, GameContent, load_game
from generator.load.project import Project
from generator.load.rules_source import rules_files
from generator.load.sizes import papers
from generator.load.yamlload import read_text

DPI = 100
MAX_ITEMS = 12  # faces of a component tried first, spread over its items
MAX_FACES = 200  # other faces tried before a string is said to print on none


@dataclass
class Picture:
    ctx: str
    path: Path | None  # None: the string prints on no face drawn
    face: str = ""  # component/item, side front


def file_name(ctx: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", ctx).strip("_") + ".png"


def _component(content: GameContent, seg: Segment) -> ComponentSpec | None:
    for comp in content.components:
        if comp.file.resolve() == seg.source.file.resolve():
            return comp
    return None


def _spread(comp: ComponentSpec, wanted: re.Match | None) -> list:
    """The item named, or up to MAX_ITEMS items spread over the component (every suit, say)."""
    items = [i for i in comp.items if not wanted or i.id == wanted.group(1)]
    step = max(1, -(-len(items) // MAX_ITEMS))
    return items[::step]


def write_pictures(
    content: GameContent, lang: str, segments: list[Segment], out_dir: Path
) -> list[Picture]:
    """One PNG per component string of `segments` in `out_dir` (created)."""
    from PIL import ImageChops, ImageDraw

    out_dir.mkdir(parents=True, exist_ok=True)
    pictures: list[Picture] = []
    cache: dict[tuple[str, str, str], Any] = {}  # the faces as they are, drawn once
    strings = [(s, _component(content, s)) for s in segments if s.kind == "string"]
    with tempfile.TemporaryDirectory(prefix="pnp-context-") as tmp:
        root = Path(tmp)
        (root / "content").mkdir()
        (root / "templates").symlink_to(content.project.templates.resolve())
        game = root / "content" / content.dir.name
        shutil.copytree(content.dir, game, ignore=shutil.ignore_patterns(".*"))
        for seg, comp in strings:
            # a string of game.yaml or a data file may print on any component's faces
            comps = [comp] if comp is not None else list(content.components)
            draw_lang = lang if seg.translation(lang) is not None else content.languages[0]
            copy = game / seg.source.file.relative_to(content.dir)
            original = read_text(copy)
            shown = seg.translation(draw_lang) if draw_lang != content.languages[0] else seg.text
            marker = "#" * max(4, len(shown or "") // 2)
            changed = _yaml_edits(original, draw_lang, [Edit(seg, marker, False, True)])
            copy.write_text(changed, encoding="utf-8")
            try:
                other = load_game(Project(root), content.id)
                key = seg.ctx.split(":", 1)[1]
                wanted = re.match(r"items\[([^\]]+)\]", key) if comp is not None else None
                # a few faces spread over each component first, then every other face
                spread = [(c, i) for c in comps for i in _spread(c, wanted)]
                rest = [
                    (c, i)
                    for c in comps
                    for i in c.items
                    if (not wanted or i.id == wanted.group(1)) and (c, i) not in spread
                ]
                faces = spread + rest[:MAX_FACES]
                found = None
                for comp, item in faces:
                    ref = FaceRef(comp, item, "front", draw_lang)
                    drawn = (comp.id, item.id, draw_lang)
                    if drawn not in cache:
                        cache[drawn] = rasterise(face_pdf(content, ref, 0), DPI)
                    mine = cache[drawn].copy()
                    theirs_comp = other.component(comp.id)
                    theirs_item = next(i for i in theirs_comp.items if i.id == item.id)
                    ref2 = FaceRef(theirs_comp, theirs_item, "front", draw_lang)
                    theirs = rasterise(face_pdf(other, ref2, 0), DPI)
                    box = ImageChops.difference(mine, theirs).getbbox()
                    if box:
                        found = (f"{comp.id}/{item.id}", mine, box)
                        break
            except ContentError:
                found = None
            finally:
                copy.write_text(original, encoding="utf-8")
            if found is None:
                pictures.append(Picture(seg.ctx, None))
                continue
            face, image, (x0, y0, x1, y1) = found
            pad = 3
            draw = ImageDraw.Draw(image)
            for k in range(3):  # a 3-pixel red outline around the string's place
                draw.rectangle(
                    (x0 - pad - k, y0 - pad - k, x1 + pad + k, y1 + pad + k), outline=(220, 0, 0)
                )
            path = out_dir / file_name(seg.ctx)
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            write_bytes(path, buffer.getvalue())
            pictures.append(Picture(seg.ctx, path, face))
    return pictures


# ---------------------------------------------------------------- rulebook blocks

MARGIN_MM = 18  # the page shown above and below a block, for its surroundings
RULE_KINDS = ("title", "heading", "paragraph", "item", "cell", "call")


def _block_key(seg: Segment, place) -> str | None:
    """The key segment_boxes() gives the block of `place`."""
    if seg.kind == "title":
        return "title"
    if seg.kind == "heading":
        return f"§{seg.section}"
    if seg.kind == "cell" and place.cell is not None:
        return f"{place.cell[0]}:{place.cell[1]}"
    if seg.kind in ("paragraph", "item"):
        return str(place.line)
    if seg.kind == "call" and place.call is not None:
        return f"{place.line}@{place.call[0]}"  # the element the call renders it in
    return None


def write_rule_pictures(
    content: GameContent, lang: str, segments: list[Segment], out_dir: Path
) -> list[Picture]:
    """One PNG per rulebook segment of `segments` in `out_dir`: the part of the page where its
    block lands in the `lang` rulebook (the source's, when `lang` has no rulebook yet), the
    block outlined in red. Next to them, `rulebook.LANG.pdf` is the book they come from and
    `rulebook.LANG.json` gives each picture's page and outline (PDF points from the page's top
    left) and its crop, so a tool can find the block again."""
    import pypdfium2 as pdfium  # a rasteriser: only when pictures are asked for
    from PIL import ImageDraw  # likewise

    # start-up: the rulebook builder (WeasyPrint layout) loads only when pictures are asked for
    from generator.rulebook.book import segment_boxes

    rules = [s for s in segments if s.ctx.startswith("rules:")]
    if not rules:
        return []
    source = content.languages[0]
    draw_lang = lang if lang in rules_files(content.dir) else source
    out_dir.mkdir(parents=True, exist_ok=True)
    paper = papers(None, content.game.rulebook.papers, content.game.print.papers)[0]
    pdf_path = out_dir / f"rulebook.{draw_lang}.pdf"
    boxes = segment_boxes(content, draw_lang, paper, pdf_path)
    pdf = pdfium.PdfDocument(str(pdf_path))
    pages: dict[int, Any] = {}
    index: dict[str, dict] = {}
    pictures: list[Picture] = []
    scale = DPI / 72
    try:
        for seg in rules:
            place = seg.source if draw_lang == source else seg.places.get(draw_lang)
            key = _block_key(seg, place) if place is not None else None
            if key is None or key not in boxes:
                pictures.append(Picture(seg.ctx, None))
                continue
            number, (x0, y0, x1, y1) = boxes[key]
            if number not in pages:
                pages[number] = pdf[number].render(scale=scale).to_pil().convert("RGB")
            page = pages[number]
            margin = MARGIN_MM / 25.4 * 72
            top = max(0.0, y0 - margin)
            bottom = min(page.height / scale, y1 + margin)
            image = page.crop((0, round(top * scale), page.width, round(bottom * scale)))
            draw = ImageDraw.Draw(image)
            box = [
                round(x0 * scale),
                round((y0 - top) * scale),
                round(x1 * scale),
                round((y1 - top) * scale),
            ]
            for k in range(3):  # a 3-pixel red outline around the block
                draw.rectangle(
                    (box[0] - 3 - k, box[1] - 3 - k, box[2] + 3 + k, box[3] + 3 + k),
                    outline=(220, 0, 0),
                )
            path = out_dir / file_name(seg.ctx)
            buffer = io.BytesIO()
            image.save(buffer, format="PNG")
            write_bytes(path, buffer.getvalue())
            pictures.append(Picture(seg.ctx, path, f"rulebook {draw_lang} page {number + 1}"))
            index[seg.ctx] = {
                "png": path.name,
                "page": number + 1,
                "outline_pt": [round(v, 2) for v in (x0, y0, x1, y1)],
                "crop_pt": [0, round(top, 2), round(page.width / scale, 2), round(bottom, 2)],
                "dpi": DPI,
            }
    finally:
        pdf.close()
    data = {"pdf": pdf_path.name, "lang": draw_lang, "pictures": index}
    write_bytes(out_dir / f"rulebook.{draw_lang}.json", json.dumps(data, indent=1).encode())
    return pictures

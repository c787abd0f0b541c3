"""`tts`: Tabletop Simulator saved objects, one JSON per component, with the images it uses.

A deck becomes a DeckCustom: face sheets of at most 10 x 7 designs whose last slot is the
hidden-card face, a back image (or back sheets when items have backs of their own), and one
card per physical copy in DeckIDs and ContainedObjects. A board or a tile becomes one
Custom_Board or Custom_Tile per copy, each with its own front (and back) image. Which one a
component becomes is the export's `as:` (TtsOptions), by default decided from the face alone
(`object_for`), never from the component's free `kind` label.

Images are named by file:// URLs of the written files (TTS takes no relative link), which load
on this computer only: the entry says `links: file` and `pnp print` warns. `base_url:` in the
export's spec names where they will be hosted instead: base_url + the path under output/<game>/.
"""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from generator.exports import raster
from generator.exports.base import ExportContext, Job, Outputs, file_entry
from generator.load import templating
from generator.load.content import ComponentSpec, ItemSpec
from generator.load.export_options import BOARD_ABOVE_SHEET, TILE_BELOW_MM, TtsOptions
from generator.units import MM

DEFAULT_DPI = 150  # TTS shows cards at about 500 px tall; sheets stay under 4k x 4k
MAX_COLS, MAX_ROWS = 10, 7
PER_SHEET = MAX_COLS * MAX_ROWS - 1  # the last slot holds the hidden-card face
COMPRESS_LEVEL = 6
# `as: auto` (the thresholds are declared with the option, so its description names them)
TILE_BELOW = TILE_BELOW_MM * MM
BOARD_ABOVE = BOARD_ABOVE_SHEET[1] * MM * BOARD_ABOVE_SHEET[2] * MM


def object_for(comp: ComponentSpec, opts: TtsOptions) -> str:
    """What a component becomes in TTS: `deck`, `board` or `tile`. The export's `as:` when it
    names one; else from the face: a die-cut shape (round, hexagonal...) or a side under 40 mm
    is a tile, a face larger than A5 a board, any other rectangle a deck of cards."""
    if opts.as_ != "auto":
        return opts.as_
    w, h = comp.size_pt
    if not comp.outline.is_rect or min(w, h) < TILE_BELOW:
        return "tile"
    return "board" if w * h > BOARD_ABOVE else "deck"


def grid_for(designs: int) -> tuple[int, int]:
    """Columns and rows for `designs` faces plus the hidden face in the last slot."""
    slots = designs + 1
    cols = min(MAX_COLS, slots)
    return cols, -(-slots // cols)


def _batches(comp: ComponentSpec) -> list[list[ItemSpec]]:
    items = comp.items
    return [items[i : i + PER_SHEET] for i in range(0, len(items), PER_SHEET)]


def _unique_backs(comp: ComponentSpec) -> bool:
    return any(item.back != comp.model.back for item in comp.items)


def _has_back(comp: ComponentSpec) -> bool:
    return any(item.back for item in comp.items)


class Tts:
    name = "tts"
    options = TtsOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        jobs = []
        folder = f"{ctx.folder()}/tts"
        opts = ctx.options(TtsOptions)
        for comp in ctx.components():
            paths = [f"{folder}/{comp.id}.json"]
            if object_for(comp, opts) == "deck":
                n = len(_batches(comp))
                paths += [f"{folder}/{comp.id}-faces-{i + 1}.png" for i in range(n)]
                if _unique_backs(comp):
                    paths += [f"{folder}/{comp.id}-backs-{i + 1}.png" for i in range(n)]
                else:  # a deck without backs gets a blank one: TTS needs a BackURL
                    paths.append(f"{folder}/{comp.id}-back.png")
            else:
                for item in comp.items:
                    paths.append(f"{folder}/{comp.id}/{item.id}-front.png")
                    if item.back:
                        paths.append(f"{folder}/{comp.id}/{item.id}-back.png")
            jobs.append(Job(self.name, ctx.lang, tuple(paths), comp.id))
        return jobs

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        comp = ctx.content.component(job.component)
        opts = ctx.options(TtsOptions)
        dpi = opts.dpi or DEFAULT_DPI
        w, h = comp.size_pt
        px = (raster.pixels(w, dpi), raster.pixels(h, dpi))
        json_rel = job.paths[0]

        def url(rel: str) -> str:
            if opts.base_url:
                under_game = rel.split("/", 2)[2]  # output/<game>/<rest>
                return opts.base_url.rstrip("/") + "/" + under_game
            return (out.root / rel).resolve().as_uri()

        def save(image: Image.Image, rel: str) -> None:
            raster.save_png(image, out.path(rel), dpi, COMPRESS_LEVEL)

        name = templating.pick(comp.model.name, ctx.lang)
        made = object_for(comp, opts)
        if made == "deck":
            state, info = self._deck(ctx, comp, job, px, dpi, url, save)
        else:
            state, info = self._pieces(ctx, comp, job, px, dpi, url, save, made == "board")
        saved = {
            "SaveName": name,
            "GameMode": "",
            "Date": "",
            "Table": "",
            "Sky": "",
            "Note": "",
            "Rules": "",
            "XmlUI": "",
            "LuaScript": "",
            "LuaScriptState": "",
            "ObjectStates": state,
        }
        out.path(json_rel).write_text(json.dumps(saved, ensure_ascii=False, indent=1))
        entry = file_entry(
            json_rel,
            "export",
            ctx.lang,
            fmt=self.name,
            component=comp.id,
            images=list(job.paths[1:]),
            px=list(px),
            dpi=dpi,
            # file:// links work on this computer only: the build warns (run.local_links)
            links="base_url" if opts.base_url else "file",
            **info,
        )
        return {"files": [entry], "sheets": []}

    # ------------------------------------------------------------ decks
    def _deck(self, ctx, comp, job, px, dpi, url, save):
        batches = _batches(comp)
        unique = _unique_backs(comp)
        folder = str(Path(job.paths[0]).parent)
        faces = [raster.Face(item, "front", item.layout) for batch in batches for item in batch]
        backs: list[raster.Face] = []
        if unique:
            backs = [raster.Face(item, "back", item.back or "") for b in batches for item in b]
        elif _has_back(comp):
            backs = [raster.Face(None, "back", comp.model.back)]
        drawable = faces + [f for f in backs if f.layout]
        images = dict(
            zip(
                [(f.item.id if f.item else None, f.side) for f in drawable],
                raster.render(ctx.content, ctx.lang, comp, drawable, dpi=dpi, px=px),
                strict=True,
            )
        )
        blank = Image.new("RGB", px, "white")
        common_back = images.get((None, "back"), blank)
        custom, deck_ids, cards, sheets_info = {}, [], [], []
        for n, batch in enumerate(batches):
            deck_id = n + 1
            cols, rows = grid_for(len(batch))
            face_sheet = Image.new("RGB", (cols * px[0], rows * px[1]), "white")
            back_sheet = Image.new("RGB", face_sheet.size, "white") if unique else None
            hidden = (cols * rows - 1) % cols * px[0], (cols * rows - 1) // cols * px[1]
            for i, item in enumerate(batch):
                at = (i % cols * px[0], i // cols * px[1])
                face_sheet.paste(images[(item.id, "front")], at)
                if back_sheet is not None:
                    back_sheet.paste(images.get((item.id, "back"), blank), at)
            # The last slot is what other players see of a card in your hand.
            face_sheet.paste(common_back, hidden)
            if back_sheet is not None:
                back_sheet.paste(common_back, hidden)
            face_rel = f"{folder}/{comp.id}-faces-{deck_id}.png"
            save(face_sheet, face_rel)
            if back_sheet is not None:
                back_rel = f"{folder}/{comp.id}-backs-{deck_id}.png"
                save(back_sheet, back_rel)
            else:
                back_rel = f"{folder}/{comp.id}-back.png"
                if n == 0:
                    save(common_back, back_rel)
            custom[str(deck_id)] = {
                "FaceURL": url(face_rel),
                "BackURL": url(back_rel),
                "NumWidth": cols,
                "NumHeight": rows,
                "BackIsHidden": True,
                "UniqueBack": unique,
                "Type": 0,
            }
            sheets_info.append({"face": face_rel, "back": back_rel, "cols": cols, "rows": rows})
            for i, item in enumerate(batch):
                card_id = deck_id * 100 + i
                for _ in range(item.count):
                    deck_ids.append(card_id)
                    cards.append(
                        {
                            **_object("Card", _nickname(item, ctx.lang)),
                            "CardID": card_id,
                            "CustomDeck": {str(deck_id): custom[str(deck_id)]},
                        }
                    )
        if len(cards) == 1:  # TTS decks hold two cards or more
            return cards, {"tts_sheets": sheets_info, "copies": 1}
        deck = {
            **_object("DeckCustom", templating.pick(comp.model.name, ctx.lang)),
            "HideWhenFaceDown": True,
            "DeckIDs": deck_ids,
            "CustomDeck": custom,
            "ContainedObjects": cards,
        }
        return [deck], {"tts_sheets": sheets_info, "copies": len(cards)}

    # ------------------------------------------------------------ boards and tiles
    def _pieces(self, ctx, comp, job, px, dpi, url, save, board: bool):
        folder = str(Path(job.paths[0]).parent)
        faces = [raster.Face(item, "front", item.layout) for item in comp.items]
        faces += [raster.Face(item, "back", item.back) for item in comp.items if item.back]
        rendered = raster.render(ctx.content, ctx.lang, comp, faces, dpi=dpi, px=px)
        for face, image in zip(faces, rendered, strict=True):
            assert face.item is not None
            save(image, f"{folder}/{comp.id}/{face.item.id}-{face.side}.png")
        objects = []
        for i, item in enumerate(comp.items):
            front = url(f"{folder}/{comp.id}/{item.id}-front.png")
            back = url(f"{folder}/{comp.id}/{item.id}-back.png") if item.back else ""
            for copy in range(item.count):
                obj = _object("Custom_Board" if board else "Custom_Tile", _nickname(item, ctx.lang))
                obj["Transform"]["posX"] = 3.0 * (i % 10)
                obj["Transform"]["posZ"] = -3.0 * (i // 10)
                obj["Transform"]["posY"] = 1.0 + 0.2 * copy  # copies stack
                if board:
                    obj["CustomImage"] = {"ImageURL": front, "ImageSecondaryURL": back}
                else:
                    obj["CustomImage"] = {
                        "ImageURL": front,
                        "ImageSecondaryURL": back or front,
                        "ImageScalar": 1.0,
                        "WidthScale": 0.0,
                        "CustomTile": {
                            "Type": 0,
                            "Thickness": 0.2,
                            "Stackable": True,
                            "Stretch": True,
                        },
                    }
                objects.append(obj)
        return objects, {"copies": len(objects)}


def _nickname(item: ItemSpec, lang: str) -> str:
    """The item's `name` in the language when it has one, else its id."""
    name = item.data.get("name")
    if isinstance(name, dict) and isinstance(name.get(lang), str):
        return name[lang]
    return name if isinstance(name, str) and "{" not in name else item.id


def _object(name: str, nickname: str) -> dict:
    return {
        "Name": name,
        "Nickname": nickname,
        "Description": "",
        "Transform": {
            "posX": 0.0,
            "posY": 1.0,
            "posZ": 0.0,
            "rotX": 0.0,
            "rotY": 180.0,
            "rotZ": 0.0,
            "scaleX": 1.0,
            "scaleY": 1.0,
            "scaleZ": 1.0,
        },
        "Locked": False,
        "Grid": True,
        "Snap": True,
        "Autoraise": True,
        "Sticky": True,
        "Tooltip": True,
    }

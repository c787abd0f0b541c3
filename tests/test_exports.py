"""The exports, checked on what they wrote: PNG pixels, TTS JSON and sheets, gutterfold geometry,
ink coverage of the ink-saver sheets, and the print-shop order sheet against the game's counts."""

from __future__ import annotations

import csv
import io
import json
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import yaml
from conftest import ROOT, copy_project, only_languages, run_pnp, shared_build, without_rulebooks
from pdfutil import reader, render
from PIL import Image

GAMES = ["dogfight", "red-code", "sub-zero", "the-hunt-begins"]


def files_of(manifest: dict, fmt: str) -> list[dict]:
    return [f for f in manifest["files"] if f.get("format") == fmt]


def languages(game: str) -> int:
    """How many languages the game prints (Dogfight gained French through the PO workflow)."""
    data = yaml.safe_load((ROOT / "content" / game / "game.yaml").read_text())
    return len(data["languages"])


def manifest_counts(game: str) -> dict[str, int]:
    data = yaml.safe_load((ROOT / "content" / game / "manifest.yaml").read_text())
    return {cid: (v if isinstance(v, int) else v["count"]) for cid, v in data["components"].items()}


# ------------------------------------------------------------------ png


def test_png_size_is_trim_plus_bleed_at_the_dpi_and_srgb(built):
    m = built.manifest("dogfight")
    pngs = files_of(m, "png")
    # 50 + 25 fronts and one common back per deck, in every language
    assert len(pngs) == (50 + 1 + 25 + 1) * languages("dogfight")
    want = (round((63 + 2 * 3) / 25.4 * 300), round((88 + 2 * 3) / 25.4 * 300))
    assert want == (815, 1110)
    for f in pngs:
        with Image.open(built.path(f["path"])) as im:
            assert im.size == want == tuple(f["px"]), f["path"]
            assert im.mode == "RGB" and im.info.get("icc_profile"), "sRGB profile embedded"
            assert round(im.info["dpi"][0]) == 300
    # named so an upload keeps the deck, with each design's quantity in the manifest
    fronts = [f for f in pngs if f["side"] == "front" and f["lang"] == "es"]
    assert {Path(f["path"]).name for f in fronts} >= {"red-1-front.png", "blue-0-front.png"}
    assert sum(f["copies"] for f in fronts if f["component"] == "allied-planes") == 50


def test_png_full_bleed_face_has_its_colour_in_the_bleed(built):
    path = built.path("output/dogfight/en/png/allied-planes/back.png")
    with Image.open(path) as im:
        px = im.load()
        bleed_px = round(3 / 25.4 * 300)  # 35 px of bleed
        navy = (0x1F, 0x2F, 0x4A)
        for x, y in ((2, im.height // 2), (im.width - 3, im.height // 3), (im.width // 2, 2)):
            assert max(abs(a - b) for a, b in zip(px[x, y], navy, strict=True)) <= 3, (x, y)
        # and the same colour just inside the trim: the art continues into the bleed
        inside = px[bleed_px + 3, im.height // 2]
        assert max(abs(a - b) for a, b in zip(inside, navy, strict=True)) <= 3


@pytest.fixture(scope="module")
def preset_project(tmp_path_factory) -> Path:
    def build(folder: Path) -> None:
        root = copy_project(folder, ("dogfight",))
        game = root / "content/dogfight/game.yaml"
        text = game.read_text()
        text = text.replace(
            "exports: [sheets, print-shop, png, tts, gutterfold, ink-saver]",
            "exports: [{format: png, preset: thegamecrafter, components: [rewards]},\n"
            "            {format: png, preset: makeplayingcards, components: [rewards]}]",
        )
        game.write_text(text)
        only_languages(root, "dogfight", ["en"])  # the tests read English images only
        without_rulebooks(root, "dogfight")
        run_pnp(root, "print", "--export", "png", "--paper", "a4", check=True)

    return shared_build(tmp_path_factory, "png-presets", build)[0]


@pytest.mark.parametrize(
    "preset, px", [("thegamecrafter", (825, 1125)), ("makeplayingcards", (822, 1122))]
)
def test_png_preset_gives_the_shops_exact_pixel_size(preset_project, preset, px):
    shops = yaml.safe_load((ROOT / "templates/printers.yaml").read_text())
    assert tuple(shops[preset]["sizes"]["poker"]["px"]) == px
    m = json.loads((preset_project / "output/dogfight/build-manifest.json").read_text())
    images = [f for f in files_of(m, "png") if f.get("preset") == preset and f["lang"] == "en"]
    assert len(images) == 25 + 1
    for f in images:
        assert f["path"].startswith(f"output/dogfight/en/png-{preset}/rewards/")
        assert f["shop_size"] == "poker" and f["dpi"] == 300
        with Image.open(preset_project / f["path"]) as im:
            assert im.size == px


def test_check_reports_a_face_no_preset_size_fits(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"
    game.write_text(
        game.read_text().replace(
            "exports: [sheets, print-shop, png, tts, gutterfold, ink-saver]",
            "exports: [sheets, {format: png, preset: makeplayingcards}]",
        )
    )
    comp = root / "content/dogfight/components/rewards.yaml"
    comp.write_text(comp.read_text().replace("size: poker", "size: tarot"))
    result = run_pnp(root, "check", "dogfight", "--format", "json")
    assert result.returncode == 1
    found = [f for f in json.loads(result.stdout) if f["code"] == "preset-size"]
    assert len(found) == 1
    assert "rewards" in found[0]["message"] and "MakePlayingCards" in found[0]["message"]
    assert found[0]["file"].endswith("components/rewards.yaml") and found[0]["line"]


def test_unknown_export_is_a_located_error(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"
    game.write_text(game.read_text().replace("png, tts", "pngg, tts"))
    result = run_pnp(root, "check", "dogfight")
    assert result.returncode == 2  # content that does not load
    line = 1 + game.read_text().splitlines().index(
        next(x for x in game.read_text().splitlines() if "pngg" in x)
    )
    assert f"game.yaml:{line}: print.exports[2]:" in result.stdout + result.stderr
    assert "unknown export format 'pngg'" in result.stdout + result.stderr
    assert run_pnp(root, "print", "--export", "nope").returncode != 0


# ------------------------------------------------------------------ tts


def _local(url: str) -> Path:
    assert url.startswith("file://"), url
    return Path(unquote(urlparse(url).path))


def test_tts_deck_has_a_card_per_copy_and_sheets_of_at_most_10x7(built):
    m = built.manifest("dogfight")
    counts = manifest_counts("dogfight")
    decks = files_of(m, "tts")
    assert len(decks) == 2 * languages("dogfight")
    for f in decks:
        saved = json.loads(built.path(f["path"]).read_text())
        (deck,) = saved["ObjectStates"]
        assert deck["Name"] == "DeckCustom"
        assert len(deck["DeckIDs"]) == counts[f["component"]] == len(deck["ContainedObjects"])
        for card in deck["ContainedObjects"]:
            assert card["Name"] == "Card" and card["Nickname"]
            assert card["CardID"] in deck["DeckIDs"]
        cw, ch = f["px"]
        for key, custom in deck["CustomDeck"].items():
            assert custom["NumWidth"] <= 10 and custom["NumHeight"] <= 7
            assert {"BackIsHidden", "UniqueBack"} <= set(custom)
            face, back = _local(custom["FaceURL"]), _local(custom["BackURL"])
            assert face.is_file() and back.is_file()
            with Image.open(face) as im:
                assert im.size == (custom["NumWidth"] * cw, custom["NumHeight"] * ch)
            # every card of this sheet sits in a slot before the hidden face (the last one)
            ids = [i for i in deck["DeckIDs"] if i // 100 == int(key)]
            assert max(i % 100 for i in ids) < custom["NumWidth"] * custom["NumHeight"] - 1


def test_tts_pieces_and_base_url(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"
    text = game.read_text().replace(
        "exports: [sheets, print-shop, png, tts, gutterfold, ink-saver]",
        "exports: [{format: tts, base_url: 'https://example.org/kit', dpi: 72}]",
    )
    game.write_text(text)
    # rewards are poker cards (a deck by their face); the export's own option makes them tiles
    comp = root / "content/dogfight/components/rewards.yaml"
    comp.write_text(
        comp.read_text()
        + "print: {exports: [{format: tts, base_url: 'https://example.org/kit', dpi: 72, "
        "as: tile}]}\n"
    )
    only_languages(root, "dogfight", ["en"])  # the test reads English decks only
    without_rulebooks(root, "dogfight")
    tts = ("print", "--export", "tts", "--paper", "a4")
    run_pnp(root, *tts, check=True)
    deck = json.loads((root / "output/dogfight/en/tts/allied-planes.json").read_text())
    url = deck["ObjectStates"][0]["CustomDeck"]["1"]["FaceURL"]
    assert url == "https://example.org/kit/en/tts/allied-planes-faces-1.png"
    tokens = json.loads((root / "output/dogfight/en/tts/rewards.json").read_text())
    assert len(tokens["ObjectStates"]) == 25
    assert {o["Name"] for o in tokens["ObjectStates"]} == {"Custom_Tile"}
    for o in tokens["ObjectStates"]:
        rel = o["CustomImage"]["ImageURL"].removeprefix("https://example.org/kit/")
        assert (root / "output/dogfight" / rel).is_file()
    # A target of many files is up to date only while every one of them is intact.
    again = run_pnp(root, *tts, check=True)
    assert " 0 of " in again.stdout
    (root / "output/dogfight/en/tts/rewards/red-0-front.png").unlink()
    repaired = run_pnp(root, *tts, check=True)
    # the deck's one job runs again and writes its JSON and its 50 pictures (files, not jobs)
    entry = next(
        f
        for f in json.loads((root / "output/dogfight/build-manifest.json").read_text())["files"]
        if f["path"] == "output/dogfight/en/tts/rewards.json"
    )
    assert f" {1 + len(entry['images'])} of " in repaired.stdout
    assert (root / "output/dogfight/en/tts/rewards/red-0-front.png").is_file()


# ------------------------------------------------------------------ gutterfold


def test_gutterfold_backs_mirror_their_fronts_across_the_fold(built):
    m = built.manifest("dogfight")
    folds = files_of(m, "gutterfold")
    assert len(folds) == 2 * 2 * languages("dogfight")  # 2 decks x 2 papers x each language
    for f in folds:
        pages = [s for s in m["sheets"] if s["file"] == f["path"]]
        assert len(pages) == 2 * f["pages"]
        copies = 0
        for page in range(1, f["pages"] + 1):
            front = next(s for s in pages if s["page"] == page and s["side"] == "front")
            back = next(s for s in pages if s["page"] == page and s["side"] == "back")
            fold = front["fold"]["x"]
            backs = {(s["item"], s["copy"]): s for s in back["slots"]}
            for s in front["slots"]:
                b = backs[(s["item"], s["copy"])]
                mirror_x = 2 * fold - s["x"] - s["w"]
                assert abs(b["x"] - mirror_x) <= 0.1 and abs(b["y"] - s["y"]) <= 0.1
                assert (b["w"], b["h"]) == (s["w"], s["h"])
                assert s["x"] + s["w"] + s["bleed"] < fold < b["x"] - b["bleed"]
                copies += 1
        assert copies == manifest_counts("dogfight")[f["component"]]


def test_gutterfold_page_is_mirror_symmetric_on_pixels(built):
    """At 254 dpi a pixel is 0.1 mm: the faces' outer edges on the two halves of a page
    mirror each other across the fold to within one pixel."""
    m = built.manifest("dogfight")
    f = next(f for f in files_of(m, "gutterfold") if f["lang"] == "en" and f["paper"] == "a4")
    page = next(s for s in m["sheets"] if s["file"] == f["path"] and s["page"] == 1)
    dpi = 254
    image = render(built.path(f["path"]), 1, dpi=dpi).convert("L")
    W, H = image.size
    fold_px = page["fold"]["x"] * dpi / 25.4
    assert abs(fold_px - W / 2) <= 1
    ys = [s["y"] for s in page["slots"]]
    row = round(H - (min(ys) + page["slots"][0]["h"] / 2) * dpi / 25.4)  # through a face

    def edges(columns):  # anything printed, the fronts' cream bleed (grey 248) included
        dark = [x for x in columns if image.getpixel((x, row)) < 252]
        return min(dark), max(dark)

    left = edges(range(0, W // 2 - 5))
    right = edges(range(W // 2 + 5, W))
    # the outermost printed columns of the row (bleed edges) mirror across the fold
    assert abs((W - 1 - right[1]) - left[0]) <= 1
    assert abs((W - 1 - right[0]) - left[1]) <= 1


# ------------------------------------------------------------------ ink-saver


def coverage(image) -> float:
    """Mean ink on the page: 0 is blank paper, 1 is solid black (from grey levels)."""
    grey = image.convert("L")
    hist = grey.histogram()
    return sum((255 - level) * n for level, n in enumerate(hist)) / (255 * grey.width * grey.height)


def test_ink_saver_sheets_use_less_ink(built, capsys):
    m = built.manifest("dogfight")
    figures = []
    for f in files_of(m, "ink-saver"):
        if f["lang"] != "en" or f["paper"] != "a4":
            continue
        normal = built.path(f"output/dogfight/en/{f['component']}-a4.pdf")
        assert len(reader(normal).pages) == f["pages"]
        for page in (1, 2):  # a front sheet and its back sheet
            full = coverage(render(normal, page, dpi=50))
            saved = coverage(render(built.path(f["path"]), page, dpi=50))
            figures.append((f["component"], page, full, saved))
            assert saved < 0.6 * full, (f["component"], page, full, saved)
    assert len(figures) == 4
    with capsys.disabled():
        for comp, page, full, saved in figures:
            print(f"\nink coverage {comp} p{page}: sheets {full:.3f}, ink-saver {saved:.3f}")


# ------------------------------------------------------------------ print shop


@pytest.mark.parametrize("game", GAMES)
def test_print_shop_quantities_add_up_to_every_manifest_count(built, game):
    m = built.manifest(game)
    counts = manifest_counts(game)
    content_langs = {f["lang"] for f in m["files"] if f["kind"] == "components"}
    for lang in content_langs:
        order = built.path(f"output/{game}/{lang}/print-shop/order.csv")
        rows = list(csv.DictReader(order.open(encoding="utf-8")))
        assert rows and list(rows[0]) == ["file", "page", "component", "item", "side", "quantity"]
        fronts: Counter = Counter()
        for r in rows:
            rel = f"output/{game}/{lang}/print-shop/{r['file']}"  # beside order.csv
            pdf = built.path(rel)
            assert int(r["page"]) <= len(reader(pdf).pages)
            page = next(s for s in m["sheets"] if s["file"] == rel and s["page"] == int(r["page"]))
            assert page["side"] == r["side"] and page["slots"][0]["item"] == r["item"]
            assert page["quantity"] == int(r["quantity"])
            if r["side"] == "front":
                fronts[r["component"]] += int(r["quantity"])
        # every component, tokens included, and as many copies as the sheets hold
        sheets_copies: Counter = Counter()
        paper = next(f["paper"] for f in m["files"] if f["kind"] == "components")
        for f in m["files"]:
            if f["kind"] == "components" and f["lang"] == lang and f["paper"] == paper:
                for s in m["sheets"]:
                    if s["file"] == f["path"] and s["side"] == "front":
                        # per slot: a shared sheet holds pieces of several components
                        for slot in s["slots"]:
                            tile = slot.get("tile")
                            if tile is None or tile["row"] == tile["col"] == 0:
                                sheets_copies[slot["component"]] += 1
        assert dict(fronts) == {c: n for c, n in counts.items() if n}, (game, lang)
        assert dict(fronts) == dict(sheets_copies), (game, lang)


def test_export_naming_an_unknown_component_is_an_error(dogfight_copy):
    root = dogfight_copy
    game = root / "content/dogfight/game.yaml"
    game.write_text(
        game.read_text().replace("png, tts", "{format: png, components: [planez]}, tts")
    )
    result = run_pnp(root, "check", "dogfight", "--format", "json")
    assert result.returncode == 1
    (found,) = [f for f in json.loads(result.stdout) if f["code"] == "unknown-component"]
    assert "planez" in found["message"] and found["file"].endswith("game.yaml")


def test_ink_saver_follows_the_layouts_keep_and_drop(dogfight_copy):
    root = dogfight_copy
    layout = root / "templates/layouts/dogfight/plane-back.yaml"
    text = layout.read_text().replace(
        'background: "#1f2f4a"', 'background: "#1f2f4a"\nbackground_ink: keep'
    )
    text = text.replace('fill: "#c0262d"}', 'fill: "#c0262d", ink: drop}')
    layout.write_text(text)
    only_languages(root, "dogfight", ["en"])  # the test reads an English sheet only
    without_rulebooks(root, "dogfight")
    run_pnp(root, "print", "--export", "ink-saver", "--paper", "a4", check=True)
    m = json.loads((root / "output/dogfight/build-manifest.json").read_text())
    path = "output/dogfight/en/ink-saver/allied-planes-a4.pdf"
    back = next(s for s in m["sheets"] if s["file"] == path and s["side"] == "back")
    slot = back["slots"][0]
    dpi = 100
    image = render(root / path, back["page"], dpi=dpi)

    def at(u: float, v: float) -> tuple[int, int, int]:
        """The pixel at (u, v) mm from the back's top-left corner."""
        x = (slot["x"] + u) * dpi / 25.4
        y = image.height - (slot["y"] + slot["h"] - v) * dpi / 25.4
        return image.getpixel((round(x), round(y)))

    navy, white = (0x1F, 0x2F, 0x4A), (255, 255, 255)
    assert max(abs(a - b) for a, b in zip(at(8, 50), navy, strict=True)) <= 4  # kept
    assert max(abs(a - b) for a, b in zip(at(31.5, 44), white, strict=True)) <= 4  # red dropped


def test_the_srgb_profile_carries_no_creation_time():
    # The profile used to carry the time it was made, so a rebuilt PNG never matched the last.
    from PIL import ImageCms

    from generator.exports.raster import srgb_profile

    profile = srgb_profile()
    fields = [int.from_bytes(profile[i : i + 2], "big") for i in range(24, 36, 2)]
    assert fields == [2000, 1, 1, 0, 0, 0]
    assert "sRGB" in ImageCms.getProfileDescription(ImageCms.ImageCmsProfile(io.BytesIO(profile)))

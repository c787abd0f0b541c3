"""The `#. room:` hint of a face string: the space its text box has, as a length budget."""

from __future__ import annotations

import math
import re

import polib
import yaml
from conftest import ROOT, run_pnp

SUBTITLE = "components/rewards.yaml:data.subtitle"
ROOM = re.compile(
    r"room: about (\d+) characters at ([\d.]+) pt, (\d+) at the smallest ([\d.]+) pt "
    r"\(box (\S+) (\d+)x(\d+) mm, (\d+) lines? at [\d.]+ pt\)"
)


def _room(entry: polib.POEntry) -> re.Match:
    # one line in pnp's comment, wrapped at 78 columns in the file like every `#.` line
    found = ROOM.search(" ".join(entry.comment.split("\n")))
    assert found, entry.comment
    return found


def _expected(box: dict, text: str) -> tuple[int, int, int]:
    """(characters at size, characters at min_size, lines at size) computed from the layout
    YAML's box and the bundled face's metrics, independently of pnp's room module."""
    from reportlab.pdfbase import pdfmetrics

    from generator.load.project import Project
    from generator.render.fonts import fontbook

    mm = 72 / 25.4
    pad = float(str(box.get("padding", "0mm")).removesuffix("mm")) * mm
    w, h = box["w"] * mm - 2 * pad, box["h"] * mm - 2 * pad
    size, smallest = (float(box[k].removesuffix("pt")) for k in ("size", "min_size"))
    leading = box.get("leading", 1.2)
    face = fontbook(Project(ROOT).fonts).face(
        box.get("font", "gothic"), box.get("style", "regular")
    )
    plain = re.sub(r"\s+", " ", re.sub(r"\{\{.*?\}\}|\{%.*?%\}", " ", text)).strip()
    per_char = pdfmetrics.stringWidth(plain, face.name, 1.0) / len(plain)

    def lines(s: float) -> int:
        return 1 + math.floor((h - s * (face.ascent + face.descent)) / (s * leading))

    return (
        lines(size) * math.floor(w / (per_char * size)),
        lines(smallest) * math.floor(w / (per_char * smallest)),
        lines(size),
    )


def test_the_room_hint_of_a_text_box_is_its_length_budget(dogfight_copy, tmp_path):
    """The hint of Dogfight's reward subtitle equals what the layout YAML gives (box w/h,
    padding, size, min_size, leading; the source's average character width), is the same in
    the POT and the PO, and a translation that overflows the box in `pnp check` is longer
    than the budget, while the translation that fits is within it."""
    pot, fr = tmp_path / "d.pot", tmp_path / "fr.po"
    run_pnp(dogfight_copy, "i18n", "export", "dogfight", "--template", "-o", str(pot), check=True)
    run_pnp(dogfight_copy, "i18n", "export", "dogfight", "--lang", "fr", "-o", str(fr), check=True)
    entries = {e.msgctxt: e for e in polib.pofile(str(fr))}
    pot_entries = {e.msgctxt: e for e in polib.pofile(str(pot))}
    assert all(entries[k].comment == e.comment for k, e in pot_entries.items())
    hinted = [k for k, e in entries.items() if "room: " in (e.comment or "")]
    assert SUBTITLE in hinted and len(hinted) >= 5, hinted

    layout = yaml.safe_load((ROOT / "templates/layouts/dogfight/reward.yaml").read_text())
    box = next(b for b in layout["boxes"] if b.get("id") == "subtitle")
    game = dogfight_copy / "content/dogfight"
    source = yaml.safe_load((game / "components/rewards.yaml").read_text())["data"]["subtitle"]
    first = yaml.safe_load((game / "game.yaml").read_text())["languages"][0]
    chars, most, lines = _expected(box, source[first])
    room = _room(entries[SUBTITLE])
    assert room.group(5) == "subtitle"
    assert (int(room.group(6)), int(room.group(7))) == (box["w"], box["h"])
    assert float(room.group(2)) == float(box["size"].removesuffix("pt"))
    assert float(room.group(4)) == float(box["min_size"].removesuffix("pt"))
    assert (int(room.group(1)), int(room.group(3)), int(room.group(8))) == (chars, most, lines)
    assert len(entries[SUBTITLE].msgstr) <= chars  # today's French fits, and within budget

    # a long French subtitle: pnp check says it overflows, and it exceeds the hinted budget
    long = (
        "Avion allemand abattu au-dessus des lignes ennemies après un long combat dans les "
        "nuages de l'aube, son pilote rentré à pied jusqu'au terrain"
    )
    rewards = game / "components/rewards.yaml"
    text = rewards.read_text(encoding="utf-8")
    assert "fr: Avion allemand abattu}" in text
    rewards.write_text(text.replace("fr: Avion allemand abattu}", f'fr: "{long}"}}'), "utf-8")
    done = run_pnp(dogfight_copy, "check", "dogfight", "--format", "json")
    overflow = [
        f
        for f in yaml.safe_load(done.stdout)
        if f["code"] == "text-overflow" and "subtitle" in str(f)
    ]
    assert overflow, done.stdout[-2000:]
    assert len(long) > most > chars

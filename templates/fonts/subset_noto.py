"""Rebuild the PnP Sans faces from Debian's fonts-noto-core (run by hand, not by the build).

    apt-get install fonts-noto-core        # or: apt-get download fonts-noto-core; dpkg-deb -x
    python templates/fonts/subset_noto.py /usr/share/fonts/truetype/noto templates/fonts

PnP Sans is Noto Sans (Copyright 2012 Google Inc., SIL OFL 1.1) cut down to the scripts the
layouts fall back to when a layout's own font lacks a character (templates/languages/
scripts.yaml): Latin with Latin-1, Extended-A and B, the Vietnamese additions and combining
marks, Greek, Cyrillic, and the punctuation and symbols texts use. It has a real italic, which
the rulebooks use for emphasis. Noto has no Reserved Font Name, but the subset is renamed
anyway ("PnP Sans") so that it can never be confused with a system-installed Noto Sans.
Outlines stay TrueType (ReportLab cannot embed CFF); hinting is dropped (the faces are only
ever drawn into PDFs, where it does nothing) to keep the repository lean.
"""

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

RANGES = [
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x024F),  # Latin-1 Supplement, Latin Extended-A and -B (ș ț ơ ư ...)
    (0x0259, 0x0259),  # schwa (Azerbaijani)
    (0x02B9, 0x02DD),  # modifier letters: ʼ ˆ ˇ ˘ ˙ ˚ ˛ ˜ ˝
    (0x0300, 0x036F),  # combining diacritical marks (decomposed text, Vietnamese stacks)
    (0x0370, 0x03FF),  # Greek and Coptic
    (0x0400, 0x052F),  # Cyrillic and Cyrillic Supplement
    (0x1E00, 0x1EFF),  # Latin Extended Additional (Vietnamese ạ ả ấ ầ ẩ ẫ ậ ...)
    (0x1F00, 0x1FFF),  # Greek Extended (polytonic)
    (0x2000, 0x206F),  # general punctuation: dashes, quotes „ “ ‚ ‘ « », ellipsis, bullets
    (0x20A0, 0x20BF),  # currency (€ ₽ ₴ ₫ ...)
    (0x2100, 0x2150),  # letterlike symbols (№ ™ ℃)
    (0x2190, 0x2199),  # arrows
    (0x2212, 0x2212), (0x2260, 0x2265),  # minus, comparisons
    (0x25A0, 0x25FF), (0x2605, 0x2606),  # geometric shapes, stars
]
FACES = {
    "NotoSans-Regular.ttf": ("Regular", "Regular", 400),
    "NotoSans-Bold.ttf": ("Bold", "Bold", 700),
    "NotoSans-Italic.ttf": ("Italic", "Italic", 400),
    "NotoSans-BoldItalic.ttf": ("BoldItalic", "Bold Italic", 700),
}
FAMILY = "PnP Sans"


def rename(font: TTFont, ps_style: str, style: str) -> None:
    ps = f"PnPSans-{ps_style}"
    names = {1: FAMILY, 2: style, 3: f"{ps};subset of Noto Sans", 4: f"{FAMILY} {style}",
             6: ps, 16: FAMILY, 17: style}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in names and n.nameID != 18]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)


def main(src: str, dst: str) -> None:
    unicodes = [c for lo, hi in RANGES for c in range(lo, hi + 1)]
    for filename, (ps_style, style, _weight) in FACES.items():
        options = subset.Options()
        options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14, 16, 17]  # keep copyright and licence
        options.notdef_outline = True
        options.hinting = False
        options.layout_features = ["kern", "mark", "mkmk", "ccmp", "locl", "liga", "case"]
        font = TTFont(Path(src) / filename)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=unicodes)
        subsetter.subset(font)
        rename(font, ps_style, style)
        out = Path(dst) / f"PnPSans-{ps_style}.ttf"
        font.save(out)
        print(out, out.stat().st_size)


if __name__ == "__main__":
    main(*sys.argv[1:3])

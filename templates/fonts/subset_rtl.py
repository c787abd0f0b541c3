"""Rebuild the PnP Sans Arabic and PnP Sans Hebrew faces from Debian's fonts-noto-core (run by
hand, not by the build).

    apt-get install fonts-noto-core
    python templates/fonts/subset_rtl.py /usr/share/fonts/truetype/noto templates/fonts

They are Noto Sans Arabic and Noto Sans Hebrew (Copyright 2015-2020 and 2019 Google, SIL OFL
1.1, see OFL-NotoSansArabicHebrew.txt) cut down to their script's letters, marks, digits and
punctuation, renamed so that they can never be confused with an installed Noto. Unlike the
other faces they keep every OpenType layout feature (GSUB, GPOS, GDEF): the card engine shapes
their text with HarfBuzz, which picks the joined forms of Arabic letters (initial, medial,
final, the lam-alef ligature) and places marks through them. Arabic's presentation forms stay
mapped so that a PDF's text layer reads back as letters. Outlines are TrueType already;
hinting is dropped (PDFs do not use it).
"""

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

COMMON = [
    (0x0020, 0x0040),  # space, digits and ASCII punctuation (inside right-to-left runs)
    (0x00A0, 0x00A0),
    (0x200C, 0x200F),  # zero-width (non-)joiner, left-to-right and right-to-left marks
    (0x2010, 0x2027),  # dashes, quotes, ellipsis
    (0x25CC, 0x25CC),  # dotted circle (a mark without its letter)
]
SCRIPTS = {
    "Arabic": [
        (0x0600, 0x06FF),  # Arabic
        (0x0750, 0x077F),  # Arabic Supplement
        (0x08A0, 0x08FF),  # Arabic Extended-A
        (0xFB50, 0xFDFF),  # presentation forms A
        (0xFE70, 0xFEFF),  # presentation forms B (isolated, initial, medial, final)
    ],
    "Hebrew": [(0x0590, 0x05FF), (0xFB1D, 0xFB4F)],  # Hebrew, presentation forms
}
STYLES = ("Regular", "Bold")


def rename(font: TTFont, script: str, style: str) -> None:
    family, ps = f"PnP Sans {script}", f"PnPSans{script}-{style}"
    names = {1: family, 2: style, 3: f"{ps};subset of Noto Sans {script}",
             4: f"{family} {style}", 6: ps, 16: family, 17: style}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in names and n.nameID != 18]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)


def main(src: str, dst: str) -> None:
    for script, ranges in SCRIPTS.items():
        unicodes = [c for lo, hi in COMMON + ranges for c in range(lo, hi + 1)]
        for style in STYLES:
            font = TTFont(Path(src) / f"NotoSans{script}-{style}.ttf")
            options = subset.Options()
            options.hinting = False
            options.layout_features = ["*"]  # joining forms, ligatures, mark positioning
            options.notdef_outline = True
            options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=unicodes)
            subsetter.subset(font)
            rename(font, script, style)
            out = Path(dst) / f"PnPSans{script}-{style}.ttf"
            font.save(out)
            print(out, out.stat().st_size)


if __name__ == "__main__":
    main(*sys.argv[1:3])

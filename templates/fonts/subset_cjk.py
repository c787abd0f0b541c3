"""Rebuild the PnP Sans JP, SC and TC faces from Debian's fonts-noto-cjk (run by hand, not by
the build).

    apt-get install fonts-noto-cjk
    python templates/fonts/subset_cjk.py /usr/share/fonts/opentype/noto templates/fonts [JP SC TC]

PnP Sans JP is Noto Sans CJK JP (Copyright 2014-2021 Adobe, SIL OFL 1.1 with Reserved Font Name
"Source"; see OFL-NotoSansCJK.txt) cut down to Japanese: Basic Latin, CJK punctuation, hiragana, katakana,
full- and half-width forms and the 2,965 kanji of JIS X 0208 level 1 (read from Python's
shift_jis codec, so no list is kept by hand). PnP Sans SC and TC are Noto Sans CJK SC and TC cut
the same way for Chinese: SC has the 3,755 hanzi of GB 2312 level 1 (the common Simplified
characters; read from Python's gb2312 codec), TC the 5,401 of Big5 level 1 (Taiwan's common
characters, 常用字; from the big5 codec). Noto Sans CJK ships CFF outlines in a TrueType
collection, which ReportLab cannot embed: each glyph is converted to quadratic TrueType
outlines (fontTools cu2qu, at most 1 unit of 1,000 from the original curve). Hinting and layout
features are dropped (only ever drawn into PDFs, horizontally), which keeps a face under 1 MB.
"""

import sys
from pathlib import Path

from fontTools import subset
from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTCollection, TTFont, newTable

RANGES = [
    # Basic Latin and the no-break space: WeasyPrint may set a space next to Japanese text in
    # the Japanese face, which without them draws a box (notdef) for the space.
    (0x0020, 0x007E),
    (0x00A0, 0x00A0),
    (0x3000, 0x303F),  # CJK symbols and punctuation 、。「」
    (0x3040, 0x309F),  # hiragana
    (0x30A0, 0x30FF),  # katakana
    (0x31F0, 0x31FF),  # katakana phonetic extensions
    (0xFF01, 0xFF5E),  # full-width forms （）！？
    (0xFF61, 0xFF9F),  # half-width katakana
]
FACES = {"NotoSansCJK-Regular.ttc": "Regular", "NotoSansCJK-Bold.ttc": "Bold"}


def jis_level1() -> list[int]:
    """The kanji of JIS X 0208 level 1 (Shift JIS 0x889F-0x9872)."""
    out = []
    for lead in range(0x88, 0x99):
        for trail in [*range(0x40, 0x7F), *range(0x80, 0xFD)]:
            if 0x889F <= (lead << 8 | trail) <= 0x9872:
                try:
                    out.append(ord(bytes([lead, trail]).decode("shift_jis")))
                except UnicodeDecodeError:
                    pass
    return out


def gb2312_level1() -> list[int]:
    """The hanzi of GB 2312 level 1 (rows 16-55: 0xB0A1-0xD7F9), 3,755 Simplified characters."""
    return _decoded("gb2312", range(0xB0, 0xD8), range(0xA1, 0xFF), 0xB0A1, 0xD7F9)


def big5_level1() -> list[int]:
    """The hanzi of Big5 level 1 (0xA440-0xC67E), 5,401 common Traditional characters."""
    trails = [*range(0x40, 0x7F), *range(0xA1, 0xFF)]
    return _decoded("big5", range(0xA4, 0xC7), trails, 0xA440, 0xC67E)


def _decoded(codec: str, leads, trails, first: int, last: int) -> list[int]:
    out = []
    for lead in leads:
        for trail in trails:
            if first <= (lead << 8 | trail) <= last:
                try:
                    out.append(ord(bytes([lead, trail]).decode(codec)))
                except UnicodeDecodeError:
                    pass
    return out


# suffix: (the face in the collection, its characters besides RANGES)
LOCALES = {
    "JP": ("Noto Sans CJK JP", jis_level1),
    "SC": ("Noto Sans CJK SC", gb2312_level1),
    "TC": ("Noto Sans CJK TC", big5_level1),
}


def to_truetype(font: TTFont) -> None:
    order = font.getGlyphOrder()
    glyphs = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = order
    glyf.glyphs = {}
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
        glyf.glyphs[name] = pen.glyph()
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    for tag in ("CFF ", "VORG"):
        if tag in font:
            del font[tag]
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for key in ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs",
                "maxStackElements", "maxSizeOfInstructions", "maxComponentElements",
                "maxComponentDepth"):
        setattr(maxp, key, 0)
    maxp.maxZones = 1
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = order
    font["head"].glyphDataFormat = 0
    font.sfntVersion = "\x00\x01\x00\x00"


def rename(font: TTFont, style: str, suffix: str) -> None:
    family, ps = f"PnP Sans {suffix}", f"PnPSans{suffix}-{style}"
    source = LOCALES[suffix][0]
    names = {1: family, 2: style, 3: f"{ps};subset of {source}", 4: f"{family} {style}",
             6: ps, 16: family, 17: style}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in names and n.nameID != 18]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)


def _number(path: Path, family: str) -> int:
    """The index of `family` in a TrueType collection (the order differs between files)."""
    for number, font in enumerate(TTCollection(path).fonts):
        if font["name"].getDebugName(1) == family:
            return number
    raise SystemExit(f"{path}: no face {family!r}")


def main(src: str, dst: str, *suffixes: str) -> None:
    for suffix in suffixes or LOCALES:
        build(src, dst, suffix)


def build(src: str, dst: str, suffix: str) -> None:
    source, extra = LOCALES[suffix]
    unicodes = [c for lo, hi in RANGES for c in range(lo, hi + 1)] + extra()
    for filename, style in FACES.items():
        path = Path(src) / filename
        font = TTFont(path, fontNumber=_number(path, source))
        options = subset.Options()
        options.hinting = False
        options.layout_features = []
        options.notdef_outline = True
        options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=unicodes)
        subsetter.subset(font)
        to_truetype(font)
        rename(font, style, suffix)
        out = Path(dst) / f"PnPSans{suffix}-{style}.ttf"
        font.save(out)
        print(out, out.stat().st_size)


if __name__ == "__main__":
    main(*sys.argv[1:])

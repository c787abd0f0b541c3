"""Rebuild the bundled fonts from Debian's fonts-nanum (run by hand, not by the build).

    apt-get download fonts-nanum fonts-nanum-extra   # ExtraBold is in fonts-nanum-extra
    for deb in fonts-nanum*.deb; do dpkg-deb -x "$deb" x; done
    python templates/fonts/subset.py x/usr/share/fonts/truetype/nanum templates/fonts

NanumGothic's licence (SIL OFL 1.1) reserves the name "NanumGothic" for unmodified
fonts, and a subset is a modified font, so the subsets are renamed "PnP Gothic".
The subset keeps TrueType outlines (ReportLab cannot embed CFF) and covers Latin with
Spanish accents, common punctuation and symbols, and every precomposed Hangul syllable.
"""
import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

RANGES = [
    (0x0020, 0x007E),  # Basic Latin
    (0x00A0, 0x017F),  # Latin-1 Supplement, Latin Extended-A
    (0x2010, 0x2027), (0x2030, 0x203A),  # dashes, quotes, bullets, ellipsis, per mille
    (0x2190, 0x2199),  # arrows
    (0x2212, 0x2212), (0x00D7, 0x00D7), (0x2260, 0x2265),  # minus, times, comparisons
    (0x25A0, 0x25FF), (0x2605, 0x2606),  # geometric shapes (list bullets ◦ ▪), stars
    (0x3000, 0x303F),  # CJK symbols and punctuation
    (0x3131, 0x318E),  # Hangul compatibility jamo
    (0xAC00, 0xD7A3),  # Hangul syllables
]
WEIGHTS = {"NanumGothic.ttf": "Regular", "NanumGothicBold.ttf": "Bold",
           "NanumGothicExtraBold.ttf": "ExtraBold"}
FAMILY = "PnP Gothic"


def rename(font: TTFont, weight: str) -> None:
    ps = f"PnPGothic-{weight}"
    names = {1: FAMILY if weight in ("Regular", "Bold") else f"{FAMILY} {weight}",
             2: weight if weight in ("Regular", "Bold") else "Regular",
             3: f"{ps};subset of NanumGothic", 4: f"{FAMILY} {weight}", 6: ps,
             16: FAMILY, 17: weight}
    table = font["name"]
    table.names = [n for n in table.names if n.nameID not in names and n.nameID not in (18,)]
    for name_id, value in names.items():
        table.setName(value, name_id, 3, 1, 0x409)
        table.setName(value, name_id, 1, 0, 0)


def main(src: str, dst: str) -> None:
    unicodes = [c for lo, hi in RANGES for c in range(lo, hi + 1)]
    for filename, weight in WEIGHTS.items():
        options = subset.Options()
        options.name_IDs = ["*"]
        options.name_languages = ["*"]
        options.notdef_outline = True
        options.layout_features = ["*"]
        font = TTFont(Path(src) / filename)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=unicodes)
        subsetter.subset(font)
        rename(font, weight)
        out = Path(dst) / f"PnPGothic-{weight}.ttf"
        font.save(out)
        print(out, out.stat().st_size)


if __name__ == "__main__":
    main(*sys.argv[1:3])

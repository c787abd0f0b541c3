"""Shaped and right-to-left text: HarfBuzz shaping and the Unicode bidirectional algorithm.

ReportLab draws a string's characters left to right, one glyph each. That is right for Latin,
Hangul or CJK, but Arabic letters take another form by their place in a word (initial, medial,
final, the lam-alef ligature), and Arabic and Hebrew run right to left with numbers and Latin
words inside them left to right. So for a script with `shaping: true` (scripts.yaml):

- a run of text in its face is shaped by HarfBuzz (`uharfbuzz`): glyphs, advances and offsets,
  which `width` sums (so wrapping measures the joined forms) and `glyphs` hands to drawing;
- a line is cut into runs and ordered by the bidirectional algorithm (python-bidi's reference
  implementation, for the embedding level of every character), `visual_runs`, after wrapping
  in logical order. A paragraph is right to left in a language whose script has
  `direction: rtl`, else in the direction of its first strong character.

A glyph HarfBuzz picks is drawn by a character of the face: its own (a presentation form, for
most Arabic joined forms, so the PDF's text reads back as letters) or, for a glyph without one,
a private-use character given to it once per face, in glyph order (the same on every run).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import uharfbuzz as hb
from bidi import algorithm as bidi_algorithm
from bidi.mirror import MIRRORED
from reportlab.pdfbase import pdfmetrics

from generator.load import languages

_PRIVATE = 0xE000  # the Private Use Area (BMP): ReportLab's ToUnicode writes BMP codes
_REMOVED = frozenset({"RLE", "LRE", "RLO", "LRO", "PDF", "BN"})  # rule X9: no level of their own


@dataclass(frozen=True)
class Glyph:
    char: str  # the character ReportLab draws the glyph by
    advance: float  # at 1 pt
    dx: float
    dy: float
    natural: bool  # advance is the character's own width and there is no offset


class _Shaper:
    """HarfBuzz's view of one registered face, and a character for each of its glyphs."""

    def __init__(self, name: str) -> None:
        font = pdfmetrics.getFont(name)
        face = font.face
        self.upem = float(face.unitsPerEm)
        self.font = hb.Font(hb.Face(hb.Blob(face._ttf_data)))
        self.chars: dict[int, str] = {gid: chr(chars[0]) for gid, chars in face.glyphToChar.items()}
        code = _PRIVATE
        for gid in range(face.numGlyphs):
            if gid in self.chars or gid == 0:
                continue
            while code in face.charToGlyph:
                code += 1
            if code > 0xF8FF:
                break
            face.charToGlyph[code] = gid
            face.glyphToChar.setdefault(gid, []).append(code)
            face.charWidths[code] = face.hmetrics[gid][0] * 1000 / self.upem
            self.chars[gid] = chr(code)
        self.widths = face.charWidths
        self.cache: dict[tuple[str, bool], tuple[Glyph, ...]] = {}

    def shape(self, text: str, rtl: bool | None) -> tuple[Glyph, ...]:
        hit = self.cache.get((text, bool(rtl)))
        if hit is not None:
            return hit
        buf = hb.Buffer()
        buf.add_str(text)
        buf.guess_segment_properties()
        if rtl is not None:
            buf.direction = "rtl" if rtl else "ltr"
        hb.shape(self.font, buf, {"kern": True, "liga": True})
        out = []
        for info, pos in zip(buf.glyph_infos, buf.glyph_positions, strict=True):
            char = self.chars.get(info.codepoint, "\ufffd")
            advance = pos.x_advance / self.upem
            natural = (
                not pos.x_offset
                and not pos.y_offset
                and abs(self.widths.get(ord(char), -1) / 1000 - advance) < 1e-6
            )
            out.append(
                Glyph(char, advance, pos.x_offset / self.upem, pos.y_offset / self.upem, natural)
            )
        if len(self.cache) > 20000:  # bounded: a long-running watch sees many texts
            self.cache.clear()
        glyphs = self.cache[(text, bool(rtl))] = tuple(out)
        return glyphs


# One shaper per registered font object (a changed file is a new object: a new shaper).
_SHAPERS: dict[int, tuple[object, _Shaper]] = {}


def _shaper(name: str) -> _Shaper:
    font = pdfmetrics.getFont(name)
    hit = _SHAPERS.get(id(font))
    if hit is None or hit[0] is not font:
        if len(_SHAPERS) > 64:  # bounded, as the parsed fonts are
            _SHAPERS.clear()
        hit = _SHAPERS[id(font)] = (font, _Shaper(name))
    return hit[1]


def glyphs(name: str, text: str, rtl: bool | None = None) -> tuple[Glyph, ...]:
    """`text` shaped in the registered face `name`, in visual order (left to right)."""
    return _shaper(name).shape(text, rtl)


def width(name: str, text: str) -> float:
    """The shaped width of `text` in face `name` at 1 pt."""
    return sum(g.advance for g in glyphs(name, text))


def groups(shaped: Sequence[Glyph]) -> list[tuple[float, float, str]]:
    """Shaped glyphs as (x, dy, characters) pieces at 1 pt, x from the start: glyphs drawn at
    their own width with no offset are one piece (one string)."""
    out: list[tuple[float, float, str]] = []
    x = 0.0
    joined = False
    for g in shaped:
        if g.natural and joined:
            out[-1] = (out[-1][0], 0.0, out[-1][2] + g.char)
        else:
            out.append((x + g.dx, g.dy, g.char))
        joined = g.natural
        x += g.advance
    return out


def is_rtl(lang: str | None) -> bool:
    return bool(lang) and languages.get(str(lang)).direction == "rtl"


def needs_bidi(text: str) -> bool:
    """Does `text` hold a character of a right-to-left script (so its order needs the
    bidirectional algorithm)?"""
    return bool(languages.letters((("direction", "rtl"),)).search(text))


def levels(text: str, rtl: bool | None) -> list[int]:
    """The embedding level of each character of `text` (odd: right to left), for a paragraph
    right to left (`rtl`), left to right, or as its first strong character says (None)."""
    kept = [i for i, c in enumerate(text) if unicodedata.bidirectional(c) not in _REMOVED]
    sub = "".join(text[i] for i in kept)
    base = bidi_algorithm.get_base_level(sub) if rtl is None else int(rtl)
    storage = bidi_algorithm.get_empty_storage()
    storage["base_level"] = base
    storage["base_dir"] = ("L", "R")[base]
    bidi_algorithm.get_embedding_levels(sub, storage)
    bidi_algorithm.explicit_embed_and_overrides(storage)
    bidi_algorithm.resolve_weak_types(storage)
    bidi_algorithm.resolve_neutral_types(storage, False)
    bidi_algorithm.resolve_implicit_levels(storage, False)
    found = [int(c["level"]) for c in storage["chars"]]
    out = [base] * len(text)
    for i, level in zip(kept, found, strict=False):
        out[i] = level
    for i in range(1, len(text)):  # a removed character takes its neighbour's level
        if unicodedata.bidirectional(text[i]) in _REMOVED:
            out[i] = out[i - 1]
    # rule L1: whitespace at the end of the line is at the paragraph's level
    end = len(text)
    while end and text[end - 1].isspace():
        end -= 1
        out[end] = base
    return out


def visual_runs(
    chars: Sequence[tuple[str, Hashable]], rtl: bool | None
) -> list[tuple[int, str, Hashable]]:
    """A logical line (each character with a key: its face and style, or an icon) as runs of
    one level and one key, in visual order, left to right (rule L2). A run at an odd level is
    still in logical order: its drawer sets it right to left."""
    text = "".join(c for c, _ in chars)
    if not text:
        return []
    runs: list[tuple[int, str, Hashable]] = []
    for (char, key), level in zip(chars, levels(text, rtl), strict=True):
        if runs and runs[-1][0] == level and runs[-1][2] == key:
            runs[-1] = (level, runs[-1][1] + char, key)
        else:
            runs.append((level, char, key))
    top = max(r[0] for r in runs)
    low = min(r[0] for r in runs)
    for level in range(top, (low if low % 2 else low + 1) - 1, -1):
        i = 0
        while i < len(runs):
            if runs[i][0] < level:
                i += 1
                continue
            j = i
            while j < len(runs) and runs[j][0] >= level:
                j += 1
            runs[i:j] = runs[i:j][::-1]
            i = j
    return runs


def mirrored(text: str) -> str:
    """A run at an odd level drawn by a face that is not shaped: its characters reversed and
    paired marks mirrored, "(3)" seen right to left."""
    return "".join(MIRRORED.get(c, c) for c in reversed(text))

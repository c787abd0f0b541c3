"""PDF text operators written as ReportLab writes them, without ReportLab's objects and calls.

ReportLab sets text through a text object (`canvas.beginText`, `drawString`): a Python object,
a state copy and several calls per line, which tens of thousands of card texts and sheet labels
pay for. For TrueType faces (ReportLab's dynamic subset fonts: every pnp face) `text_object`
writes the very operators those calls write (tests/test_plain_text_path.py holds it to both),
so a file is the same, byte for byte, whichever way its text went.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase.pdfmetrics import getFont as get_font

# One set line: its baseline, its icons (drawn by the caller) and its pieces, each
# (x, face, text) in one face (a fonts.Face: anything with a ReportLab font `name`).
Line = tuple[float, tuple, tuple]


class Formatted(dict):
    """Operators formatted once by their operands and kept as text, `store[operands]`: a file
    writes the same few again and again (a layout puts its lines at the same spots and sizes on
    every face, a sheet its faces at the same slots on every page, a deck has a few colours).
    `make` formats the operands; emptied when `limit` are held, as fonts.py's widths are, so
    one-off values do not grow it."""

    def __init__(self, make: Callable[[Any], str], limit: int = 4096) -> None:
        super().__init__()
        self.make, self.limit = make, limit

    def __missing__(self, key: Any) -> str:
        if len(self) >= self.limit:
            self.clear()
        op = self[key] = self.make(key)
        return op


_ORIGINS = Formatted(lambda at: f"1 0 0 1 {fp_str(*at)} Tm")  # (x, baseline)
# a size: the Tf and TL operands after a subset's name (setFont's leading)
_SIZES = Formatted(lambda size: f"{fp_str(size)} Tf {fp_str(size * 1.2)} TL")


def text_object(canvas, lines: list[Line], size: float, line_end: bool = False) -> str | None:
    """The pieces of `lines` as one text object (BT ... ET), each at its own origin, as a text
    object written piece by piece writes them (setTextOrigin, setFont, the text). `line_end`:
    end with the next-line operator, as drawString's one line does. "" for no text (drawing it
    piece by piece writes no text object either); None, having written nothing, unless every
    face is TrueType."""
    fonts = []
    for _, _, pieces in lines:
        for _, face_used, _ in pieces:
            font = get_font(face_used.name)
            if not font._dynamicFont:
                return None
            fonts.append(font)
    if not fonts:
        return ""
    doc, escape = canvas._doc, canvas._escape
    size_ops = _SIZES[size]
    code = ["BT"]
    font_now, subset_now = None, -1
    n = 0
    for baseline, _, pieces in lines:
        for x, _, piece in pieces:
            font = fonts[n]
            n += 1
            code.append(_ORIGINS[x, baseline])
            if font is not font_now:  # a new font: its subset is named again
                font_now, subset_now = font, -1
            ops = []
            for subset, chunk in split(font, piece, doc, canvas):
                if subset != subset_now:
                    ops.append(f"{font.getSubsetInternalName(subset, doc)} {size_ops}")
                    subset_now = subset
                ops.append(f"({escape(chunk)}) Tj")
            code.append(" ".join(ops))
    if line_end:
        code.append("T*")
    code.append("ET")
    return " ".join(code)


def split(font, text: str, doc, canvas) -> list[tuple[int, bytes]]:
    """`font.splitString(text, doc)`: the text's bytes in the font's subsets, each character
    given its code in the document's subset the first time it is met. ReportLab walks the
    text character by character in Python (a third of writing a card's text); a text whose
    characters all have a code below 256 already (subset 0: nearly every Latin card after the
    first few) is the same one chunk, made by one `translate` per text. The canvas keeps, per
    font, the characters known that way and their codes; anything else goes to ReportLab,
    after which what it assigned is known too (a code, once given, never changes)."""
    known = canvas.__dict__.get("_pnp_subset0")
    if known is None:
        known = canvas._pnp_subset0 = {}
    mine = known.get(font)
    if mine is not None and text and mine[0].issuperset(text):
        return [(0, text.translate(mine[1]).encode("latin-1"))]
    out = font.splitString(text, doc)
    assignments = font.state[doc].assignments
    if mine is None:
        mine = known[font] = (set(), {})
    chars, table = mine
    for char in set(text):
        code = 32 if char == "\xa0" else ord(char)  # ReportLab sets a no-break space as a space
        n = assignments.get(code)
        if n is not None and n < 256:
            chars.add(char)
            table[ord(char)] = n
    return out

"""The fill colour operator written as ReportLab's `setFillColor` writes it, without its calls.

Every text box and background of every card sets its fill colour: `setFillColor` checks the
colour's kind, formats its three numbers and sets the colour's alpha through the canvas's
graphics-state machinery, which writes nothing when the alpha is the one already set. For
ReportLab's own canvas and a plain RGB colour whose alpha is already in force, `fill` writes the
one operator and sets the one attribute that call would (tests/test_plain_text_path.py holds it
to the call), so a file is the same, byte for byte, whichever way its colours went.
"""

from __future__ import annotations

from typing import Any

from reportlab.lib.colors import Color
from reportlab.lib.rl_accel import fp_str
from reportlab.pdfbase.pdfdoc import PDF_SUPPORT_VERSION
from reportlab.pdfgen.canvas import Canvas

from generator.render.pdftext import Formatted

_TRANSPARENCY = PDF_SUPPORT_VERSION["transparency"]  # what setting an alpha declares
_RG = Formatted(lambda rgb: f"{fp_str(rgb)} rg", limit=1024)  # per (r, g, b): a deck has a few


def fill(canvas: Any, colour: Any) -> None:
    """`canvas.setFillColor(colour)`: straight for a plain Color on ReportLab's own Canvas (an
    export's canvas subclass, CMYK, or a new alpha go through the call)."""
    if (
        type(canvas) is Canvas
        and type(colour) is Color
        and not canvas._enforceColorSpace
        and canvas._doc._pdfVersion >= _TRANSPARENCY
        and canvas._extgstate.getValue("ca") == colour.alpha
    ):
        canvas._fillColorObj = colour
        canvas._code.append(_RG[colour.red, colour.green, colour.blue])
        return
    canvas.setFillColor(colour)

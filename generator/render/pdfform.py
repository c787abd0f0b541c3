"""Form XObjects that carry their own resources.

ReportLab's `Canvas.endForm` builds a form's resource dictionary with fonts, procsets and
XObjects only: the ExtGState (opacity), ColorSpace and Shading the form's content names are
dropped, so `/gRLs0 gs` inside the form points at nothing. Poppler then warns, strict RIPs and
Ghostscript with -dPDFSTOPONERROR refuse the page, and transparency is lost. `end_form` gives the
form a complete resource dictionary instead (ReportLab keeps the form's graphics states in a
state of their own from beginForm to endForm, so they are exactly what its content names).
"""

from __future__ import annotations

from typing import Any


def end_form(canvas: Any) -> None:
    """`canvas.endForm()`, with the form's ExtGState, shadings and colour spaces kept."""
    from reportlab.pdfbase.pdfdoc import PDFResourceDictionary

    resources = PDFResourceDictionary()
    resources.basicFonts()
    resources.allProcs()
    forms = canvas._formsinuse
    if forms:
        resources.XObject = canvas._doc.xobjDict(forms)
    state = canvas._extgstate.getState()
    if state:
        resources.ExtGState = state
    resources.setShading(canvas._shadingUsed)
    resources.setColorSpace(canvas._colorsUsed)
    canvas.endForm(Resources=resources)

"""The graphics state saved and restored as ReportLab's `saveState`/`restoreState` do, without
the canvas's state stack.

Every box of every face is drawn inside its own q ... Q: `saveState` copies the canvas's 23
state attributes into a new dictionary on its stack and `restoreState` writes them back. For
ReportLab's own canvas, `save` takes them as one tuple (a C-level getter) and `restore` puts
them back, with the same operators and the same graphics-state copy (tests/test_render_reuse.py
holds it to the calls), so a file is the same, byte for byte, whichever way its boxes went.
"""

from __future__ import annotations

from operator import itemgetter
from typing import Any

from reportlab.pdfgen.canvas import Canvas

_STATE = tuple(Canvas.STATE_ATTRIBUTES)  # what saveState keeps (the graphics-state copy too)
_take = itemgetter(*_STATE)


def save(canvas: Any) -> tuple | None:
    """`canvas.saveState()`; returns what `restore` needs (None: the call was made)."""
    if type(canvas) is not Canvas:  # an export's canvas (ink-saver) takes the calls
        canvas.saveState()
        return None
    kept = _take(canvas.__dict__)
    canvas._extgstate = canvas._extgstate.pushCopy()
    canvas._code.append("q")
    return kept


def restore(canvas: Any, kept: tuple | None) -> None:
    """`canvas.restoreState()` for what `save` returned."""
    if kept is None:
        canvas.restoreState()
        return
    canvas._code.append("Q")
    canvas.__dict__.update(zip(_STATE, kept, strict=True))

"""ReportLab's platypus (the guide's paragraphs and tables), imported without compiling the web
address pattern its paragraph module makes on import.

`reportlab.platypus.paragraph` compiles, as it is imported, a case-insensitive pattern for web
addresses over every character from U+00A1 to U+FFFF (`uri_pat`): Python folds the case of each
one, 20-30 ms of CPU, a twentieth of the fixed cost of every `pnp print` that writes a guide.
ReportLab reads that pattern only to split a long web address across lines, which no guide
has. So it is compiled the first time it is used instead; every other pattern, and this one if
a ReportLab version writes it otherwise, is compiled as before.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Any

# How ReportLab's web address pattern begins (reportlab/platypus/paragraph.py, `uri_pat`).
_WEB_ADDRESS = "(^(?:[a-z0-9\\.\\-\\+]*)://)"


class DeferredPattern:
    """A compiled pattern made when first used: anything asked of it is the pattern's."""

    def __init__(self, pattern: str, flags: int) -> None:
        self.source = (pattern, flags)

    @cached_property
    def compiled(self) -> re.Pattern[str]:
        return _compile(*self.source)

    def __getattr__(self, name: str) -> Any:  # only names the instance lacks: the pattern's
        return getattr(self.compiled, name)


_compile = re.compile


def _deferring(pattern: Any, flags: int = 0) -> Any:
    if isinstance(pattern, str) and pattern.startswith(_WEB_ADDRESS):
        return DeferredPattern(pattern, flags)
    return _compile(pattern, flags)


re.compile = _deferring  # only while platypus is imported (below); a no-op if it already was
try:
    from reportlab import platypus
finally:
    re.compile = _compile

__all__ = ["DeferredPattern", "platypus"]

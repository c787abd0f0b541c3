"""Bundled TrueType fonts: registration with ReportLab, widths and glyph coverage.

Families come from templates/fonts/fonts.yaml. Each face is registered under a name of
our own ("gothic-bold"), so two files that share an internal name can never clash.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont

from generator import session
from generator.cache import font_cache
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load.project import read_bytes
from generator.load.yamlload import load_yaml

STYLES = ("regular", "bold", "black")

# Every path that draws a PDF registers the bundled fonts first, so the stream encoding is set
# here once: binary Flate streams, not ReportLab's default ASCII85 over Flate, which makes files
# a quarter bigger and costs time to write and to read back (the lint, the print shop's RIP).
rl_config.useA85 = 0


@dataclass(frozen=True)
class Face:
    name: str  # ReportLab font name
    path: Path
    ascent: float  # per 1 pt of size
    descent: float  # positive, per 1 pt
    cmap: frozenset
    # widths at 1 pt by text: words repeat across cards. Owned by the face, which is owned by
    # the session that registered it, so a changed font file is measured afresh.
    _widths: dict[str, float] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def covers(self, char: str) -> bool:
        return ord(char) in self.cmap or char in "\n\t\u00ad\u200b\u2060"

    def missing(self, text: str) -> str:
        # each distinct character once: a rulebook is tens of thousands of characters
        return "".join(sorted(c for c in set(text) if not self.covers(c) and c != "\r"))

    def width(self, text: str, size: float) -> float:
        w = self._widths.get(text)
        if w is None:
            w = self._widths[text] = pdfmetrics.stringWidth(text, self.name, 1.0)
        return w * size


class FontBook:
    """The font families of one project."""

    def __init__(self, fonts_dir: Path):
        self.dir = fonts_dir
        spec_file = fonts_dir / "fonts.yaml"
        raw = load_yaml(spec_file)
        self.families: dict[str, dict[str, Face]] = {}
        for family, faces in (raw.get("families") or {}).items():
            self.families[family] = {}
            for style, filename in faces.items():
                if style not in STYLES:
                    raise ContentError(
                        f"unknown style '{style}'",
                        spec_file,
                        faces.line_of(style),
                        f"families.{family}",
                        "styles: " + ", ".join(STYLES),
                    )
                self.families[family][style] = _register(
                    f"{family}-{style}", fonts_dir / filename, spec_file, faces.line_of(style)
                )

    def face(self, family: str, style: str = "regular") -> Face:
        faces = self.families.get(family)
        if faces is None:
            raise ContentError(
                f"unknown font '{family}'",
                code="unknown-font",
                hint="fonts: " + ", ".join(self.families),
            )
        return (
            faces.get(style)
            or faces.get("bold" if style == "black" else "regular")
            or next(iter(faces.values()))
        )

    @property
    def default(self) -> Face:
        return self.face(next(iter(self.families)))


# Parsed fonts by name and file content, for the whole process: parsing a face costs about
# 30 ms, and a process that runs many commands (a watch, the test suite) would parse the same
# bytes again for each. A pure function of the bytes, so it cannot go stale (see session.py).
# A new process finds the parsed tables in the user's cache folder (font_cache.py).
_PARSED: dict[tuple[str, str], TTFont] = {}


def _parse(name: str, path: Path) -> TTFont:
    # The one safe reader: inside the project, a regular file (never a FIFO), size-capped.
    data = read_bytes(path, LIMITS.files.art_bytes, "font file")
    key = (name, hashlib.sha256(data).hexdigest())
    font = _PARSED.get(key)
    if font is None:
        font = font_cache.load(name, data, key[1])
        if len(_PARSED) > 64:  # bounded: a long-running process that sees many fonts
            _PARSED.clear()
        _PARSED[key] = font
    return font


@session.cached
def _register(name: str, path: Path, spec_file: Path, line: int | None) -> Face:
    try:
        font = _parse(name, path)
    except (TTFError, OSError) as exc:
        raise ContentError(
            f"font file {path.name} cannot be used: {exc}",
            spec_file,
            line,
            hint="ReportLab needs TrueType (glyf) outlines, not CFF/OTF or TTC",
            code="bad-font",
        ) from None
    pdfmetrics.registerFont(font)
    face = font.face
    return Face(
        name, path, face.ascent / 1000, abs(face.descent) / 1000, frozenset(face.charToGlyph)
    )


@session.cached
def fontbook(fonts_dir: Path) -> FontBook:
    return FontBook(fonts_dir)

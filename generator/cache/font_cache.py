"""Parsed TrueType fonts kept between commands, keyed by the font file's bytes.

ReportLab reads a face's tables (cmap, widths, glyph offsets: about 12,000 glyphs for the
bundled Hangul faces) every time it loads the file, about 50 ms a face, three faces per
command. Those tables are a pure function of the bytes and of ReportLab's parser, so they are
pickled in the user's cache folder, beside the content models (never in the project: a pickle
is code), and read back in a few milliseconds. The font's bytes themselves are not kept: the
caller has just read them (to hash them) and hands them back, so a subset is always cut from
the file on disk.

Anything wrong with an entry (missing, truncated, written by another ReportLab or another
version of this file) is a miss: the font is parsed afresh and the entry rewritten.
"""

from __future__ import annotations

import contextlib
import gc
import pickle
import weakref
from fnmatch import fnmatch
from pathlib import Path

from reportlab import Version as REPORTLAB_VERSION
from reportlab import rl_config
from reportlab.pdfbase import ttfonts
from reportlab.pdfbase.ttfonts import TTEncoding, TTFont, TTFontFace

from generator.cache import store

FORMAT = 1  # bump when what is kept changes
# Not picklable, or not worth keeping: the file's bytes (handed back by the caller), the
# units-per-em scaling function (rebuilt from unitsPerEm) and the per-document subset state.
_FACE_SKIP = frozenset({"_ttf_data", "_pdfScale"})


def _entry(digest: str) -> Path | None:
    # The one key scheme (cache/store.py): the font's bytes, ReportLab's parser, this format.
    return store.entry("fonts", store.key(digest, REPORTLAB_VERSION, str(FORMAT)), suffix=".pickle")


def kept(digest: str) -> bool:
    """Whether the font whose bytes have this digest parsed before (an entry is written only
    after ReportLab parsed the font)."""
    entry = _entry(digest)
    return entry is not None and entry.is_file()


def load(name: str, data: bytes, digest: str) -> TTFont:
    """The font `name` made of `data` (whose sha256 is `digest`): from the cache when an entry
    is there, else parsed by ReportLab (and the entry written)."""
    entry = _entry(digest)
    kept = store.read(entry)
    if kept is not None:
        try:
            return _restore(name, data, _unpickle(kept))
        except Exception:  # truncated, another layout of ReportLab's objects
            pass
    import io

    font = TTFont(name, io.BytesIO(data))
    if entry is not None:
        # a read-only home, or a ReportLab whose face holds something new: no cache
        with contextlib.suppress(pickle.PicklingError, TypeError, AttributeError):
            store.write(
                "fonts", entry, pickle.dumps(_state(font), protocol=pickle.HIGHEST_PROTOCOL)
            )
    return font


def _unpickle(data: bytes) -> dict:
    # Tens of thousands of small objects at once: with the collector on, they set off full
    # collections of everything the command holds (three times the cost of the load itself).
    enabled = gc.isenabled()
    gc.disable()
    try:
        return pickle.loads(data)
    finally:
        if enabled:
            gc.enable()


def _state(font: TTFont) -> dict:
    return {k: v for k, v in vars(font.face).items() if k not in _FACE_SKIP}


def _restore(name: str, data: bytes, kept: dict) -> TTFont:
    """A TTFont as TTFont(name, data) would build it (its __init__, step by step), from the
    face's kept tables. A test holds the two side by side, attribute by attribute."""
    face = TTFontFace.__new__(TTFontFace)
    face.__dict__.update(kept)
    face._ttf_data = data
    face._pdfScale = _scale(face.unitsPerEm)
    font = TTFont.__new__(TTFont)
    font.fontName = name
    font.face = face
    font.encoding = TTEncoding()
    font.state = weakref.WeakKeyDictionary()
    font._asciiReadable = rl_config.ttfAsciiReadable
    font.shapable = not any(fnmatch(name, glob) for glob in ttfonts.unShapedFontGlob or ())
    return font


def _scale(units_per_em: int):
    """ReportLab's glyph-unit to 1/1000 em scaling (TTFontFile.extractInfo)."""
    if units_per_em == 1000:
        return lambda x: x
    factor = 1000 / units_per_em
    return lambda x: x * factor

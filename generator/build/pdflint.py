"""`pdf-structure`: every PDF pnp writes is read back and linted before it is committed.

What a strict RIP (or Ghostscript with -dPDFSTOPONERROR) rejects, and what `qpdf --check` does
not notice, is a content stream that names a resource its scope does not define. So every
content stream (each page's, each Form XObject's and each tiling pattern's, recursively) is
parsed, and every name it uses is looked up in its resources:

    gs -> ExtGState   Tf -> Font   Do -> XObject   sh -> Shading
    cs/CS -> ColorSpace (device spaces excepted)   scn/SCN with a name -> Pattern

Then every font in reach must be embedded (FontFile, FontFile2 or FontFile3), and its name
(less the six-letter subset tag) must be one of the fonts in templates/fonts/: a font the
system supplied behind our back (a fallback for a glyph our fonts lack) is a finding.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from generator import session
from generator.load import languages

OPERATORS = {
    b"gs": "ExtGState",
    b"Tf": "Font",
    b"Do": "XObject",
    b"sh": "Shading",
    b"cs": "ColorSpace",
    b"CS": "ColorSpace",
    b"scn": "Pattern",
    b"SCN": "Pattern",
}
DEVICE_SPACES = {"/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/Pattern"}


@dataclass(frozen=True)
class Problem:
    page: int  # from 1
    where: str  # "page", "form /svg1a2b", ...
    message: str

    def __str__(self) -> str:
        return f"page {self.page}, {self.where}: {self.message}"


class BundledFonts:
    """The allowed fonts of a project, asked name by name: first among the faces parsed in this
    process (every font ReportLab embedded is one of them), and only for a name those do not
    explain (a rulebook's, a stranger's) among all of them, which parses every bundled face."""

    def __init__(self, fonts_dir: Path):
        self.dir = fonts_dir

    def allows(self, squashed: str) -> bool:
        # Deferred for start-up time: ReportLab's font machinery (see bundled_font_names).
        from generator.render.fonts import fontbook

        parsed = frozenset(_family_part(f.name) for f in fontbook(self.dir).parsed())
        return squashed.startswith(tuple(parsed)) or squashed.startswith(tuple(self.names()))

    def names(self) -> frozenset[str]:
        return bundled_font_names(self.dir)


def _family_part(registered: str) -> str:
    """The family part of a registered face's PostScript name, squashed ("pnpgothic")."""
    # Deferred for start-up time: ReportLab's font machinery (see bundled_font_names).
    from reportlab.pdfbase import pdfmetrics

    name = pdfmetrics.getFont(registered).face.name
    name = name.decode("latin-1") if isinstance(name, bytes) else str(name)
    return _squash(name.split("-", 1)[0])


@session.cached
def bundled_font_names(fonts_dir: Path) -> frozenset[str]:
    """The families of the fonts in templates/fonts/ (fonts.yaml), as PDF font names begin:
    ReportLab names a font by its PostScript name ("PnPGothic-Bold"), WeasyPrint by family and
    style ("PnP-Gothic-Ultra-Bold"); both start with the family once dashes and spaces go."""
    # Deferred for start-up time: ReportLab's font machinery (about 110 modules, 90 ms); only the
    # font lint needs it.
    from generator.render.fonts import fontbook

    return frozenset(
        _family_part(face.name)
        for faces in fontbook(fonts_dir).families.values()
        for face in faces.values()
    )


def _squash(name: str) -> str:
    return name.replace("-", "").replace(" ", "").replace("_", "").lower()


def lint(path: Path, allowed_fonts: Iterable[str] | BundledFonts | None = None) -> list[Problem]:
    """Problems of the PDF at `path` (empty when it is sound).

    The file is read with pikepdf (qpdf): a 2,000-page sheet file opens and gives up its
    streams in a tenth of a second, where a pure-Python reader takes seconds."""
    import pikepdf

    try:
        pdf = pikepdf.open(path)
    except (pikepdf.PdfError, OSError, ValueError) as exc:
        return [Problem(0, "file", f"cannot be read ({exc})")]
    with pdf:
        if allowed_fonts is not None and not isinstance(allowed_fonts, BundledFonts):
            allowed_fonts = frozenset(allowed_fonts)
        linter = _Linter(allowed_fonts)
        for number, page in enumerate(pdf.pages, start=1):
            linter.page = number
            resources: Any = page.obj.get("/Resources") or {}
            linter.stream(page.obj.get("/Contents"), resources, "page")
        return linter.problems


def _ident(obj: Any) -> object:
    """An indirect object's number, so a form or a font reused on many pages is read once."""
    objgen = getattr(obj, "objgen", (0, 0))
    return objgen if objgen != (0, 0) else id(obj)


class _Linter:
    def __init__(self, allowed_fonts: frozenset[str] | BundledFonts | None):
        self.allowed = allowed_fonts
        self.problems: list[Problem] = []
        self.page = 0
        self.seen_streams: set[object] = set()  # a form reused on 50 pages is linted once
        self.seen_fonts: set[object] = set()
        self.seen_dicts: set[object] = set()  # a font or pattern dictionary every page shares
        self.keys: dict[object, frozenset[str]] = {}  # an indirect dictionary's names

    def first_time(self, dictionary: Any) -> bool:
        """Whether the fonts or patterns of an indirect dictionary are not looked at yet: a
        sheet file's 2,000 pages name one font dictionary (each font is looked at once anyway)."""
        objgen = getattr(dictionary, "objgen", (0, 0))
        if objgen == (0, 0):
            return True
        if objgen in self.seen_dicts:
            return False
        self.seen_dicts.add(objgen)
        return True

    def names(self, dictionary: Any) -> Any:
        """The names `dictionary` defines, read once for an indirect one."""
        objgen = getattr(dictionary, "objgen", (0, 0))
        if objgen == (0, 0):
            return dictionary
        known = self.keys.get(objgen)
        if known is None:
            known = self.keys[objgen] = frozenset(dictionary.keys())
        return known

    def add(self, where: str, message: str) -> None:
        self.problems.append(Problem(self.page, where, message))

    def stream(self, stream: Any, resources: Any, where: str) -> None:
        if stream is None:
            return
        try:
            data = _stream_bytes(stream)
            # Read as it is first (strings not blanked): what that finds is every use and
            # maybe more (a string that reads "/F1 12 Tf"). When all of it is defined, so is
            # every real use; only otherwise is the stream read again, strings blanked.
            used = _uses_read_plainly(data)
            if used is None or not self._all_defined(used, resources):
                used = names_used(data)
        except Exception as exc:  # a broken stream: qpdf raises several kinds
            self.add(where, f"content stream cannot be parsed ({type(exc).__name__}: {exc})")
            return
        for kind, names in sorted(used.items()):
            defined = resources.get("/" + kind) or {}
            known = self.names(defined)
            for name in sorted(names):
                if name not in known:
                    self.add(where, f"{kind} {name} is used but not defined in its resources")
                elif kind == "XObject":
                    self.xobject(defined[name], resources, f"form {name}")
        fonts = resources.get("/Font") or {}
        for name in sorted(fonts.keys()) if self.first_time(fonts) else ():
            self.font(fonts[name], name, where)
        patterns = resources.get("/Pattern") or {}
        for name in sorted(patterns.keys()) if self.first_time(patterns) else ():
            pattern = patterns[name]
            if pattern.get("/PatternType") == 1:  # tiling: a content stream of its own
                self.xobject(pattern, resources, f"pattern {name}")

    def _all_defined(self, used: dict[str, set[str]], resources: Any) -> bool:
        for kind, names in used.items():
            known = self.names(resources.get("/" + kind) or {})
            if any(name not in known for name in names):
                return False
        return True

    def xobject(self, obj: Any, parent_resources: Any, where: str) -> None:
        if obj is None:
            return
        if where.startswith("form") and obj.get("/Subtype") != "/Form":
            return  # an image
        ident = _ident(obj)
        if ident in self.seen_streams:
            return
        self.seen_streams.add(ident)
        own = obj.get("/Resources")
        self.stream(obj, own if own is not None else parent_resources, where)

    def font(self, font: Any, name: str, where: str) -> None:
        ident = _ident(font)
        if ident in self.seen_fonts:
            return
        self.seen_fonts.add(ident)
        subtype = font.get("/Subtype")
        base = str(font.get("/BaseFont") or "?").lstrip("/")
        if subtype == "/Type3":
            return  # glyphs drawn by content streams of its own: nothing to embed
        described = font
        if subtype == "/Type0":
            descendants = font.get("/DescendantFonts") or []
            described = descendants[0] if len(descendants) else {}
        descriptor = described.get("/FontDescriptor") or {}
        if not any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")):
            self.add(where, f"font {name} ({base}) is not embedded")
            return
        plain = base.split("+", 1)[1] if len(base) > 7 and base[6] == "+" else base
        script = _unslanted_script(font) if plain.endswith(("Oblique", "Italic")) else None
        if script:
            self.add(
                where,
                f"font {name} ({plain}) sets {script.capitalize()} in a synthetic oblique "
                "(a script without italics: scripts.yaml)",
            )
        allowed = self.allowed
        if allowed is None:
            return
        squashed = _squash(plain)
        if isinstance(allowed, BundledFonts):
            if allowed.allows(squashed):
                return
            allowed = allowed.names()
        elif squashed.startswith(tuple(allowed)):
            return
        self.add(
            where,
            f"font {name} ({plain}) is not one of the bundled fonts "
            f"({', '.join(sorted(allowed))}...): a system font filled in for a glyph or a "
            "style the bundled fonts lack",
        )


_HEX4 = re.compile(rb"<([0-9A-Fa-f]{4})>")


def _unslanted_script(font: Any) -> str | None:
    """The script without italics (scripts.yaml: italic: false) whose letters a font's
    ToUnicode map yields, if any (glyph ids stay far below those letters, so the hex codes
    found are code points)."""

    cmap = font.get("/ToUnicode")
    if cmap is None:
        return None
    try:
        data = cmap.read_bytes()
    except Exception:
        return None
    codes = {int(h, 16) for h in _HEX4.findall(data)}
    for script, rules in languages.scripts().items():
        if rules.get("italic", True) is False:
            letters = languages.letters((("name", script),))
            if any(letters.match(chr(c)) for c in codes):
                return script
    return None


# A name operand right before the operator that looks it up; Tf has the size in between.
_NAME = rb"/([^\s/\[\]()<>{}%]*)"
_USES = re.compile(
    _NAME + rb"\s+(?:(gs|Do|sh|cs|CS|scn|SCN)|[-+]?[0-9.]+\s+(Tf))(?=[\s/\[\]()<>{}%]|$)"
)
_SPECIAL = re.compile(rb"[(%<]")
_IN_STRING = re.compile(rb"[()\\]")
_HEX_ESCAPE = re.compile(r"#([0-9A-Fa-f]{2})")  # /A#20B is the name "A B"
_INLINE_IMAGE = re.compile(rb"(?:^|\s)BI\s")


def names_used(data: bytes) -> dict[str, set[str]]:
    """The resource names a content stream uses, by kind ("ExtGState": {"/gRLs0"}...).

    Strings, hex strings and comments are blanked first, so a text that reads "/F1 12 Tf" is
    not taken for an operator; a stream with an inline image (binary data) goes through
    pypdf's full parser. Scanning for the few operators that name resources is about 50 times
    faster than parsing every operator of a 1,000-card sheet."""
    code = _blank_strings(data)
    # the regular expression tries every position of a stream: look for the letters first
    if b"BI" in code and _INLINE_IMAGE.search(code):
        return _names_used_parsed(data)
    return _uses_in(code)


def _uses_read_plainly(data: bytes) -> dict[str, set[str]] | None:
    """The uses `names_used` finds and perhaps more, from `data` as it is (no string blanked):
    a match holds no parenthesis, so it lies wholly inside a string (an extra use) or wholly
    outside (a real one), and none is missed. An inline image's binary data may give extra
    matches too, none reaching past it (what follows it is EI, which no use reads as its
    operator). None for a stream that may hold a comment: a match could begin in one and end
    on the next line, hiding the real use it ends in."""
    if b"%" in data:
        return None
    return _uses_in(data)


def _uses_in(code: bytes) -> dict[str, set[str]]:
    used: dict[str, set[str]] = {}
    # a sheet page names its few fonts hundreds of times: each distinct use is looked at once,
    # and read once for the pages after it
    for use in set(_USES.findall(code)):
        found = _USE_READ.get(use)
        if found is None:
            if len(_USE_READ) > 4096:
                _USE_READ.clear()
            found = _USE_READ[use] = _read_use(*use)
        if found:
            used.setdefault(found[0], set()).add(found[1])
    return used


_USE_READ: dict[tuple[bytes, bytes, bytes], tuple[str, str] | tuple[()]] = {}


def _read_use(name: bytes, op: bytes, tf: bytes) -> tuple[str, str] | tuple[()]:
    """(kind, "/Name") of one use of a resource; () for a device colour space (no resource)."""
    kind = OPERATORS[op or tf]
    text = "/" + _HEX_ESCAPE.sub(lambda m: chr(int(m[1], 16)), name.decode("latin-1"))
    if kind == "ColorSpace" and text in DEVICE_SPACES:
        return ()
    return kind, text


_FLAT_STRING = re.compile(rb"\((?:[^()\\]|\\.)*\)", re.DOTALL)  # no unescaped ( ) inside


def _blank_strings(data: bytes) -> bytes:
    """`data` with every literal string, hex string and comment replaced by a space."""
    if b"%" not in data:  # no comments: strings without nested parentheses go in one pass
        data = _FLAT_STRING.sub(b" ", data)
    # nothing left to blank, as on nearly every page: three byte searches (memchr) find that
    # several times faster than the pattern would scanning the page once
    if b"(" not in data and b"<" not in data and b"%" not in data:
        return data
    out = []
    i, n = 0, len(data)
    while i < n:
        m = _SPECIAL.search(data, i)
        if m is None:
            out.append(data[i:])
            break
        j = m.start()
        out.append(data[i:j])
        c = data[j : j + 1]
        if c == b"%":  # a comment runs to the end of the line
            ends = [e for e in (data.find(b"\n", j), data.find(b"\r", j)) if e >= 0]
            i = min(ends) if ends else n
        elif c == b"<":
            if data[j + 1 : j + 2] == b"<":  # a dictionary, not a hex string
                out.append(b"<<")
                i = j + 2
                continue
            end = data.find(b">", j)
            i = n if end < 0 else end + 1
        else:  # a literal string: balanced parentheses, backslash escapes
            depth, k = 1, j + 1
            while depth and k < n:
                s = _IN_STRING.search(data, k)
                if s is None:
                    k = n
                    break
                ch = data[s.start() : s.start() + 1]
                k = s.start() + (2 if ch == b"\\" else 1)
                depth += {b"(": 1, b")": -1}.get(ch, 0)
            i = k
        out.append(b" ")
    return b"".join(out)


def _names_used_parsed(data: bytes) -> dict[str, set[str]]:
    """The same, from qpdf's full tokenizer (streams with inline images; the tests' oracle)."""
    import pikepdf

    with pikepdf.new() as pdf:
        stream = pikepdf.Stream(pdf, data)
        used: dict[str, set[str]] = {}
        wanted = " ".join(op.decode() for op in OPERATORS)
        for instruction in pikepdf.parse_content_stream(stream, wanted):
            operands, operator = instruction.operands, instruction.operator
            kind = OPERATORS[str(operator).encode()]
            if not operands:
                continue
            name = operands[-1] if kind == "Pattern" else operands[0]
            if not isinstance(name, pikepdf.Name):
                continue  # scn with colour components only
            text = str(name)
            if kind == "ColorSpace" and text in DEVICE_SPACES:
                continue
            used.setdefault(kind, set()).add(text)
        return used


def _stream_bytes(stream: Any) -> bytes:
    """The decoded bytes of a content stream, or of an array of them (a page's /Contents)."""
    import pikepdf

    if isinstance(stream, pikepdf.Array):
        return b"\n".join(part.read_bytes() for part in stream)
    return stream.read_bytes()

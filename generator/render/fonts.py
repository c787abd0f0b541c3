"""Bundled TrueType fonts: registration with ReportLab, widths and glyph coverage.

Families come from templates/fonts/fonts.yaml. Each face is registered under a name of
our own ("gothic-bold"), so two files that share an internal name can never clash.

A character the layout's font lacks falls back, per character, to the face of its script
(templates/languages/scripts.yaml names one family per script: `font: sans`), then to the
faces of the other scripts: `FontBook.chain` gives a `Chain` that measures and splits text
into runs of one face each. Text the layout's font covers is drawn in it alone, exactly as
without fallback. A character no face covers is a `missing-glyph` finding, never a system font.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportlab import rl_config
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFError, TTFont
from reportlab.pdfgen.canvas import Canvas

from generator import session
from generator.cache import font_cache
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load import languages
from generator.load.project import DEFAULTS, file_digest, read_bytes
from generator.load.yamlload import load_yaml
from generator.render import pdftext, shaping

STYLES = ("regular", "bold", "black", "italic", "bold-italic")
FAMILY_KEYS = ("name",)  # besides the styles: the family's name in rulebook CSS ("PnP Gothic")
BUNDLED = (DEFAULTS / "fonts").resolve()  # pnp's own fonts (installed or in this repository)

# Every path that draws a PDF registers the bundled fonts first, so the stream encoding is set
# here once: binary Flate streams, not ReportLab's default ASCII85 over Flate, which makes files
# a quarter bigger and costs time to write and to read back (the lint, the print shop's RIP).
rl_config.useA85 = 0


_ALWAYS = "\n\t\u00ad\u200b\u2060"  # covered by every face: breaks, soft hyphens, joiners
_ALWAYS_CODES = frozenset(map(ord, _ALWAYS))
# Widths kept per face: the words that recur (a type line, a keyword) stay measured, and a
# 10,000-card deck's numbers and names (each seen once) do not grow the caches with the deck:
# a full cache is emptied and fills again with what recurs.
WIDTHS_KEPT = 4096


@dataclass(frozen=True)
class Face:
    name: str  # ReportLab font name
    path: Path
    ascent: float  # per 1 pt of size
    descent: float  # positive, per 1 pt
    cmap: frozenset
    shaped: bool = False  # its script is shaped by HarfBuzz (scripts.yaml `shaping: true`)
    # widths at 1 pt by text: words repeat across cards. Owned by the face, which is owned by
    # the session that registered it, so a changed font file is measured afresh.
    _widths: dict[str, float] = field(default_factory=dict, compare=False, hash=False, repr=False)

    def covers(self, char: str) -> bool:
        return ord(char) in self.cmap or char in _ALWAYS

    def missing(self, text: str) -> str:
        if self.cmap.issuperset(map(ord, text)):  # the common case, at C speed
            return ""
        # each distinct character once: a rulebook is tens of thousands of characters, and a
        # card text's line breaks are all this finds
        rest = set(map(ord, text)).difference(self.cmap)
        return "".join(sorted(c for c in map(chr, rest) if c not in _ALWAYS and c != "\r"))

    def width(self, text: str, size: float) -> float:
        widths = self._widths
        w = widths.get(text)
        if w is None:
            if len(widths) >= WIDTHS_KEPT:
                widths.clear()
            if self.shaped:  # joined forms and ligatures have widths of their own
                w = widths[text] = shaping.width(self.name, text)
            else:
                w = widths[text] = pdfmetrics.stringWidth(text, self.name, 1.0)
        return w * size

    def draw_run(self, canvas, x: float, y: float, text: str, size: float, rtl: bool) -> float:
        """One run of one bidirectional level in this face at (x, y), shaped when the face is,
        set right to left when `rtl`; returns its width."""
        canvas.setFont(self.name, size)
        if not self.shaped:
            canvas.drawString(x, y, shaping.mirrored(text) if rtl else text)
            return self.width(text, size)
        shaped = shaping.glyphs(self.name, text, rtl)
        for dx, dy, chars in shaping.groups(shaped):
            canvas.drawString(x + dx * size, y + dy * size, chars)
        return sum(g.advance for g in shaped) * size


class Chain:
    """A face and the faces its missing characters fall back to, in order. It measures and
    draws like one face: `runs` splits a text into pieces of one face each. A fallback face is
    parsed the first time a character the faces before it lack is looked up: most texts never
    need one, and a symbol is found in the first face that has it."""

    __slots__ = (
        "_fallbacks",
        "_known",
        "_tried",
        "_whole",
        "_widths",
        "ascent",
        "descent",
        "name",
        "prefer",
        "primary",
    )

    def __init__(
        self,
        primary: Face,
        fallbacks: Sequence[Callable[[], Face]] = (),
        prefer: tuple[re.Pattern[str], Face] | None = None,
    ):
        self.primary = primary
        self._fallbacks = fallbacks  # each gives one face, parsing it when first called
        self._known: list[Face] = [primary]  # the faces found so far, in order, each once
        self._tried = 0  # how many of the fallbacks have been parsed
        # (characters, face): characters set in that face even where the primary has them
        self.prefer = prefer
        self.name = self.primary.name
        self.ascent = self.primary.ascent
        self.descent = self.primary.descent
        self._widths: dict[str, float] = {}
        # texts measured (width) that are one piece in the primary face: a line of such words
        # is one piece too, since each character's face does not depend on its neighbours
        self._whole: set[str] = set()

    def _in_order(self) -> Iterator[Face]:
        """The faces in order, each fallback parsed only when the walk reaches it."""
        known = self._known
        i = 0
        while True:
            if i < len(known):
                yield known[i]
                i += 1
            elif self._tried < len(self._fallbacks):
                face = self._fallbacks[self._tried]()
                self._tried += 1
                if face not in known:
                    known.append(face)
            else:
                return

    @property
    def faces(self) -> tuple[Face, ...]:
        """The primary face, then those its missing characters fall back to, each once."""
        return tuple(self._in_order())

    def covers(self, char: str) -> bool:
        return any(f.covers(char) for f in self._in_order())

    def missing(self, text: str) -> str:
        lacking = self.primary.missing(text)
        if not lacking:  # the primary face has them all: nearly every text
            return ""
        return "".join(c for c in lacking if not self.covers(c))

    def face_for(self, char: str) -> Face:
        return next((f for f in self._in_order() if f.covers(char)), self.primary)

    def runs(self, text: str) -> list[tuple[Face, str]]:
        """`text` in pieces of one face each: the primary face wherever it has the glyph."""
        prefer = self.prefer
        if (not self._fallbacks or not self.primary.missing(text)) and not (
            prefer and prefer[0].search(text)
        ):
            return [(self.primary, text)]
        out: list[tuple[Face, str]] = []
        for char in text:
            if prefer and prefer[0].match(char) and prefer[1].covers(char):
                face = prefer[1]
            else:
                face = self.primary if self.primary.covers(char) else self.face_for(char)
            if out and out[-1][0] is face:
                out[-1] = (face, out[-1][1] + char)
            else:
                out.append((face, char))
        return out

    def width(self, text: str, size: float) -> float:
        widths = self._widths
        w = widths.get(text)
        if w is None:
            if len(widths) >= WIDTHS_KEPT:  # `_whole` only spares line_runs a scan
                widths.clear()
                self._whole.clear()
            runs = self.runs(text)
            if len(runs) == 1 and runs[0][0] is self.primary:
                self._whole.add(text)
            if len(runs) == 1:  # one face, the common case: its width, without a sum
                w = widths[text] = runs[0][0].width(runs[0][1], 1.0)
            else:
                w = widths[text] = sum(f.width(t, 1.0) for f, t in runs)
        return w * size

    def line_runs(self, words: list[str]) -> list[tuple[Face, str]]:
        """`runs` of the words joined by spaces; the words measured before (`width`) are known
        to be whole in the primary face, so such a line is not scanned again."""
        text = " ".join(words)
        whole = self._whole
        if " " in whole and whole.issuperset(words):
            return [(self.primary, text)]
        return self.runs(text)

    def draw(self, canvas, x: float, y: float, text: str, size: float, centre: bool = False):
        """`text` at (x, y) (centred on x when `centre`), each run in its own face."""
        if centre:
            x -= self.width(text, size) / 2
        if shaping.needs_bidi(text):  # right-to-left letters: ordered, and shaped
            keyed = [(c, face) for face, piece in self.runs(text) for c in piece]
            for level, piece, face in shaping.visual_runs(keyed, None):
                assert isinstance(face, Face)
                x += face.draw_run(canvas, x, y, piece, size, level % 2 == 1)
            return
        runs = self.runs(text)
        done = 0
        if type(canvas) is Canvas:  # each run's drawString, written as it writes it
            for face, piece in runs:
                written = pdftext.text_object(canvas, [(y, (), ((x, face, piece),))], size, True)
                if written is None:
                    break  # not a TrueType face: the calls below, from this run on
                canvas._fontname, canvas._fontsize, canvas._leading = face.name, size, size * 1.2
                canvas._code.append(written)  # (setFont writes nothing for these faces)
                x += face.width(piece, size)
                done += 1
        for face, piece in runs[done:]:
            canvas.setFont(face.name, size)
            canvas.drawString(x, y, piece)
            x += face.width(piece, size)


FaceLike = Face | Chain

_Spec = tuple[str, Path, Path, "int | None", bool]  # _register's arguments: name, file, where


class _Faces(Mapping[str, Face]):
    """One family's faces by style, each parsed the first time it is asked for: a deck set in
    one family never reads the other scripts' fonts (the CJK faces alone are 9 MB, and each
    costs milliseconds to read back). Every file was found usable when the book was made."""

    __slots__ = ("_got", "_specs")

    def __init__(self) -> None:
        self._specs: dict[str, _Spec] = {}
        self._got: dict[str, Face] = {}

    def add(self, style: str, spec: _Spec) -> None:
        self._specs[style] = spec

    def __getitem__(self, style: str) -> Face:
        face = self._got.get(style)
        if face is None:
            face = self._got[style] = _register(*self._specs[style])
        return face

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)

    def parsed(self) -> Iterable[Face]:
        """The faces asked for so far."""
        return self._got.values()


class FontBook:
    """The font families of one project, and the bundled families its scripts fall back to."""

    def __init__(self, fonts_dir: Path):
        self.dir = fonts_dir
        spec_file = font_spec(fonts_dir)
        raw = load_yaml(spec_file)
        self.families: dict[str, _Faces] = {}
        self.css_names: dict[str, str] = {}  # family -> its name in rulebook CSS
        self.files: dict[str, dict[str, Path]] = {}  # family -> style -> font file
        self._load(raw, fonts_dir, spec_file)
        # A designer's fonts.yaml comes first; a script's family it does not declare comes
        # from the fonts shipped with pnp.
        wanted = [f for f in script_families() if f not in self.families]
        if wanted and fonts_dir.resolve() != BUNDLED:
            bundled = load_yaml(BUNDLED / "fonts.yaml")
            self._load(bundled, BUNDLED, BUNDLED / "fonts.yaml", only=set(wanted))
        self._chains: dict[tuple[str, str, str], Chain] = {}

    def _load(self, raw, fonts_dir: Path, spec_file: Path, only: set[str] | None = None) -> None:
        shaped = shaped_families()
        for family, faces in (raw.get("families") or {}).items():
            if only is not None and family not in only:
                continue
            self.families[family] = _Faces()
            self.files[family] = {}
            self.css_names[family] = str(faces.get("name") or family)
            for style, filename in faces.items():
                if style in FAMILY_KEYS:
                    continue
                if style not in STYLES:
                    raise ContentError(
                        f"unknown style '{style}'",
                        spec_file,
                        faces.line_of(style),
                        f"families.{family}",
                        "styles: " + ", ".join(STYLES),
                    )
                path = font_file(fonts_dir, filename)
                self.files[family][style] = path
                spec = (
                    f"{family}-{style}",
                    path,
                    spec_file,
                    faces.line_of(style),
                    family in shaped,
                )
                _vouch(spec)
                self.families[family].add(style, spec)

    def fallbacks(self, lang: str | None) -> tuple[str, ...]:
        """Families a character falls back to: the language's script's first, then the
        other scripts' (a Korean name in a German text still prints)."""

        first = languages.script_font(lang) if lang else None
        order = ([first] if first else []) + list(script_families())
        return tuple(f for f in dict.fromkeys(order) if f in self.families)

    def _own_face(self, lang: str | None, style: str) -> tuple[re.Pattern[str], Face] | None:
        """For a language whose script has `own_face: true` (scripts.yaml: Japanese), the
        characters of the scripts set in its face, and that face: they are drawn in it even
        where the layout's font has them (CJK punctuation differs from font to font)."""

        if not lang:
            return None
        rules = languages.scripts().get(languages.get(lang).script) or {}
        family = rules.get("font")
        if not rules.get("own_face") or family not in self.families:
            return None
        return languages.letters((("font", family),)), self.face(family, style)

    def chain(self, family: str, style: str = "regular", lang: str | None = None) -> Chain:
        """`family` in `style`, falling back per character to the scripts' faces."""
        key = (family, style, lang or "")
        hit = self._chains.get(key)
        if hit is None:
            others = [f for f in self.fallbacks(lang) if f != family]
            hit = self._chains[key] = Chain(
                self.face(family, style),
                [functools.partial(self.face, f, style) for f in others],
                self._own_face(lang, style),
            )
        return hit

    def face(self, family: str, style: str = "regular") -> Face:
        faces = self.families.get(family)
        if faces is None:
            raise ContentError(
                f"unknown font '{family}'",
                code="unknown-font",
                hint="fonts: " + ", ".join(self.families),
            )
        step = {"black": "bold", "bold-italic": "bold", "italic": "regular"}.get(style, "regular")
        return (
            faces.get(style)
            or faces.get(step)
            or faces.get("regular")
            or next(iter(faces.values()))
        )

    def parse_for(self, langs: Iterable[str]) -> None:
        """Parse now, before forking workers, the faces texts in `langs` are set in: the
        default family, every family that is no script's, and the scripts' faces of these
        languages. Another script's face (the CJK faces alone are 9 MB) is a fallback a text
        may never reach: a worker parses it when a character needs it."""
        scripts = set(script_families())
        wanted = [next(iter(self.families), None), *(f for f in self.families if f not in scripts)]
        wanted += [languages.script_font(lang) for lang in langs]
        for family in dict.fromkeys(wanted):
            faces = self.families.get(family) if family else None
            if faces is not None:
                for style in faces:
                    faces[style]  # a face is parsed when first asked for (_Faces)

    def parsed(self) -> list[Face]:
        """The faces this book has parsed so far (every font a PDF drawn with it embeds)."""
        return [face for faces in self.families.values() for face in faces.parsed()]

    @property
    def default(self) -> Face:
        return self.face(next(iter(self.families)))

    def label(self, lang: str | None, style: str = "regular") -> Chain:
        """The default family with the scripts' fallback: sheet labels, slot numbers."""
        return self.chain(next(iter(self.families)), style, lang)


# Parsed fonts by name and file content, for the whole process: parsing a face costs about
# 30 ms, and a process that runs many commands (a watch, the test suite) would parse the same
# bytes again for each. A pure function of the bytes, so it cannot go stale (see session.py).
# A new process finds the parsed tables in the user's cache folder (font_cache.py).
_PARSED: dict[tuple[str, str], TTFont] = {}


_USABLE: set[str] = set()  # digests of font files parsed in this process


def _parse(name: str, path: Path) -> TTFont:
    # The one safe reader's checks: inside the project, a regular file (never a FIFO),
    # size-capped. The content digest is read once per state of the file (file_digest), so a
    # font parsed before in this process is neither read nor hashed again (megabytes for each
    # command of a watch loop or a test run).
    key = (name, file_digest(path, LIMITS.files.art_bytes, "font file"))
    font = _PARSED.get(key)
    if font is None:
        data = read_bytes(path, LIMITS.files.art_bytes, "font file")
        key = (name, hashlib.sha256(data).hexdigest())  # the bytes parsed, whatever happened
        font = font_cache.load(name, data, key[1])
        if len(_PARSED) > 64:  # bounded: a long-running process that sees many fonts
            _PARSED.clear()
        _PARSED[key] = font
        _USABLE.add(key[1])
    return font


def _vouch(spec: _Spec) -> None:
    """A font file fonts.yaml names is found usable (or its located error raised) when the book
    is made, as if it were parsed then, though it is parsed only when drawn with: its bytes
    (known by their digest, read once per state of the file) are those of a font pnp ships,
    or parsed before, in this process or into the cache (font_cache.kept), or they are parsed
    now. A first command with an empty cache used to parse all 17 bundled faces here."""
    digest = file_digest(spec[1], LIMITS.files.art_bytes, "font file")
    if digest not in _USABLE and digest not in shipped_digests() and not font_cache.kept(digest):
        _register(*spec)


@functools.lru_cache(maxsize=1)
def shipped_digests() -> frozenset[str]:
    """The sha256 of each font file pnp ships (fonts/digests.yaml; a test has ReportLab parse
    each one and holds the list to the files)."""
    listed = load_yaml(BUNDLED / "digests.yaml", allow_empty=True) or {}
    return frozenset(str(digest) for digest in listed.values())


@session.cached
def _register(name: str, path: Path, spec_file: Path, line: int | None, shaped: bool) -> Face:
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
        name, path, face.ascent / 1000, abs(face.descent) / 1000, _cmap(font, shaped), shaped
    )


def _cmap(font: TTFont, shaped: bool) -> frozenset[int]:
    """The characters a parsed font maps (without the private-use area, for a shaped face), kept
    with the parsed font: tens of thousands of code points for a CJK face, for every command.
    With the characters every face covers, so a text with a line break is found whole by
    `missing`'s one set operation (a card text has line breaks; covers() is unchanged)."""
    kept: dict[bool, frozenset[int]] = font.__dict__.setdefault("_pnp_cmaps", {})
    if shaped not in kept:
        kept[shaped] = _ALWAYS_CODES | frozenset(
            c for c in font.face.charToGlyph if not 0xE000 <= c <= 0xF8FF or not shaped
        )
    return kept[shaped]


def font_spec(fonts_dir: Path) -> Path:
    """The fonts.yaml in use: the folder's own, else pnp's."""
    own = fonts_dir / "fonts.yaml"
    return own if own.is_file() else DEFAULTS / "fonts" / "fonts.yaml"


def font_file(fonts_dir: Path, filename: str) -> Path:
    """A font file named in fonts.yaml: in its folder, else among pnp's own fonts (a project's
    fonts.yaml may add a family and keep naming the bundled ones)."""
    path = fonts_dir / filename
    if path.exists():
        return path
    bundled = DEFAULTS / "fonts" / filename
    return bundled if bundled.exists() else path


def shaped_families() -> frozenset[str]:
    """The families of the scripts shaped by HarfBuzz (scripts.yaml `shaping: true`)."""
    return frozenset(
        str(s["font"]) for s in languages.scripts().values() if s.get("shaping") and s.get("font")
    )


def script_families() -> tuple[str, ...]:
    """Every family templates/languages/scripts.yaml names for a script, in its order."""

    return languages.script_fonts()


@session.cached
def fontbook(fonts_dir: Path) -> FontBook:
    return FontBook(fonts_dir)

"""Text layout for faces: markup, word wrap, auto-shrink and inline icons.

Markup is small on purpose: **bold**, :icon: and line breaks. Words are only broken at
spaces, which keeps Korean words whole (the keep-all rule) as well as Latin ones; a word that
cannot fit even at the minimum size is an overflow, reported by the checker. A script whose
lines break between characters (Japanese: scripts.yaml `break: characters`, with its
no-break-before/after characters) is cut into glued pieces a line may break between. Faces are
`fonts.Chain`s: a character the box's font lacks is measured (and drawn) in its script's face.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from generator.errors import ContentError
from generator.load import languages
from generator.render.fonts import FaceLike

_TOKEN = re.compile(r"(\*\*|:[a-z][a-z0-9_-]*:|\n)")
ICON_SCALE = 1.0  # icon box = font size x this
STEP = 0.25  # pt, auto-shrink step


class Atom:
    """An unbreakable piece: a word (maybe in several styles) or an icon, or a line break.
    A plain class with slots: a 10,000-card deck makes hundreds of thousands of them."""

    __slots__ = ("glued", "icon", "newline", "segments", "width1")

    def __init__(
        self,
        segments: list[tuple[str, str]] | None = None,  # (text, style)
        icon: str | None = None,
        newline: bool = False,
        glued: bool = False,
    ) -> None:
        self.segments = segments if segments is not None else []
        self.icon = icon
        self.newline = newline
        self.glued = glued  # no space before it: a piece of a word broken between characters
        self.width1 = 0.0  # width at 1 pt

    @property
    def text(self) -> str:
        return "".join(t for t, _ in self.segments)


_MARKUP = re.compile(r"\*\*|:|\n")


def parse(text: str, base_style: str, icons: dict) -> list[Atom]:
    atoms = _parse(text, base_style, icons)
    broken, _, _ = languages.line_breaking()
    if broken.search(text):  # a script whose lines break between characters (Japanese)
        atoms = [piece for atom in atoms for piece in _break_between(atom)]
    return atoms


def _break_between(atom: Atom) -> list[Atom]:
    """`atom` in pieces a line may break between: before or after each character of a script
    with `break: characters` (scripts.yaml), except before a no-break-before character (、。」
    small kana) or after a no-break-after one (「（). Pieces after the first are glued: no space
    goes before them."""
    if atom.icon or atom.newline:
        return [atom]
    broken, before, after = languages.line_breaking()
    chars = [(c, style) for text, style in atom.segments for c in text]
    pieces: list[Atom] = [Atom()]
    for i, (char, style) in enumerate(chars):
        if i > 0:
            prev = chars[i - 1][0]
            may = (broken.match(prev) or broken.match(char)) and not (
                char in before or prev in after
            )
            if may:
                pieces.append(Atom(glued=True))
        segments = pieces[-1].segments
        if segments and segments[-1][1] == style:
            segments[-1] = (segments[-1][0] + char, style)
        else:
            segments.append((char, style))
    pieces[0].glued = atom.glued
    return pieces


def _parse(text: str, base_style: str, icons: dict) -> list[Atom]:
    if not _MARKUP.search(text):  # plain words, the common case: one atom per word
        return [Atom([(word, base_style)]) for word in text.split(" ") if word]
    if "**" not in text and ":" not in text:
        # plain words over several lines: one atom per word, a break between lines
        atoms: list[Atom] = []
        for n, para in enumerate(text.split("\n")):
            if n:
                atoms.append(Atom(newline=True))
            atoms += [Atom([(word, base_style)]) for word in para.split(" ") if word]
        return atoms
    bold = "black" if base_style in ("bold", "black") else "bold"
    style = base_style
    atoms = []
    current: Atom | None = None
    for token in _TOKEN.split(text):
        if not token:
            continue
        if token == "**":
            style = bold if style == base_style else base_style
        elif token == "\n":
            atoms.append(Atom(newline=True))
            current = None
        elif token.startswith(":") and token.endswith(":") and len(token) > 2 and " " not in token:
            name = token[1:-1]
            if name not in icons:
                raise ContentError(
                    f"unknown icon ':{name}:'",
                    code="unknown-icon",
                    hint="icons: " + (", ".join(sorted(icons)) or "none declared in game.yaml"),
                )
            atoms.append(Atom(icon=name))
            current = None
        else:
            pieces = token.split(" ")
            for i, piece in enumerate(pieces):
                if i > 0:
                    current = None  # a space ends the word
                if not piece:
                    continue
                if current is None:
                    current = Atom()
                    atoms.append(current)
                current.segments.append((piece, style))
    return atoms


@dataclass
class Line:
    atoms: list[Atom]
    width1: float
    words: list[str] | None = None  # a plain line (fit_words): its words, and no atoms


@dataclass
class Fitted:
    size: float
    lines: list[Line]
    overflow: str | None  # why it does not fit, or None
    text: str = ""


def is_plain(text: str) -> bool:
    """Whether `text` is plain words over lines: no markup (** or :icon:, or any colon) and no
    script broken between characters, so `fit_words` lays it out as `fit` would."""
    return "**" not in text and ":" not in text and not languages.line_breaking()[0].search(text)


def measure(atoms: list[Atom], faces: Mapping[str, FaceLike]) -> None:
    for atom in atoms:
        if atom.icon:
            atom.width1 = ICON_SCALE
        elif len(atom.segments) == 1:
            text, style = atom.segments[0]
            atom.width1 = faces[style].width(text, 1.0)
        elif not atom.newline:
            atom.width1 = sum(faces[s].width(t, 1.0) for t, s in atom.segments)


def _wrap(atoms: list[Atom], max_width1: float, space1: float, wrap: bool) -> list[Line]:
    lines: list[Line] = []
    line: list[Atom] = []
    width = 0.0
    for atom in atoms:
        if atom.newline:
            lines.append(Line(line, width))
            line, width = [], 0.0
            continue
        extra = atom.width1 + (space1 if line and not atom.glued else 0.0)
        if wrap and line and width + extra > max_width1:
            lines.append(Line(line, width))
            line, width = [atom], atom.width1
        else:
            line.append(atom)
            width += extra
    if line or not lines:
        lines.append(Line(line, width))
    return lines


def block_height(n_lines: int, size: float, leading: float, face: FaceLike) -> float:
    return (n_lines - 1) * size * leading + size * (face.ascent + face.descent)


def fit(
    atoms: list[Atom],
    faces: Mapping[str, FaceLike],
    width: float,
    height: float,
    size: float,
    min_size: float | None,
    leading: float,
    wrap: bool,
) -> Fitted:
    """The largest size from `size` down to `min_size` at which the text fits the box."""
    measure(atoms, faces)
    space1 = faces["regular"].width(" ", 1.0)
    return _shrink(
        lambda current: _wrap(atoms, width / current, space1, wrap),
        faces["regular"],
        width,
        height,
        size,
        min_size,
        leading,
    )


def _shrink(
    wrapped: Callable[[float], list[Line]],
    face: FaceLike,
    width: float,
    height: float,
    size: float,
    min_size: float | None,
    leading: float,
) -> Fitted:
    """From `size` down by STEP to `min_size`: the first size whose `wrapped` lines fit."""
    smallest = min(min_size, size) if min_size else size
    current = size
    while True:
        lines = wrapped(current)
        widest = max((line.width1 for line in lines), default=0.0) * current
        tall = block_height(len(lines), current, leading, face)
        problem = None
        if widest > width + 0.01:
            problem = f"a line is {widest - width:.1f} pt too wide"
        elif tall > height + 0.01:
            problem = f"{len(lines)} lines need {tall:.1f} pt, the box has {height:.1f} pt"
        if problem is None or current - STEP < smallest - 1e-9:
            return Fitted(current, lines, problem)
        current = round(current - STEP, 4)


def _wrap_words(paras: list[list[tuple[str, float]]], max_width1: float, space1: float, wrap: bool):
    """`_wrap` over plain words: the same sums in the same order, so the same lines."""
    lines: list[Line] = []
    last = len(paras) - 1
    for n, para in enumerate(paras):
        line: list[str] = []
        width = 0.0
        for word, width1 in para:
            extra = width1 + (space1 if line else 0.0)
            if wrap and line and width + extra > max_width1:
                lines.append(Line([], width, line))
                line, width = [word], width1
            else:
                line.append(word)
                width += extra
        if n < last or line or not lines:
            lines.append(Line([], width, line))
    return lines


def fit_words(
    text: str,
    faces: Mapping[str, FaceLike],
    width: float,
    height: float,
    size: float,
    min_size: float | None,
    leading: float,
    wrap: bool,
) -> Fitted:
    """`fit` of a plain text (is_plain): its words measured and wrapped as strings, with no
    Atom per word, since a 10,000-card deck's card texts are nearly all plain. Gives the same
    size, lines and widths as `fit(parse(text))`; its lines hold `words`."""
    face = faces["regular"]
    measure1 = face.width
    # a word measured before is read straight from the face's widths at 1 pt (fonts.py: what
    # width(word, 1.0) returns), without a call per word: card texts repeat their words
    known = getattr(face, "_widths", {}).get
    paras = []
    for para in text.split("\n"):
        words = []
        for w in para.split(" "):
            if w:
                width1 = known(w)
                words.append((w, measure1(w, 1.0) if width1 is None else width1))
        paras.append(words)
    space1 = measure1(" ", 1.0)
    return _shrink(
        lambda current: _wrap_words(paras, width / current, space1, wrap),
        face,
        width,
        height,
        size,
        min_size,
        leading,
    )

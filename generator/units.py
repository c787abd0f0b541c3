"""Lengths with units (mm, cm, in, pt, %) for layouts and print settings. Bare numbers are mm."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from generator.errors import ContentError
from generator.limits import LIMITS

MM = 72 / 25.4  # points per millimetre
_UNITS = {"mm": MM, "cm": 10 * MM, "in": 72.0, "pt": 1.0}
_RE = re.compile(r"^\s*(-?\d+(?:\.\d+)?|-?\.\d+)\s*(mm|cm|in|pt|%)?\s*$")


@dataclass(frozen=True)
class Length:
    """A length in points, or a fraction of a reference length (for %)."""

    points: float = 0.0
    fraction: float | None = None

    def resolve(self, reference_pt: float) -> float:
        return self.fraction * reference_pt if self.fraction is not None else self.points

    @property
    def mm(self) -> float:
        return self.points / MM


def parse_length(value, *, allow_percent: bool = True) -> Length:
    """A length from YAML: finite, and within the budget for any length (limits.yaml)."""
    length = _parse(value, allow_percent)
    biggest = LIMITS.lengths.max
    if length.fraction is not None:
        if not math.isfinite(length.fraction) or abs(length.fraction) > 10:
            raise ValueError(f"'{value}': a percentage must be finite and at most 1000%")
    elif not math.isfinite(length.points) or abs(length.mm) > biggest:
        raise ValueError(f"'{value}' is not a length between -{biggest} mm and {biggest} mm")
    return length


def _parse(value, allow_percent: bool) -> Length:
    if isinstance(value, Length):
        return value
    if isinstance(value, bool):
        raise ValueError(f"expected a length like 3mm, 0.25in or 10pt, got {value!r}")
    if isinstance(value, (int, float)):
        return Length(float(value) * MM)
    if isinstance(value, str):
        match = _RE.match(value)
        if match:
            number, unit = float(match.group(1)), match.group(2) or "mm"
            if unit == "%":
                if not allow_percent:
                    raise ValueError(f"'{value}': a percentage is not allowed here")
                return Length(fraction=number / 100)
            return Length(number * _UNITS[unit])
    raise ValueError(f"expected a length like 3mm, 0.25in, 10pt or 50%, got {value!r}")


def mm(points: float) -> float:
    return points / MM


# The one affine product of the engine (faces, repeat cells, imposition, duplex backs).
Affine = tuple[float, float, float, float, float, float]  # PDF-style: a b c d e f


def compose(m: Affine, n: Affine) -> Affine:
    """m after n."""
    a, b, c, d, e, f = m
    a2, b2, c2, d2, e2, f2 = n
    return (
        a * a2 + c * b2,
        b * a2 + d * b2,
        a * c2 + c * d2,
        b * c2 + d * d2,
        a * e2 + c * f2 + e,
        b * e2 + d * f2 + f,
    )


def parse_offset(text: str | None) -> tuple[float, float] | None:
    """`--back-offset X,Y` in mm, each within limits.yaml's offset_max; None when not given."""
    if text is None:
        return None
    biggest = LIMITS.lengths.offset_max
    try:
        x, y = (float(v) for v in text.split(","))
        if not all(math.isfinite(v) and abs(v) <= biggest for v in (x, y)):
            raise ValueError
        return (x, y)
    except ValueError:
        raise ContentError(
            f"--back-offset '{text}' is not X,Y in mm, each between -{biggest} and {biggest}",
            code="usage",
            hint="e.g. --back-offset 0.5,-0.3",
        ) from None

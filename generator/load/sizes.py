"""Paper and face sizes, read from templates/paper.yaml and templates/card-sizes.yaml."""

from __future__ import annotations

import difflib
from pathlib import Path

from generator import session
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.units import MM, parse_length


@session.cached
def _table(path: Path) -> dict[str, tuple[float, float]]:
    from generator.load.yamlload import load_yaml

    raw = load_yaml(path)
    table = {}
    for name, spec in raw.items():
        from generator.fsio import check_name  # a paper's name is part of its files' names

        check_name(name, "size", path, raw.line_of(name), str(name))
        try:
            table[name] = (
                parse_length(spec["w"], allow_percent=False).points,
                parse_length(spec["h"], allow_percent=False).points,
            )
            if min(table[name]) < LIMITS.lengths.face_min * MM:
                raise ValueError(f"a side under {LIMITS.lengths.face_min} mm (sizes are positive)")
        except (KeyError, TypeError, ValueError) as exc:
            raise ContentError(f"bad size entry: {exc}", path, raw.line_of(name), name) from None
    return table


def _lookup(path: Path, name: str, what: str) -> tuple[float, float]:
    table = _table(path)
    if name not in table:
        close = difflib.get_close_matches(name, list(table), n=1)
        raise ContentError(
            f"unknown {what} '{name}'",
            code="unknown-size",
            hint=(f"did you mean '{close[0]}'? " if close else "") + "known: " + ", ".join(table),
        )
    return table[name]


def paper_size(project, name: str) -> tuple[float, float]:
    return _lookup(project.template("paper.yaml"), name, "paper")


def face_size(project, size) -> tuple[float, float]:
    """A preset name ('poker') or an explicit {w, h}, in points (width, height)."""
    if isinstance(size, str):
        return _lookup(project.template("card-sizes.yaml"), size, "size")
    return (size.w.points, size.h.points)

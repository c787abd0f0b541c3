"""Paper and face sizes, read from templates/paper.yaml and templates/card-sizes.yaml."""

from __future__ import annotations

import difflib
from pathlib import Path

from generator import session
from generator.errors import ContentError
from generator.fsio import check_name  # a paper's name is part of its files' names
from generator.limits import LIMITS
from generator.load.yamlload import load_yaml
from generator.units import MM, parse_length


@session.cached
def _table(path: Path) -> dict[str, tuple[float, float]]:
    raw = load_yaml(path)
    table = {}
    for name, spec in raw.items():
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


def papers(chosen: list[str] | None, *own: list[str] | None) -> list[str]:
    """The papers an output is laid out on, decided in one place: those named on the command
    line (`--paper`), else the first of `own` that is set (a component's `print.papers` over
    the game's, a rulebook's `papers` over the game's print papers)."""
    if chosen:
        return list(chosen)
    return list(next((p for p in own if p), []))


def paper_size(project, name: str) -> tuple[float, float]:
    """The one resolver of a paper name (a4, letter...) to its size in points (width, height),
    from templates/paper.yaml: every sheet writer, the guide, the rulebook page and the
    calibration sheet ask it."""
    return _lookup(project.template("paper.yaml"), name, "paper")


def face_size(project, size) -> tuple[float, float]:
    """A preset name ('poker') or an explicit {w, h}, in points (width, height)."""
    if isinstance(size, str):
        return _lookup(project.template("card-sizes.yaml"), size, "size")
    return (size.w.points, size.h.points)

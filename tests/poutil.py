"""PO helpers shared by the translation tests."""

from __future__ import annotations

import re

import polib


def entry(po: polib.POFile, ctx: str) -> polib.POEntry:
    """The entry of `ctx`. Rulebook ids are anchored to content (`rules:§5.2:li-38d78b0b`), so a
    test names a rulebook segment by its place: `rules:§5.2:li1`, the first list item of §5.2."""
    place = re.fullmatch(r"(rules:[^:]+:)(p|li|cell|call)(\d+)", ctx)
    if place:
        prefix = place.group(1) + place.group(2) + "-"
        found = [e for e in po if (e.msgctxt or "").startswith(prefix)]
        return found[int(place.group(3)) - 1]
    return next(e for e in po if e.msgctxt == ctx)

"""Build-manifest entries: one shape for every writer (sheets, tiles, print-shop pages,
gutterfold pages, images), so readers of build-manifest.json see the same keys whichever
format wrote a file. Lengths go in as points and come out in mm from the page's bottom-left."""

from __future__ import annotations

from typing import Any, Protocol

MM = 72 / 25.4


class RectLike(Protocol):
    @property
    def x(self) -> float: ...
    @property
    def y(self) -> float: ...
    @property
    def w(self) -> float: ...
    @property
    def h(self) -> float: ...


def mm(points: float) -> float:
    return round(points / MM, 3)


def rect_mm(rect: RectLike) -> dict:
    return {"x": mm(rect.x), "y": mm(rect.y), "w": mm(rect.w), "h": mm(rect.h)}


def file_entry(
    path: str,
    kind: str,
    lang: str,
    *,
    fmt: str,
    paper: str | None = None,
    pages: int | None = None,
    component: str | None = None,
    **extra: Any,
) -> dict:
    """One written file: path (relative to the project), kind, language and export format."""
    entry = {
        "path": path,
        "kind": kind,
        "lang": lang,
        "paper": paper,
        "pages": pages,
        "component": component,
        "format": fmt,
        **extra,
    }
    return {k: v for k, v in entry.items() if v is not None}


def slot_entry(
    component: str,
    item: str,
    copy: int,
    trim: RectLike,
    bleed: float,
    *,
    rotated: bool = False,
    **extra: Any,
) -> dict:
    """A placed face: its trim rectangle and bleed; `rotation: 90` when turned on the sheet."""
    entry = {
        "component": component,
        "item": item,
        "copy": copy,
        **rect_mm(trim),
        "bleed": mm(bleed),
        **extra,
    }
    if rotated:
        entry["rotation"] = 90
    return entry


def page_entry(path: str, page: int, side: str, slots: list[dict], **extra: Any) -> dict:
    """One page of a file and the slots on it (page counts from 1; side front or back)."""
    return {"file": path, "page": page, "side": side, "slots": slots, **extra}

"""Print-on-demand shop presets (templates/printers.yaml): which shop size fits a face."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from generator import exports
from generator.errors import ContentError, Finding
from generator.fsio import check_name
from generator.load.content import print_settings
from generator.load.export_options import PngOptions
from generator.load.project import Project
from generator.units import MM, parse_length


@dataclass(frozen=True)
class ShopSize:
    shop: str  # the preset's display name
    name: str  # poker, tarot...
    trim: tuple[float, float]  # points
    bleed: float  # points
    px: tuple[int, int]
    dpi: int
    tolerance: float  # points


@cache
def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8")) or {}


def preset_sizes(project: Project, preset: str) -> list[ShopSize]:
    path = project.template("printers.yaml")
    data = _load(path) if path.is_file() else {}
    if preset not in data:
        raise ContentError(
            f"unknown print-shop preset '{preset}'",
            path,
            key="preset",
            code="unknown-preset",
            hint="presets: " + (", ".join(sorted(data)) or "none (templates/printers.yaml)"),
        )
    check_name(preset, "print-shop preset", path, key="preset")  # png-<preset>/ is a folder
    shop = data[preset]
    try:
        return _sizes(shop)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ContentError(
            f"print-shop preset '{preset}' is malformed: {exc}",
            path,
            key=f"{preset}.{getattr(exc, 'key', '')}".rstrip("."),
            code="schema",
            hint="each preset needs name, dpi (1..2400) and sizes with trim {w, h}, bleed and "
            "px [w, h] (1..20000 each)",
        ) from None


def _sizes(shop: dict) -> list[ShopSize]:
    """The sizes of one preset, every number positive, finite and bounded."""
    dpi = shop["dpi"]
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not 1 <= dpi <= 2400:
        raise ValueError(f"dpi {dpi!r} is not a whole number in 1..2400")
    tolerance = parse_length(shop.get("tolerance", "1mm")).points
    if not tolerance >= 0:
        raise ValueError("tolerance is negative")
    if not isinstance(shop["sizes"], dict) or not shop["sizes"]:
        raise ValueError("it has no sizes")
    out = []
    for name, size in shop["sizes"].items():
        trim = (parse_length(size["trim"]["w"]).points, parse_length(size["trim"]["h"]).points)
        bleed = parse_length(size["bleed"]).points
        px = size["px"]
        if not isinstance(px, list) or len(px) != 2:
            raise ValueError(f"{name}: px is not [w, h]")
        for v in px:
            if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= 20000:
                raise ValueError(f"{name}: px {v!r} is not a whole number in 1..20000")
        if not all(0 < v < 5000 * MM for v in trim) or not 0 <= bleed <= 20 * MM:
            raise ValueError(f"{name}: trim or bleed out of range")
        out.append(ShopSize(str(shop["name"]), name, trim, bleed, (px[0], px[1]), dpi, tolerance))
    return out


def size_for(sizes: list[ShopSize], face: tuple[float, float]) -> ShopSize | None:
    """The shop size whose trim is within the preset's tolerance of the face's, if any."""
    fits = [
        s
        for s in sizes
        if abs(s.trim[0] - face[0]) <= s.tolerance and abs(s.trim[1] - face[1]) <= s.tolerance
    ]
    return min(
        fits, key=lambda s: abs(s.trim[0] - face[0]) + abs(s.trim[1] - face[1]), default=None
    )


def describe(sizes: list[ShopSize]) -> str:
    return ", ".join(f"{s.name} {s.trim[0] / MM:.1f}x{s.trim[1] / MM:.1f} mm" for s in sizes)


def no_size_error(comp, sizes: list[ShopSize]) -> ContentError:
    w, h = comp.size_pt
    return ContentError(
        f"{comp.id}: {w / MM:.1f}x{h / MM:.1f} mm faces match no {sizes[0].shop} size "
        f"({describe(sizes)})",
        comp.file,
        comp.line_of.get("size"),
        "size",
        hint=f"leave {comp.id} out of this png export (components: [...]) or change its size",
        code="preset-size",
    )


def check(content) -> list:
    """Findings for png exports whose preset cannot take a component's face size."""
    own = {comp.id: print_settings(content, comp) for comp in content.components}
    findings = []
    for spec, members in exports.selected(content, own, print_settings(content, None)):
        if not isinstance(spec, PngOptions) or not spec.preset:
            continue
        try:
            sizes = preset_sizes(content.project, spec.preset)
        except ContentError as exc:
            findings.append(Finding.from_error(exc))
            continue
        for cid in members:
            comp = content.component(cid)
            if size_for(sizes, comp.size_pt) is None:
                finding = Finding.from_error(no_size_error(comp, sizes))
                finding.component = cid
                findings.append(finding)
    return findings

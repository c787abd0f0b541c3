"""Print-on-demand shop presets (templates/printers.yaml): which shop size fits a face."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml

from generator import exports
from generator.errors import ContentError, Finding
from generator.load.content import print_settings
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
    shop = data[preset]
    tolerance = parse_length(shop.get("tolerance", "1mm")).points
    out = []
    for name, size in shop["sizes"].items():
        out.append(
            ShopSize(
                shop["name"],
                name,
                (parse_length(size["trim"]["w"]).points, parse_length(size["trim"]["h"]).points),
                parse_length(size["bleed"]).points,
                (int(size["px"][0]), int(size["px"][1])),
                int(shop["dpi"]),
                tolerance,
            )
        )
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
        if spec.format != "png" or not spec.preset:
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

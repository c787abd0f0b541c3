"""Exporters: one module per output format, listed in one registry.

The build asks each selected exporter which files it will write for a game and language
(`plan`), schedules those jobs, and has the exporter write them (`write`). To add a format,
write a module with a class that has `name`, `plan` and `write` (see base.py) and add it to
FORMATS below, and its options model (its own keys) to OPTIONS in load/export_options.py,
where the loader validates content; the two must name the same formats, which importing this
package checks.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from generator.errors import ContentError, Finding
from generator.exports import presets
from generator.exports.base import ExportContext, Exporter, Job, Outputs
from generator.load.export_options import EXPORT_FORMATS, ExportOptions, bare

if TYPE_CHECKING:
    from generator.load.content import GameContent
    from generator.load.model import PrintSettings

# format name -> "module:Class"; modules are imported only when their format is used.
FORMATS: dict[str, str] = {
    "sheets": "generator.exports.sheets:Sheets",
    "print-shop": "generator.exports.print_shop:PrintShop",
    "png": "generator.exports.png:Png",
    "tts": "generator.exports.tts:Tts",
    "gutterfold": "generator.exports.gutterfold:Gutterfold",
    "ink-saver": "generator.exports.ink_saver:InkSaver",
}

if tuple(FORMATS) != EXPORT_FORMATS:  # a format added to one list and not the other
    raise RuntimeError(
        f"generator/exports FORMATS {tuple(FORMATS)} and load/export_options OPTIONS "
        f"{EXPORT_FORMATS} must name the same formats in the same order"
    )

__all__ = ["FORMATS", "ExportContext", "Exporter", "Job", "Outputs", "exporter", "selected"]


def exporter(name: str) -> Exporter:
    module, cls = FORMATS[name].split(":")
    return getattr(importlib.import_module(module), cls)()


def effective(settings: PrintSettings) -> list[ExportOptions]:
    """A print block's exports; without `exports:`, what older content meant: sheets, plus
    print-shop files when `one_per_page` is true."""
    if settings.exports is not None:
        return list(settings.exports)
    names = ["sheets"] + (["print-shop"] if settings.one_per_page else [])
    return [bare(n) for n in names]


def selected(
    content: GameContent, settings: dict[str, PrintSettings], game_settings: PrintSettings
) -> list[tuple[ExportOptions, dict[str, PrintSettings]]]:
    """Each export to run, with the components (and their settings) that take part in it.

    A component takes part in an export its own effective list names; the game's list
    comes first, then exports only some components ask for, in the order they appear.
    """
    specs: list[ExportOptions] = list(effective(game_settings))
    for comp in content.components:
        for spec in effective(settings[comp.id]):
            if spec not in specs:
                specs.append(spec)
    out = []
    for spec in specs:
        members = {
            cid: s
            for cid, s in settings.items()
            if spec in effective(s) and (spec.components is None or cid in spec.components)
        }
        if members:
            out.append((spec, members))
    return out


def check(content: GameContent) -> list:
    """Findings about the exports a game asks for: unknown components named in an export,
    and faces a png preset cannot take (presets.py)."""
    findings = []
    known = {c.id for c in content.components}
    specs = list(content.game.print.exports or [])
    for comp in content.components:
        if comp.model.print is not None:
            specs += comp.model.print.exports or []
    for spec in specs:
        for cid in sorted(set(spec.components or []) - known):
            findings.append(
                Finding.from_error(
                    ContentError(
                        f"export {spec.format} names component '{cid}', which the game lacks",
                        content.dir / "game.yaml",
                        key="print.exports",
                        hint="components: " + ", ".join(sorted(known)),
                        code="unknown-component",
                    )
                )
            )
    return findings + presets.check(content)

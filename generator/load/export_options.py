"""The export formats content may name, each with its own options: one model per format.

`print.exports` lists a bare format name or `{format: NAME, ...}` with that format's keys only:
`{format: sheets, dpi: 300}` is an error at `dpi` naming the keys sheets takes. What a format
does is its module in generator/exports/ (FORMATS there must list exactly these names, in this
order: importing that package checks it); its options are here, where the loader validates
content, because the model is loaded below the exporters (docs/architecture-layers.md), as a
box kind's keys are in load/boxes.py and its drawing in render/boxes/. A new format is one
model here (in OPTIONS) and one module there; docs/reference.md lists each model's keys.
"""

from __future__ import annotations

from functools import reduce
from operator import or_
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, Discriminator, Field, Tag

from generator.load.strict import STRICT

FORMAT = "the format's name; a bare name alone in the list means every option at its default"


class ExportOptions(BaseModel):
    """What every export takes: its format and, optionally, the components it is for."""

    model_config = STRICT  # as every content model: unknown keys are errors

    format: str = Field(description="the export format")
    components: list[str] | None = Field(None, description="only these components")

    def keys(self) -> list[str]:
        return [info.alias or name for name, info in type(self).model_fields.items()]


class SheetsOptions(ExportOptions):
    """`sheets`: the imposed duplex sheets (shaped pieces and `sheet:` groups packed)."""

    format: Literal["sheets"] = Field(description=FORMAT)


class PrintShopOptions(ExportOptions):
    """`print-shop`: one page per design with its bleed, and order.csv with the quantities."""

    format: Literal["print-shop"] = Field(description=FORMAT)


class PngOptions(ExportOptions):
    """`png`: one sRGB image per design, trim plus bleed."""

    format: Literal["png"] = Field(description=FORMAT)
    preset: str | None = Field(None, description="a shop preset from templates/printers.yaml")
    dpi: int | None = Field(None, ge=72, le=1200, description="pixels per inch (default 300)")


TtsObject = Literal["auto", "deck", "board", "tile"]
# `as: auto` (exports/tts.py object_for): a face with a side under this many mm is narrower than
# any playing card (the smallest common size, mini, is 41 mm): a counter or a standee; a face
# larger than this sheet lies on the table.
TILE_BELOW_MM = 40
BOARD_ABOVE_SHEET = ("A5", 148, 210)


class TtsOptions(ExportOptions):
    """`tts`: a Tabletop Simulator saved object per component, with the images it uses."""

    format: Literal["tts"] = Field(description=FORMAT)
    dpi: int | None = Field(None, ge=72, le=1200, description="pixels per inch (default 150)")
    base_url: str | None = Field(
        None, description="hosted images are at this URL instead of file:// paths"
    )
    as_: TtsObject = Field(
        "auto",
        alias="as",
        description="what each component becomes (default auto): deck (DeckCustom), board "
        "(Custom_Board) or tile (Custom_Tile, one per copy); auto decides from the face: a "
        f"die-cut shape or a side under {TILE_BELOW_MM} mm is a tile, a face larger than "
        f"{BOARD_ABOVE_SHEET[0]} a board, any other a deck",
    )


class GutterfoldOptions(ExportOptions):
    """`gutterfold`: one-sided sheets, each back the mirror of its front across a fold."""

    format: Literal["gutterfold"] = Field(description=FORMAT)


class InkSaverOptions(ExportOptions):
    """`ink-saver`: the duplex sheets with large fills and art lightened, for proofs."""

    format: Literal["ink-saver"] = Field(description=FORMAT)


# Format name -> its options model, in the order the docs and `pnp print --export` list them.
OPTIONS: dict[str, type[ExportOptions]] = {
    "sheets": SheetsOptions,
    "print-shop": PrintShopOptions,
    "png": PngOptions,
    "tts": TtsOptions,
    "gutterfold": GutterfoldOptions,
    "ink-saver": InkSaverOptions,
}
EXPORT_FORMATS = tuple(OPTIONS)
UNKNOWN_FORMAT = "export_format"  # the error type of a format not in OPTIONS (validation.py)


def spec(name: str, **options: Any) -> ExportOptions:
    """A validated export of format `name` (a known name: `pnp print --export` checks it)."""
    return OPTIONS[name].model_validate({"format": name, **options})


def bare(name: str) -> ExportOptions:
    """The export `name` with every option at its default, built without validation: a build
    whose model comes from the cache never builds a validator (model_cache.py)."""
    cls = OPTIONS[name]
    return cls.model_construct(
        format=name,
        **{
            field: info.get_default(call_default_factory=True)
            for field, info in cls.model_fields.items()
            if field != "format"
        },
    )


def _bare_name(value: Any) -> Any:
    return {"format": value} if isinstance(value, str) else value


def _format_of(value: Any) -> str | None:
    name = value.get("format") if isinstance(value, dict) else getattr(value, "format", None)
    return name if isinstance(name, str) and name in OPTIONS else None


# One export in YAML: a bare format name, or {format: NAME, ...} validated by NAME's model.
ExportEntry: Any = Annotated[
    reduce(or_, (Annotated[model, Tag(name)] for name, model in OPTIONS.items())),
    Discriminator(
        _format_of,
        custom_error_type=UNKNOWN_FORMAT,
        custom_error_message="unknown export format",
    ),
    BeforeValidator(_bare_name),
]


COMMON_KEYS = ("format", "components")


def docs_table() -> str:
    """The table of export formats and their own keys in docs/printing-and-exports.md."""
    rows = [
        "| format | its own keys (besides " + ", ".join(COMMON_KEYS) + ") |",
        "|---|---|",
    ]
    for name, model in OPTIONS.items():
        own = [
            f"`{info.alias or key}`: {info.description}"
            for key, info in model.model_fields.items()
            if (info.alias or key) not in COMMON_KEYS
        ]
        rows.append(f"| `{name}` | {'; '.join(own) or 'none'} |")
    return "\n".join(rows)

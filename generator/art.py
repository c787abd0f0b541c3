"""Art files: raster images (PNG/JPEG) and SVG, opened safely.

Pillow's decompression-bomb guard is kept and made an error. SVG may be a Jinja template
(to recolour art per item); it may not reference other files, entities or URLs.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

from generator import session, templating
from generator.errors import ContentError
from generator.yamlload import read_text

RASTER = {".png", ".jpg", ".jpeg"}
_EXTERNAL = re.compile(
    r"""(?:href|src)\s*=\s*["'](?!#)([^"']*)["']|<!ENTITY|<!DOCTYPE[^>]*\[|url\(\s*['"]?(?!#)""",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Raster:
    path: Path
    width_px: int
    height_px: int


@session.cached
def open_raster(path: Path) -> Raster:
    from PIL import Image  # only games with raster art pay for importing Pillow

    if path.suffix.lower() not in RASTER:
        raise ContentError(
            f"'{path.name}' is not PNG or JPEG",
            path,
            code="bad-art",
            hint="use .png or .jpg, or an svg box for .svg",
        )
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(path) as img:
                img.load()  # decodes everything: truncated files fail here, not mid-render
                return Raster(path, img.width, img.height)
    except FileNotFoundError:
        raise ContentError("art file not found", path, code="missing-art") from None
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ContentError(
            f"image refused as a decompression bomb ({exc})",
            path,
            code="bad-art",
            hint="use an image under 89 megapixels",
        ) from None
    except (OSError, ValueError, SyntaxError) as exc:
        reason = "not a PNG or JPEG image" if "cannot identify" in str(exc) else str(exc)
        raise ContentError(
            f"image cannot be read ({reason})",
            path,
            code="bad-art",
            hint="the file is corrupt or truncated; export it again",
        ) from None


def svg_source(path: Path, context: dict) -> str:
    """The SVG text for one item: a template rendered with the item's data, checked for safety."""
    text = read_text(path)
    if templating.is_template(text):
        try:
            text = templating.render(text, context)
        except ContentError as exc:
            raise exc.located(path) from None
    bad = _EXTERNAL.search(text)
    if bad:
        raise ContentError(
            f"SVG refers to something outside itself ({bad.group(0)[:40]!r}); refused",
            path,
            text[: bad.start()].count("\n") + 1,
            code="path-refused",
            hint="inline the art; only '#id' references are allowed",
        )
    return text


@session.cached
def svg_drawing(text: str, path: Path):
    from svglib.svglib import svg2rlg

    try:
        drawing = svg2rlg(
            io.BytesIO(text.encode("utf-8")),
            resolve_entities=False,
            external_reference_root=str(path.parent),
        )
    except Exception as exc:  # svglib raises many kinds; all mean "bad SVG"
        raise ContentError(
            f"SVG cannot be read ({type(exc).__name__}: {exc})", path, code="bad-art"
        ) from None
    if drawing is None or not drawing.width or not drawing.height:
        raise ContentError(
            "SVG cannot be read or has no size",
            path,
            code="bad-art",
            hint="give the <svg> element a viewBox or width and height",
        )
    return drawing


def digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


@session.cached
def svg_check(text: str, path: Path) -> None:
    """What `pnp check` needs to know of an SVG, without converting it: it is well-formed XML
    with a size. (Entities and outside references are already refused by svg_source.)"""
    import xml.etree.ElementTree as ET

    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        line = exc.position[0] if exc.position else None
        raise ContentError(
            f"SVG is not well-formed XML ({exc})", path, line, code="bad-art"
        ) from None
    if not root.tag.endswith("svg"):
        raise ContentError("not an SVG file (no <svg> root)", path, 1, code="bad-art")
    if not (root.get("viewBox") or (root.get("width") and root.get("height"))):
        raise ContentError(
            "SVG has no size",
            path,
            1,
            code="bad-art",
            hint="give the <svg> element a viewBox or width and height",
        )

"""Art files: raster images (PNG/JPEG) and SVG, opened safely.

Pillow's decompression-bomb guard is kept and made an error. SVG may be a Jinja template
(to recolour art per item); it may not reference other files, entities or URLs.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from generator import session
from generator.errors import ContentError
from generator.limits import LIMITS, exceeded
from generator.load import templating
from generator.load.project import read_bytes

RASTER = {".png", ".jpg", ".jpeg"}
# The one decoder each raster name may reach, and the bytes that file must start with. Pillow
# otherwise picks a decoder from the content: an EPS named .png would go to Ghostscript.
_FORMATS = {".png": ("PNG", b"\x89PNG\r\n\x1a\n"), ".jpg": ("JPEG", b"\xff\xd8\xff")}
_FORMATS[".jpeg"] = _FORMATS[".jpg"]
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
    from PIL import Image, ImageFile  # only games with raster art pay for importing Pillow

    if path.suffix.lower() not in RASTER:
        raise ContentError(
            f"'{path.name}' is not PNG or JPEG",
            path,
            code="bad-art",
            hint="use .png or .jpg, or an svg box for .svg",
        )
    fmt, magic = _FORMATS[path.suffix.lower()]
    data = _read_art(path)
    if not data.startswith(magic):
        raise ContentError(
            f"'{path.name}' is not a {fmt} file (its bytes say otherwise); refused",
            path,
            code="bad-art",
            hint=f"export it as a real {fmt}; art is opened only as the type its name says",
        )
    # WeasyPrint, once imported (a rulebook built earlier in this process, `pnp watch`), sets
    # Pillow's process-wide LOAD_TRUNCATED_IMAGES, which would let a truncated file through.
    lenient, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data), formats=[fmt]) as img:
                img.load()  # decodes everything: truncated files fail here, not mid-render
                return Raster(path, img.width, img.height)
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
    finally:
        ImageFile.LOAD_TRUNCATED_IMAGES = lenient


def _read_art(path: Path) -> bytes:
    try:
        return read_bytes(path, LIMITS.files.art_bytes, "art file")
    except ContentError as exc:
        if exc.code == "missing-file":
            exc.code, exc.message = "missing-art", "art file not found"
        raise


def svg_source(path: Path, context: dict) -> str:
    """The SVG text for one item: a template rendered with the item's data, checked for safety.

    A templated SVG is rendered once per distinct value of the names it reads (a plane drawn
    in five suit colours is rendered five times, not once per card and language)."""
    text = _svg_text(path)
    if templating.is_template(text):
        names = _template_names(text)
        key: tuple | None = None  # None: render every time (not lexable: rendering says why)
        if names is not None:
            try:
                # [value] for a name the context has, nothing for one it lacks (an error)
                values = {n: [context[n]] for n in names if n in context}
                key = (path, text, json.dumps(values, sort_keys=True, default=repr))
            except (TypeError, ValueError):
                key = None  # values JSON cannot order: render it every time
        rendered = _rendered_svgs()
        if key is not None and key in rendered:
            return rendered[key]
        try:
            text = templating.render(text, context)
        except ContentError as exc:
            raise exc.located(path) from None
        text = _safe_svg(text, path)
        if key is not None:
            rendered[key] = text
        return text
    return _safe_svg(text, path)


def _svg_text(path: Path) -> str:
    try:
        stat = path.stat()
        version: tuple[int, int] | None = (stat.st_mtime_ns, stat.st_size)
    except OSError:
        version = None  # missing: _read_art says so
    return _svg_text_of(path, version)


@session.cached  # once per command and version of the file (every face of a deck uses it)
def _svg_text_of(path: Path, version: tuple[int, int] | None) -> str:
    try:
        return _read_art(path).decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ContentError("SVG is not valid UTF-8", path, code="encoding") from None


@lru_cache(maxsize=256)
def _template_names(text: str) -> tuple[str, ...] | None:
    """Every name the template's tags mention (pure: keyed by the template's text), or None when
    it does not lex. A superset of the names it reads from its context (it also holds attribute,
    filter and loop names), so a key made of their values never mixes two different renders;
    lexing is ten times cheaper than parsing and asking Jinja for the undeclared names."""
    from jinja2 import TemplateSyntaxError

    try:
        return tuple(sorted({v for _, kind, v in templating.ENV.lex(text) if kind == "name"}))
    except TemplateSyntaxError:
        return None


def _rendered_svgs() -> dict:
    return session.current().cache("art.rendered_svgs")


@lru_cache(maxsize=1024)  # pure; a plain SVG comes here once per face that shows it
def _safe_svg(text: str, path: Path) -> str:
    """Refuse outside references and SVGs over the element budget."""
    bad = _EXTERNAL.search(text)
    if bad:
        raise ContentError(
            f"SVG refers to something outside itself ({bad.group(0)[:40]!r}); refused",
            path,
            text[: bad.start()].count("\n") + 1,
            code="path-refused",
            hint="inline the art; only '#id' references are allowed",
        )
    _svg_budget(text, path)
    return text


@lru_cache(maxsize=1024)
def _svg_budget(text: str, path: Path) -> None:
    """Refuse an SVG whose elements, counted with every <use> expanded, exceed the budget, before
    any renderer sees it (a use-of-use bomb is tiny on disk and endless to draw)."""
    import xml.etree.ElementTree as ET

    limit = LIMITS.svg.elements
    if text.count("<") > limit:
        raise exceeded("SVG element count", f"over {limit:,}", f"{limit:,}", file=path)
    try:
        root = ET.fromstring(text)
    except ET.ParseError:
        return  # not well-formed: svg_check and the renderers report it
    uses = [el for el in root.iter() if el.tag.rsplit("}", 1)[-1] == "use"]
    if len(uses) > LIMITS.svg.use_refs:
        raise exceeded("SVG <use> count", len(uses), LIMITS.svg.use_refs, file=path)
    if not uses:
        return
    by_id = {el.get("id"): el for el in root.iter() if el.get("id")}
    sizes: dict[int, int] = {}

    def expanded(el, depth: int = 0) -> int:
        key = id(el)
        if key in sizes:
            return sizes[key]
        if depth > 50:
            raise exceeded("SVG <use> nesting", f"over {depth}", 50, file=path)
        sizes[key] = 1  # a use cycle counts once instead of looping
        total = 1
        for child in el:
            total += expanded(child, depth + 1)
        if el.tag.rsplit("}", 1)[-1] == "use":
            ref = el.get("href") or el.get("{http://www.w3.org/1999/xlink}href") or ""
            target = by_id.get(ref[1:]) if ref.startswith("#") else None
            if target is not None:
                total += expanded(target, depth + 1)
        total = min(total, limit + 1)
        sizes[key] = total
        return total

    size = expanded(root)
    if size > limit:
        raise exceeded(
            "SVG size with <use> expanded",
            f"over {limit:,} elements",
            f"{limit:,}",
            file=path,
            hint="a <use> of a <use> of ... multiplies the drawing; flatten the art",
        )


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

"""Compare two output folders, file by file: byte-identical, else pixel-identical, else different.

    python tests/tools/compare_outputs.py BEFORE AFTER [--dpi 72]

PDFs are rasterised page by page with pypdfium2, PNGs decoded with Pillow: a file counts as
pixel-identical when every page has the same size and the same pixels. Used to show that a
refactor leaves what pnp prints unchanged (a PNG's ICC profile carries its creation time, and
a rulebook names its figures by a digest of pnp's code, so bytes alone say too little).
Exits 1 when any file differs or exists on one side only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pypdfium2 as pdfium
from PIL import Image


def _pdf_pages(path: Path, dpi: int) -> list[bytes]:
    pdf = pdfium.PdfDocument(str(path))
    try:
        pages = []
        for page in pdf:
            image = page.render(scale=dpi / 72).to_pil()
            pages.append(bytes(repr(image.size), "ascii") + image.tobytes())
        return pages
    finally:
        pdf.close()


def _png_pixels(path: Path) -> list[bytes]:
    with Image.open(path, formats=["PNG"]) as image:
        return [bytes(repr(image.size), "ascii") + image.convert("RGBA").tobytes()]


def _same_pixels(a: Path, b: Path, dpi: int) -> bool:
    if a.suffix == ".pdf":
        return _pdf_pages(a, dpi) == _pdf_pages(b, dpi)
    if a.suffix == ".png":
        return _png_pixels(a) == _png_pixels(b)
    return False


def compare(before: Path, after: Path, dpi: int) -> dict[str, list[str]]:
    names = {
        p.relative_to(before).as_posix()
        for p in before.rglob("*")
        if p.is_file() and ".pnp-cache" not in p.parts
    }
    names_after = {
        p.relative_to(after).as_posix()
        for p in after.rglob("*")
        if p.is_file() and ".pnp-cache" not in p.parts
    }
    result: dict[str, list[str]] = {
        "bytes": [],
        "pixels": [],
        "different": [],
        "only before": sorted(names - names_after),
        "only after": sorted(names_after - names),
    }
    for name in sorted(names & names_after):
        a, b = before / name, after / name
        if a.read_bytes() == b.read_bytes():
            result["bytes"].append(name)
        elif _same_pixels(a, b, dpi):
            result["pixels"].append(name)
        else:
            result["different"].append(name)
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--dpi", type=int, default=72)
    args = parser.parse_args()
    result = compare(args.before, args.after, args.dpi)
    for kind in ("bytes", "pixels"):
        files = result[kind]
        pdfs = sum(1 for f in files if f.endswith(".pdf"))
        print(f"{kind}-identical: {len(files)} files ({pdfs} PDFs)")
    bad = result["different"] + result["only before"] + result["only after"]
    for kind in ("different", "only before", "only after"):
        for name in result[kind]:
            print(f"{kind}: {name}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

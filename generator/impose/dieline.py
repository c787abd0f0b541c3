"""The die line: a shape's outline stroked in a spot colour (a `Separation`, "CutContour" by
default) on its own optional-content layer, for print shops' cutters and cutting plotters.

ReportLab writes spot colours but not optional content, so this module adds the three pieces
a layer needs: the OCG object and /OCProperties in the catalog, the /Properties entry in each
page's resources, and `/OC /name BDC ... EMC` around the die lines in the content stream.
The layer is off by default on home sheets (nothing extra is printed) and on in print-shop files.
"""

from __future__ import annotations

from reportlab.lib.colors import CMYKColorSep
from reportlab.pdfbase import pdfdoc

from generator.load.shapes import Affine, Outline

DIE_WIDTH = 0.25  # pt: a hairline, as cutters expect
LAYER = "PnpDieLine"  # the resource name of the layer in each page's /Properties


class _PageWithLayers(pdfdoc.PDFPage):
    """A page whose resources also name the die-line layer."""

    layers: dict  # set per page by DieLayer

    def check_format(self, document):
        super().check_format(document)
        self.Resources.Properties.update(self.layers)


class DieLayer:
    """One per canvas: call `add` while drawing a page; the layer is registered on first use."""

    def __init__(self, canvas, separation: str, visible: bool):
        self.canvas, self.separation, self.visible = canvas, separation, visible
        self.colour = CMYKColorSep(0, 1, 0, 0, spotName=separation)  # magenta on screen
        self.ref = None
        self._page_uses = False
        original = canvas._setAnnotations

        def hook(page):  # showPage calls this once the page object exists
            original(page)
            if self._page_uses:
                page.__class__ = _PageWithLayers
                page.layers = {LAYER: self.ref}
            self._page_uses = False

        canvas._setAnnotations = hook

    def _register(self) -> None:
        doc = self.canvas._doc
        ocg = pdfdoc.PDFDictionary(
            {
                "Type": pdfdoc.PDFName("OCG"),
                "Name": pdfdoc.PDFString(f"Die line ({self.separation})"),
                "Intent": pdfdoc.PDFArray([pdfdoc.PDFName("View"), pdfdoc.PDFName("Design")]),
            }
        )
        self.ref = doc.Reference(ocg, "PnpOCGDieLine")
        state = "ON" if self.visible else "OFF"
        config = {
            "Name": pdfdoc.PDFString("pnp"),
            "Order": pdfdoc.PDFArray([self.ref]),
            state: pdfdoc.PDFArray([self.ref]),
        }
        catalog = doc.Catalog
        catalog.OCProperties = pdfdoc.PDFDictionary(
            {"OCGs": pdfdoc.PDFArray([self.ref]), "D": pdfdoc.PDFDictionary(config)}
        )
        catalog.__NoDefault__ = [*type(catalog).__NoDefault__, "OCProperties"]

    def add(self, outlines: list[tuple[Outline, Affine]]) -> None:
        """Stroke each outline (face coordinates, placed by its affine) on the layer."""
        if not outlines:
            return
        if self.ref is None:
            self._register()
        self._page_uses = True
        c = self.canvas
        c.addLiteral(f"/OC /{LAYER} BDC")
        c.saveState()
        c.setStrokeColor(self.colour)
        c.setLineWidth(DIE_WIDTH)
        for outline, m in outlines:
            c.saveState()
            c.transform(*m)
            path = c.beginPath()
            outline.add_to_path(path)
            c.drawPath(path, stroke=1, fill=0)
            c.restoreState()
        c.restoreState()
        c.addLiteral("EMC")

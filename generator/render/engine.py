"""Draw one face (a card, a board, a token...) from a layout, or check it without drawing.

Coordinates: layouts measure x, y from the face's top-left; the canvas given to `draw` has its
origin at the face's bottom-left trim corner, in points. One engine serves every kind of face:
the walk (boxes/walk.py) places each box once, and the box's kind (boxes/<kind>.py) draws or
checks it.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cached_property
from typing import Any

from jinja2 import StrictUndefined

from generator import session
from generator.errors import ContentError, Finding
from generator.load import templating
from generator.load.content import ComponentSpec, GameContent, ItemSpec
from generator.load.layouts import LayoutStore, game_store
from generator.load.model import SHEET_SUFFIXES
from generator.load.project import inside
from generator.render import pdfcolour, pdfstate, replay, version_mark
from generator.render.boxes import KINDS, fitness
from generator.render.boxes.base import Frame, Placed, Rect, colour
from generator.render.boxes.walk import box_finding, places, raise_error
from generator.render.fonts import FontBook, fontbook

__all__ = ["Contexts", "FaceContext", "FaceLayout", "FaceRenderer", "Rect", "colour"]

_LAID = "render.engine.laid"  # the session cache of face layouts (FaceRenderer.lay_out)
# Face layouts kept from the check for the drawing of one command: about 3 KB each. At 4,096 a
# 10,000-card first build laid 5,904 faces out twice (5 % of its CPU); 16,384 holds them all for
# 17 MB more at its peak (157-159 MB, below the 166 MB it took before its fonts were vouched for).
_KEPT = 16384


class FaceContext(dict):
    """What templates see for one face of one item (or a component's common back): a dict that
    also names the face (`face`: component id, item id or None), so the face's layout can be
    found again in the same command. A copy (`{**ctx}`) is a plain dict and names nothing."""

    __slots__ = ("face",)
    face: tuple[str, str | None]


class Spot:
    """One shown box of a face layout: where the walk placed it, and what its kind laid out
    (`laid`: a text box's set lines), filled by whichever reader needs it first."""

    __slots__ = ("angle", "index", "label", "laid", "rect", "transform")

    def __init__(self, index: int, rect: Rect, angle: float, transform, label: str) -> None:
        self.index = index
        self.rect = rect
        self.angle = angle
        self.transform = transform
        self.label = label
        self.laid: Any = None


class FaceLayout:
    """A face laid out once: the walk's outcome, box by box (a `Spot`, or a box whose placement
    failed as (index, label, error)). `pnp check` reads its findings from it and drawing replays
    it, so within a command a face is laid out once however often it is checked or drawn
    (copies, papers, exports). Holds no context: the frame that reads it brings its own."""

    __slots__ = ("content", "kept", "shared", "spots")

    def __init__(self, content: Any, spots: list, shared: bool = False) -> None:
        self.content = content
        self.spots = spots
        self.kept = False  # whether the command's store holds it (read again by printing)
        # drawn for every face of its layout and size (lay_out `shared`): its spots hold no
        # face's text, so no reader may keep anything in them
        self.shared = shared


class Contexts:
    """What templates see, per item: game data, component data, item data (innermost wins).
    Needs no fonts, so a cached rulebook picture can find its file without loading any."""

    def __init__(self, content: GameContent, lang: str):
        self.content = content
        self.lang = lang
        self.languages = content.languages
        self._game_ctx = templating.localize(dict(content.game.data), lang, self.languages)
        self._comp_ctx: dict[int, tuple[ComponentSpec, dict]] = {}  # localized once per component

    def context(self, comp: ComponentSpec, item: ItemSpec | None) -> dict[str, Any]:
        try:
            ctx = dict(self._game_ctx)
            own = self._comp_ctx.get(id(comp))
            if own is None or own[0] is not comp:
                data = self._localized(comp.model.data, comp, None)
                own = self._comp_ctx[id(comp)] = (comp, data)
            ctx.update(own[1])
            if item is not None:
                ctx.update(self._localized(item.data, comp, item))
                ctx["item"] = {"id": item.id, "count": item.count}
            try:
                name = templating.pick(comp.model.name, self.lang)
            except ContentError as exc:  # the component's name, where it is written
                raise exc.located(comp.file, comp.line_of.get("name"), "name") from None
            ctx["component"] = {"id": comp.id, "name": name}
            ctx["lang"] = self.lang
            # Data strings may themselves be templates over the item's data (an effect text
            # "Hace {{ damage }} daño"), so the card and the rulebook share one source.
            # A common back has no item: a per-item text is simply not available there.
            out = FaceContext(
                templating.render_data(
                    ctx, on_error=self._at_key(comp, item) if item is not None else _no_item
                )
            )
            out.face = (comp.id, None if item is None else item.id)
            return out
        except ContentError as exc:
            where = (item.file, item.line) if item else (comp.file, None)
            raise exc.located(*where) from None

    def _localized(self, data: dict, comp: ComponentSpec, item: ItemSpec | None) -> dict:
        """`data` (the component's, or the item's) in this language; a value without this
        language's text is an error at its own key: its line in the YAML, or the cell to
        fill in a spreadsheet's row."""
        out = {}
        for key, value in data.items():
            try:
                out[key] = templating.localize(value, self.lang, self.languages)
            except ContentError as exc:
                if item is None:
                    line = comp.data_line(key, None)
                    raise exc.located(comp.file, line, f"data.{key}") from None
                if item.file.suffix.lower() in SHEET_SUFFIXES:
                    cell = f"{key}.{self.lang}"
                    exc.hint = (
                        f"fill this row's '{cell}' cell (the field's '.{self.lang}' column; "
                        "add the column if none)"
                    )
                    raise exc.located(item.file, item.line, cell) from None
                line = item.data_lines.get(key) or item.line
                raise exc.located(item.file, line, f"data.{key}") from None
        return out

    def _at_key(self, comp: ComponentSpec, item: ItemSpec):
        """A data string's template error, located at the `data:` key it is written under
        (the item's own, else the component's, else the game's), not at the item."""

        def locate(key: str, exc: ContentError):
            lang = self.lang
            if key in item.data:
                lines = item.data_lines
                line = lines.get(f"{key}.{lang}") or lines.get(key) or item.line
                raise exc.located(item.file, line, f"data.{key}")
            if key in comp.model.data:
                raise exc.located(comp.file, comp.data_line(key, lang), f"data.{key}")
            if key in self.content.game.data:
                raise exc.located(self.content.dir / "game.yaml", None, f"data.{key}")
            raise exc

        return locate


def _no_item(key: str, exc: ContentError) -> StrictUndefined:
    return StrictUndefined(hint=f"'{key}' needs an item's data; a common back cannot use it")


class FaceRenderer(Contexts):
    """Renders (and checks) the faces of one game in one language."""

    def __init__(self, content: GameContent, lang: str):
        super().__init__(content, lang)
        self.fonts: FontBook = fontbook(content.project.fonts)
        self.layouts: LayoutStore = game_store(content.project, content.dir)
        self._memo: tuple[dict | None, dict[str, str]] = (None, {})
        self.compiled: dict = {}  # per box: its data-bound settings (render/replay.py)
        self.icons = {
            name: inside(
                content.dir, path, what="icon", file=content.dir / "game.yaml", key=f"icons.{name}"
            )
            for name, path in content.game.icons.items()
        }
        self.face_pdfs: dict[str, bytes] = {}  # version_mark.face_pdf: each face drawn alone

    @cached_property
    def marks(self) -> bool:
        """Some face of the game carries a version mark (version_mark.py). Asked for each face
        drawn, answered once: a renderer's content does not change."""
        return self.content.game.print.version_mark is not None or any(
            c.model.print is not None and c.model.print.version_mark is not None
            for c in self.content.components
        )

    def text(self, value, ctx) -> str:
        """A LangText box setting in this language, rendered over `ctx`."""
        if isinstance(value, dict):
            if self.lang not in value:
                raise ContentError(
                    f"no '{self.lang}' text (has {', '.join(value)})",
                    hint=f"add a '{self.lang}:' entry",
                    code="missing-language",
                )
            value = value[self.lang]
        if not templating.is_template(value):
            return value
        # A box's templates over one card's context are rendered once: the replay key
        # (render/replay.py) and the drawing after it ask for the same values.
        memo = self._memo
        if memo[0] is not ctx:
            memo = self._memo = (ctx, {})
        out = memo[1].get(value)
        if out is None:
            out = memo[1][value] = templating.render(value, ctx)
        return out

    # ------------------------------------------------------------ drawing
    def draw(self, canvas, layout_name: str, ctx: dict, w: float, h: float, bleed: float) -> None:
        """Draw a face: the canvas origin is its bottom-left trim corner. Its version mark, when
        the game asks for one, goes on top."""
        frame = Frame(layout_name, ctx, w, h, bleed, face=(w, h))
        self.draw_frame(canvas, frame)
        if self.marks:
            version_mark.draw(self, canvas, frame)

    def draw_bare(self, canvas, layout_name: str, ctx: dict, w: float, h: float, bleed: float):
        """Draw a face without its version mark (what the mark's hash is made from)."""
        self.draw_frame(canvas, Frame(layout_name, ctx, w, h, bleed, face=(w, h)))

    def lay_out(self, frame: Frame, keep: bool = False, shared: bool = False) -> FaceLayout:
        """`frame` laid out: its layout's boxes walked once. A whole face (not a repeat cell)
        of an item or a common back that the check lays out (`keep`) is kept for the rest of
        the command, by its layout, size, bleed, language and item, and printing draws from it.
        Bounded: a full store keeps what it has (the check lays faces out in the order printing
        draws them), so a 10,000-card build does not hold every face. For drawing alone
        (`shared`), a layout no box of which is shown or turned by the card (no `if:`, no
        rotation from a template) is walked once per size and shared by all its faces."""
        key = None
        face = getattr(frame.ctx, "face", None)
        if face is not None and frame.depth == 0:
            store = session.current().cache(_LAID)
            if store or keep:  # an empty store (no check in this command) has nothing to find
                key = (
                    id(self.content), self.lang, frame.layout, frame.w, frame.h, frame.bleed, face
                )  # fmt: skip
                laid = store.get(key)
                if laid is not None and laid.content is self.content:
                    return laid
        if shared and not keep:
            common = self._common_layout(frame)
            if common is not None:
                return common
        spots: list = []
        failed = False

        def on_error(frame: Frame, index: int, label: str, exc: ContentError) -> None:
            nonlocal failed
            failed = True
            spots.append((index, label, exc))

        for _, index, rect, angle, transform, label in places(self, frame, on_error):
            spots.append(Spot(index, rect, angle, transform, label))
        laid = FaceLayout(self.content, spots)
        # A failed placement is raised (or said) afresh each time: its error is not shared.
        if keep and key is not None and not failed and len(store) < _KEPT:
            store[key] = laid
            laid.kept = True
        return laid

    def _common_layout(self, frame: Frame) -> FaceLayout | None:
        """The one layout of every face of `frame`'s layout and size, or None when a box's
        showing or turning depends on the card (or a placement fails: said per face)."""
        layout = self.layouts.get(frame.layout)
        key = ("common", id(layout), frame.w, frame.h, frame.bleed, frame.label)
        hit = self.compiled.get(key)
        if hit is not None and hit[0] is layout:
            return hit[1]
        common = None
        if all(box.if_ is None and not isinstance(box.rotate, str) for box in layout.boxes):
            laid = self.lay_out(frame)
            if all(type(spot) is Spot for spot in laid.spots):
                common = FaceLayout(self.content, laid.spots, shared=True)
        self.compiled[key] = (layout, common)
        return common

    def placed(
        self, frame: Frame, laid: FaceLayout, on_error, remember: bool = True
    ) -> Iterator[Placed]:
        """The shown boxes of a face layout, placed in `frame` (what the walk gives). Without
        `remember`, a box's kind keeps nothing in its spot (no reader comes back to it)."""
        boxes = self.layouts.get(frame.layout).boxes
        for spot in laid.spots:
            if type(spot) is tuple:
                on_error(frame, *spot)
                continue
            yield Placed(
                boxes[spot.index],
                spot.index,
                frame,
                spot.rect,
                spot.angle,
                spot.transform,
                spot.label,
                spot if remember else None,
            )

    def draw_frame(self, canvas, frame: Frame) -> None:
        layout = self.layouts.get(frame.layout)
        # An ink-saver canvas (exports/ink_saver.py) is told what each fill belongs to.
        ink = getattr(canvas, "ink_hooks", None)
        if ink is not None:
            ink.begin_layout(layout, frame.w, frame.h, frame.bleed, frame.depth)
        if layout.background and not (ink is not None and layout.background_ink == "drop"):
            b = frame.bleed
            pdfcolour.fill(canvas, colour(self.text(layout.background, frame.ctx)))
            canvas.rect(-b, -b, frame.w + 2 * b, frame.h + 2 * b, stroke=0, fill=1)
        laid = self.lay_out(frame, shared=True)
        for placed in self.placed(frame, laid, raise_error, remember=not laid.shared):
            if ink is not None and not ink.begin_box(placed, frame.depth):
                continue
            self.draw_placed(canvas, placed)
            if ink is not None:
                ink.end_box()

    def draw_placed(self, canvas, placed: Placed) -> None:
        """Draw one placed box; a box drawn before on this canvas with the same rectangle and
        the same values in its data-bound settings is replayed (render/replay.py)."""
        k = replay.key(self, canvas, placed)
        if k is not None:
            kept = replay.Replay.of(canvas)
            if kept.play(canvas, k):
                return
            if not kept.worth_keeping(k):
                k = None
            start = len(canvas._code)
        self._draw_placed(canvas, placed)
        if k is not None:
            kept.keep(k, placed.box, canvas._code[start:])

    def _draw_placed(self, canvas, placed: Placed) -> None:
        box = placed.box
        kept = pdfstate.save(canvas)
        if placed.angle:
            _, _, _, _, cx, cy = placed.transform
            canvas.translate(cx, cy)
            canvas.rotate(placed.angle)
        if box.opacity < 1:
            canvas.setFillAlpha(box.opacity)
            canvas.setStrokeAlpha(box.opacity)
        KINDS[box.kind].draw(self, canvas, placed)
        pdfstate.restore(canvas, kept)

    # ------------------------------------------------------------ checking
    def check(
        self, layout_name: str, ctx: dict, w: float, h: float, where: dict, bleed: float = 0.0
    ) -> list[Finding]:
        """Findings for one face, from the same walk as drawing: overflowing or small text,
        missing glyphs, missing or low-res art, pieces that do not fit, ink near the trim."""
        frame = Frame(layout_name, ctx, w, h, bleed, where=dict(where, lang=self.lang), face=(w, h))
        return self.check_frame(frame)

    def check_frame(self, frame: Frame) -> list[Finding]:
        findings: list[Finding] = []
        shown: list[Placed] = []

        def on_error(frame: Frame, index: int, label: str, exc: ContentError) -> None:
            findings.append(box_finding(self, frame, index, label, exc))

        laid = self.lay_out(frame, keep=True)
        # A face the store is too full to keep is laid out again when printed: what its boxes
        # would keep for printing (a text's set lines, not needed for the findings) is not made.
        for placed in self.placed(frame, laid, on_error, remember=laid.kept):
            shown.append(placed)
            box = placed.box
            kind = KINDS[box.kind]
            try:
                if kind.check is not None:
                    findings += kind.check(self, placed)
                if box.holds and not kind.checks_holds:
                    findings += fitness.piece_fits(self, placed, placed.rect.w, placed.rect.h)
                for field in kind.colours:
                    value = getattr(box, field, None)
                    if value:
                        colour(self.text(value, frame.ctx))
            except ContentError as exc:
                on_error(frame, placed.index, placed.label, exc)
        if frame.depth == 0 and self.marks:
            findings += version_mark.check(self, frame, shown)
        return findings

"""What the sheet writer and the build do once instead of per sheet or per file must give what
doing it each time gave: operators written again are the operators drawing writes, and JSON
encoded once is the JSON `json.dumps` writes (docs/performance.md, "What keeps pnp fast")."""

from __future__ import annotations

import io
import json

from reportlab.pdfgen.canvas import Canvas

from generator.build.run import _ENCODE, Encoded, _pages_of
from generator.impose import registration
from generator.impose.placement import MARK_WIDTH, draw_segments, recorded

MARKS = [(10.0, 20.0, 10.0, 4.0), (30.5, 20.0, 30.5, 4.0), (5.0, 40.0, 1.0, 40.0)]
TARGETS = [(50.0, 8.0), (400.0, 8.0)]


def _pages(draw) -> list[str]:
    """The content stream of each of three pages drawn by `draw(canvas)`."""
    canvas = Canvas(io.BytesIO(), pagesize=(500, 500), invariant=1)
    pages = []
    for _ in range(3):
        start = len(canvas._code)
        draw(canvas)
        pages.append("\n".join(canvas._code[start:]))
        canvas.showPage()
    return pages


def test_recorded_marks_and_targets_write_what_drawing_writes():
    def drawn(canvas):
        draw_segments(canvas, MARKS, "#000000", MARK_WIDTH)
        registration.draw(canvas, TARGETS)

    def replayed(canvas):
        recorded(canvas, ("marks",), draw_segments, MARKS, "#000000", MARK_WIDTH)
        recorded(canvas, ("targets",), registration.draw, TARGETS)

    expected, got = _pages(drawn), _pages(replayed)
    assert got == expected
    assert " l S" in got[2] and " c" in got[2]  # the later pages do carry marks and targets


def test_an_ink_saver_canvas_always_draws():
    calls = []

    def draw(canvas):
        calls.append(1)

    canvas = Canvas(io.BytesIO(), pagesize=(500, 500))
    canvas.ink_hooks = object()
    recorded(canvas, ("k",), draw)
    recorded(canvas, ("k",), draw)
    assert len(calls) == 2


def _page(file: str, n: int) -> dict:
    slot = {"component": "cartes", "item": "élan", "copy": 1, "x": 12.5, "y": 3.0, "bleed": 3.0}
    return {"file": file, "page": n, "side": "front", "slots": [slot, dict(slot, copy=2)]}


def test_json_encoded_once_is_what_json_dumps_writes():
    long = [_page("a.pdf", n) for n in range(1, 101)]  # long enough to be kept by identity
    short = [_page("b.pdf", 1)]
    state = {"targets": {"a.pdf": {"key": "k", "part": {"file": {}, "sheets": long}}, "b": {}}}
    encoded = Encoded()
    for value in (state, long, short, [], {}, {"n": [1, 2.5, None, True]}, "ç"):
        assert encoded.dumps(value) == _ENCODE(value)
        assert json.loads(encoded.dumps(value)) == value
    # the manifest's pages: the targets' lists joined, an empty one (a rulebook's) included
    assert encoded.joined([long, [], short]) == _ENCODE(long + short)
    # a guide's pages: those of its files only, whichever targets hold them
    mixed = [_page("a.pdf", 7), _page("c.pdf", 1)]
    for paths in ({"a.pdf"}, {"b.pdf", "c.pdf"}, {"z.pdf"}):
        flat = [p for part in (long, [], short, mixed) for p in part if p["file"] in paths]
        assert _pages_of([long, [], short, mixed], paths, encoded) == _ENCODE(flat)


def test_the_build_record_is_written_as_json_dumps_writes_it(tmp_path, monkeypatch):
    from generator.build import run

    path = tmp_path / "g.json"
    monkeypatch.setattr(run, "state_path", lambda project, game: path)
    state = run.GameState({"a.pdf": {"key": "1", "part": {"file": {"path": "a.pdf"}}}})
    encoded = Encoded()
    run.save_state(None, "g", state, encoded)
    assert path.read_bytes() == _ENCODE({"targets": state.targets}).encode()
    # a rebuilt target gets a new record: the file says so, the old record's text is not reused
    state.targets["a.pdf"] = {"key": "2", "part": {"file": {"path": "a.pdf"}, "sheets": []}}
    state.targets["b.pdf"] = {"key": "3", "part": {"sheets": [_page("b.pdf", 1)]}}
    run.save_state(None, "g", state, encoded)
    assert json.loads(path.read_bytes()) == {"targets": state.targets}
    assert path.read_bytes() == _ENCODE({"targets": state.targets}).encode()
    assert run.load_state(None, "g").targets == state.targets

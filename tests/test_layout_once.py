"""One layout pass per face (issue #23): within one command a face is walked once, its text
laid out once, and the check's findings and the drawing both read that one result."""

from __future__ import annotations

from collections import Counter

import pypdfium2 as pdfium
import pytest
from conftest import run_pnp

from generator.errors import ContentError
from generator.load import templating
from generator.render import engine
from generator.render.boxes import text as text_box

CARD = """\
background: "#fbf8f1"
boxes:
  - {id: frame, kind: rect, x: 3, y: 3, w: 57, h: 82, radius: 3mm, stroke: "#333333"}
  - {id: title, kind: text, text: "{{ title }}", x: 6, y: 6, w: 51, h: 10, size: 14pt, style: bold}
  - {id: body, kind: text, text: "{{ body }}", x: 6, y: 40, w: 51, h: 24, size: 9pt}
  - {id: cost, kind: text, text: "{{ cost }}", x: 6, y: 68, w: 51, h: 14, size: 20pt,
     align: right}
"""
BACK = """\
background: "#1f2f4a"
boxes:
  - {id: name, kind: text, text: BACK, x: 5, y: 38, w: 53, h: 12, size: 20pt,
     align: center, color: "#f3e7c6"}
"""
ITEMS = [
    ("a", 1, "Alpha", "The first card of the deck", 1),
    ("b", 1, "Bravo", "A second card with a longer body that wraps over two lines", 2),
    ("c", 3, "Charlie", "Three copies of this one", 1),
    ("d", 1, "Delta", "The last card", 2),
]


def _project(make_project, body_of_d: str = "The last card"):
    items = "\n".join(
        f"  - id: {i}\n    count: {n}\n    data: {{title: {t}, "
        f'body: "{body_of_d if i == "d" else b}", cost: {c}}}'
        for i, n, t, b, c in ITEMS
    )
    return make_project(
        {
            "templates/layouts/t/card.yaml": CARD,
            "templates/layouts/t/back.yaml": BACK,
            "content/g/game.yaml": "id: g\ntitle: G\nlanguages: [en]\n"
            "print: {papers: [a4], rotate: never}\n",
            "content/g/components/cards.yaml": "id: cards\nname: Cards\nsize: poker\n"
            f"layout: t/card\nback: t/back\nitems:\n{items}\n",
            "content/g/manifest.yaml": "components: {cards: 6}\n",
        }
    )


@pytest.fixture
def counted(monkeypatch):
    """Counts of the walk over each face, by (layout, item), and of its text layouts, by
    (item, box)."""
    walks: Counter = Counter()
    texts: Counter = Counter()
    places = engine.places

    def counting_places(renderer, frame, on_error):
        face = getattr(frame.ctx, "face", None)
        walks[frame.layout, face[1] if face else None] += 1
        return places(renderer, frame, on_error)

    fit = text_box.fit_text

    def counting_fit(renderer, box, r, ctx):
        face = getattr(ctx, "face", None)
        texts[face[1] if face else None, box.id] += 1
        return fit(renderer, box, r, ctx)

    monkeypatch.setattr(engine, "places", counting_places)
    monkeypatch.setattr(text_box, "fit_text", counting_fit)
    return walks, texts


def test_print_lays_each_face_out_once(make_project, counted):
    """`pnp print` checks every face, then draws it: one walk and one text layout per face,
    although the check and the drawing both read it, and the three copies of 'c' and the six
    common backs are each laid out once."""
    walks, texts = counted
    root = _project(make_project)
    run_pnp(root, "print", "-j", "1", check=True)
    assert walks == {
        **{("t/card", item): 1 for item, *_ in ITEMS},
        ("t/back", None): 1,
    }
    boxes = ("title", "body", "cost")
    assert set(texts) == {(i, b) for i, *_ in ITEMS for b in boxes} | {(None, "name")}
    assert max(texts.values()) == 1, [k for k, n in texts.items() if n > 1]
    # everything was drawn: each copy's title is on the sheet
    pdf = pdfium.PdfDocument(str(root / "output/g/en/cards-a4.pdf"))
    words = pdf[0].get_textpage().get_text_range()
    assert words.count("Charlie") == 3 and "Alpha" in words and "Delta" in words


def test_findings_come_from_the_same_layout(make_project, counted):
    """The check reads its findings from the face layout (an overflowing body is found),
    and a face with an error is not drawn from a kept layout: print refuses it."""
    walks, _ = counted
    root = _project(make_project, body_of_d="word " * 200)
    result = run_pnp(root, "check", "--format", "json")
    assert result.returncode == 1
    assert '"text-overflow"' in result.stdout and '"item": "d"' in result.stdout
    assert walks["t/card", "d"] == 1


def test_a_face_layout_is_not_shared_between_different_contexts(make_project):
    """A plain dict context names no face: two different cards drawn through the renderer
    with hand-made contexts each get their own layout."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.load.content import load_game
    from generator.load.project import Project

    root = _project(make_project)
    content = load_game(Project(root), "g")
    renderer = engine.FaceRenderer(content, "en")
    comp = content.components[0]
    ctx_a = renderer.context(comp, comp.items[0])
    assert ctx_a.face == ("cards", "a")
    plain = {**ctx_a}
    assert not hasattr(plain, "face")
    frame = engine.Frame("t/card", ctx_a, 100, 100, 0.0, face=(100, 100))
    first = renderer.lay_out(frame, keep=True)
    assert renderer.lay_out(frame) is first  # kept: the drawing finds it
    other = engine.Frame("t/card", {**plain, "title": "X"}, 100, 100, 0.0, face=(100, 100))
    assert renderer.lay_out(other, keep=True) is not first
    canvas = Canvas("/dev/null")
    renderer.draw(canvas, "t/card", plain, 100, 100, 0.0)  # a plain dict draws as before


@pytest.mark.parametrize(
    "text, ctx",
    [
        ("{{ title }}", {"title": "Card 7"}),
        ("{{title}}", {"title": ""}),
        ("{{ n }}", {"n": 42}),
        ("{{ n }}", {"n": -3}),
        ("{{ x }}", {"x": 1.5}),
        ("{{ x }}", {"x": True}),
        ("{{ x }}", {"x": None}),
        ("{{ x }}", {"x": [1, 2]}),
        ("{{ title }}!", {"title": "a"}),
        ("{{ title|upper }}", {"title": "a"}),
    ],
)
def test_one_name_templates_render_as_jinja_does(text, ctx):
    """The compiled shortcut for `{{ name }}` gives exactly what the full render gives."""
    full = templating._compile(text).render(ctx)
    assert templating.render(text, ctx) == full


def test_one_name_template_of_a_missing_name_is_still_an_error():
    with pytest.raises(ContentError, match="undefined"):
        templating.render("{{ nope }}", {"title": "a"})
    with pytest.raises(ContentError, match="mapping"):
        templating.render("{{ x }}", {"x": {"eng": "a"}})


def test_a_face_the_store_cannot_keep_is_checked_without_setting_its_text(
    make_project, monkeypatch
):
    """The store of face layouts is bounded (engine._KEPT); a face it cannot keep is laid out
    again when printed, so its check measures where its text goes (the findings need that)
    without setting the lines for a drawing that will never read them. Same findings."""
    root = _project(make_project, body_of_d="word " * 200)  # d's body overflows
    everything_kept = run_pnp(root, "check", "--format", "json")
    assert everything_kept.returncode == 1 and '"text-overflow"' in everything_kept.stdout

    made: Counter = Counter()

    class CountedSetText(text_box.SetText):
        __slots__ = ()

        def __init__(self, fitted, faces, box, r, rtl=False) -> None:
            made[box.id] += 1
            super().__init__(fitted, faces, box, r, rtl)

    monkeypatch.setattr(text_box, "SetText", CountedSetText)
    monkeypatch.setattr(engine, "_KEPT", 1)  # room for the first face only: item a's front
    one_kept = run_pnp(root, "check", "--format", "json")
    assert (one_kept.returncode, one_kept.stdout) == (1, everything_kept.stdout)
    assert made == {"title": 1, "body": 1, "cost": 1}, made


def test_text_drawn_without_the_checks_layout_writes_the_same_file(make_project, monkeypatch):
    """`pnp print` draws each text from the lines the check set (SetText); `print --force`
    skips the passed check and writes plain words straight from their layout, setting no
    lines: the same file, byte for byte."""
    root = _project(make_project)
    made: Counter = Counter()
    set_text = text_box.SetText

    def counting(fitted, *args, **kwargs):
        made[fitted.text] += 1
        return set_text(fitted, *args, **kwargs)

    monkeypatch.setattr(text_box, "SetText", counting)
    run_pnp(root, "print", "-j", "1", check=True)
    checked = (root / "output/g/en/cards-a4.pdf").read_bytes()
    assert made["Alpha"] == 1 and made["BACK"] == 1  # set once, by the check
    made.clear()
    run_pnp(root, "print", "--force", "-j", "1", check=True)
    assert not made, made  # no check this time, and no set lines
    assert (root / "output/g/en/cards-a4.pdf").read_bytes() == checked


def test_print_force_walks_a_layout_no_card_changes_once(make_project, counted, monkeypatch):
    """Without the check (`print --force` after a passed one), a layout whose boxes no card
    shows, hides or turns (no `if:`, no rotation from a template) is walked once for all the
    faces of its size; the file is the same, byte for byte, as when each face is walked."""
    walks, _ = counted
    root = _project(make_project)
    run_pnp(root, "print", "-j", "1", check=True)
    walks.clear()
    run_pnp(root, "print", "--force", "-j", "1", check=True)
    shared = (root / "output/g/en/cards-a4.pdf").read_bytes()
    assert walks == {("t/card", "a"): 1, ("t/back", None): 1}
    monkeypatch.setattr(engine.FaceRenderer, "_common_layout", lambda self, frame: None)
    walks.clear()
    run_pnp(root, "print", "--force", "-j", "1", check=True)
    assert walks == {**{("t/card", item): 1 for item, *_ in ITEMS}, ("t/back", None): 1}
    assert (root / "output/g/en/cards-a4.pdf").read_bytes() == shared


@pytest.mark.parametrize(
    "setting",
    ['if: "{{ cost > 1 }}"', 'rotate: "{{ 180 if cost > 1 else 0 }}"'],
)
def test_a_layout_a_card_changes_is_walked_for_each_face(make_project, counted, setting):
    """A box the card shows, hides or turns: each face walked on its own, and each card gets
    its own (the cost of Bravo and Delta only, or turned on theirs only)."""
    walks, _ = counted
    root = _project(make_project)
    card = CARD.replace("     align: right}", f"     align: right, {setting}}}")
    assert card != CARD
    (root / "templates/layouts/t/card.yaml").write_text(card)
    run_pnp(root, "print", "-j", "1", check=True)
    walks.clear()
    run_pnp(root, "print", "--force", "-j", "1", check=True)
    assert walks == {**{("t/card", item): 1 for item, *_ in ITEMS}, ("t/back", None): 1}
    pdf = pdfium.PdfDocument(str(root / "output/g/en/cards-a4.pdf"))
    page = pdf[0].get_textpage()
    words = page.get_text_range()
    if setting.startswith("if"):
        costs = [w for w in words.split() if w in {"1", "2"}]
        assert costs == ["2", "2"], words  # Bravo's and Delta's: the 1s are hidden
    else:  # every cost drawn, the two of cost 2 turned half a turn about their centre
        import pikepdf

        assert words.count("2") >= 2 and words.count("1") >= 4
        with pikepdf.open(root / "output/g/en/cards-a4.pdf") as doc:
            content = doc.pages[0].obj["/Contents"].read_bytes()
        assert content.count(b"-1 0 0 -1 89.29134 36.85039 cm") == 2

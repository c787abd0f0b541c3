"""Writes the bad-input corpus: a base content tree (_base) and one folder per case.

Each case folder holds `expected.yaml` and a `tree/` overlaid on _base (same paths). Run it
again after changing a case here; the folders are committed so reviewers can read them.
"""

from __future__ import annotations

import io
import math
import shutil
import struct
import zlib
from pathlib import Path

import yaml
from PIL import Image

HERE = Path(__file__).resolve().parent
COMP = "content/mini/components/cards.yaml"
GAME = "content/mini/game.yaml"
MANIFEST = "content/mini/manifest.yaml"
LAYOUT = "templates/layouts/mini/card.yaml"
RULES = "content/mini/rules/es.md"

BASE = {
    GAME: """\
id: mini
title: {en: Mini, es: Mini}
languages: [en, es]
data:
  colours: {red: "#c0262d", blue: "#1d5fa8"}
icons: {star: art/star.svg}
print: {papers: [a4]}
""",
    COMP: """\
id: cards
name: {en: Card, es: Carta}
size: poker
layout: mini/card
back: mini/back
data:
  label: {en: "Hits {{ power }} :star:", es: "Golpea {{ power }} :star:"}
items:
  - id: red-card
    count: 2
    data: {colour: red, power: 1}
  - id: blue-card
    data: {colour: blue, power: 3}
""",
    MANIFEST: "components:\n  cards: 3\n",
    "content/mini/rules/en.md": (
        "# Mini\n\n## 1 Components\n\n- 3 cards\n\n## 2 Play\n\nPlay a card.\n"
    ),
    RULES: "# Mini\n\n## 1 Componentes\n\n- 3 cartas\n\n## 2 Juego\n\nJuega una carta.\n",
    "content/mini/art/star.svg": (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10" width="10" height="10">'
        '<path d="M5,0 L6,4 L10,4 L7,6 L8,10 L5,7 L2,10 L3,6 L0,4 L4,4 Z" fill="#222"/></svg>\n'
    ),
    "templates/layouts/mini/base.yaml": 'background: "#fbf8f1"\nboxes: []\n',
    LAYOUT: """\
extends: mini/base
boxes:
  - {id: band, kind: rect, x: 0, y: 0, w: 100%, h: 15, bleed: true, fill: "{{ colours[colour] }}"}
  - {id: title, kind: text, text: "{{ label }}", x: 5, y: 20, w: 53, h: 12, size: 12pt,
     min_size: 7pt}
  - {id: photo, kind: image, src: art/photo.png, x: 5, y: 40, w: 20, h: 20}
  - {id: mark, kind: svg, src: art/star.svg, x: 30, y: 40, w: 20, h: 20}
""",
    "templates/layouts/mini/back.yaml": 'background: "#1f2f4a"\nboxes: []\n',
}

PRINTERS = """\
shop:
  name: Shop
  dpi: 300
  sizes:
    poker: {trim: {w: 63mm, h: 88mm}, bleed: 3mm, px: [816, 1110]}
"""


def png(width: int, height: int, dpi: int = 300) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), (120, 40, 160)).save(buf, "PNG", dpi=(dpi, dpi))
    return buf.getvalue()


def bomb_png() -> bytes:
    """A 1-bit PNG of 30,000 x 30,000 pixels (900 megapixels) in a few kilobytes."""
    width = height = 30_000
    raw = (b"\x00" + b"\x00" * (width // 8)) * height

    def chunk(kind, data):
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    ihdr = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


EPS = b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n(pwned) print showpage\n"
# Ten levels of ten <use> each: 10^10 elements once expanded, a few hundred bytes on disk.
SVG_BOMB = (
    '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
    'viewBox="0 0 10 10" width="10" height="10"><defs><path id="l0" d="M0,0 L1,1"/>'
    + "".join(
        f'<g id="l{i}">' + f'<use xlink:href="#l{i - 1}"/>' * 10 + "</g>" for i in range(1, 11)
    )
    + '</defs><use xlink:href="#l10"/></svg>\n'
)


def sub(path, old, new):
    text = BASE[path]
    assert old in text, (path, old)
    return {path: text.replace(old, new, 1)}


COMP_ITEMS = """items:
  - id: red-card
    count: 2
    data: {colour: red, power: 1}
  - id: blue-card
    data: {colour: blue, power: 3}
"""

# name: (files to write over the base, expected). Expected: exit, code, file, line, key, message.
CASES = {
    "yaml-unclosed-bracket": (
        sub(COMP, "size: poker", "size: [poker"),
        dict(exit=2, code="yaml-syntax", file=COMP, line=4),
    ),
    "yaml-tab-indent": (
        sub(COMP, "    count: 2", "\tcount: 2"),
        dict(exit=2, code="yaml-syntax", file=COMP, line=10, message="tabs"),
    ),
    "yaml-duplicate-key": (
        sub(COMP, "size: poker", "size: poker\nsize: mini"),
        dict(exit=2, code="duplicate-key", file=COMP, line=4, key="size"),
    ),
    "yaml-empty-file": ({COMP: ""}, dict(exit=2, code="empty-file", file=COMP, line=1)),
    "yaml-only-comments": (
        {COMP: "# nothing here yet\n"},
        dict(exit=2, code="empty-file", file=COMP, line=1),
    ),
    "yaml-bom-mid-file": (
        sub(COMP, "size: poker", "size: \ufeffpoker\n\ufeff: x"),
        dict(exit=2, file=COMP, line=4),
    ),
    "yaml-not-utf8": (
        {COMP: BASE[COMP].replace("Carta", "Cart\xe1").encode("latin-1")},
        dict(exit=2, code="encoding", file=COMP, line=2),
    ),
    "yaml-python-tag": (
        sub(COMP, "size: poker", "size: !!python/object/apply:os.system [id]"),
        dict(exit=2, code="yaml-tag", file=COMP, line=3),
    ),
    "yaml-custom-tag": (
        sub(COMP, "size: poker", "size: !include sizes.yaml"),
        dict(exit=2, code="yaml-tag", file=COMP, line=3),
    ),
    "yaml-billion-laughs": (
        {
            COMP: BASE[COMP]
            + "bomb:\n"
            + "".join(
                f"  l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9) if i else 'lol'}]\n"
                for i in range(9)
            )
        },
        dict(exit=2, code="alias-bomb", file=COMP),
    ),
    "yaml-huge-string": (
        sub(COMP, "name: {en: Card, es: Carta}", "name: {en: " + "A" * 30000 + ", es: Carta}"),
        dict(exit=2, code="too-long", file=COMP, line=2),
    ),
    "type-count-text": (
        sub(COMP, "count: 2", "count: two"),
        dict(exit=2, code="schema", file=COMP, line=10, key="items[0].count"),
    ),
    "type-count-negative": (
        sub(COMP, "count: 2", "count: -2"),
        dict(exit=2, code="schema", file=COMP, line=10, key="items[0].count"),
    ),
    "type-count-billion": (
        sub(COMP, "count: 2", "count: 1000000000"),
        dict(
            exit=2,
            code="schema",
            file=COMP,
            line=10,
            key="items[0].count",
            message="less than or equal to 1000",
        ),
    ),
    "type-count-fraction": (
        sub(COMP, "count: 2", "count: 2.5"),
        dict(exit=2, code="schema", file=COMP, line=10, key="items[0].count"),
    ),
    "type-languages-not-list": (
        sub(GAME, "languages: [en, es]", "languages: en"),
        dict(exit=2, code="schema", file=GAME, line=3, key="languages"),
    ),
    "unknown-key-component": (
        sub(COMP, "layout: mini/card", "layuot: mini/card"),
        dict(
            exit=2, code="schema", file=COMP, line=4, key="layuot", message="did you mean 'layout'?"
        ),
    ),
    "unknown-key-game": (
        sub(GAME, "languages: [en, es]", "languajes: [en, es]"),
        dict(
            exit=2,
            code="schema",
            file=GAME,
            line=3,
            key="languajes",
            message="did you mean 'languages'?",
        ),
    ),
    "unknown-key-manifest": (
        sub(MANIFEST, "components:", "componets:"),
        dict(exit=2, code="schema", file=MANIFEST, line=1, key="componets"),
    ),
    "missing-required-layout": (
        sub(COMP, "layout: mini/card\n", ""),
        dict(exit=2, code="schema", file=COMP, key="layout", message="missing required key"),
    ),
    "bad-language-code": (
        sub(GAME, "languages: [en, es]", "languages: [en, esp]"),
        dict(exit=2, code="schema", file=GAME, line=3, key="languages"),
    ),
    "duplicate-language": (
        sub(GAME, "languages: [en, es]", "languages: [en, es, en]"),
        dict(exit=2, code="schema", file=GAME, line=3, key="languages"),
    ),
    "text-not-a-language": (
        sub(COMP, "name: {en: Card, es: Carta}", "name: {english: Card, es: Carta}"),
        dict(exit=2, code="schema", file=COMP, line=2, key="name"),
    ),
    "bad-item-id": (
        sub(COMP, "id: red-card", "id: Red Card!"),
        dict(exit=2, code="schema", file=COMP, line=9, key="items[0].id"),
    ),
    "duplicate-item-id": (
        sub(COMP, "id: blue-card", "id: red-card"),
        dict(exit=2, code="duplicate-id", file=COMP, line=12),
    ),
    "game-id-not-folder": (
        sub(GAME, "id: mini", "id: maxi"),
        dict(exit=2, code="schema", file=GAME, line=1, key="id"),
    ),
    "missing-layout": (
        sub(COMP, "layout: mini/card", "layout: mini/crad"),
        dict(exit=2, code="missing-layout", file=COMP, line=4, key="layout"),
    ),
    "misspelt-box-kind": (
        sub(LAYOUT, "kind: rect", "kind: rectangle"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, message="did you mean 'rect'?"),
    ),
    "box-without-kind": (
        sub(LAYOUT, "{id: band, kind: rect, ", "{id: band, "),
        dict(exit=2, code="schema", file=LAYOUT, line=3, message="no 'kind'"),
    ),
    "circular-extends": (
        {"templates/layouts/mini/base.yaml": "extends: mini/card\nboxes: []\n"},
        dict(exit=2, code="circular-extends", key="extends"),
    ),
    "self-extends": (
        {"templates/layouts/mini/base.yaml": "extends: mini/base\nboxes: []\n"},
        dict(
            exit=2,
            code="circular-extends",
            file="templates/layouts/mini/base.yaml",
            line=1,
            key="extends",
        ),
    ),
    "unknown-size": (
        sub(COMP, "size: poker", "size: pokr"),
        dict(
            exit=2,
            code="unknown-size",
            file=COMP,
            line=3,
            key="size",
            message="did you mean 'poker'?",
        ),
    ),
    "bad-length-unit": (
        sub(LAYOUT, "h: 15, bleed", "h: 15px, bleed"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, key="boxes[0].h"),
    ),
    "unknown-paper": (
        sub(GAME, "papers: [a4]", "papers: [a44]"),
        dict(
            exit=2, code="unknown-size", file=GAME, key="print.papers", message="did you mean 'a4'?"
        ),
    ),
    "component-is-directory": (
        {"content/mini/components/extra.yaml/": None},
        dict(exit=2, code="not-a-file", file="content/mini/components/extra.yaml"),
    ),
    "data-file-escapes": (
        sub(GAME, "icons:", "data_files: {secret: ../../outside.yaml}\nicons:"),
        dict(exit=2, code="path-refused", file=GAME, line=6, key="data_files.secret"),
    ),
    "icon-absolute-path": (
        sub(GAME, "icons: {star: art/star.svg}", "icons: {star: /etc/passwd}"),
        dict(exit=2, code="path-refused", file=GAME, line=6, key="icons.star"),
    ),
    "icon-missing": (
        sub(GAME, "icons: {star: art/star.svg}", "icons: {star: art/moon.svg}"),
        dict(exit=2, code="missing-art", file=GAME, line=6, key="icons.star"),
    ),
    "manifest-negative": (
        sub(MANIFEST, "cards: 3", "cards: -3"),
        dict(exit=2, code="schema", file=MANIFEST, line=2, key="components.cards"),
    ),
    "rules-duplicate-section": (
        {RULES: BASE[RULES] + "\n## 2 Juego otra vez\n\nOtra.\n"},
        dict(exit=2, code="rules-heading", file=RULES, line=11),
    ),
    "rules-unnumbered-heading": (
        {RULES: BASE[RULES].replace("## 2 Juego", "## Juego")},
        dict(exit=2, code="rules-heading", file=RULES, line=7),
    ),
    # Found while rendering: reported by pnp check as one error finding (exit 1), nothing printed.
    "art-missing": (
        sub(LAYOUT, "src: art/photo.png", "src: art/foto.png"),
        dict(
            exit=1,
            code="missing-art",
            file=LAYOUT,
            line=5,
            message="did you mean 'art/photo.png'?",
        ),
    ),
    "art-corrupt": (
        {"content/mini/art/photo.png": b"this is not a png at all"},
        dict(exit=1, code="bad-art", file="content/mini/art/photo.png"),
    ),
    "art-truncated": (
        {"content/mini/art/photo.png": png(236, 236)[:400]},
        dict(exit=1, code="bad-art", file="content/mini/art/photo.png"),
    ),
    "art-decompression-bomb": (
        {"content/mini/art/photo.png": bomb_png()},
        dict(
            exit=1, code="bad-art", file="content/mini/art/photo.png", message="decompression bomb"
        ),
    ),
    "art-outside-project": (
        sub(LAYOUT, "src: art/photo.png", "src: ../../../secret.png"),
        dict(exit=1, code="path-refused", file=LAYOUT, line=5),
    ),
    "jinja-unclosed": (
        sub(COMP, 'en: "Hits {{ power }} :star:"', 'en: "Hits {{ power :star:"'),
        dict(exit=1, code="template", file=COMP, line=7, key="data.label"),
    ),
    "jinja-undefined": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ lable }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="'lable' is undefined"),
    ),
    "jinja-sandbox-escape": (
        sub(LAYOUT, 'text: "{{ label }}"', "text: \"{{ ''.__class__.__mro__ }}\""),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="sandbox"),
    ),
    "language-without-text": (
        sub(COMP, 'es: "Golpea {{ power }} :star:"}', 'fr: "Frappe {{ power }} :star:"}'),
        dict(exit=1, code="missing-language", message="no 'es' text"),
    ),
    "unknown-icon": (
        sub(COMP, 'en: "Hits {{ power }} :star:"', 'en: "Hits {{ power }} :moon:"'),
        dict(exit=1, code="unknown-icon", file=LAYOUT, line=4),
    ),
    # Round two (issue 16): code execution, escapes, budgets, NaN, and what print used to find.
    "art-eps-named-png": (
        {"content/mini/art/photo.png": EPS},
        dict(exit=1, code="bad-art", file="content/mini/art/photo.png", message="not a PNG file"),
    ),
    "art-png-named-jpg": (
        {
            **sub(LAYOUT, "src: art/photo.png", "src: art/photo.jpg"),
            "content/mini/art/photo.jpg": png(64, 64),
        },
        dict(exit=1, code="bad-art", file="content/mini/art/photo.jpg", message="not a JPEG file"),
    ),
    "rules-symlink-outside": (
        {},
        dict(
            exit=2,
            code="path-refused",
            file=RULES,
            message="resolves outside the project",
            links={RULES: "@outside"},
        ),
    ),
    "component-symlink-outside": (
        {},
        dict(
            exit=2,
            code="path-refused",
            file="content/mini/components/extra.yaml",
            links={"content/mini/components/extra.yaml": "@outside"},
        ),
    ),
    "art-symlink-dev-zero": (
        {},
        dict(
            exit=1,
            code="path-refused",
            file=LAYOUT,
            line=5,
            links={"content/mini/art/photo.png": "/dev/zero"},
        ),
    ),
    "art-fifo": (
        {},
        dict(
            exit=1,
            code="not-a-file",
            file="content/mini/art/photo.png",
            fifos=["content/mini/art/photo.png"],
        ),
    ),
    "text-size-huge": (
        sub(LAYOUT, "size: 12pt", "size: 1e20"),
        dict(exit=2, code="schema", file=LAYOUT, line=4, key="boxes[1].size"),
    ),
    "text-size-zero": (
        sub(LAYOUT, "size: 12pt", "size: 0pt"),
        dict(
            exit=2, code="schema", file=LAYOUT, line=4, key="boxes[1].size", message="out of range"
        ),
    ),
    "rotate-nan": (
        sub(LAYOUT, "bleed: true,", "bleed: true, rotate: .nan,"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, key="boxes[0].rotate", message="finite"),
    ),
    "dash-nan": (
        sub(LAYOUT, "bleed: true,", "bleed: true, dash: [.nan, 1],"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, key="boxes[0].dash[0]"),
    ),
    "polygon-viewbox-zero": (
        sub(LAYOUT, "kind: rect,", "kind: polygon, points: [[0, 0], [1, 1]], viewbox: [0, 0],"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, key="boxes[0].viewbox[0]"),
    ),
    "card-size-tiny": (
        sub(COMP, "size: poker", "size: {w: 0.05, h: 88}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="size.w", message="out of range"),
    ),
    "card-size-negative": (
        sub(COMP, "size: poker", "size: {w: -63, h: 88}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="size.w"),
    ),
    "board-ten-km": (
        sub(COMP, "size: poker", "size: {w: 10000000, h: 88}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="size.w"),
    ),
    "bleed-larger-than-card": (
        sub(COMP, "size: poker", "size: {w: 10, h: 10}\nprint: {bleed: 6}"),
        dict(
            exit=2, code="limit", file=COMP, line=3, key="size", message="bleed 6 mm is too large"
        ),
    ),
    "papers-twice": (
        sub(GAME, "papers: [a4]", "papers: [a4, a4, letter, letter]"),
        dict(exit=2, code="schema", file=GAME, line=7, key="print.papers", message="listed twice"),
    ),
    "overlap-negative": (
        sub(GAME, "papers: [a4]", "papers: [a4], overlap: -500"),
        dict(exit=2, code="schema", file=GAME, line=7, key="print.overlap"),
    ),
    "back-offset-huge": (
        sub(GAME, "papers: [a4]", "papers: [a4], back_offset: {x: 1e308, y: 0}"),
        dict(exit=2, code="schema", file=GAME, line=7, key="print.back_offset.x"),
    ),
    "bilingual-undeclared-language": (
        sub(
            GAME,
            "print: {papers: [a4]}",
            "print: {papers: [a4]}\nrulebook: {bilingual: [[en, fr]]}",
        ),
        dict(exit=2, code="schema", file=GAME, line=8, key="rulebook", message="'fr'"),
    ),
    "count-5000-digits": (
        sub(COMP, "count: 2", "count: " + "9" * 5000),
        dict(exit=2, code="limit", file=COMP, line=10),
    ),
    "heading-5000-digits": (
        {RULES: BASE[RULES].replace("## 2 Juego", "## " + "9" * 5000 + " Juego")},
        dict(exit=2, code="rules-heading", file=RULES, line=7),
    ),
    "headings-over-limit": (
        {RULES: BASE[RULES] + "".join(f"\n## {n} S\n" for n in range(3, 2_500))},
        dict(exit=2, code="limit", file=RULES, message="numbered headings"),
    ),
    "matrix-100-million": (
        sub(
            COMP,
            "items:",
            "matrix:\n  id: 'm{{ a }}-{{ b }}-{{ c }}-{{ d }}'\n  over:\n"
            + "".join(f"    {k}: [{', '.join(str(i) for i in range(100))}]\n" for k in "abcd")
            + "items:",
        ),
        dict(exit=2, code="limit", file=COMP, key="matrix.over", message="number of items"),
    ),
    "matrix-hangul-id": (
        sub(COMP, "items:", "matrix: {id: '{{ n }}', over: {n: [" + "가" * 70 + "]}}\nitems:"),
        dict(exit=2, code="schema", file=COMP, key="matrix.id"),
    ),
    "jinja-nested-range": (
        sub(
            LAYOUT,
            'text: "{{ label }}"',
            'text: "{% for a in range(1000) %}{% for b in range(1000) %}'
            '{% for c in range(1000) %}x{% endfor %}{% endfor %}{% endfor %}"',
        ),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="loop iterations"),
    ),
    "jinja-power-tower": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ 9 ** 64 ** 64 }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="power"),
    ),
    "jinja-format-width": (
        sub(LAYOUT, 'text: "{{ label }}"', "text: \"{{ '%0999999999d' % 1 }}\""),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="limit"),
    ),
    "jinja-list-repeat": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ ([0] * 300000000) | length }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="repetition"),
    ),
    "jinja-indent-width": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ label | indent(999999999) }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="indent"),
    ),
    "jinja-center-width": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ label.center(999999999) }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="center"),
    ),
    "jinja-macro-recursion": (
        sub(
            LAYOUT, 'text: "{{ label }}"', 'text: "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"'
        ),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="recursion"),
    ),
    "jinja-nested-parentheses": (
        sub(LAYOUT, 'text: "{{ label }}"', 'text: "{{ ' + "(" * 3000 + "1" + ")" * 3000 + ' }}"'),
        dict(exit=1, code="template", file=LAYOUT, line=4, message="too deeply"),
    ),
    "jinja-fill-recursion": (
        {
            **sub(LAYOUT, 'text: "{{ label }}"', "text: \"{{ t | fill({'t': t}) }}\""),
            **{
                COMP: BASE[COMP].replace(
                    "data:\n  label:", "data:\n  t: \"{{ t | fill({'t': t}) }}\"\n  label:"
                )
            },
        },
        dict(exit=1, code="template", file=COMP, line=7, key="data.t", message="fill() nested"),
    ),
    "repeat-nested-bomb": (
        {
            **sub(
                LAYOUT,
                "  - {id: mark,",
                "  - {id: grid, kind: repeat, over: '[0] * 30', layout: mini/cell1}\n"
                "  - {id: mark,",
            ),
            "templates/layouts/mini/cell1.yaml": (
                "boxes:\n  - {kind: repeat, over: '[0] * 30', layout: mini/cell2}\n"
            ),
            "templates/layouts/mini/cell2.yaml": (
                "boxes:\n  - {kind: repeat, over: '[0] * 30', layout: mini/base}\n"
            ),
        },
        dict(
            exit=1,
            code="limit",
            file="templates/layouts/mini/cell1.yaml",
            line=2,
            message="nested repeats multiplied",
        ),
    ),
    "svg-use-bomb": (
        {"content/mini/art/star.svg": SVG_BOMB},
        dict(exit=1, code="limit", file="content/mini/art/star.svg", message="<use> expanded"),
    ),
    "rulebook-image-absolute": (
        {RULES: BASE[RULES].replace("Juega una carta.", "![x](/etc/passwd)")},
        dict(exit=1, code="path-refused", file=RULES, line=9, message="absolute"),
    ),
    "rulebook-image-dotdot": (
        {RULES: BASE[RULES].replace("Juega una carta.", "![x](../../../secret.png)")},
        dict(exit=1, code="path-refused", file=RULES, line=9),
    ),
    "rulebook-image-http": (
        {RULES: BASE[RULES].replace("Juega una carta.", "![x](http://example.com/x.png)")},
        dict(exit=1, code="path-refused", file=RULES, line=9, message="URL"),
    ),
    "rulebook-figure-missing-item": (
        {RULES: BASE[RULES].replace("Juega una carta.", "{{ figure('cards', 'green-card') }}")},
        dict(exit=1, code="rules-template", file=RULES, line=9, message="no item 'green-card'"),
    ),
    "rulebook-table-wrong-column": (
        {RULES: BASE[RULES].replace("Juega una carta.", "{{ table(items('cards'), ['powr']) }}")},
        dict(exit=1, code="rules-template", file=RULES, line=9, message="'powr'"),
    ),
    "rulebook-figure-width": (
        {
            RULES: BASE[RULES].replace(
                "Juega una carta.", "{{ figure('cards', 'red-card', width='900mm') }}"
            )
        },
        dict(exit=1, code="rules-template", file=RULES, line=9, message="figure width"),
    ),
    "rulebook-macro-recursion": (
        {
            RULES: BASE[RULES].replace(
                "Juega una carta.", "{% macro f() %}{{ f() }}{% endmacro %}{{ f() }}"
            )
        },
        dict(exit=1, code="rules-template", file=RULES, line=9, message="recursion"),
    ),
    # Round three (issue 29): names that become file names, geometry, paths.
    "paper-name-escapes": (
        {
            **sub(GAME, "papers: [a4]", "papers: ['x/../../victim/pwned']"),
            "templates/paper.yaml": "a4: {w: 210mm, h: 297mm}\n'x/../../victim/pwned': "
            "{w: 210mm, h: 297mm}\n",
        },
        dict(exit=2, code="bad-name", file="templates/paper.yaml", line=2, message="file name"),
    ),
    "paper-size-zero": (
        {"templates/paper.yaml": "a4: {w: 0mm, h: 297mm}\n"},
        dict(exit=2, file="templates/paper.yaml", line=1, key="a4", message="under 5 mm"),
    ),
    "preset-name-escapes": (
        {
            **sub(GAME, "papers: [a4]", "papers: [a4], exports: [{format: png, preset: '../pwn'}]"),
            "templates/printers.yaml": PRINTERS.replace("shop:", "'../pwn':"),
        },
        dict(exit=1, code="bad-name", file="templates/printers.yaml", message="file name"),
    ),
    "preset-dpi-zero": (
        {
            **sub(GAME, "papers: [a4]", "papers: [a4], exports: [{format: png, preset: shop}]"),
            "templates/printers.yaml": PRINTERS.replace("dpi: 300", "dpi: 0"),
        },
        dict(exit=1, code="schema", file="templates/printers.yaml", message="dpi 0"),
    ),
    "preset-px-huge": (
        {
            **sub(GAME, "papers: [a4]", "papers: [a4], exports: [{format: png, preset: shop}]"),
            "templates/printers.yaml": PRINTERS.replace("[816, 1110]", "[200000, 1110]"),
        },
        dict(exit=1, code="schema", file="templates/printers.yaml", message="px 200000"),
    ),
    "preset-without-sizes": (
        {
            **sub(GAME, "papers: [a4]", "papers: [a4], exports: [{format: png, preset: shop}]"),
            "templates/printers.yaml": "shop: {name: Shop, dpi: 300}\n",
        },
        dict(exit=1, code="schema", file="templates/printers.yaml", message="sizes"),
    ),
    "language-code-newline": (
        sub(GAME, "languages: [en, es]", 'languages: [en, "es\\n"]'),
        dict(exit=2, code="schema", file=GAME, line=3, key="languages"),
    ),
    "shape-diameter-negative": (
        sub(COMP, "size: poker", "shape: {kind: circle, diameter: -20mm}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="shape.diameter"),
    ),
    "shape-diameter-tiny": (
        sub(COMP, "size: poker", "shape: {kind: circle, diameter: 0.001mm}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="shape.diameter", message="range"),
    ),
    "shape-across-flats-zero": (
        sub(COMP, "size: poker", "shape: {kind: hexagon, across_flats: 0}"),
        dict(exit=2, code="schema", file=COMP, line=3, key="shape.across_flats"),
    ),
    "shape-radius-negative": (
        sub(COMP, "size: poker", "size: poker\nshape: {kind: rect, radius: -3mm}"),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape.radius"),
    ),
    "shape-point-1e300": (
        sub(
            COMP,
            "size: poker",
            "size: poker\nshape: {kind: polygon, points: [[0, 0], [1e300, 0], [0, 100]]}",
        ),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape.points[1][0]"),
    ),
    "shape-viewbox-zero": (
        sub(
            COMP,
            "size: poker",
            "size: poker\nshape: {kind: polygon, points: [[0, 0], [1, 0], [0, 1]], "
            "viewbox: [0, 1]}",
        ),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape.viewbox[0]"),
    ),
    "shape-self-crossing": (
        sub(
            COMP,
            "size: poker",
            "size: poker\nshape: {kind: polygon, points: [[0, 0], [100, 100], [100, 0], [0, 60]]}",
        ),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape", message="crosses itself"),
    ),
    "shape-degenerate": (
        sub(
            COMP,
            "size: poker",
            "size: poker\nshape: {kind: polygon, points: [[0, 0], [50, 50], [100, 100]]}",
        ),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape", message="no area"),
    ),
    "shape-too-many-points": (
        sub(
            COMP,
            "size: poker",
            "size: poker\nshape: {kind: polygon, points: ["
            + ", ".join(
                f"[{50 + 50 * math.cos(k * math.tau / 3000):.4f}, "
                f"{50 + 50 * math.sin(k * math.tau / 3000):.4f}]"
                for k in range(3000)
            )
            + "]}",
        ),
        dict(exit=2, code="schema", file=COMP, line=4, key="shape.points"),
    ),
    "polygon-box-point-1e300": (
        sub(LAYOUT, "kind: rect,", "kind: polygon, points: [[0, 0], [1e300, 1], [0, 1]],"),
        dict(exit=2, code="schema", file=LAYOUT, line=3, key="boxes[0].points[1][0]"),
    ),
    "component-name-missing-language": (
        sub(COMP, "name: {en: Card, es: Carta}", "name: {en: Card, fr: Carte}"),
        dict(
            exit=1, code="missing-language", file=COMP, line=2, key="name", message="no 'es' text"
        ),
    ),
    # A data template's error is located at the key it is written under, not at the item.
    "jinja-unclosed-item-data": (
        sub(
            COMP, "data: {colour: blue, power: 3}", 'data: {colour: blue, power: 3, label: "{{ x"}'
        ),
        dict(exit=1, code="template", file=COMP, line=13, key="data.label"),
    ),
    "jinja-unclosed-one-language": (
        sub(
            COMP,
            'label: {en: "Hits {{ power }} :star:", es: "Golpea {{ power }} :star:"}',
            'label:\n    en: "Hits {{ power }} :star:"\n    es: "Golpea {{ power :star:"',
        ),
        dict(exit=1, code="template", file=COMP, line=9, key="data.label", message="; es)"),
    ),
    # A translated name missing in one language: at its key, naming that language.
    "game-title-missing-language": (
        sub(GAME, "title: {en: Mini, es: Mini}", "title: {en: Mini}"),
        dict(exit=1, code="missing-language", file=GAME, line=2, key="title", message="no 'es'"),
    ),
    "data-text-missing-language": (
        sub(COMP, ', es: "Golpea {{ power }} :star:"', ""),
        dict(
            exit=1, code="missing-language", file=COMP, line=7, key="data.label", message="no 'es'"
        ),
    ),
    "item-key-of-component": (
        sub(COMP, "  - id: blue-card\n", "  - id: blue-card\n    name: {en: Blue, es: Azul}\n"),
        dict(
            exit=2,
            code="schema",
            file=COMP,
            line=13,
            key="items[1].name",
            message="under its data:",
        ),
    ),
    # A spreadsheet cell gets the translation checks a YAML string gets, located at its cell.
    "sheet-translation-number": (
        {
            **sub(
                COMP,
                COMP_ITEMS,
                "items: cards.csv\n",
            ),
            "content/mini/components/cards.csv": (
                "id,count,colour,power,text.en,text.es\n"
                "red-card,2,red,1,Hits 6,Golpea 7\n"
                "blue-card,1,blue,3,Hits 2,Golpea 2\n"
            ),
        },
        dict(
            exit=1,
            code="translation-number",
            file="content/mini/components/cards.csv",
            cell="F2",
            key="components/cards.csv:[red-card].data.text",
            message="en says 6 where es says 7",
        ),
    ),
    # A name printed on labels and in the guide: empty, or Jinja that would print as written.
    "component-name-empty-translation": (
        sub(COMP, "name: {en: Card, es: Carta}", "name: {en: Card, es: ''}"),
        dict(
            exit=1,
            code="empty-translation",
            file=COMP,
            line=2,
            key="name",
            message="'es' text is empty",
        ),
    ),
    "component-name-broken-template": (
        sub(COMP, "name: {en: Card, es: Carta}", "name:\n  en: Card\n  es: '{{ x'"),
        dict(
            exit=1,
            code="template",
            file=COMP,
            line=4,
            key="name",
            message="'es' text is a broken template",
        ),
    ),
    "game-title-empty-translation": (
        sub(GAME, "title: {en: Mini, es: Mini}", "title: {en: Mini, es: '  '}"),
        dict(
            exit=1,
            code="empty-translation",
            file=GAME,
            line=2,
            key="title",
            message="'es' text is empty",
        ),
    ),
    # A card text left empty in one language prints nothing there.
    "data-text-empty-translation": (
        sub(
            COMP,
            'label: {en: "Hits {{ power }} :star:", es: "Golpea {{ power }} :star:"}',
            'label: {en: "Hits hard", es: ""}',
        ),
        dict(
            exit=1,
            code="empty-translation",
            file=COMP,
            line=7,
            key="components/cards.yaml:data.label",
            message="the es text is empty",
        ),
    ),
    # The game's description is the rulebook cover's subtitle, printed as written.
    "game-description-broken-template": (
        sub(
            GAME,
            "title: {en: Mini, es: Mini}",
            "title: {en: Mini, es: Mini}\ndescription:\n  en: A tiny game\n  es: '{{ x'",
        ),
        dict(
            exit=1,
            code="template",
            file=GAME,
            line=5,
            key="description",
            message="'es' text is a broken template",
        ),
    ),
}


def write_case(number: int, name: str, files: dict, expected: dict) -> None:
    folder = HERE / f"{number:02d}-{name}"
    folder.mkdir()
    for rel, data in files.items():
        target = folder / "tree" / rel
        if data is None:  # a directory where a file should be
            target.mkdir(parents=True, exist_ok=True)
            (target / ".keep").write_text("")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    (folder / "expected.yaml").write_text(
        yaml.safe_dump(expected, allow_unicode=True, sort_keys=False)
    )


def main() -> None:
    base = HERE / "_base"
    shutil.rmtree(base, ignore_errors=True)
    for rel, text in BASE.items():
        (base / rel).parent.mkdir(parents=True, exist_ok=True)
        (base / rel).write_text(text)
    (base / "content/mini/art/photo.png").write_bytes(png(236, 236))
    for old in HERE.iterdir():
        if old.is_dir() and old.name[:2].isdigit():
            shutil.rmtree(old)
    for number, (name, (files, expected)) in enumerate(CASES.items(), start=1):
        write_case(number, name, files, expected)
    print(f"{len(CASES)} cases")


if __name__ == "__main__":
    main()

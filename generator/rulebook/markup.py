"""A designer's Markdown as safe HTML, for the rulebook.

markdown-it-py (CommonMark plus tables and strikethrough) with raw HTML switched off: a `<img
src=...>` typed in a rules file is printed as text, never parsed. Besides Markdown, text may use
the game's icons as `:name:`. Images (`![alt](art/setup.png)`) must be files inside the game
folder; the caller resolves them (`image_url`) and a refused path is a located ContentError.

`keep_words` wraps every word of a script whose words are kept whole (templates/languages/
scripts.yaml: `keep_words: true`, Hangul) in a no-wrap span: WeasyPrint ignores
`word-break: keep-all`, so without it a Korean line may break between any two syllables.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.rules_inline import StateInline

from generator.errors import ContentError
from generator.load import languages

ICON = re.compile(r":([a-z][a-z0-9_-]*):")


def _kept() -> re.Pattern[str]:
    """A letter of a script whose words are kept whole (scripts.yaml, cached there)."""
    return languages.letters((("keep_words", True),))


def escape(text) -> str:
    return html.escape(str(text), quote=True)


def _icon_rule(state: StateInline, silent: bool) -> bool:
    """`:name:` for a name the game declares as an icon; any other `:word:` stays text."""
    if state.src[state.pos] != ":":
        return False
    match = ICON.match(state.src, state.pos)
    icons = state.env.get("icons") or {}
    if not match or match.group(1) not in icons:
        return False
    if not silent:
        token = state.push("pnp_icon", "img", 0)
        token.meta = {"name": match.group(1)}
    state.pos = match.end()
    return True


def _render_icon(self, tokens, idx, options, env) -> str:
    name = tokens[idx].meta["name"]
    return f'<img class="icon" src="{escape(env["icons"][name])}" alt=":{escape(name)}:">'


def _render_image(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    alt = self.renderInlineAsText(token.children or [], options, env)
    return f'<img class="picture" src="{escape(token.attrGet("src"))}" alt="{escape(alt)}">'


def _render_link_open(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    href = token.attrGet("href") or ""
    anchors = env.get("anchors") or {}
    if href.startswith("#") and href[1:] in anchors:  # [see 3.2](#3.2) links to the section
        href = "#" + anchors[href[1:]]
    return f'<a href="{escape(href)}">'


def _resolve_images(state) -> None:
    """Every image must resolve through env['image_url'] (game folder only); locate refusals."""
    resolve: Callable[[str], str] | None = state.env.get("image_url")
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        for token in block.children:
            if token.type != "image":
                continue
            src = token.attrGet("src") or ""
            try:
                if resolve is None:
                    raise ContentError("images are not allowed here", code="path-refused")
                token.attrSet("src", resolve(src))
            except ContentError as exc:
                line = state.env.get("first_line", 1) + (block.map[0] if block.map else 0)
                exc.located(state.env.get("file"), line, state.env.get("key"))
                raise


def _mark_lines(state) -> None:
    """With env['mark_lines'], each paragraph, list item, heading and table cell carries the
    line of the rules file it comes from (`data-line`, a cell `data-cell="line:column"`), so
    the laid-out page can say where a translator's segment landed (`pnp i18n export
    --context`). Off for a print: the HTML is then as it always was."""
    if not state.env.get("mark_lines"):
        return
    first = state.env.get("first_line", 1)
    row: int | None = None
    column = 0
    for token in state.tokens:
        if token.type == "tr_open" and token.map:
            row, column = first + token.map[0], 0
        elif token.type in ("th_open", "td_open") and row is not None:
            column += 1
            token.attrSet("data-cell", f"{row}:{column}")
        elif token.map and token.type in ("paragraph_open", "list_item_open", "heading_open"):
            token.attrSet("data-line", str(first + token.map[0]))


def parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.inline.ruler.before("emphasis", "pnp_icon", _icon_rule)
    md.core.ruler.push("pnp_images", _resolve_images)
    md.core.ruler.push("pnp_lines", _mark_lines)
    md.add_render_rule("pnp_icon", _render_icon)
    md.add_render_rule("image", _render_image)
    md.add_render_rule("link_open", _render_link_open)
    return md


_MD: MarkdownIt | None = None


def _md() -> MarkdownIt:
    global _MD
    if _MD is None:
        _MD = parser()
    return _MD


def to_html(text: str, env: dict) -> str:
    """Block Markdown to HTML.

    env: icons {name: url}, image_url(src) -> url, anchors, file, first_line."""
    return _md().render(text, env)


def inline_html(text: str, env: dict) -> str:
    """One line of Markdown (a title, a table cell) to inline HTML."""
    return _md().renderInline(str(text), env)


# ---------------------------------------------------------------- Korean words

_INLINE = {"strong", "em", "b", "i", "a", "code", "span", "s", "del", "sup", "sub", "small", "mark"}
_VOID_INLINE = {"img"}
_TAG = re.compile(r"(<[^>]*>)")
_TAG_NAME = re.compile(r"</?\s*([a-zA-Z0-9]+)")
_SPACE = re.compile(r"(\s+)")
WORD_OPEN = '<span class="kw">'


def _parse(fragment: str) -> list[tuple[str, str, str]]:
    """(kind, text, name): kind is text, open, close, void (inline img) or block (a boundary)."""
    out = []
    for piece in _TAG.split(fragment):
        if not piece:
            continue
        if piece.startswith("<") and piece.endswith(">"):
            m = _TAG_NAME.match(piece)
            name = m.group(1).lower() if m else ""
            if name in _VOID_INLINE:
                out.append(("void", piece, name))
            elif name in _INLINE and not piece.endswith("/>"):
                out.append(("close" if piece.startswith("</") else "open", piece, name))
            else:
                out.append(("block", piece, name))
        else:
            for part in _SPACE.split(piece):
                if part:
                    out.append(("space" if part.isspace() else "text", part, ""))
    return out


def keep_words(fragment: str) -> str:
    """Wrap each word that holds Hangul in a no-wrap span, across inline markup.

    A word is a run without white space, and it may cross inline tags (`**보상**을` is one
    word). When a word leaves an element opened before it, or ends inside one opened within
    it, those elements are closed and reopened around the span so the HTML stays nested.
    """
    kept = _kept()
    if not kept.search(fragment):
        return fragment  # no word to wrap: the pieces would join back to the same text
    pieces = _parse(fragment)
    out: list[str] = []
    stack: list[tuple[str, str]] = []  # open inline elements: (name, opening tag)
    i, n = 0, len(pieces)
    while i < n:
        kind, text, name = pieces[i]
        if kind in ("space", "block", "close"):
            if kind == "close" and stack and stack[-1][0] == name:
                stack.pop()
            elif kind == "block":
                stack.clear()  # inline elements never cross block boundaries in our HTML
            out.append(text)
            i += 1
            continue
        # A word: a run up to the next space or block tag that holds text. Its leading
        # opening tags are inside it; its trailing tags are outside. Closing tags within it
        # may end elements opened before it.
        j = i
        while j < n and pieces[j][0] in ("text", "void", "open", "close"):
            j += 1
        end = j
        while end > i and pieces[end - 1][0] in ("open", "close"):
            end -= 1
        if end == i:  # only tags before the next space
            for k, t, nm in pieces[i:j]:
                if k == "open":
                    stack.append((nm, t))
                elif stack:
                    stack.pop()
                out.append(t)
            i = j
            continue
        depth = low = len(stack)
        has_hangul = False
        for k, t, _ in pieces[i:end]:
            if k == "text" and kept.search(t):
                has_hangul = True
            elif k == "open":
                depth += 1
            elif k == "close":
                depth -= 1
                low = min(low, depth)
        if not has_hangul:
            _replay(pieces[i:end], stack, out)
            i = end
            continue
        base = max(0, low)
        outer = stack[base:]
        out.extend(f"</{nm}>" for nm, _ in reversed(outer))
        out.append(WORD_OPEN)
        out.extend(t for _, t in outer)
        _replay(pieces[i:end], stack, out)
        inner = stack[base:]
        out.extend(f"</{nm}>" for nm, _ in reversed(inner))
        out.append("</span>")
        out.extend(t for _, t in inner)
        i = end
    return "".join(out)


def _replay(pieces, stack: list, out: list) -> None:
    """Copy tag and text pieces to `out`, keeping `stack` of the open tags up to date."""
    for kind, text, name in pieces:
        if kind == "open":
            stack.append((name, text))
        elif kind == "close" and stack:
            stack.pop()
        out.append(text)

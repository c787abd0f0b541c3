"""Rulebooks: content/<game>/rules/<lang>.md (Markdown + Jinja) to HTML to PDF with WeasyPrint.

    render_rulebook(content, lang, paper, out_path) -> {"pages": N, "sections": [...], ...}
    render_bilingual(content, lang_a, lang_b, paper, out_path) -> the same
    rulebook_html(content, lang, paper) / bilingual_html(...) -> the final HTML

Stages, each with one job:
- sources (`rules_source.parse_rules`): numbered sections, checked for gaps and, across
  languages, for the same numbers as the game's first language (the alignment keys);
- each section's Jinja blocks run in the sandbox over the game's data (`rulebook_data`);
- Markdown becomes escaped HTML (`markup`); helper HTML (tables, figures) comes back in;
- Korean words are wrapped so they never break (WeasyPrint ignores `word-break: keep-all`);
- the page template (`templates/rulebook/*.html` and `rulebook.css`) assembles cover, table of
  contents and sections, and WeasyPrint lays it out. Its URL fetcher refuses the network and
  every file outside the game folder, templates/, the fonts and the picture cache.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from jinja2 import FileSystemLoader, TemplateError
from jinja2.sandbox import SandboxedEnvironment, SecurityError
from markupsafe import Markup

from generator import fsio
from generator.cache.template_cache import CachedCompile
from generator.errors import ContentError, rel
from generator.i18n import drafts
from generator.i18n.segments import call_strings, quote
from generator.limits import LIMITS
from generator.load import languages, templating
from generator.load.content import GameContent
from generator.load.glossary import load_glossary
from generator.load.project import inside, read_bytes
from generator.load.rule_notes import check_sections, load_notes
from generator.load.rules_source import RulesSource, Section, parse_rules, rules_files
from generator.load.sizes import paper_size, papers
from generator.load.yamlload import read_text
from generator.render import art
from generator.render.fonts import fontbook
from generator.rulebook import markup
from generator.rulebook.data import Blocks, RulesData, ui
from generator.rulebook.figures import MIN_TEXT_PT, FaceCache, world_digest
from generator.units import MM

MAX_SECTION_OUTPUT = 1_000_000  # characters of Markdown a section's Jinja may produce
INK = "#1d1d1b"
IMAGE_TYPES = (".png", ".jpg", ".jpeg", ".svg")


# ---------------------------------------------------------------- URL fetcher


class _Guard:
    """Which URLs a rulebook may read: files under a few folders, nothing else."""

    def __init__(self, allowed: list[Path]):
        self.allowed = [Path(a).resolve() for a in allowed]
        self.fetched: list[str] = []
        self.refused: list[ContentError] = []

    def check(self, url: str) -> Path:
        try:
            parts = urlsplit(url)
            if parts.scheme != "file":
                raise ContentError(
                    f"rulebook refused to fetch '{url[:120]}': only local files are allowed",
                    code="url-refused",
                    hint="put the file in the game folder; network URLs are never fetched",
                )
            path = Path(unquote(parts.path)).resolve()
            if not any(path == a or a in path.parents for a in self.allowed):
                raise ContentError(
                    f"rulebook refused to read '{path}': outside the game folder, "
                    "templates/ and the fonts",
                    code="url-refused",
                    hint="rulebooks may only use files of their game and templates/",
                )
            if not path.is_file():
                raise ContentError(f"rulebook file not found: '{path}'", code="missing-file")
        except ContentError as exc:
            self.refused.append(exc)
            raise
        self.fetched.append(str(path))
        return path


def _read(path: Path) -> bytes:
    """What WeasyPrint fetches: a regular file under the size cap (never a FIFO or a device)."""
    return read_bytes(path, LIMITS.files.art_bytes, "rulebook file")


def url_fetcher(content: GameContent, cache_dir: Path | None = None):
    """The fetcher WeasyPrint uses for one game's rulebooks; `fetcher(url)` raises ContentError
    for any network URL and any file outside the game folder, templates/, the fonts and the
    picture cache. `fetcher.guard.refused` lists what was refused."""
    project = content.project
    guard = _Guard(
        [
            content.dir,
            *project.template_dirs(),
            project.fonts,
            cache_dir or default_cache(content),
        ]
    )
    try:
        from weasyprint.urls import URLFetcher, URLFetcherResponse
    except ImportError:  # WeasyPrint before the URLFetcher class: a function returning a dict
        import mimetypes

        class LegacyFetcher:
            def __init__(self, guard: _Guard) -> None:
                self.guard = guard

            def __call__(self, url: str) -> dict:
                path = self.guard.check(url)
                return {
                    "string": _read(path),
                    "redirected_url": path.as_uri(),
                    "mime_type": mimetypes.guess_type(path.name)[0],
                }

        return LegacyFetcher(guard)

    class RulebookFetcher(URLFetcher):
        def fetch(self, url, headers=None):
            path = guard.check(url)
            return URLFetcherResponse(path.as_uri(), _read(path))

    fetcher = RulebookFetcher(fail_on_errors=True)
    fetcher.guard = guard
    return fetcher


def default_cache(content: GameContent) -> Path:
    return content.project.output / ".pnp-cache" / "rulebook"


# ---------------------------------------------------------------- sources


@dataclass
class Source:
    rules: RulesSource
    lines: list[str]

    @property
    def path(self) -> Path:
        return self.rules.path

    def first_line(self, heading_line: int) -> int:
        """The line where a body that follows `heading_line` starts (blank lines skipped)."""
        n = heading_line
        while n < len(self.lines) and not self.lines[n].strip():
            n += 1
        return n + 1


def load_source(content: GameContent, lang: str, check: bool = True) -> Source:
    files = rules_files(content.dir)
    if lang not in files:
        raise ContentError(
            f"no rulebook for '{lang}'",
            content.dir / "rules" / f"{lang}.md",
            code="missing-rules",
            hint="rulebooks: " + (", ".join(sorted(files)) or "none") + f"; write rules/{lang}.md",
        )
    path = files[lang]
    rules = parse_rules(path, lang)

    source = Source(rules, read_text(path).splitlines())
    if check:
        check_numbering(source.rules)
    return source


def check_numbering(rules: RulesSource) -> None:
    """Numbers go up, and no number is skipped: 3.2 needs 3.1 before it and 3 above it."""
    seen: set[tuple[int, ...]] = set()
    previous: Section | None = None
    for s in rules.sections:
        key = s.key
        if previous is not None and key <= previous.key:
            raise ContentError(
                f"section {s.number} comes after section {previous.number}",
                rules.path,
                s.line,
                f"§{s.number}",
                code="rules-numbering",
                hint="number the sections in order",
            )
        parent = key[:-1]
        if parent and parent not in seen:
            missing = ".".join(map(str, parent))
            raise ContentError(
                f"section {s.number} has no section {missing} above it",
                rules.path,
                s.line,
                f"§{s.number}",
                code="rules-numbering",
                hint=f"add a heading '{'#' * max(2, s.level - 1)} {missing} ...' before it",
            )
        if key[-1] > 1 and (*key[:-1], key[-1] - 1) not in seen:
            missing = ".".join(map(str, (*key[:-1], key[-1] - 1)))
            raise ContentError(
                f"section {missing} is missing before section {s.number}",
                rules.path,
                s.line,
                f"§{s.number}",
                code="rules-numbering",
                hint="sections are numbered without gaps; renumber or add the section",
            )
        seen.add(key)
        previous = s


def check_alignment(reference: RulesSource, other: RulesSource) -> None:
    """`other` must have exactly the section numbers of `reference`, in the same order."""
    ref = {s.number: s for s in reference.sections}
    mine = {s.number: s for s in other.sections}
    for index, s in enumerate(reference.sections):
        if s.number not in mine:
            following = next(
                (mine[n.number] for n in reference.sections[index + 1 :] if n.number in mine), None
            )
            raise ContentError(
                f"section {s.number} ('{s.title}' in {reference.lang}) is missing in {other.lang}",
                other.path,
                following.line if following else None,
                f"§{s.number}",
                code="rules-missing-section",
                hint=f"add '{'#' * s.level} {s.number} ...' (see {rel(reference.path)}:{s.line}); "
                "numbered headings pair the languages",
            )
    for s in other.sections:
        if s.number not in ref:
            raise ContentError(
                f"section {s.number} is not in the {reference.lang} rulebook",
                other.path,
                s.line,
                f"§{s.number}",
                code="rules-extra-section",
                hint=f"number it as in {rel(reference.path)}, or add it there too",
            )


# ---------------------------------------------------------------- one language, as HTML pieces


@dataclass
class SectionHtml:
    number: str
    title: Markup
    depth: int
    anchor: str
    body: Markup

    @property
    def lead(self) -> Markup:
        """The body's first paragraph or list item: kept with the heading in the bilingual
        edition, so neither column's heading can end a page alone."""
        return split_lead(self.body)[0]

    @property
    def rest(self) -> Markup:
        return split_lead(self.body)[1]


_LI = re.compile(r"<li[\s>]|</li>")


def split_lead(html: str) -> tuple[Markup, Markup]:
    """(first block, the rest) of a section body: a leading <p>, or the first item of a
    leading list (the list is split in two, numbering kept). Anything else has no lead."""
    body = str(html).lstrip()
    if body.startswith("<p>"):
        end = body.find("</p>")
        if end > 0:
            return Markup(body[: end + 4]), Markup(body[end + 4 :])
    for tag in ("ul", "ol"):
        match = re.match(rf"<{tag}(\s[^>]*)?>", body)
        if not match:
            continue
        depth, position = 0, match.end()
        for m in _LI.finditer(body, position):
            depth += 1 if m.group(0) != "</li>" else -1
            if depth == 0:
                cut = m.end()
                start = re.search(r'start="(\d+)"', match.group(0))
                first_number = int(start.group(1)) if start else 1
                rest_open = f'<{tag} start="{first_number + 1}">' if tag == "ol" else match.group(0)
                lead = body[:cut] + f"</{tag}>"
                rest = body[cut:].lstrip()
                if rest.startswith(f"</{tag}>"):  # a one-item list
                    return Markup(lead), Markup(rest[len(tag) + 3 :])
                return (
                    Markup(lead.replace(f"<{tag}", f'<{tag} class="lead"', 1)),
                    Markup(rest_open.replace(f"<{tag}", f'<{tag} class="rest"', 1) + rest),
                )
        break
    return Markup(""), Markup(body)


@dataclass
class LanguageHtml:
    lang: str
    title: str
    subtitle: str  # HTML (Markup) for the cover
    description: str  # plain text, for metadata
    rules_title: str
    intro: Markup
    sections: list[SectionHtml]
    ui: dict
    source: Source
    faces: FaceCache = field(repr=False)

    @property
    def spec(self) -> languages.Language:
        """What the page needs to know about the language: hyphenation, fonts, script."""
        return languages.get(self.lang)


def _template_line(tb) -> int | None:
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _explain(exc: Exception) -> tuple[str, str]:
    if isinstance(exc, RecursionError):
        return "template nested or recursing too deeply", "simplify the expression or macro"
    if isinstance(exc, SecurityError):
        return (
            f"template refused by the sandbox: {exc}",
            "rules templates may only read the game's data",
        )
    message = getattr(exc, "message", None) or str(exc)
    if type(exc).__name__ == "UndefinedError":
        return (
            f"template uses undefined data: {message}",
            "check the name against the game's data and the helpers (components, items, figure...)",
        )
    if isinstance(exc, TemplateError):
        return f"template error: {message}", "check the {{ }} and {% %} pairs"
    return f"template error: {type(exc).__name__}: {message}", "check the arguments of the call"


def run_jinja(text: str, ctx: dict, file: Path, first_line: int, key: str | None) -> str:
    """Render a rules template in the sandbox; every error is located in the rules file."""
    if not templating.is_template(text):
        return text
    try:
        template = templating.ENV.from_string(text)
    except (TemplateError, RecursionError) as exc:
        message, hint = _explain(exc)
        line = first_line + (getattr(exc, "lineno", 1) or 1) - 1
        raise ContentError(message, file, line, key, hint, code="rules-template") from None
    try:
        out = template.render(ctx)
    except ContentError as exc:
        at = _template_line(exc.__traceback__)
        raise exc.located(file, first_line + (at or 1) - 1, key) from None
    except (
        TemplateError,
        SecurityError,
        TypeError,
        ValueError,
        ArithmeticError,
        AttributeError,
        KeyError,
        IndexError,
        RecursionError,
    ) as exc:
        at = _template_line(exc.__traceback__)
        message, hint = _explain(exc)
        raise ContentError(
            message, file, first_line + (at or 1) - 1, key, hint, code="rules-template"
        ) from None
    if len(out) > MAX_SECTION_OUTPUT:
        raise ContentError(
            f"template output is {len(out)} characters long",
            file,
            first_line,
            key,
            "a runaway template; keep sections short",
            code="rules-template",
        )
    return out


def anchor(prefix: str, number: str) -> str:
    return f"{prefix}-{number.replace('.', '-')}"


class _Builder:
    """Builds the HTML pieces of one or two languages of one game."""

    def __init__(self, content: GameContent, cache_dir: Path | None, dry: bool = False):
        self.dry = dry  # `pnp check`: run every template and helper, draw and write nothing
        self.content = content
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache(content)
        self.world = "" if dry else world_digest(content)  # the digest names cached pictures
        self.glossary = load_glossary(content.dir)
        self.mark_lines = False  # data-line on each block: for segment_boxes() only

    def icons(self, lang: str) -> dict[str, str]:
        out = {}
        ctx = {
            **templating.localize(dict(self.content.game.data), lang, self.content.languages),
            "color": INK,
            "lang": lang,
        }
        for name, rel_path in self.content.game.icons.items():
            path = inside(
                self.content.dir,
                rel_path,
                what="icon",
                file=self.content.dir / "game.yaml",
                key=f"icons.{name}",
            )
            if path.suffix.lower() == ".svg":
                text = art.svg_source(path, ctx)
                target = self.cache_dir / f"icon-{self.content.id}-{name}-{art.digest(text)}.svg"
                if self.dry:
                    art.svg_check(text, path)
                elif not target.exists():
                    fsio.write_text(target, text)
                out[name] = target.resolve().as_uri()
            else:
                art.open_raster(path)
                out[name] = path.resolve().as_uri()
        return out

    def image_url(self, src: str) -> str:
        path = inside(self.content.dir, src, what="image")
        if path.suffix.lower() not in IMAGE_TYPES:
            raise ContentError(
                f"image '{src}' is not PNG, JPEG or SVG",
                code="bad-art",
                hint="use a .png, .jpg or .svg file in the game folder",
            )
        if not path.is_file():
            raise ContentError(f"image '{src}' not found in the game folder", code="missing-art")
        if path.suffix.lower() == ".svg":
            art.svg_source(path, {})  # refuses SVG that references files or URLs
        else:
            art.open_raster(path)
        return path.resolve().as_uri()

    def language(
        self, lang: str, prefix: str = "s", errors: list[ContentError] | None = None
    ) -> LanguageHtml:
        """One language's HTML pieces. With `errors`, a section whose templates fail is
        recorded there and left empty, so `pnp check` reports every broken section."""
        content = self.content
        source = load_source(content, lang, check=False)
        reference_lang = content.languages[0]
        if lang != reference_lang and reference_lang in rules_files(content.dir):
            # the reference's numbering first, then "which section is missing here"
            check_alignment(load_source(content, reference_lang).rules, source.rules)
        check_numbering(source.rules)
        faces = FaceCache(content, lang, self.cache_dir, self.world, dry=self.dry)
        blocks = Blocks()
        icons = self.icons(lang)
        data = RulesData(content, lang, faces, blocks, icons, self.glossary)
        ctx = data.context()
        anchors = {s.number: anchor(prefix, s.number) for s in source.rules.sections}
        notes = load_notes(content.dir, content.languages)
        check_sections(notes, lang, list(anchors))
        path = source.path

        def body(text: str, first_line: int, key: str | None) -> Markup:
            if self.mark_lines:
                text = mark_call_strings(text, first_line)
            text = run_jinja(text, ctx, path, first_line, key)
            env = {
                "icons": icons,
                "anchors": anchors,
                "image_url": self.image_url,
                "file": path,
                "first_line": first_line,
                "key": key,
                "mark_lines": self.mark_lines,
            }
            html = markup.to_html(text, env)
            # Hangul words stay whole in every edition (Korean quoted in en or es too); before
            # the helpers' HTML comes back: it keeps its own words
            html = markup.keep_words(html)
            html = blocks.restore(html)
            return Markup(place_call_marks(html) if self.mark_lines else html)

        def title(s: Section) -> Markup:
            text = run_jinja(s.title, ctx, path, s.line, f"§{s.number}")
            html = markup.inline_html(text, {"icons": icons})
            return Markup(markup.keep_words(html))

        def note(number: str) -> Markup:
            """The editor's note of a section in this language, boxed apart from the rules."""
            text = notes.get(number, lang)
            if not text:
                return Markup("")
            html = markup.keep_words(markup.inline_html(text, {"icons": icons}))
            label = markup.escape(ui(lang)["editor_note"])
            return Markup(
                f'<aside class="editor-note"><span class="note-label">{label}</span> {html}</aside>'
            )

        intro_line = next(
            (
                i + 1
                for i, line in enumerate(source.lines)
                if line.strip() and not line.startswith("# ")
            ),
            1,
        )
        intro = (
            body(source.rules.intro, intro_line, None) if source.rules.intro.strip() else Markup("")
        )
        sections = []
        for s in source.rules.sections:
            try:
                section = SectionHtml(
                    s.number,
                    title(s),
                    len(s.key),
                    anchors[s.number],
                    body(s.body, source.first_line(s.line), f"§{s.number}") + note(s.number),
                )
            except ContentError as exc:
                if errors is None:
                    raise
                errors.append(exc.located(path, s.line, f"§{s.number}"))
                section = SectionHtml(
                    s.number, Markup(""), len(s.key), anchors[s.number], Markup("")
                )
            sections.append(section)
        subtitle = Markup(markup.keep_words(str(markup.escape(data.description))))
        return LanguageHtml(
            lang,
            data.title or source.rules.title,
            subtitle,
            data.description,
            source.rules.title,
            intro,
            sections,
            _labels(content, lang),
            source,
            faces,
        )

    def cover_faces(
        self, lang: str, faces: FaceCache, count: int = 3, room_mm: float = 160
    ) -> Markup:
        """A few faces for the cover: the first item of the components the game names
        (rulebook.cover), else of up to three hand-sized ones, side by side at one height
        (68 mm at most, never larger than printed, lower if they must to fit in one row)."""
        chosen = self.content.game.rulebook.cover
        if chosen is not None:
            specs = [self.content.component(c) for c in chosen]  # checked when loaded
        else:
            small = [c for c in self.content.components if max(c.size_pt) <= 130 * MM]
            specs = (small or self.content.components)[:count]
        specs = [c for c in specs if c.items]
        if not specs:
            return Markup("")
        gap = 7 * MM
        height = min([68 * MM] + [c.size_pt[1] for c in specs])
        width = sum(c.size_pt[0] / c.size_pt[1] * height for c in specs) + gap * len(specs)
        height *= min(1.0, room_mm * MM / width)
        html = []
        for spec in specs:
            w, h = spec.size_pt
            picture = faces.face(spec, spec.items[0], "front", w * height / h)
            cls = "face shaped" if picture.shaped else "face"  # a die-cut face is not framed
            html.append(picture.img(cls, "", f"height: {height / MM:.2f}mm"))
        return Markup("".join(html))


# ---------------------------------------------------------------- page templates


class _PageEnv(CachedCompile, SandboxedEnvironment):
    """The rulebook page templates' sandbox; compiled pages are kept (template_cache.py)."""

    cache_kind = "rulebook-page"


_PAGE_ENV: dict[tuple[Path, ...], SandboxedEnvironment] = {}


def _page_env(folders: list[Path]) -> SandboxedEnvironment:
    """The page templates: the project's own templates/rulebook/ first, then pnp's (file by
    file: a project may override rulebook.css alone)."""
    key = tuple(folders)
    env = _PAGE_ENV.get(key)
    if env is None:
        env = _PageEnv(
            loader=FileSystemLoader([str(f) for f in folders]),
            autoescape=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        _PAGE_ENV[key] = env
    return env


_CSS_NAME = re.compile(r"[\w .\-]+")
_WEIGHTS = {
    "regular": (400, "normal"),
    "bold": (700, "normal"),
    "black": (800, "normal"),
    "italic": (400, "italic"),
    "bold-italic": (700, "italic"),
}


def css_families(book, lang: str) -> list[str]:
    """The families a language's rulebook text is set in, in CSS order: its script's face when
    the script has `own_face`, the language's own `fonts` (by their CSS names), the default
    family, then the scripts' fallback faces."""
    by_name = {name: family for family, name in book.css_names.items()}
    own = [by_name[f] for f in languages.get(lang).fonts if f in by_name]
    default = next(iter(book.families))
    # a script with `own_face` (Japanese) sets its text in its own face first, punctuation too
    rules = languages.scripts().get(languages.get(lang).script) or {}
    first = [rules["font"]] if rules.get("own_face") and rules.get("font") in book.files else []
    return list(dict.fromkeys([*first, *own, default, *book.fallbacks(lang)]))


def _fonts(content: GameContent) -> dict[str, Any]:
    """The rulebook's @font-face rules and font-family lists, from fonts.yaml and the scripts'
    fallback faces (templates/languages/scripts.yaml): every face by its file URL."""
    book = fontbook(content.project.fonts)
    faces = []
    for family, files in book.files.items():
        for style, path in files.items():
            weight, slant = _WEIGHTS[style]
            faces.append(
                {
                    "name": book.css_names[family],
                    "url": path.resolve().as_uri(),
                    "weight": weight,
                    "style": slant,
                }
            )

    for family, name in book.css_names.items():
        if not _CSS_NAME.fullmatch(name):
            raise ContentError(
                f"font family name {name!r} cannot be used in CSS",
                content.project.fonts / "fonts.yaml",
                code="bad-font",
                key=f"families.{family}.name",
                hint="letters, digits, spaces, dots and dashes",
            )

    def stack(families) -> Markup:  # names checked above: safe inside CSS quotes
        return Markup(", ".join(f'"{book.css_names[f]}"' for f in families))

    def italic_first(families) -> list[str]:
        real = [f for f in families if "italic" in book.files.get(f, {})]
        return real + [f for f in families if f not in real]

    per_lang = {}
    for lang in content.languages:
        families = css_families(book, lang)
        per_lang[lang] = {"stack": stack(families), "italic": stack(italic_first(families))}
    default = [next(iter(book.families)), *book.fallbacks(None)]
    return {
        "faces": faces,
        "stack": stack(list(dict.fromkeys(default))),
        "langs": per_lang,
    }


def _page(content: GameContent, paper: str) -> dict[str, Any]:
    w, h = paper_size(content.project, paper)
    return {"name": paper, "w": round(w / MM, 2), "h": round(h / MM, 2)}


def _render_page(content: GameContent, template: str, **values) -> str:
    env = _page_env(content.project.template_dirs("rulebook"))
    try:
        return env.get_template(template).render(**values)
    except TemplateError as exc:
        raise ContentError(
            f"rulebook template error: {exc}",
            content.project.template(f"rulebook/{template}"),
            getattr(exc, "lineno", None),
            code="rulebook-template",
        ) from None


def _labels(content: GameContent, lang: str) -> dict[str, str]:
    """The language's interface labels; a draft language's edition is marked as a draft."""
    labels = ui(lang)
    if lang in drafts.drafts(content):
        labels = {**labels, "draft_mark": labels.get("draft", "draft")}
    return labels


def _toc(language: LanguageHtml, max_depth: int = 2) -> list[SectionHtml]:
    return [s for s in language.sections if s.depth <= max_depth]


def _single_html(
    content: GameContent,
    lang: str,
    paper: str,
    cache_dir: Path | None,
    mark_lines: bool = False,
) -> tuple[str, LanguageHtml]:
    builder = _Builder(content, cache_dir)
    builder.mark_lines = mark_lines
    language = builder.language(lang)
    html = _render_page(
        content,
        "rulebook.html",
        doc=language,
        toc=_toc(language),
        cover_faces=builder.cover_faces(lang, language.faces),
        page=_page(content, paper),
        fonts=_fonts(content),
        bilingual=False,
        languages=[language],
    )
    return html, language


def _bilingual_html(
    content: GameContent, lang_a: str, lang_b: str, paper: str, cache_dir: Path | None
) -> tuple[str, LanguageHtml, LanguageHtml]:
    if lang_a == lang_b:
        raise ContentError(
            f"a bilingual edition needs two languages, got {lang_a} twice",
            code="rules-bilingual",
            hint="e.g. es and en",
        )
    builder = _Builder(content, cache_dir)
    a = builder.language(lang_a, "a")
    b = builder.language(lang_b, "b")
    check_alignment(a.source.rules, b.source.rules)
    pairs = list(zip(a.sections, b.sections, strict=True))
    html = _render_page(
        content,
        "bilingual.html",
        a=a,
        b=b,
        pairs=pairs,
        toc=[(x, y) for x, y in pairs if x.depth <= 2],
        cover_faces=builder.cover_faces(lang_a, a.faces),
        page=_page(content, paper),
        fonts=_fonts(content),
        bilingual=True,
        languages=[a, b],
    )
    return html, a, b


def rulebook_html(
    content: GameContent, lang: str, paper: str, cache_dir: Path | None = None
) -> str:
    """The final HTML of a one-language rulebook (pictures rendered into the cache)."""
    return _single_html(content, lang, paper, cache_dir)[0]


def bilingual_html(
    content: GameContent, lang_a: str, lang_b: str, paper: str, cache_dir: Path | None = None
) -> str:
    return _bilingual_html(content, lang_a, lang_b, paper, cache_dir)[0]


# ---------------------------------------------------------------- PDF


def write_pdf(content: GameContent, html: str, out_path: Path, cache_dir: Path | None = None):
    """Lay out `html` with WeasyPrint and write it atomically. Returns the WeasyPrint Document."""
    from weasyprint import HTML

    fatal: type[BaseException]
    try:
        from weasyprint.urls import FatalURLFetchingError

        fatal = FatalURLFetchingError
    except ImportError:  # older WeasyPrint: failed fetches are only logged (see guard.refused)

        class _NeverRaised(BaseException):
            pass

        fatal = _NeverRaised

    fetcher = url_fetcher(content, cache_dir)
    out_path = Path(out_path)
    # fontTools stamps each font subset with the time unless SOURCE_DATE_EPOCH is set: fix it
    # while we write, so an unchanged rulebook is the same bytes.
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = epoch or "946684800"  # 2000-01-01
    try:
        current = [_number_figures(html)]

        def lay_out(extra_css: str = "", source: str | None = None):
            text = current[0] if source is None else source
            # an extra rule goes in as the book's own last stylesheet (author origin, after
            # rulebook.css): it outranks the plain @page rule, not the named pages (the cover)
            if extra_css:
                text = text.replace("</head>", f"<style>{extra_css}</style></head>", 1)
            return HTML(
                string=text,
                base_url=content.project.template_dir("rulebook").resolve().as_uri() + "/",
                url_fetcher=fetcher,
            ).render()

        document = _figures_floated(lay_out, lay_out(), current)
        document = _without_a_near_empty_last_page(lay_out, document)
        if fetcher.guard.refused:  # WeasyPrint may log a failed fetch and carry on: we do not
            raise fetcher.guard.refused[0]
        from generator.rulebook import vector  # start-up: pikepdf only when a book is written

        faces = vector.placements(document)
        with fsio.atomic_path(out_path) as tmp:
            document.write_pdf(tmp)
            # the faces as vectors (their text stays text) where their empty SVGs were laid out
            folder = Path(cache_dir) if cache_dir else default_cache(content)
            vector.place_faces(tmp, faces, folder, MIN_TEXT_PT)
    except fatal as exc:
        cause = exc.__cause__
        if isinstance(cause, ContentError):
            raise cause from None
        raise ContentError(
            f"rulebook resource could not be read: {exc}", code="url-refused"
        ) from None
    finally:
        if epoch is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
    return document


# A figure too tall for the rest of its page starts the next one; the page it leaves may keep
# at most this much of its text area blank. Past that, the paragraphs after the figure move up
# before it (the figure floats down to the next place it fits), a block at a time.
MOST_BLANK_BEFORE_FIGURE = 0.25
FIGURE_MOVES = 10  # layouts tried per book, at most

_FIGURE_DIV = re.compile(r'<div class="(?:board-figure|figure-row)(?![^"]*float-)')
_MOVABLE = re.compile(r"\s*<(p|ul|ol|table|aside|h2|h3|h4|blockquote)[\s>]")


def _number_figures(html: str) -> str:
    """Every figure block (not a floated one) marked data-fig="N", so a layout names it."""
    count = iter(range(1_000_000))
    return _FIGURE_DIV.sub(lambda m: f'<div data-fig="{next(count)}"' + m.group(0)[4:], html)


def _element_end(html: str, start: int, tag: str) -> int | None:
    """Where the element opened at `start` (a `tag`) closes, its closing tag included."""
    opening = re.compile(rf"<{tag}[\s>]|</{tag}>")
    depth = 0
    for match in opening.finditer(html, start):
        depth += -1 if match.group(0).startswith("</") else 1
        if depth == 0:
            return match.end()
    return None


def _move_figure_down(html: str, number: str) -> str | None:
    """`html` with figure `number` moved after the block that follows it (a paragraph, a list,
    a table, a note or a subsection heading); None when none follows in its column."""
    start = html.find(f'<div data-fig="{number}"')
    if start < 0:
        return None
    end = _element_end(html, start, "div")
    if end is None:
        return None
    following = _MOVABLE.match(html, end)
    if following is None:
        return None
    after = _element_end(html, following.start(1) - 1, following.group(1))
    if after is None:
        return None
    figure = html[start:end]
    return html[:start] + html[end:after] + figure + html[after:]


_SHRINKABLE = re.compile(
    r'<span class="figure[^"]*" data-least="([\d.]+)" style="width: ([\d.]+)mm'
)


def _shrink_figure(html: str, number: str) -> str | None:
    """`html` with the figures of block `number` drawn at their least width (their text still
    at 6 pt, and at least three quarters of their width); None when none can shrink."""
    start = html.find(f'<div data-fig="{number}"')
    end = _element_end(html, start, "div") if start >= 0 else None
    if end is None:
        return None
    block = html[start:end]
    shrunk = block
    for match in _SHRINKABLE.finditer(block):
        least, width = match.group(1), match.group(2)
        if float(least) < float(width) - 0.05:
            shrunk = shrunk.replace(f"width: {width}mm", f"width: {least}mm")
    if shrunk == block:
        return None
    return html[:start] + shrunk + html[end:]


def _smaller_first(html: str, number: str) -> str | None:
    """`html` with the figures of row `number` in the order of their widths, narrowest first:
    a row that breaks between its lines then leaves the ones that fit on the page; None when
    that changes nothing."""
    start = html.find(f'<div data-fig="{number}"')
    end = _element_end(html, start, "div") if start >= 0 else None
    if end is None:
        return None
    spans: list[tuple[int, int, float]] = []
    for match in _SHRINKABLE.finditer(html, start, end):
        if spans and match.start() < spans[-1][1]:
            continue
        close = _element_end(html, match.start(), "span")
        if close is None:
            return None
        spans.append((match.start(), close, float(match.group(2))))
    if len(spans) < 2:
        return None
    order = sorted(spans, key=lambda s: s[2])
    if order == spans:
        return None
    inner = "".join(html[a:b] for a, b, _ in order)
    return html[: spans[0][0]] + inner + html[spans[-1][1] :]


def stranded_figures(document) -> list[tuple[int, str, float]]:
    """Figures that start a page after one left more than MOST_BLANK_BEFORE_FIGURE of its text
    area blank: [(page index, figure number, blank fraction)]."""
    from weasyprint.formatting_structure import boxes as B

    found = []
    for index in range(1, len(document.pages)):
        root = document.pages[index]._page_box
        top = root.content_box_y()
        first = None

        def walk(box):
            nonlocal first
            if first is not None:
                return
            element = getattr(box, "element", None)
            if element is not None and element.get("data-fig") is not None:
                first = box
                return
            if isinstance(box, B.LineBox | B.ReplacedBox):
                first = False  # text or a picture comes first
                return
            for child in getattr(box, "children", None) or []:
                walk(child)

        for child in root.children:
            if not isinstance(child, B.MarginBox):
                walk(child)
        if not first or first.position_y > top + 10 * 96 / 25.4:  # not at the page's head
            continue
        blank = 1.0 - page_fill(document, index - 1)
        if blank > MOST_BLANK_BEFORE_FIGURE:
            found.append((index, first.element.get("data-fig"), blank))
    return found


def _figures_floated(lay_out, document, current: list[str]):
    """`document`, or a layout of `current[0]` where each figure that left more than a quarter
    of the page before it blank has been helped until that page is filled, adding no page: a
    row of figures puts its narrowest first (those that fit stay); else the figure floats down
    past the blocks after it, or, with none left, shrinks as far as its text allows
    (`current[0]` is updated to the HTML laid out). A figure none of that helps stays put."""
    tries = 0
    done: set[str] = set()
    while tries < FIGURE_MOVES:
        stranded = [s for s in stranded_figures(document) if s[1] not in done]
        if not stranded:
            break
        index, number, _ = stranded[0]
        done.add(number)
        # a row of figures tries its narrowest first before anything moves: the figures then
        # stay beside their text, and it costs one layout
        starts = [current[0]]
        reordered = _smaller_first(current[0], number)
        if reordered is not None:
            starts.insert(0, reordered)
        for html in starts:
            fixed = None
            if html is not current[0]:  # the row reordered, as it is
                tries += 1
                candidate = lay_out(source=html)
                if len(candidate.pages) > len(document.pages) or (
                    1 - page_fill(candidate, index - 1) > MOST_BLANK_BEFORE_FIGURE
                ):
                    continue  # moves start from the row as written
                fixed = (html, candidate)
            while fixed is None and tries < FIGURE_MOVES:
                moved = _move_figure_down(html, number) or _shrink_figure(html, number)
                if moved is None:
                    break
                tries += 1
                candidate = lay_out(source=moved)
                if len(candidate.pages) > len(document.pages):
                    break
                html = moved
                if 1 - page_fill(candidate, index - 1) <= MOST_BLANK_BEFORE_FIGURE:
                    fixed = (html, candidate)
            if fixed is not None:
                current[0], document = fixed
                break
    return document


# A last page this little filled (of its text area) is a sheet of paper for a line or two.
NEAR_EMPTY = 0.2
# Bottom page margins to try, in turn, for a book whose last page is near empty: a few mm on
# every page pull those lines back (the page number sits in the margin, at most 8 pt tall).
TIGHTER_BOTTOMS_MM = (15, 13)


def _without_a_near_empty_last_page(lay_out, document):
    """`document`, or a layout of the same HTML with a smaller bottom margin on the pages of
    the rules (`lay_out(extra_css)`; the cover and the contents keep theirs) when that saves a
    last page that holds only a line or two (a heading and one bullet, a version line)."""
    if len(document.pages) < 3 or last_page_fill(document) >= NEAR_EMPTY:
        return document
    if _one_page_per_part(document):
        return document
    for bottom in TIGHTER_BOTTOMS_MM:
        tighter = lay_out(f"@page {{ margin-bottom: {bottom}mm }}")
        if len(tighter.pages) < len(document.pages):
            return tighter
    return document


def _one_page_per_part(document) -> bool:
    """Whether every page is a part of the book on its own (the cover, the contents, the rules
    on one page: each a named page of its own, which CSS starts on a new page): no margin can
    then take a page off, since no part has fewer than one. A small book's rules on one page
    are near empty, and its two tighter layouts were made for nothing."""
    types = [page._page_box.page_type for page in document.pages]
    names = [t.name for t in types]
    return not any(t.blank for t in types) and len(set(names)) == len(names)


def last_page_fill(document) -> float:
    """How much of its text area the last page's text fills, from the top (0 to 1)."""
    return page_fill(document, -1)


def page_fill(document, index: int) -> float:
    """How much of its text area page `index`'s text fills, from the top (0 to 1)."""
    from weasyprint.formatting_structure import boxes as B

    root = document.pages[index]._page_box
    top, height = root.content_box_y(), root.height
    bottom = top

    def walk(box):
        nonlocal bottom
        if isinstance(box, B.LineBox | B.ReplacedBox):
            bottom = max(bottom, box.position_y + box.margin_height())
            return
        for child in getattr(box, "children", None) or []:
            walk(child)

    for child in root.children:
        if not isinstance(child, B.MarginBox):
            walk(child)
    return (bottom - top) / height if height else 1.0


def overflows(document, tolerance_mm: float = 1.5) -> list[dict]:
    """Boxes that stick out of their column (bilingual) or the text area: a table or a word
    too wide for its place prints over the other language or into the margin. Read from
    WeasyPrint's layout; returns [{"page", "element", "text", "mm"}]."""
    from weasyprint.formatting_structure import boxes as B

    found: list[dict] = []
    tolerance = tolerance_mm * 96 / 25.4  # layout units are CSS px

    def label(box) -> str:
        element = getattr(box, "element", None)
        tag = getattr(box, "element_tag", "") or ""
        cls = element.get("class") if element is not None else None
        return f"{tag}.{cls}" if cls else tag

    def walk(box, right: float, page: int, column: str | None):
        if isinstance(box, B.TableCellBox) and (
            box.element is not None and box.element.get("class") in ("a", "b")
        ):
            right = box.content_box_x() + box.width
            column = box.element.get("class")
        elif isinstance(
            box, (B.BlockBox, B.TableBox, B.ReplacedBox, B.TextBox, B.InlineReplacedBox)
        ):
            try:
                edge = box.border_box_x() + box.border_width()
            except (TypeError, AttributeError):
                edge = None
            if edge is not None and edge > right + tolerance:
                text = getattr(box, "text", "") or ""
                found.append(
                    {
                        "page": page,
                        "element": label(box),
                        "column": column,
                        "text": text[:40],
                        "mm": round((edge - right) * 25.4 / 96, 1),
                    }
                )
                return  # one report per overflowing box, not per descendant
        for child in getattr(box, "children", None) or []:
            walk(child, right, page, column)

    for number, page in enumerate(document.pages, start=1):
        root = page._page_box
        for child in root.children:
            if isinstance(child, B.MarginBox):
                continue
            walk(child, root.content_box_x() + root.width, number, None)
    return found


def _section_pages(document, prefix: str) -> dict[str, int]:
    pages: dict[str, int] = {}
    for number, page in enumerate(document.pages, start=1):
        for name in page.anchors:
            if name.startswith(prefix + "-"):
                pages.setdefault(name[len(prefix) + 1 :].replace("-", "."), number)
    return pages


def render_rulebook(
    content: GameContent, lang: str, paper: str, out_path: Path, cache_dir: Path | None = None
) -> dict:
    """Write the `lang` rulebook of a game on `paper` (a4, letter...) to out_path."""
    started = time.perf_counter()
    html, language = _single_html(content, lang, paper, cache_dir)
    html_done = time.perf_counter()
    document = write_pdf(content, html, out_path, cache_dir)
    return {
        "pages": len(document.pages),
        "sections": [s.number for s in language.sections],
        "lang": lang,
        "paper": paper,
        "section_pages": _section_pages(document, "s"),
        "overflows": overflows(document),
        "figures_drawn": language.faces.drawn,
        "seconds": {
            "html": round(html_done - started, 3),
            "pdf": round(time.perf_counter() - html_done, 3),
        },
    }


# Strings inside template calls (a board's caption, a table's headers) have no block of their
# own in the rules file: for segment_boxes(), each such string literal is prefixed with a mark
# naming its place (`\ue000LINE@COLUMN\ue001`, private-use characters) before Jinja runs; the
# element the helper renders it in (a caption, a table header) then takes the place as its
# `data-call` and the mark is removed, so the laid-out book says where the string landed.
_MARK = re.compile("\ue000(\\d+@\\d+)\ue001")
_MARKED = re.compile(r'<(?:p|span|div)\b[^>]*\bclass="caption"[^>]*>|<(?:th|td|caption)\b[^>]*>')


def mark_call_strings(text: str, first_line: int) -> str:
    """`text` (a block of the rules file starting on `first_line`) with each string of a template
    call that is a translator's segment (segments.call_strings) prefixed with its place."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for _role, start, end, string in reversed(call_strings(line)):
            mark = f"\ue000{first_line + i}@{start}\ue001"
            line = line[:start] + quote(mark + string, line[start:end]) + line[end:]
        lines[i] = line
    return "\n".join(lines)


def place_call_marks(html: str) -> str:
    """Each mark of mark_call_strings() removed, its place given as `data-call` to the element
    it is in (the nearest caption or table cell opened before it)."""
    out: list[str] = []
    done = 0
    for m in _MARK.finditer(html):
        tags = list(_MARKED.finditer(html, done, m.start()))
        if tags and "data-call=" not in tags[-1].group():
            tag = tags[-1]
            out.append(html[done : tag.end() - 1])
            out.append(f' data-call="{m.group(1)}">')
            out.append(html[tag.end() : m.start()])
        else:
            out.append(html[done : m.start()])
        done = m.end()
    out.append(html[done:])
    return "".join(out)


def segment_boxes(
    content: GameContent, lang: str, paper: str, out_path: Path, cache_dir: Path | None = None
) -> dict[str, tuple[int, tuple[float, float, float, float]]]:
    """Write the `lang` rulebook to out_path and say where each block of its rules file landed:
    `"12"` (a paragraph, list item or heading starting on line 12) or `"30:2"` (line 30's
    table row, second cell) -> (page index from 0, (x0, y0, x1, y1) in PDF points from the
    page's top left) of the block's first page; a section's heading is `"§5.2"`, the cover's
    title `"title"`. Read from WeasyPrint's layout."""
    from weasyprint.formatting_structure import boxes as B

    html, _ = _single_html(content, lang, paper, cache_dir, mark_lines=True)
    document = write_pdf(content, html, out_path, cache_dir)
    px = 0.75  # CSS px -> pt
    found: dict[str, tuple[int, tuple[float, float, float, float]]] = {}

    def walk(box, page: int) -> None:
        element = getattr(box, "element", None)
        key = None
        if element is not None and isinstance(box, B.BlockBox | B.TableCellBox):
            key = element.get("data-line") or element.get("data-cell") or element.get("data-call")
            classes = (element.get("class") or "").split()
            if key is None and "sec-head" in classes and element.get("id", "").startswith("s-"):
                key = "§" + element.get("id")[2:].replace("-", ".")  # a section's heading
            elif key is None and "cover-title" in classes:
                key = "title"
        if key is not None and key not in found:
            x, y = box.border_box_x(), box.border_box_y()
            w, h = box.border_width(), box.border_height()
            found[key] = (page, (x * px, y * px, (x + w) * px, (y + h) * px))
        for child in getattr(box, "children", None) or []:
            walk(child, page)

    for number, page in enumerate(document.pages):
        walk(page._page_box, number)
    return found


def render_bilingual(
    content: GameContent,
    lang_a: str,
    lang_b: str,
    paper: str,
    out_path: Path,
    cache_dir: Path | None = None,
) -> dict:
    """Write a two-column edition: lang_a on the left, lang_b on the right, section by section."""
    started = time.perf_counter()
    html, a, b = _bilingual_html(content, lang_a, lang_b, paper, cache_dir)
    html_done = time.perf_counter()
    document = write_pdf(content, html, out_path, cache_dir)
    return {
        "pages": len(document.pages),
        "sections": [s.number for s in a.sections],
        "lang": f"{lang_a}-{lang_b}",
        "langs": [lang_a, lang_b],
        "paper": paper,
        "section_pages": _section_pages(document, "a"),
        "overflows": overflows(document),
        "figures_drawn": a.faces.drawn + b.faces.drawn,
        "seconds": {
            "html": round(html_done - started, 3),
            "pdf": round(time.perf_counter() - html_done, 3),
        },
    }


# ---------------------------------------------------------------- what `pnp check` runs

# The bullets the stylesheet draws for lists nested 1, 2 and 3 deep (list-style-type disc,
# circle and its third kind).
BULLETS = "•◦▪"
_TAGS = re.compile(r"<[^>]*>")
_UL = re.compile(r"<(/?)ul[\s>]")


@dataclass
class DryRun:
    languages: dict[str, LanguageHtml]
    errors: list[tuple[str | None, ContentError]]  # (language, error)


def dry_run(content: GameContent) -> DryRun:
    """Every rulebook as `pnp print` would build it, without drawing a figure or writing a
    file: numbering and alignment, every section's Jinja and helper calls (components, items,
    figures, boards, images, icons), the bilingual pairs, the papers and the page templates."""
    langs = [lang for lang in content.languages if lang in rules_files(content.dir)]
    builder = _Builder(content, None, dry=True)
    run = DryRun({}, [])
    for lang in langs:
        errors: list[ContentError] = []
        try:
            run.languages[lang] = builder.language(lang, errors=errors)
        except ContentError as exc:
            errors.append(exc)
        run.errors += [(lang, e) for e in errors]
    for a, b in content.game.rulebook.bilingual:
        try:
            if a == b:
                raise ContentError(
                    f"a bilingual edition needs two languages, got {a} twice",
                    content.dir / "game.yaml",
                    code="rules-bilingual",
                    hint="e.g. es and en",
                )
            sa, sb = load_source(content, a, check=False), load_source(content, b, check=False)
            check_alignment(sa.rules, sb.rules)
        except ContentError as exc:
            run.errors.append((f"{a}-{b}", exc))
    if not langs:
        return run
    chosen = papers(None, content.game.rulebook.papers, content.game.print.papers)
    try:
        for paper in chosen:
            _page(content, paper)
        for lang, language in run.languages.items():
            _render_page(
                content,
                "rulebook.html",
                doc=language,
                toc=_toc(language),
                cover_faces=builder.cover_faces(lang, language.faces),
                page=_page(content, chosen[0]),
                fonts=_fonts(content),
                bilingual=False,
                languages=[language],
            )
    except ContentError as exc:
        run.errors.append((None, exc))
    return run


def printed_text(language: LanguageHtml) -> str:
    """The characters a rulebook prints: its titles, its sections and the list bullets."""
    import html as _html

    parts = [language.title, language.rules_title, str(language.intro)]
    for s in language.sections:
        parts += [str(s.title), str(s.body)]
    joined = "\n".join(parts)
    depth = deepest = 0
    for m in _UL.finditer(joined):
        depth += -1 if m.group(1) else 1
        deepest = max(deepest, depth)
    return _html.unescape(_TAGS.sub(" ", joined)) + BULLETS[:deepest]

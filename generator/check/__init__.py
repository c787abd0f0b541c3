"""`pnp check`: findings about a game, collected, never raised.

Every check is a function `game -> findings`, registered once in `CHECKS` below:

- `manifest` (here): manifest.yaml against the items: counts and breakdowns.
- `consistency` (consistency.py, with counts, translations, invariants, i18n, terms,
  numbers, text): invariants, rulebook counts, translations, stale translations.
- `faces` (here, boxes/<kind>.py, boxes/fitness.py): every face in every language through
  the one walk printing uses: text that overflows or is too small, glyphs, art, colours,
  pieces that do not fit, text and thin rules near the trim.
- `no-bleed` (bleed.py): ink that stops at the trim, on the rendered face.
- `languages` (languages.py): per-language text with a key that is not a game language.

Acceptances (`accepted.py`, accepted.yaml) are applied last, to every finding. Content that
cannot even load (bad YAML, unknown keys, a missing layout) stops at load time with one
`ContentError`; `Finding.from_error` is the one way such an error becomes a finding.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Callable
from typing import Any

from generator import exports, session
from generator.check import bleed, languages, numbers
from generator.check.accepted import apply
from generator.check.shapes import check_shapes
from generator.errors import ContentError, Finding, rel
from generator.i18n import drafts
from generator.load import guide_words, templating
from generator.load.content import GameContent
from generator.load.model import SHEET_SUFFIXES as SUFFIXES
from generator.render.engine import FaceRenderer
from generator.render.fonts import fontbook

GameCheck = Callable[[GameContent], list[Finding]]
CHECKS: dict[str, GameCheck] = {}


def register(name: str) -> Callable[[GameCheck], GameCheck]:
    """Add a check to `pnp check` (and so to `pnp print`, which checks first)."""

    def add(check: GameCheck) -> GameCheck:
        if name in CHECKS:
            raise RuntimeError(f"check '{name}' is registered twice")
        CHECKS[name] = check
        return check

    return add


def check_game(content: GameContent, grouped: bool = True) -> list[Finding]:
    """Every finding about one game; those accepted in accepted.yaml are marked.

    `grouped`: one finding per distinct problem (the terminal); False keeps one per face (the
    preview draws each on its own card)."""
    findings: list[Finding] = []
    for check in CHECKS.values():
        findings += check(content)
    root = content.project.root
    for f in findings:
        f.game = content.id
        if f.file and f.file.startswith("/"):  # every finding names files as the project does
            f.file = rel(f.file, root)
    if grouped:
        findings = _one_per_art_file(findings)

        # Two checks that reach the same fault say it once: a fault found once for the whole
        # component (no item) is not said again per item; the same per-item finding is kept
        # once per item, so collapse() below can still group it ("5 items: ...").
        def fault(f: Finding) -> tuple:
            return (f.severity, f.code, f.file, f.line, f.message, f.lang)

        whole = {fault(f) for f in findings if f.item is None}
        seen: set[tuple] = set()
        unique = []
        for f in findings:
            key = (*fault(f), f.item)
            if key in seen or (f.item is not None and fault(f) in whole):
                continue
            seen.add(key)
            unique.append(f)
        findings = unique
    findings = drafts.soften(content, findings)  # a draft language's errors are warnings
    return apply(
        content.dir, collapse(findings) if grouped else findings, content.project.root, content.id
    )


def check_games(contents: list[GameContent]) -> list[Finding]:
    """check_game for each game, in the games' order. With several games, a spare core and a
    process that may fork safely (Linux, one thread), two forked workers check them, the
    biggest first, so `pnp check` of four games takes about half as long on a 2-core machine.
    What each game's check finds does not depend on the split. PNP_CHECK_JOBS=1: one process."""
    jobs = _jobs(len(contents))
    if jobs < 2:
        return [f for content in contents for f in check_game(content)]
    import multiprocessing

    _warm(contents)
    global _FORKED
    _FORKED = contents
    frozen = session.frozen()
    session.freeze()  # what exists now stays put: the workers' collections do not copy it (COW)
    biggest_first = sorted(range(len(contents)), key=lambda i: -_weight(contents[i]))
    try:
        with multiprocessing.get_context("fork").Pool(jobs, _quiet_worker) as pool:
            found = dict(zip(biggest_first, pool.imap(_check_forked, biggest_first), strict=True))
    finally:
        _FORKED = []
        session.unfreeze()
        if frozen:  # as it was (a test process freezes what its collection made)
            session.freeze()
    return [f for i in range(len(contents)) for f in found[i]]


_FORKED: list[GameContent] = []  # the games a forked worker checks (inherited, not pickled)


def _quiet_worker() -> None:
    """Ctrl-C is the parent's to handle: it stops the pool, the workers need not say so."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _check_forked(index: int) -> list[Finding]:
    return check_game(_FORKED[index])


def _jobs(games: int) -> int:
    import os
    import sys
    import threading

    chosen = os.environ.get("PNP_CHECK_JOBS", "")
    if chosen.isdigit():
        return min(int(chosen), games)
    if games < 2 or not sys.platform.startswith("linux") or threading.active_count() > 1:
        return 1  # forking a process with other threads (a test runner's) may deadlock
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return min(2, games, cores or 1)


def _weight(content: GameContent) -> int:
    """About how long a game's check takes: its faces in every language, and its rulebooks."""
    faces = sum(len(c.items) for c in content.components)
    return faces * max(1, len(content.languages)) + 100 * len(content.rules)


def _warm(contents: list[GameContent]) -> None:
    """What every worker would otherwise load on its own: the check modules and the fonts the
    games' languages are set in (each worker would parse its own)."""
    # Deferred for start-up time: `pnp render`'s face check needs neither (about 100 modules); the
    # full check imports them here once, before its workers fork.
    from generator.check import consistency  # noqa: F401
    from generator.rulebook import book as rulebook  # noqa: F401  # the rulebooks' dry run

    # The number words of the languages the games share, compiled once (about 15 ms), not in
    # each worker: the rulebooks' counts and the translations read numbers in every language.
    for lang in sorted({lang for c in contents for lang in c.languages}):
        with contextlib.suppress(ContentError):  # each game's check reports it
            numbers.find_numbers("", lang)

    for project in {c.project for c in contents}:
        langs = sorted({lang for c in contents if c.project is project for lang in c.languages})
        with contextlib.suppress(ContentError):  # each game's check reports it
            fontbook(project.fonts).parse_for(langs)


def _one_per_art_file(findings: list[Finding]) -> list[Finding]:
    """A broken art file (an SVG bomb, an EPS named .png) is one problem, whether a face or
    a rulebook (icons, images) met it first."""
    seen: set[tuple[str, str]] = set()
    out = []
    for f in findings:
        art = f.file.lower().endswith((".svg", ".png", ".jpg", ".jpeg")) if f.file else False
        key = (f.code, f.file)
        if art and f.severity == "error" and key in seen:
            continue
        if art and f.severity == "error":
            seen.add(key)
        out.append(f)
    return out


def export_findings(content: GameContent) -> list[Finding]:
    """What the game's chosen exports cannot do with its faces (a shop preset's sizes)."""
    return exports.check(content)


def collapse(findings: list[Finding]) -> list[Finding]:
    """One finding per distinct problem: the same message on 50 cards is one line, not 50."""
    groups: dict[tuple, list[Finding]] = {}
    for f in findings:
        key = (f.severity, f.code, f.message, f.file, f.box, f.lang if f.item is None else None)
        groups.setdefault(key, []).append(f)
    out = []
    for group in groups.values():
        first = group[0]
        if len(group) > 1:
            items = sorted({f.item for f in group if f.item})
            langs = sorted({f.lang for f in group if f.lang})
            shown = ", ".join(items[:4]) + (", ..." if len(items) > 4 else "")
            noun = "item" if len(items) == 1 else "items"
            first.message += f" ({len(items)} {noun}: {shown}; {'/'.join(langs)})" if items else ""
            first.line = min((f.line for f in group if f.line), default=first.line)
        out.append(first)
    return out


def _consistency(content: GameContent) -> list[Finding]:
    # Deferred for start-up time (about 30 ms): `pnp render`'s face check never runs it.
    from generator.check.consistency import validate_game

    return validate_game(content)


def _faces(content: GameContent) -> list[Finding]:
    return [f for lang in content.languages for f in check_faces(content, lang)]


def check_faces(content: GameContent, lang: str) -> list[Finding]:
    """Every face of every item in `lang`, walked as printing walks it (render.FaceRenderer)."""
    try:
        renderer = FaceRenderer(content, lang)
    except ContentError as exc:
        return [Finding.from_error(exc, lang=lang, root=content.project.root)]
    findings = _label_glyphs(content, renderer, lang)
    findings += check_shapes(content, renderer)
    for comp in content.components:
        w, h = comp.size_pt
        bleed = _bleed(content, comp)
        where: dict[str, Any] = {
            "file": rel(comp.file, content.project.root),
            "component": comp.id,
            "lang": lang,
        }
        checked_backs = set()
        shown = {comp.file: where["file"]}  # each file's name said once, not once per item
        for item in comp.items:
            # an item's own file: the component's, or the spreadsheet it is a row of
            file = shown.get(item.file)
            if file is None:
                file = shown[item.file] = rel(item.file, content.project.root)
            info = dict(where, file=file, line=item.line)
            info["item"] = item.id
            try:
                ctx = renderer.context(comp, item)
            except ContentError as exc:
                _in_sheet(exc, item, lang)
                findings.append(Finding.from_error(exc, root=content.project.root, **info))
                continue
            findings += _face(renderer, item.layout, ctx, w, h, bleed, info)
            if item.back and item.back not in checked_backs:
                common = item.back == comp.model.back
                back_ctx = renderer.context(comp, None) if common else ctx
                back_info = dict(
                    info, item=None if common else item.id, line=None if common else item.line
                )
                if common:
                    back_info["file"] = where["file"]
                findings += _face(renderer, item.back, back_ctx, w, h, bleed, back_info)
                if common:
                    checked_backs.add(item.back)
    return findings


def _in_sheet(exc: ContentError, item, lang: str) -> None:
    """A missing translation in a spreadsheet's row is a cell to fill, not a YAML key to add."""

    named = (exc.hint or "").startswith("fill this row's")  # the cell, named where it was met
    if exc.code == "missing-language" and item.file.suffix.lower() in SUFFIXES and not named:
        exc.hint = f"fill this row's cell in the field's '.{lang}' column (add the column if none)"


def check_face(content: GameContent, comp, item, lang: str, side: str) -> list[Finding]:
    """The findings of one face (`pnp render`): the same walk as check_faces, one item."""
    renderer = FaceRenderer(content, lang)
    w, h = comp.size_pt
    info = {
        "file": rel(item.file, content.project.root),  # the component's, or its spreadsheet
        "component": comp.id,
        "lang": lang,
        "line": item.line,
        "item": item.id,
    }
    common = side == "back" and item.back == comp.model.back
    try:
        ctx = renderer.context(comp, None if common else item)
    except ContentError as exc:
        _in_sheet(exc, item, lang)
        return [Finding.from_error(exc, **info)]
    if common:
        info.update(item=None, line=None, file=rel(comp.file, content.project.root))
    layout = item.layout if side == "front" else item.back
    found = _face(renderer, layout, ctx, w, h, _bleed(content, comp), info)
    for f in found:
        f.game = content.id

    # Acceptances are applied as for the whole game; those this face does not use are not news.
    return [f for f in apply(content.dir, found, content.project.root, content.id) if f in found]


def _bleed(content: GameContent, comp) -> float:
    """The bleed the component prints with (its own print: setting, else the game's)."""
    own = comp.model.print
    if own is not None and "bleed" in own.model_fields_set:
        return own.bleed.points
    return content.game.print.bleed.points


def _label_glyphs(content: GameContent, renderer: FaceRenderer, lang: str) -> list[Finding]:
    """Names printed on sheet labels and in the guide (game title, component names): not
    empty, no Jinja (they are printed as written), and glyphs for every character."""
    face = renderer.fonts.label(lang)
    texts: list[tuple[str, Any, dict[str, int], str | None, Any]] = [
        ("title", content.dir / "game.yaml", content.game_lines, None, content.game.title)
    ]
    texts += [("name", c.file, c.line_of, c.id, c.model.name) for c in content.components]
    out = []
    for box, file, lines, comp_id, value in texts:
        where: dict[str, Any] = dict(
            file=rel(file, content.project.root),
            line=lines.get(box),
            component=comp_id,
            lang=lang,
            box=box,
            key=box,
        )
        try:
            text = templating.pick(value, lang)
        except ContentError as exc:
            out.append(
                Finding.from_error(exc, prefix=f"{box}: ", root=content.project.root, **where)
            )
            continue
        where["line"] = lines.get(f"{box}.{lang}") or where["line"]
        problem = _printed_name(box, text, lang)
        if problem is not None:
            out.append(problem.finding(where))
            continue
        missing = face.missing(text)
        if missing:
            shown = " ".join(f"'{c}' (U+{ord(c):04X})" for c in missing[:8])
            out.append(
                Finding(
                    "error",
                    "missing-glyph",
                    f"{box} '{text}': the label font and the scripts' fallback faces have "
                    f"no glyph for {shown}",
                    hint="use characters the bundled fonts cover (templates/fonts/fonts.yaml)",
                    **where,
                )
            )
    out += _description(content, lang)
    return out


def _description(content: GameContent, lang: str) -> list[Finding]:
    """The game's description, the rulebook cover's subtitle: printed as written too."""
    value = content.game.description
    try:
        text = templating.pick(value, lang) if value else None
    except ContentError:  # a language missing: the rulebook check's (rules-template)
        return []
    problem = None if text is None else _printed_name("description", text, lang)
    if problem is None:
        return []
    lines = content.game_lines
    line = lines.get(f"description.{lang}") or lines.get("description")
    file = rel(content.dir / "game.yaml", content.project.root)
    return [problem.finding(dict(file=file, line=line, lang=lang, key="description"))]


class _NameProblem:
    def __init__(self, code: str, message: str, hint: str) -> None:
        self.code, self.message, self.hint = code, message, hint

    def finding(self, where: dict[str, Any]) -> Finding:
        return Finding("error", self.code, self.message, hint=self.hint, **where)


_PRINTED_ON = {"description": "the rulebook cover"}


def _printed_name(box: str, text: str, lang: str) -> _NameProblem | None:
    """An empty name prints an empty label ("Mini ·  · es"); Jinja in a name is printed as
    written ("{{ x"), broken or not. Neither stopped `pnp print`: both are errors here."""
    printed_on = _PRINTED_ON.get(box, "sheet labels and the guide")
    if not text.strip():
        return _NameProblem(
            "empty-translation",
            f"{box}: the '{lang}' text is empty ({printed_on} would print nothing for it)",
            f"write the {box} in '{lang}' (while '{lang}' is being translated, mark it a "
            "draft in game.yaml, `{" + lang + ": draft}`, and this is a warning)",
        )
    if templating.is_template(text):
        try:
            templating.check_syntax(text)
        except ContentError as exc:
            return _NameProblem(
                "template",
                f"{box}: the '{lang}' text is a broken template: {exc.message}",
                f"a {box} is printed as written, not run as a template: write it as plain text",
            )
        return _NameProblem(
            "template",
            f"{box}: the '{lang}' text {text!r} holds Jinja, which "
            f"{printed_on} would print as written",
            f"a {box} is printed as written, not run as a template: write it as plain text",
        )
    return None


def _face(renderer: FaceRenderer, layout, ctx, w, h, bleed, info) -> list[Finding]:
    try:
        return renderer.check(layout, ctx, w, h, info, bleed)
    except ContentError as exc:  # the layout itself (missing, bad extends)
        return [Finding.from_error(exc, root=renderer.content.project.root, **info)]


def check_manifest(content: GameContent) -> list[Finding]:
    """The box's stated contents (manifest.yaml) against the items in the content."""
    manifest = content.manifest
    manifest_file = content.dir / "manifest.yaml"
    if manifest is None:
        return [
            Finding(
                "warning",
                "no-manifest",
                "no manifest.yaml: component counts are not checked",
                file=rel(manifest_file, content.project.root),
                hint="list each component with its count",
            )
        ]
    raw = content.manifest_raw
    comps = raw.get("components")
    where = {"file": rel(manifest_file, content.project.root)}
    out = []
    for comp in content.components:
        entry = manifest.entry(comp.id)
        if entry is None:
            out.append(
                Finding(
                    "error",
                    "manifest-missing",
                    f"component '{comp.id}' is not in the manifest",
                    hint=f"add '{comp.id}: {comp.total}' under components",
                    **where,
                    line=comps.line,
                    component=comp.id,
                )
            )
            continue
        line = comps.line_of(comp.id)
        if entry.count != comp.total:
            out.append(
                Finding(
                    "error",
                    "count-mismatch",
                    f"{comp.id}: manifest says {entry.count}, content has {comp.total} "
                    f"({len(comp.items)} items)",
                    **where,
                    line=line,
                    component=comp.id,
                    hint="fix the item counts or the manifest",
                )
            )
        for key, expected in entry.breakdown.items():
            actual: Counter[str] = Counter()
            for item in comp.items:
                actual[str(item.data.get(key, "(none)"))] += item.count
            for value in sorted(set(expected) | set(actual)):
                want, have = expected.get(value, 0), actual.get(value, 0)
                if want != have:
                    out.append(
                        Finding(
                            "error",
                            "breakdown-mismatch",
                            f"{comp.id} by {key} = {value}: manifest says {want}, "
                            f"content has {have}",
                            **where,
                            line=line,
                            component=comp.id,
                        )
                    )
    known = {c.id for c in content.components}
    for comp_id in manifest.components:
        if comp_id not in known:
            out.append(
                Finding(
                    "error",
                    "manifest-unknown",
                    f"manifest lists '{comp_id}', which no component file defines",
                    **where,
                    line=comps.line_of(comp_id),
                    hint="components: " + ", ".join(sorted(known)),
                )
            )
    return out


def check_guide_words(content: GameContent) -> list[Finding]:
    """The guide's words of each language the game prints (a project's own texts.yaml), read as
    the guide reads them: a field the guide does not fill would stop `pnp print` at its end."""
    for lang in content.languages:
        try:
            guide_words.texts(content.project.templates, lang)
        except ContentError as exc:
            return [Finding.from_error(exc, lang=lang, root=content.project.root)]
    return []


# The order is the report's: what the box holds, the texts, the faces, then the finer looks.
register("manifest")(check_manifest)
register("consistency")(_consistency)
register("faces")(_faces)
register("no-bleed")(lambda content: bleed.check(content, _bleed))
register("languages")(languages.check)
register("exports")(export_findings)
register("guide-words")(check_guide_words)

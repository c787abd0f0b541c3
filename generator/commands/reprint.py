"""`pnp print GAME --changed-since REF`: reprint only the faces that changed.

Per language and paper, `output/<game>/<lang>/changes-<paper>.pdf`: a first page that says
what to replace (name, count, which old cards to take out: by their version mark when the game
prints one), then every copy of every changed item, front and back, packed on as few duplex
sheets as the one sheet writer (impose/writer.py) packs them, with crop marks and labels
as usual. What changed is decided by commands/diff.py (faces compared by what they draw). The
files are listed in the build manifest (kind export, format changes) and pass the PDF lint.

When the game's exports include print-shop or png, their changed-items-only equivalents go to
`output/<game>/<lang>/changes/print-shop/` (one page per changed design and its back, and an
order.csv of just those) and `output/<game>/<lang>/changes/png/` (the changed faces' images and
their backs): the exporters' own `plan` and `write`, run over a copy of the game holding only
the changed items, with a context whose folder is `<lang>/changes`. Their manifest formats are
`changes-print-shop` and `changes-png`.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from generator import exports, fsio
from generator.build import run as build
from generator.commands.diff import Changes, baseline, compare, summary
from generator.impose import entries, faces, writer
from generator.impose.placement import SheetJob
from generator.load import templating
from generator.load.content import GameContent, load_game
from generator.load.guide_words import texts
from generator.load.project import Project
from generator.load.sizes import paper_size
from generator.render.engine import FaceRenderer
from generator.units import parse_offset

FORMAT = "changes"
# The exports that get a changes equivalent, and its manifest format.
EXPORTS = {"print-shop": "changes-print-shop", "png": "changes-png"}
FORMATS = (FORMAT, *EXPORTS.values())


class ChangesContext(exports.ExportContext):
    """An exporter's context over only the changed items: its files go under <lang>/changes/
    (changes/print-shop/, changes/png/), apart from the full exports a shop may be sent."""

    def folder(self) -> str:
        return f"{super().folder()}/changes"


def reprint_command(project: Project, args) -> int:
    since = None if args.changed_since in ("last", "") else args.changed_since
    games = args.games or project.game_ids()
    with build.build_lock(project):
        for game in games:
            new = load_game(project, game)
            with baseline(project, game, since) as (old, words):
                changes = compare(old, new, words)
                print(summary(changes))
                written = write_changes(project, changes, _options(args))
            for rel in written:
                print(f"  {rel}")
            if not written:
                print(f"  {game}: no face changed; nothing to reprint", file=sys.stderr)
    return 0


def _options(args) -> build.Options:
    """The print options that shape the files: papers, duplex, back offset and exports."""
    return build.Options(
        papers=args.paper,
        duplex=getattr(args, "duplex", None),
        back_offset=parse_offset(getattr(args, "back_offset", None)),
        one_per_page=getattr(args, "one_per_page", None),
        exports=getattr(args, "export", None),
    )


def write_changes(project: Project, changes: Changes, options: build.Options) -> list[str]:
    """Every changes-<paper>.pdf of the game, and the changed items' print-shop and png files
    when those exports are on; returns their paths. The manifest is updated."""
    content = changes.new
    papers = options.papers
    plan = build.export_plan(content, options)
    files, sheets = [], []
    for lang in content.languages:
        wanted = changes.changed_items(lang)
        comps = [
            dataclasses.replace(c, items=[i for i in c.items if (c.id, i.id) in wanted])
            for c in content.components
        ]
        comps = [c for c in comps if c.items]
        removed = [fp for fp in changes.langs[lang].removed if fp.side == "front"]
        if not comps and not removed:
            continue
        settings = {c.id: build.settings_for(content, c, options) for c in content.components}
        for paper in papers or content.game.print.papers:
            paper_size(project, paper)
            rel = f"output/{content.id}/{lang}/changes-{paper}.pdf"
            entry, pages = _write_one(project, changes, lang, paper, comps, removed, settings, rel)
            files.append(entry)
            sheets += pages
        if comps:
            part = _write_exports(project, changes, lang, comps, plan)
            files += part["files"]
            sheets += part["sheets"]
    _update_manifest(project, content.id, files, sheets)
    return [f["path"] for f in files]


def _write_exports(project: Project, changes: Changes, lang: str, comps, plan) -> dict:
    """The print-shop and png files of the changed items (each with its back, in the counts
    the content asks for), by the exporters themselves over a game of just those items."""
    subset = dataclasses.replace(changes.new, components=comps)
    ids = {c.id for c in comps}
    files: list[dict] = []
    sheets: list[dict] = []
    for spec, members in plan:
        fmt = EXPORTS.get(spec.format)
        settings = {cid: s for cid, s in members.items() if cid in ids}
        if fmt is None or not settings:
            continue
        ctx = ChangesContext(subset, lang, spec, settings)
        exporter = exports.exporter(spec.format)
        for job in exporter.plan(ctx):
            with exports.Outputs(project.root, job.paths) as outputs:
                part = exporter.write(ctx, job, outputs)
                outputs.check_complete()
                for rel, tmp in outputs.written.items():  # linted before it is committed
                    if rel.endswith(".pdf"):
                        build.lint_written(project, tmp, rel)
            for entry in part["files"]:
                files.append(dict(entry, format=fmt, since=changes.since))
            sheets += part["sheets"]
    return {"files": files, "sheets": sheets}


def _write_one(project, changes, lang, paper, comps, removed, settings, rel):
    content = changes.new
    out = project.root / rel
    replace = _replace_list(changes, lang, comps)
    with fsio.atomic_path(out) as tmp:
        sheets_tmp = tmp.with_name(tmp.name + ".sheets")
        try:
            part = None
            if comps:
                job = SheetJob(
                    content, lang, paper, tuple(comps), settings, sheets_tmp, rel, packed="changes"
                )
                part = writer.write(job)
            _first_page(content, lang, paper, changes.since, replace, removed, tmp)
            pages = _join(tmp, sheets_tmp if part else None)
        finally:
            sheets_tmp.unlink(missing_ok=True)
        build.lint_written(project, tmp, rel)
    sheet_pages = []
    for page in part["sheets"] if part else []:
        page = dict(page, page=page["page"] + 1)  # after the "replace these" page
        sheet_pages.append(page)
    entry = entries.file_entry(
        rel,
        "export",
        lang,
        fmt=FORMAT,
        paper=paper,
        pages=pages,
        since=changes.since,
        replace=replace,
        removed=[{"component": fp.component, "item": fp.item} for fp in removed],
        duplex=part["file"].get("duplex") if part else None,
    )
    return entry, sheet_pages


def _marked(content: GameContent) -> bool:
    """The game's faces carried a version mark (game-wide or on some component)."""
    return content.game.print.version_mark is not None or any(
        c.model.print is not None and c.model.print.version_mark is not None
        for c in content.components
    )


def _replace_list(changes: Changes, lang: str, comps) -> list[dict]:
    """One row per item to reprint: its name, count, and the mark of the old cards (the old
    front's hash, which the old cards show when the game printed version marks)."""
    ch = changes.langs[lang]
    marks = lang in changes.old.languages and _marked(changes.old)
    out = []
    for comp in comps:
        for item in comp.items:
            key = (comp.id, item.id, "front")
            was = ch.before.get(key)
            row: dict = {
                "component": comp.id,
                "name": templating.pick(comp.model.name, lang),
                "item": item.id,
                "count": item.count,
                "new": was is None,
            }
            if was is not None:
                row["old_count"] = was.count
                if marks:
                    row["old_mark"] = was.digest[:6]
            out.append(row)
    return out


def _first_page(
    content: GameContent, lang: str, paper: str, since: str, replace, removed, out: Path
) -> None:
    """Page 1: what to take out of the box and what goes in instead."""

    renderer = FaceRenderer(content, lang)
    W, H = paper_size(content.project, paper)
    words = texts(content.project.templates, lang)
    canvas = faces.new_canvas(out, (W, H), renderer, f"{content.id} - changes")
    face = renderer.fonts.default
    margin = 20 * 72 / 25.4
    title = templating.pick(content.game.title, lang)
    lines: list[tuple[float, str]] = [(16, words["changes_title"].format(game=title))]
    lines.append((9, words["changes_intro"].format(since=since)))
    for row in replace:
        if row["new"]:
            how = words["changes_new"].format(count=row["count"])
        elif row.get("old_mark"):
            how = words["changes_take_out"].format(count=row["old_count"], mark=row["old_mark"])
        else:
            how = words["changes_take_out_plain"].format(count=row["old_count"])
        lines.append((10, f"[ ] {row['name']} · {row['item']} × {row['count']} — {how}"))
    if removed:
        lines.append((11, words["changes_removed"]))
        lines += [(10, f"[ ] {fp.name} · {fp.item} × {fp.count}") for fp in removed]
    y = H - margin
    for size, text in lines:
        if y < margin + size:
            canvas.showPage()
            y = H - margin
        y -= size * 1.6
        canvas.setFont(face.name, size)
        canvas.drawString(margin, y, _printable(face, text))
    canvas.showPage()
    canvas.save()


def _printable(face, text: str) -> str:
    """Only what the bundled font can draw."""
    return "".join(c for c in text if face.covers(c) or c == " ")


def _join(first: Path, sheets: Path | None) -> int:
    """The sheets appended after the first page(s), in place; returns the page count."""
    import pikepdf

    with pikepdf.open(first, allow_overwriting_input=True) as pdf:
        if sheets is not None:
            with pikepdf.open(sheets) as more:
                pdf.pages.extend(more.pages)
                pdf.save(first, deterministic_id=True)
        return len(pdf.pages)


def _update_manifest(project: Project, game: str, files: list[dict], sheets: list[dict]) -> None:
    """The build manifest lists the change files (replacing those of an earlier run, whose
    files this run did not write again are removed: a changes folder holds one run's changes)."""
    path = project.output / game / "build-manifest.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = {"game": game, "files": [], "sheets": []}
    old = {f["path"] for f in data.get("files", []) if f.get("format") in FORMATS}
    data["files"] = [f for f in data.get("files", []) if f["path"] not in old] + files
    data["sheets"] = [s for s in data.get("sheets", []) if s["file"] not in old] + sheets
    try:
        fsio.write_bytes(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")).encode())
    except OSError as exc:
        raise build.write_error(exc, path) from None
    _remove_stale(project, game, old - {f["path"] for f in files})


def _remove_stale(project: Project, game: str, paths: set[str]) -> None:
    """Delete change files an earlier run listed and this one did not write (only files under
    output/<game>/ that the manifest named; never a folder)."""
    folder = (project.output / game).resolve()
    for rel in sorted(paths):
        target = project.root / rel
        try:
            if not (target.parent.resolve().is_relative_to(folder) and target.is_file()):
                continue
            target.unlink()
            # and the folders that held only it (changes/png/<component>/, changes/png/...)
            parent = target.parent.resolve()
            while parent != folder and parent.is_relative_to(folder) and not any(parent.iterdir()):
                parent.rmdir()
                parent = parent.parent
        except OSError:
            continue  # a file we cannot remove stays; the manifest no longer lists it

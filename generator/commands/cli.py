"""Command line: pnp print | check | i18n | calibrate | schema.

Exit codes: 0 ok, 1 error findings, 2 cannot run.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import functools
import gc
import json
import os
import re
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

from generator import fsio, session
from generator.errors import ContentError, Finding, rel
from generator.units import parse_offset

EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # what a shell reports for a command a closed pipe stopped (SIGPIPE)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, as every other failure (not usage + error)
        self.exit(EXIT_CANNOT_RUN, f"{self.prog}: error: {message}; see {self.prog} --help\n")


@functools.cache  # once per process: a watch loop or a test run parses many command lines
def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="pnp",
        description="Print-and-play component generator.",
        epilog=PROJECT_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--root", type=Path, help="project folder (default: found from the current folder)"
    )
    p.add_argument("--debug", action="store_true", help="show tracebacks")
    sub = p.add_subparsers(dest="command", required=True)

    pr = sub.add_parser("print", help="check, then build every game (or the ones named)")
    pr.add_argument("games", nargs="*")
    pr.add_argument(
        "--paper", action="append", help="a4, letter... (repeat for several; default: each game's)"
    )
    pr.add_argument("--duplex", choices=["long-edge", "short-edge"])
    pr.add_argument(
        "--back-offset", metavar="X,Y", help="move backs by X,Y mm to match your printer"
    )
    pr.add_argument(
        "--one-per-page",
        action="store_true",
        default=None,
        help="also write print-shop PDFs: one face per page with TrimBox and BleedBox",
    )
    pr.add_argument(
        "--export",
        action="append",
        metavar="NAME",
        help="write only this export (repeat for several): sheets, print-shop, png, tts, "
        "gutterfold, ink-saver; default: each game's print.exports",
    )
    pr.add_argument("--force", action="store_true", help="rebuild even unchanged targets")
    pr.add_argument(
        "-j", "--jobs", type=_jobs, default=0, help="parallel jobs (default: all cores)"
    )
    _changed_since_option(pr)

    ck = sub.add_parser("check", help="validate games without writing anything")
    ck.add_argument("games", nargs="*")
    ck.add_argument("--format", choices=["text", "json"], default="text")
    ck.add_argument(
        "--show-accepted",
        action="store_true",
        help="list every accepted finding (default: one summary line per game)",
    )

    i18 = sub.add_parser("i18n", help="translations: status, review, PO export and import")
    isub = i18.add_subparsers(dest="i18n_command", required=True)
    st = isub.add_parser("status", help="per language: translated, stale (old/new), missing")
    st.add_argument("games", nargs="*")
    st.add_argument("--lang", action="append", help="only this language (repeat for several)")
    sy = isub.add_parser("sync", help="mark translations reviewed against the current source")
    sy.add_argument("games", nargs="*")
    sy.add_argument("--lang", action="append", help="only this language (repeat for several)")
    sy.add_argument("--section", action="append", help="only this section, e.g. 3.2 (repeat)")
    sy.add_argument("--all", action="store_true", help="every language and every string")
    ap = isub.add_parser(
        "approve", help="record reviewed translations as approved (a second reader's sign-off)"
    )
    ap.add_argument("games", nargs="*")
    ap.add_argument("--lang", action="append", help="only this language (repeat for several)")
    ap.add_argument("--section", action="append", help="only this section, e.g. 3.2 (repeat)")
    ex = isub.add_parser("export", help="write a PO file (a POT with --template) for translators")
    ex.add_argument("game")
    ex.add_argument("--lang", help="the target language (not needed with --template)")
    ex.add_argument("--template", action="store_true", help="a POT: sources, empty msgstr")
    ex.add_argument("-o", "--output", type=Path, help="file (default output/i18n/GAME.LANG.po)")
    ex.add_argument(
        "--context",
        type=Path,
        metavar="DIR",
        help="also write a PNG per component string: the face where it prints, its place "
        "outlined, named by the entry's msgctxt",
    )
    im = isub.add_parser("import", help="write a translated PO file back into the content")
    im.add_argument("game")
    im.add_argument("po", type=Path)
    im.add_argument("--lang", help="default: the PO file's Language header")
    im.add_argument(
        "--accept-old",
        action="store_true",
        help="apply entries made against an older source text too (recorded as stale)",
    )
    ad = isub.add_parser("add", help="add a language as a draft and write its PO file")
    ad.add_argument("game")
    ad.add_argument("lang")
    ad.add_argument("-o", "--output", type=Path, help="file (default output/i18n/GAME.LANG.po)")

    ca = sub.add_parser(
        "calibrate", help="write a duplex test sheet that measures your printer's back offset"
    )
    ca.add_argument("--paper", default="a4", help="a4, letter... (default: a4)")
    ca.add_argument("--duplex", choices=["long-edge", "short-edge"], default="long-edge")
    ca.add_argument("--out", type=Path, default=None, help="folder (default: output/calibration)")
    _designer_parsers(sub)
    _playtest_parsers(sub)
    _project_parsers(sub)

    ch = sub.add_parser(
        "cache", help="what pnp keeps between commands (info), and forgetting it (clear)"
    )
    csub = ch.add_subparsers(dest="action", required=True)
    ci = csub.add_parser("info", help="what the user cache folder and this project keep, and where")
    ci.add_argument("--format", choices=["text", "json"], default="text")
    cc = csub.add_parser("clear", help="empty the user cache folder (never changes an output)")
    cc.add_argument(
        "kinds",
        nargs="*",
        metavar="KIND",
        help="only these kinds (models, digests, fonts, templates)",
    )

    sc = sub.add_parser("schema", help="write JSON Schemas of the content files, for editors")
    sc.add_argument("--out", type=Path, default=Path("schema"), help="folder (default: ./schema)")
    return p


def _playtest_parsers(sub) -> None:
    """Playtest iterations (docs/playtest.md): what changed since a revision or the last build."""
    df = sub.add_parser(
        "diff", help="list the faces and rulebook sections changed since a git revision"
    )
    df.add_argument("games", nargs="*")
    df.add_argument(
        "--since",
        metavar="REF",
        help="a git revision (HEAD~1, a tag); default: what the last `pnp print` built",
    )


def _changed_since_option(pr) -> None:
    pr.add_argument(
        "--changed-since",
        metavar="REF",
        help="write only changes-<paper>.pdf: the faces changed since REF (a git revision, or "
        "'last' for the last build), with their backs and a 'replace these' page (and, when "
        "those exports are on, changes/print-shop/ and changes/png/ of the same faces)",
    )


def _record_built(project, contents) -> None:
    """Keep what each game was built from: `pnp diff` compares with it by default."""
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.build.faceprints import save_snapshot

    for content in contents:
        save_snapshot(project, content.id)


def cmd_diff(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.diff import diff_command

    return diff_command(project, args)


def cmd_changed_since(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.reprint import reprint_command

    return reprint_command(project, args)


def _designer_parsers(sub) -> None:
    """The designer's loop: one face, the preview gallery, watch mode, a new game."""
    rd = sub.add_parser("render", help="draw one face to PNG (or PDF) and print its findings")
    rd.add_argument("game")
    rd.add_argument("component")
    rd.add_argument("item")
    rd.add_argument("--lang", help="language (default: the game's first)")
    rd.add_argument("--side", choices=["front", "back"], default="front")
    rd.add_argument("--dpi", type=float, default=200, help="PNG resolution (default 200)")
    rd.add_argument(
        "-o",
        "--out",
        type=Path,
        help="file to write, .png or .pdf (default: output/<game>/render/)",
    )

    nw = sub.add_parser("new", help="start a new game from a working starter")
    nw.add_argument("game", help="the game id: lowercase letters, digits and '-'")
    nw.add_argument(
        "--langs",
        default="en",
        help="comma-separated ISO 639-1 codes the starter has text for (default: en); add "
        "others afterwards with `pnp i18n add`",
    )

    pv = sub.add_parser("preview", help="write output/<game>/preview/index.html: every face")
    pv.add_argument("games", nargs="*")

    wa = sub.add_parser(
        "watch", help="rebuild what each save changes, serve the preview on 127.0.0.1 and reload it"
    )
    wa.add_argument("game", nargs="?", help="the game (default: the only one in content/)")
    wa.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port)")
    wa.add_argument("-j", "--jobs", type=int, default=0, help="parallel jobs (default: all cores)")


PROJECT_HELP = """\
the project:
  pnp works on the project it finds from the current folder: the nearest folder, here or
  above, holding a pnp.toml (made by `pnp init`) or content/ beside templates/.
  --root DIR names it instead; so does the environment variable PNP_ROOT=DIR.
  pnp's defaults (fonts, languages, rulebook templates, sizes, printer presets, the starter)
  come with pnp; a file in the project's templates/ overrides the default of the same name
  (`pnp templates list`, `pnp templates eject NAME`).

start: pnp init my-games --game my-game --langs en,es
"""


def _project_parsers(sub) -> None:
    """A project of one's own: init, pnp's templates, a component from a spreadsheet."""
    it = sub.add_parser(
        "init", help="make a project here or in DIR (pnp.toml, content/, .gitignore, README)"
    )
    it.add_argument("dir", nargs="?", type=Path, default=Path("."), help="default: here")
    it.add_argument("--name", help="the project's name (default: the folder's name)")
    it.add_argument("--game", help="also start a game with this id (as `pnp new`)")
    it.add_argument("--langs", default="en", help="the game's languages (default: en)")

    tp = sub.add_parser("templates", help="pnp's default templates: list, or eject one to change")
    tsub = tp.add_subparsers(dest="templates_command", required=True)
    tsub.add_parser("list", help="every default, and which ones the project overrides")
    ej = tsub.add_parser("eject", help="copy one default (a file or a folder) into templates/")
    ej.add_argument("name", help="as `pnp templates list` shows it, or a file name: rulebook.css")
    ej.add_argument("--force", action="store_true", help="replace the project's own copy")

    ims = sub.add_parser(
        "import-sheet",
        help="a component from a spreadsheet (.csv, .xlsx, .ods): one card per row, a layout "
        "showing every column",
    )
    ims.add_argument("file", type=str, help="the spreadsheet; FILE#Sheet picks a sheet")
    ims.add_argument("--game", help="the game (default: the only one in content/)")
    ims.add_argument("--id", dest="component", help="component id (default: from the file name)")
    ims.add_argument("--sheet", help="the sheet to read (default: the first)")


def cmd_init(args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.init import init_project
    from generator.commands.starter import new_game

    project, written = init_project(args.dir, args.name)
    shown = project.root if args.dir.is_absolute() else args.dir
    print(f"pnp init: {shown}: {', '.join(written)}")
    if args.game:
        langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
        with session.new():
            folder, notes = new_game(project, args.game, langs)
        print(f"pnp new: {folder.relative_to(project.root)}/")
        for note in notes:
            print(f"  note: {note}")
        print(f"next: cd {shown}; pnp check; pnp print; pnp preview {args.game}")
    else:
        print(f"next: cd {shown}; pnp new my-game --langs en,es")
    return EXIT_OK


def cmd_templates(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.init import eject, list_templates

    if args.templates_command == "list":
        for rel, overridden in list_templates(project):
            print(f"{rel}{'  (yours: templates/' + rel + ')' if overridden else ''}")
        return EXIT_OK
    for path in eject(project, args.name, args.force):
        print(f"pnp templates: wrote {path.relative_to(project.root)}")
    return EXIT_OK


def cmd_import_sheet(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.import_sheet import import_sheet

    written, notes = import_sheet(project, Path(args.file), args.game, args.component, args.sheet)
    for path in written:
        print(f"pnp import-sheet: wrote {path.relative_to(project.root)}")
    for note in notes:
        print(f"  note: {note}")
    comp = written[-2].stem
    game = written[-1].parent.parent.name
    print(f"next: pnp preview {game}; pnp render {game} {comp} ITEM")
    return EXIT_OK


def cmd_watch(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.watch import watch

    games = project.game_ids()
    game = args.game or (games[0] if len(games) == 1 else None)
    if game is None:
        raise ContentError(
            "pnp watch needs a game", code="usage", hint=f"one of: {', '.join(games)}"
        )
    if game not in games:
        raise ContentError(f"no game '{game}' in content/", code="usage")
    if not 0 <= args.port <= 65535:
        raise ContentError(f"--port {args.port} is not a port number", code="usage")
    return watch(project, game, args.port, args.jobs)


def cmd_preview(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.preview import write_preview

    status = EXIT_OK
    for content in _load(project, args.games):
        # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
        # command needs these.
        from generator.check import check_game

        findings = check_game(content, grouped=False)  # each face shows its own findings
        index = write_preview(content, findings)
        errors = sum(1 for f in findings if f.severity == "error" and not f.accepted)
        print(f"{index.relative_to(project.root)}: {errors} error(s) shown on the faces")
        if errors:
            status = EXIT_FINDINGS
    return status


def cmd_new(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.starter import new_game

    langs = [lang.strip() for lang in args.langs.split(",") if lang.strip()]
    folder, notes = new_game(project, args.game, langs)
    print(f"pnp new: {folder.relative_to(project.root)}/ (its layouts in layouts/)")
    for note in notes:
        print(f"  note: {note}")
    print(f"next: pnp check {args.game}; pnp render {args.game} cards scout; pnp print {args.game}")
    return EXIT_OK


def cmd_render(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.build.run import Options, settings_for
    from generator.commands.face import face_findings, find_face, save_face

    if not 10 <= args.dpi <= 1200:
        raise ContentError(f"--dpi {args.dpi:g} is outside 10..1200", code="usage")
    (content,) = _load(project, [args.game])
    ref = find_face(content, args.component, args.item, args.lang, args.side)
    bleed = settings_for(content, ref.comp, Options()).bleed.points
    if args.out is not None and str(args.out) in ("", "."):
        raise ContentError("-o: an empty path names no file", code="usage", hint="e.g. -o face.png")
    out = args.out or fsio.output_path(
        project.root,
        f"output/{content.id}/render/{ref.comp.id}-{ref.item.id}-{ref.lang}-{ref.side}.png",
    )
    if args.out is not None:
        fsio.user_target(out)  # a folder is refused before drawing, a FIFO written through
    if out.suffix.lower() not in (".png", ".pdf") or not out.name:
        raise ContentError(
            f"-o {out.name}: pnp renders a face to .png or .pdf",
            code="usage",
            hint=f"e.g. -o {out.with_suffix('.png').name}",
        )
    findings = face_findings(content, ref)
    try:
        save_face(content, ref, out, args.dpi, bleed)
        drawn = True
    except ContentError as exc:  # the face cannot be drawn: say where, as `pnp check` does
        drawn = False
        if not any(f.severity == "error" for f in findings):
            findings.append(Finding.from_error(exc, content.id, root=project.root))
    for f in findings:
        print(f.format())
    face = f"{ref.comp.id}/{ref.item.id} {ref.side}, {ref.lang}"
    if not drawn:
        print(f"{out}: not written: {face} cannot be drawn; {len(findings)} finding(s)")
        return EXIT_FINDINGS
    print(f"{out}: {face}; {len(findings)} finding(s)")
    return EXIT_FINDINGS if any(f.severity == "error" and not f.accepted for f in findings) else 0


def _stacks_on_request() -> None:
    """`kill -USR2 <pid>` prints where every thread of a pnp that seems stuck is, to stderr."""
    import faulthandler
    import signal

    with contextlib.suppress(AttributeError, ValueError, OSError):  # no SIGUSR2, not main thread
        faulthandler.register(signal.SIGUSR2, file=2, all_threads=True)


def _jobs(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if not 0 <= value <= 256:
        raise argparse.ArgumentTypeError(f"{value} is out of range 0-256 (0: all cores)")
    return value


# True in a process that runs one command and exits (run(), the `pnp` command); False when
# main() is called as a library (the tests, a watch's rebuilds).
_ONE_SHOT = False


def _load(project, names):
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.load.content import load_game

    ids = names or project.game_ids()
    if not ids:
        raise ContentError(
            "no games in content/",
            project.content,
            code="no-games",
            hint="add content/<game>/game.yaml",
        )
    with _uncollected():
        return [load_game(project, g) for g in ids]


def _check(contents):
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.check import check_games

    with _uncollected():
        return check_games(contents)


@contextlib.contextmanager
def _uncollected():
    """Loading and checking, in a process that runs one command: what they keep (pnp's modules,
    the games, the face layouts the check hands to the drawing) lives to the end of the command,
    and they make almost no cyclic garbage (a few hundred objects for a 10,000-card deck, some
    thousands for the project's four games). So the cyclic collector is off while they run,
    and what they leave is frozen: no collection walks it, then or later (with the collector
    on, 0.9 s of the check's 3.7 s CPU on a 10,000-card deck; docs/performance.md). Reference
    counting still frees what they drop."""
    if not _ONE_SHOT:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        session.freeze()
        if enabled:
            gc.enable()


def _print_findings(findings, stream=None, show_accepted: bool = False) -> None:
    stream = stream or sys.stdout  # looked up at call time: tests capture it
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.check.accepted import finding_id

    by_game: dict[str, list] = {}
    for f in findings:
        if f.accepted and not show_accepted:
            by_game.setdefault(f.game or "?", []).append(f)
        elif f.accepted:  # still shown, but it no longer counts: one line with the reason
            where = f.file + (f":{f.line}" if f.line else "")
            print(
                f"{where}: accepted: [{f.code}] {f.message} (reason: {f.accepted})"
                f"  [id {finding_id(f)}]",
                file=stream,
            )
        else:
            print(f"{f.format()}  [id {finding_id(f)}]", file=stream)
    for game, group in by_game.items():  # reviewed and accepted: one line per game
        codes: dict[str, int] = {}
        for f in group:
            codes[f.code] = codes.get(f.code, 0) + 1
        print(
            f"{game}: {len(group)} accepted ("
            + ", ".join(f"{code} {n}" for code, n in sorted(codes.items()))
            + "); --show-accepted lists them",
            file=stream,
        )
    errors = sum(1 for f in findings if f.severity == "error" and not f.accepted)
    warnings = sum(1 for f in findings if f.severity == "warning" and not f.accepted)
    accepted = sum(1 for f in findings if f.accepted)
    print(
        f"{errors} error(s), {warnings} warning(s)"
        + (f", {accepted} accepted" if accepted else ""),
        file=stream,
    )


def cmd_check(project, args) -> int:
    contents = _load(project, args.games)
    findings = _check(contents)
    if args.format == "json":
        # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
        # command needs these.
        from generator.check.accepted import finding_id

        print(
            json.dumps(
                [dict(f.as_dict(), id=finding_id(f)) for f in findings],
                ensure_ascii=False,
                indent=1,
            )
        )
    else:
        _print_findings(findings, show_accepted=args.show_accepted)
    return (
        EXIT_FINDINGS
        if any(f.severity == "error" and not f.accepted for f in findings)
        else EXIT_OK
    )


def cmd_print(project, args) -> int:
    import hashlib

    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.build import run as build
    from generator.build import stamp as kit_stamp

    if args.paper and len(set(args.paper)) != len(args.paper):
        raise ContentError(
            f"--paper lists a paper twice ({', '.join(args.paper)})",
            code="usage",
            hint="name each paper once",
        )
    options = build.Options(
        papers=args.paper,
        duplex=args.duplex,
        back_offset=parse_offset(args.back_offset),
        one_per_page=args.one_per_page,
        exports=args.export,
        force=args.force,
        jobs=args.jobs,
    )
    started = time.monotonic()
    with build.build_lock(project):
        digests, unchanged = _stamps(project, args.games, options)
        if unchanged is not None:
            _say_built(project, 0, unchanged, started)
            return EXIT_OK
        contents = _load(project, args.games)
        # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
        # command needs these.
        from generator.build.keys import check_key

        # Check first, and stop before writing anything if there are errors. A passing check is
        # remembered against the hash of everything it read (and pnp's code), so a rebuild of
        # unchanged content skips it, --force included: the same inputs give the same findings.
        stale = []
        for content in contents:
            keys = "".join(t.key for t in build.plan_targets(project, content, options))
            keys = hashlib.sha256((keys + check_key(content)).encode()).hexdigest()
            # a game with a draft language is always checked: it decides which drafts build
            if build.load_checked(project, content.id) != keys or content.game.drafts:
                stale.append((content, keys))
        if stale:
            findings = _check([c for c, _ in stale])
            _skip_broken_drafts([c for c, _ in stale], findings)
            if findings:
                _print_findings(findings, sys.stderr)
            if any(f.severity == "error" and not f.accepted for f in findings):
                print(
                    "pnp print: stopped, nothing written: fix the errors above "
                    "(or accept them in accepted.yaml)",
                    file=sys.stderr,
                )
                return EXIT_FINDINGS
            for content, keys in stale:
                build.save_checked(project, content.id, keys)
        for content in contents:
            kit_stamp.remove(project, content.id)
        result = build.build(project, contents, options)
        _record_built(project, contents)
        for content in contents:
            # a draft language's check decides, each time, whether it builds: never stamped
            if content.id in digests and not content.game.drafts:
                files, total = result["files"][content.id], result["totals"][content.id]
                kit_stamp.write(project, content.id, digests[content.id], files, total)
    for notice in result.get("notices", []):
        print(f"pnp print: {notice}", file=sys.stderr)
    _say_built(project, result["built"], result["total"], started)
    return EXIT_OK


def _stamps(project, names, options) -> tuple[dict[str, str], int | None]:
    """For a whole-kit print (no paper, export or print option): each game's input digest, to
    stamp its kit once built; and, without --force, the kits' target count when every stamp
    says nothing changed since their last whole-kit build (else None). Nothing is loaded or
    imported to find out (kit_stamp)."""
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.build import run as build
    from generator.build import stamp as kit_stamp

    known = project.game_ids()
    ids = names or known
    if not build.whole_kit(options) or not ids or not set(ids) <= set(known):
        return {}, None
    digests = {g: kit_stamp.inputs_digest(project, g) for g in ids}
    if options.force:
        return digests, None
    totals = [kit_stamp.up_to_date(project, g, digests[g]) for g in ids]
    return digests, None if None in totals else sum(t or 0 for t in totals)


def _say_built(project, built: int, total: int, started: float) -> None:
    took = time.monotonic() - started
    print(
        f"pnp print: {built} of {total} files built ({total - built} up to date) in {took:.2f} s; "
        f"manifests in {project.output.relative_to(project.root)}/<game>/build-manifest.json"
    )


def _skip_broken_drafts(contents, findings) -> None:
    """A draft language with errors is skipped, with a notice; the others still build."""
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.i18n import drafts

    for content in contents:
        mine = [f for f in findings if f.game == content.id]
        content.skip_languages = drafts.blocked(content, mine)
        for lang in sorted(content.skip_languages):
            print(
                f"pnp print: {content.id}: draft language {lang} has errors (shown above as "
                f"'draft {lang}' warnings): not built this time",
                file=sys.stderr,
            )


def cmd_i18n(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands import i18n as commands

    return commands.run(project, args, _load, _check, _print_findings)


def cmd_calibrate(project, args) -> int:
    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.commands.calibrate import write_calibration

    if args.out is not None and str(args.out) in ("", "."):
        raise ContentError("--out: an empty path names no folder", code="usage")
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ContentError("--out: not a folder", args.out, code="usage")
    out_dir = args.out or fsio.output_path(project.root, "output/calibration/x").parent
    manifest = write_calibration(project, args.paper, args.duplex, out_dir)
    print(manifest["files"][0]["path"])
    print(
        "print both pages duplex at 100 %, read X and Y where the back lines cross the scales, "
        "then: pnp print --back-offset X,Y"
    )
    return EXIT_OK


def cmd_schema(project, args) -> int:
    import pydantic

    # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
    # command needs these.
    from generator.check.accepted import AcceptedFile
    from generator.check.i18n import SyncSchema
    from generator.load import model
    from generator.load.glossary import GlossaryFile
    from generator.render import boxes

    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    docs: dict[str, type[pydantic.BaseModel]] = {
        "game": model.Game,
        "component": model.Component,
        "manifest": model.Manifest,
        "layout": boxes.Layout,
        "glossary": GlossaryFile,
        "accepted": AcceptedFile,
        "i18n-sync": SyncSchema,
    }
    for name, cls in docs.items():
        schema = cls.model_json_schema(by_alias=True, mode="validation")
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        schema["title"] = f"pnp {name} file"
        (out / f"{name}.schema.json").write_text(json.dumps(schema, indent=1, ensure_ascii=False))
        print(out / f"{name}.schema.json")
    return EXIT_OK


def run() -> NoReturn:
    """The `pnp` command (and `python -m generator`): main() in a process of its own."""
    global _ONE_SHOT
    _ONE_SHOT = True
    leave(main())


def leave(code: int) -> NoReturn:
    """Exit with `code` once what is said is out and the exit handlers ran, without tearing
    the interpreter down: freeing a command's objects one by one, and the collections that
    come with it, cost about 0.2 s at the end of a 1,000-card build, and nothing is left to
    save by then (every file pnp writes is flushed and renamed into place before its command
    returns). With another thread still running, the ordinary exit waits for it."""
    if threading.active_count() > 1:
        raise SystemExit(code)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BrokenPipeError:  # the reader went away: as main() does, stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = code or EXIT_BROKEN_PIPE
    except (OSError, ValueError):  # stdout closed (`pnp check >&-`): nothing more can be said
        pass
    atexit._run_exitfuncs()  # pools, temporary folders, logging: as an ordinary exit runs them
    os._exit(code)


def _glued_offsets(argv: list[str]) -> list[str]:
    """`--back-offset -1.5,2` as `--back-offset=-1.5,2`: argparse takes a value starting with
    "-" for an option, and the number read on the calibration sheet is often negative."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--back-offset" and re.fullmatch(r"-[0-9.]+,.*", arg):
            out[-1] = f"--back-offset={arg}"
        else:
            out.append(arg)
    return out


def main(argv=None) -> int:
    _stacks_on_request()
    argv = _glued_offsets(list(sys.argv[1:] if argv is None else argv))
    args = _parser().parse_args(argv)
    root = args.root.resolve() if args.root else None  # findings name files relative to it
    try:
        # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only this
        # command needs these.
        from generator.load.project import Project, find_project

        if args.command == "init":  # makes the project: none to find first
            return cmd_init(args)
        if args.root and not args.root.is_dir():
            raise ContentError(
                "--root is not a folder", args.root, code="usage", hint="give the project folder"
            )
        if args.command == "cache":  # the user's cache folder: a project is optional
            # Deferred for start-up time: cli loads about 100 modules (--help, usage errors); only
            # this command needs these.
            from generator.commands import cache

            found = None
            if args.root:
                found = Project(args.root.resolve())
            else:
                with contextlib.suppress(ContentError):
                    found = find_project()
            with session.new():
                return cache.run(found, args)
        project = Project(args.root.resolve()) if args.root else find_project()
        root = project.root
        fsio.check_output_tree(project.root)  # a symlink there would send writes elsewhere
        finished = fsio.recover(project.root)  # files written together, cut short last time
        if finished:
            print(finished, file=sys.stderr)

        command = {
            "print": cmd_print,
            "check": cmd_check,
            "i18n": cmd_i18n,
            "schema": cmd_schema,
            "calibrate": cmd_calibrate,
            "render": cmd_render,
            "new": cmd_new,
            "preview": cmd_preview,
            "watch": cmd_watch,
            "diff": cmd_diff,
            "templates": cmd_templates,
            "import-sheet": cmd_import_sheet,
        }[args.command]
        if args.command == "print" and args.changed_since:
            command = cmd_changed_since
        with session.new():  # caches live for this command only (safe in a long-running process)
            return command(project, args)
    except ContentError as exc:
        if args.debug:
            raise
        if getattr(args, "format", None) == "json":
            finding = Finding.from_error(exc, root=root)
            print(json.dumps([finding.as_dict()], ensure_ascii=False))
        print(f"pnp: error: {exc.format(root)}", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except BrokenPipeError:
        # The reader went away (`pnp check | head -1`): stop quietly, as other tools do, and let
        # nothing more reach the closed pipe (the exit's own flush would complain).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except OSError as exc:  # file-system state (a full disk, a read-only folder): name the path
        if args.debug:
            raise

        where = f"{rel(exc.filename)}: " if getattr(exc, "filename", None) else ""
        print(f"pnp: error: {where}cannot read or write ({exc.strerror or exc})", file=sys.stderr)
        return EXIT_CANNOT_RUN
    except Exception as exc:  # a bug in pnp, not in the content: say so, briefly
        if args.debug:
            raise
        print(
            f"pnp: internal error: {type(exc).__name__}: {exc}; run again with --debug "
            "for the traceback and report it",
            file=sys.stderr,
        )
        return EXIT_CANNOT_RUN
    except KeyboardInterrupt:
        print("pnp: interrupted; build stopped, no partial files left", file=sys.stderr)
        build = sys.modules.get("generator.build.run")
        if build is not None and getattr(build, "POOL_STOPPED", False):
            # The killed pool's threads and queues must not hold the exit (see build._stop):
            # everything is cleaned up and said, so leave now.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)
        return 130

"""`pnp i18n status | sync | export | import | add`."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import yaml

from generator.check.segments import pair
from generator.commands.i18n_context import write_pictures, write_rule_pictures
from generator.errors import ContentError, Finding
from generator.fsio import output_path
from generator.fsio import write_bytes as atomic_write
from generator.i18n import drafts, po, tracking
from generator.i18n.segments import all_segments, source_language
from generator.load import languages
from generator.load.content import GameContent
from generator.load.glossary import load_glossary
from generator.load.terms import index
from generator.load.yamlload import read_text
from generator.render.room import room_hints

EXIT_OK, EXIT_FINDINGS, EXIT_CANNOT_RUN = 0, 1, 2


def run(project, args, load, check, print_findings) -> int:
    command = args.i18n_command
    if command == "status":
        contents = load(project, args.games)
        _check_langs(contents, args.lang)
        return status(project, contents, args.lang)
    if command == "sync":
        return sync(project, args, load, check, print_findings)
    if command == "export":
        return export(project, args, load)
    if command == "import":
        return import_(project, args, load, print_findings)
    if command == "approve":
        return approve(project, args, load)
    return add(project, args, load)


# ---------------------------------------------------------------- --lang


def _check_langs(contents, wanted: list[str] | None, translation: bool = False) -> None:
    """Each language named is one of the games' (one of their translations, when `translation`):
    else one usage error naming the games' languages, before anything is written."""
    for lang in wanted or ():
        having = [c for c in contents if lang in c.languages]
        if not having:
            raise _not_a_language(contents, lang)
        if translation and all(lang == source_language(c) for c in having):
            raise ContentError(
                f"{lang} is the source language of {_names(having)}: its texts are what the "
                "translations are made from",
                code="usage",
                hint=_translations(having),
            )


def _names(contents) -> str:
    return " and ".join(c.id for c in contents)


def _translations(contents) -> str:
    if len(contents) == 1:
        theirs = ", ".join(contents[0].languages[1:])
        return f"its translations: {theirs}" if theirs else "it has no translation yet"
    return "translations: " + "; ".join(
        f"{c.id}: {', '.join(c.languages[1:]) or 'none'}" for c in contents
    )


def _not_a_language(contents, lang: str) -> ContentError:
    have = " or ".join(f"{c.id} ({', '.join(c.languages)})" for c in contents)
    close = languages.suggest(lang, {code for c in contents for code in c.languages})
    game = contents[0].id if len(contents) == 1 else "GAME"
    if languages.check_code(lang) is None:
        add = f"add it first: `pnp i18n add {game} {lang}`"
    else:
        add = f"a language is added with `pnp i18n add {game} CODE` (de, pt-BR)"
    return ContentError(
        f"'{lang}' is not a language of {have}",
        code="usage",
        hint=f"did you mean '{close}'? ({add})" if close else add,
    )


# ---------------------------------------------------------------- status


def _side_by_side(old: str | None, new: str, width: int = 46) -> list[str]:
    left = textwrap.wrap(" ".join((old or "(not recorded)").split()), width) or [""]
    right = textwrap.wrap(" ".join(new.split()), width) or [""]
    rows = max(len(left), len(right))
    left += [""] * (rows - len(left))
    right += [""] * (rows - len(right))
    out = [f"        {'was':<{width}} | now"]
    out += [f"        {a:<{width}} | {b}" for a, b in zip(left, right, strict=True)]
    return out


def status(project, contents, only: list[str] | None) -> int:
    for content in contents:
        segments = all_segments(content)
        record = tracking.load(content)
        source = source_language(content)
        tracked = "" if record.exists else "; nothing reviewed yet (no rules/i18n-sync.yaml)"
        print(f"{content.id}: source {source}, {len(segments)} segment(s){tracked}")
        states = tracking.states(content, segments, record)
        draft = drafts.drafts(content)
        for lang in content.languages:
            if lang == source and only and lang in only:
                print(f"  {lang}: the source language, nothing to translate")
            if lang == source or (only and lang not in only):
                continue
            mine = [s for s in states if s.lang == lang]
            count = {k: sum(1 for s in mine if s.status == k) for k in tracking.STATUSES}
            translated = len(mine) - count["missing"]
            approved = sum(1 for s in mine if s.approved)
            print(
                f"  {lang}{' (draft)' if lang in draft else ''}: {translated}/{len(mine)} "
                f"translated, {count['reviewed']} reviewed, {count['stale']} stale, "
                f"{count['unreviewed']} never reviewed, {count['missing']} missing"
                + (f", {count['fuzzy']} fuzzy" if count["fuzzy"] else "")
                + (f" ({approved} of the reviewed approved)" if approved else "")
            )
            for st in mine:
                if st.status == "fuzzy":
                    print(f"      fuzzy: {st.ctx}")
                if st.status == "stale":
                    print(f"      stale: {st.ctx}")
                    if record.legacy:
                        print("        (recorded per section before segment tracking)")
                    else:
                        print("\n".join(_side_by_side(st.old, st.segment.text)))
            missing = [s.ctx for s in mine if s.status == "missing"]
            if missing:
                shown = ", ".join(missing[:8]) + (
                    f", ... ({len(missing)})" if len(missing) > 8 else ""
                )
                print(f"      missing: {shown}")
    return EXIT_OK


# ---------------------------------------------------------------- sync


def sync(project, args, load, check, print_findings) -> int:
    if not (args.lang or args.section or args.all):
        raise ContentError(
            "say what was reviewed: --lang L, --section N or --all",
            code="usage",
            hint="e.g. `pnp i18n sync GAME --lang en --section 5.2`",
        )
    code = EXIT_OK
    contents = load(project, args.games)
    _check_langs(contents, args.lang, translation=True)
    for content in contents:
        source = source_language(content)
        langs = [
            lang
            for lang in content.languages
            if lang != source and (args.all or not args.lang or lang in args.lang)
        ]
        findings = check([content])
        blocking = [
            f
            for f in findings
            if not f.accepted
            and drafts.language_of(f) in langs
            and (f.severity == "error" or f.message.startswith("(draft "))
        ]
        if blocking:
            print_findings(blocking, sys.stderr)
            bad = sorted({drafts.language_of(f) or "" for f in blocking})
            print(
                f"pnp i18n sync: {content.id}: {', '.join(bad)} still has errors; fix them "
                "before marking the translation reviewed",
                file=sys.stderr,
            )
            code = EXIT_FINDINGS
            continue
        segments = all_segments(content)
        marked = tracking.mark(content, segments, langs, sections=args.section)
        for lang, contexts in marked.items():
            print(
                f"{content.id} {lang}: {len(contexts)} segment(s) marked reviewed against {source}"
            )
        if not marked:
            print(f"{content.id}: nothing to mark (check --lang and --section)")
        print(f"  -> {tracking.path_of(content).relative_to(project.root)}")
    return code


def approve(project, args, load) -> int:
    """Approved is a state of its own on top of reviewed: a second reader signs off the
    translation as it stands. An approval lapses when the translation or its source changes."""
    contents = load(project, args.games)
    _check_langs(contents, args.lang, translation=True)
    for content in contents:
        source = source_language(content)
        langs = [
            lang
            for lang in content.languages
            if lang != source and (not args.lang or lang in args.lang)
        ]
        done = tracking.approve(content, all_segments(content), langs, sections=args.section)
        for lang in langs:
            print(
                f"{content.id} {lang}: {len(done.get(lang, []))} reviewed segment(s) approved "
                "(stale, fuzzy and never-reviewed ones are not: review them first)"
            )
    return EXIT_OK


# ---------------------------------------------------------------- export / import


def _default_po(project, game: str, lang: str | None) -> Path:

    return output_path(
        project.root, f"output/i18n/{game}.{lang}.po" if lang else f"output/i18n/{game}.pot"
    )


def _room(content: GameContent) -> dict[str, str]:
    """The `#. room:` hint of each face string (render/room.py)."""
    strings = [(s.ctx, s.source.file, s.text) for s in all_segments(content) if s.kind == "string"]
    return room_hints(content, strings)


def export(project, args, load) -> int:
    (content,) = load(project, [args.game])
    if not args.template and not args.lang:
        raise ContentError("--lang is needed (or --template for a POT)", code="usage")
    lang = None if args.template else args.lang
    if lang is not None:
        _check_langs([content], [lang], translation=True)
    out = args.output or _default_po(project, content.id, lang)
    catalogue = po.export(content, lang, template=args.template, hints=_room(content))
    po.write_po(catalogue, out)
    fuzzy = sum(1 for e in catalogue if "fuzzy" in e.flags)
    empty = sum(1 for e in catalogue if not e.msgstr)
    print(f"{content.id}: {len(catalogue)} entries ({empty} untranslated, {fuzzy} fuzzy) -> {out}")
    context = getattr(args, "context", None)
    if context is not None:
        segments = all_segments(content)
        pictures = write_pictures(content, lang or source_language(content), segments, context)
        drawn = [p for p in pictures if p.path is not None]
        print(
            f"  {len(drawn)} picture(s) -> {context} ({len(pictures) - len(drawn)} string(s) "
            "print on no face)"
        )
        blocks = write_rule_pictures(content, lang or source_language(content), segments, context)
        shown = [p for p in blocks if p.path is not None]
        print(
            f"  {len(shown)} rulebook picture(s) -> {context} ({len(blocks) - len(shown)} "
            "segment(s) not found in the laid-out book)"
        )
    return EXIT_OK


def import_(project, args, load, print_findings) -> int:
    (content,) = load(project, [args.game])
    catalogue = po.read_po(args.po)
    header = catalogue.metadata.get("Language", "").strip()  # "de_DE" names the game's de
    lang = args.lang or (languages.from_locale(header, content.languages) if header else "")
    if not lang:
        raise ContentError("the PO file names no Language; pass --lang", args.po, code="usage")
    if lang not in content.languages:
        raise _not_a_language([content], lang)
    result = po.import_po(content, lang, args.po, accept_old=getattr(args, "accept_old", False))
    result.findings += _integrity(content, lang, result.edits, args.po)
    for path in result.written:
        print(f"  wrote {path.relative_to(project.root)}")
    skipped = result.errors
    print(
        f"{content.id} {lang}: {result.applied} translation(s) changed, {result.reviewed} marked "
        f"reviewed, {result.fuzzy} fuzzy (written, not reviewed), {result.unchanged} unchanged, "
        f"{len(skipped)} skipped"
        + (f", {result.old} old (applied, recorded stale)" if result.old else "")
    )
    if result.findings:
        print_findings(result.findings, sys.stderr)
    if skipped:
        reasons: dict[str, int] = {}
        for f in skipped:
            reasons[f.code] = reasons.get(f.code, 0) + 1
        why = ", ".join(f"{n} {code}" for code, n in sorted(reasons.items()))
        print(
            f"pnp i18n import: {len(skipped)} entr{'y' if len(skipped) == 1 else 'ies'} "
            f"skipped ({why}); the others were applied",
            file=sys.stderr,
        )
        return EXIT_FINDINGS
    return EXIT_OK


# ---------------------------------------------------------------- add


def add(project, args, load) -> int:
    (content,) = load(project, [args.game])
    lang = args.lang
    problem = languages.check_code(lang)
    if problem:
        raise ContentError(problem, code="usage", hint="e.g. fr, de, pt-BR")
    refused = languages.refusal(lang)  # a script pnp cannot print yet: nothing is written
    if refused:
        raise ContentError(refused, code="usage")
    if lang in content.languages:
        raise ContentError(f"{content.id} already has {lang}", code="usage")
    game_file = content.dir / "game.yaml"
    text = read_text(game_file)
    new = _add_language(text, lang, game_file)
    baseline = _baseline(content)
    atomic_write(game_file, new.encode("utf-8"))
    (content,) = load(project, [args.game])
    out = args.output or _default_po(project, content.id, lang)
    catalogue = po.export(content, lang, hints=_room(content))
    po.write_po(catalogue, out)
    print(f"{content.id}: {lang} added as a draft language in game.yaml")
    if baseline:
        print(
            f"  {', '.join(baseline)}: the translations there now recorded as reviewed against "
            f"{source_language(content)} (rules/i18n-sync.yaml now tracks changes)"
        )
    print(f"  {len(catalogue)} strings to translate -> {out}")
    print(f"  then: pnp i18n import {content.id} {out}")
    if languages.get(lang).file is None:
        print(
            f"  note: pnp knows nothing of {lang} yet (no templates/languages/{lang}.yaml): it "
            "reads only digits as numbers and prints English labels; copy "
            "templates/languages/fr.yaml and adapt it (templates/languages/README.md)"
        )
    return EXIT_OK


def _baseline(content) -> list[str]:
    """A game whose translations were never tracked (no rules/i18n-sync.yaml) starts being
    tracked when a language is added: the translations it has are taken as they stand, reviewed
    against today's source, or the new language's import would make every one of them look
    unreviewed. A game already tracked keeps its record as it is."""
    if tracking.load(content).exists:
        return []
    langs = list(content.languages[1:])
    return sorted(tracking.mark(content, all_segments(content), langs)) if langs else []


def _add_language(text: str, lang: str, path: Path) -> str:
    """game.yaml with `{lang: draft}` appended to `languages:` (only that spot is edited)."""
    root = yaml.compose(text, Loader=yaml.SafeLoader)
    node = next(
        (v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "languages"),
        None,
    )
    if node is None or not isinstance(node, yaml.SequenceNode) or not node.value:
        raise ContentError("game.yaml has no `languages:` list", path, code="schema")
    last = node.value[-1]
    end = last.end_mark.index
    if node.flow_style:
        return text[:end] + f", {{{lang}: draft}}" + text[end:]
    indent = " " * (last.start_mark.column - 2)
    newline = text.find("\n", end)
    at = len(text) if newline < 0 else newline
    return text[:at] + f"\n{indent}- {{{lang}: draft}}" + text[at:]


def _integrity(
    content: GameContent, lang: str, edits: list[po.Edit], po_path: Path
) -> list[Finding]:
    """The checks `pnp check` makes on every translation (numbers, glossary swaps, markup,
    placeholders), on each entry applied: warnings naming the PO entry. They are applied all
    the same (a difference may be meant: accepted.yaml), and `pnp check` keeps reporting them."""
    source = source_language(content)
    try:
        glossary = load_glossary(content.dir)
    except ContentError:
        glossary = None
    indexes = {}
    if glossary is not None:
        indexes = {source: index(glossary, source), lang: index(glossary, lang)}
    out = []
    for e in edits:
        if not e.changed:
            continue
        where = dict(file=str(po_path), lang=lang, key=e.segment.ctx)
        icons = frozenset(content.game.icons)
        for f in pair(e.segment, source, lang, e.text, indexes, e.line, where, icons=icons):
            f.severity = "warning"
            f.message = f"entry '{e.segment.ctx}' (applied): " + f.message.split(": ", 1)[-1]
            out.append(f)
    return out

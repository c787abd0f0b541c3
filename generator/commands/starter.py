"""`pnp new`: a working starter game, copied from templates/starter/ (data, not code).

The starter's files use `$game` and `$Title`, `$lang_list`, and `$$key` for a per-language text
from templates/starter/strings.yaml: inline it becomes a flow mapping `{es: ..., en: ...}`;
alone on a line it becomes one `lang: value` line per language at that indentation.

`pnp new` offers the languages the starter has text for (a rulebook in rules/ and an entry in
every string of strings.yaml); another language is added afterwards with `pnp i18n add`, as a
draft with a PO file to translate, so a new game never holds one language's text under another's
name.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from generator.errors import ContentError
from generator.load import languages
from generator.load.project import Project

GAME_ID = re.compile(r"^[a-z][a-z0-9-]{0,39}\Z")
_PER_LANG = re.compile(r"\$\$([a-z_]+)")


def _flow(value) -> str:
    """A YAML flow value: strings quoted as JSON (valid YAML), lists inline."""
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _per_lang(strings: dict, key: str, langs: list[str], file: Path) -> dict:
    if key not in strings:
        raise ContentError(f"no starter string '{key}'", file, code="starter")
    entry = strings[key]
    return {lang: entry[lang] for lang in langs}  # every language of starter_languages()


def _fill(text: str, strings: dict, langs: list[str], game: str, title: str, file: Path) -> str:
    lines = []
    for line in text.splitlines(keepends=True):
        alone = re.fullmatch(r"(\s*)\$\$([a-z_]+)\s*\n?", line)
        if alone:
            indent = alone.group(1)
            values = _per_lang(strings, alone.group(2), langs, file)
            lines += [f"{indent}{lang}: {_flow(v)}\n" for lang, v in values.items()]
            continue
        line = _PER_LANG.sub(
            lambda m: (
                "{"
                + ", ".join(
                    f"{lang}: {_flow(v)}"
                    for lang, v in _per_lang(strings, m.group(1), langs, file).items()
                )
                + "}"
            ),
            line,
        )
        lines.append(line)
    out = "".join(lines)
    out = out.replace("$lang_list", "[" + ", ".join(langs) + "]")
    return out.replace("$Title", title).replace("$game", game)


def starter_languages(starter: Path, strings: dict) -> list[str]:
    """The languages the starter has text for: a rulebook and every string."""
    have = {p.stem for p in (starter / "rules").glob("*.md")}
    for entry in strings.values():
        have &= set(entry) if isinstance(entry, dict) else set()
    return sorted(have)


def check_languages(langs: list[str], offered: list[str], game: str) -> None:
    """`--langs`: distinct ISO 639-1 codes the starter has text for, or one usage error."""
    if not langs:
        raise ContentError("--langs names no language", code="usage", hint="e.g. --langs es,en")
    for lang in langs:
        problem = languages.check_code(lang)
        if problem:
            raise ContentError(f"--langs: {problem}", code="usage", hint="e.g. --langs es,en")
        if langs.count(lang) > 1:
            raise ContentError(f"--langs names '{lang}' twice", code="usage")
    missing = [lang for lang in langs if lang not in offered]
    if missing:
        kept = [lang for lang in langs if lang in offered] or offered[:1]
        raise ContentError(
            f"the starter has no text in {', '.join(missing)}; it has {', '.join(offered)}",
            code="usage",
            hint=f"start with `pnp new {game} --langs {','.join(kept)}`, then add "
            f"{' and '.join(missing)} as draft{'s' if len(missing) > 1 else ''} to translate: "
            f"`pnp i18n add {game} {missing[0]}`",
        )


def new_game(project: Project, game: str, langs: list[str]) -> tuple[Path, list[str]]:
    """Create content/<game>/ from the starter. Returns the folder and notes for the user."""
    import yaml

    if not GAME_ID.match(game):
        raise ContentError(
            f"'{game}' is not a game id",
            code="usage",
            hint="lowercase letters, digits and '-', starting with a letter (e.g. my-game)",
        )
    languages.use_project_templates(project.templates)  # its own language files count
    starter = project.template_dir("starter")  # the project's own starter, else pnp's
    strings_file = starter / "strings.yaml"
    strings = yaml.safe_load(strings_file.read_text(encoding="utf-8"))
    check_languages(langs, starter_languages(starter, strings), game)
    dest = project.game_dir(game)
    if dest.exists():
        raise ContentError(f"{dest} exists already", code="usage", hint="choose another game id")
    title = _per_lang(strings, "title", langs, strings_file)[langs[0]]
    notes: list[str] = []
    # Written into a temporary folder first and moved in whole: no half-made game on error.
    with tempfile.TemporaryDirectory(dir=project.content.parent) as tmp:
        staged = Path(tmp) / game
        for path in sorted(starter.rglob("*")):
            rel = path.relative_to(starter)
            if path.is_dir() or rel.parts[0] in ("rules",) or rel.name in ("README.md",):
                continue
            if rel.name == "strings.yaml":
                continue
            target = staged / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            text = path.read_text(encoding="utf-8")
            target.write_text(_fill(text, strings, langs, game, title, path), encoding="utf-8")
        for lang in langs:
            source = starter / "rules" / f"{lang}.md"
            target = staged / "rules" / f"{lang}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            text = source.read_text(encoding="utf-8")
            target.write_text(_fill(text, strings, langs, game, title, source), encoding="utf-8")
        (staged / "art").mkdir(exist_ok=True)
        # The whole game, its layouts included (content/<game>/layouts/), is one folder.
        project.content.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), str(dest))
    try:
        _record_reviewed(project, game, langs)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)  # all or nothing
        raise
    return dest, notes


def _record_reviewed(project: Project, game: str, langs: list[str]) -> None:
    """The starter's translations are its authors', made from its source text: rules/
    i18n-sync.yaml records them reviewed against it, so a later edit of the source shows as
    stale and a string nobody reviewed as unreviewed, and a language added later does not make
    the starter's own translations look unreviewed."""
    if len(langs) < 2:
        return  # nothing translated: nothing to track yet
    # Deferred for start-up time (about 0.3 s): only a starter in two or more languages records its
    # translations.
    from generator.i18n import tracking
    from generator.i18n.segments import all_segments
    from generator.load.content import load_game

    content = load_game(project, game)
    tracking.mark(content, all_segments(content), langs[1:])

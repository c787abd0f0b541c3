"""`pnp new`: a working starter game, copied from templates/starter/ (data, not code).

The starter's files use `$game` and `$Title`, `$lang_list`, and `$$key` for a per-language text
from templates/starter/strings.yaml: inline it becomes a flow mapping `{es: ..., en: ...}`;
alone on a line it becomes one `lang: value` line per language at that indentation.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
from pathlib import Path

from generator.errors import ContentError
from generator.project import Project

GAME_ID = re.compile(r"^[a-z][a-z0-9-]{0,39}$")
LANG_CODE = re.compile(r"^[a-z]{2,3}$")
_PER_LANG = re.compile(r"\$\$([a-z_]+)")
FALLBACK = "en"  # a language the starter has no text for gets this one, to translate


def _flow(value) -> str:
    """A YAML flow value: strings quoted as JSON (valid YAML), lists inline."""
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def _per_lang(strings: dict, key: str, langs: list[str], file: Path) -> dict:
    if key not in strings:
        raise ContentError(f"no starter string '{key}'", file, code="starter")
    entry = strings[key]
    return {lang: entry.get(lang, entry[FALLBACK]) for lang in langs}


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


def new_game(project: Project, game: str, langs: list[str]) -> tuple[Path, list[str]]:
    """Create content/<game>/ from the starter. Returns the folder and notes for the user."""
    import yaml

    if not GAME_ID.match(game):
        raise ContentError(
            f"'{game}' is not a game id",
            code="usage",
            hint="lowercase letters, digits and '-', starting with a letter (e.g. my-game)",
        )
    bad = [lang for lang in langs if not LANG_CODE.match(lang)]
    if bad or not langs or len(set(langs)) != len(langs):
        raise ContentError(
            f"--langs '{','.join(langs)}' is not a list of distinct language codes",
            code="usage",
            hint="ISO 639-1 codes, e.g. --langs es,en",
        )
    dest = project.game_dir(game)
    if dest.exists():
        raise ContentError(f"{dest} exists already", code="usage", hint="choose another game id")
    starter = project.templates / "starter"
    strings_file = starter / "strings.yaml"
    strings = yaml.safe_load(strings_file.read_text(encoding="utf-8"))
    title = _per_lang(strings, "title", langs, strings_file)[langs[0]]
    notes = []
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
            if not source.exists():
                source = starter / "rules" / f"{FALLBACK}.md"
                notes.append(f"rules/{lang}.md is the English starter text: translate it")
            target = staged / "rules" / f"{lang}.md"
            target.parent.mkdir(parents=True, exist_ok=True)
            text = source.read_text(encoding="utf-8")
            target.write_text(_fill(text, strings, langs, game, title, source), encoding="utf-8")
        (staged / "art").mkdir(exist_ok=True)
        # The whole game, its layouts included (content/<game>/layouts/), is one folder.
        project.content.mkdir(parents=True, exist_ok=True)
        shutil.move(str(staged), str(dest))
    return dest, notes

"""The guide cannot rot: the tutorial's commands run, and the reference matches the models."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys

import pytest
from conftest import ROOT, run_pnp

DOCS = ROOT / "docs"


def sh_blocks(markdown: str) -> list[str]:
    return re.findall(r"^```sh\n(.*?)^```", markdown, flags=re.S | re.M)


@pytest.mark.slow
def test_the_tutorial_runs_as_written(tmp_path):
    """In an empty folder, as a designer who installed pnp (the checkout's code and defaults;
    tests/test_install.py proves the same of the installed wheel)."""
    text = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    assert text.index("pip install") < text.index("```sh")  # it starts from the install
    empty = tmp_path / "empty"
    empty.mkdir()
    project = empty / "my-games"
    blocks = sh_blocks(text)
    assert len(blocks) >= 6
    script = "\n".join(
        [
            "set -euo pipefail",
            f'pnp() {{ "{sys.executable}" -m generator "$@"; }}',
            *blocks,
        ]
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PNP_ROOT", None)
    result = subprocess.run(
        ["bash", "-c", script], cwd=empty, env=env, capture_output=True, text=True, timeout=900
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    # What the tutorial says happened, happened.
    assert (project / "output/my-game/render/cards-wizard-en-front.png").exists()
    assert (project / "output/knight-back.png").exists()
    assert (project / "output/my-game/preview/index.html").exists()
    assert (project / "output/my-game/en/cards-a4.pdf").exists()
    assert "Wizard" in (project / "content/my-game/components/cards.yaml").read_text()
    assert (project / "output/my-game/render/monsters-troll-en-front.png").exists()
    assert (project / "content/my-game/components/monsters.csv").is_file()
    assert not (project / "templates").exists()  # pnp's defaults did it all


def test_the_reference_is_written_from_the_models():
    from generator.commands.reference import reference

    on_disk = (DOCS / "reference.md").read_text(encoding="utf-8")
    assert on_disk == reference(), (
        "docs/reference.md is out of date: "
        "python -m generator.commands.reference > docs/reference.md"
    )


def test_every_box_kind_and_content_file_is_in_the_reference():
    from generator.render.boxes import ORDER

    text = (DOCS / "reference.md").read_text(encoding="utf-8")
    for kind in ORDER:
        assert f"### {kind.model.__name__}" in text
    for name in ("game.yaml", "Components", "manifest.yaml", "Layouts"):
        assert f"## {name}" in text


# ---------------------------------------------------------------------------------------------
# Every command, option, content key, link and path the docs name exists.
#
# The README and docs/*.md are read as a person reads them: code (fenced blocks and inline
# `code` spans) is where commands, options and YAML are named. `pnp <command>` and its
# `--options` are looked up in the CLI's own argparse parser; `make <target>` in the Makefile;
# fenced ```yaml blocks are walked against the content models docs/reference.md is written
# from (a block whose info string names its file, ```yaml content/x/game.yaml, is validated
# whole by that file's model); relative links (and their #anchors), paths under generator/,
# templates/, tests/ and docs/, and PNP_* variables must exist. The map of generator/ in
# docs/architecture.md lists every module, and only modules that exist.

DOC_FILES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
FENCE = re.compile(r"^(```+|~~~+)\s*(.*)$")


class Doc:
    """One Markdown file split into fenced blocks and the prose between them."""

    def __init__(self, path):
        self.path = path
        self.name = str(path.relative_to(ROOT))
        self.blocks: list[tuple[int, str, str]] = []  # (line, info string, code)
        self.prose: list[tuple[int, str]] = []  # (first line, text between fences)
        lines = path.read_text(encoding="utf-8").split("\n")
        i, start, text = 0, 1, []
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                text.append(lines[i])
                i += 1
                continue
            self.prose.append((start, "\n".join(text)))
            fence, info, body, first = m.group(1), m.group(2).strip(), [], i + 2
            i += 1
            while i < len(lines) and not lines[i].startswith(fence):
                body.append(lines[i])
                i += 1
            self.blocks.append((first, info, "\n".join(body)))
            i += 1
            start, text = i + 1, []
        self.prose.append((start, "\n".join(text)))

    def spans(self) -> list[tuple[int, str]]:
        """Inline code spans of the prose, with their line numbers."""
        out = []
        for start, text in self.prose:
            for m in re.finditer(r"(`+)(.+?)\1", text, flags=re.S):
                out.append((start + text.count("\n", 0, m.start()), " ".join(m.group(2).split())))
        return out

    def code_lines(self) -> list[tuple[int, str]]:
        """Every command-like piece of code: inline spans and lines of non-YAML blocks."""
        out = self.spans()
        for first, info, body in self.blocks:
            if info.split()[:1] != ["yaml"]:
                out += [(first + n, line) for n, line in enumerate(body.split("\n"))]
        return out

    def where(self, line: int) -> str:
        return f"{self.name}:{line}"


@functools.cache
def docs() -> list[Doc]:
    return [Doc(p) for p in DOC_FILES]


# --- the command line ------------------------------------------------------------------------


@functools.cache
def _cli():
    import argparse

    from generator.commands import cli

    top = cli._parser()

    def options(parser) -> dict[str, argparse.Action]:
        return {s: a for a in parser._actions for s in a.option_strings}

    def commands(parser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    every: set[str] = set()
    stack = [top]
    while stack:
        parser = stack.pop()
        every |= set(options(parser))
        stack += commands(parser).values()
    return top, options, commands, every


def pnp_problems(code: str) -> list[str]:
    """What is wrong with the `pnp ...` commands in one line of code."""
    top, options, commands, every = _cli()
    problems = []
    code = re.sub(r"(^|\s)#.*$", "", code)  # a shell comment
    for segment in re.split(r"&&|\|\||;", code):
        words = [w.strip("[]()") for w in segment.split()]
        while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
            words = words[1:]  # PNP_ROOT=DIR pnp ...
        if words[:1] != ["pnp"]:
            if words and words[0].startswith("--"):  # an option named on its own
                flag = words[0].split("=")[0]
                if flag not in every:
                    problems.append(f"no pnp command has the option {flag}")
            continue
        words = words[1:]
        parser, chosen, global_options = top, False, options(top)
        skip = False
        for word in words:
            if skip:
                skip = False
                continue
            if word.startswith("-") and len(word) > 1 and word != "--":
                flag = word.split("=")[0]
                action = options(parser).get(flag) or global_options.get(flag)
                if action is None:
                    problems.append(f"`pnp {segment.split('pnp', 1)[1].strip()}`: no option {flag}")
                elif action.nargs != 0 and "=" not in word:
                    skip = True
                continue
            subs = commands(parser)
            if subs and not chosen:
                if word.isupper() or word in ("...", "|"):
                    break  # a placeholder such as COMMAND
                if word not in subs:
                    problems.append(f"no command `pnp ... {word}` (known: {', '.join(subs)})")
                    break
                parser = subs[word]
                chosen = not commands(parser)
            # else: a positional argument or a value
    return problems


def test_every_pnp_command_and_option_in_the_docs_exists():
    problems = [
        f"{doc.where(line)}: {p}"
        for doc in docs()
        for line, code in doc.code_lines()
        for p in pnp_problems(code)
    ]
    assert not problems, "\n".join(problems)


def test_every_make_target_in_the_docs_exists():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([\w-]+):", makefile, flags=re.M))
    problems = [
        f"{doc.where(line)}: no make target {m.group(1)}"
        for doc in docs()
        for line, code in doc.code_lines()
        for m in re.finditer(r"(?<![\w-])make\s+([a-z][\w-]*)(?![\w=-])", code)
        if m.group(1) not in targets
    ]
    assert not problems, "\n".join(problems)


def test_the_check_catches_a_wrong_command_and_a_wrong_option():
    assert pnp_problems("pnp print dogfight --paper a4 --force") == []
    assert pnp_problems("pnp i18n export GAME --lang xx [-o FILE.po]") == []
    assert pnp_problems("pnp --debug check --format json") == []
    assert pnp_problems("pnp publish dogfight")
    assert pnp_problems("pnp print --no-such-option")
    assert pnp_problems("pnp i18n translate dogfight")
    assert pnp_problems("pnp check --paper a4")  # an option of another command
    assert pnp_problems("--no-such-option")


# --- content keys in YAML blocks ----------------------------------------------------------------


def _content_models() -> dict[str, type]:
    from generator.commands.reference import DOCUMENTS, _load

    models = {}
    for title, _where, spec in DOCUMENTS:
        cls = _load(spec)
        if cls is not None:
            models[title] = cls
    return models


def _model_for(path: str):
    """The content model of a file named in a ```yaml info string."""
    models = _content_models()
    name = path.rsplit("/", 1)[-1]
    if name in models:  # game.yaml, manifest.yaml, glossary.yaml, accepted.yaml, i18n-sync.yaml
        return models[name]
    if "components/" in path:
        return models["Components"]
    if "layouts/" in path:
        return models["Layouts"]
    return None


def _unwrap(annotation):
    import typing

    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def key_problems(node, annotation, path: str) -> list[str]:
    """Keys of a YAML node (composed, so duplicate keys are all seen) that the model lacks."""
    import types
    import typing

    import yaml
    from pydantic import BaseModel

    annotation = _unwrap(annotation)
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is typing.Any or annotation is None:
        return []
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if not isinstance(node, yaml.MappingNode):
            return []  # a short form (`shape: circle`, an export's bare name)
        fields = {(f.alias or n): f for n, f in annotation.model_fields.items()}
        free = annotation.model_config.get("extra") == "allow"
        out = []
        for key_node, value in node.value:
            key = str(key_node.value)
            if key in fields:
                out += key_problems(value, fields[key].annotation, f"{path}{key}.")
            elif not free:
                out.append(
                    f"{path}{key} (block line {key_node.start_mark.line + 1}): not a key of "
                    f"{annotation.__name__}"
                )
        return out
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        if isinstance(node, yaml.MappingNode):
            # the tag of a union member: a box's (or shape's) kind, an export's format
            tag_key, kind = next(
                ((k.value, v.value) for k, v in node.value if k.value in ("kind", "format")),
                (None, None),
            )
            tries = []
            for option in options:
                inner = _unwrap(option)
                if kind is not None and isinstance(inner, type) and issubclass(inner, BaseModel):
                    field = inner.model_fields.get(tag_key)
                    if field is not None and kind not in typing.get_args(field.annotation):
                        continue  # another box kind (or shape kind, or export format)
                tries.append(key_problems(node, option, path))
            return min(tries, key=len) if tries else [f"{path}: no kind '{kind}'"]
        tries = [key_problems(node, option, path) for option in options]
        return min(tries, key=len) if tries else []
    if origin in (list, set, tuple) and isinstance(node, yaml.SequenceNode):
        inner = args[0] if args else typing.Any
        return [
            p for i, item in enumerate(node.value) for p in key_problems(item, inner, f"{path}{i}.")
        ]
    if origin is dict and isinstance(node, yaml.MappingNode):
        inner = args[1] if len(args) == 2 else typing.Any
        return [p for k, v in node.value for p in key_problems(v, inner, f"{path}{k.value}.")]
    return []


def yaml_problems(info: str, code: str) -> list[str]:
    import yaml
    from pydantic import ValidationError

    try:
        node = yaml.compose(code, Loader=yaml.SafeLoader)
        data = yaml.safe_load(code)
    except yaml.YAMLError as exc:
        return [f"not YAML: {exc}"]
    if node is None:
        return ["an empty YAML block"]
    named = info.split()[1:2]
    if named:
        cls = _model_for(named[0])
        if cls is None:
            return [
                f"{named[0]}: no content model for this file (name one of game.yaml, "
                "components/, manifest.yaml, layouts/, glossary.yaml, accepted.yaml, "
                "i18n-sync.yaml)"
            ]
        problems = key_problems(node, cls, "")
        try:
            cls.model_validate(data)
        except ValidationError as exc:
            problems += [f"{named[0]}: {e['loc']}: {e['msg']}" for e in exc.errors()]
        return problems
    if not isinstance(node, yaml.MappingNode):
        return ["a YAML block that is not a mapping: name its file (```yaml glossary.yaml)"]
    # A fragment: each top-level key is judged by the content files that have it.
    problems = []
    for pair in node.value:
        one = yaml.MappingNode(node.tag, [pair])
        have = [cls for cls in _content_models().values() if _has_key(cls, pair[0].value)]
        if not have:
            problems.append(
                f"{pair[0].value} (block line {pair[0].start_mark.line + 1}): "
                "not a top-level key of any content file"
            )
        else:
            problems += min((key_problems(one, cls, "") for cls in have), key=len)
    return problems


def _has_key(cls, key: str) -> bool:
    return any((f.alias or n) == key for n, f in cls.model_fields.items())


def test_every_yaml_key_in_the_docs_is_a_key_of_the_content_models():
    problems = []
    for doc in docs():
        for line, info, code in doc.blocks:
            if info.split()[:1] == ["yaml"]:
                problems += [f"{doc.where(line)}: {p}" for p in yaml_problems(info, code)]
    assert not problems, "\n".join(problems)


def test_the_key_check_catches_a_wrong_key():
    assert yaml_problems("yaml", "print: {papers: [a4], bleed: 3mm}") == []
    assert yaml_problems("yaml", "boxes:\n  - {kind: text, text: hi, size: 8pt}") == []
    assert yaml_problems("yaml", "print: {paper: [a4]}")
    assert yaml_problems("yaml", "boxes:\n  - {kind: rect, size: 8pt}")  # a text key on a rect
    assert yaml_problems("yaml", "print: {exports: [{format: tts, as: deck}]}") == []
    assert yaml_problems("yaml", "print: {exports: [{format: png, base_url: x}]}")  # a tts key
    assert yaml_problems("yaml game.yaml", "id: x\ntitle: X\nlanguages: [en]\nprint: {bled: 3mm}")
    assert yaml_problems("yaml game.yaml", "id: x\ntitle: X")  # languages missing
    assert yaml_problems("yaml rules/notes.yaml", '"3.2": {en: a note}')  # no model: name it


# --- links, paths and variables -----------------------------------------------------------------


def slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.cache
def anchors(path) -> set[str]:
    doc = Doc(path)
    return {
        slug(m.group(1))
        for _start, text in doc.prose
        for m in re.finditer(r"^#{1,6}\s+(.*)$", text, flags=re.M)
    }


def test_every_relative_link_in_the_docs_exists():
    problems = []
    for doc in docs():
        for start, text in doc.prose:
            text = re.sub(r"`[^`]*`", lambda m: " " * len(m.group()), text)
            for m in re.finditer(r"\[[^\]]*\]\(([^)\s]+)\)", text):
                target = m.group(1)
                if re.match(r"[a-z]+:", target):
                    continue  # https:, mailto:
                file, _, anchor = target.partition("#")
                path = (doc.path.parent / file) if file else doc.path
                where = doc.where(start + text.count("\n", 0, m.start()))
                if not path.exists():
                    problems.append(f"{where}: {target}: no such file")
                elif anchor and path.suffix == ".md" and anchor not in anchors(path):
                    problems.append(f"{where}: {target}: no heading #{anchor}")
    assert not problems, "\n".join(problems)


PATH = re.compile(r"(?<![\w/.<>*-])((?:generator|templates|tests|docs)/[\w./<>*-]*)")


def test_every_path_named_in_the_docs_exists():
    problems = []
    for doc in docs():
        text = doc.path.read_text(encoding="utf-8")
        for m in PATH.finditer(text):
            if text[max(0, m.start() - 2) : m.start()] == "](":
                continue  # a link: test_every_relative_link_in_the_docs_exists
            named = m.group(1).rstrip(".")
            pattern = re.sub(r"<[^>]*>", "*", named).rstrip("/")
            if not list(ROOT.glob(pattern)):
                line = text.count("\n", 0, m.start()) + 1
                problems.append(f"{doc.where(line)}: {named} does not exist")
    assert not problems, "\n".join(problems)


def test_every_environment_variable_in_the_docs_exists():
    sources = "".join(
        p.read_text(encoding="utf-8")
        for p in [*ROOT.glob("generator/**/*.py"), *ROOT.glob("tests/*.py"), ROOT / "Makefile"]
    )
    problems = [
        f"{doc.name}: {name} is read nowhere"
        for doc in docs()
        for name in set(re.findall(r"\bPNP_[A-Z_]+\b", doc.path.read_text(encoding="utf-8")))
        if name not in sources
    ]
    assert not problems, "\n".join(problems)


def test_the_architecture_map_is_the_tree_of_generator():
    """docs/architecture.md's map names every module of generator/, and nothing else."""
    doc = Doc(DOCS / "architecture.md")
    (tree,) = [body for _l, _i, body in doc.blocks if body.startswith("generator/")]
    named: set[str] = set()
    stack: list[tuple[int, str]] = []
    for line in tree.split("\n"):
        m = re.match(r"^( *)((?:[\w]+(?:\.py|/)(?:, )?)+)(?:\s|$)", line)
        if not m:
            continue  # a description carried over to the next line
        depth = len(m.group(1))
        while stack and stack[-1][0] >= depth:
            stack.pop()
        parent = stack[-1][1] if stack else ""
        for name in m.group(2).split(", "):
            path = parent + name
            named.add(path.rstrip("/"))
            if name.endswith("/"):
                named.add(path + "__init__.py")
                stack.append((depth, path))
    actual = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "generator").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    actual |= {str(p.parent.relative_to(ROOT)) for p in ROOT.glob("generator/**/__init__.py")}
    missing, extra = sorted(actual - named), sorted(named - actual)
    assert not missing and not extra, f"not in the map: {missing}; in the map, not on disk: {extra}"


def test_every_dependency_is_in_the_readme_with_its_reason():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = [
        re.split(r"[<>=!~\[; ]", d, maxsplit=1)[0]
        for d in project["dependencies"] + project["optional-dependencies"]["dev"]
    ]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [n for n in names if f"**{n.lower()}**" not in readme.lower()]
    assert not missing, f"README does not say why pnp uses: {missing}"


def test_the_readme_example_builds_as_written(make_project):
    readme = Doc(ROOT / "README.md")
    files = {
        info.split()[1]: code + "\n"
        for _line, info, code in readme.blocks
        if info.split()[:1] == ["yaml"] and info.split()[1:2]
    }
    assert {"game.yaml", "manifest.yaml"} <= {f.rsplit("/", 1)[-1] for f in files}
    (game,) = {f.split("/")[1] for f in files}
    root = make_project(files=files, games=())
    commands = [
        line.split("#")[0].split()
        for _l, info, code in readme.blocks
        if info == "sh" and f"pnp check {game}" in code
        for line in code.split("\n")
    ]
    assert [c[:2] for c in commands] == [["pnp", "check"], ["pnp", "print"]]
    for command in commands:
        run_pnp(root, *command[1:], check=True)
    for lang in ("en", "es"):
        assert (root / f"output/{game}/{lang}/spells-a4.pdf").exists()

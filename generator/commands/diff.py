"""`pnp diff GAME [--since REF]`: which faces (and rulebook sections) changed, per language.

The game as it was is read into a temporary folder, never over the working tree: from git
(`git archive REF`) with --since, else from the record the last `pnp print` kept of what it
built (build/faceprints.py). Both games are then drawn with today's pnp and compared face by
face by what each face draws (its fingerprint), so reformatting YAML changes nothing and a
layout change lists every face it moves. The summary goes to stdout and
`output/<game>/diff/index.html` shows each changed face before and after, side by side, with
the changed words marked; it opens from `file://` like the preview.
"""

from __future__ import annotations

import difflib
import html
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from generator.build import faceprints
from generator.build.faceprints import FacePrint
from generator.errors import ContentError
from generator.load import languages
from generator.load.content import GameContent, load_game
from generator.load.project import Project

PICTURE_DPI = 110


@dataclass
class LangChanges:
    lang: str
    changed: list[tuple[FacePrint, FacePrint]] = field(default_factory=list)  # (before, after)
    added: list[FacePrint] = field(default_factory=list)
    removed: list[FacePrint] = field(default_factory=list)
    sections: list[tuple[str, str, str]] = field(default_factory=list)  # number, before, after
    before: dict[tuple, FacePrint] = field(default_factory=dict)  # every face as it was


@dataclass
class Changes:
    game: str
    since: str  # what was compared against, in words
    langs: dict[str, LangChanges]
    old: GameContent
    new: GameContent

    def changed_items(self, lang: str) -> set[tuple[str, str]]:
        """(component, item) pairs to reprint in `lang`: a changed or added front, its own
        back, or every item of a component whose common back changed."""
        out: set[tuple[str, str]] = set()
        ch = self.langs.get(lang)
        if ch is None:
            return out
        for fp in [after for _, after in ch.changed] + ch.added:
            if fp.item is not None:
                out.add((fp.component, fp.item))
            else:
                comp = self.new.component(fp.component)
                out |= {(comp.id, i.id) for i in comp.items if i.back == comp.model.back}
        return out


# ------------------------------------------------------------------ the game as it was


@contextmanager
def baseline(project: Project, game: str, since: str | None) -> Iterator[tuple[GameContent, str]]:
    """The game at `since` (a git revision), or as the last build made it: loaded from a
    temporary folder that is removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="pnp-diff-") as tmp:
        folder = Path(tmp)
        if since is None:
            record = faceprints.snapshot_path(project, game)
            if not record.is_file():
                raise ContentError(
                    f"no record of a build of '{game}' to compare with",
                    record,
                    code="no-baseline",
                    hint="run `pnp print` first, or name a git revision: --since HEAD~1",
                )
            faceprints.restore(record, folder)
            root, words = folder, "the last build"
        else:
            root = _git_tree(project, game, since, folder)
            words = since
        fonts = root / "templates" / "fonts"
        if not fonts.exists():  # a build record keeps no fonts: today's are used
            fonts.parent.mkdir(parents=True, exist_ok=True)
            fonts.symlink_to(project.fonts.resolve(), target_is_directory=True)
        if not (root / "content" / game / "game.yaml").is_file():
            raise ContentError(
                f"'{game}' does not exist at {words}",
                code="no-baseline",
                hint="name a revision where the game exists",
            )
        try:
            old = load_game(Project(root), game)
        except ContentError as exc:
            exc.message = f"the game at {words} does not load: {exc.message}"
            raise
        finally:
            # loading points the language knowledge at the old templates: point it back
            languages.use_project_templates(project.templates)
        yield old, words


def _git(project: Project, *args: str, binary: bool = False):
    try:
        done = subprocess.run(
            ["git", "-C", str(project.root), *args], capture_output=True, check=False, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ContentError(f"git could not run ({exc})", code="git") from None
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        raise ContentError(
            f"git {' '.join(args[:2])}: {message[-1] if message else 'failed'}",
            code="git",
            hint="--since takes a git revision of this project (HEAD~1, a tag, a commit)",
        )
    return done.stdout if binary else done.stdout.decode().strip()


def _git_tree(project: Project, game: str, since: str, into: Path) -> Path:
    """content/<game> and templates/ at revision `since`, unpacked under `into`; returns the
    project root there (the project may be a sub-folder of its repository)."""
    if since.startswith("-"):
        raise ContentError(f"'{since}' is not a revision", code="usage")
    commit = _git(project, "rev-parse", "--verify", "--quiet", f"{since}^{{commit}}")
    prefix = _git(project, "rev-parse", "--show-prefix")
    paths = [f"{prefix}content/{game}", f"{prefix}templates"]
    listed = _git(project, "ls-tree", "--name-only", commit, "--", *paths).splitlines()
    data = _git(project, "archive", "--format=tar", commit, "--", *listed, binary=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / prefix if prefix else into


# ------------------------------------------------------------------ comparing


def compare(old: GameContent, new: GameContent, since: str) -> Changes:
    langs: dict[str, LangChanges] = {}
    for lang in new.languages:
        after = faceprints.face_prints(new, lang)
        before = faceprints.face_prints(old, lang) if lang in old.languages else {}
        ch = LangChanges(lang, before=before)
        for key, fp in after.items():
            was = before.get(key)
            if was is None:
                ch.added.append(fp)
            elif was.digest != fp.digest:
                ch.changed.append((was, fp))
        ch.removed = [fp for key, fp in before.items() if key not in after]
        ch.sections = _sections(old, new, lang)
        langs[lang] = ch
    return Changes(new.id, since, langs, old, new)


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _sections(old: GameContent, new: GameContent, lang: str) -> list[tuple[str, str, str]]:
    """Rulebook sections whose heading or words changed (Markdown reflowing is no change)."""
    a, b = old.rules.get(lang), new.rules.get(lang)
    if b is None and a is None:
        return []
    out = []
    numbers = list(dict.fromkeys([*(b.numbers if b else []), *(a.numbers if a else [])]))
    for number in numbers:
        sa = a.section(number) if a else None
        sb = b.section(number) if b else None
        ta = _norm(f"{sa.title}\n{sa.body}") if sa else ""
        tb = _norm(f"{sb.title}\n{sb.body}") if sb else ""
        if ta != tb:
            out.append((number, ta, tb))
    return out


def summary(changes: Changes) -> str:
    """'3 faces changed: orders/ambush es, ko, en; ...; 1 added, 1 removed; rulebook §5.2 es'."""

    def grouped(pairs: list[tuple[str, str]]) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for label, lang in pairs:
            out.setdefault(label, []).append(lang)
        return out

    changed = grouped(
        [(after.label, ch.lang) for ch in changes.langs.values() for _, after in ch.changed]
    )
    added = grouped([(fp.label, ch.lang) for ch in changes.langs.values() for fp in ch.added])
    removed = grouped([(fp.label, ch.lang) for ch in changes.langs.values() for fp in ch.removed])
    sections = grouped([(n, ch.lang) for ch in changes.langs.values() for n, _, _ in ch.sections])
    parts = []
    if changed:
        noun = "face" if len(changed) == 1 else "faces"
        listed = "; ".join(f"{label} {', '.join(langs)}" for label, langs in changed.items())
        parts.append(f"{len(changed)} {noun} changed: {listed}")
    if added or removed:
        parts.append(f"{len(added)} added, {len(removed)} removed")
        for word, group in (("added", added), ("removed", removed)):
            if group:
                parts.append(
                    f"{word}: " + "; ".join(f"{k} {', '.join(v)}" for k, v in group.items())
                )
    if sections:
        parts.append(
            "rulebook " + "; ".join(f"§{n} {', '.join(langs)}" for n, langs in sections.items())
        )
    if not parts:
        return f"{changes.game}: nothing changed since {changes.since}"
    return f"{changes.game} since {changes.since}: " + "; ".join(parts)


# ------------------------------------------------------------------ the page


def _picture(pdf: bytes, path: Path) -> tuple[int, int]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        image = page.render(scale=PICTURE_DPI / 72, fill_color=(255, 255, 255, 255)).to_pil()
        page.close()
    finally:
        doc.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, format="PNG", compress_level=3)
    return image.size


def _text(pdf: bytes) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        page = doc[0]
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        textpage.close()
        page.close()
    finally:
        doc.close()
    return _norm(text.replace("\r", " ").replace("\x02", ""))


def marked(before: str, after: str) -> tuple[str, str]:
    """Both texts as HTML, the words only one of them has marked (<del> and <ins>)."""
    a, b = before.split(" ") if before else [], after.split(" ") if after else []
    left, right = [], []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        old = html.escape(" ".join(a[i1:i2]))
        new = html.escape(" ".join(b[j1:j2]))
        if op == "equal":
            left.append(old)
            right.append(new)
        else:
            if old:
                left.append(f"<del>{old}</del>")
            if new:
                right.append(f"<ins>{new}</ins>")
    return " ".join(left), " ".join(right)


_STYLE = """
body{font:14px/1.4 system-ui,"Noto Sans CJK KR","NanumGothic",sans-serif;margin:0;
 background:#eef0f3;color:#1b1b1b}
header{background:#1f2a36;color:#fff;padding:10px 16px}
header h1{font-size:18px;margin:0}
header p{margin:4px 0 0;font-size:13px;color:#cfd8e3}
main{padding:12px 16px}
section.lang{margin:0 0 20px}
section.lang h2{font-size:17px;margin:8px 0}
article{background:#fff;border-radius:6px;padding:8px 12px;margin:0 0 12px}
article h3{font-size:15px;margin:2px 0 8px}
.status{font-size:12px;font-weight:normal;color:#555;margin-left:6px}
.pair{display:grid;grid-template-columns:1fr 1fr;gap:14px}
figure{margin:0}
figure img{max-width:100%;height:auto;border:1px solid #bbb;border-radius:3px;background:#fff}
figcaption{font-size:12px;color:#444}
.text{font-size:13px;margin:6px 0 0;white-space:normal}
del{background:#ffd7d5;color:#8a1a14}
ins{background:#d4f5d4;color:#14561a;text-decoration:none}
.none{color:#777;font-style:italic}
"""


def write_page(changes: Changes, folder: Path) -> Path:
    """output/<game>/diff/index.html and its pictures (faces/), written afresh."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
        raise ContentError("not a folder; refused", folder, code="write-failed")
    if folder.is_dir():
        shutil.rmtree(folder)
    pictures = folder / "faces"
    pictures.mkdir(parents=True)
    from generator.render.engine import FaceRenderer

    body = [
        f"<header><h1>{html.escape(changes.game)}: what changed since "
        f"{html.escape(changes.since)}</h1><p>{html.escape(summary(changes))}</p></header><main>"
    ]
    for lang, ch in changes.langs.items():
        rows: list[tuple[FacePrint | None, FacePrint | None, str]] = [
            (b, a, "changed") for b, a in ch.changed
        ]
        rows += [(None, a, "added") for a in ch.added]
        rows += [(b, None, "removed") for b in ch.removed]
        if not rows and not ch.sections:
            continue
        body.append(f'<section class="lang" data-lang="{lang}"><h2>{lang}</h2>')
        renderers = {
            "before": FaceRenderer(changes.old, lang) if lang in changes.old.languages else None,
            "after": FaceRenderer(changes.new, lang),
        }
        for before, after, status in rows:
            fp = after or before
            assert fp is not None
            slug = re.sub(r"[^a-z0-9_-]+", "-", f"{fp.component}-{fp.item or 'back'}-{fp.side}")
            cells, texts = [], []
            for when, side_fp, content in (
                ("before", before, changes.old),
                ("after", after, changes.new),
            ):
                if side_fp is None:
                    cells.append(f'<figure class="{when}"><p class="none">(none)</p></figure>')
                    texts.append("")
                    continue
                renderer = renderers[when]
                pdf = faceprints.face_pdf(content, lang, side_fp, renderer)
                rel = f"faces/{lang}/{slug}-{when}.png"
                w, h = _picture(pdf, folder / rel)
                texts.append(_text(pdf))
                cells.append(
                    f'<figure class="{when}"><img src="{rel}" width="{w}" height="{h}" '
                    f'alt="{html.escape(fp.label)} {when}"><figcaption>{when} · '
                    f"{side_fp.digest[:6]}</figcaption></figure>"
                )
            old_text, new_text = marked(*texts)
            body.append(
                f'<article class="{status}" data-face="{html.escape(fp.label)}">'
                f'<h3>{html.escape(fp.label)}<span class="status">{status}</span></h3>'
                f'<div class="pair">{cells[0]}{cells[1]}'
                f'<p class="text before">{old_text}</p><p class="text after">{new_text}</p>'
                "</div></article>"
            )
        for number, old, new in ch.sections:
            a, b = marked(old, new)
            body.append(
                f'<article class="section" data-section="{number}"><h3>rulebook §{number}'
                f'<span class="status">changed</span></h3><div class="pair">'
                f'<p class="text before">{a or "<span class=none>(none)</span>"}</p>'
                f'<p class="text after">{b or "<span class=none>(none)</span>"}</p></div></article>'
            )
        body.append("</section>")
    body.append("</main>")
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{html.escape(changes.game)} · diff</title><style>{_STYLE}</style></head>"
        f"<body>{''.join(body)}</body></html>"
    )
    index = folder / "index.html"
    index.write_text(page, encoding="utf-8")
    return index


def run_diff(project: Project, game: str, since: str | None) -> tuple[Changes, Path]:
    new = load_game(project, game)
    with baseline(project, game, since) as (old, words):
        changes = compare(old, new, words)
        folder = project.output / game / "diff"
        return changes, write_page(changes, folder)


def diff_command(project: Project, args) -> int:
    games = args.games or project.game_ids()
    for game in games:
        changes, index = run_diff(project, game, args.since)
        print(summary(changes))
        print(f"  {os.path.relpath(index, Path.cwd())}")
    return 0

"""What `pnp check` runs of the rulebooks: everything `pnp print` runs before WeasyPrint.

Each language's and each bilingual edition's HTML is built exactly as for printing (Jinja in
the sandbox, figure() and table() calls, Markdown, image paths, the page template), but figures
are validated, not drawn, and nothing is written outside a temporary folder. So a missing item,
a wrong column, a bad width, an image outside the game or a recursive macro is found by check,
not after print has written some PDFs.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from generator.content import GameContent
from generator.errors import ContentError, Finding
from generator.figures import FaceCache


class _UndrawnFaces(FaceCache):
    def _draw(self, path: Path, layout: str, ctx: dict, w: float, h: float, scale: float) -> None:
        pass  # the face itself is checked by check_faces, in every language

    def blank(self, w_pt: float, h_pt: float, width_pt: float) -> Path:
        return self.folder / "blank.png"


def check_rulebooks(content: GameContent) -> list[Finding]:
    from generator import rulebook

    class Builder(rulebook._Builder):
        face_cache = _UndrawnFaces

    langs = [lang for lang in content.languages if lang in content.rules]
    if not langs:
        return []
    settings = content.game.rulebook
    paper = (settings.papers or content.game.print.papers)[0]
    findings = []
    with tempfile.TemporaryDirectory(prefix="pnp-check-") as folder:
        jobs: list[tuple[str, ...]] = [(lang,) for lang in langs]
        jobs += [(a, b) for a, b in settings.bilingual]
        for job in jobs:
            try:
                if len(job) == 1:
                    rulebook._single_html(content, job[0], paper, Path(folder), Builder)
                else:
                    rulebook._bilingual_html(content, job[0], job[1], paper, Path(folder), Builder)
            except ContentError as exc:
                finding = Finding.from_error(exc)
                finding.lang = "-".join(job)
                findings.append(finding)
    return findings

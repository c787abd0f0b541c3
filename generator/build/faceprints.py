"""Every face of a game, fingerprinted by what it draws (render/version_mark.py), per language.

`pnp diff` and `pnp print --changed-since` compare two games (today's content and the same game
at a git revision, or at the last build) face by face with these prints: a face has changed
when its picture has, whatever changed in the YAML. A face is a component's item front, the
item's own back, or a component's common back (item None).
"""

from __future__ import annotations

import hashlib
import io
import stat
import tarfile
from dataclasses import dataclass
from pathlib import Path

from generator import fsio
from generator.build.run import tree, write_error
from generator.errors import ContentError
from generator.limits import LIMITS
from generator.load import templating
from generator.load.content import GameContent
from generator.load.project import Project
from generator.render import version_mark
from generator.render.engine import FaceRenderer


@dataclass
class FacePrint:
    component: str
    item: str | None  # None: the component's common back
    side: str  # front | back
    lang: str
    digest: str
    count: int  # copies printed (a common back: every copy of the component)
    name: str  # the component's name in this language
    layout: str
    back: str | None = None  # the digest of this item's back (fronts only)

    @property
    def key(self) -> tuple[str, str | None, str]:
        return (self.component, self.item, self.side)

    @property
    def label(self) -> str:
        what = self.item if self.item is not None else "back (common)"
        side = " back" if self.side == "back" and self.item is not None else ""
        return f"{self.component}/{what}{side}"


def face_prints(content: GameContent, lang: str) -> dict[tuple, FacePrint]:
    """(component, item, side) -> its print, for every face the kit prints in `lang`."""
    renderer = FaceRenderer(content, lang)
    out: dict[tuple, FacePrint] = {}
    for comp in content.components:
        w, h = comp.size_pt
        bleed = _bleed(content, comp)
        name = templating.pick(comp.model.name, lang)
        common_ctx = None
        for item in comp.items:
            ctx = renderer.context(comp, item)
            front = face(renderer, item.layout, ctx, w, h, bleed)
            back_digest = None
            if item.back:
                common = item.back == comp.model.back
                if common:
                    if common_ctx is None:
                        common_ctx = renderer.context(comp, None)
                    key = (comp.id, None, "back")
                    if key not in out:
                        digest = face(renderer, item.back, common_ctx, w, h, bleed)
                        out[key] = FacePrint(
                            comp.id, None, "back", lang, digest, 0, name, item.back
                        )
                    out[key].count += item.count
                    back_digest = out[key].digest
                else:
                    back_digest = face(renderer, item.back, ctx, w, h, bleed)
                    out[(comp.id, item.id, "back")] = FacePrint(
                        comp.id, item.id, "back", lang, back_digest, item.count, name, item.back
                    )
            out[(comp.id, item.id, "front")] = FacePrint(
                comp.id, item.id, "front", lang, front, item.count, name, item.layout, back_digest
            )
    return out


def face(renderer: FaceRenderer, layout: str, ctx: dict, w: float, h: float, bleed: float) -> str:
    return version_mark.fingerprint(renderer, version_mark.Face(layout, ctx, w, h, bleed))


def face_pdf(content: GameContent, lang: str, fp: FacePrint, renderer=None) -> bytes:
    """The one-page PDF a print was made from (for pictures and text)."""
    renderer = renderer or FaceRenderer(content, lang)
    comp = content.component(fp.component)
    item = None if fp.item is None else next(i for i in comp.items if i.id == fp.item)
    ctx = renderer.context(comp, item)
    w, h = comp.size_pt
    return version_mark.face_pdf(
        renderer, version_mark.Face(fp.layout, ctx, w, h, _bleed(content, comp))
    )


def _bleed(content: GameContent, comp) -> float:
    own = comp.model.print
    if own is not None and "bleed" in own.model_fields_set:
        return own.bleed.points
    return content.game.print.bleed.points


# ------------------------------------------------------------------ the last build's content

SNAPSHOT_FOLDERS = ("layouts", "languages", "guide", "rulebook")  # templates a face can read


def snapshot_path(project: Project, game: str) -> Path:
    return project.output / ".pnp-cache" / f"{game}.built.tar"


def save_snapshot(project: Project, game: str) -> None:
    """Keep what this build was made from (the game folder and the templates, fonts aside), so
    `pnp diff` without --since compares against the last build, committed or not."""

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
        folders = [project.game_dir(game)] + [project.templates / f for f in SNAPSHOT_FOLDERS]
        files = [project.templates / f for f in ("card-sizes.yaml", "paper.yaml", "printers.yaml")]
        for folder in folders:
            files += tree(folder) if folder.is_dir() else []
        for path in sorted(set(files)):
            try:
                found = path.lstat()
            except OSError:
                continue
            # A file no reader accepts (over the art limit: art, fonts, sheets and rulebook
            # files all stop there) cannot change a face: it is not kept, nor read whole.
            if not stat.S_ISREG(found.st_mode) or found.st_size > LIMITS.files.art_bytes:
                continue
            data = path.read_bytes()
            info = tarfile.TarInfo(str(path.relative_to(project.root)))
            info.size = len(data)
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    path = snapshot_path(project, game)
    data = buf.getvalue()
    try:
        if not path.is_file() or path.read_bytes() != data:
            fsio.write_bytes(path, data)
    except OSError as exc:
        raise write_error(exc, path) from None


def digest_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def restore(tar_path: Path, into: Path) -> None:
    """Unpack a snapshot (regular files only, no path outside `into`)."""
    try:
        with tarfile.open(tar_path) as tar:
            tar.extractall(into, filter="data")
    except (OSError, tarfile.TarError) as exc:
        raise ContentError(
            f"the last build's record cannot be read ({exc})",
            tar_path,
            code="no-baseline",
            hint="build again, or name a git revision with --since",
        ) from None

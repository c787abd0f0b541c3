"""`pnp preview`: a static gallery of every face, per language, with the findings drawn on them.

`output/<game>/preview/index.html` opens from `file://` with no network: the pictures are PNG
files beside it (cached per face by what the face depends on, so a rebuild redraws only what
changed), the style and script are inline. Findings that name a box are outlined on the face;
the others are listed with their component or at the top. When `pnp watch` serves the folder,
the same page listens for its reload events (only over http; from a file it makes no request).
"""

from __future__ import annotations

import html
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from generator.errors import ContentError, Finding
from generator.fsio import write_bytes
from generator.load import templating
from generator.load.content import ComponentSpec, GameContent
from generator.load.layouts import game_store
from generator.rulebook.figures import FaceCache, world_digest

THUMB_PX = 360  # picture width in pixels; shown at about half size, full size when enlarged


@dataclass
class FaceView:
    comp: str
    item: str | None  # None: a component's common back
    side: str
    src: str  # picture path relative to the preview folder
    w_px: int
    h_px: int
    count: int
    marks: list[dict] = field(default_factory=list)  # finding outlines in % of the face


def _box_rect_pct(content: GameContent, comp: ComponentSpec, layout: str, box: str | None):
    """The box's rectangle in % of the face (top-left origin), or None when not a plain box."""
    if not box or "/" in box or "[" in box:
        return None

    try:
        found = game_store(content.project, content.dir).get(layout)
    except ContentError:
        return None
    w, h = comp.size_pt
    for b in found.boxes:
        if b.id == box:
            try:
                x, y = b.x.resolve(w), b.y.resolve(h)
                bw, bh = b.w.resolve(w), b.h.resolve(h)
            except (AttributeError, TypeError, ValueError, ContentError):
                return None
            return [round(100 * v, 2) for v in (x / w, y / h, bw / w, bh / h)]
    return None


def _face_marks(content, comp, layout, findings: list[Finding]) -> list[dict]:
    marks = []
    for f in findings:
        marks.append(
            {
                "severity": f.severity if not f.accepted else "accepted",
                "code": f.code,
                "message": f.message + (f"; {f.hint}" if f.hint else ""),
                "box": f.box,
                "rect": _box_rect_pct(content, comp, layout, f.box),
            }
        )
    return marks


def _pdf_links(content: GameContent, folder: Path) -> dict[str, list[tuple[str, str]]]:
    """Per language, the PDFs of the last build (from its build manifest)."""
    manifest = content.project.output / content.id / "build-manifest.json"
    links: dict[str, list[tuple[str, str]]] = {}
    try:
        data = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return links
    for entry in data.get("files", []):
        path = content.project.root / entry["path"]
        if not path.exists():
            continue
        href = os.path.relpath(path, folder)
        label = path.name if entry.get("kind") != "export" else f"{path.parent.name}/{path.name}"
        for lang in (entry.get("lang") or "").split("-"):
            links.setdefault(lang, []).append((href, label))
    return links


def collect(content: GameContent, findings: list[Finding], folder: Path) -> dict:
    """Every face of every component in every language, drawn (cached) into `folder`."""
    faces_dir = folder / "faces"
    world = world_digest(content)
    by_face: dict[tuple, list[Finding]] = {}
    for f in findings:
        by_face.setdefault((f.component, f.item, f.lang), []).append(f)
    views: dict[str, list[tuple[ComponentSpec, list[FaceView]]]] = {}
    used: set[str] = set()
    for lang in content.languages:
        cache = FaceCache(content, lang, faces_dir, world, raster=True)
        per_comp = []
        for comp in content.components:
            faces: list[FaceView] = []
            width_pt = THUMB_PX / 300 * 72
            back_done = False
            for item in comp.items:
                sides: list[tuple[str, str, str | None]] = [("front", item.layout, item.id)]
                if item.back:
                    common = item.back == comp.model.back
                    if not (common and back_done):
                        sides.append(("back", item.back, None if common else item.id))
                        back_done = back_done or common
                for side, layout, owner in sides:
                    found = by_face.get((comp.id, owner, lang), [])
                    if owner is None:  # findings of a common back are the component's, no item
                        found = [f for f in found if f.box]
                    try:
                        pic = cache.face(comp, item, side, width_pt)
                    except ContentError as exc:
                        # A face that cannot be drawn (undefined data, a bad template) shows as
                        # a blank card with its error, as `pnp check` reports it; the rest of
                        # the game is still previewed.
                        pic = cache.placeholder(comp, width_pt)
                        if not any(f.severity == "error" for f in found):
                            found = [*found, _face_error(content, exc, comp, owner, lang)]
                    used.update(
                        f.name for f in (pic.path, pic.pdf, pic.placeholder) if f is not None
                    )
                    faces.append(
                        FaceView(
                            comp.id,
                            owner,
                            side,
                            f"faces/{pic.path.name}",
                            pic.width_px,
                            pic.height_px,
                            item.count if owner else comp.total,
                            _face_marks(content, comp, layout, found),
                        )
                    )
            per_comp.append((comp, faces))
        views[lang] = per_comp
    # Pictures no face uses any more (an edited card's old picture) are removed.
    if faces_dir.is_dir():
        for pattern in ("*.png", "*.pdf", "*.svg"):  # a face's picture, its vector form
            for old in faces_dir.glob(pattern):
                if old.name not in used:
                    old.unlink(missing_ok=True)
    return views


def _face_error(content, exc: ContentError, comp, item: str | None, lang: str) -> Finding:
    return Finding.from_error(
        exc, content.id, root=content.project.root, component=comp.id, item=item, lang=lang
    )


_STYLE = """
body{font:14px/1.4 system-ui,"Noto Sans CJK KR","NanumGothic","Malgun Gothic",sans-serif;
 margin:0;background:#eef0f3;color:#1b1b1b}
header{position:sticky;top:0;background:#1f2a36;color:#fff;padding:8px 16px;z-index:2}
header h1{font-size:18px;margin:0 12px 0 0;display:inline}
header button{margin:0 2px;padding:3px 10px;border:1px solid #8aa;border-radius:4px;
 background:#2d3b4a;color:#fff;cursor:pointer}
header button[aria-pressed=true]{background:#fff;color:#1f2a36}
main{padding:12px 16px}
.banner{background:#b3261e;color:#fff;padding:10px 16px;white-space:pre-wrap;font-family:monospace}
.game-findings li.error,.comp-findings li.error{color:#b3261e}
.game-findings li.warning,.comp-findings li.warning{color:#8a5a00}
section.comp{background:#fff;border-radius:6px;padding:8px 12px;margin:0 0 14px}
section.comp h2{font-size:16px;margin:4px 0}
.count{color:#555;font-weight:normal;font-size:13px}
.faces{display:flex;flex-wrap:wrap;gap:10px}
figure{margin:0;width:180px}
figure .pic{position:relative;cursor:zoom-in;line-height:0}
figure img{width:100%;height:auto;border:1px solid #ccc;border-radius:3px}
figcaption{font-size:12px;color:#333;margin-top:2px}
.mark{position:absolute;border:2px solid #e0241b;background:rgba(224,36,27,.12)}
.mark.warning{border-color:#e39a00;background:rgba(227,154,0,.12)}
.mark.accepted{border-color:#6a7b8c;background:none;border-style:dashed}
.face-error{outline:3px solid #e0241b}
.msg{font-size:11px;color:#b3261e;margin:2px 0 0;line-height:1.3}
.msg.warning{color:#8a5a00}.msg.accepted{color:#56626e}
.pdfs a{margin-right:10px}
#zoom{position:fixed;inset:0;background:rgba(0,0,0,.8);display:none;align-items:center;
 justify-content:center;z-index:5;cursor:zoom-out}
#zoom img{max-width:92vw;max-height:92vh;background:#fff}
"""

_SCRIPT = """
function showLang(lang){
  document.querySelectorAll('[data-lang-panel]').forEach(function(p){
    p.hidden = p.getAttribute('data-lang-panel') !== lang;});
  document.querySelectorAll('header button[data-lang]').forEach(function(b){
    b.setAttribute('aria-pressed', b.getAttribute('data-lang') === lang);});
  try { sessionStorage.setItem('pnp-lang', lang); } catch (e) {}
}
document.addEventListener('click', function(e){
  var pic = e.target.closest('.pic');
  var zoom = document.getElementById('zoom');
  if (pic) { zoom.querySelector('img').src = pic.querySelector('img').src;
             zoom.style.display = 'flex'; return; }
  if (e.target.closest('#zoom')) { zoom.style.display = 'none'; }
  var b = e.target.closest('button[data-lang]');
  if (b) { showLang(b.getAttribute('data-lang')); }
});
var saved = null;
try { saved = sessionStorage.getItem('pnp-lang'); } catch (e) {}
showLang(saved && document.querySelector('[data-lang-panel="'+saved+'"]')
         ? saved : document.body.getAttribute('data-first-lang'));
// Live reload, only when `pnp watch` serves this page (never from a file: no request at all).
if (location.protocol === 'http:' && window.EventSource) {
  var events = new EventSource('/events');
  events.onmessage = function(m){ if (m.data === 'reload') { location.reload(); } };
}
"""


def _e(text) -> str:
    return html.escape(str(text), quote=True)


def render_html(
    content: GameContent,
    views: dict,
    findings: list[Finding],
    links: dict[str, list[tuple[str, str]]],
    error: str | None = None,
) -> str:
    manifest_counts: dict[str, int] = {}
    if content.manifest is not None:
        for k, v in content.manifest.components.items():
            manifest_counts[k] = v if isinstance(v, int) else v.count
    title = templating.pick(content.game.title, content.languages[0])
    out = [
        "<!doctype html><html><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width,initial-scale=1'>",
        f"<title>{_e(title)} - pnp preview</title><style>{_STYLE}</style></head>",
        f"<body data-first-lang='{_e(content.languages[0])}' data-game='{_e(content.id)}'>",
        f"<header><h1>{_e(title)}</h1>",
    ]
    for lang in content.languages:
        out.append(f"<button type='button' data-lang='{_e(lang)}'>{_e(lang)}</button>")
    out.append("</header>")
    if error:
        out.append(f"<div class='banner' id='error'>{_e(error)}</div>")
    game_level = [f for f in findings if f.component is None]
    errors = sum(1 for f in findings if f.severity == "error" and not f.accepted)
    warnings = sum(1 for f in findings if f.severity == "warning" and not f.accepted)
    out.append("<main>")
    out.append(f"<p class='summary'>{errors} error(s), {warnings} warning(s)</p>")
    if game_level:
        out.append("<ul class='game-findings'>")
        for f in game_level:
            cls = "accepted" if f.accepted else f.severity
            out.append(f"<li class='{cls}'>{_e(f.format())}</li>")
        out.append("</ul>")
    for lang, per_comp in views.items():
        out.append(f"<div data-lang-panel='{_e(lang)}'>")
        if links.get(lang):
            out.append("<p class='pdfs'>PDF: ")
            out += [f"<a href='{_e(h)}'>{_e(label)}</a>" for h, label in links[lang]]
            out.append("</p>")
        for comp, faces in per_comp:
            name = templating.pick(comp.model.name, lang)
            expected = manifest_counts.get(comp.id)
            count = f"{comp.total} printed" + (
                f", manifest {expected}" if expected is not None else ""
            )
            out.append(
                f"<section class='comp' id='{_e(lang)}-{_e(comp.id)}' data-component="
                f"'{_e(comp.id)}'><h2>{_e(name)} <span class='count'>{_e(comp.id)} · "
                f"{_e(count)}</span></h2>"
            )
            out.append("<div class='faces'>")
            for face in faces:
                owner = face.item or "common back"
                bad = any(m["severity"] == "error" for m in face.marks)
                out.append(
                    f"<figure data-component='{_e(face.comp)}' data-item='{_e(face.item or '')}'"
                    f" data-side='{face.side}'{' class=face-error' if bad else ''}>"
                    f"<div class='pic'><img src='{_e(face.src)}' width='{face.w_px}' "
                    f"height='{face.h_px}' loading='lazy' alt='{_e(owner)} {face.side}'>"
                )
                for m in face.marks:
                    if m["rect"]:
                        x, y, w, h = m["rect"]
                        out.append(
                            f"<div class='mark {m['severity']}' title='{_e(m['message'])}' "
                            f"style='left:{x}%;top:{y}%;width:{w}%;height:{h}%'></div>"
                        )
                out.append(
                    f"</div><figcaption>{_e(owner)} · {face.side} · ×{face.count}</figcaption>"
                )
                for m in face.marks:
                    where = (
                        f"box '{m['box']}': " if m["box"] and m["box"] not in m["message"] else ""
                    )
                    out.append(
                        f"<p class='msg {m['severity']}' data-code='{_e(m['code'])}'>"
                        f"[{_e(m['code'])}] {_e(where + m['message'])}</p>"
                    )
                out.append("</figure>")
            out.append("</div></section>")
        out.append("</div>")
    out.append("</main><div id='zoom'><img alt='enlarged face'></div>")
    out.append(f"<script>{_SCRIPT}</script></body></html>")
    return "\n".join(out)


def write_preview(content: GameContent, findings: list[Finding], error: str | None = None) -> Path:
    """Draw (or reuse) every face and write output/<game>/preview/index.html. Returns its path."""
    folder = content.project.output / content.id / "preview"
    views = collect(content, findings, folder)
    page = render_html(content, views, findings, _pdf_links(content, folder), error)
    index = folder / "index.html"
    write_bytes(index, page.encode("utf-8"))
    return index


def write_error_page(folder: Path, game: str, error: str) -> Path:
    """When the game does not even load: a page that says why (watch keeps running)."""
    page = (
        "<!doctype html><html><head><meta charset='utf-8'><title>pnp preview: error</title>"
        f"<style>{_STYLE}</style></head><body data-first-lang=''><header><h1>{_e(game)}</h1>"
        f"</header><div class='banner' id='error'>{_e(error)}</div><main></main>"
        f"<div id='zoom'><img alt=''></div><script>{_SCRIPT}</script></body></html>"
    )
    index = folder / "index.html"
    write_bytes(index, page.encode("utf-8"))
    return index

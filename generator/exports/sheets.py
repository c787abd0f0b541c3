"""`sheets`: every copy imposed on A4/Letter sheets, backs on the following page for duplex.

Rectangles of one component go on a grid (sheets.py); shaped pieces, and components that
share sheets (`sheet:` groups), are packed together (packed_sheets.py), one file per group.
"""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from generator.exports.base import ExportContext, Job, Outputs
from generator.impose import packed_sheets, sheets
from generator.load.export_options import SheetsOptions


class Sheets:
    name = "sheets"
    options = SheetsOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        return plan_sheets(ctx, self.name, ctx.folder(), "components")

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        rel = job.paths[0]
        assert job.paper is not None
        if job.members:
            return write_packed(ctx, job, out)
        comp = ctx.content.component(job.component)
        part = sheets.write_sheets(
            ctx.content, comp, ctx.lang, job.paper, ctx.settings[comp.id], out.path(rel), rel
        )
        return {"files": [part["file"]], "sheets": part["sheets"]}


def plan_sheets(ctx: ExportContext, name: str, folder: str, kind: str) -> list[Job]:
    """One job per component and paper, or per sheet group and paper (see packed_members)."""
    groups = packed_sheets.sheet_groups(ctx.components())
    jobs, named = [], set()
    for comp in ctx.components():
        sheet, members = packed_sheets.packed_members(comp, groups)
        if sheet in named:
            continue  # a group's sheets are one job, planned with its first member
        named.add(sheet)
        for paper in ctx.settings[comp.id].papers:
            path = f"{folder}/{sheet}-{paper}.pdf"
            jobs.append(Job(name, ctx.lang, (path,), sheet, paper, kind, members))
    return jobs


def write_packed(
    ctx: ExportContext, job: Job, out: Outputs, canvas_cls: type[Canvas] = Canvas
) -> dict:
    """Shaped pieces, or a group's components, packed on shared sheets."""
    assert job.paper is not None
    rel = job.paths[0]
    comps = [ctx.content.component(m) for m in job.members]
    settings = {c.id: ctx.settings[c.id] for c in comps}
    part = packed_sheets.write_packed(
        ctx.content,
        comps,
        ctx.lang,
        job.paper,
        settings,
        out.path(rel),
        rel,
        job.component,
        canvas_cls,
    )
    return {"files": [part["file"]], "sheets": part["sheets"]}

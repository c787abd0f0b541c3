"""`sheets`: every copy imposed on A4/Letter sheets, backs on the following page for duplex.

Rectangles of one component go on a grid (sheets.py); shaped pieces, and components that
share sheets (`sheet:` groups), are packed together (packed_sheets.py), one file per group.
Both go through the one sheet writer (impose/writer.py).
"""

from __future__ import annotations

from reportlab.pdfgen.canvas import Canvas

from generator.exports.base import ExportContext, Job, Outputs
from generator.impose import packed_sheets, writer
from generator.impose.placement import SheetJob
from generator.load.export_options import SheetsOptions


class Sheets:
    name = "sheets"
    options = SheetsOptions

    def plan(self, ctx: ExportContext) -> list[Job]:
        return plan_sheets(ctx, self.name, ctx.folder(), "components")

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        return write_sheets(ctx, job, out)


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


def write_sheets(
    ctx: ExportContext,
    job: Job,
    out: Outputs,
    canvas_cls: type[Canvas] = Canvas,
    kind: str = "components",
    fmt: str = "sheets",
) -> dict:
    """A job's sheets through the one sheet writer: its component's grid (or tiles), or its
    members packed on shared sheets; an export drawing them its way names its canvas class,
    and its manifest kind and format."""
    assert job.paper is not None
    rel = job.paths[0]
    comps = tuple(ctx.content.component(m) for m in job.members or (job.component,))
    part = writer.write(
        SheetJob(
            ctx.content,
            ctx.lang,
            job.paper,
            comps,
            {c.id: ctx.settings[c.id] for c in comps},
            out.path(rel),
            rel,
            packed=job.component if job.members else None,
            canvas_cls=canvas_cls,
            kind=kind,
            fmt=fmt,
        )
    )
    return {"files": [part["file"]], "sheets": part["sheets"]}

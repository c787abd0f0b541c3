"""`sheets`: every copy imposed on A4/Letter sheets, backs on the following page for duplex."""

from __future__ import annotations

from generator import sheets
from generator.exports.base import ExportContext, Job, Outputs


class Sheets:
    name = "sheets"

    def plan(self, ctx: ExportContext) -> list[Job]:
        return [
            Job(
                self.name,
                ctx.lang,
                (f"{ctx.folder()}/{comp.id}-{paper}.pdf",),
                comp.id,
                paper,
                kind="components",
            )
            for comp in ctx.components()
            for paper in ctx.settings[comp.id].papers
        ]

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        comp = ctx.content.component(job.component)
        rel = job.paths[0]
        assert job.paper is not None
        part = sheets.write_sheets(
            ctx.content, comp, ctx.lang, job.paper, ctx.settings[comp.id], out.path(rel), rel
        )
        return {"files": [part["file"]], "sheets": part["sheets"]}

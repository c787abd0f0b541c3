"""What every exporter shares: the job the build schedules, the files it writes, its entries.

An exporter plans jobs for one game and language, and writes one job at a time. A job may
write several files: each goes to a temporary file first, and the build renames them all into
place only when the exporter has finished, so a failed or killed job leaves no new file.
"""

from __future__ import annotations

from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar

from generator import fsio
from generator.impose.entries import file_entry, mm, page_entry, slot_entry

if TYPE_CHECKING:
    from generator.load.content import ComponentSpec, GameContent
    from generator.load.export_options import ExportOptions
    from generator.load.model import PrintSettings


__all__ = [
    "ExportContext",
    "Exporter",
    "Job",
    "Outputs",
    "file_entry",
    "mm",
    "page_entry",
    "slot_entry",
]


@dataclass(frozen=True)
class Job:
    """One unit of work for an exporter: the files it promises to write."""

    format: str
    lang: str
    paths: tuple[str, ...]  # relative to the project root; paths[0] names the job
    component: str = ""  # "" for a job about the whole game (an order sheet)
    paper: str | None = None
    kind: str = "export"  # the manifest kind of its files (sheets write "components")
    # The components the job reads when it is not just `component`: every member of a sheet
    # group (`component` is then the group's name); a lone shaped component names itself.
    members: tuple[str, ...] = ()


Opts = TypeVar("Opts", bound="ExportOptions")


class Exporter(Protocol):
    name: str
    options: type[ExportOptions]  # its own options model, registered in load/export_options.py

    def plan(self, ctx: ExportContext) -> list[Job]:
        """The jobs for one game and language (every component, every paper)."""
        ...

    def write(self, ctx: ExportContext, job: Job, out: Outputs) -> dict:
        """Write the job's files through `out`; return its manifest part (files, sheets)."""
        ...


@dataclass
class ExportContext:
    """What an exporter sees: the game, the language, its spec and each component's settings."""

    content: GameContent
    lang: str
    spec: ExportOptions  # the format's own options model (load/export_options.py)
    settings: dict[str, PrintSettings]  # component id -> merged print settings

    def components(self) -> list[ComponentSpec]:
        """The components taking part in this export, in the game's order."""
        return [c for c in self.content.components if c.id in self.settings]

    def folder(self) -> str:
        return f"output/{self.content.id}/{self.lang}"

    def options(self, model: type[Opts]) -> Opts:
        """The spec as the exporter's own options model (the loader validated it as one)."""
        if not isinstance(self.spec, model):
            raise TypeError(f"export {self.spec.format} has options {type(self.spec).__name__}")
        return self.spec


class Outputs:
    """Hands out temporary paths for a job's files (fsio's atomic helper, one per file) and
    renames them all into place when the job's block ends without error; on an error, none."""

    def __init__(self, root: Path, promised: tuple[str, ...]):
        self.root = root
        self.promised = promised
        self.written: dict[str, Path] = {}
        self._stack = ExitStack()

    def __enter__(self) -> Outputs:
        self._stack.__enter__()
        return self

    def __exit__(self, *exc) -> bool | None:
        return self._stack.__exit__(*exc)

    def path(self, rel: str) -> Path:
        if rel not in self.promised:  # the plan is what the build checks for being up to date
            raise ValueError(f"exporter wrote {rel}, which its plan did not name")
        if rel in self.written:
            raise ValueError(f"exporter wrote {rel} twice")
        tmp = self._stack.enter_context(fsio.atomic_path(fsio.output_path(self.root, rel)))
        self.written[rel] = tmp
        return tmp

    def check_complete(self) -> None:
        missing = [rel for rel in self.promised if rel not in self.written]
        if missing:
            raise ValueError(f"exporter did not write {missing[0]}")

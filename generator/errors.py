"""Errors and findings: every problem points at a file, a line and a key."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path


def rel(path: Path | str | None, root: Path | None = None) -> str:
    """A path as the user should read it: relative to the project root when possible."""
    if path is None:
        return "<unknown>"
    p = Path(path)
    for base in (root, Path.cwd()):
        if base is None:
            continue
        # The path as written first: a symlink is named by where it sits, not where it points.
        for candidate in (Path(os.path.abspath(p)), p.resolve()):
            try:
                return str(candidate.relative_to(Path(base).resolve()))
            except (ValueError, OSError):
                pass
    return str(p)


class ContentError(Exception):
    """Content that cannot be loaded. Rendered as one line: file:line: key: message; hint."""

    def __init__(
        self,
        message: str,
        file: Path | str | None = None,
        line: int | None = None,
        key: str | None = None,
        hint: str | None = None,
        code: str = "content",
        cell: str | None = None,
    ):
        super().__init__(message)
        self.cell = cell  # a spreadsheet's cell, "Sheet1!C14": shown instead of the line
        self.message = message
        self.file = file
        self.line = line
        self.key = key
        self.hint = hint
        self.code = code

    def located(self, file=None, line=None, key=None) -> ContentError:
        """Fill in location parts that the raiser did not know."""
        self.file = self.file or file
        self.line = self.line or line
        self.key = self.key or key
        return self

    def format(self, root: Path | None = None) -> str:
        """One line; paths relative to `root` (the project) when given, else to the cwd."""
        text = ""
        if self.file is not None:  # a usage error has no file to point at
            where = self.cell or self.line
            text = rel(self.file, root) + (f":{where}" if where else "") + ": "
        if self.key:
            text += f"{self.key}: "
        text += self.message
        if self.hint:
            text += f"; {self.hint}"
        return " ".join(text.split("\n"))

    def __str__(self) -> str:
        return self.format()


@dataclass
class Finding:
    """One result of `pnp check`. Never raised: collected."""

    severity: str  # "error" or "warning"
    code: str
    message: str
    file: str = ""
    line: int | None = None
    hint: str | None = None
    game: str | None = None
    component: str | None = None
    item: str | None = None
    lang: str | None = None
    box: str | None = None
    key: str | None = None
    accepted: str | None = field(default=None)
    cell: str | None = None  # a spreadsheet's cell ("Sheet1!C14"), shown instead of the line

    def format(self) -> str:
        at = self.cell or self.line
        where = self.file + (f":{at}" if at else "")
        tag = self.severity + (" (accepted)" if self.accepted else "")
        text = f"{where}: {tag}: [{self.code}] {self.message}"
        if self.hint:
            text += f"; {self.hint}"
        return text

    def as_dict(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None}

    @classmethod
    def from_error(
        cls,
        err: ContentError,
        game: str | None = None,
        *,
        prefix: str = "",
        code: str | None = None,
        root: Path | None = None,
        **where,
    ) -> Finding:
        """The one way a ContentError becomes a finding. `where` holds what the caller knows
        (file, line, component, item, lang, box); the error's own file and line win."""
        if err.file:
            where["file"] = rel(err.file, root)
            where["line"] = err.line or where.get("line")
        elif err.line:
            where["line"] = err.line
        where.setdefault("file", rel(None))
        where.setdefault("key", err.key)
        if getattr(err, "cell", None):
            where["cell"] = err.cell
        return cls(
            "error",
            code or err.code,
            prefix + (f"{err.key}: " if err.key else "") + err.message,
            hint=err.hint,
            game=game,
            **where,
        )

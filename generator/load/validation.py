"""Raw YAML data against the typed model: the first problem becomes one located ContentError.

Shared by every loader (games, layouts, the glossary, accepted.yaml), so it lives apart from
any of them: no loader imports another for it.
"""

from __future__ import annotations

import difflib
import re
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from generator.errors import ContentError
from generator.load import boxes, export_options, model
from generator.load.yamlload import locate


def _known_keys() -> list[str]:
    names: set[str] = set()
    stack = [model.Strict]
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        for name, info in getattr(cls, "model_fields", {}).items():
            names.add(info.alias or name)
    return sorted(names)


def _keys(cls: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in cls.model_fields.items()]


def _export_of(loc: tuple) -> str | None:
    """The export format whose options an error is in: pydantic puts the union member's tag
    after the list index of `exports`."""
    for i, part in enumerate(loc[:-1]):
        if part == "exports" and i + 2 < len(loc) and loc[i + 2] in export_options.OPTIONS:
            return str(loc[i + 2])
    return None


def validate(cls: type[BaseModel], raw: Any, file: Path):
    """Validate raw YAML data; the first problem becomes a located ContentError."""
    try:
        return cls.model_validate(raw)
    except ValidationError as exc:
        # An unknown key explains a "missing" one (a typo), so report it first.
        order = {
            "extra_forbidden": 0,
            "union_tag_invalid": 1,
            export_options.UNKNOWN_FORMAT: 1,
            "missing": 3,
        }
        err = sorted(exc.errors(include_url=False), key=lambda e: order.get(e["type"], 2))[0]
        kind, hint = err["type"], None
        loc = tuple(err["loc"]) + (("kind",) if kind.startswith("union_tag") else ())
        if kind == export_options.UNKNOWN_FORMAT:
            loc = (*err["loc"], "format")
        where_file, line, key = locate(raw, loc)
        export = _export_of(err["loc"])
        if kind == export_options.UNKNOWN_FORMAT:
            given = err.get("input")
            name = given.get("format") if isinstance(given, dict) else None
            formats = export_options.EXPORT_FORMATS
            if name is None:
                message = "an export without 'format'"
                close = []
            else:
                message = f"unknown export format '{name}'"
                close = difflib.get_close_matches(str(name), formats, n=1, cutoff=0.5)
            hint = (
                (f"did you mean '{close[0]}'? " if close else "") + "formats: " + ", ".join(formats)
            )
        elif kind == "extra_forbidden" and export is not None:
            bad = str(err["loc"][-1])
            keys = _keys(export_options.OPTIONS[export])
            others = [f for f, m in export_options.OPTIONS.items() if bad in _keys(m)]
            message = f"export '{export}' has no key '{bad}'"
            hint = f"{export} takes: {', '.join(keys)}" + (
                f" ('{bad}' is a key of {', '.join(others)})" if others else ""
            )
        elif kind == "extra_forbidden":
            bad = str(err["loc"][-1])
            message = f"unknown key '{bad}'"
            known = _known_keys()
            close = difflib.get_close_matches(bad, [k for k in known if k != bad], n=1, cutoff=0.6)
            hint = f"did you mean '{close[0]}'?" if close else "remove it or check the spelling"
            if bad in known:  # a real key at the wrong level: never "did you mean" itself
                hint = f"'{bad}' is not a key at this level: check its indentation"
                if re.fullmatch(r"items\[\d+\]\.[^.\[]+", key or ""):
                    hint = (
                        "an item takes id, count, data, layout and back: "
                        f"put '{bad}' under its data:"
                    )
        elif kind == "union_tag_invalid":
            tag = err.get("ctx", {}).get("tag", "?")
            message = f"unknown box kind '{tag}'"
            close = difflib.get_close_matches(str(tag), boxes.BOX_KINDS, n=1, cutoff=0.5)
            hint = (
                (f"did you mean '{close[0]}'? " if close else "")
                + "kinds: "
                + ", ".join(boxes.BOX_KINDS)
            )
        elif kind == "union_tag_not_found":
            message, hint = "box has no 'kind'", "kinds: " + ", ".join(boxes.BOX_KINDS)
        elif kind == "missing":
            message = f"missing required key '{err['loc'][-1]}'"
        else:
            given = err.get("input")
            shown = repr(given)
            if len(shown) > 60:
                shown = shown[:57] + "..."
            message = err["msg"].replace("Value error, ", "")
            if not isinstance(given, (dict, list)) and shown not in message:
                message += f" (got {shown})"
        raise ContentError(
            message, where_file or file, line, key or None, hint, code="schema"
        ) from None

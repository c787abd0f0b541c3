"""Budgets for untrusted content, read from limits.yaml (data shipped with pnp, not with a game).

`LIMITS.files.text_bytes` etc.; `exceeded(...)` makes the located error every breach becomes.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml

from generator.errors import ContentError

_FILE = Path(__file__).with_name("limits.yaml")


def _namespace(data: dict[str, Any]) -> SimpleNamespace:
    return SimpleNamespace(
        **{k: _namespace(v) if isinstance(v, dict) else v for k, v in data.items()}
    )


@lru_cache(maxsize=1)
def _load() -> SimpleNamespace:
    return _namespace(yaml.safe_load(_FILE.read_text(encoding="utf-8")))


class _Limits:
    def __getattr__(self, name: str) -> Any:
        return getattr(_load(), name)


LIMITS: Any = _Limits()


def exceeded(
    what: str, value: object, limit: object, hint: str | None = None, **where
) -> ContentError:
    """The one error for any budget: what, how much, and the limit."""
    return ContentError(
        f"{what} is {value}, over the limit of {limit}",
        hint=hint or "a real game stays far below this; check for a typo",
        code="limit",
        **where,
    )

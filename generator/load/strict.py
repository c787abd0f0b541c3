"""How every content model is configured: unknown keys are errors, validators built on first use.

Apart from model.py so that the schemas beside it (export_options.py) share it while model.py
builds on them, with no cycle between the two.
"""

from __future__ import annotations

from pydantic import ConfigDict

STRICT = ConfigDict(
    # Validators are built on first use, not at import: a build whose content model comes
    # from the cache (model_cache.py) never validates, so it never pays for them.
    defer_build=True,
    extra="forbid",
    arbitrary_types_allowed=True,
    frozen=False,
    populate_by_name=True,
    allow_inf_nan=False,  # NaN or infinity must never reach a PDF or the manifest
)

"""`pnp cache info` and `pnp cache clear`: what pnp keeps between commands, and forgetting it.

The user's cache folder (cache/store.py) holds pure results keyed by their inputs: content
models, string digests, parsed fonts, compiled templates. Clearing it never changes an output,
only how long the next command takes. A project's own records (output/.pnp-cache: kit stamps,
passed checks, build records, rulebook figures) say what its last build wrote; `info` lists
them, and `pnp print --force` is what rebuilds past them.
"""

from __future__ import annotations

import json
import os

from generator.cache import store
from generator.errors import ContentError
from generator.load.project import Project

EXIT_OK = 0

# What a project keeps in output/.pnp-cache, by file name (docs/architecture-layers.md).
RECORDS = (
    ("kit stamps", "*.stamp"),
    ("passed checks", "*.checked"),
    ("build records", "*.json"),
    ("rulebook figures", "rulebook/*"),
)


def size_text(n: int) -> str:
    for unit in ("B", "kB", "MB", "GB"):
        if n < 1000 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1000  # type: ignore[assignment]
    return f"{n} B"


def _records(project: Project) -> list[dict]:
    where = project.output / ".pnp-cache"
    out = []
    for what, pattern in RECORDS:
        files = [p for p in where.glob(pattern) if p.is_file() and not p.is_symlink()]
        out.append(
            {
                "what": what,
                "folder": str(where),
                "entries": len(files),
                "bytes": sum(p.stat().st_size for p in files),
            }
        )
    return out


def info(project: Project | None, as_json: bool = False) -> int:
    kinds = store.info()
    records = _records(project) if project is not None else []
    if as_json:
        print(
            json.dumps(
                {
                    "folder": str(store.root()) if store.root() else None,
                    "kinds": [
                        {
                            "kind": u.kind,
                            "what": u.what,
                            "folder": str(u.folder) if u.folder else None,
                            "entries": u.entries,
                            "bytes": u.bytes,
                            "keep": store.KINDS[u.kind].keep,
                        }
                        for u in kinds
                    ],
                    "project": records,
                },
                indent=1,
            )
        )
        return EXIT_OK
    where = store.root()
    if where is None:
        print("user cache: off (PNP_CACHE_DIR=off): every command computes everything")
    else:
        source = (
            "PNP_CACHE_DIR"
            if os.environ.get("PNP_CACHE_DIR")
            else "XDG_CACHE_HOME"
            if os.environ.get("XDG_CACHE_HOME")
            else "~/.cache"
        )
        print(f"user cache: {where} (from {source})")
        for u in kinds:
            keep = store.KINDS[u.kind].keep
            print(
                f"  {u.kind:<10} {u.entries:>6} entries {size_text(u.bytes):>9}  "
                f"(keeps {keep}) {u.what}"
            )
        total = sum(u.bytes for u in kinds)
        print(f"  {'total':<10} {sum(u.entries for u in kinds):>6} entries {size_text(total):>9}")
    if project is not None:
        print(f"project records: {project.output / '.pnp-cache'} (pnp print --force rebuilds past)")
        for r in records:
            print(f"  {r['what']:<17} {r['entries']:>5} files {size_text(r['bytes']):>9}")
    return EXIT_OK


def clear(kinds: list[str] | None) -> int:
    where = store.root()
    if where is None:
        print("user cache: off (PNP_CACHE_DIR=off): nothing to clear")
        return EXIT_OK
    unknown = sorted(set(kinds or []) - set(store.KINDS))
    if unknown:
        raise ContentError(
            f"unknown cache kind '{unknown[0]}'",
            code="usage",
            hint="kinds: " + ", ".join(store.KINDS),
        )
    gone, freed = store.clear(kinds or None)
    named = ", ".join(kinds) if kinds else "every kind"
    print(f"cleared {named} from {where}: {gone} entries, {size_text(freed)}")
    return EXIT_OK


def run(project: Project | None, args) -> int:
    if args.action == "clear":
        return clear(args.kinds)
    return info(project, as_json=args.format == "json")

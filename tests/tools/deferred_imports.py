"""Count pnp's own imports placed inside functions (deferred), and list them.

    python tests/tools/deferred_imports.py [--list] [--stages] [--check]

A deferred import hides a dependency from a reader (and from a graph drawn from the top of each
file); the rule (docs/architecture-layers.md) is that one stays only where it buys start-up
time, with a comment saying so: --check (run by `make lint`) fails on one without a comment
saying "start-up" on its line or in the comment lines just above its group. --stages prints
the stage-to-stage edges (module-level and deferred) between generator's sub-packages.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "generator"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def resolve(mod: str, node: ast.ImportFrom | ast.Import, is_pkg: bool) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    if node.level:
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    # `from package import name`: the submodule when `name` is one, else the package
    out = []
    for a in node.names:
        sub = f"{target}.{a.name}"
        folder = ROOT.parent.joinpath(*sub.split("."))
        is_module = folder.with_suffix(".py").is_file() or (folder / "__init__.py").is_file()
        out.append(sub if node.module is None or is_module else target)
    return list(dict.fromkeys(out))


def explained(lines: list[str], line: int) -> bool:
    """Whether the import at `line` (from 1) says why it is deferred: "start-up" on its line or
    in the comments just above it and the imports grouped with it."""
    i = line - 1
    if "start-up" in lines[i]:
        return True
    i -= 1
    while i >= 0 and lines[i].strip().startswith(("from ", "import ", "#")):
        if lines[i].strip().startswith("#") and "start-up" in lines[i]:
            return True
        i -= 1
    return False


def imports(path: Path):
    """(line, target, deferred) for each import of generator.* in the file."""
    mod = module_name(path)
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def walk(node, in_func: bool):
        for child in ast.iter_child_nodes(node):
            f = in_func or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            if isinstance(child, ast.Import | ast.ImportFrom):
                for t in resolve(mod, child, path.name == "__init__.py"):
                    if t == "generator" or t.startswith("generator."):
                        out.append((child.lineno, t, in_func))
            walk(child, f)

    walk(tree, False)
    return mod, out


def stage(mod: str) -> str:
    parts = mod.split(".")
    return (
        parts[1] if len(parts) > 2 or (len(parts) == 2 and (ROOT / parts[1]).is_dir()) else "core"
    )


def main(argv: list[str]) -> int:
    deferred = []
    unexplained = []
    edges: Counter[tuple[str, str, bool]] = Counter()
    for path in sorted(ROOT.rglob("*.py")):
        mod, found = imports(path)
        for line, target, d in found:
            if d:
                deferred.append((path.relative_to(ROOT.parent), line, target))
                if not explained(path.read_text(encoding="utf-8").splitlines(), line):
                    unexplained.append((path.relative_to(ROOT.parent), line, target))
            a, b = stage(mod), stage(target)
            if a != b:
                edges[(a, b, d)] += 1
    if "--list" in argv:
        for p, line, t in deferred:
            print(f"{p}:{line}: {t}")
    if "--stages" in argv:
        for (a, b, d), n in sorted(edges.items()):
            print(f"{a:10} -> {b:10} {'deferred' if d else 'top':8} {n}")
    print(f"deferred imports of generator modules: {len(deferred)}")
    if "--check" in argv and unexplained:
        for p, line, t in unexplained:
            print(
                f"{p}:{line}: {t} is imported inside a function without a comment saying the "
                "start-up time it buys (move it to the top of the file, or say why)"
            )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

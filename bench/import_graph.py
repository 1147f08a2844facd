"""The zoo's import graph: modules, first-party edges, function-level imports, cycles.

Reads the source with ``ast`` (nothing is imported). The figures of the 0.2 redesign
came from ``python -m bench.import_graph [ROOT]``, run at commit 46ded54
(before) and after; ``tests/architecture/test_layers.py`` enforces the layers themselves.

Records: one per run in ``bench/results/import_graph/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

from bench import records

PACKAGES = {"zoo.models": "models", "zoo.diagnostics": "diagnostics", "zoo": "zoo"}


def modules(root: Path) -> dict[str, Path]:
    """Dotted module name -> source file, for the three installed packages."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in (root / folder).rglob("*.py"):
            parts = list(path.relative_to(root / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found.setdefault(".".join([package, *parts]), path)
    return found


def imports(module: str, path: Path, known) -> list[tuple[str, bool]]:
    """``(imported first-party module, inside a function)`` for each import of ``module``."""

    def resolve(name):
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []

    def visit(node, nested):
        for child in ast.iter_child_nodes(node):
            inner = nested or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.rsplit(".", child.level - 1)[0]
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" for alias in child.names]
            else:
                visit(child, inner)
                continue
            for target in targets:
                resolved = resolve(target)
                if resolved and resolved != module:
                    found.append((resolved, nested))

    visit(ast.parse(path.read_text()), False)
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def connect(node):
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                connect(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            connect(node)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    root = parser.parse_args().root
    known = modules(root)
    edges = {module: imports(module, path, known) for module, path in known.items()}
    top = sum(not nested for found in edges.values() for _, nested in found)
    inner = sum(nested for found in edges.values() for _, nested in found)
    print(f"modules {len(known)}, module-level imports {top}, function-level imports {inner}")
    found = cycles({module: {t for t, _ in found} for module, found in edges.items()})
    print(f"import cycles (function-level imports included): {len(found)}")
    for component in found:
        print("  ", " <-> ".join(component))
    records.append(
        "import_graph",
        {
            "root": str(root.resolve()),
            "modules": len(known),
            "module_level_imports": top,
            "function_level_imports": inner,
            "cycles": found,
        },
    )


if __name__ == "__main__":
    main()

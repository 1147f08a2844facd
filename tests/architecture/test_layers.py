"""Imports point one way: the contract at the bottom, the command line on top.

Read from the source with ``ast`` (nothing is imported), so a violation is reported
with its file and line. The layers are those of ``docs/design.md``, "Layers".
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Source folder of each installed package (pyproject.toml's package-dir).
PACKAGES = {
    "zoo": ROOT / "zoo",
    "zoo.models": ROOT / "models",
    "zoo.diagnostics": ROOT / "diagnostics",
}

#: (prefix, layer): the first matching prefix decides; a module may import only modules
#: of a lower layer, or of its own group (same prefix).
LAYERS = (
    ("zoo.core", 0),
    ("zoo.datasets", 0),
    ("zoo.models", 1),
    ("zoo.diagnostics", 1),
    ("zoo.registry", 2),
    ("zoo.specification", 2),
    ("zoo.sklearn", 2),
    ("zoo.sampling", 3),
    ("zoo.runs", 4),
    ("zoo.validation", 4),
    ("zoo.check", 5),
    ("zoo.reports", 6),
    ("zoo.cli", 7),
    ("zoo.testing", 7),
)


def _modules() -> dict[str, Path]:
    found = {}
    for package, folder in PACKAGES.items():
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join([package, *parts])
            found.setdefault(name, path)
    return found


MODULES = _modules()


def _group(module: str) -> tuple[str, int]:
    for prefix, layer in LAYERS:
        if module == prefix or module.startswith(prefix + "."):
            return prefix, layer
    raise AssertionError(f"{module}: in no layer; add it to LAYERS and docs/design.md")


def _resolve(name: str) -> str | None:
    while name:
        if name in MODULES:
            return name
        name = name.rpartition(".")[0]
    return None


def _deferred(lines: list[str], lineno: int) -> bool:
    """The import on ``lineno`` (1-based) is marked ``# deferred: <reason>``, on its line
    or on the comment line just above it."""
    return "# deferred:" in lines[lineno - 1] or (
        lineno >= 2 and lines[lineno - 2].strip().startswith("# deferred:")
    )


def _imports(module: str, path: Path):
    """``(target, line, inside a function and not marked deferred)`` per first-party import."""
    source = path.read_text()
    lines = source.splitlines()
    tree = ast.parse(source, filename=str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def visit(node, in_function):
        for child in ast.iter_child_nodes(node):
            nested = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            if isinstance(child, ast.Import):
                targets = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = (
                        package.rsplit(".", child.level - 1)[0] if child.level > 1 else package
                    )
                    base = f"{anchor}.{base}" if base else anchor
                targets = [f"{base}.{alias.name}" for alias in child.names]
            else:
                yield from visit(child, nested)
                continue
            for target in targets:
                resolved = _resolve(target)
                if resolved is not None and resolved != module:
                    hidden = in_function and not _deferred(lines, child.lineno)
                    yield resolved, child.lineno, hidden

    yield from visit(tree, False)


EDGES = {
    module: list(_imports(module, path)) for module, path in MODULES.items() if module != "zoo"
}


def test_every_module_has_a_layer():
    for module in EDGES:
        _group(module)


@pytest.mark.parametrize("module", sorted(EDGES))
def test_imports_point_down(module):
    group, layer = _group(module)
    upward = [
        f"line {line}: {target}"
        for target, line, _ in EDGES[module]
        if _group(target)[1] > layer or (_group(target)[1] == layer and _group(target)[0] != group)
    ]
    assert not upward, f"{module} ({MODULES[module]}) imports upward or sideways: {upward}"


@pytest.mark.parametrize("module", sorted(EDGES))
def test_no_function_level_first_party_import(module):
    # A function-level import of the zoo's own code is how a cycle hides. The one
    # exception is an import deferred for start-up cost (a model's PyMC program), which
    # must say so with a "# deferred: <reason>" comment; test_no_cycles still counts it.
    hidden = [f"line {line}: {target}" for target, line, nested in EDGES[module] if nested]
    assert not hidden, f"{module} imports inside a function: {hidden}"


def test_models_do_not_import_each_other():
    # A model is a sub-package of zoo.models; the plain modules beside them
    # (labelings, mixtures, arrays) are what the models share.
    models = {
        name
        for name, path in MODULES.items()
        if name.count(".") == 2 and name.startswith("zoo.models.") and path.name == "__init__.py"
    }
    for module, edges in EDGES.items():
        if not module.startswith("zoo.models."):
            continue
        own = ".".join(module.split(".")[:3])
        for target, line, _ in edges:
            other = ".".join(target.split(".")[:3])
            if other in models:
                assert other == own, f"{module}:{line} imports another model: {target}"


def test_no_model_module_imports_its_package_init():
    # The package __init__ is the top of a model (it assembles MODEL from the rest).
    for module, edges in EDGES.items():
        parts = module.split(".")
        if len(parts) != 4 or parts[1] != "models":
            continue
        package = ".".join(parts[:3])
        assert package not in {t for t, _, _ in edges}, f"{module} imports {package}"


#: Libraries that draw or lay out pages: presentation, which lives in zoo.reports.
PRESENTATION = ("matplotlib", "arviz_plots")


@pytest.mark.parametrize("module", sorted(m for m in MODULES if m.startswith("zoo.diagnostics")))
def test_diagnostics_hold_numbers_only(module):
    # The statistics return numbers and tables; figures and HTML pages are drawn above
    # them (zoo.reports), so a plotting library never loads with a diagnostic.
    tree = ast.parse(MODULES[module].read_text())
    drawn = [
        f"line {node.lineno}: {name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for name in (
            [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
        )
        if name.split(".")[0] in PRESENTATION
    ]
    assert not drawn, f"{module} imports a plotting library (zoo.reports draws): {drawn}"


def test_no_cycles():
    graph = {module: {t for t, _, _ in edges} for module, edges in EDGES.items()}
    state: dict[str, int] = {}

    def walk(node, path):
        state[node] = 1
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycle = [*path[path.index(target) :], target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                walk(target, [*path, target])
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])

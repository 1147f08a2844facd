"""The public API is what the README and the docs document, and ``dir(zoo)`` lists it.

Every dotted name the README or a page of ``docs/`` mentions in code (``zoo.sample``,
``zoo.diagnostics.agreement``, ``from zoo.diagnostics import compare``) must resolve;
every name the README's "Python API" section lists for ``zoo`` and ``zoo.diagnostics``
must be exported there and listed by ``dir``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

import zoo

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
DOCUMENTED = README + "".join(page.read_text() for page in sorted((ROOT / "docs").glob("*.md")))
# Dotted names in inline code or code blocks, e.g. `zoo.sample(...)`, zoo.models.lda.
DOTTED = sorted(set(re.findall(r"\bzoo(?:\.[A-Za-z_][A-Za-z0-9_]*)+", DOCUMENTED)))
FROM_IMPORTS = re.findall(r"^\s*from (zoo[\w.]*) import ([\w, ]+)$", DOCUMENTED, flags=re.M)


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attribute in parts[cut:]:
            value = getattr(value, attribute)
        return value
    raise ImportError(dotted)


@pytest.mark.parametrize("dotted", DOTTED)
def test_every_dotted_name_in_the_docs_resolves(dotted):
    # A trailing file suffix (`zoo.models.lda.spec.py`) is not an attribute.
    _resolve(re.sub(r"\.(py|md|nc|zarr|csv|jsonl)$", "", dotted))


@pytest.mark.parametrize(("module", "names"), FROM_IMPORTS)
def test_every_from_import_in_the_docs_works(module, names):
    imported = importlib.import_module(module)
    for name in (n.strip() for n in names.split(",")):
        assert hasattr(imported, name), f"from {module} import {name}"


def _api_section() -> str:
    match = re.search(r"^## Python API\n(.*?)(?=^## )", README, flags=re.M | re.S)
    assert match, "README has no '## Python API' section"
    return match.group(1)


@pytest.mark.parametrize("module_name", ["zoo", "zoo.diagnostics"])
def test_documented_names_are_exported_and_listed(module_name):
    section = _api_section()
    # "`zoo`: `a`, `b`, ..." up to the next blank line (the list may wrap).
    match = re.search(rf"^`{re.escape(module_name)}`: (.*?)\n\n", section, flags=re.M | re.S)
    assert match, f"the Python API section lists no names for {module_name}"
    documented = re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", match.group(1))
    module = importlib.import_module(module_name)
    for name in documented:
        assert name in module.__all__, f"{module_name}.{name} is documented, not exported"
        assert name in dir(module), f"dir({module_name}) does not list {name}"
        getattr(module, name)
    assert set(module.__all__) - {"__version__"} <= set(documented), (
        f"{module_name} exports names the README does not document: "
        f"{sorted(set(module.__all__) - set(documented) - {'__version__'})}"
    )


def test_dir_lists_sample_and_validate():
    assert {"sample", "validate", "KernelChecks"} <= set(dir(zoo))

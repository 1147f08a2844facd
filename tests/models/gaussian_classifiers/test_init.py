"""The family's layout: members import the shared root, never each other.

Read from the source with ``ast`` (nothing is imported), as ``tests/architecture``
does for the layers: every import of ``zoo.models.gaussian_classifiers.<name>``, at
module level or inside a function.
"""

import ast
from pathlib import Path

import pytest

import zoo
from zoo.models import gaussian_classifiers

FAMILY = "zoo.models.gaussian_classifiers"
ROOT = Path(gaussian_classifiers.__file__).parent
MEMBERS = {"linear": "gda", "quadratic": "qda", "diagonal": "gaussian-nb"}
FILES = {
    "__init__.py",
    "spec.py",
    "posterior.py",
    "pymc_program.py",
    "gibbs.py",
    "problems.py",
    "kernel_checks.py",
    "faults.py",
    "estimator.py",
}


def _family_imports(path: Path) -> set[str]:
    """The first part below the family of every ``zoo.models.gaussian_classifiers`` import."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name.startswith(FAMILY + "."):
                found.add(name[len(FAMILY) + 1 :].split(".")[0])
    return found


@pytest.mark.parametrize("member", sorted(MEMBERS))
def test_a_member_has_every_models_files_and_imports_no_other_member(member):
    folder = ROOT / member
    assert {p.name for p in folder.glob("*.py")} == FILES
    for path in folder.glob("*.py"):
        others = _family_imports(path) & (set(MEMBERS) - {member})
        assert not others, f"{path.relative_to(ROOT)} imports another member: {others}"


def test_the_shared_root_imports_no_member():
    for path in ROOT.glob("*.py"):
        members = _family_imports(path) & set(MEMBERS)
        assert not members, f"{path.name} imports a member: {members}"


@pytest.mark.parametrize(("member", "name"), sorted(MEMBERS.items()))
def test_each_member_is_its_registry_model(member, name):
    model = zoo.get(name)
    assert model.location == f"{FAMILY}.{member}:MODEL"
    assert model.name == name

"""The distribution installs as `zoo`, `zoo.models`, `zoo.diagnostics`."""

import pathlib
import tomllib

import zoo
import zoo.diagnostics
import zoo.models

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_subpackages_map_to_top_level_folders():
    assert pathlib.Path(zoo.models.__file__).parent.name == "models"
    assert pathlib.Path(zoo.diagnostics.__file__).parent.name == "diagnostics"


def test_every_package_folder_is_packaged():
    # A folder missing from the list installs in editable mode but not from a wheel.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = set(config["tool"]["setuptools"]["packages"])
    for prefix, top in (
        ("zoo", "zoo"),
        ("zoo.models", "models"),
        ("zoo.diagnostics", "diagnostics"),
    ):
        for init in (ROOT / top).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / top).parts
            name = ".".join((prefix, *parts))
            assert name in packages, f"{name} is not in pyproject.toml's packages"


def test_registry_lists_and_gets_models():
    assert "beta-binomial" in zoo.names()
    assert zoo.get("beta-binomial").name == "beta-binomial"
    assert zoo.get(zoo.get("beta-binomial")) is zoo.get("beta-binomial")


def test_unknown_model_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="model: unknown model 'nope'"):
        zoo.get("nope")

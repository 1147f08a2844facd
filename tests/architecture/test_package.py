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


def test_every_model_folder_is_packaged():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    packages = set(config["tool"]["setuptools"]["packages"])
    for folder in (ROOT / "models").iterdir():
        if (folder / "__init__.py").exists():
            assert f"zoo.models.{folder.name}" in packages, folder.name


def test_registry_lists_and_gets_models():
    assert "beta-binomial" in zoo.names()
    assert zoo.get("beta-binomial").name == "beta-binomial"
    assert zoo.get(zoo.get("beta-binomial")) is zoo.get("beta-binomial")


def test_unknown_model_is_a_clear_error():
    import pytest

    with pytest.raises(ValueError, match="model: unknown model 'nope'"):
        zoo.get("nope")

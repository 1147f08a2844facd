"""``load_object``: a user's module found beside them, without shadowing the zoo's imports."""

import importlib
import sys

import pytest

from zoo.core.loading import load_object


def test_the_working_directory_is_searched_first_then_last(tmp_path, monkeypatch):
    # A file in the user's folder named like a module the zoo imports later (here one of
    # the standard library's that nothing has imported yet) must not replace it.
    shadowed = "colorsys"
    if shadowed in sys.modules:
        pytest.skip(f"{shadowed} is already imported in this process")
    (tmp_path / "users_sampler_module.py").write_text("def sampler():\n    return 'mine'\n")
    (tmp_path / f"{shadowed}.py").write_text("raise RuntimeError('shadowed')\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(tmp_path))])
    try:
        assert load_object("users_sampler_module:sampler")() == "mine"
        assert sys.path[-1] == str(tmp_path) and sys.path.count(str(tmp_path)) == 1
        module = importlib.import_module(shadowed)
        assert module.__file__ != str(tmp_path / f"{shadowed}.py")
    finally:
        sys.modules.pop("users_sampler_module", None)
        sys.modules.pop(shadowed, None)

"""The README's worked example, "Validate your sampler", runs as printed.

The code block is read from README.md, written where a user would put it, and validated
from the command line; its twin plants the classic bug (the exposure left out of the
Gamma rate) and must fail. A change to the README that breaks the example fails here.
"""

import json
import re
from pathlib import Path

import pytest

from zoo.cli import main

README = Path(__file__).resolve().parents[2] / "README.md"
SECTION = "## Validate your sampler"
FAST = ["--workers", "0", "--simulations", "30", "--sbc-draws", "100", "--json"]


def _example() -> str:
    text = README.read_text()
    section = text[text.index(SECTION) :]
    return re.search(r"```python\n(.*?)```", section, re.DOTALL).group(1)


def _validate(tmp_path, monkeypatch, capsys, module: str, source: str, *what: str) -> tuple:
    (tmp_path / f"{module}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    status = main(["validate", "--model", f"{module}:model", *what, *FAST])
    return status, json.loads(capsys.readouterr().out)


@pytest.mark.pymc
def test_the_readme_example_passes_every_check(tmp_path, monkeypatch, capsys):
    status, report = _validate(
        tmp_path,
        monkeypatch,
        capsys,
        "readme_model",
        _example(),
        "--sampler",
        "readme_model:sampler",
    )
    assert status == 0, report
    # Every data set has its exact reference: nuts runs only on request.
    assert [c["check"] for c in report["checks"]] == ["exact", "sbc"]


def test_the_readme_example_with_the_exposure_forgotten_fails(tmp_path, monkeypatch, capsys):
    source = _example()
    right = 'rate = 10.0 + data["exposure"]'
    assert right in source
    status, report = _validate(
        tmp_path,
        monkeypatch,
        capsys,
        "readme_model_bug",
        source.replace(right, "rate = 10.0 + 0.0 * data['exposure']"),
        "--sampler",
        "readme_model_bug:sampler",
        "--checks",
        "exact,sbc",
    )
    assert status == 1 and report["verdict"] == "fail", report
    assert all(c["verdict"] == "fail" for c in report["checks"])


def test_the_readme_kernel_passes_the_invariance_check(tmp_path, monkeypatch, capsys):
    status, report = _validate(
        tmp_path,
        monkeypatch,
        capsys,
        "readme_kernel",
        _example(),
        "--kernel",
        "readme_kernel:kernel",
        "--checks",
        "invariance",
    )
    # The kernel's conditionals pass; alone, without exact or SBC, that is no PASS.
    assert [c["verdict"] for c in report["checks"]] == ["pass"], report
    assert status == 1 and report["verdict"] == "inconclusive", report

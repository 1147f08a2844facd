"""The pytest plugin, through its entry point, on the test file of docs/testing.md.

The page's complete test file is run by a pytest of its own (a subprocess, so the
plugin is found as an installed user would find it: the ``pytest11`` entry point, no
import), under pytest-xdist as a CI job would run it: the right sampler's test passes,
the planted bug's test passes because the assertion caught it, no test starts a Dask
cluster, and the controller's summary has one line per validation of every worker.
"""

import os
import re
from pathlib import Path

import matplotlib
import pytensor
import pytest

from zoo.core import disk_cache

pytest_plugins = ["pytester"]

PAGE = Path(__file__).resolve().parents[2] / "docs" / "testing.md"


def _test_file() -> str:
    return re.search(r"```python\n(.*?)```", PAGE.read_text(), re.DOTALL).group(1)


#: This run's caches, read at collection, before pytester points HOME at a temporary
#: folder (so that no user configuration reaches the inner pytest) and so moves the
#: caches found from HOME: PyTensor's compiled functions, matplotlib's font list, the
#: zoo's reference tables. Without them the inner run compiled the page's model from
#: nothing every time (19 CPU s for the test with this run's caches warm, 14 with them).
CACHES = {
    "PYTENSOR_FLAGS": f"base_compiledir={pytensor.config.base_compiledir}",
    "MPLCONFIGDIR": matplotlib.get_configdir(),
    disk_cache.ENVIRONMENT: str(disk_cache.cache_folder() or ""),
}


def keep_caches(monkeypatch):
    """Give the inner pytest this run's caches, unless the environment names its own."""
    flags = os.environ.get("PYTENSOR_FLAGS", "")
    for name, value in CACHES.items():
        if name == "PYTENSOR_FLAGS":
            if "compiledir" not in flags:
                monkeypatch.setenv(name, f"{flags},{value}" if flags else value)
        elif name not in os.environ:
            monkeypatch.setenv(name, value)


#: Each test of the page's file, after it ran: no Dask cluster was started in the
#: worker. The zoo imports ``distributed`` only to start or join one (FitPool), and
#: nothing else in a validation imports it.
NO_CLUSTER = """
import sys

import pytest


@pytest.fixture(autouse=True)
def no_dask_cluster():
    yield
    assert "distributed" not in sys.modules, "a Dask cluster was started in this worker"
"""


@pytest.mark.pymc
def test_the_page_s_test_file_passes_and_reports_each_validation(pytester, monkeypatch):
    keep_caches(monkeypatch)
    pytester.makepyfile(test_my_sampler=_test_file())
    pytester.makeconftest(NO_CLUSTER)
    report = pytester.path / "reports"
    # One pytest-xdist worker is the case docs/testing.md promises (the battery inside a
    # worker, no Dask cluster per test); a second would only import PyMC and compile again.
    run = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "-n",
        "1",
        "--zoo-budget",
        "quick",
        "--zoo-report",
        str(report),
    )
    run.assert_outcomes(passed=2)
    # each line is looked for under the heading, in whichever order the tests ran
    for line in (
        "PASS model: test_my_sampler:sampler [[]exact,sbc[]] 1 stage(s)*::test_my_sampler)",
        "FAIL model: test_my_sampler:sampler_without_exposure [[]exact[]] 1 stage(s)*",
    ):
        run.stdout.fnmatch_lines(["*bayes-zoo validations*", line])
    # The failing validation's report, beside pytest's output, and only that one.
    written = sorted(p.parent.name for p in report.glob("*/index.html"))
    assert written == ["test_my_sampler.py_test_the_planted_bug_is_caught"]


def test_a_bad_rate_is_a_usage_error(pytester):
    pytester.makepyfile(test_nothing="def test_nothing():\n    pass\n")
    run = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--zoo-rate", "2")
    assert run.ret == pytest.ExitCode.USAGE_ERROR
    run.stderr.fnmatch_lines(["*--zoo-rate: must be a probability in (0, 1), got 2.0*"])

"""pytest plugin: the ``zoo_validate`` fixture, its options and a summary per validation.

Registered through the ``pytest11`` entry point of the package, so a test suite needs no
import or ``conftest.py`` entry::

    def test_my_sampler(zoo_validate):
        zoo_validate("my_package.model:build", sampler=my_sampler)

Options: ``--zoo-budget quick|default|thorough`` (the first stage's budget),
``--zoo-rate RATE`` (each validation's false-alarm rate, default 1e-4) and
``--zoo-report DIR`` (the HTML report of every validation that did not pass, in
``DIR/<test id>/``). At the end of the session pytest's summary has one line per
validation: its verdict, checks, stages, draws per chain and seconds. Fits run in the
test's own process (no Dask cluster per test, pytest-xdist friendly).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zoo.testing.sequential import BUDGETS, RATE

_RECORDS = pytest.StashKey[list]()


def pytest_addoption(parser):
    """The plugin's command-line options."""
    group = parser.getgroup("zoo", "bayes-zoo sampler validation")
    group.addoption(
        "--zoo-budget",
        choices=tuple(BUDGETS),
        default="default",
        help="first stage's budget of zoo_validate (default: %(default)s)",
    )
    group.addoption(
        "--zoo-rate",
        type=float,
        default=RATE,
        help="false-alarm rate of each zoo_validate call (default: %(default)s)",
    )
    group.addoption(
        "--zoo-report",
        default=None,
        metavar="DIR",
        help="write the HTML report of each validation that does not pass into DIR",
    )


def pytest_configure(config):
    """Check the options once, and keep a list of the session's validations."""
    rate = config.getoption("--zoo-rate")
    if not 0.0 < rate < 1.0:
        raise pytest.UsageError(f"--zoo-rate: must be a probability in (0, 1), got {rate}")
    config.stash[_RECORDS] = []


@pytest.fixture
def zoo_validate(request):
    """``zoo_validate(model, sampler=None, **options)``: a validation of this test.

    :func:`zoo.testing.assert_valid` with the session's ``--zoo-budget`` and
    ``--zoo-rate``; keyword arguments override them.
    """
    # pytest loads this plugin in every session, most of which validate nothing:
    # deferred: the battery imports PyMC, ArviZ and Dask (seconds)
    from zoo.reports.validation_report import validation_report

    # deferred: as above
    from zoo.testing.assertion import assert_valid

    config = request.config
    records = config.stash[_RECORDS]
    report_root = config.getoption("--zoo-report")
    node = request.node.nodeid

    def record(sequential):
        records.append((node, sequential))
        if report_root is not None and sequential.verdict != "pass":
            folder = Path(report_root) / re.sub(r"[^\w.-]+", "_", node)
            validation_report(sequential.result).write(folder)

    def run(model, sampler=None, **options):
        options.setdefault("budget", config.getoption("--zoo-budget"))
        options.setdefault("rate", config.getoption("--zoo-rate"))
        return assert_valid(model, sampler, on_record=record, **options)

    return run


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """One line per validation of the session."""
    records = config.stash.get(_RECORDS, [])
    if not records:
        return
    terminalreporter.section("bayes-zoo validations")
    for node, sequential in records:
        terminalreporter.write_line(f"{sequential.line()}  ({node})")

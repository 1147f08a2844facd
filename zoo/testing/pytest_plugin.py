"""pytest plugin: the ``zoo_validate`` fixture, its options and a summary per validation.

Registered through the ``pytest11`` entry point of the package, so a test suite needs no
import or ``conftest.py`` entry::

    def test_my_sampler(zoo_validate):
        zoo_validate("my_package.model:build", sampler=my_sampler)

Options: ``--zoo-budget quick|default|thorough`` (the budget preset; the first stage
spends three quarters of it), ``--zoo-rate RATE`` (each validation's false-alarm rate,
default 1e-4) and ``--zoo-report DIR`` (the HTML report of every validation that did
not pass, in ``DIR/<test id>/``). At the end of the session pytest's summary has one line per
validation: its verdict, checks, stages, draws per chain and seconds. Fits run in the
test's own process (no Dask cluster per test, pytest-xdist friendly); each line travels
with its test's report (``user_properties``), so under pytest-xdist the controller's
summary has the lines of every worker's validations.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from zoo.testing.sequential import BUDGETS, RATE

#: The name under which a test's report carries each of its validations' summary line.
PROPERTY = "zoo_validation"


class _Summary:
    """The summary lines of the session's validations, read from the tests' reports.

    A report is made where its test ran, in this process or a pytest-xdist worker, and
    reaches the controller with its ``user_properties``; the teardown report has every
    line the test's setup, call and teardown added.
    """

    def __init__(self):
        self.lines: list[tuple[str, str]] = []

    def pytest_runtest_logreport(self, report):
        """Keep the lines of one test's validations."""
        if report.when == "teardown":
            found = [value for name, value in report.user_properties if name == PROPERTY]
            self.lines.extend((report.nodeid, line) for line in found)


def pytest_addoption(parser):
    """The plugin's command-line options."""
    group = parser.getgroup("zoo", "bayes-zoo sampler validation")
    group.addoption(
        "--zoo-budget",
        choices=tuple(BUDGETS),
        default="default",
        help="budget preset of zoo_validate; its first stage spends three quarters of it "
        "(default: %(default)s)",
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
    config.pluginmanager.register(_Summary(), "zoo-validations-summary")


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
    report_root = config.getoption("--zoo-report")
    node = request.node.nodeid

    def record(sequential):
        request.node.user_properties.append((PROPERTY, sequential.line()))
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
    summary = config.pluginmanager.get_plugin("zoo-validations-summary")
    if summary is None or not summary.lines:
        return
    terminalreporter.section("bayes-zoo validations")
    for node, line in summary.lines:
        terminalreporter.write_line(f"{line}  ({node})")

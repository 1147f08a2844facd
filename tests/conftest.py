"""Shared fixtures.

Statistical tests use fixed seeds, but their tolerances come from Monte Carlo standard
errors and the stated family-wise rate (1%) inside ``zoo.diagnostics.agreement``: a
seed is never tuned until a test passes.
"""

import os

import pytest
from threadpoolctl import threadpool_limits

import zoo
from tests.support.report_problems import gibbs_check, register_broken, unregister_broken


def pytest_configure(config):
    """One BLAS thread per process for the whole run.

    pytest-xdist already runs one worker per core, and PyMC's chain processes run
    beside them; OpenBLAS's default of a thread per core in each of them oversubscribes
    the machine, and its idle threads spin. On the GDA PyMC test file with cold caches
    (2-core host, ``-n 2``) one thread cost 186 and 187 CPU s against 213 and 217.
    The limit is set in this process (forked chain processes inherit it) and in the
    environment, for the subprocesses the CLI tests start.
    """
    for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    threadpool_limits(limits=1, user_api="blas")


@pytest.fixture(scope="session")
def rats():
    spec = zoo.get("beta-binomial")
    data, prior = spec.default_problem()
    return spec, data, prior, spec.posterior(data, prior)


@pytest.fixture(scope="session")
def report_checks():
    """``zoo check`` results of a correct and a broken Gibbs kernel (reports, figures)."""
    good = gibbs_check()
    broken = gibbs_check(register_broken())
    yield good, broken
    unregister_broken()

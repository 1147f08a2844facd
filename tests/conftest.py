"""Shared fixtures.

Statistical tests use fixed seeds, but their tolerances come from Monte Carlo standard
errors and the stated family-wise rate (1%) inside ``zoo.diagnostics.agreement``: a
seed is never tuned until a test passes.
"""

import pytest

import zoo
from tests.support.report_problems import gibbs_check, register_broken, unregister_broken


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

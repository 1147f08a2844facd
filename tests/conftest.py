"""Shared fixtures.

Statistical tests use fixed seeds, but their tolerances come from Monte Carlo standard
errors and the stated family-wise rate (1%) inside ``zoo.diagnostics.agreement``: a
seed is never tuned until a test passes.
"""

import pytest

import zoo


@pytest.fixture(scope="session")
def rats():
    spec = zoo.get("beta-binomial")
    data, prior = spec.default_problem()
    return spec, data, prior, spec.posterior(data, prior)

"""Beta-Binomial's pointwise log-likelihood against scipy.stats, over sample dims."""

import numpy as np
from scipy import stats

import zoo
from tests.support.prior_draws import prior_draws

SPEC = zoo.get("beta-binomial")


def test_pointwise_is_the_binomial_log_pmf_per_group_and_draw():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    terms = SPEC.pointwise_log_likelihood(data, params)
    assert list(terms) == ["y"]
    values, dims = terms["y"]
    assert dims == ("group",)
    expected = stats.binom.logpmf(data.successes, data.trials, params["theta"])
    np.testing.assert_allclose(values, expected, rtol=1e-12)


def test_pointwise_sums_to_the_log_likelihood_of_each_draw():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    values, _ = SPEC.pointwise_log_likelihood(data, params)["y"]
    draw = {name: value[1, 2] for name, value in params.items()}
    assert values[1, 2].sum() == SPEC.log_likelihood(data, draw)

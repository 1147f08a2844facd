"""GDA's pointwise log-likelihood against scipy.stats, over sample dims."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import zoo
from tests.support.prior_draws import prior_draws

SPEC = zoo.get("gda")
PARAMETERS = ("pi", "mu", "Sigma")


def test_pointwise_terms_are_the_points_log_densities():
    params, data = prior_draws(
        SPEC, {**SPEC.simulation_setup()[1], "points": 15}, names=PARAMETERS
    )
    terms = SPEC.pointwise_log_likelihood(data, params)
    assert {name: dims for name, (_, dims) in terms.items()} == {
        "labels": ("labelled",),
        "x_labelled": ("labelled",),
        "x_unlabelled": ("unlabelled",),
    }
    assert data.unlabelled.size
    for c in range(2):
        for s in range(3):
            pi, mu, sigma = (params[name][c, s] for name in ("pi", "mu", "Sigma"))
            labels = data.labels[data.labelled]
            np.testing.assert_allclose(terms["labels"][0][c, s], np.log(pi[labels]), rtol=1e-12)
            expected = [
                stats.multivariate_normal.logpdf(x, mu[k], sigma)
                for x, k in zip(data.x[data.labelled], labels, strict=True)
            ]
            np.testing.assert_allclose(terms["x_labelled"][0][c, s], expected, rtol=1e-10)
            expected = [
                logsumexp(
                    [
                        np.log(pi[k]) + stats.multivariate_normal.logpdf(x, mu[k], sigma)
                        for k in range(pi.size)
                    ]
                )
                for x in data.x[data.unlabelled]
            ]
            np.testing.assert_allclose(terms["x_unlabelled"][0][c, s], expected, rtol=1e-10)


def test_pointwise_sums_to_the_log_likelihood_of_each_draw():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1], names=PARAMETERS)
    terms = SPEC.pointwise_log_likelihood(data, params)
    draw = {name: value[1, 0] for name, value in params.items()}
    total = sum(values[1, 0].sum() for values, _ in terms.values())
    assert total == pytest.approx(SPEC.log_likelihood(data, draw), rel=1e-12)

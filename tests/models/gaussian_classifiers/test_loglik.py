"""GDA's pointwise log-likelihood against scipy.stats, over sample dims."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import zoo
from tests.support.prior_draws import draws_with_pointwise_totals, prior_draws

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


@pytest.mark.parametrize(
    ("model", "names"),
    [
        ("gda", PARAMETERS),
        ("qda", ("pi", "mu", "Sigma")),
        ("gaussian-nb", ("pi", "mu", "variance")),
    ],
)
def test_pointwise_sums_to_the_log_likelihood_of_each_draw(model, names):
    # The one-draw sum is compiled separately from the batched terms: every covariance
    # structure, every draw, labelled and unlabelled points.
    spec = zoo.get(model)
    params, data = prior_draws(spec, {**spec.simulation_setup()[1], "points": 12}, names=names)
    assert data.unlabelled.size and data.labelled.size
    for draw, total in draws_with_pointwise_totals(spec, params, data):
        assert spec.log_likelihood(data, draw) == pytest.approx(total, rel=1e-12)


def test_a_labelled_point_in_a_class_of_weight_zero_has_likelihood_zero():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1], names=PARAMETERS)
    draw = {name: value[0, 0].copy() for name, value in params.items()}
    draw["pi"][data.labels[data.labelled[0]]] = 0.0
    assert SPEC.log_likelihood(data, draw) == -np.inf


@pytest.mark.parametrize(("name", "shape"), [("mu", (3, 7)), ("Sigma", (4, 4)), ("pi", (5,))])
def test_a_draw_of_the_wrong_shape_is_named(name, shape):
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1], names=PARAMETERS)
    draw = {key: value[0, 0] for key, value in params.items()}
    draw[name] = np.ones(shape)
    with pytest.raises(ValueError, match=rf"^{name}: expected shape"):
        SPEC.log_likelihood(data, draw)

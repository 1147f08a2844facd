"""Naive Bayes' pointwise log-likelihood against scipy.stats, over sample dims."""

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import zoo
from tests.support.prior_draws import draws_with_pointwise_totals, prior_draws

SPEC = zoo.get("naive-bayes")


def _document(x, phi_k, event_model):
    if event_model == "multinomial":
        return stats.multinomial.logpmf(x, x.sum(), phi_k)
    return stats.bernoulli.logpmf(x, phi_k)  # one value per feature


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_pointwise_terms_are_the_documents_log_pmfs(event_model):
    size = {**SPEC.simulation_setup()[1], "event_model": event_model}
    params, data = prior_draws(SPEC, size)
    terms = SPEC.pointwise_log_likelihood(data, params)
    assert list(terms) == ["labels", "x_labelled", "x_unlabelled"]
    feature = ("feature",) if event_model == "bernoulli" else ()
    assert terms["labels"][1] == ("labelled",)
    assert terms["x_labelled"][1] == ("labelled", *feature)
    assert terms["x_unlabelled"][1] == ("unlabelled",)
    for c in range(2):
        for s in range(3):
            pi, phi = params["pi"][c, s], params["phi"][c, s]
            for j, d in enumerate(data.labelled):
                k = data.labels[d]
                assert terms["labels"][0][c, s, j] == pytest.approx(np.log(pi[k]), rel=1e-12)
                np.testing.assert_allclose(
                    terms["x_labelled"][0][c, s, j],
                    _document(data.counts[d], phi[k], event_model),
                    rtol=1e-10,
                )
            for j, d in enumerate(data.unlabelled):
                mixture = [
                    np.log(pi[k]) + np.sum(_document(data.counts[d], phi[k], event_model))
                    for k in range(pi.size)
                ]
                assert terms["x_unlabelled"][0][c, s, j] == pytest.approx(
                    logsumexp(mixture), rel=1e-10
                )


@pytest.mark.parametrize("event_model", ["multinomial", "bernoulli"])
def test_pointwise_sums_to_the_log_likelihood_of_each_draw(event_model):
    # The one-draw sum is compiled separately from the batched terms: both event
    # models, every draw, labelled and unlabelled documents.
    size = {**SPEC.simulation_setup()[1], "event_model": event_model}
    params, data = prior_draws(SPEC, size)
    assert data.unlabelled.size and data.labelled.size
    for draw, total in draws_with_pointwise_totals(SPEC, params, data):
        assert SPEC.log_likelihood(data, draw) == pytest.approx(total, rel=1e-12)


def test_a_labelled_document_in_a_class_of_weight_zero_has_likelihood_zero():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    draw = {name: value[0, 0].copy() for name, value in params.items()}
    draw["pi"][data.labels[data.labelled[0]]] = 0.0
    # pi is floored at the smallest double, as in the batched terms: about -708 per
    # such document, not -inf (a draw that underflowed still counts 0 * log 0 as 0).
    floor = np.log(np.finfo(float).tiny)
    assert SPEC.log_likelihood(data, draw) < floor + 10.0


@pytest.mark.parametrize(("name", "shape"), [("pi", (5,)), ("phi", (2, 7))])
def test_a_draw_of_the_wrong_shape_is_named(name, shape):
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    draw = {key: value[0, 0] for key, value in params.items()}
    draw[name] = np.full(shape, 0.2)
    with pytest.raises(ValueError, match=rf"^{name}: expected shape"):
        SPEC.log_likelihood(data, draw)

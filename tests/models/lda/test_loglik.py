"""LDA's pointwise log-likelihood against a direct sum over topics, over sample dims."""

import numpy as np
import pytest

import zoo
from tests.support.prior_draws import prior_draws

SPEC = zoo.get("lda")


def test_pointwise_is_each_tokens_topic_mixture():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    terms = SPEC.pointwise_log_likelihood(data, params)
    assert list(terms) == ["token_word"]
    values, dims = terms["token_word"]
    assert dims == ("token",)
    assert values.shape == (2, 3, data.n_tokens)
    for c in range(2):
        for s in range(3):
            theta, phi = params["theta"][c, s], params["phi"][c, s]
            for i, (d, w) in enumerate(zip(data.token_document, data.token_word, strict=True)):
                expected = np.log(sum(theta[d, k] * phi[k, w] for k in range(data.n_topics)))
                assert values[c, s, i] == pytest.approx(expected, rel=1e-12)


def test_pointwise_sums_to_the_log_likelihood_of_each_draw():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    values, _ = SPEC.pointwise_log_likelihood(data, params)["token_word"]
    draw = {name: value[1, 1] for name, value in params.items()}
    assert values[1, 1].sum() == pytest.approx(SPEC.log_likelihood(data, draw), rel=1e-12)


def test_mismatched_sample_dims_are_refused():
    params, data = prior_draws(SPEC, SPEC.simulation_setup()[1])
    with pytest.raises(ValueError, match="phi: expected the sample dims"):
        SPEC.pointwise_log_likelihood(data, {"theta": params["theta"], "phi": params["phi"][0]})

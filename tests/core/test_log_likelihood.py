"""The log-likelihood of many draws: vectorised over blocks, equal to the per-draw form."""

import dataclasses

import numpy as np
import pytest

import zoo
from zoo.core import log_likelihood
from zoo.core.log_likelihood import log_likelihood_per_draw


def _draws(spec, chains=2, draws=5, seed=0):
    """Prior-predictive parameter draws, stacked (chain, draw, ...), and one data set."""
    prior, size = spec.simulation_setup()
    rng = np.random.default_rng(seed)
    truths = []
    for _ in range(chains * draws):
        truth, data = spec.simulate(prior, rng, **size)
        truths.append(truth)
    stacked = {
        name: np.stack([np.asarray(t[name], dtype=float) for t in truths]).reshape(
            chains, draws, *np.shape(truths[0][name])
        )
        for name in truths[0]
        # (a per-item quantity such as class_probability changes size between data sets)
        if len({np.shape(t[name]) for t in truths}) == 1
    }
    return data, stacked


@pytest.mark.parametrize("name", zoo.names())
def test_total_is_the_per_draw_log_likelihood(name):
    spec = zoo.get(name)
    data, posterior = _draws(spec)
    total, pointwise = log_likelihood_per_draw(spec, data, posterior, keep=True)
    assert total.shape == (2, 5)
    assert set(pointwise) == set(data.observed_data)
    for c in range(2):
        for d in range(5):
            params = {key: values[c, d] for key, values in posterior.items()}
            assert total[c, d] == pytest.approx(spec.log_likelihood(data, params), rel=1e-12)


def test_one_draw_per_block_gives_the_same_values(monkeypatch):
    spec = zoo.get("gaussian-nb")
    data, posterior = _draws(spec)
    whole = log_likelihood_per_draw(spec, data, posterior, keep=True)
    monkeypatch.setattr(log_likelihood, "BLOCK_BYTES", 1)
    blocked = log_likelihood_per_draw(spec, data, posterior, keep=True)
    np.testing.assert_array_equal(blocked[0], whole[0])
    for key, (values, _) in whole[1].items():
        np.testing.assert_array_equal(blocked[1][key][0], values)


def test_without_the_pointwise_form_each_draw_is_evaluated():
    spec = zoo.get("beta-binomial")
    data, posterior = _draws(spec)
    vectorised, _ = log_likelihood_per_draw(spec, data, posterior)
    scalar = dataclasses.replace(spec, pointwise_log_likelihood=None)
    looped, pointwise = log_likelihood_per_draw(scalar, data, posterior)
    assert pointwise == {}
    np.testing.assert_allclose(looped, vectorised, rtol=1e-12)
    with pytest.raises(ValueError, match="no pointwise_log_likelihood"):
        log_likelihood_per_draw(scalar, data, posterior, keep=True)
    neither = dataclasses.replace(scalar, log_likelihood=None)
    with pytest.raises(ValueError, match="no pointwise_log_likelihood or log_likelihood"):
        log_likelihood_per_draw(neither, data, posterior)

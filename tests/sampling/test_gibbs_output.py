"""The Gibbs engine's output beyond the draws: log_likelihood group, sample stats, option."""

import dataclasses

import arviz_stats as azs
import numpy as np
import pytest

import zoo
from zoo.core import log_likelihood
from zoo.models.beta_binomial import Data, Prior
from zoo.sampling import driver

SPEC = zoo.get("beta-binomial")
DATA, PRIOR = Data([3, 4, 7], [10, 12, 9]), Prior(a=2.0, b=3.0)


def _sample(spec=SPEC, **options):
    return zoo.sample(spec, DATA, PRIOR, draws=40, tune=10, chains=2, seed=4, **options)


# A default problem need not suit PSIS-LOO (k > 0.7 is ArviZ's warning); it must run.
@pytest.mark.filterwarnings("ignore:Estimated shape parameter of Pareto")
@pytest.mark.parametrize("name", zoo.names())
def test_az_loo_runs_on_the_gibbs_output_of_every_model(name):
    spec = zoo.get(name)
    data, prior = spec.default_problem()
    tree = zoo.sample(spec, data, prior, draws=100, tune=50, chains=2, seed=1)
    group = tree["log_likelihood"]
    assert set(group.data_vars) == set(data.observed_data)
    for var in group.data_vars:
        assert group[var].dims[:2] == ("chain", "draw")
        assert np.isfinite(float(azs.loo(tree, var_name=var).elpd))
    if len(group.data_vars) == 1:
        assert np.isfinite(float(azs.loo(tree).elpd))
    else:
        # As on PyMC's own output of a program with several observed variables.
        with pytest.raises(TypeError, match="several log likelihood arrays"):
            azs.loo(tree)


def test_sample_stats_hold_the_total_log_likelihood_and_timing():
    tree = _sample()
    stats = tree["sample_stats"]
    assert set(stats.data_vars) == {"sweep_seconds", "log_likelihood_total"}
    summed = tree["log_likelihood"]["y"].sum("group")
    np.testing.assert_allclose(stats["log_likelihood_total"], summed, rtol=1e-12)
    posterior = tree["posterior"]
    for draw in (0, 17):
        params = {"theta": posterior["theta"].values[1, draw]}
        assert stats["log_likelihood_total"].values[1, draw] == pytest.approx(
            SPEC.log_likelihood(DATA, params), rel=1e-12
        )
    assert (stats["sweep_seconds"].values > 0).all()
    for group in ("posterior", "sample_stats"):
        assert tree[group].attrs["sampling_time"] > 0
        assert tree[group].attrs["log_likelihood_time"] >= 0
    assert list(tree.children)[:2] == ["posterior", "log_likelihood"]


def test_log_likelihood_changes_no_draw():
    with_group = _sample()
    without = _sample(log_likelihood=False)
    np.testing.assert_array_equal(
        with_group["posterior"]["theta"].values, without["posterior"]["theta"].values
    )
    assert "log_likelihood" not in without.children
    assert "log_likelihood_total" not in without["sample_stats"]


@pytest.mark.parametrize("value", ["yes", 1, 0.0])
def test_log_likelihood_option_must_be_a_bool_or_none(value):
    with pytest.raises(ValueError, match="log_likelihood: must be True, False or None"):
        _sample(log_likelihood=value)


def test_a_model_without_pointwise_log_likelihood_has_no_group_unless_asked():
    bare = dataclasses.replace(SPEC, pointwise_log_likelihood=None)
    tree = _sample(bare)
    assert "log_likelihood" not in tree.children
    with pytest.raises(ValueError, match="log_likelihood: model 'beta-binomial' has no"):
        _sample(bare, log_likelihood=True)


def test_a_group_over_the_memory_budget_is_left_out_with_a_warning(monkeypatch):
    # 2 chains x 40 draws x 3 groups x 8 bytes = 1920 bytes
    monkeypatch.setattr(driver, "LOG_LIKELIHOOD_BYTES", 1000)
    with pytest.warns(RuntimeWarning, match=r"log_likelihood: the group would take"):
        tree = _sample()
    assert "log_likelihood" not in tree.children
    assert "log_likelihood_total" in tree["sample_stats"]
    forced = _sample(log_likelihood=True)
    assert forced["log_likelihood"]["y"].shape == (2, 40, 3)


def test_blocks_of_draws_give_the_values_of_one_block(monkeypatch):
    whole = _sample()
    monkeypatch.setattr(log_likelihood, "BLOCK_BYTES", 1)  # one draw per block
    blocked = _sample()
    np.testing.assert_array_equal(
        blocked["log_likelihood"]["y"].values, whole["log_likelihood"]["y"].values
    )
    np.testing.assert_array_equal(
        blocked["sample_stats"]["log_likelihood_total"].values,
        whole["sample_stats"]["log_likelihood_total"].values,
    )

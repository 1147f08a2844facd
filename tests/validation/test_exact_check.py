"""zoo.validation.exact_check on a mixture with exchangeable components.

A correct Gibbs sampler keeps one labelling of the two components, so its raw ``mu`` and
``z`` cannot agree with the exact, symmetric posterior; compared through the
label-invariant quantities it passes, and a sampler with a planted bug fails (the twin).
"""

import numpy as np
import pytest

import zoo
from examples import gaussian_mixture
from zoo.core import streams
from zoo.core.defaults import ALPHA
from zoo.diagnostics.looks import EARLY_SHARE
from zoo.validation import validate
from zoo.validation.exact_check import PURPOSE, maximum_draws
from zoo.validation.sampler_under_test import SamplerUnderTest

#: Six of the example's observations: 64 labellings, a reference in about a second.
Y = gaussian_mixture.OBSERVATIONS[::2]
BUDGETS = {"exact": {"draws": 1000, "chains": 4}}


def _model():
    return gaussian_mixture.exchangeable_model(Y)


@pytest.mark.pymc
def test_a_correct_sampler_of_exchangeable_components_passes():
    result = validate(
        _model,
        kernel=gaussian_mixture.exchangeable_kernel,
        checks=("exact",),
        budgets=BUDGETS,
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "pass", exact.summary
    assert "components of mu (labels z) are exchangeable: comparing label-invariant" in (
        exact.summary
    )
    judged = {row["variable"] for row in exact.details["data"].quantities()}
    assert judged == {"mu_of_z", "w_of_z", "coassignment_z"}


@pytest.mark.pymc
def test_a_wrong_sampler_of_exchangeable_components_fails():
    result = validate(
        _model,
        kernel=gaussian_mixture.EXCHANGEABLE_BUG_KERNELS["noise-sd-as-variance"],
        checks=("exact",),
        budgets=BUDGETS,
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "fail", exact.summary


def _raw_reference(data):
    """The exact posterior of the raw variables only: no label-invariant marginals."""
    return zoo.exact_reference(_model())


@pytest.mark.pymc
def test_a_reference_without_the_invariants_cannot_judge():
    result = validate(
        _model,
        kernel=gaussian_mixture.exchangeable_kernel,
        reference=_raw_reference,
        checks=("exact",),
        budgets={"exact": {"draws": 100, "chains": 2}},
        workers=0,
    )
    (exact,) = result.checks
    assert exact.verdict == "could not judge", exact.summary
    assert "the reference has none of the compared variables" in exact.summary


# The exact check's length: fits that double while a quantity is below its gates.
#
# Two means with independent Normal(0, 1) priors, each seen through its own observations
# (sd 1): the posterior of ``mu[k]`` is Normal(sum y_k / (1 + n_k), 1 / (1 + n_k)). The
# samplers below are correct but slow: each chain is the AR(1) ``x' = m + RHO (x - m) +
# sqrt(1 - RHO^2) s e``, whose stationary law is the exact posterior and whose ESS per
# draw is (1 - RHO) / (1 + RHO), 0.064 at RHO = 0.88: about 255 bulk ESS from 4 x 1,000
# draws, below the gate of 400, and about 510 from 4 x 2,000.

RHO = 0.88
OBSERVED = ((0.3, -0.4, 1.1), (2.0, 1.4))
INDEX = np.repeat([0, 1], [len(y) for y in OBSERVED])
LOOKS = 4  # 1,000, 2,000, 4,000, 8,000 draws per chain at the default budget


def _two_means():
    import pymc as pm

    with pm.Model(coords={"component": [0, 1]}) as two:
        mu = pm.Normal("mu", 0.0, 1.0, dims="component")
        pm.Normal("y", mu=mu[INDEX], sigma=1.0, observed=np.concatenate(OBSERVED))
    return two


def _posterior(data):
    y = np.asarray(data["y"], dtype=float)
    n = np.bincount(INDEX, minlength=2)
    precision = 1.0 + n
    return np.bincount(INDEX, weights=y, minlength=2) / precision, 1.0 / np.sqrt(precision)


def _slow_chains(data, draws, chains, seed, *, spread=(1.0, 1.0), shift=(0.0, 0.0), rho=RHO):
    """AR(1) chains around the exact posterior of each mean (``spread``, ``shift`` in sds).

    Each chain starts at an exact draw, so it is stationary from its first draw; a
    chain of ``2 n`` draws begins with the ``n`` of a chain of ``n`` (same stream).
    """
    mean, sd = _posterior(data)
    mean = mean + np.asarray(shift) * sd
    sd = sd * np.asarray(spread)
    rho = np.broadcast_to(np.asarray(rho, dtype=float), (2,))
    out = np.empty((chains, draws, 2))
    for c, rng in enumerate(np.random.default_rng(seed).spawn(chains)):
        x = mean + sd * rng.standard_normal(2)
        for d in range(draws):
            x = mean + rho * (x - mean) + np.sqrt(1.0 - rho**2) * sd * rng.standard_normal(2)
            out[c, d] = x
    return {"mu": out}


def slow_sampler(data, *, draws, chains, seed):
    """Correct, slow: both means at RHO."""
    return _slow_chains(data, draws, chains, seed)


def slow_sampler_too_wide(data, *, draws, chains, seed):
    """Wrong, slow: both means' spread 1.5 times the exact sd."""
    return _slow_chains(data, draws, chains, seed, spread=(1.5, 1.5))


def sampler_shifted_beside_a_slow_one(data, *, draws, chains, seed):
    """Wrong where it mixes: mu[1] independent draws a whole sd off; mu[0] slow, right."""
    return _slow_chains(data, draws, chains, seed, shift=(0.0, 1.0), rho=(RHO, 0.0))


def _slow_init(data, rng):
    mean, sd = _posterior(data)
    return {"mu": mean + sd * rng.standard_normal(2)}


def _slow_step(state, data, rng):
    mean, sd = _posterior(data)
    x = mean + RHO * (state["mu"] - mean) + np.sqrt(1.0 - RHO**2) * sd * rng.standard_normal(2)
    return {"mu": x}


def _slow_draw(state, data, rng):
    return {"mu": np.array(state["mu"])}


slow_kernel = zoo.Kernel(_slow_init, _slow_step, _slow_draw)


def _exact(candidate, budgets=None, seed=0, **given):
    result = validate(
        _two_means,
        **{**candidate, **given},
        checks=("exact",),
        budgets=budgets,
        seed=seed,
        workers=0,
    )
    (exact,) = result.checks
    return exact


@pytest.mark.pymc
def test_a_slow_correct_sampler_is_inconclusive_at_one_length():
    exact = _exact({"sampler": slow_sampler}, budgets={"exact": {"max_draws": 1000}})
    assert exact.verdict == "inconclusive", exact.summary
    assert "draws per chain would clear" in exact.summary


@pytest.mark.pymc
def test_a_slow_correct_sampler_passes_when_its_draws_double():
    exact = _exact({"sampler": slow_sampler})
    assert exact.verdict == "pass", exact.summary
    assert "draws doubled while a quantity was below its gates" in exact.summary
    (result,) = exact.details.values()
    # stopped at a later look, judged at the last look's 90% of the rate
    assert result.table.attrs["draws"] > 1000
    assert result.alpha == pytest.approx((1 - EARLY_SHARE) * ALPHA)


@pytest.mark.pymc
def test_a_slow_wrong_sampler_still_fails():
    exact = _exact({"sampler": slow_sampler_too_wide})
    assert exact.verdict == "fail", exact.summary
    assert any(f.statistic == "sd" for f in exact.findings if f.verdict == "fail")


@pytest.mark.pymc
def test_an_early_look_ends_the_run_on_a_failure_at_its_share_of_the_rate():
    exact = _exact({"sampler": sampler_shifted_beside_a_slow_one})
    assert exact.verdict == "fail", exact.summary
    (result,) = exact.details.values()
    assert result.table.attrs["draws"] == 1000
    assert result.alpha == pytest.approx(EARLY_SHARE * ALPHA / (LOOKS - 1))
    assert "draws doubled" not in exact.summary


@pytest.mark.pymc
def test_one_look_has_the_whole_rate():
    one = _exact({"sampler": slow_sampler}, budgets={"exact": {"draws": 4000, "max_draws": 4000}})
    (result,) = one.details.values()
    # a single look (first length at the maximum) has the whole rate
    assert result.alpha == pytest.approx(ALPHA)


def test_a_kernel_continues_its_chains_bit_for_bit():
    tested = SamplerUnderTest(zoo.get("beta-binomial"))
    assert tested.continuable
    _, data, prior = tested.model.validation_problems()[0]
    short = tested.fit(data, prior, draws=50, chains=2, seed=5, tune=50)
    longer = tested.fit(data, prior, draws=100, chains=2, seed=5, tune=50)
    for name in short.data_vars:
        np.testing.assert_array_equal(longer[name].values[:, :50], short[name].values)


@pytest.mark.pymc
def test_a_slow_kernel_passes_and_the_same_seed_gives_the_same_verdict():
    first = _exact({"kernel": slow_kernel}, seed=3)
    assert first.verdict == "pass", first.summary
    assert "draws doubled" in first.summary
    again = _exact({"kernel": slow_kernel}, seed=3)
    assert again.summary == first.summary
    (a,), (b,) = first.details.values(), again.details.values()
    np.testing.assert_array_equal(a.table.estimate.values, b.table.estimate.values)


def test_a_sampler_function_cannot_be_continued_and_refits_on_its_own_stream():
    model = zoo.get("beta-binomial")
    assert not SamplerUnderTest(model, sampler=slow_sampler).continuable
    assert SamplerUnderTest(model).continuable
    assert not SamplerUnderTest(model, engine="pymc").continuable
    first = streams.item(0, PURPOSE, 2)
    assert streams.item(0, PURPOSE, 2, 1).spawn_key == (*first.spawn_key, 1)
    assert streams.integer(streams.item(0, PURPOSE, 2, 1)) != streams.integer(first)


def test_max_draws_below_draws_is_one_look_and_memory_is_checked_at_the_maximum():
    assert maximum_draws({"draws": 4000, "max_draws": 1000}) == 4000
    with pytest.raises(ValueError, match="max_draws"):
        validate("beta-binomial", checks=("exact",), budgets={"exact": {"max_draws": 10**12}})

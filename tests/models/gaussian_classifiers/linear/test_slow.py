"""Long studies of the GDA agreement tests (deselected by default; run with -m slow)."""

import numpy as np
import pytest
from scipy import stats

import zoo
from zoo.diagnostics import agreement
from zoo.models.gaussian_classifiers import linear
from zoo.models.gaussian_classifiers.linear import MODEL, Data, Prior

pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]

REPLICATES = 40


def informative():
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal([0, 0], 1, (5, 2)), rng.normal([2, 1], 1, (5, 2))]
    y = np.r_[np.zeros(5, int), np.ones(5, int)]
    y[[2, 8]] = -1
    return Data(x, y), Prior(psi0=np.eye(2), m0=np.zeros(2), kappa0=2.0, nu0=4.0)


def test_false_alarm_rate_of_correct_kernel():
    """The correct kernel is flagged on at most the 1% family-wise rate.

    With 40 replicates, 3 or more false alarms has probability 0.8% if the true rate is
    1% (binomial tail), so the test itself fails rarely for a calibrated diagnostic.
    """
    data, prior = informative()
    exact = linear.posterior(data, prior)
    alarms = 0
    for seed in range(REPLICATES):
        tree = zoo.sample("gda", data, prior, draws=1000, tune=200, chains=4, seed=1000 + seed)
        alarms += agreement(tree, exact).verdict == "disagree"
    assert stats.binom.sf(alarms - 1, REPLICATES, 0.01) > 0.005, alarms


@pytest.mark.parametrize("fault", sorted(MODEL.faults))
def test_power_against_faults(fault):
    """Each planted fault is caught on (almost) every replicate of the informative data."""
    data, prior = informative()
    exact = linear.posterior(data, prior)
    caught = 0
    for seed in range(10):
        tree = zoo.sample(
            "gda",
            data,
            prior,
            draws=1000,
            tune=200,
            chains=4,
            seed=2000 + seed,
            kernel=MODEL.faults[fault],
        )
        caught += agreement(tree, exact).verdict == "disagree"
    assert caught >= 9


@pytest.mark.pymc
def test_three_engines_agree_on_iris():
    """The default problem (iris, 6 labels hidden): PyMC vs exact, Gibbs vs PyMC.

    About two minutes, mostly PyTensor compilation of the 150-point program.
    """
    from zoo.diagnostics import compare

    data, prior = MODEL.default_problem()
    exact = linear.posterior(data, prior)
    nuts = zoo.sample("gda", data, prior, engine="pymc", draws=1000, tune=1000, chains=4, seed=2)
    gibbs = zoo.sample("gda", data, prior, draws=1000, tune=200, chains=4, seed=2)
    assert agreement(nuts, exact).verdict == "agree"
    assert compare(gibbs, nuts).verdict == "agree"
    wrong = zoo.sample(
        "gda",
        data,
        prior,
        draws=1000,
        tune=200,
        chains=4,
        seed=2,
        kernel=MODEL.faults["kappa-not-updated"],
    )
    assert compare(wrong, nuts).verdict == "disagree"

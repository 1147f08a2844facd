"""QDA and Gaussian naive Bayes: collapsed Gibbs against the exact posterior, and twins.

Each agreement test runs 4 chains of 1000 draws and asks agreement() (Holm, 1%
family-wise) for "agree"; its twins feed catalogued wrong kernels (MODEL.faults) on the
same data and ask for "disagree". Each run takes several seconds (4 x 1200 sweeps), so
all are behind -m slow; the default run covers the kernels through the protocol tests
(tests/models/test_contract.py) and ``zoo validate``'s records in bench/results.
"""

import numpy as np
import pytest

import zoo
from zoo.diagnostics import agreement

# ArviZ warns on the constant class probabilities of a badly wrong kernel; harmless here.
pytestmark = [
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
    pytest.mark.slow,
]

DRAWS, TUNE, CHAINS = 1000, 200, 4


def _run(name, data, prior, kernel=None, seed=11):
    return zoo.sample(
        name, data, prior, draws=DRAWS, tune=TUNE, chains=CHAINS, seed=seed, kernel=kernel
    )


def _problem(name, which):
    spec = zoo.get(name)
    data, prior = next((d, p) for n, d, p in spec.validation_problems() if n == which)
    return spec, data, prior, spec.posterior(data, prior)


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
def test_gibbs_agrees_with_exact(name):
    _spec, data, prior, exact = _problem(name, "unbalanced-informative")
    result = agreement(_run(name, data, prior), exact)
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


@pytest.mark.parametrize(
    ("name", "fault"),
    [
        ("qda", "log-det-dropped"),
        ("qda", "nu-off-by-one"),
        ("gaussian-nb", "log-det-dropped"),
        ("gaussian-nb", "sample-covariance"),
    ],
)
def test_fault_is_flagged(name, fault):
    spec, data, prior, exact = _problem(name, "unbalanced-informative")
    result = agreement(_run(name, data, prior, kernel=spec.faults[fault]), exact)
    assert result.verdict == "disagree"


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
def test_gibbs_agrees_with_exact_on_wine(name):
    _spec, data, prior, exact = _problem(name, "wine")
    result = agreement(_run(name, data, prior), exact)
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
@pytest.mark.parametrize(
    "fault",
    ["nu-off-by-one", "kappa-not-updated", "mu-scale-as-variance", "probability-at-mean"],
)
def test_more_faults_are_flagged(name, fault):
    spec, data, prior, exact = _problem(name, "unbalanced-informative")
    result = agreement(_run(name, data, prior, kernel=spec.faults[fault]), exact)
    assert result.verdict == "disagree"


def test_default_problems_keep_labelled_points_in_every_class():
    for name in ("qda", "gaussian-nb"):
        data, _ = zoo.get(name).default_problem()
        counts = np.bincount(data.labels[data.labelled], minlength=data.n_classes)
        assert counts.min() >= 40 and data.unlabelled.size == 6

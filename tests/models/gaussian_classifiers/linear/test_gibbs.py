"""Collapsed Gibbs against the exact posterior, and the planted faults it must expose.

Each agreement test runs 4 chains of 1000 draws and asks agreement() (Holm, 1% family-wise)
for "agree"; its twin feeds a wrong kernel (MODEL.faults) on the same data and asks for
"disagree".
"""

import numpy as np
import pytest

import zoo
from zoo.diagnostics import agreement
from zoo.models.gaussian_classifiers import linear
from zoo.models.gaussian_classifiers.linear import MODEL, Data, Prior

# ArviZ warns on the constant class probabilities of a badly wrong kernel; harmless here.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

DRAWS, TUNE, CHAINS = 1000, 200, 4


def run(data, prior, kernel=None, seed=0):
    return zoo.sample(
        "gda", data, prior, draws=DRAWS, tune=TUNE, chains=CHAINS, seed=seed, kernel=kernel
    )


@pytest.fixture(scope="module")
def iris():
    data, prior = MODEL.default_problem()
    return data, prior, linear.posterior(data, prior)


@pytest.fixture(scope="module")
def wine():
    """Wine (scikit-learn's copy): alcohol and flavanoids, five labels hidden (3^5 labelings)."""
    from sklearn.datasets import load_wine

    raw = load_wine()
    y = raw.target.copy()
    y[[5, 60, 75, 130, 150]] = -1
    data = Data(
        raw.data[:, [0, 6]],
        y,
        classes=raw.target_names,
        features=np.array(raw.feature_names)[[0, 6]],
    )
    return data, Prior(), linear.posterior(data, Prior())


@pytest.fixture(scope="module")
def simulated():
    prior = Prior(kappa0=0.5, nu0=4.5, psi0=np.eye(2), m0=np.zeros(2), alpha=2.0)
    _, data = linear.simulate(
        prior, np.random.default_rng(2024), points=24, classes=2, features=2, unlabelled=0.25
    )
    return data, prior, linear.posterior(data, prior)


@pytest.fixture(scope="module")
def informative():
    """Few points and an informative prior: every planted bug moves the posterior visibly.

    N = 10 makes nu_N = 14, so nu off by one shifts E[Sigma] by 1/11; kappa0 = 2 against
    n_k = 4 keeps kappa_k far from kappa0; S_k / n_k shrinks the scatter four-fold.
    """
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal([0, 0], 1, (5, 2)), rng.normal([2, 1], 1, (5, 2))]
    y = np.r_[np.zeros(5, int), np.ones(5, int)]
    y[[2, 8]] = -1
    data = Data(x, y)
    prior = Prior(psi0=np.eye(2), m0=np.zeros(2), kappa0=2.0, nu0=4.0)
    return data, prior, linear.posterior(data, prior)


@pytest.fixture(scope="module")
def unbalanced():
    """The validation problem "unbalanced-informative" (4 of 15 labels hidden)."""
    data, prior = next(
        (d, p) for name, d, p in MODEL.validation_problems() if name == "unbalanced-informative"
    )
    return data, prior, linear.posterior(data, prior)


@pytest.mark.parametrize("problem", ["iris", "wine", "simulated", "informative", "unbalanced"])
def test_gibbs_agrees_with_exact(problem, request):
    data, prior, exact = request.getfixturevalue(problem)
    assert exact.available
    result = agreement(run(data, prior, seed=11), exact)
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


@pytest.mark.parametrize(
    ("problem", "fault"),
    [
        ("iris", "sample-covariance"),
        ("wine", "kappa-not-updated"),
        ("simulated", "sample-covariance"),
        ("informative", "nu-off-by-one"),
        ("informative", "sample-covariance"),
        ("informative", "kappa-not-updated"),
        ("unbalanced", "scatter-not-downdated"),
        ("informative", "gap-term-dropped"),
        ("informative", "mu-scale-as-variance"),
        ("informative", "probability-at-mean"),
        ("iris", "mu-scale-as-variance"),
    ],
)
def test_fault_is_flagged(problem, fault, request):
    data, prior, exact = request.getfixturevalue(problem)
    result = agreement(run(data, prior, kernel=MODEL.faults[fault], seed=11), exact)
    assert result.verdict == "disagree"


def test_default_problem_keeps_labelled_points_in_every_class():
    data, _ = MODEL.default_problem()
    counts = np.bincount(data.labels[data.labelled], minlength=data.n_classes)
    assert counts.min() >= 40 and data.unlabelled.size == 6

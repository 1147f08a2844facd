"""Bad input raises ValueError naming the field, before any work; inputs are not modified."""

import numpy as np
import pytest

import zoo
from zoo.models.naive_bayes import Data, Prior, posterior, simulate

GOOD = np.array([[1, 2, 0], [0, 1, 3], [2, 2, 2]])


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"counts": [[1, -1, 0], [0, 1, 3], [2, 2, 2]]}, "counts"),
        ({"counts": [[1, 0.5, 0], [0, 1, 3], [2, 2, 2]]}, "counts"),
        ({"counts": [[1, np.nan, 0], [0, 1, 3], [2, 2, 2]]}, "counts"),
        ({"counts": np.zeros((3, 0))}, "counts"),  # empty vocabulary
        ({"counts": [[0, 0, 0], [0, 1, 3], [2, 2, 2]]}, "counts"),  # length-0 document
        ({"counts": [1, 2, 3]}, "counts"),  # not a matrix
        ({"labels": [0, 2, 1]}, "labels"),  # outside [0, K)
        ({"labels": [0, -2, 1]}, "labels"),  # negative but not the missing marker
        ({"labels": [0, 1]}, "labels"),  # mismatched shape
        ({"labels": [0, 0.5, 1]}, "labels"),
        ({"labels": [0, np.nan, 1]}, "labels"),
        ({"classes": 1}, "classes"),
        ({"features": ["a", "b"]}, "features"),
        ({"event_model": "poisson"}, "event_model"),
        ({"event_model": "bernoulli"}, "counts"),  # counts > 1 are not binary
    ],
)
def test_bad_data(kwargs, field):
    arguments = {"counts": GOOD, "labels": [0, 1, -1], "classes": 2, **kwargs}
    counts, labels = arguments.pop("counts"), arguments.pop("labels")
    with pytest.raises(ValueError, match=f"^{field}:"):
        Data(counts, labels, **arguments)


def test_empty_bernoulli_documents_are_allowed():
    data = Data([[0, 0], [1, 0]], [0, 1], event_model="bernoulli")
    assert data.lengths.tolist() == [0, 1]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": np.nan}, "alpha"),
        ({"beta": [1.0, 0.0, 1.0]}, "beta"),
        ({"beta0": -0.5}, "beta0"),
        ({"alpha": True}, "alpha"),
        ({"alpha": np.ones((2, 2))}, "alpha"),
    ],
)
def test_bad_prior(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        Prior(**kwargs)


@pytest.mark.parametrize(
    ("prior", "field"),
    [
        (Prior(alpha=[1.0, 1.0, 1.0]), "alpha"),
        (Prior(beta=[1.0, 1.0]), "beta"),
        (Prior(beta=np.ones((3, 3))), "beta"),
        (Prior(beta0=1.0), "beta0"),  # multinomial has no beta0
    ],
)
def test_prior_that_does_not_fit_the_data(prior, field):
    data = Data(GOOD, [0, 1, -1], classes=2)
    with pytest.raises(ValueError, match=f"^{field}:"):
        posterior(data, prior)
    with pytest.raises(ValueError, match=f"^{field}:"):
        zoo.get("naive-bayes").kernel.init(data, prior, np.random.default_rng(0))


def test_inputs_are_copied_and_frozen():
    counts, labels = GOOD.copy(), np.array([0, 1, -1])
    beta = np.array([1.0, 2.0, 3.0])
    data = Data(counts, labels, classes=["a", "b"])
    prior = Prior(beta=beta)
    counts[0, 0] = 99
    labels[0] = 1
    beta[0] = 7.0
    assert data.counts[0, 0] == 1 and data.labels[0] == 0 and prior.beta[0] == 1.0
    with pytest.raises(ValueError):
        data.counts[0, 0] = 5
    with pytest.raises(ValueError):
        prior.beta[0] = 5.0
    # Nothing downstream writes into them either.
    spec = zoo.get("naive-bayes")
    before = data.counts.copy(), data.labels.copy()
    posterior(data, prior)
    zoo.sample(spec, data, prior, draws=5, tune=2, chains=2, seed=0)
    np.testing.assert_array_equal(data.counts, before[0])
    np.testing.assert_array_equal(data.labels, before[1])


def test_missing_marker_and_coords():
    data = Data(GOOD, [1, -1, 0], classes=["x", "y"], documents=["d0", "d1", "d2"])
    assert data.unlabelled.tolist() == [1]
    assert list(data.coords["unlabelled"]) == ["d1"]
    assert list(data.coords["labelled"]) == ["d0", "d2"]
    assert data.class_counts().tolist() == [1, 1]


def test_simulate_rejects_bad_sizes():
    with pytest.raises(ValueError, match=r"^classes:"):
        simulate(Prior(), np.random.default_rng(0), classes=1)
    with pytest.raises(ValueError, match=r"^unlabelled:"):
        simulate(Prior(), np.random.default_rng(0), documents=3, unlabelled=4)

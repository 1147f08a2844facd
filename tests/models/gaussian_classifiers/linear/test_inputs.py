"""Bad input raises ValueError naming the field, before any work; nothing is modified."""

import numpy as np
import pytest

import zoo
from zoo.models.gaussian_classifiers import linear
from zoo.models.gaussian_classifiers.linear import Data, Prior

X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.5], [3.0, 1.0], [0.5, 0.2], [2.5, 3.0]])
Y = np.array([0, 0, 1, 1, -1, -1])


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Data(np.where(X == 1.0, np.nan, X), Y), "x"),
        (lambda: Data(np.where(X == 1.0, np.inf, X), Y), "x"),
        (lambda: Data(X[:, :, None], Y), "x"),
        (lambda: Data(X, Y[:-1]), "labels"),
        (lambda: Data(X, np.array([0, 0, 1, 2, -1, -1]), classes=["a", "b"]), "labels"),
        (lambda: Data(X, np.array([0, 0, 1, 1, -2, -1])), "labels"),
        (lambda: Data(X, np.array([0, 0, 1, 1.5, -1, -1])), "labels"),
        (lambda: Data(X, np.zeros(6)), "labels"),
        (lambda: Data(X, Y, classes=["a"]), "classes"),
        (lambda: Data(X, Y, classes=["a", "a"]), "classes"),
        (lambda: Data(X, Y, features=["f"]), "features"),
        (lambda: Prior(alpha=0.0), "alpha"),
        (lambda: Prior(alpha=[1.0, -1.0]), "alpha"),
        (lambda: Prior(kappa0=0.0), "kappa0"),
        (lambda: Prior(kappa0=-1.0), "kappa0"),
        (lambda: Prior(kappa0=np.nan), "kappa0"),
        (lambda: Prior(nu0=1.0, psi0=np.eye(2)), "nu0"),
        (lambda: Prior(nu0=-3.0), "nu0"),
        (lambda: Prior(psi0=[[1.0, 0.5], [0.4, 1.0]]), "psi0"),
        (lambda: Prior(psi0=[[1.0, 2.0], [2.0, 1.0]]), "psi0"),
        (lambda: Prior(psi0=[[1.0, 0.0], [0.0, np.nan]]), "psi0"),
        (lambda: Prior(psi0=np.ones((2, 3))), "psi0"),
        (lambda: Prior(m0=[0.0, 0.0, 0.0], psi0=np.eye(2)), "m0, psi0"),
        # Resolved against the data:
        (lambda: Prior(nu0=0.5).resolve(Data(X, Y)), "nu0"),
        (lambda: Prior(m0=[0.0]).resolve(Data(X, Y)), "m0"),
        (lambda: Prior(psi0=np.eye(3)).resolve(Data(X, Y)), "psi0"),
        (lambda: Prior(alpha=[1.0, 1.0, 1.0]).resolve(Data(X, Y)), "alpha"),
        # d > N and no prior scale to regularise:
        (lambda: Prior().resolve(Data(np.arange(12.0).reshape(2, 6), [0, 1])), "psi0"),
        (lambda: Prior().resolve(Data(np.c_[X[:, :1], np.ones(6)], Y)), "psi0"),
    ],
)
def test_bad_input_names_field(make, field):
    with pytest.raises(ValueError, match=rf"^{field}:"):
        make()


def test_d_greater_than_n_fine_with_explicit_prior():
    x = np.arange(12.0).reshape(2, 6)
    post = linear.posterior(Data(x, [0, 1]), Prior(psi0=np.eye(6), m0=np.zeros(6)))
    assert np.all(np.linalg.eigvalsh(post.components.psi[0]) > 0)


def test_nothing_modified_and_data_frozen():
    x, y = X.copy(), Y.copy()
    psi0, m0 = np.eye(2), np.zeros(2)
    data = Data(x, y)
    prior = Prior(psi0=psi0, m0=m0, nu0=4.0, kappa0=1.0)
    linear.posterior(data, prior)
    zoo.sample("gda", data, prior, draws=5, tune=2, chains=2, seed=0)
    assert np.array_equal(x, X) and np.array_equal(y, Y)
    assert np.array_equal(psi0, np.eye(2)) and np.array_equal(m0, np.zeros(2))
    for array in (data.x, data.labels, data.classes, data.features, prior.psi0, prior.m0):
        assert not array.flags.writeable
    x[0, 0] = 99.0
    assert data.x[0, 0] == 0.0  # copied, not aliased


def test_no_reference_beyond_enumeration_limit():
    rng = np.random.default_rng(0)
    y = np.r_[[0, 1, 0, 1], np.full(17, -1)]
    data = Data(rng.standard_normal((21, 2)), y)
    ref = linear.posterior(data, Prior())
    assert not ref.available and "labelings" in ref.reason


def test_gibbs_is_reproducible():
    data = Data(X, Y)
    prior = Prior(psi0=np.eye(2), m0=np.zeros(2))
    a = zoo.sample("gda", data, prior, draws=20, tune=5, chains=2, seed=7)
    b = zoo.sample("gda", data, prior, draws=20, tune=5, chains=2, seed=7)
    assert np.array_equal(a.posterior["Sigma"].values, b.posterior["Sigma"].values)
    assert a.posterior["class_probability"].dims == ("chain", "draw", "unlabelled", "class")


def test_simulate_truth_names_the_posterior_variables():
    prior = Prior(psi0=np.eye(3), m0=np.zeros(3), nu0=5.0)
    truth, data = linear.simulate(
        prior, np.random.default_rng(1), points=40, classes=3, features=3, unlabelled=0.3
    )
    assert set(truth) == set(linear.MODEL.variables(prior))
    assert truth["class_probability"].shape == (data.unlabelled.size, 3)
    assert np.allclose(truth["Sigma"], truth["Sigma"].T)
    with pytest.raises(ValueError, match=r"^unlabelled:"):
        linear.simulate(prior, np.random.default_rng(1), features=3, unlabelled=1.0)

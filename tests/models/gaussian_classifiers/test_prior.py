"""QDA and Gaussian naive Bayes: bad input names the field and the rule, before any work."""

import numpy as np
import pytest

import zoo
from zoo.models.gaussian_classifiers import Data
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior
from zoo.models.gaussian_classifiers.quadratic import PerClassPrior

RNG = np.random.default_rng(0)
X = RNG.standard_normal((12, 3))
Y = np.array([0] * 5 + [1] * 5 + [-1] * 2)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        # A class's own covariance in d dimensions needs d + 1 labelled points.
        (
            lambda: PerClassPrior().resolve(Data(X, [0, 0, 0, 1, 1, 1, 1, 1, 1, 1, -1, -1])),
            r"^labels: class np.int64\(0\) has 3 labelled points; its own covariance in 3 "
            r"dimensions needs at least 4",
        ),
        # d larger than the class size.
        (
            lambda: PerClassPrior().resolve(Data(RNG.standard_normal((12, 6)), Y)),
            r"^labels: class np.int64\(0\) has 5 labelled points; its own covariance in 6 "
            r"dimensions needs at least 7",
        ),
        # Naive Bayes: a variance per class needs two points.
        (
            lambda: DiagonalPrior().resolve(Data(X, [0] + [1] * 9 + [-1, -1], classes=["a", "b"])),
            r"^labels: class np.str_\('a'\) has 1 labelled points; a variance of its own",
        ),
        # Collinear and constant features.
        (
            lambda: PerClassPrior().resolve(Data(np.c_[X[:, :2], X[:, 0] - 2 * X[:, 1]], Y)),
            r"^x: features 0, 1, 2 are collinear",
        ),
        (
            lambda: PerClassPrior().resolve(Data(np.c_[X[:, :2], np.ones(12)], Y)),
            r"^psi0: .*constant",
        ),
        (
            lambda: DiagonalPrior().resolve(Data(np.c_[X[:, :2], np.ones(12)], Y)),
            r"^psi0: .*constant",
        ),
        # The diagonal prior's own rules.
        (lambda: DiagonalPrior(psi0=np.ones((2, 2))), r"^psi0: expected one positive scale"),
        (lambda: DiagonalPrior(psi0=[1.0, -1.0]), r"^psi0:"),
        (lambda: DiagonalPrior(nu0=0.0), r"^nu0: must be > 0"),
        (lambda: DiagonalPrior(psi0=[1.0, 1.0]).resolve(Data(X, Y)), r"^psi0: expected 3 scales"),
        (lambda: PerClassPrior(nu0=1.5, psi0=np.eye(3)), r"^nu0: must be > d - 1 = 2"),
    ],
)
def test_bad_input_names_field_and_rule(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
def test_wrong_prior_type_refused_before_any_work(name):
    data = Data(X, Y)
    other = DiagonalPrior if name == "qda" else PerClassPrior
    with pytest.raises(ValueError, match=r"^prior: expected"):
        zoo.get(name).posterior(data, other())


def test_small_classes_fine_with_an_explicit_prior():
    """The refusals concern a data-derived psi0: with a prior of one's own, 1 point will do."""
    data = Data(RNG.standard_normal((4, 3)), [0, 1, 1, -1])
    qda = zoo.get("qda").posterior(data, PerClassPrior(psi0=np.eye(3), m0=np.zeros(3)))
    nb = zoo.get("gaussian-nb").posterior(data, DiagonalPrior(psi0=np.ones(3), m0=np.zeros(3)))
    assert np.all(np.linalg.eigvalsh(qda.components.psi) > 0)
    assert np.all(np.isfinite(qda.predict_proba(X[:3, :]))) and np.all(nb.components.psi > 0)


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
def test_inputs_not_modified_and_same_seed_same_draws(name):
    spec = zoo.get(name)
    x, y = X.copy(), Y.copy()
    data = Data(x, y)
    prior = spec.simulation_setup()[0]
    prior = type(prior)(m0=np.zeros(3), psi0=np.eye(3) if name == "qda" else np.ones(3))
    a = zoo.sample(spec, data, prior, draws=20, tune=5, chains=2, seed=7)
    b = zoo.sample(spec, data, prior, draws=20, tune=5, chains=2, seed=7)
    for v in spec.variables(prior):
        assert a["posterior"][v].values.tobytes() == b["posterior"][v].values.tobytes()
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(y, Y)


@pytest.mark.parametrize("prior", [PerClassPrior(), DiagonalPrior()])
def test_x_too_large_for_the_data_scaled_psi0_is_named(prior):
    """The default psi0 would overflow: the error names x and its scale, not psi0 alone."""
    with pytest.raises(ValueError, match=r"^x: values up to .*e\+30[0-9] make the data-scaled"):
        prior.resolve(Data(X * 1e300, Y))
    # A scale that stays finite resolves (the twin).
    assert np.all(np.isfinite(prior.resolve(Data(X * 1e100, Y)).psi0))


@pytest.mark.parametrize("prior", [PerClassPrior(), DiagonalPrior()])
def test_x_too_small_for_the_data_scaled_psi0_is_named_not_called_constant(prior):
    """Variances underflowing to 0: the error names x and its spread, not a constant feature."""
    with pytest.raises(ValueError, match=r"^x: the values of feature \d differ by at most"):
        prior.resolve(Data(X * 1e-300, Y))
    constant = X.copy()
    constant[:, 0] = 1.0
    with pytest.raises(ValueError, match=r"^psi0: .* feature 0 is constant"):
        prior.resolve(Data(constant, Y))
    assert np.all(np.isfinite(prior.resolve(Data(X * 1e-100, Y)).psi0))

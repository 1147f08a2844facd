"""scikit-learn API of Bayesian QDA and Gaussian naive Bayes: compatibility, the exact
posterior, unlabelled rows, and the weak-prior limits against scikit-learn's own."""

import numpy as np
import pytest
from sklearn.datasets import load_wine
from sklearn.discriminant_analysis import QuadraticDiscriminantAnalysis
from sklearn.naive_bayes import GaussianNB
from sklearn.utils.estimator_checks import parametrize_with_checks

import zoo
from zoo.models.gaussian_classifiers import Data
from zoo.models.gaussian_classifiers.diagonal import DiagonalPrior
from zoo.models.gaussian_classifiers.quadratic import PerClassPrior
from zoo.sklearn import BayesianGaussianNB, BayesianGDAClassifier, BayesianQDAClassifier

#: Checks that conflict with the models, with the reason (as for BayesianGDAClassifier).
EXPECTED_FAILURES = {
    "check_classifiers_classes": (
        "-1 marks an unlabelled row (scikit-learn's semi-supervised convention), not a class"
    ),
    "check_sample_weight_equivalence_on_dense_data": (
        "15 rows in 30 dimensions: the data-derived default psi0 needs more rows than features"
    ),
    "check_classifiers_one_label_sample_weights": (
        "5 weighted rows in 10 dimensions: the data-derived default psi0 needs more rows "
        "than features"
    ),
}


@pytest.mark.slow
@parametrize_with_checks(
    [BayesianQDAClassifier(), BayesianGaussianNB()],
    expected_failed_checks=lambda estimator: EXPECTED_FAILURES,
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def wine():
    data = load_wine()
    return data.data[:, [0, 6, 9]], data.target


STRUCTURES = [("qda", BayesianQDAClassifier), ("gaussian-nb", BayesianGaussianNB)]


@pytest.mark.parametrize(("name", "estimator"), STRUCTURES)
def test_estimator_is_the_exact_posterior_predictive(wine, name, estimator):
    x, y = wine
    y = y.copy()
    y[[1, 60, 100, 150]] = -1
    fitted = estimator().fit(x, y)
    spec = zoo.get(name)
    exact = spec.posterior(Data(x, y), spec.Prior())
    assert fitted.exact_ and fitted.n_unlabelled_ == 4
    np.testing.assert_allclose(fitted.predict_log_proba(x), exact.predict_log_proba(x), atol=1e-9)
    assert (fitted.predict(x) == wine[1]).mean() > 0.9


@pytest.mark.parametrize(("name", "estimator"), STRUCTURES)
def test_integer_weights_equal_repeated_rows(wine, name, estimator):
    x, y = wine
    weights = np.random.default_rng(3).integers(0, 4, y.size)
    weighted = estimator().fit(x, y, sample_weight=weights)
    repeated = estimator().fit(np.repeat(x, weights, axis=0), np.repeat(y, weights))
    np.testing.assert_allclose(
        weighted.predict_log_proba(x), repeated.predict_log_proba(x), rtol=1e-9, atol=1e-12
    )


def _weak(name, d):
    # The limit kappa0 -> 0, psi0 -> 0, alpha -> 0 and nu0 -> d - 1 (QDA) or 0 (naive
    # Bayes), approached to 1e-9.
    if name == "qda":
        return PerClassPrior(alpha=1e-9, kappa0=1e-9, nu0=d - 1 + 1e-9, psi0=1e-9 * np.eye(d))
    return DiagonalPrior(alpha=1e-9, kappa0=1e-9, nu0=1e-9, psi0=np.full(d, 1e-9))


def weak_prior_gap(name, points, seed=None):
    """The weak-prior posterior against scikit-learn's estimates on a 3-class problem.

    Returns the largest relative gap of the class means, of the covariances (with the
    matching divisor) and of the class priors, the largest gap of ``predict_proba`` on
    200 new points, and the smallest class size.
    """
    rng = np.random.default_rng(points if seed is None else seed)
    d = 3
    means = np.array([[0.0, 0.0, 0.0], [1.5, 0.5, -0.5], [0.0, 2.0, 1.0]])
    covs = np.array(
        [np.eye(d), [[1.0, 0.3, 0.0], [0.3, 1.0, -0.2], [0.0, -0.2, 0.5]], 0.6 * np.eye(d)]
    )
    y = rng.choice(3, size=points, p=[0.3, 0.3, 0.4])
    chol = np.linalg.cholesky(covs)
    x = means[y] + np.einsum("nde,ne->nd", chol[y], rng.standard_normal((points, d)))
    n = np.bincount(y)
    post = zoo.get(name).posterior(Data(x, y), _weak(name, d))
    fresh = rng.choice(3, size=200)
    new = means[fresh] + np.einsum("nde,ne->nd", chol[fresh], rng.standard_normal((200, d)))
    if name == "qda":
        peer = QuadraticDiscriminantAnalysis(store_covariance=True).fit(x, y)
        # E[Sigma_k] = S_k / (n_k - 2) in the limit; scikit-learn's covariance_ is the
        # maximum-likelihood S_k / n_k.
        ours = post["Sigma"].mean * ((n - 2) / n)[:, None, None]
        theirs = np.array(peer.covariance_)
    else:
        peer = GaussianNB(var_smoothing=0.0).fit(x, y)
        # E[variance_kj] = S_kj / (n_k - 2); scikit-learn's var_ is S_kj / n_k.
        ours = post["variance"].mean * ((n - 2) / n)[:, None]
        theirs = peer.var_
    moments = max(
        np.max(
            np.abs(
                post["mu"].mean - peer.means_ if name == "qda" else post["mu"].mean - peer.theta_
            )
        ),
        np.max(np.abs(ours - theirs) / np.abs(theirs).max()),
        np.max(np.abs(post["pi"].mean - (peer.priors_ if name == "qda" else peer.class_prior_))),
    )
    gap = np.abs(post.predict_proba(new) - peer.predict_proba(new)).max()
    return moments, gap, n.min()


@pytest.mark.parametrize("name", ["qda", "gaussian-nb"])
@pytest.mark.parametrize(
    "points",
    [100, pytest.param(1000, marks=pytest.mark.slow), pytest.param(10000, marks=pytest.mark.slow)],
)
def test_weak_prior_limit_is_scikit_learns(name, points):
    """Posterior means and predictive tend to QDA's / GaussianNB's estimates.

    The moments agree to 1e-6 (the 1e-9 prior's own effect). The predictive differs
    from scikit-learn's plug-in Gaussians by the t densities' extra spread, of relative
    order (d + Mahalanobis^2) / n_k: we ask |p - p_sklearn| <= 4 / n_min, which shrinks
    with the data (measured in bench/results/gaussian_classifiers/weak_prior.md).
    """
    moments, gap, n_min = weak_prior_gap(name, points)
    assert moments < 1e-6
    assert gap <= 4.0 / n_min, (gap, 4.0 / n_min)


ESTIMATORS = [BayesianGDAClassifier, BayesianQDAClassifier, BayesianGaussianNB]


def _thirty_unlabelled(wine):
    x, y = wine
    keep = y < 2  # two classes: 2^30 labelings of 30 unlabelled rows
    x, y = x[keep], y[keep].copy()
    y[:30] = -1
    return x, y


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_an_enumeration_that_cannot_finish_is_refused_at_fit(wine, estimator):
    x, y = _thirty_unlabelled(wine)
    fitted = estimator(max_labelings=10**12)
    with pytest.raises(
        ValueError,
        match=(
            r"^max_labelings: 2\^30 = 1,073,741,824 labelings of the 30 unlabelled rows .*"
            r"about [\d.,]+ (seconds|minutes|hours|days|years) .*at most 2\^24"
        ),
    ):
        fitted.fit(x, y)
    assert not hasattr(fitted, "classes_")
    # The twin: within the cap's rule the same rows are averaged over Gibbs draws.
    sampled = estimator(n_draws=5, n_tune=0, random_state=0).fit(x, y)
    assert not sampled.exact_ and sampled.n_unlabelled_ == 30


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_x_whose_default_psi0_underflows_is_named_at_fit_not_called_constant(wine, estimator):
    # X scaled by 1e-300: its variances underflow to 0, and the fit said "psi0: ...
    # feature 0 is constant", of a feature that is not, about a parameter never passed.
    x, y = wine
    with pytest.raises(
        ValueError, match=r"^X: the values of feature 0 differ by at most .*e-300, too little"
    ):
        estimator().fit(x * 1e-300, y)
    # The twin: a feature that is constant is still called so.
    constant = x.copy()
    constant[:, 1] = 3.0
    with pytest.raises(ValueError, match=r"^psi0: .* feature 1 is constant: pass psi0"):
        estimator().fit(constant, y)
    # A small but representable scale fits to the same predictive (the scaled prior).
    small = estimator().fit(x * 1e-150, y).predict_proba(x * 1e-150)
    np.testing.assert_allclose(small, estimator().fit(x, y).predict_proba(x), atol=1e-8)


@pytest.mark.parametrize("estimator", ESTIMATORS)
def test_x_whose_default_psi0_overflows_is_named_at_fit(wine, estimator):
    x, y = wine
    fitted = estimator()
    with pytest.raises(
        ValueError,
        match=r"^X: values up to 1\.48e\+301 make the data-scaled prior scale psi0 overflow; ",
    ):
        fitted.fit(x * 1e300, y)
    assert not hasattr(fitted, "classes_")
    psi0 = np.ones(3) if estimator is BayesianGaussianNB else np.eye(3)
    with pytest.raises(ValueError, match=r"^X: values up to .* make the class scatter matrices"):
        estimator(psi0=psi0).fit(x * 1e300, y)
    # The twin: a large but representable scale fits, and the data-scaled prior makes the
    # predictive the same as on the unscaled data.
    big = estimator().fit(x * 1e150, y).predict_proba(x * 1e150)
    np.testing.assert_allclose(big, estimator().fit(x, y).predict_proba(x), atol=1e-8)

"""The PyMC program: its inverse-Wishart against scipy, and one small fit against the exact
posterior and against the Gibbs sampler, name by name."""

import numpy as np
import pytest
from scipy import stats

import zoo
from zoo.diagnostics import Marginal, Reference, agreement, compare
from zoo.models.gaussian_classifiers import linear
from zoo.models.gaussian_classifiers.linear import MODEL, Data, Prior

pytestmark = [
    pytest.mark.pymc,
    pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning"),
]

NU, PSI = 20.5, np.array([[2.0, 0.6, 0.0], [0.6, 1.0, -0.3], [0.0, -0.3, 0.5]])


def inverse_wishart_draws(nu, seed, draws=4000):
    import pymc as pm

    from zoo.models.gaussian_classifiers.pymc_parts import inverse_wishart

    with pm.Model():
        sigma, _ = inverse_wishart("Sigma", nu, PSI)
    # PyTensor's Python implementations, not its Numba backend: the same random streams
    # and the same draws to the last bit or two (2.2e-16 at most, measured), without the
    # 8 CPU s of compiling the random variables with a cold cache.
    values = pm.draw(sigma, draws=draws, random_seed=seed, mode="FAST_COMPILE")
    # i.i.d. prior draws, arranged as 4 chains so that agreement()'s gates apply.
    return values.reshape(4, draws // 4, 3, 3)


def scipy_inverse_wishart(nu):
    """Exact element marginals from scipy.stats.invwishart (moments) and the diagonal's
    scaled inverse-gamma (Sigma_jj ~ InvGamma((nu - d + 1) / 2, Psi_jj / 2)).

    nu = 20.5 with d = 3 gives the elements a tail index nu - d + 1 = 18.5 > 8, where
    the MCSE of the sample sd is reliable (see linear.posterior._testable_moments; at
    nu = 7.5 the sd test fired on 9 of 20 seeds, even on scipy's own draws at 10.5).
    """
    exact = stats.invwishart(nu, PSI)
    diagonal = stats.invgamma(0.5 * (nu - 3 + 1), scale=0.5 * np.diag(PSI))
    sigma = Marginal(dims=("row", "column"), mean=exact.mean(), sd=np.sqrt(exact.var()))
    return Reference(
        {"Sigma": sigma, "Sigma_diagonal": Marginal.from_scipy(diagonal, ("row",))},
        note="scipy.stats.invwishart",
    )


def as_draws(values):
    return {"Sigma": values, "Sigma_diagonal": np.diagonal(values, axis1=-2, axis2=-1)}


def test_inverse_wishart_prior_draws_match_scipy():
    result = agreement(as_draws(inverse_wishart_draws(NU, seed=1)), scipy_inverse_wishart(NU))
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


def test_inverse_wishart_truncated_nu_is_flagged():
    """pm.Wishart's silent int(nu) (docs/design.md, pitfalls) would be caught: nu = 20 vs 20.5."""
    result = agreement(as_draws(inverse_wishart_draws(int(NU), seed=1)), scipy_inverse_wishart(NU))
    assert result.verdict == "disagree"


@pytest.fixture(scope="module")
def problem():
    """d = 2, N = 10 with two labels hidden, informative prior (fast to compile and fit)."""
    rng = np.random.default_rng(3)
    x = np.r_[rng.normal([0, 0], 1, (5, 2)), rng.normal([2, 1], 1, (5, 2))]
    y = np.r_[np.zeros(5, int), np.ones(5, int)]
    y[[2, 8]] = -1
    data = Data(x, y)
    prior = Prior(psi0=np.eye(2), m0=np.zeros(2), kappa0=2.0, nu0=4.0)
    return data, prior, linear.posterior(data, prior)


@pytest.fixture(scope="module")
def pymc_fit(problem):
    data, prior, _ = problem
    return zoo.sample("gda", data, prior, engine="pymc", draws=1000, tune=1000, chains=4, seed=5)


@pytest.fixture(scope="module")
def gibbs_fit(problem):
    data, prior, _ = problem
    return zoo.sample("gda", data, prior, draws=1000, tune=200, chains=4, seed=5)


def test_same_variables_and_dims(pymc_fit, gibbs_fit):
    for name, dims in MODEL.variables(Prior()).items():
        assert pymc_fit.posterior[name].dims == ("chain", "draw", *dims)
        assert gibbs_fit.posterior[name].dims == ("chain", "draw", *dims)
        for dim in dims:
            assert np.array_equal(pymc_fit.posterior[dim].values, gibbs_fit.posterior[dim].values)


def test_pymc_agrees_with_exact(problem, pymc_fit):
    result = agreement(pymc_fit, problem[2])
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


def test_fault_against_exact_is_flagged(problem):
    data, prior, exact = problem
    wrong = zoo.sample(
        "gda",
        data,
        prior,
        draws=1000,
        tune=200,
        chains=4,
        seed=5,
        kernel=MODEL.faults["nu-off-by-one"],
    )
    assert agreement(wrong, exact).verdict == "disagree"


def test_gibbs_agrees_with_pymc(pymc_fit, gibbs_fit):
    result = compare(gibbs_fit, pymc_fit)
    assert result.verdict == "agree", result.table.to_dataframe().sort_values("p").head()


@pytest.mark.parametrize("fault", ["sample-covariance", "kappa-not-updated"])
def test_fault_against_pymc_is_flagged(problem, pymc_fit, fault):
    data, prior, _ = problem
    wrong = zoo.sample(
        "gda", data, prior, draws=1000, tune=200, chains=4, seed=5, kernel=MODEL.faults[fault]
    )
    assert compare(wrong, pymc_fit).verdict == "disagree"

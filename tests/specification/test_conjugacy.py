"""zoo.specification.conjugacy: exact posteriors read from a PyMC graph.

Each family is checked against a scipy.stats posterior whose parameters are computed
here by hand from the textbook formula (BDA3 sections 2.4-2.6, 3.2-3.4; Murphy 2007),
with dims and independent copies; each refusal by the reason it gives; and a few
against PyMC's NUTS by ``zoo.diagnostics.agreement`` at its family-wise rate of 1%,
each with a twin fed a deliberately wrong reference that must be told apart.
"""

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from scipy import stats

from tests.support import pymc_models
from zoo.core.reference import NoReference, Reference
from zoo.diagnostics import agreement
from zoo.specification.conjugacy import conjugate_reference
from zoo.specification.exact import derive_reference
from zoo.specification.linear_gaussian import GAUSSIAN_OPS, linear_gaussian_reference

POINTS = np.array([0.05, 0.25, 0.5, 0.75, 0.95])


def assert_matches(marginal, frozen, dims):
    """Mean, sd, quantiles and the CDF at them agree with a scipy distribution."""
    assert marginal.dims == dims
    np.testing.assert_allclose(marginal.mean, frozen.mean(), rtol=1e-10)
    np.testing.assert_allclose(marginal.sd, frozen.std(), rtol=1e-10)
    for prob in POINTS:
        quantile = frozen.ppf(prob)
        np.testing.assert_allclose(marginal.ppf(prob), quantile, rtol=1e-9)
        np.testing.assert_allclose(marginal.cdf(quantile[np.newaxis])[0], prob, rtol=1e-9)


def reference_of(model, data=None) -> Reference:
    reference = derive_reference(model, data)
    assert reference.available, reference.reason
    return reference


# ---------------------------------------------------------------------------------------
# Each family against scipy.stats.


def test_beta_binomial_with_dims_and_data_container():
    reference = reference_of(pymc_models.beta_binomial())
    y, n = pymc_models.SUCCESSES, pymc_models.TRIALS
    a, b = pymc_models.A, pymc_models.B
    assert_matches(reference["theta"], stats.beta(a + y, b + n - y), ("group",))
    assert list(reference.coords["group"]) == pymc_models.GROUPS


def test_beta_bernoulli_indexed_by_group():
    group = np.array([0, 0, 1, 2, 2, 2, 0])
    y = np.array([1, 0, 1, 0, 0, 1, 1])
    with pm.Model(coords={"arm": ["x", "y", "z"]}) as model:
        theta = pm.Beta("theta", 1.5, 2.5, dims="arm")
        pm.Bernoulli("y", p=theta[group], observed=y)
    successes = np.bincount(group, weights=y, minlength=3)
    failures = np.bincount(group, weights=1 - y, minlength=3)
    assert_matches(
        reference_of(model)["theta"], stats.beta(1.5 + successes, 2.5 + failures), ("arm",)
    )


def test_gamma_poisson_latent_pairs_iid_with_exposure():
    # The pump-failure design without its hyperprior: lam_i ~ Gamma(a, b) fixed,
    # y_i ~ Poisson(lam_i t_i) gives lam_i | y ~ Gamma(a + y_i, b + t_i) (BDA3 2.6).
    t = np.array([94.3, 15.7, 62.9, 126.0, 5.24])
    y = np.array([5, 1, 5, 14, 3])
    with pm.Model(coords={"pump": np.arange(5)}) as model:
        exposure = pm.Data("t", t, dims="pump")
        lam = pm.Gamma("lam", alpha=1.8, beta=2.0, dims="pump")
        pm.Poisson("y", lam * exposure, observed=y, dims="pump")
    assert_matches(
        reference_of(model)["lam"], stats.gamma(1.8 + y, scale=1 / (2.0 + t)), ("pump",)
    )


def test_gamma_poisson_through_a_deterministic_and_two_observed_variables():
    y1, y2 = np.array([3, 4, 2]), np.array([7, 9])
    with pm.Model() as model:
        lam = pm.Gamma("lam", mu=2.0, sigma=1.0)  # alpha = 4, beta = 2
        rate = pm.Deterministic("rate", 3.0 * lam)
        pm.Poisson("y1", lam, observed=y1)
        pm.Poisson("y2", rate, observed=y2)
    expected = stats.gamma(4.0 + y1.sum() + y2.sum(), scale=1 / (2.0 + 3 + 2 * 3.0))
    assert_matches(reference_of(model)["lam"], expected, ())


def test_gamma_exponential_and_an_exponential_prior():
    y = np.array([0.3, 1.2, 0.7, 2.5])
    with pm.Model() as model:
        lam = pm.Gamma("lam", 2.0, 0.5)
        rate = pm.Exponential("rate", 1.5)  # Gamma(1, 1.5)
        pm.Exponential("y", lam, observed=y)
        pm.Exponential("z", scale=2.0 / rate, observed=y)  # rate / 2
    reference = reference_of(model)
    assert_matches(reference["lam"], stats.gamma(2.0 + 4, scale=1 / (0.5 + y.sum())), ())
    assert_matches(reference["rate"], stats.gamma(1.0 + 4, scale=1 / (1.5 + y.sum() / 2)), ())


def test_normal_normal_known_variance_vector_two_likelihoods():
    # BDA3 2.5: precisions add, the mean is precision-weighted.
    group = np.array([0, 1, 1, 0, 1])
    y = np.array([1.0, 2.5, 3.1, 0.2, 2.2])
    z = np.array([[0.4, 2.9]])
    m0, s0, sigma, tau_z = np.array([0.0, 1.0]), np.array([2.0, 0.5]), 1.3, 4.0
    with pm.Model(coords={"g": ["a", "b"]}) as model:
        mu = pm.Normal("mu", m0, s0, dims="g")
        pm.Normal("y", mu[group], sigma, observed=y)
        pm.Normal("z", mu, tau=tau_z, observed=z)
    precision = 1 / s0**2 + np.bincount(group, minlength=2) / sigma**2 + tau_z
    shift = m0 / s0**2 + np.bincount(group, weights=y) / sigma**2 + tau_z * z[0]
    expected = stats.norm(shift / precision, precision**-0.5)
    assert_matches(reference_of(model)["mu"], expected, ("g",))


def test_inverse_gamma_variance_and_gamma_precision_with_known_mean():
    # BDA3 2.6 / Murphy 2007 section 3: a + n/2, b + sum (y - m)^2 / 2.
    y = np.array([0.5, -1.2, 2.0, 0.1, 0.9])
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", 3.0, 2.0)
        tau = pm.Gamma("tau", 2.0, 1.0)
        pm.Normal("y", 0.4, pt.sqrt(s2), observed=y)
        pm.Normal("z", 0.4, tau=tau, observed=y)
        pm.Normal("w", 0.4, 2.0 * pt.sqrt(s2), observed=y[:2])  # variance 4 s2
    ss = np.sum((y - 0.4) ** 2)
    ss_w = np.sum((y[:2] - 0.4) ** 2) / 4.0
    reference = reference_of(model)
    assert_matches(reference["s2"], stats.invgamma(3.0 + 3.5, scale=2.0 + (ss + ss_w) / 2), ())
    assert_matches(reference["tau"], stats.gamma(2.0 + 2.5, scale=1 / (1.0 + ss / 2)), ())


def nig_by_hand(y, m0, kappa0, a0, b0):
    """BDA3 3.3 / Murphy (2007) eqs. for the normal-inverse-gamma posterior."""
    n, ybar = len(y), np.mean(y)
    kappa = kappa0 + n
    m = (kappa0 * m0 + n * ybar) / kappa
    a = a0 + n / 2
    b = b0 + 0.5 * np.sum((y - ybar) ** 2) + kappa0 * n * (ybar - m0) ** 2 / (2 * kappa)
    return m, kappa, a, b


def test_normal_inverse_gamma_mean_and_variance_jointly():
    y = np.array([2.1, 3.4, 1.9, 2.8, 4.0, 2.2])
    with pm.Model() as model:
        sigma2 = pm.InverseGamma("sigma2", 2.5, 1.5)
        mu = pm.Normal("mu", 1.0, pt.sqrt(sigma2 / 0.5))
        pm.Normal("y", mu, pt.sqrt(sigma2), observed=y)
    m, kappa, a, b = nig_by_hand(y, 1.0, 0.5, 2.5, 1.5)
    reference = reference_of(model)
    assert_matches(reference["sigma2"], stats.invgamma(a, scale=b), ())
    assert_matches(reference["mu"], stats.t(2 * a, loc=m, scale=np.sqrt(b / (a * kappa))), ())


def test_normal_gamma_copies_indexed_by_group():
    # Precision form: tau_j ~ Gamma(a, b), mu_j | tau_j ~ Normal(m, 1 / sqrt(kappa tau_j)).
    group = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2])
    y = np.array([0.1, 0.5, -0.3, 4.0, 5.1, 2.2, 1.8, 2.5, 2.0])
    kappa0 = np.array([1.0, 2.0, 0.5])
    with pm.Model(coords={"g": ["a", "b", "c"]}) as model:
        tau = pm.Gamma("tau", 2.0, 1.0, dims="g")
        mu = pm.Normal("mu", 0.0, 1 / pt.sqrt(kappa0 * tau), dims="g")
        pm.Normal("y", mu[group], tau=tau[group], observed=y)
    parts = [nig_by_hand(y[group == j], 0.0, kappa0[j], 2.0, 1.0) for j in range(3)]
    m, kappa, a, b = (np.array(v) for v in zip(*parts, strict=True))
    reference = reference_of(model)
    assert_matches(reference["tau"], stats.gamma(a, scale=1 / b), ("g",))
    assert_matches(reference["mu"], stats.t(2 * a, loc=m, scale=np.sqrt(b / (a * kappa))), ("g",))


def test_normal_inverse_gamma_without_observations_is_the_prior():
    with pm.Model() as model:
        sigma2 = pm.InverseGamma("sigma2", 3.0, 2.0)
        pm.Normal("mu", 0.0, pt.sqrt(sigma2))
        lam = pm.Gamma("lam", 2.0, 1.0)
        pm.Poisson("y", lam, observed=[1, 2])
    reference = reference_of(model)
    # mu marginally: t with 2a degrees of freedom, scale sqrt(b / a).
    assert_matches(reference["mu"], stats.t(6.0, scale=np.sqrt(2.0 / 3.0)), ())
    assert_matches(reference["sigma2"], stats.invgamma(3.0, scale=2.0), ())


def test_heavy_tailed_marginals_have_no_moments():
    # One observation, a = 0.5: mu is t with 2 a_n = 2 degrees of freedom (no sd), and
    # sigma2 inverse gamma of shape 1 (no mean): NaN, as Marginal asks.
    with pm.Model() as model:
        sigma2 = pm.InverseGamma("sigma2", 0.5, 1.0)
        mu = pm.Normal("mu", 0.0, pt.sqrt(sigma2))
        pm.Normal("y", mu, pt.sqrt(sigma2), observed=[1.0])
    reference = reference_of(model)
    assert np.isnan(reference["mu"].sd) and np.isfinite(reference["mu"].mean)
    assert np.isnan(reference["sigma2"].mean)
    assert reference["mu"].kurtosis is None


def test_dirichlet_categorical_by_group_and_multinomial():
    # BDA3 3.4: the counts add to alpha; each component is Beta(alpha_k, alpha_0 - alpha_k).
    group = np.array([0, 1, 1, 0, 1, 1])
    y = np.array([2, 0, 1, 2, 1, 1])
    counts = np.array([[3, 1, 0], [0, 2, 5]])
    alpha = np.array([1.0, 2.0, 0.5])
    with pm.Model(coords={"g": ["a", "b"], "k": ["r", "s", "t"]}) as model:
        p = pm.Dirichlet("p", alpha, dims=("g", "k"))
        pm.Categorical("y", p=p[group], observed=y)
        pm.Multinomial("counts", n=counts.sum(axis=1), p=p, observed=counts)
    posterior = alpha + counts.astype(float)
    for g, k in zip(group, y, strict=True):
        posterior[g, k] += 1
    expected = stats.beta(posterior, posterior.sum(axis=1, keepdims=True) - posterior)
    assert_matches(reference_of(model)["p"], expected, ("g", "k"))


def test_free_variable_no_observation_reads_keeps_its_prior():
    with pm.Model() as model:
        pm.Beta("spare", 2.0, 5.0, shape=3)
        lam = pm.Gamma("lam", 2.0, 1.0)
        pm.Poisson("y", lam, observed=[1, 2])
    reference = reference_of(model)
    assert_matches(reference["spare"], stats.beta(2.0 * np.ones(3), 5.0), ("spare_dim_0",))
    assert list(reference.coords["spare_dim_0"]) == [0, 1, 2]


# ---------------------------------------------------------------------------------------
# data= swaps values without rebuilding the model.


def test_data_override_of_observed_values_and_containers():
    model = pymc_models.beta_binomial()
    y, n = np.array([0, 1, 2, 3]), np.array([5, 5, 5, 5])
    reference = reference_of(model, {"y": y, "trials": n})
    a, b = pymc_models.A, pymc_models.B
    assert_matches(reference["theta"], stats.beta(a + y, b + n - y), ("group",))
    # the model keeps its own data
    own = reference_of(model)
    assert_matches(
        own["theta"],
        stats.beta(a + pymc_models.SUCCESSES, b + pymc_models.TRIALS - pymc_models.SUCCESSES),
        ("group",),
    )


def test_data_override_changes_the_number_of_observations():
    with pm.Model() as model:
        t = pm.Data("t", np.ones(3))
        lam = pm.Gamma("lam", 2.0, 1.0)
        pm.Poisson("y", lam * t, observed=pm.Data("counts", np.array([1, 2, 3])), shape=t.shape)
    y, t = np.array([4, 0, 2, 5, 1]), np.array([1.0, 2.0, 0.5, 1.0, 3.0])
    reference = reference_of(model, {"counts": y, "t": t})
    assert_matches(reference["lam"], stats.gamma(2.0 + y.sum(), scale=1 / (1.0 + t.sum())), ())


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"z": [1]}, r"data: 'z' is neither an observed variable nor a pm.Data container"),
        ({"y": [1, 2, 30, 1]}, r"data: 'y' must hold integers in \[0, n\] \(Binomial\)"),
        ({"y": [1, 2, np.nan, 1]}, r"data: 'y' has values that are not finite"),
        (
            {"trials": [10, 20, 5.5, 40]},
            r"data: 'trials' holds int\d+; the values given do not convert",
        ),
    ],
)
def test_bad_data_is_refused_by_name(data, message):
    with pytest.raises(ValueError, match=message):
        derive_reference(pymc_models.beta_binomial(), data)


# ---------------------------------------------------------------------------------------
# What is not recognised gives NoReference, naming the variable.


def _hyperprior():
    with pm.Model() as model:
        b = pm.Gamma("b", 1.0, 1.0)
        lam = pm.Gamma("lam", 1.8, b, shape=3)
        pm.Poisson("y", lam * np.array([1.0, 2.0, 3.0]), observed=[1, 2, 3])
    return model


def _semi_conjugate():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 10.0)
        sigma2 = pm.InverseGamma("sigma2", 2.0, 2.0)
        pm.Normal("y", mu, pt.sqrt(sigma2), observed=[1.0, 2.0])
    return model


def _potential():
    with pm.Model() as model:
        lam = pm.Gamma("lam", 1.0, 1.0)
        pm.Poisson("y", lam, observed=[1, 2])
        pm.Potential("penalty", -lam)
    return model


def _logit():
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0)
        pm.Bernoulli("y", logit_p=beta, observed=[0, 1])
    return model


def _deterministic_exp():
    with pm.Model() as model:
        log_rate = pm.Normal("log_rate", 0.0, 1.0)
        rate = pm.Deterministic("rate", pt.exp(log_rate))
        pm.Poisson("y", rate, observed=[1, 2])
    return model


def _half_normal():
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", 1.0)
        pm.Normal("y", 0.0, sigma, observed=[1.0])
    return model


def _sd_with_gamma_prior():
    with pm.Model() as model:
        sigma = pm.Gamma("sigma", 2.0, 1.0)
        pm.Normal("y", 0.0, sigma, observed=[1.0])
    return model


def _scaled_probability():
    with pm.Model() as model:
        theta = pm.Beta("theta", 1.0, 1.0)
        pm.Bernoulli("y", 0.5 * theta, observed=[0, 1])
    return model


def _ordered():
    with pm.Model() as model:
        mu = pm.Normal(
            "mu", 0.0, 1.0, shape=2, transform=pm.distributions.transforms.ordered, initval=[0, 1]
        )
        pm.Normal("y", mu, 1.0, observed=[0.5, 0.2])
    return model


def _two_variables():
    with pm.Model() as model:
        a = pm.Gamma("a", 1.0, 1.0)
        b = pm.Gamma("b", 1.0, 1.0)
        pm.Poisson("y", a * b, observed=[1, 2])
    return model


def _mismatched_pair():
    with pm.Model() as model:
        theta = pm.Beta("theta", 1.0, 1.0)
        pm.Poisson("y", theta, observed=[1, 2])
    return model


def _shuffled_simplex():
    with pm.Model() as model:
        p = pm.Dirichlet("p", np.ones(3))
        pm.Categorical("y", p=p[::-1], observed=[0, 2])
    return model


def _nig_unpaired():
    group = np.array([0, 1, 1])
    with pm.Model() as model:
        sigma2 = pm.InverseGamma("sigma2", 3.0, 2.0, shape=2)
        mu = pm.Normal("mu", 0.0, pt.sqrt(sigma2))
        pm.Normal("y", mu[group], pt.sqrt(sigma2)[1 - group], observed=[0.1, 0.2, 0.3])
    return model


def _improper():
    with pm.Model() as model:
        mu = pm.Flat("mu", shape=2)
        pm.Normal("y", mu[0] + mu[1], 1.0, observed=[0.1, 0.4])
    return model


def _observed_as_parameter():
    with pm.Model() as model:
        lam = pm.Gamma("lam", 1.0, 1.0)
        x = pm.Poisson("x", lam, observed=[1, 2])
        pm.Normal("y", x, 1.0, observed=[0.5, 1.5])
    return model


@pytest.mark.parametrize(
    ("builder", "reason"),
    [
        (_potential, "penalty: a Potential"),
        (_ordered, "mu: the transform Ordered changes the support of its Normal prior"),
        (_shuffled_simplex, "y: its p is not a whole row of p in order"),
        (
            _nig_unpaired,
            "mu[0]: mu's prior sd scales with sigma2[0]; y's sd scales with sigma2[1]",
        ),
        (_improper, "improper posterior: the observations do not determine mu under its flat"),
        (_observed_as_parameter, "y depends on the random variable x, which is not free"),
    ],
)
def test_what_is_not_recognised_has_no_reference(builder, reason):
    reference = derive_reference(builder())
    assert isinstance(reference, NoReference)
    assert reason in reference.reason


@pytest.mark.parametrize(
    ("builder", "reason"),
    [
        (_hyperprior, "lam: the prior's scale depends on the free variable b (a hyperprior)"),
        (_semi_conjugate, "mu: mu's prior sd is known; y's sd scales with sigma2. The normal-"),
        (_logit, "y: a Bernoulli observation reads beta; only Normal or MvNormal observations"),
        (_deterministic_exp, "y: a Poisson observation reads log_rate; only Normal or MvNormal"),
        (_half_normal, "sigma: no conjugate rule has a HalfNormal prior"),
        (_sd_with_gamma_prior, "y: its sigma is sigma to the power 1; the Gamma-Normal"),
        (_scaled_probability, "y: its p scales theta; the Beta-Bernoulli rule has no factor"),
        (_two_variables, "y: its mu depends on a and b together"),
        (_mismatched_pair, "theta: a Beta prior with y ~ Poisson reading it as mu is not"),
    ],
)
def test_what_the_rules_refuse_is_integrated_by_quadrature_over_one_scalar(builder, reason):
    # The plain readers refuse these, naming why; holding one scalar fixed leaves the
    # rest closed-form (or nothing), so zoo.specification.conditional integrates it
    # numerically (checked against brute-force integrals in test_conditional.py).
    model = builder()
    gaussian = any(type(rv.owner.op) in GAUSSIAN_OPS for rv in model.free_RVs)
    plain = linear_gaussian_reference(model) if gaussian else conjugate_reference(model)
    assert isinstance(plain, NoReference)
    assert reason in plain.reason
    reference = derive_reference(model)
    assert reference.available, reference.reason
    assert "trapezoidal quadrature over" in reference.note


def test_a_deterministic_on_the_way_is_named():
    with pm.Model() as model:
        log_rate = pm.Normal("log_rate", 0.0, 1.0)
        rate = pm.Deterministic("rate", pt.exp(log_rate))
        pm.Normal("y", rate, 1.0, observed=[1.0, 2.0])
    reference = linear_gaussian_reference(model)
    assert reference.reason == (
        "y's mean is exp(log_rate) (inside the Deterministic rate): not linear in log_rate"
    )


# ---------------------------------------------------------------------------------------
# Against PyMC's NUTS. agreement() tests every element (mean, sd, tails, KS) with MCSE
# z-scores under one family-wise rate of 1% (Holm), after R-hat and ESS gates: a correct
# reference is flagged with probability at most 1%. The twins feed a reference derived
# from the same model with its prior parameters swapped, which must be flagged.


def _nuts(model, seed, draws=1000):
    with model:
        return pm.sample(
            draws=draws,
            tune=1000,
            chains=4,
            cores=1,
            random_seed=seed,
            progressbar=False,
            nuts_sampler="pymc",
            compute_convergence_checks=False,
        )


def _normal_inverse_gamma(a=3.0, b=2.0, m=0.0):
    y = np.array([1.2, 0.4, 2.2, 1.9, 0.8, 1.5])
    with pm.Model() as model:
        sigma2 = pm.InverseGamma("sigma2", a, b)
        mu = pm.Normal("mu", m, pt.sqrt(sigma2 / 2.0))
        pm.Normal("y", mu, pt.sqrt(sigma2), observed=y)
    return model


def _swapped_beta_binomial():
    with pm.Model(coords={"group": pymc_models.GROUPS}) as model:
        trials = pm.Data("trials", pymc_models.TRIALS, dims="group")
        theta = pm.Beta("theta", pymc_models.B, pymc_models.A, dims="group")
        pm.Binomial("y", n=trials, p=theta, observed=pymc_models.SUCCESSES, dims="group")
    return model


@pytest.fixture(scope="module")
def beta_binomial_nuts():
    return _nuts(pymc_models.beta_binomial(), seed=11)


@pytest.mark.pymc
def test_nuts_agrees_with_the_beta_binomial_reference(beta_binomial_nuts):
    result = agreement(beta_binomial_nuts, reference_of(pymc_models.beta_binomial()))
    assert result.verdict == "agree", str(result)


@pytest.mark.pymc
def test_nuts_disagrees_with_a_swapped_prior_reference(beta_binomial_nuts):
    wrong = reference_of(_swapped_beta_binomial())
    assert agreement(beta_binomial_nuts, wrong).verdict == "disagree"


@pytest.fixture(scope="module")
def normal_inverse_gamma_nuts():
    return _nuts(_normal_inverse_gamma(), seed=12)


@pytest.mark.pymc
def test_nuts_agrees_with_the_normal_inverse_gamma_reference(normal_inverse_gamma_nuts):
    result = agreement(normal_inverse_gamma_nuts, reference_of(_normal_inverse_gamma()))
    assert result.verdict == "agree", str(result)


@pytest.mark.pymc
def test_nuts_disagrees_with_a_wrong_normal_inverse_gamma_reference(normal_inverse_gamma_nuts):
    wrong = reference_of(_normal_inverse_gamma(a=2.0, b=3.0))
    assert agreement(normal_inverse_gamma_nuts, wrong).verdict == "disagree"


# The other families, each with a twin whose prior parameters are swapped (the classic
# bug): one NUTS run per family serves both.


def _pumps(a=4.0, b=1.0):
    with pm.Model(coords={"pump": np.arange(4)}) as model:
        t = pm.Data("t", np.array([9.4, 1.6, 6.3, 12.6]), dims="pump")
        lam = pm.Gamma("lam", a, b, dims="pump")
        pm.Poisson("y", lam * t, observed=np.array([5, 1, 5, 14]), dims="pump")
    return model


def _waiting_times(a=3.0, b=1.0):
    with pm.Model() as model:
        lam = pm.Gamma("lam", a, b)
        pm.Exponential("y", lam, observed=[0.3, 1.2, 0.7, 2.5])
    return model


def _normal_means(m=(0.0, 1.0), s=(2.0, 0.5)):
    group = np.array([0, 1, 1, 0, 1])
    with pm.Model(coords={"g": ["a", "b"]}) as model:
        mu = pm.Normal("mu", np.array(m), np.array(s), dims="g")
        pm.Normal("y", mu[group], 1.3, observed=[1.0, 2.5, 3.1, 0.2, 2.2])
    return model


def _known_mean_variance(a=3.0, b=2.0):
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", a, b)
        pm.Normal("y", 0.4, pt.sqrt(s2), observed=[0.5, -1.2, 2.0, 0.1, 0.9])
    return model


def _normal_gamma_groups(a=2.0, b=1.0):
    group = np.array([0, 0, 0, 1, 1, 1, 1])
    with pm.Model(coords={"g": ["a", "b"]}) as model:
        tau = pm.Gamma("tau", a, b, dims="g")
        mu = pm.Normal("mu", 0.0, 1 / pt.sqrt(tau), dims="g")
        pm.Normal("y", mu[group], tau=tau[group], observed=[0.1, 0.5, -0.3, 2.0, 2.6, 1.7, 2.1])
    return model


def _categories(alpha=(1.0, 2.0, 0.5)):
    group = np.array([0, 1, 1, 0, 1, 1, 0])
    with pm.Model(coords={"g": ["a", "b"], "k": ["r", "s", "t"]}) as model:
        p = pm.Dirichlet("p", np.array(alpha), dims=("g", "k"))
        pm.Categorical("y", p=p[group], observed=[2, 0, 1, 2, 1, 1, 0])
    return model


FAMILIES = {
    "gamma-poisson with exposure": (_pumps, {"a": 1.0, "b": 4.0}),
    "gamma-exponential": (_waiting_times, {"a": 1.0, "b": 3.0}),
    "normal-normal by group": (_normal_means, {"m": (1.0, 0.0), "s": (0.5, 2.0)}),
    "inverse-gamma known mean": (_known_mean_variance, {"a": 2.0, "b": 3.0}),
    "normal-gamma by group": (_normal_gamma_groups, {"a": 1.0, "b": 2.0}),
    "dirichlet-categorical by group": (_categories, {"alpha": (0.5, 2.0, 1.0)}),
}


@pytest.mark.slow
@pytest.mark.pymc
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_nuts_agrees_with_each_family_and_not_with_its_swapped_twin(family):
    builder, swapped = FAMILIES[family]
    tree = _nuts(builder(), seed=sorted(FAMILIES).index(family) + 20)
    result = agreement(tree, reference_of(builder()))
    assert result.verdict == "agree", str(result)
    assert agreement(tree, reference_of(builder(**swapped))).verdict == "disagree"


def test_an_index_out_of_range_in_new_data_is_refused():
    with pm.Model() as model:
        group = pm.Data("group", np.array([0, 1, 1]))
        theta = pm.Beta("theta", 1.0, 1.0, shape=2)
        pm.Bernoulli("y", theta[group], observed=[0, 1, 1], shape=group.shape)
    reference = reference_of(model, {"group": np.array([1, 1, 0, 0]), "y": np.array([1, 1, 0, 1])})
    assert_matches(reference["theta"], stats.beta([2.0, 3.0], [2.0, 1.0]), ("theta_dim_0",))
    with pytest.raises(ValueError, match="data: the model's parameters cannot be computed"):
        derive_reference(model, {"group": np.array([0, 2, 1])})

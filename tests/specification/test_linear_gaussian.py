"""zoo.specification.linear_gaussian: joint Gaussian posteriors read from a PyMC graph.

Every posterior is checked against a closed form computed here independently, in
covariance form where the engine works in information form (BDA3 section 14.2;
Murphy 2007 section 7.6 for the normal-inverse-gamma), with scipy.stats for the
marginals and the evidence; each refusal by its reason; and, through
``zoo.diagnostics.agreement`` at its family-wise rate of 1%, against PyMC's NUTS and
against a user's sampler with the classic bug of a prior sd used as a variance, whose
correct twin must pass.
"""

import functools

import numpy as np
import pymc as pm
import pytensor.tensor as pt
import pytest
from scipy import integrate, stats

import zoo
from zoo.core.reference import NoReference, Reference
from zoo.diagnostics import agreement
from zoo.specification.linear_gaussian import LinearGaussian, linear_gaussian_reference

RNG = np.random.default_rng(20261126)
N, P = 12, 3
DESIGN = RNG.normal(size=(N, P))
TRUTH = np.array([0.8, -0.5, 1.5])
NOISE = 0.9
Y = DESIGN @ TRUTH + NOISE * RNG.normal(size=N)
PRIOR_MEAN = np.array([0.0, 0.5, 1.0])
PRIOR_SD = np.array([2.0, 1.0, 0.5])
POINTS = np.array([0.05, 0.25, 0.5, 0.75, 0.95])


def assert_matches(marginal, frozen, dims):
    """Mean, sd, quantiles and the CDF at them agree with a scipy distribution."""
    assert marginal.dims == dims
    np.testing.assert_allclose(marginal.mean, frozen.mean(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(marginal.sd, frozen.std(), rtol=1e-9)
    for prob in POINTS:
        quantile = frozen.ppf(prob)
        np.testing.assert_allclose(marginal.ppf(prob), quantile, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(marginal.cdf(quantile[np.newaxis])[0], prob, rtol=1e-8)


def reference_of(model, data=None) -> Reference:
    reference = linear_gaussian_reference(model, data)
    assert reference.available, reference.reason
    return reference


def regression(design=DESIGN, y=Y, prior_sd=PRIOR_SD):
    """Bayesian linear regression with known noise, its design a pm.Data container."""
    with pm.Model(coords={"coef": ["a", "b", "c"]}) as model:
        x = pm.Data("X", design)
        beta = pm.Normal("beta", PRIOR_MEAN, prior_sd, dims="coef")
        pm.Normal("y", x @ beta, NOISE, observed=y)
    return model


def gaussian_posterior(design, y, mean0, cov0, noise_cov):
    """``beta | y`` in covariance form (the Kalman update), and ``log p(y)``."""
    marginal = design @ cov0 @ design.T + noise_cov
    gain = np.linalg.solve(marginal, design @ cov0).T
    mean = mean0 + gain @ (y - design @ mean0)
    cov = cov0 - gain @ design @ cov0
    evidence = stats.multivariate_normal(design @ mean0, marginal).logpdf(y)
    return mean, cov, evidence


# ---------------------------------------------------------------------------------------
# Known noise.


def test_regression_with_known_noise_is_the_kalman_posterior():
    mean, cov, evidence = gaussian_posterior(
        DESIGN, Y, PRIOR_MEAN, np.diag(PRIOR_SD**2), NOISE**2 * np.eye(N)
    )
    reference = reference_of(regression())
    assert_matches(reference["beta"], stats.norm(mean, np.sqrt(np.diag(cov))), ("coef",))
    np.testing.assert_allclose(reference.joint.block("beta", "beta"), cov, rtol=1e-9)
    np.testing.assert_allclose(reference.joint.mean, mean, rtol=1e-10)
    assert LinearGaussian(regression()).solve().log_evidence == pytest.approx(evidence, rel=1e-10)


def test_new_data_swap_the_design_and_the_observations():
    design, y = RNG.normal(size=(7, P)), RNG.normal(size=7)
    mean, cov, _ = gaussian_posterior(
        design, y, PRIOR_MEAN, np.diag(PRIOR_SD**2), NOISE**2 * np.eye(7)
    )
    model = regression()
    reference = reference_of(model, {"X": design, "y": y})
    np.testing.assert_allclose(reference["beta"].mean, mean, rtol=1e-9)
    np.testing.assert_allclose(reference["beta"].sd, np.sqrt(np.diag(cov)), rtol=1e-9)
    assert model["X"].get_value().shape == (N, P)  # the model keeps its own data


def test_every_way_of_writing_the_linear_predictor_gives_the_same_posterior():
    # pm.math.dot, pt.dot, @, a sum of columns times coefficients, indexing and a
    # Deterministic: the same mean, so the same posterior.
    def build(predictor):
        with pm.Model() as model:
            beta = pm.Normal("beta", PRIOR_MEAN, PRIOR_SD)
            mu = pm.Deterministic("mu", predictor(beta))
            pm.Normal("y", mu, NOISE, observed=Y)
        return reference_of(model)["beta"]

    forms = [
        lambda b: pm.math.dot(DESIGN, b),
        lambda b: pt.dot(DESIGN, b),
        lambda b: (DESIGN @ b[:, None])[:, 0],
        lambda b: DESIGN[:, 0] * b[0] + DESIGN[:, 1] * b[1] - (-DESIGN[:, 2]) * b[2],
        lambda b: pt.sum(DESIGN * b[None, :], axis=1) / 2.0 * 2.0,
        lambda b: pt.concatenate([DESIGN[:5] @ b, pt.switch(np.ones(N - 5), DESIGN[5:] @ b, 0.0)]),
        lambda b: pt.set_subtensor(pt.zeros(N)[:], DESIGN @ b),
    ]
    first = build(forms[0])
    for form in forms[1:]:
        other = build(form)
        np.testing.assert_allclose(other.mean, first.mean, rtol=1e-10)
        np.testing.assert_allclose(other.sd, first.sd, rtol=1e-10)


def test_hierarchical_gaussian_with_indexed_groups():
    # theta_j ~ N(mu, s), y_i ~ N(theta[group_i], sigma), mu ~ N(0, 10): one joint
    # Gaussian over (mu, theta), checked in covariance form.
    group = np.array([0, 0, 1, 2, 2, 2, 1, 0])
    y = np.array([1.2, 0.7, -0.4, 2.5, 1.9, 2.2, 0.1, 1.0])
    s, sigma = 0.8, 0.6
    with pm.Model(coords={"g": ["a", "b", "c"]}) as model:
        mu = pm.Normal("mu", 0.0, 10.0)
        theta = pm.Normal("theta", mu, s, dims="g")
        pm.Normal("y", theta[group], sigma, observed=y)
    # z = (mu, theta): prior covariance of theta_j = mu + s e_j
    cov0 = np.full((4, 4), 100.0) + np.diag([0.0, s**2, s**2, s**2])
    design = np.zeros((8, 4))
    design[np.arange(8), 1 + group] = 1.0
    mean, cov, _ = gaussian_posterior(design, y, np.zeros(4), cov0, sigma**2 * np.eye(8))
    reference = reference_of(model)
    assert_matches(reference["mu"], stats.norm(mean[0], np.sqrt(cov[0, 0])), ())
    assert_matches(reference["theta"], stats.norm(mean[1:], np.sqrt(np.diag(cov)[1:])), ("g",))
    np.testing.assert_allclose(reference.joint.block("mu", "theta"), cov[0, 1:], rtol=1e-9)


def test_an_index_held_in_a_data_container_follows_new_data():
    with pm.Model() as model:
        group = pm.Data("group", np.array([0, 1, 1]))
        theta = pm.Normal("theta", 0.0, 2.0, shape=2)
        pm.Normal("y", theta[group], 1.0, observed=np.array([0.5, 1.0, 2.0]), shape=group.shape)
    index, y = np.array([1, 1, 1, 0]), np.array([0.3, 0.9, 1.4, -2.0])
    reference = reference_of(model, {"group": index, "y": y})
    # theta_j | y ~ N(sum y / (n_j + 1/4), 1 / (n_j + 1/4)) with prior precision 1/4
    counts = np.array([1.0, 3.0]) + 0.25
    sums = np.array([-2.0, 0.3 + 0.9 + 1.4])
    np.testing.assert_allclose(reference["theta"].mean, sums / counts, rtol=1e-10)
    np.testing.assert_allclose(reference["theta"].sd, counts**-0.5, rtol=1e-10)


def test_eight_schools_non_centred_given_tau():
    # theta = mu + tau * eta with tau held fixed: y_j ~ N(mu, s_j^2 + tau^2) marginally
    y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
    sd = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        eta = pm.Normal("eta", 0.0, 1.0, shape=8)
        theta = pm.Deterministic("theta", mu + tau * eta)
        pm.Normal("y", theta, sd, observed=y)
    engine = LinearGaussian(model, fixed=("tau",))
    for tau in (0.5, 3.0, 12.0):
        posterior = engine.solve({"tau": tau})
        # z = (mu, eta), y = mu + tau eta + e
        design = np.hstack([np.ones((8, 1)), tau * np.eye(8)])
        cov0 = np.diag([25.0, *np.ones(8)])
        mean, cov, evidence = gaussian_posterior(design, y, np.zeros(9), cov0, np.diag(sd**2))
        np.testing.assert_allclose(posterior.mean, mean, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(posterior.covariance, cov, rtol=1e-9, atol=1e-14)
        assert posterior.log_evidence == pytest.approx(evidence, rel=1e-10)
    parameters = engine.solve({"tau": 3.0}).parameters()
    assert parameters["eta"]["loc"].shape == (8,) and np.all(np.isinf(parameters["eta"]["df"]))
    with pytest.raises(ValueError, match="fixed: no value for tau"):
        engine.solve()
    with pytest.raises(ValueError, match="fixed: 'sigma' is not a free variable"):
        LinearGaussian(model, fixed=("sigma",))


def test_an_observation_of_the_fixed_variables_alone_is_in_the_evidence():
    # log p(y, z | sigma): z reads only sigma, held fixed; leaving it out would bias a
    # caller's quadrature over sigma
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", 1.0)
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("y", mu, sigma, observed=[0.2, 0.5])
        pm.Normal("z", 0.0, sigma, observed=[1.1])
    posterior = LinearGaussian(model, fixed=("sigma",)).solve({"sigma": 0.7})
    cov = np.full((2, 2), 1.0) + 0.49 * np.eye(2)
    expected = stats.multivariate_normal(np.zeros(2), cov).logpdf([0.2, 0.5])
    expected += stats.norm(0.0, 0.7).logpdf(1.1)
    assert posterior.log_evidence == pytest.approx(expected, rel=1e-10)


def test_multivariate_normal_prior_and_observations():
    cov0 = np.array([[1.0, 0.6], [0.6, 2.0]])
    noise = np.array([[0.5, 0.2], [0.2, 0.4]])
    mixing = np.array([[1.0, 0.3], [-0.2, 0.7]])
    y = np.array([[0.4, 1.1], [0.9, 0.2], [-0.3, 0.8]])
    with pm.Model() as model:
        beta = pm.MvNormal("beta", mu=np.array([0.1, -0.2]), cov=cov0)
        pm.MvNormal("y", mu=mixing @ beta, chol=np.linalg.cholesky(noise), observed=y)
    design = np.vstack([mixing] * 3)
    big_noise = np.kron(np.eye(3), noise)
    mean, cov, evidence = gaussian_posterior(
        design, y.ravel(), np.array([0.1, -0.2]), cov0, big_noise
    )
    reference = reference_of(model)
    assert_matches(reference["beta"], stats.norm(mean, np.sqrt(np.diag(cov))), ("beta_dim_0",))
    assert LinearGaussian(model).solve().log_evidence == pytest.approx(evidence, rel=1e-10)


# ---------------------------------------------------------------------------------------
# Flat priors (improper, the posterior proper).


def test_flat_coefficients_with_known_noise_are_least_squares():
    with pm.Model() as model:
        beta = pm.Flat("beta", shape=P)
        pm.Normal("y", DESIGN @ beta, NOISE, observed=Y)
    estimate = np.linalg.lstsq(DESIGN, Y, rcond=None)[0]
    cov = NOISE**2 * np.linalg.inv(DESIGN.T @ DESIGN)
    reference = reference_of(model)
    assert_matches(reference["beta"], stats.norm(estimate, np.sqrt(np.diag(cov))), ("beta_dim_0",))
    assert "flat priors on beta" in reference.note


def test_flat_coefficients_and_a_half_flat_noise_sd():
    # p(beta, sigma) = 1 on sigma > 0: s2 = sigma^2 has the improper InvGamma(-1/2, 0),
    # so beta is t with n - p - 1 degrees of freedom, scale^2 = RSS / (n - p - 1) V.
    with pm.Model() as model:
        sigma = pm.HalfFlat("sigma")
        beta = pm.Flat("beta", shape=P)
        pm.Normal("y", DESIGN @ beta, sigma, observed=Y)
    estimate = np.linalg.lstsq(DESIGN, Y, rcond=None)[0]
    rss = np.sum((Y - DESIGN @ estimate) ** 2)
    df = N - P - 1
    scale = np.sqrt(rss / df * np.diag(np.linalg.inv(DESIGN.T @ DESIGN)))
    reference = reference_of(model)
    assert_matches(reference["beta"], stats.t(df, estimate, scale), ("beta_dim_0",))
    # sigma^2 | y ~ InvGamma(df / 2, rss / 2): sigma's CDF, mean and sd by quadrature
    variance = stats.invgamma(df / 2, scale=rss / 2)
    sigma = reference["sigma"]
    at = np.array([0.5, 0.8, 1.2])
    np.testing.assert_allclose(sigma.cdf(at), variance.cdf(at**2), rtol=1e-12)
    density = lambda s: 2 * s * variance.pdf(s**2)  # noqa: E731
    first = integrate.quad(lambda s: s * density(s), 0, np.inf)[0]
    second = integrate.quad(lambda s: s * s * density(s), 0, np.inf)[0]
    assert sigma.mean == pytest.approx(first, rel=1e-8)
    assert sigma.sd == pytest.approx(np.sqrt(second - first**2), rel=1e-6)
    assert sigma.cdf(sigma.ppf(0.3)[np.newaxis])[0] == pytest.approx(0.3, rel=1e-10)


# ---------------------------------------------------------------------------------------
# Normal-inverse-gamma.


def normal_inverse_gamma_by_hand(v0, a, b):
    """``m_n, V_n, a_n, b_n`` of the regression (BDA3 14.8; Murphy 2007 7.6)."""
    precision0 = np.linalg.inv(v0)
    vn = np.linalg.inv(precision0 + DESIGN.T @ DESIGN)
    mn = vn @ (precision0 @ PRIOR_MEAN + DESIGN.T @ Y)
    an = a + N / 2
    bn = b + 0.5 * (Y @ Y + PRIOR_MEAN @ precision0 @ PRIOR_MEAN - mn @ np.linalg.solve(vn, mn))
    return mn, vn, an, bn


def test_normal_inverse_gamma_regression_against_scipy_t():
    # beta | s2 ~ N(m, s2 V), s2 ~ InvGamma(a, b) (BDA3 14.8; Murphy 2007 7.6)
    a, b = 3.0, 2.0
    v0 = np.diag(PRIOR_SD**2)
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", a, b)
        beta = pm.Normal("beta", PRIOR_MEAN, PRIOR_SD * pt.sqrt(s2))
        pm.Normal("y", DESIGN @ beta, pt.sqrt(s2), observed=Y)
    mn, vn, an, bn = normal_inverse_gamma_by_hand(v0, a, b)
    reference = reference_of(model)
    assert_matches(reference["s2"], stats.invgamma(an, scale=bn), ())
    assert_matches(
        reference["beta"], stats.t(2 * an, mn, np.sqrt(bn / an * np.diag(vn))), ("beta_dim_0",)
    )
    np.testing.assert_allclose(reference.joint.covariance, bn / (an - 1) * vn, rtol=1e-9)
    # evidence: y ~ multivariate t(2a, X m, b/a (I + X V X')) (Murphy 2007, eq. 7.6 ff.)
    evidence = stats.multivariate_t(
        DESIGN @ PRIOR_MEAN, b / a * (np.eye(N) + DESIGN @ v0 @ DESIGN.T), df=2 * a
    ).logpdf(Y)
    assert LinearGaussian(model).solve().log_evidence == pytest.approx(evidence, rel=1e-10)


def test_normal_inverse_gamma_with_a_correlated_multivariate_prior():
    # beta | s2 ~ MvNormal(m, s2 V0) with V0 not diagonal: the covariance path
    a, b = 4.0, 3.0
    v0 = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, -0.3], [0.1, -0.3, 0.8]])
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", a, b)
        beta = pm.MvNormal("beta", mu=PRIOR_MEAN, cov=s2 * v0)
        pm.Normal("y", DESIGN @ beta, pt.sqrt(s2), observed=Y)
    mn, vn, an, bn = normal_inverse_gamma_by_hand(v0, a, b)
    reference = reference_of(model)
    assert_matches(reference["s2"], stats.invgamma(an, scale=bn), ())
    expected = stats.t(2 * an, mn, np.sqrt(bn / an * np.diag(vn)))
    assert_matches(reference["beta"], expected, ("beta_dim_0",))


# ---------------------------------------------------------------------------------------
# Refusals, in the model's terms.


def _exp_mean():
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0)
        pm.Normal("y", pt.exp(beta), 1.0, observed=[0.5, 1.5])
    return model


def _half_normal_noise():
    with pm.Model() as model:
        sigma = pm.HalfNormal("sigma", 1.0)
        beta = pm.Normal("beta", 0.0, 1.0, shape=P)
        pm.Normal("y", DESIGN @ beta, sigma, observed=Y)
    return model


def _independent_variance():
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", 2.0, 2.0)
        beta = pm.Normal("beta", 0.0, 1.0, shape=P)
        pm.Normal("y", DESIGN @ beta, pt.sqrt(s2), observed=Y)
    return model


def _too_few_observations():
    with pm.Model() as model:
        beta = pm.Flat("beta", shape=P)
        pm.Normal("y", DESIGN[:2] @ beta, 1.0, observed=Y[:2])
    return model


def _half_flat_too_few():
    with pm.Model() as model:
        sigma = pm.HalfFlat("sigma")
        beta = pm.Flat("beta", shape=2)
        pm.Normal("y", DESIGN[:3, :2] @ beta, sigma, observed=Y[:3])
    return model


def _product_of_coefficients():
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0, shape=2)
        pm.Normal("y", beta[0] * beta[1], 1.0, observed=[0.5])
    return model


def _sd_reads_the_mean():
    with pm.Model() as model:
        mu = pm.Normal("mu", 1.0, 1.0)
        pm.Normal("y", mu, pt.abs(mu), observed=[0.5])
    return model


def _eight_schools_tau_free():
    with pm.Model() as model:
        tau = pm.HalfCauchy("tau", 5.0)
        eta = pm.Normal("eta", 0.0, 1.0, shape=2)
        pm.Normal("y", tau * eta, 1.0, observed=[0.5, 1.0])
    return model


def _logistic():
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 1.0, shape=P)
        pm.Bernoulli("y", logit_p=DESIGN @ beta, observed=(Y > 0).astype(int))
    return model


@pytest.mark.parametrize(
    ("builder", "reason"),
    [
        (_exp_mean, "y's mean is exp(beta): not linear in beta"),
        (
            _half_normal_noise,
            "y's sd reads sigma, which has a HalfNormal prior: only an InverseGamma variance, "
            "a Gamma precision or a HalfFlat scale keeps the posterior closed form",
        ),
        (_independent_variance, "beta[0]: beta's prior sd is known; y's sd scales with s2."),
        (
            _too_few_observations,
            "improper posterior: the observations do not determine beta under its flat prior",
        ),
        (_half_flat_too_few, "improper posterior: sigma has a HalfFlat prior and too few"),
        (_product_of_coefficients, "y's mean is beta[...] * beta[...]: not linear in beta"),
        (_sd_reads_the_mean, "y's sd reads mu: the sd of a Gaussian must not depend on"),
        (_logistic, "y: a Bernoulli observation reads beta; only Normal or MvNormal"),
        (_eight_schools_tau_free, "y's mean reads tau (a HalfCauchy prior), which is not"),
    ],
)
def test_what_is_not_linear_gaussian_is_refused_by_name(builder, reason):
    reference = linear_gaussian_reference(builder())
    assert isinstance(reference, NoReference)
    assert reference.reason.startswith(reason), reference.reason
    assert "Blockwise" not in reference.reason and "Elemwise" not in reference.reason


@pytest.mark.parametrize(
    ("builder", "outer"),
    [
        (_exp_mean, "beta"),
        (_half_normal_noise, "sigma"),
        (_independent_variance, "s2"),
        (_eight_schools_tau_free, "tau"),
    ],
)
def test_what_one_scalar_held_fixed_makes_linear_is_integrated_by_quadrature(builder, outer):
    # zoo.exact_reference tries the conditional layer after the linear reader refuses:
    # given the one scalar, the rest is linear-Gaussian (or nothing); the quadrature is
    # checked against brute force in tests/specification/test_conditional.py.
    reference = zoo.exact_reference(builder())
    assert reference.available, reference.reason
    assert f"quadrature over {outer} on" in reference.note


def test_what_no_scalar_held_fixed_makes_closed_form_is_refused_by_name():
    reference = zoo.exact_reference(_product_of_coefficients())
    assert isinstance(reference, NoReference)
    assert reference.reason.startswith("y's mean is beta[...] * beta[...]: not linear in beta")


# ---------------------------------------------------------------------------------------
# Against samplers. agreement() flags a correct reference with probability at most 1%
# (Holm over every element's mean, sd, tails and KS, with MCSE z-scores).


def _user_sampler(prior_variance):
    """A user's exact sampler of the known-noise regression, by the textbook formula."""

    def sampler(data, *, draws, chains, seed):
        rng = np.random.default_rng(seed)
        x, y = data["X"], data["y"]
        precision = np.diag(1.0 / prior_variance) + x.T @ x / NOISE**2
        chol = np.linalg.cholesky(precision)
        shift = PRIOR_MEAN / prior_variance + x.T @ y / NOISE**2
        mean = np.linalg.solve(chol.T, np.linalg.solve(chol, shift))
        white = rng.standard_normal((chains, draws, P))
        # x = mean + L^-T z has covariance Q^-1
        return {
            "beta": mean + np.linalg.solve(chol.T, white.reshape(-1, P).T).T.reshape(white.shape)
        }

    return sampler


RIGHT = _user_sampler(PRIOR_SD**2)
#: The classic bug: the prior sd used where its variance belongs.
SD_AS_VARIANCE = _user_sampler(PRIOR_SD)


def transposed_cholesky(data, *, draws, chains, seed):
    """The other classic bug: ``L^-1 z`` (covariance ``(L'L)^-1``) for ``L^-T z``."""
    rng = np.random.default_rng(seed)
    x, y = data["X"], data["y"]
    precision = np.diag(PRIOR_SD**-2.0) + x.T @ x / NOISE**2
    chol = np.linalg.cholesky(precision)
    mean = np.linalg.solve(precision, PRIOR_MEAN / PRIOR_SD**2 + x.T @ y / NOISE**2)
    white = rng.standard_normal((chains * draws, P))
    return {"beta": (mean + np.linalg.solve(chol, white.T).T).reshape(chains, draws, P)}


@pytest.mark.parametrize(
    ("sampler", "verdict"),
    [(RIGHT, "agree"), (SD_AS_VARIANCE, "disagree"), (transposed_cholesky, "disagree")],
)
def test_a_correct_regression_sampler_agrees_and_its_buggy_twins_do_not(sampler, verdict):
    reference = zoo.exact_reference(regression())
    result = agreement(sampler({"X": DESIGN, "y": Y}, draws=1000, chains=4, seed=5), reference)
    assert result.verdict == verdict, str(result)


def test_validate_runs_the_exact_check_on_a_users_regression():
    right = zoo.validate(regression, sampler=RIGHT, checks=("exact",), workers=0, seed=2)
    assert right.verdict == "pass", str(right)
    wrong = zoo.validate(regression, sampler=SD_AS_VARIANCE, checks=("exact",), workers=0, seed=2)
    assert wrong.verdict == "fail", str(wrong)


def flat_regression():
    """posteriordb-style: flat coefficients and a flat noise sd (Stan's implicit prior)."""
    with pm.Model() as model:
        x = pm.Data("X", DESIGN)
        sigma = pm.HalfFlat("sigma")
        beta = pm.Flat("beta", shape=P)
        pm.Normal("y", x @ beta, sigma, observed=Y)
    return model


def flat_regression_sampler(data, *, draws, chains, seed, half=0.5):
    """Exact draws: s2 ~ InvGamma((n - p - 1) / 2, RSS / 2), beta | s2 ~ N(OLS, s2 V)."""
    rng = np.random.default_rng(seed)
    x, y = data["X"], data["y"]
    estimate = np.linalg.lstsq(x, y, rcond=None)[0]
    rss = np.sum((y - x @ estimate) ** 2)
    s2 = stats.invgamma((len(y) - P - 1) / 2, scale=half * rss).rvs((chains, draws), rng)
    chol = np.linalg.cholesky(np.linalg.inv(x.T @ x))
    white = rng.standard_normal((chains, draws, P))
    beta = estimate + np.sqrt(s2)[..., None] * (white @ chol.T)
    return {"sigma": np.sqrt(s2), "beta": beta}


@pytest.mark.pymc
def test_improper_flat_priors_pass_exact_and_nuts_and_the_simulating_checks_refuse():
    result = zoo.validate(
        flat_regression,
        sampler=flat_regression_sampler,
        checks=("exact", "nuts"),
        workers=0,
        seed=3,
        budgets={"exact": {"draws": 500}, "nuts": {"draws": 500}},
    )
    assert [c.verdict for c in result.checks] == ["pass", "pass"], str(result)
    # the twin: the inverse gamma's scale RSS where RSS / 2 belongs
    result = zoo.validate(
        flat_regression,
        sampler=functools.partial(flat_regression_sampler, half=1.0),
        checks=("exact",),
        workers=0,
        seed=3,
    )
    assert result.verdict == "fail", str(result)
    with pytest.raises(ValueError, match="sbc: cannot simulate from the model's prior"):
        zoo.validate(flat_regression, sampler=flat_regression_sampler, checks=("sbc",), workers=0)


@pytest.mark.pymc
def test_nuts_agrees_with_the_regression_and_normal_inverse_gamma_references():
    with pm.Model() as model:
        s2 = pm.InverseGamma("s2", 3.0, 2.0)
        beta = pm.Normal("beta", PRIOR_MEAN, PRIOR_SD * pt.sqrt(s2))
        pm.Normal("y", DESIGN @ beta, pt.sqrt(s2), observed=Y)
        draws = pm.sample(
            draws=1000,
            tune=1000,
            chains=4,
            cores=1,
            random_seed=17,
            progressbar=False,
            nuts_sampler="pymc",
            compute_convergence_checks=False,
        )
    result = agreement(draws, zoo.exact_reference(model))
    assert result.verdict == "agree", str(result)
    # the twin: the same draws against the reference with the prior sd used as a variance
    with pm.Model() as wrong:
        s2 = pm.InverseGamma("s2", 3.0, 2.0)
        beta = pm.Normal("beta", PRIOR_MEAN, np.sqrt(PRIOR_SD) * pt.sqrt(s2))
        pm.Normal("y", DESIGN @ beta, pt.sqrt(s2), observed=Y)
    result = agreement(draws, zoo.exact_reference(wrong))
    assert result.verdict == "disagree", str(result)


@pytest.mark.parametrize(
    "build, fixed, values",
    [
        # latent labels: the mean reads mu[z]; 300 of the 2^12 labelings
        (
            lambda: _labelled_mixture(np.linspace(-1.2, 1.3, 12)),
            ("z",),
            {"z": np.random.default_rng(0).integers(0, 2, size=(300, 12))},
        ),
        # a hierarchical scale from 1e-12 to 400: theta's prior sd reads tau
        (
            lambda: _schools(),
            ("tau",),
            {"tau": np.exp(np.linspace(np.log(1e-12), np.log(400.0), 40))},
        ),
    ],
    ids=["labels", "scale"],
)
def test_batched_solves_are_the_one_at_a_time_solves(build, fixed, values):
    engine = LinearGaussian(build(), fixed=fixed, variables=None if fixed == ("tau",) else ("mu",))
    evidence, parameters = engine.solve_batch(values)
    count = len(next(iter(values.values())))
    for b in range(count):
        one = engine.solve({name: v[b] for name, v in values.items()})
        np.testing.assert_allclose(evidence[b], one.log_evidence, rtol=1e-12, atol=1e-9)
        for name, found in one.parameters().items():
            for key, value in found.items():
                np.testing.assert_allclose(parameters[name][key][b], value, rtol=1e-9, atol=1e-12)


def _labelled_mixture(points):
    with pm.Model() as model:
        w = pm.Beta("w", 2.0, 2.0)
        mu = pm.Normal("mu", np.array([-2.0, 2.0]), 1.0)
        z = pm.Bernoulli("z", w, shape=len(points))
        pm.Normal("y", mu[z], 0.6, observed=points)
    return model


def _schools():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta = pm.Normal("theta", mu, tau, shape=8)
        pm.Normal(
            "y",
            theta,
            np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0]),
            observed=np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0]),
        )
    return model

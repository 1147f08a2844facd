"""zoo.specification.conditional: exact references by quadrature and enumeration.

Each classic model's reference is checked against a brute-force computation written
here independently (scipy.stats densities on a fine grid, or scipy.integrate.quad of
densities written out and checked against scipy.stats),
and against draws: exact draws agree by ``zoo.diagnostics.agreement``, while a wrong
sampler that holds the outer variable at one value instead of integrating it is told
apart.
"""

import re

import numpy as np
import pytest
from scipy import integrate, special, stats

import zoo
from tests.support import classic_models as classic
from tests.support import classic_samplers
from zoo.diagnostics import agreement
from zoo.specification.exact import derive_reference

# ---------------------------------------------------------------------------------------
# Pumps: two Gamma hyperparameters on a log-log grid.


# The pumps and hierarchical Beta-Binomial references take about 14 CPU seconds each
# (a 2-D grid of ~9,000 nodes, one engine call per node): behind the slow mark.


@pytest.fixture(scope="module")
def pumps_reference():
    reference = derive_reference(classic.pumps())
    assert reference.available, reference.reason
    return reference


@pytest.fixture(scope="module")
def pumps_brute_force():
    """Means and sds of alpha, beta and theta on a fine grid in (log alpha, log beta)."""
    log_a = np.linspace(-9.0, 3.0, 481)
    log_b = np.linspace(-60.0, 4.0, 1601)
    a, b = np.exp(log_a)[:, None], np.exp(log_b)[None, :]
    t, y = classic.PUMP_HOURS, classic.PUMP_FAILURES
    # y_i | alpha, beta is negative binomial: n = alpha, p = beta / (beta + t_i)
    log_lik = sum(stats.nbinom.logpmf(yi, a, b / (b + ti)) for yi, ti in zip(y, t, strict=True))
    log_post = (
        log_lik
        + stats.expon.logpdf(a)
        + stats.gamma.logpdf(b, 0.1)
        + np.log(a)
        + np.log(b)  # Jacobian of the log axes
    )
    w = np.exp(log_post - log_post.max())
    w /= w.sum()
    assert max(w[0].max(), w[-1].max(), w[:, 0].max(), w[:, -1].max()) < 1e-14

    def moments(values):
        mean = np.sum(w[..., None] * values, axis=(0, 1))
        return mean, np.sqrt(np.sum(w[..., None] * (values - mean) ** 2, axis=(0, 1)))

    theta_mean = (a[..., None] + y) / (b[..., None] + t)
    theta_var = (a[..., None] + y) / (b[..., None] + t) ** 2
    m = np.sum(w[..., None] * theta_mean, axis=(0, 1))
    v = np.sum(w[..., None] * (theta_var + (theta_mean - m) ** 2), axis=(0, 1))
    return {
        "alpha": moments(np.broadcast_to(a, w.shape)[..., None]),
        "beta": moments(np.broadcast_to(b, w.shape)[..., None]),
        "theta": (m, np.sqrt(v)),
    }


@pytest.mark.slow
def test_pumps_moments_match_a_brute_force_grid(pumps_reference, pumps_brute_force):
    for name, (mean, sd) in pumps_brute_force.items():
        marginal = pumps_reference[name]
        # the reference states an error below 1e-3 sd; the grid's own is far smaller
        mean, sd = mean.reshape(marginal.shape), sd.reshape(marginal.shape)
        assert np.all(np.abs(marginal.mean - mean) <= 2e-3 * sd), (name, marginal.mean, mean)
        assert np.all(np.abs(marginal.sd - sd) <= 2e-3 * sd), (name, marginal.sd, sd)
    assert "trapezoidal quadrature over alpha and beta" in pumps_reference.note


@pytest.mark.slow
def test_pumps_outer_cdf_is_the_grid_s(pumps_reference):
    alpha = pumps_reference["alpha"]
    median = alpha.ppf(0.5)
    np.testing.assert_allclose(alpha.cdf(np.array([median])), 0.5, atol=1e-6)
    assert alpha.cdf(np.array([0.0]))[0] == 0.0


# ---------------------------------------------------------------------------------------
# Coal-mining change point: k enumerated.


def _gamma_poisson_log_density(lam, counts, shape, rate):
    """log Gamma(lam | shape, rate) + sum log Poisson(counts | lam), written out.

    quad calls it some 10^5 times over the years; scipy.stats' per-call overhead made the
    fixture 25 s of the test run. Checked against scipy.stats by its own test.
    """
    lam = np.asarray(lam, dtype=float)
    prior = shape * np.log(rate) - special.gammaln(shape) + (shape - 1) * np.log(lam) - rate * lam
    data = np.sum(counts) * np.log(lam) - counts.size * lam - np.sum(special.gammaln(counts + 1))
    return prior + data


def test_the_written_out_gamma_poisson_density_is_scipys():
    counts = np.array([4, 0, 1, 6, 3])
    lam = np.array([0.05, 0.9, 3.0, 7.5])
    expected = stats.gamma.logpdf(lam, 2.5, scale=1 / 1.5) + np.sum(
        stats.poisson.logpmf(counts[:, None], lam), axis=0
    )
    np.testing.assert_allclose(
        _gamma_poisson_log_density(lam, counts, 2.5, 1.5), expected, rtol=1e-12
    )


def _segment_log_evidence(counts):
    """log of the integral over the rate of Gamma prior times Poisson counts, by quad."""
    shape, rate = classic.COAL_RATE_PRIOR

    def log_integrand(lam):
        return _gamma_poisson_log_density(lam, counts, shape, rate)

    peak = np.max(log_integrand(np.linspace(0.05, 8.0, 400)))
    value, _ = integrate.quad(
        lambda x: np.exp(log_integrand(x) - peak), 0, np.inf, epsrel=1e-11, limit=200
    )
    mean, _ = integrate.quad(
        lambda x: x * np.exp(log_integrand(x) - peak), 0, np.inf, epsrel=1e-11, limit=200
    )
    return peak + np.log(value), mean / value


@pytest.fixture(scope="module")
def coal_brute_force():
    years, y = classic.COAL_YEARS, classic.COAL_DISASTERS
    rows = []
    for k in years:
        early, early_mean = _segment_log_evidence(y[years <= k])
        late, late_mean = _segment_log_evidence(y[years > k])
        rows.append((early + late, early_mean, late_mean))
    log_w, early_mean, late_mean = map(np.array, zip(*rows, strict=True))
    pmf = np.exp(log_w - special.logsumexp(log_w))
    return {"pmf": pmf, "early": pmf @ early_mean, "late": pmf @ late_mean}


@pytest.fixture(scope="module")
def coal_reference():
    reference = derive_reference(classic.coal_change_point())
    assert reference.available, reference.reason
    return reference


def test_change_point_pmf_and_rates_match_quadrature_per_year(coal_reference, coal_brute_force):
    k = coal_reference["k"]
    assert k.discrete
    years = classic.COAL_YEARS
    cdf = k.cdf(years[:, None].astype(float))[:, 0]
    np.testing.assert_allclose(np.diff(cdf, prepend=0.0), coal_brute_force["pmf"], atol=1e-9)
    np.testing.assert_allclose(k.mean, years @ coal_brute_force["pmf"], rtol=1e-10)
    np.testing.assert_allclose(coal_reference["early"].mean, coal_brute_force["early"], rtol=1e-8)
    np.testing.assert_allclose(coal_reference["late"].mean, coal_brute_force["late"], rtol=1e-8)
    assert "112 configurations of k enumerated" in coal_reference.note


def _coal_draws(pmf, rng, *, hold_k_at_mode=False, chains=4, draws=1000):
    """Exact draws (k from its PMF, each rate from its Gamma given k), or a wrong sampler
    that draws the rates given the most probable k only (k not integrated)."""
    years, y = classic.COAL_YEARS, classic.COAL_DISASTERS
    shape, rate = classic.COAL_RATE_PRIOR
    k = rng.choice(years, size=(chains, draws), p=pmf)
    given = np.full_like(k, years[np.argmax(pmf)]) if hold_k_at_mode else k
    before = np.array([y[years <= g].sum() for g in given.ravel()]).reshape(k.shape)
    count = given - years[0] + 1
    early = rng.gamma(shape + before, 1.0 / (rate + count))
    late = rng.gamma(shape + y.sum() - before, 1.0 / (rate + len(years) - count))
    return {"k": k, "early": early, "late": late}


def test_change_point_exact_draws_agree_and_a_fixed_k_sampler_does_not(
    coal_reference, coal_brute_force
):
    rng = np.random.default_rng(20261126)
    right = agreement(_coal_draws(coal_brute_force["pmf"], rng), coal_reference)
    assert right.verdict == "agree"
    wrong = _coal_draws(coal_brute_force["pmf"], rng, hold_k_at_mode=True)
    assert agreement(wrong, coal_reference).verdict == "disagree"


# ---------------------------------------------------------------------------------------
# A hierarchical Beta-Binomial written by a user: both hyperparameters integrated.

SUCCESSES = np.array([0, 2, 1, 4, 6, 3, 9, 2])
TRIALS = np.array([18, 20, 14, 25, 19, 17, 30, 12])


@pytest.mark.slow
def test_hierarchical_beta_binomial_matches_a_brute_force_grid():
    reference = derive_reference(classic.hierarchical_beta_binomial(SUCCESSES, TRIALS))
    assert reference.available, reference.reason
    log_a = np.linspace(-7.0, 8.0, 601)[:, None]
    log_b = np.linspace(-5.0, 10.0, 601)[None, :]
    a, b = np.exp(log_a), np.exp(log_b)
    log_post = (
        sum(stats.betabinom.logpmf(s, n, a, b) for s, n in zip(SUCCESSES, TRIALS, strict=True))
        + stats.gamma.logpdf(a, 1.0, scale=10.0)
        + stats.gamma.logpdf(b, 1.0, scale=10.0)
        + log_a
        + log_b
    )
    w = np.exp(log_post - log_post.max())
    w /= w.sum()
    assert max(w[0].max(), w[-1].max(), w[:, 0].max(), w[:, -1].max()) < 1e-14
    for name, values in (("a", a + 0 * b), ("b", b + 0 * a)):
        mean = np.sum(w * values)
        sd = np.sqrt(np.sum(w * (values - mean) ** 2))
        np.testing.assert_allclose(reference[name].mean, mean, atol=2e-3 * sd)
        np.testing.assert_allclose(reference[name].sd, sd, atol=2e-3 * sd)
    m = (a[..., None] + SUCCESSES) / (a + b)[..., None].__add__(TRIALS)
    theta_mean = np.sum(w[..., None] * m, axis=(0, 1))
    np.testing.assert_allclose(reference["theta"].mean, theta_mean, atol=1e-4)


# ---------------------------------------------------------------------------------------
# A two-component mixture with latent labels: 2^8 labelings enumerated.


@pytest.fixture(scope="module")
def mixture_brute_force():
    """Each labeling's posterior weight from its multivariate normal marginal (mu
    integrated by Gaussian conditioning) and its Beta integral over w (by quad)."""
    y = classic.MIXTURE_POINTS
    n = len(y)
    s0, sigma = classic.MIXTURE_PRIOR_SD, classic.MIXTURE_NOISE_SD
    labelings = (np.arange(2**n)[:, None] >> np.arange(n)) & 1
    log_w, mu_mean = [], []
    for z in labelings:
        onehot = (z[:, None] == np.arange(2)).astype(float)
        cov = sigma**2 * np.eye(n) + s0**2 * onehot @ onehot.T
        ones = int(z.sum())
        labels, _ = integrate.quad(lambda p, k=ones: p**k * (1 - p) ** (n - k), 0, 1)
        log_w.append(stats.multivariate_normal(np.zeros(n), cov).logpdf(y) + np.log(labels))
        mu_mean.append(s0**2 * onehot.T @ np.linalg.solve(cov, y))
    log_w = np.array(log_w)
    pmf = np.exp(log_w - special.logsumexp(log_w))
    return {"pmf": pmf, "labelings": labelings, "mu": pmf @ np.array(mu_mean)}


def test_mixture_labels_and_means_match_brute_force(mixture_brute_force):
    reference = derive_reference(classic.two_component_mixture())
    assert reference.available, reference.reason
    assert "256 configurations of z enumerated" in reference.note
    pmf, labelings = mixture_brute_force["pmf"], mixture_brute_force["labelings"]
    np.testing.assert_allclose(reference["z"].mean, pmf @ labelings, atol=1e-10)
    np.testing.assert_allclose(reference["mu"].mean, mixture_brute_force["mu"], atol=1e-10)
    # the components are exchangeable: the labels' posterior is symmetric
    np.testing.assert_allclose(reference["w"].mean, [0.5, 0.5], atol=1e-12)


def test_validate_runs_the_exact_check_on_the_change_point_and_catches_a_bug():
    model = "tests.support.classic_models:coal_change_point"
    options = {"checks": ("exact",), "workers": 0, "seed": 3}
    right = zoo.validate(model, classic_samplers.coal_gibbs, **options)
    assert right.verdict == "pass", str(right)
    wrong = zoo.validate(model, classic_samplers.coal_gibbs_late_count_bug, **options)
    assert wrong.verdict == "fail", str(wrong)


# ---------------------------------------------------------------------------------------
# Eight schools (BDA3 table 5.2): tau integrated by quadrature, mu and theta (or eta)
# jointly Gaussian given it, read by the linear-Gaussian engine.


def _stated_error(note):
    """The quadrature error the reference states in its note, in sds."""
    return float(re.search(r"estimated error ([0-9.e+-]+) sd", note).group(1))


def _eight_schools_brute_force():
    """Moments of mu, tau, theta and eta = (theta - mu) / tau on a fine log tau grid.

    Given tau, (mu, theta) is Gaussian in closed form (BDA3 5.4): mu | tau as in
    classic_samplers.eight_schools_grid; theta_j | mu, tau has precision P_j = 1/s_j^2 +
    1/tau^2 and mean (y_j / s_j^2 + mu / tau^2) / P_j, so E[theta_j | tau] takes mu's
    mean, Var[theta_j | tau] = 1/P_j + c_j^2 V with c_j = 1 / (tau^2 P_j), and
    eta_j = (theta_j - mu) / tau has mean (E theta_j - E mu) / tau and variance
    (1/P_j + (1 - c_j)^2 V) / tau^2.
    """
    y, s = classic.SCHOOL_EFFECTS, classic.SCHOOL_SDS
    tau, w, m, v = classic_samplers.eight_schools_grid()
    precision = 1.0 / s**2 + 1.0 / tau[:, None] ** 2
    c = 1.0 / (tau[:, None] ** 2 * precision)
    conditional = {
        "mu": (m[:, None], v[:, None]),
        "tau": (tau[:, None], 0.0 * tau[:, None]),
        "theta": (
            (y / s**2 + m[:, None] / tau[:, None] ** 2) / precision,
            1.0 / precision + c**2 * v[:, None],
        ),
    }
    theta_mean = conditional["theta"][0]
    conditional["eta"] = (
        (theta_mean - m[:, None]) / tau[:, None],
        (1.0 / precision + (1.0 - c) ** 2 * v[:, None]) / tau[:, None] ** 2,
    )
    moments = {}
    for name, (mean, var) in conditional.items():
        total = np.sum(w[:, None] * mean, axis=0)
        spread = np.sum(w[:, None] * (var + (mean - total) ** 2), axis=0)
        moments[name] = (total.squeeze(), np.sqrt(spread).squeeze())
    return moments


@pytest.fixture(scope="module")
def schools_brute_force():
    return _eight_schools_brute_force()


@pytest.mark.pymc
@pytest.mark.parametrize("centred", [True, False], ids=["centred", "non-centred"])
def test_eight_schools_matches_a_brute_force_grid(centred, schools_brute_force):
    reference = derive_reference(classic.eight_schools(centred))
    assert reference.available, reference.reason
    assert "quadrature over tau on log axes" in reference.note
    assert "linear-Gaussian" in reference.note
    # the stated error, and the brute force's own (a trapezoid of 20,001 nodes in
    # log tau from 1e-13 to 3e3: far below 1e-6 sd)
    error = _stated_error(reference.note) + 1e-6
    names = ("mu", "tau", "theta") if centred else ("mu", "tau", "eta")
    for name in names:
        mean, sd = schools_brute_force[name]
        np.testing.assert_allclose(reference[name].mean, mean, rtol=0, atol=error * np.max(sd))
        np.testing.assert_allclose(reference[name].sd, sd, rtol=0, atol=error * np.max(sd))


@pytest.mark.pymc
@pytest.mark.parametrize("prior", ["HalfNormal", "HalfCauchy", "Exponential"])
def test_regression_noise_sd_is_integrated_by_quadrature(prior):
    # Given sigma, beta | sigma, y is Normal in closed form: a grid over log sigma and
    # the conditional Gaussian, both in numpy (no zoo), for the brute force.
    reference = derive_reference(classic.regression_with_sd_prior(prior))
    assert reference.available, reference.reason
    assert "quadrature over sigma on log axes" in reference.note
    x, y = classic.REGRESSION_X, classic.REGRESSION_Y
    log_sigma = np.linspace(np.log(1e-3), np.log(1e3), 4001)
    sigma = np.exp(log_sigma)
    prior_precision = np.eye(2) / 4.0
    means, covariances, log_weight = [], [], []
    for sd in sigma:
        precision = prior_precision + x.T @ x / sd**2
        covariance = np.linalg.inv(precision)
        means.append(covariance @ (x.T @ y) / sd**2)
        covariances.append(covariance)
        marginal = stats.multivariate_normal(
            np.zeros(len(y)), 4.0 * x @ x.T + sd**2 * np.eye(len(y))
        )
        log_weight.append(marginal.logpdf(y))
    log_prior = {
        "HalfNormal": stats.halfnorm(scale=1.0).logpdf,
        "HalfCauchy": stats.halfcauchy(scale=1.0).logpdf,
        "Exponential": stats.expon(scale=1.0).logpdf,
    }[prior](sigma)
    log_weight = np.array(log_weight) + log_prior + log_sigma
    w = np.exp(log_weight - log_weight.max())
    w[[0, -1]] *= 0.5
    w /= w.sum()
    means, covariances = np.array(means), np.array(covariances)
    beta_mean = w @ means
    beta_var = w @ (np.diagonal(covariances, axis1=1, axis2=2) + (means - beta_mean) ** 2)
    sigma_mean = w @ sigma
    sigma_sd = np.sqrt(w @ (sigma - sigma_mean) ** 2)
    error = _stated_error(reference.note) + 1e-6
    beta_sd = np.sqrt(beta_var)
    for found, expected, sd in (
        (reference["beta"].mean, beta_mean, beta_sd),
        (reference["beta"].sd, beta_sd, beta_sd),
        (reference["sigma"].mean, sigma_mean, sigma_sd),
        (reference["sigma"].sd, sigma_sd, sigma_sd),
    ):
        assert np.all(np.abs(found - expected) <= error * sd), (found, expected, error)


@pytest.mark.pymc
def test_validate_passes_exact_eight_schools_draws_and_fails_tau_held_at_its_mode():
    model = "tests.support.classic_models:eight_schools"
    options = {"checks": ("exact",), "workers": 0, "seed": 5}
    right = zoo.validate(model, classic_samplers.eight_schools_exact, **options)
    assert right.verdict == "pass", str(right)
    wrong = zoo.validate(model, classic_samplers.eight_schools_tau_at_mode, **options)
    assert wrong.verdict == "fail", str(wrong)


# ---------------------------------------------------------------------------------------
# A mixture with exchangeable components: the label-invariant quantities.


def _exchangeable_mixture(y, a, prior_sd, sigma):
    import pymc as pm

    coords = {"obs": np.arange(y.size), "component": [0, 1]}
    with pm.Model(coords=coords) as model:
        w = pm.Beta("w", a, a)
        z = pm.Bernoulli("z", p=w, dims="obs")
        mu = pm.Normal("mu", mu=0.0, sigma=prior_sd, dims="component")
        pm.Normal("y", mu=mu[z], sigma=sigma, observed=y, dims="obs")
    return model


def test_label_invariant_marginals_against_a_hand_enumeration():
    """mu[z_i], w[z_i] and P(z_i = z_j) summed by hand over the 2^6 labellings."""
    from zoo.specification.symmetry import exchangeable_mixtures

    y, a, s, sigma = np.array([-1.1, -0.7, -0.2, 0.4, 0.9, 1.4]), 1.5, 1.2, 0.7
    model = _exchangeable_mixture(y, a, s, sigma)
    reference = derive_reference(model, symmetry=exchangeable_mixtures(model))
    assert reference.available, reference.reason
    n = y.size
    labels = (np.arange(2**n)[:, None] >> np.arange(n)) & 1  # every labelling
    log_w, means, variances, w_means, w_vars = [], [], [], [], []
    for c in labels:
        n1 = c.sum()
        log_p = special.betaln(a + n1, a + n - n1) - special.betaln(a, a)
        post_mean, post_var = np.empty(2), np.empty(2)
        for k in (0, 1):
            yk = y[c == k]
            cov = sigma**2 * np.eye(yk.size) + s**2 * np.ones((yk.size, yk.size))
            if yk.size:
                log_p += stats.multivariate_normal(np.zeros(yk.size), cov).logpdf(yk)
            precision = 1 / s**2 + yk.size / sigma**2
            post_mean[k], post_var[k] = yk.sum() / sigma**2 / precision, 1 / precision
        log_w.append(log_p)
        means.append(post_mean[c])
        variances.append(post_var[c])
        # the weight of each point's component: w if its label is 1, else 1 - w
        beta = stats.beta(a + n1, a + n - n1)
        w_means.append(np.where(c == 1, beta.mean(), 1 - beta.mean()))
        w_vars.append(np.full(n, beta.var()))
    weight = np.exp(np.array(log_w) - special.logsumexp(log_w))
    means, variances = np.array(means), np.array(variances)
    mean = weight @ means
    sd = np.sqrt(weight @ (variances + (means - mean) ** 2))
    marginal = reference.marginals["mu_of_z"]
    np.testing.assert_allclose(marginal.mean, mean, atol=1e-10)
    np.testing.assert_allclose(marginal.sd, sd, rtol=1e-9)
    w_means, w_vars = np.array(w_means), np.array(w_vars)
    w_mean = weight @ w_means
    np.testing.assert_allclose(reference.marginals["w_of_z"].mean, w_mean, atol=1e-10)
    w_sd = np.sqrt(weight @ (w_vars + (w_means - w_mean) ** 2))
    np.testing.assert_allclose(reference.marginals["w_of_z"].sd, w_sd, rtol=1e-9)
    first, second = np.triu_indices(n, 1)
    together = weight @ (labels[:, first] == labels[:, second])
    np.testing.assert_allclose(reference.marginals["coassignment_z"].mean, together, atol=1e-10)
    # the raw labels are exactly symmetric: each 1/2, which no single labelling shows
    np.testing.assert_allclose(reference.marginals["z"].mean, 0.5, atol=1e-12)
    # the CDF of mu[z_i] at its mean is that of the mixture of normals by hand
    at = mean[None]
    by_hand = weight @ stats.norm.cdf(at, means, np.sqrt(variances))
    np.testing.assert_allclose(marginal.cdf(at)[0], by_hand, atol=1e-9)

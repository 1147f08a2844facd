"""The log_likelihood group of both engines: PyMC's names, dims and values; LOO agrees.

The Gibbs engine computes the group from its draws with the model's
``pointwise_log_likelihood``; the PyMC engine with ``pymc.compute_log_likelihood`` on
the PyMC program. Two independent implementations, so agreement is evidence.

Agreement of ``arviz.loo`` between the engines is judged by the Monte Carlo standard
error of each elpd estimate, from the delta method: with ``f_is = 1 / p(y_i | theta_s)``
the (unsmoothed) importance-sampling estimate is ``elpd = -sum_i log mean_s f_is``, so
its error is that of the mean of the scalar ``g_s = sum_i f_is / mean_s(f_is)``, whose
MCSE ArviZ computes from its effective sample size (Vehtari et al. 2017, sec. 2.1 and
the appendix on Monte Carlo error). At a false-alarm rate of 0.001 per model
(Bonferroni over its observed variables) a correct pointwise function passes; a wrong
one (the twin) fails.
"""

import dataclasses

import arviz_stats as azs
import numpy as np
import pytest
from scipy import stats

import zoo
from zoo.models.beta_binomial import Prior as BetaBinomialPrior

#: False-alarm rate of one model's agreement test.
ALPHA = 0.001
DRAWS, CHAINS = 1000, 4
MODELS = ("beta-binomial", "naive-bayes", "gda", "lda")
#: The PyMC comparisons: beta-binomial in the default run; the mixture programs (a cold
#: compile and NUTS run of 25 to 50 s each) with ``-m slow``, to keep the default run
#: under its 10 minutes on 2 cores.
PYMC_MODELS = [
    pytest.param(name, marks=() if name == "beta-binomial" else pytest.mark.slow)
    for name in MODELS
]


def _problem(name):
    """A small data set per model on which PSIS-LOO is reliable (Pareto k < 0.7).

    Beta-Binomial: a fixed Beta(10, 10) prior and 5 trials per group, so that leaving a
    group out moves its theta little (k near 1/3; with the hierarchical prior of
    ``simulation_setup`` each group pins its own theta and k exceeds 0.7). Naive Bayes:
    30 documents of 20 words, so that no one document moves phi much.
    """
    spec = zoo.get(name)
    prior, size = spec.simulation_setup()
    if name == "beta-binomial":
        prior, size = BetaBinomialPrior(a=10.0, b=10.0), {"groups": 12, "trials": 5}
    elif name == "naive-bayes":
        size = {**size, "documents": 30, "unlabelled": 5, "length": 20}
    _, data = spec.simulate(prior, np.random.default_rng(5), **size)
    return spec, data, prior


@pytest.fixture(scope="module")
def pymc_runs():
    runs = {}

    def run(name):
        if name not in runs:
            spec, data, prior = _problem(name)
            runs[name] = zoo.sample(
                spec,
                data,
                prior,
                engine="pymc",
                draws=DRAWS,
                tune=DRAWS,
                chains=2,
                seed=3,
                log_likelihood=True,
            )
        return runs[name]

    return run


def _elpd_and_mcse(tree, var_name):
    """``arviz.loo``'s elpd and its delta-method Monte Carlo standard error."""
    loo = azs.loo(tree, var_name=var_name)
    k = np.asarray(loo.pareto_k)
    # Past k = 0.7 the importance weights' variance is not finite enough for the MCSE.
    assert k.max() < 0.7, f"{var_name}: Pareto k up to {k.max():.2f}"
    log_lik = tree["log_likelihood"][var_name]
    obs = [d for d in log_lik.dims if d not in ("chain", "draw")]
    stacked = log_lik.stack(observation=obs) if obs else log_lik.expand_dims("observation", -1)
    # f_is / max_s f_is, so that no exponential overflows; g is scale-free in f_i.
    shifted = -(stacked - stacked.min(("chain", "draw")))
    f = np.exp(shifted)
    g = (f / f.mean(("chain", "draw"))).sum("observation")
    return float(loo.elpd), float(azs.mcse(g, method="mean"))


def _z(first, second, var_name):
    elpd_1, mcse_1 = _elpd_and_mcse(first, var_name)
    elpd_2, mcse_2 = _elpd_and_mcse(second, var_name)
    return (elpd_1 - elpd_2) / np.hypot(mcse_1, mcse_2)


def _max_z(gibbs, pymc):
    names = list(pymc["log_likelihood"].data_vars)
    return max(abs(_z(gibbs, pymc, name)) for name in names), len(names)


def _critical(tests):
    return stats.norm.isf(ALPHA / (2 * tests))


# Wrong pointwise log-likelihoods: classic slips, each a different kind.


def _without_binomial_coefficient(data, params):
    """The Bernoulli-sequence likelihood: the binomial coefficient left out."""
    theta = params["theta"]
    y, n = data.successes, data.trials
    return {"y": (y * np.log(theta) + (n - y) * np.log1p(-theta), ("group",))}


def _likeliest_class(correct):
    """``correct`` with each unlabelled term conditioned on its likeliest class.

    ``max_k log p(x_u, k) = log sum_k p(x_u, k) + log max_k p(k | x_u)``: the posterior's
    ``class_probability`` turns the right term into the wrong one.
    """

    def pointwise(data, params):
        terms = dict(correct(data, params))
        values, dims = terms["x_unlabelled"]
        best = np.log(params["class_probability"].max(axis=-1))
        terms["x_unlabelled"] = (values + best, dims)
        return terms

    return pointwise


def _unhalved_quadratic(correct):
    """``correct`` with the labelled points' Mahalanobis term not halved.

    ``log N = c - q / 2`` with ``c = -d/2 log 2 pi - sum log diag L``; the slip gives
    ``c - q``, that is ``2 log N - c``.
    """

    def pointwise(data, params):
        terms = dict(correct(data, params))
        values, dims = terms["x_labelled"]
        chol = np.linalg.cholesky(params["Sigma"])
        log_det = np.log(np.diagonal(chol, axis1=-2, axis2=-1)).sum(axis=-1)
        constant = -0.5 * data.x.shape[1] * np.log(2.0 * np.pi) - log_det[..., None]
        terms["x_labelled"] = (2.0 * values - constant, dims)
        return terms

    return pointwise


def _lda_likeliest_topic(data, params):
    """Each token's likelihood under its likeliest topic, not summed over topics."""
    theta = params["theta"][..., data.token_document, :]  # (..., N, K)
    phi = np.swapaxes(params["phi"], -1, -2)[..., data.token_word, :]  # (..., N, K)
    return {"token_word": (np.log(theta * phi).max(axis=-1), ("token",))}


WRONG = {
    "beta-binomial": lambda spec: _without_binomial_coefficient,
    "naive-bayes": lambda spec: _likeliest_class(spec.pointwise_log_likelihood),
    "gda": lambda spec: _unhalved_quadratic(spec.pointwise_log_likelihood),
    "lda": lambda spec: _lda_likeliest_topic,
}


@pytest.mark.pymc
@pytest.mark.parametrize("name", PYMC_MODELS)
def test_gibbs_group_has_pymc_names_dims_and_values(name, pymc_runs):
    spec, data, prior = _problem(name)
    pymc = pymc_runs(name)
    gibbs = zoo.sample(spec, data, prior, draws=20, tune=20, chains=2, seed=1)
    expected = {v: pymc["log_likelihood"][v].dims for v in pymc["log_likelihood"].data_vars}
    got = {v: gibbs["log_likelihood"][v].dims for v in gibbs["log_likelihood"].data_vars}
    assert got == expected
    # The zoo's function at PyMC's draws gives PyMC's values: same quantity, same scale.
    posterior = pymc["posterior"]
    params = {v: posterior[v].values for v in spec.variables(prior)}
    for var, (values, _) in spec.pointwise_log_likelihood(data, params).items():
        np.testing.assert_allclose(
            values, pymc["log_likelihood"][var].values, rtol=1e-8, atol=1e-8, err_msg=var
        )
    total = pymc["sample_stats"]["log_likelihood_total"]
    summed = sum(
        values.sum([d for d in values.dims if d not in ("chain", "draw")])
        for values in pymc["log_likelihood"].data_vars.values()
    )
    np.testing.assert_allclose(total, summed, rtol=1e-12)


@pytest.mark.pymc
@pytest.mark.parametrize("name", PYMC_MODELS)
def test_loo_agrees_between_engines(name, pymc_runs):
    spec, data, prior = _problem(name)
    gibbs = zoo.sample(spec, data, prior, draws=DRAWS, tune=DRAWS, chains=CHAINS, seed=2)
    largest, tests = _max_z(gibbs, pymc_runs(name))
    assert largest < _critical(tests)


@pytest.mark.pymc
@pytest.mark.parametrize("name", PYMC_MODELS)
def test_loo_disagreement_catches_a_wrong_pointwise_log_likelihood(name, pymc_runs):
    spec, data, prior = _problem(name)
    wrong = dataclasses.replace(spec, pointwise_log_likelihood=WRONG[name](spec))
    gibbs = zoo.sample(wrong, data, prior, draws=DRAWS, tune=DRAWS, chains=CHAINS, seed=2)
    largest, tests = _max_z(gibbs, pymc_runs(name))
    assert largest > _critical(tests)


@pytest.mark.pymc
@pytest.mark.slow  # a cold compile of GDA's log-likelihood: 45 s
def test_pymc_draws_do_not_depend_on_the_log_likelihood_option():
    # GDA reports Sigma, a deterministic of the Bartlett variables the group needs.
    spec, data, prior = _problem("gda")
    runs = [
        zoo.sample(spec, data, prior, engine="pymc", draws=30, tune=30, chains=1, seed=8, **option)
        for option in ({"log_likelihood": True}, {})
    ]
    first, second = (run["posterior"] for run in runs)
    assert set(first.data_vars) == set(second.data_vars) == set(spec.variables(prior))
    for var in first.data_vars:
        np.testing.assert_array_equal(first[var].values, second[var].values)
    assert "log_likelihood" not in runs[1].children
    assert not any(name.startswith("bartlett") for name in first.coords)

"""Four posteriordb posteriors written in PyMC: the translation, and the derived references.

posteriordb (stan-dev/posteriordb, BSD-3; ``tests/specification/posteriordb/NOTICE``)
publishes, per posterior, a Stan program, its data and 10 chains of 1,000 thinned Stan
draws. The models here (``posteriordb/models.py``) are the Stan programs in PyMC; the
shipped summaries are the mean and sd of each parameter's reference draws with their
Monte Carlo standard errors.

- The translation: each PyMC model's log density, at random points, differs from the
  Stan program's (written with scipy.stats) by one constant, so they are the same
  posterior; Stan's implicit flat priors are ``Flat``/``HalfFlat``.
- The derived references: ``zoo.exact_reference(model)``'s means and sds are within 5
  Monte Carlo standard errors of posteriordb's. With 36 compared moments, each a z-score
  under the null, 5 MCSE is a family-wise false-alarm rate of about 36 * 5.7e-7 = 2e-5
  (the references' own error is far smaller).
"""

import numpy as np
import pytest
from scipy import stats

import zoo
from tests.specification.posteriordb import models

NAMES = list(models.POSTERIORS)
#: Reference moments within this many Monte Carlo standard errors of posteriordb's.
Z_LIMIT = 5.0


def _stan_log_density(name, data, values):
    """The Stan program's log density (up to a constant) at constrained ``values``."""
    if name == "eight_schools-eight_schools_noncentered":
        eta, mu, tau = values["theta_trans"], values["mu"], values["tau"]
        theta = eta * tau + mu
        return (
            stats.norm.logpdf(eta).sum()
            + stats.norm.logpdf(data["y"], theta, data["sigma"]).sum()
            + stats.norm.logpdf(mu, 0, 5)
            + stats.cauchy.logpdf(tau, 0, 5)
        )
    beta, sigma = values["beta"], values["sigma"]
    if name == "earnings-earn_height":
        mean = beta[0] + beta[1] * np.asarray(data["height"], dtype=float)
        return stats.norm.logpdf(data["earn"], mean, sigma).sum()
    if name == "sblrc-blr":
        prior = stats.norm.logpdf(beta, 0, 10).sum() + stats.norm.logpdf(sigma, 0, 10)
        return prior + stats.norm.logpdf(data["y"], np.asarray(data["X"]) @ beta, sigma).sum()
    work = np.asarray(data["mom_work"])
    mean = beta[0] + beta[1] * (work == 2) + beta[2] * (work == 3) + beta[3] * (work == 4)
    return stats.norm.logpdf(data["kid_score"], mean, sigma).sum()


def _random_points(name, pm_model, rng, count):
    """``count`` points near the posterior: constrained values by free variable name."""
    reference = models.record(name)["reference"]
    points = []
    for _ in range(count):
        point = {}
        for rv in pm_model.free_RVs:
            shape = tuple(rv.shape.eval())
            stats_of = [reference[key] for key in reference if models.pymc_name(key)[0] == rv.name]
            if stats_of:
                mean = np.array([s["mean"] for s in stats_of]).reshape(shape)
                sd = np.array([s["sd"] for s in stats_of]).reshape(shape)
            else:  # theta_trans, which posteriordb does not report
                mean, sd = np.zeros(shape), np.ones(shape)
            value = mean + sd * rng.standard_normal(shape)
            point[rv.name] = np.abs(value) if rv.name in ("sigma", "tau") else value
        points.append(point)
    return points


def _log_density_differences(name, pm_model):
    """PyMC's log density minus the Stan program's, at four points near the posterior."""
    data = models.record(name)["data"]
    # the density of the constrained values, without the transforms' Jacobians
    logp = pm_model.compile_logp(jacobian=False)
    differences = []
    for values in _random_points(name, pm_model, np.random.default_rng(0), 4):
        point = {}
        for rv in pm_model.free_RVs:
            transform = pm_model.rvs_to_transforms.get(rv)
            value = values[rv.name]
            # the only transform here is the log of a positive scale
            point[pm_model.rvs_to_values[rv].name] = np.log(value) if transform else value
        differences.append(logp(point) - _stan_log_density(name, data, values))
    return np.array(differences)


def _constant(differences):
    """True when the differences agree to rounding: the densities differ by a constant."""
    return np.ptp(differences) < 1e-6 * max(1.0, np.abs(differences).max())


@pytest.mark.pymc
@pytest.mark.parametrize("name", NAMES)
def test_the_pymc_model_is_the_stan_program_up_to_a_constant(name):
    differences = _log_density_differences(name, models.POSTERIORS[name]())
    assert _constant(differences), differences


@pytest.mark.pymc
def test_a_wrong_prior_shows_as_a_log_density_that_is_not_the_stan_programs():
    # blr with sigma ~ HalfNormal(1), not Stan's normal(0, 10) on sigma > 0
    differences = _log_density_differences("sblrc-blr", models.blr(sigma_prior_sd=1.0))
    assert not _constant(differences), differences


@pytest.mark.pymc
@pytest.mark.parametrize("name", NAMES)
def test_stans_implicit_priors_are_flat_and_half_flat(name):
    pm_model = models.POSTERIORS[name]()
    kinds = {rv.name: rv.owner.op.name for rv in pm_model.free_RVs}
    expected = {
        "eight_schools-eight_schools_noncentered": {
            "theta_trans": "normal",
            "mu": "normal",
            "tau": "halfcauchy",
        },
        "earnings-earn_height": {"beta": "flat", "sigma": "half_flat"},
        "sblrc-blr": {"beta": "normal", "sigma": "halfnormal"},
        "kidiq_with_mom_work-kidscore_mom_work": {"beta": "flat", "sigma": "half_flat"},
    }[name]
    assert kinds == expected


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_summaries_say_where_they_come_from(name):
    record = models.record(name)
    assert record["source"]["repository"] == "stan-dev/posteriordb"
    assert len(record["source"]["commit"]) == 40
    assert (record["chains"], record["draws"]) == (10, 10_000)
    for summary in record["reference"].values():
        assert summary["sd"] > 0
        # well-mixed reference draws: MCSEs near sd / sqrt(10,000)
        assert 0 < summary["mcse_mean"] < 3 * summary["sd"] / np.sqrt(record["draws"])
        assert 0 < summary["mcse_sd"] < 3 * summary["sd"] / np.sqrt(record["draws"])


def _disagreements(reference, summaries):
    """Parameters whose reference mean or sd is beyond ``Z_LIMIT`` MCSEs of posteriordb's.

    Returns the messages and the set of PyMC variables compared.
    """
    compared, failures = set(), []
    for parameter, summary in summaries.items():
        variable, index = models.pymc_name(parameter)
        if variable not in reference.marginals:
            continue
        where = () if index is None else index
        marginal = reference[variable]
        z_mean = (np.asarray(marginal.mean)[where] - summary["mean"]) / summary["mcse_mean"]
        z_sd = (np.asarray(marginal.sd)[where] - summary["sd"]) / summary["mcse_sd"]
        compared.add(variable)
        if abs(z_mean) > Z_LIMIT or abs(z_sd) > Z_LIMIT:
            failures.append(f"{parameter}: z of mean {z_mean:.1f}, of sd {z_sd:.1f}")
    return failures, compared


@pytest.mark.pymc
@pytest.mark.parametrize("name", NAMES)
def test_the_derived_reference_agrees_with_posteriordb(name):
    pm_model = models.POSTERIORS[name]()
    reference = zoo.exact_reference(pm_model)
    assert isinstance(reference, zoo.Reference), getattr(reference, "reason", reference)
    summaries = models.record(name)["reference"]
    failures, compared = _disagreements(reference, summaries)
    # every free variable posteriordb reports is compared (it does not report theta_trans)
    reported = {models.pymc_name(p)[0] for p in summaries}
    assert {rv.name for rv in pm_model.free_RVs} & reported <= compared
    assert not failures, failures


@pytest.mark.pymc
def test_a_reference_six_mcse_away_from_posteriordb_is_flagged():
    name = "earnings-earn_height"
    reference = zoo.exact_reference(models.POSTERIORS[name]())
    summaries = models.record(name)["reference"]
    moved = {**summaries, "sigma": dict(summaries["sigma"])}
    moved["sigma"]["mean"] += 6 * moved["sigma"]["mcse_mean"]
    failures, _ = _disagreements(reference, moved)
    assert [failure.split(":")[0] for failure in failures] == ["sigma"]

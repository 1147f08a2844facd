"""Four posteriors of posteriordb written in PyMC from their Stan programs and data.

Each function reads its data from ``<posterior>.json`` beside this file (written by
``build.py``) and returns the ``pymc.Model``. Stan gives a parameter with no sampling
statement a uniform density on its declared support, so an unconstrained ``beta`` with
no prior is ``pm.Flat`` and a ``real<lower=0> sigma`` with no prior is ``pm.HalfFlat``;
a statement on a constrained parameter is the distribution truncated to the support
(``sigma ~ normal(0, 10)`` on ``sigma > 0`` is ``HalfNormal(10)``, ``tau ~ cauchy(0, 5)``
is ``HalfCauchy(5)``: the truncation constant does not depend on the parameter).

The Stan programs (stan-dev/posteriordb, ``posterior_database/models/stan/``; BSD-3,
see NOTICE):

- ``eight_schools_noncentered``: ``theta_trans ~ normal(0, 1)``, ``theta = theta_trans
  * tau + mu``, ``y ~ normal(theta, sigma)``, ``mu ~ normal(0, 5)``, ``tau ~ cauchy(0, 5)``
  with ``tau > 0``;
- ``earn_height``: ``earn ~ normal(beta[1] + beta[2] * height, sigma)``, no prior
  statements (``beta`` flat, ``sigma > 0`` flat);
- ``blr``: ``beta ~ normal(0, 10)``, ``sigma ~ normal(0, 10)`` with ``sigma > 0``, ``y ~
  normal(X * beta, sigma)``;
- ``kidscore_mom_work``: ``kid_score ~ normal(beta[1] + beta[2] * work2 + beta[3] *
  work3 + beta[4] * work4, sigma)`` with ``work_k = (mom_work == k)``, no prior
  statements.
"""

import json
from pathlib import Path

import numpy as np
import pymc as pm

HERE = Path(__file__).resolve().parent


def record(posterior):
    """The data and reference summaries of ``posterior`` (see ``build.py``)."""
    return json.loads((HERE / f"{posterior}.json").read_text())


def eight_schools_noncentered():
    """``eight_schools-eight_schools_noncentered`` (BDA3 Table 5.2 data)."""
    data = record("eight_schools-eight_schools_noncentered")["data"]
    coords = {"school": np.arange(1, data["J"] + 1)}
    with pm.Model(coords=coords) as model:
        sigma = pm.Data("sigma", np.asarray(data["sigma"], dtype=float), dims="school")
        theta_trans = pm.Normal("theta_trans", 0.0, 1.0, dims="school")
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        theta = pm.Deterministic("theta", theta_trans * tau + mu, dims="school")
        pm.Normal("y", theta, sigma, observed=np.asarray(data["y"], dtype=float), dims="school")
    return model


def earn_height():
    """``earnings-earn_height``: earnings on height, flat priors."""
    data = record("earnings-earn_height")["data"]
    coords = {"person": np.arange(1, data["N"] + 1), "coefficient": ["intercept", "height"]}
    with pm.Model(coords=coords) as model:
        height = pm.Data("height", np.asarray(data["height"], dtype=float), dims="person")
        beta = pm.Flat("beta", dims="coefficient")
        sigma = pm.HalfFlat("sigma")
        earn = np.asarray(data["earn"], dtype=float)
        pm.Normal("earn", beta[0] + beta[1] * height, sigma, observed=earn, dims="person")
    return model


def blr(sigma_prior_sd=10.0):
    """``sblrc-blr``: a Bayesian linear regression on five simulated predictors.

    ``sigma_prior_sd`` is Stan's 10; the tests change it to show that a wrong prior is
    seen.
    """
    data = record("sblrc-blr")["data"]
    coords = {"row": np.arange(1, data["N"] + 1), "predictor": np.arange(1, data["D"] + 1)}
    with pm.Model(coords=coords) as model:
        X = pm.Data("X", np.asarray(data["X"], dtype=float), dims=("row", "predictor"))
        beta = pm.Normal("beta", 0.0, 10.0, dims="predictor")
        sigma = pm.HalfNormal("sigma", sigma_prior_sd)
        y = np.asarray(data["y"], dtype=float)
        pm.Normal("y", pm.math.dot(X, beta), sigma, observed=y, dims="row")
    return model


def kidscore_mom_work():
    """``kidiq_with_mom_work-kidscore_mom_work``: a child's score on the mother's work."""
    data = record("kidiq_with_mom_work-kidscore_mom_work")["data"]
    mom_work = np.asarray(data["mom_work"])
    # Stan's transformed data: an indicator per working pattern 2, 3 and 4
    work = np.column_stack([np.ones(mom_work.size)] + [mom_work == k for k in (2, 3, 4)])
    coords = {"child": np.arange(1, data["N"] + 1), "coefficient": np.arange(1, 5)}
    with pm.Model(coords=coords) as model:
        design = pm.Data("work", work.astype(float), dims=("child", "coefficient"))
        beta = pm.Flat("beta", dims="coefficient")
        sigma = pm.HalfFlat("sigma")
        score = np.asarray(data["kid_score"], dtype=float)
        pm.Normal("kid_score", design @ beta, sigma, observed=score, dims="child")
    return model


#: posteriordb's posterior name -> the function building its PyMC model.
POSTERIORS = {
    "eight_schools-eight_schools_noncentered": eight_schools_noncentered,
    "earnings-earn_height": earn_height,
    "sblrc-blr": blr,
    "kidiq_with_mom_work-kidscore_mom_work": kidscore_mom_work,
}


def pymc_name(parameter):
    """``("beta", 1)`` for posteriordb's ``beta[2]`` (Stan counts from 1), ``("sigma", None)``."""
    name, bracket, index = parameter.partition("[")
    return (name, int(index.rstrip("]")) - 1) if bracket else (name, None)

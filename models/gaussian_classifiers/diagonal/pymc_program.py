"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the PyMC program.

``variance ~ InverseGamma(nu0 / 2, psi0 / 2)`` (class, feature) and ``mu ~ Normal(m0,
sqrt(variance / kappa0))``; a point's features are independent given its class, and its
log density is their sum (a ``CustomDist`` per point, so that the pointwise
log-likelihood is one number per point, as under the other members). Missing labels are
summed out by :func:`zoo.models.gaussian_classifiers.pymc_parts.sum_out_labels`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.pymc_parts import sum_out_labels

__all__ = ["program"]


def _independent_normals(value, mu, sd):
    """``sum_j log N(value_j | mu_j, sd_j)`` over the last axis."""
    return pm.logp(pm.Normal.dist(mu=mu, sigma=sd), value).sum(axis=-1)


def program(data: Data, prior) -> pm.Model:
    """Bayesian Gaussian naive Bayes; variable names and dims match the Gibbs output."""
    hyper = prior.resolve(data)
    labelled = data.labelled
    with pm.Model(coords=dict(data.coords)) as model:
        pi = pm.Dirichlet("pi", a=hyper.alpha, dims="class")
        variance = pm.InverseGamma(
            "variance", alpha=0.5 * hyper.nu0, beta=0.5 * hyper.psi0, dims=("class", "feature")
        )
        sd = pt.sqrt(variance)
        mu = pm.Normal(
            "mu", mu=hyper.m0, sigma=sd / np.sqrt(hyper.kappa0), dims=("class", "feature")
        )
        if labelled.size:
            y_seen = data.labels[labelled]
            pm.Categorical("labels", p=pi, observed=y_seen, dims="labelled")
            pm.CustomDist(
                "x_labelled",
                mu[y_seen],
                sd[y_seen],
                logp=_independent_normals,
                signature="(d),(d)->(d)",
                observed=data.x[labelled],
                dims=("labelled", "feature"),
            )
        sum_out_labels(data, pi, (mu, sd), _independent_normals, "(k),(k,d),(k,d)->(d)")
    return model

"""Bayesian linear discriminant analysis (``gda``): the PyMC program.

Sigma by the Bartlett decomposition and the unlabelled points with their labels summed
out (:mod:`zoo.models.gaussian_classifiers.pymc_parts`), then ``mu_k ~ MvNormal(m0,
Sigma / kappa0)`` and the labelled points ``x_i ~ MvNormal(mu_{y_i}, Sigma)``.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.prior import Prior
from zoo.models.gaussian_classifiers.pymc_parts import inverse_wishart, sum_out_labels

__all__ = ["program"]


def program(data: Data, prior: Prior) -> pm.Model:
    """Return the PyMC model; variable names and dims match the Gibbs output."""
    hyper = prior.resolve(data)
    labelled = data.labelled
    with pm.Model(coords=dict(data.coords)) as model:
        pi = pm.Dirichlet("pi", a=hyper.alpha, dims="class")
        sigma, _ = inverse_wishart("Sigma", hyper.nu0, hyper.psi0, dims=("feature", "feature_bis"))
        # Cholesky of Sigma itself (the Bartlett root is not triangular), for MvNormal.
        sigma_chol = pt.linalg.cholesky(sigma)
        mu = pm.MvNormal(
            "mu",
            mu=hyper.m0,
            chol=sigma_chol / np.sqrt(hyper.kappa0),
            dims=("class", "feature"),
        )
        if labelled.size:
            y_seen = data.labels[labelled]
            pm.Categorical("labels", p=pi, observed=y_seen, dims="labelled")
            pm.MvNormal(
                "x_labelled",
                mu=mu[y_seen],
                chol=sigma_chol,
                observed=data.x[labelled],
                dims=("labelled", "feature"),
            )

        def class_log_density(value, mu, chol):
            return pm.logp(pm.MvNormal.dist(mu=mu, chol=chol[..., None, :, :]), value)

        sum_out_labels(data, pi, (mu, sigma_chol), class_log_density, "(k),(k,d),(d,d)->(d)")
    return model

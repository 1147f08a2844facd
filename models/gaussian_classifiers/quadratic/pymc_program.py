"""Bayesian quadratic discriminant analysis (``qda``): the PyMC program.

One ``Sigma_k`` per class by the Bartlett decomposition
(:func:`zoo.models.gaussian_classifiers.pymc_parts.inverse_wishart`, batched over
classes: PyMC has no inverse-Wishart), then ``mu_k ~ MvNormal(m0, Sigma_k / kappa0)``.
Missing labels are summed out by
:func:`zoo.models.gaussian_classifiers.pymc_parts.sum_out_labels`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.pymc_parts import inverse_wishart, sum_out_labels

__all__ = ["program"]


def program(data: Data, prior) -> pm.Model:
    """Bayesian QDA; variable names and dims match the Gibbs output."""
    hyper = prior.resolve(data)
    labelled = data.labelled
    with pm.Model(coords=dict(data.coords)) as model:
        pi = pm.Dirichlet("pi", a=hyper.alpha, dims="class")
        sigma, _ = inverse_wishart(
            "Sigma",
            hyper.nu0,
            hyper.psi0,
            dims=("class", "feature", "feature_bis"),
            batch=data.n_classes,
        )
        sigma_chol = pt.linalg.cholesky(sigma)
        mu = pm.MvNormal(
            "mu", mu=hyper.m0, chol=sigma_chol / np.sqrt(hyper.kappa0), dims=("class", "feature")
        )
        if labelled.size:
            y_seen = data.labels[labelled]
            pm.Categorical("labels", p=pi, observed=y_seen, dims="labelled")
            pm.MvNormal(
                "x_labelled",
                mu=mu[y_seen],
                chol=sigma_chol[y_seen],
                observed=data.x[labelled],
                dims=("labelled", "feature"),
            )

        def class_log_density(value, mu, chol):
            return pm.logp(pm.MvNormal.dist(mu=mu, chol=chol), value)

        sum_out_labels(data, pi, (mu, sigma_chol), class_log_density, "(k),(k,d),(k,d,d)->(d)")
    return model

"""Per-class covariances: the PyMC programs of QDA and Gaussian naive Bayes.

QDA draws one ``Sigma_k`` per class by the Bartlett decomposition
(:func:`zoo.models.gda.pymc_program.inverse_wishart`, batched over classes: PyMC has no
inverse-Wishart), then ``mu_k ~ MvNormal(m0, Sigma_k / kappa0)``. Naive Bayes draws
``variance ~ InverseGamma(nu0 / 2, psi0 / 2)`` (class, feature) and ``mu ~ Normal(m0,
sqrt(variance / kappa0))``; a point's features are independent given its class, and
its log density is their sum (a ``CustomDist`` per point, so that the pointwise
log-likelihood is one number per point, as under the other structures). Missing labels
are summed out by :func:`zoo.models.gda.pymc_program.sum_out_labels`.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.gda.pymc_program import inverse_wishart, sum_out_labels
from zoo.models.gda.spec import Data

__all__ = ["diagonal_program", "full_program"]


def full_program(data: Data, prior) -> pm.Model:
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


def _independent_normals(value, mu, sd):
    """``sum_j log N(value_j | mu_j, sd_j)`` over the last axis."""
    return pm.logp(pm.Normal.dist(mu=mu, sigma=sd), value).sum(axis=-1)


def diagonal_program(data: Data, prior) -> pm.Model:
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

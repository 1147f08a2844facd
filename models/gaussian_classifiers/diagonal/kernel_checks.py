"""Bayesian Gaussian naive Bayes (``gaussian-nb``): Geweke's test's and invariance's parts.

As for the shared covariance (:mod:`zoo.models.gaussian_classifiers.linear.kernel_checks`):
the latents are the hidden labels, drawn from ``class_probability`` given the
parameters; given parameters and latents the data are new observed labels ``y_i ~
Categorical(pi)`` and ``x_ij ~ N(mu_{y_i j}, variance_{y_i j})`` for every point and
feature.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.gaussian_classifiers.collapsed_gibbs import state_from_latents
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.diagonal.spec import DiagonalPrior
from zoo.models.labelings import latent_labels, read_latent_labels, redrawn_labels

__all__ = ["KERNEL_CHECKS"]


def redraw(params, latents, data: Data, prior, rng: np.random.Generator) -> Data:
    """New observed labels and new features for every point; the hidden set kept."""
    mu = np.asarray(params["mu"], dtype=float)
    labels, classes = redrawn_labels(params["pi"], data, latents, rng)
    noise = rng.standard_normal(data.x.shape)
    x = mu[classes] + noise * np.sqrt(np.asarray(params["variance"], dtype=float))[classes]
    return Data(x, labels, classes=data.classes, features=data.features)


def setup() -> tuple[DiagonalPrior, dict]:
    """As the QDA setup, ``variance_kj ~ InvGamma(6, 1 / 2)`` (``nu0 = 12``, scales 1)."""
    prior = DiagonalPrior(alpha=[2.0, 1.0], m0=np.zeros(2), kappa0=0.5, nu0=12.0, psi0=np.ones(2))
    return prior, {"points": 6, "classes": 2, "features": 2, "hidden": 2}


KERNEL_CHECKS = KernelChecks(
    latents=latent_labels,
    redraw=redraw,
    state=state_from_latents,
    read=read_latent_labels,
    setup=setup,
)

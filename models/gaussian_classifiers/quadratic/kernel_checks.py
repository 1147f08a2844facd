"""Bayesian quadratic discriminant analysis (``qda``): Geweke's test's and invariance's parts.

As for the shared covariance (:mod:`zoo.models.gaussian_classifiers.linear.kernel_checks`):
the latents are the hidden labels, drawn from ``class_probability`` given the
parameters; given parameters and latents the data are new observed labels ``y_i ~
Categorical(pi)`` and ``x_i ~ N(mu_{y_i}, Sigma_{y_i})`` for every point, drawn through
the Cholesky factor of the class's ``Sigma``.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.gaussian_classifiers.collapsed_gibbs import state_from_latents
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.quadratic.spec import PerClassPrior
from zoo.models.labelings import latent_labels, read_latent_labels, redrawn_labels

__all__ = ["KERNEL_CHECKS"]


def redraw(params, latents, data: Data, prior, rng: np.random.Generator) -> Data:
    """New observed labels and new features for every point; the hidden set kept."""
    mu = np.asarray(params["mu"], dtype=float)
    labels, classes = redrawn_labels(params["pi"], data, latents, rng)
    noise = rng.standard_normal(data.x.shape)
    chol = np.linalg.cholesky(np.asarray(params["Sigma"], dtype=float))
    x = mu[classes] + np.einsum("nde,ne->nd", chol[classes], noise)
    return Data(x, labels, classes=data.classes, features=data.features)


def setup() -> tuple[PerClassPrior, dict]:
    """A proper NIW prior per class with ``nu0 = 12`` in 2-D; 6 points, the last 2 hidden.

    ``nu0 = 12 > d + 7`` gives every ``Sigma_k`` finite fourth moments, which the
    second-moment test functions' standard errors need; six points keep each data set
    weakly informative, so that the Geweke chain mixes.
    """
    prior = PerClassPrior(alpha=[2.0, 1.0], m0=np.zeros(2), kappa0=0.5, nu0=12.0, psi0=np.eye(2))
    return prior, {"points": 6, "classes": 2, "features": 2, "hidden": 2}


KERNEL_CHECKS = KernelChecks(
    latents=latent_labels,
    redraw=redraw,
    state=state_from_latents,
    read=read_latent_labels,
    setup=setup,
)

"""Bayesian linear discriminant analysis (``gda``): Geweke's test's and invariance's parts.

What :class:`zoo.KernelChecks` needs.

The kernel's state holds every point's label; the latents are the hidden ones. Given
``(pi, mu, Sigma)`` they are independent, each drawn from ``p(y_i = k | pi, mu, Sigma,
x_i)`` (``class_probability``). Given parameters and latents the data are: observed
labels ``y_i ~ Categorical(pi)``, then ``x_i ~ N(mu_{y_i}, Sigma)`` for every point,
drawn through the Cholesky factor of Sigma.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.gaussian_classifiers.collapsed_gibbs import state_from_latents
from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.prior import Prior
from zoo.models.labelings import latent_labels, read_latent_labels, redrawn_labels

__all__ = ["KERNEL_CHECKS"]


def redraw(params, latents, data: Data, prior: Prior, rng: np.random.Generator) -> Data:
    """New observed labels and new features for every point; the hidden set kept."""
    mu = np.asarray(params["mu"], dtype=float)
    chol = np.linalg.cholesky(np.asarray(params["Sigma"], dtype=float))
    labels, classes = redrawn_labels(params["pi"], data, latents, rng)
    x = mu[classes] + rng.standard_normal(data.x.shape) @ chol.T
    return Data(x, labels, classes=data.classes, features=data.features)


def setup() -> tuple[Prior, dict]:
    """A fully specified NIW prior with ``nu0 = 12`` in 2-D; 6 points, the last 2 hidden.

    ``nu0 = 12 > d + 7`` gives Sigma finite fourth moments (an inverse-Wishart's r-th
    moments exist for ``nu > d + 2r - 1``), which the second-moment test functions'
    standard errors need; six points keep each data set weakly informative, so that
    the Geweke chain mixes.
    """
    prior = Prior(alpha=[2.0, 1.0], m0=np.zeros(2), kappa0=0.5, nu0=12.0, psi0=np.eye(2))
    return prior, {"points": 6, "classes": 2, "features": 2, "hidden": 2}


KERNEL_CHECKS = KernelChecks(
    latents=latent_labels,
    redraw=redraw,
    state=state_from_latents,
    read=read_latent_labels,
    setup=setup,
)

"""Bayesian linear discriminant analysis (``gda``): data, prior and simulation.

The model, one covariance shared by all classes:

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``,
``Sigma ~ InvWishart(nu0, Psi0)``, ``mu_k | Sigma ~ N(m0, Sigma / kappa0)``,
``x_i | y_i = k ~ N(mu_k, Sigma)``,

with labels possibly missing (``-1``). The data type and the prior are the family's
(:mod:`zoo.models.gaussian_classifiers.data`, :mod:`zoo.models.gaussian_classifiers.prior`:
the shared covariance is the prior's base case); this module adds the simulation.
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.conditional import class_probability
from zoo.models.gaussian_classifiers.data import Data, simulation_design
from zoo.models.gaussian_classifiers.linalg import draw_inverse_wishart
from zoo.models.gaussian_classifiers.prior import Prior

__all__ = ["Data", "Prior", "simulate"]


def simulate(prior: Prior, rng: np.random.Generator, **size):
    """Draw ``(truth, data)`` from the prior predictive distribution.

    Parameters
    ----------
    prior : Prior
        ``m0`` and ``psi0`` default to ``0`` and the identity here (there are no data
        to derive them from).
    rng : numpy.random.Generator
    **size
        ``points``, ``classes``, ``features``, ``unlabelled`` and ``hidden``, checked by
        :func:`~zoo.models.gaussian_classifiers.data.simulation_design` (which says what
        each means).

    Returns
    -------
    truth : dict of str to ndarray
        ``pi``, ``mu``, ``Sigma`` and ``class_probability`` (of the hidden points, under
        the true parameters): the posterior variables, under the names both engines use.
    data : Data
    """
    design = simulation_design(prior, rng, **size)
    d = design.features
    nu0, psi0 = prior.simulation_hyperparameters(d)
    sigma = draw_inverse_wishart(nu0, np.linalg.cholesky(psi0), rng)
    sigma_chol = np.linalg.cholesky(sigma)
    mu = design.m0 + rng.standard_normal((design.classes, d)) @ sigma_chol.T / np.sqrt(
        prior.kappa0
    )
    y = design.labels(rng)
    x = mu[y] + rng.standard_normal((design.points, d)) @ sigma_chol.T
    hide = design.hide(rng)
    truth = {
        "pi": design.pi,
        "mu": mu,
        "Sigma": sigma,
        "class_probability": class_probability(x[hide], design.pi, mu, sigma),
    }
    return truth, design.data(x, y, hide)

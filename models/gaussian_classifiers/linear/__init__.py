"""Bayesian linear discriminant analysis (registry ``gda``): one covariance for all classes.

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``Sigma ~ InvWishart(nu0, Psi0)``,
``mu_k | Sigma ~ N(m0, Sigma / kappa0)``, ``x_i | y_i = k ~ N(mu_k, Sigma)``; labels may
be missing (``-1``).

Variables (both engines): ``pi`` (dim ``class``), ``mu`` (``class``, ``feature``),
``Sigma`` (``feature``, ``feature_bis``) and ``class_probability`` (``unlabelled``,
``class``): ``p(y_u = k | x_u, pi, mu, Sigma)`` for each unlabelled point, per draw.
The data type, the prior, the log-likelihood and the rest that the three Gaussian
classifiers share are the family's (:mod:`zoo.models.gaussian_classifiers`).
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import Model
from zoo.models.gaussian_classifiers.linear.faults import FAULTS
from zoo.models.gaussian_classifiers.linear.gibbs import kernel
from zoo.models.gaussian_classifiers.linear.kernel_checks import KERNEL_CHECKS
from zoo.models.gaussian_classifiers.linear.posterior import posterior
from zoo.models.gaussian_classifiers.linear.problems import default_problem, validation_problems
from zoo.models.gaussian_classifiers.linear.spec import Data, Prior, simulate
from zoo.models.gaussian_classifiers.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.labelings import MISSING

__all__ = [
    "MISSING",
    "MODEL",
    "Data",
    "Prior",
    "kernel",
    "log_likelihood",
    "pointwise_log_likelihood",
    "posterior",
    "program",
    "simulate",
]


def program(data: Data, prior: Prior):
    """The PyMC program, built by :mod:`.pymc_program` (imported when called)."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gaussian_classifiers.linear.pymc_program import program as build

    return build(data, prior)


def variables(prior: Prior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims."""
    return {
        "pi": ("class",),
        "mu": ("class", "feature"),
        "Sigma": ("feature", "feature_bis"),
        "class_probability": ("unlabelled", "class"),
    }


def simulation_setup() -> tuple[Prior, dict]:
    """A fully specified prior, 40 points in 2-D, 2 classes, a fifth of the labels hidden.

    ``m0 = 0``, ``Psi0 = I``, ``nu0 = d + 2 = 4``, ``kappa0 = 0.5``. Every hyperparameter
    is given: the default prior takes ``m0`` and ``Psi0`` from the data, which is fine
    for an analysis but not for simulation-based calibration, where the data must be
    drawn from the very prior the sampler conditions on (a data-dependent prior showed
    up as non-uniform ranks of Sigma at once). ``kappa0 = 0.5`` rather than the default
    0.01 keeps simulated class means within a few Sigma of each other, so that the
    classes overlap and the hidden labels stay uncertain.
    """
    prior = Prior(m0=np.zeros(2), kappa0=0.5, nu0=4.0, psi0=np.eye(2))
    return prior, {"points": 40, "classes": 2, "features": 2, "unlabelled": 0.2}


MODEL = Model(
    location="zoo.models.gaussian_classifiers.linear:MODEL",
    name="gda",
    Prior=Prior,
    Data=Data,
    simulate=simulate,
    posterior=posterior,
    program=program,
    kernel=kernel,
    default_problem=default_problem,
    variables=variables,
    simulation_setup=simulation_setup,
    log_likelihood=log_likelihood,
    pointwise_log_likelihood=pointwise_log_likelihood,
    validation_problems=validation_problems,
    summary="x | y=k ~ N(mu_k, Sigma), shared Sigma ~ InvWishart (LDA); labels may be missing",
    faults=FAULTS,
    kernel_checks=KERNEL_CHECKS,
)

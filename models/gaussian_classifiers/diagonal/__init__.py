"""Bayesian Gaussian naive Bayes (registry ``gaussian-nb``): a variance per class and feature.

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``variance_kj ~ InvGamma(nu0 / 2,
psi0_j / 2)``, ``mu_kj | variance_kj ~ N(m0_j, variance_kj / kappa0)``,
``x_ij | y_i = k ~ N(mu_kj, variance_kj)``; labels may be missing (``-1``).

Variables (both engines): ``pi`` (dim ``class``), ``mu`` (``class``, ``feature``),
``variance`` (``class``, ``feature``) and ``class_probability`` (``unlabelled``,
``class``). The data type, the log-likelihood and the per-class machinery it shares
with ``qda`` are the family's (:mod:`zoo.models.gaussian_classifiers`).
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import Model
from zoo.models.gaussian_classifiers.diagonal.faults import FAULTS
from zoo.models.gaussian_classifiers.diagonal.gibbs import kernel
from zoo.models.gaussian_classifiers.diagonal.kernel_checks import KERNEL_CHECKS
from zoo.models.gaussian_classifiers.diagonal.posterior import posterior
from zoo.models.gaussian_classifiers.diagonal.problems import default_problem, validation_problems
from zoo.models.gaussian_classifiers.diagonal.spec import Data, DiagonalPrior, simulate
from zoo.models.gaussian_classifiers.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.labelings import MISSING

__all__ = [
    "MISSING",
    "MODEL",
    "Data",
    "DiagonalPrior",
    "kernel",
    "log_likelihood",
    "pointwise_log_likelihood",
    "posterior",
    "program",
    "simulate",
]


def program(data: Data, prior: DiagonalPrior):
    """Naive Bayes's PyMC program, built by :mod:`.pymc_program` (imported when called)."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gaussian_classifiers.diagonal.pymc_program import program as build

    return build(data, prior)


def variables(prior: DiagonalPrior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims: a ``variance`` per class and feature."""
    return {
        "pi": ("class",),
        "mu": ("class", "feature"),
        "variance": ("class", "feature"),
        "class_probability": ("unlabelled", "class"),
    }


def simulation_setup() -> tuple[DiagonalPrior, dict]:
    """As ``gda``'s, ``variance_kj ~ InvGamma(2, 1 / 2)`` (``nu0 = 4``, scales 1).

    40 points in 2-D, 2 classes, a fifth of the labels hidden; every hyperparameter
    given, so that simulation-based calibration draws from the prior it conditions on.
    """
    prior = DiagonalPrior(m0=np.zeros(2), kappa0=0.5, nu0=4.0, psi0=np.ones(2))
    return prior, {"points": 40, "classes": 2, "features": 2, "unlabelled": 0.2}


MODEL = Model(
    location="zoo.models.gaussian_classifiers.diagonal:MODEL",
    name="gaussian-nb",
    Prior=DiagonalPrior,
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
    summary=(
        "x_j | y=k ~ N(mu_kj, variance_kj), InvGamma per class and feature (Gaussian naive "
        "Bayes); labels may be missing"
    ),
    faults=FAULTS,
    kernel_checks=KERNEL_CHECKS,
)

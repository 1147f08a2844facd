"""Bayesian quadratic discriminant analysis (registry name ``qda``): one covariance per class.

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``Sigma_k ~ InvWishart(nu0,
Psi0)``, ``mu_k | Sigma_k ~ N(m0, Sigma_k / kappa0)``, ``x_i | y_i = k ~ N(mu_k,
Sigma_k)``; labels may be missing (``-1``).

Variables (both engines): ``pi`` (dim ``class``), ``mu`` (``class``, ``feature``),
``Sigma`` (``class``, ``feature``, ``feature_bis``) and ``class_probability``
(``unlabelled``, ``class``). The data type, the log-likelihood and the per-class
machinery it shares with ``gaussian-nb`` are the family's
(:mod:`zoo.models.gaussian_classifiers`).
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import Model
from zoo.models.gaussian_classifiers.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.gaussian_classifiers.quadratic.faults import FAULTS
from zoo.models.gaussian_classifiers.quadratic.gibbs import kernel
from zoo.models.gaussian_classifiers.quadratic.kernel_checks import KERNEL_CHECKS
from zoo.models.gaussian_classifiers.quadratic.posterior import posterior
from zoo.models.gaussian_classifiers.quadratic.problems import (
    default_problem,
    validation_problems,
)
from zoo.models.gaussian_classifiers.quadratic.spec import Data, PerClassPrior, simulate
from zoo.models.labelings import MISSING

__all__ = [
    "MISSING",
    "MODEL",
    "Data",
    "PerClassPrior",
    "kernel",
    "log_likelihood",
    "pointwise_log_likelihood",
    "posterior",
    "program",
    "simulate",
]


def program(data: Data, prior: PerClassPrior):
    """QDA's PyMC program, built by :mod:`.pymc_program` (imported when called)."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gaussian_classifiers.quadratic.pymc_program import program as build

    return build(data, prior)


def variables(prior: PerClassPrior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims: one ``Sigma`` per class."""
    return {
        "pi": ("class",),
        "mu": ("class", "feature"),
        "Sigma": ("class", "feature", "feature_bis"),
        "class_probability": ("unlabelled", "class"),
    }


def simulation_setup() -> tuple[PerClassPrior, dict]:
    """As ``gda``'s, one inverse-Wishart per class (``nu0 = 4``, ``Psi0 = I``).

    40 points in 2-D, 2 classes, a fifth of the labels hidden; every hyperparameter
    given, so that simulation-based calibration draws from the prior it conditions on.
    """
    prior = PerClassPrior(m0=np.zeros(2), kappa0=0.5, nu0=4.0, psi0=np.eye(2))
    return prior, {"points": 40, "classes": 2, "features": 2, "unlabelled": 0.2}


MODEL = Model(
    location="zoo.models.gaussian_classifiers.quadratic:MODEL",
    name="qda",
    Prior=PerClassPrior,
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
    summary="x | y=k ~ N(mu_k, Sigma_k), one Sigma_k ~ InvWishart per class (QDA); labels missing",
    faults=FAULTS,
    kernel_checks=KERNEL_CHECKS,
)

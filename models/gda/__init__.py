"""Bayesian Gaussian classifiers in three covariance structures, one model each.

- :data:`MODEL` (``gda``): linear discriminant analysis, one covariance shared by all
  classes (below);
- :data:`QDA` (``qda``): quadratic discriminant analysis, a normal-inverse-Wishart
  ``(mu_k, Sigma_k)`` per class (:mod:`zoo.models.gda.per_class`);
- :data:`GAUSSIAN_NB` (``gaussian-nb``): Gaussian naive Bayes, a normal-inverse-gamma
  ``(mu_kj, variance_kj)`` per class and feature.

They share the data type, the hyperparameters and their data-scaled defaults, the
normal-inverse-Wishart formulas, the enumeration over labelings, the linear algebra
and the PyMC program's handling of missing labels; ``docs/design.md`` ("The Gaussian
classifiers") says why one package.

The shared structure:

``pi ~ Dirichlet(alpha)``, ``y_i ~ Categorical(pi)``, ``Sigma ~ InvWishart(nu0, Psi0)``,
``mu_k | Sigma ~ N(m0, Sigma / kappa0)``, ``x_i | y_i = k ~ N(mu_k, Sigma)``; labels may
be missing (``-1``).

Variables (both engines): ``pi`` (dim ``class``), ``mu`` (``class``, ``feature``),
``Sigma`` (``feature``, ``feature_bis``) and ``class_probability`` (``unlabelled``,
``class``): ``p(y_u = k | x_u, pi, mu, Sigma)`` for each unlabelled point, per draw.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import Model
from zoo.models.gda.faults import FAULTS
from zoo.models.gda.gibbs import kernel
from zoo.models.gda.kernel_checks import KERNEL_CHECKS
from zoo.models.gda.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.gda.per_class_faults import faults
from zoo.models.gda.per_class_gibbs import make_per_class_kernel
from zoo.models.gda.per_class_kernel_checks import DIAGONAL_KERNEL_CHECKS, FULL_KERNEL_CHECKS
from zoo.models.gda.per_class_posterior import diagonal_posterior, full_posterior
from zoo.models.gda.per_class_problems import (
    diagonal_default_problem,
    diagonal_validation_problems,
    full_default_problem,
    full_validation_problems,
)
from zoo.models.gda.per_class_spec import DiagonalPrior, PerClassPrior, simulate_per_class
from zoo.models.gda.posterior import posterior
from zoo.models.gda.problems import default_problem, validation_problems
from zoo.models.gda.spec import Data, Prior, simulate
from zoo.models.labelings import MISSING

__all__ = [
    "GAUSSIAN_NB",
    "MISSING",
    "MODEL",
    "QDA",
    "Data",
    "DiagonalPrior",
    "PerClassPrior",
    "Prior",
    "kernel",
    "log_likelihood",
    "pointwise_log_likelihood",
    "posterior",
    "program",
    "simulate",
]


def program(data: Data, prior: Prior):
    """The PyMC program, built by :func:`zoo.models.gda.pymc_program.program`."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gda.pymc_program import program as build

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
    location="zoo.models.gda:MODEL",
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


def full_program(data: Data, prior: PerClassPrior):
    """QDA's PyMC program, built by :mod:`zoo.models.gda.per_class_pymc_program`."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gda.per_class_pymc_program import full_program as build

    return build(data, prior)


def diagonal_program(data: Data, prior: DiagonalPrior):
    """Naive Bayes's PyMC program, built by :mod:`zoo.models.gda.per_class_pymc_program`."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.gda.per_class_pymc_program import diagonal_program as build

    return build(data, prior)


def full_variables(prior: PerClassPrior) -> dict[str, tuple[str, ...]]:
    """QDA's posterior variables and their dims: one ``Sigma`` per class."""
    return {
        "pi": ("class",),
        "mu": ("class", "feature"),
        "Sigma": ("class", "feature", "feature_bis"),
        "class_probability": ("unlabelled", "class"),
    }


def diagonal_variables(prior: DiagonalPrior) -> dict[str, tuple[str, ...]]:
    """Naive Bayes's posterior variables and their dims: a ``variance`` per class and feature."""
    return {
        "pi": ("class",),
        "mu": ("class", "feature"),
        "variance": ("class", "feature"),
        "class_probability": ("unlabelled", "class"),
    }


def full_simulation_setup() -> tuple[PerClassPrior, dict]:
    """As :func:`simulation_setup`, one inverse-Wishart per class (``nu0 = 4``, ``Psi0 = I``)."""
    prior = PerClassPrior(m0=np.zeros(2), kappa0=0.5, nu0=4.0, psi0=np.eye(2))
    return prior, {"points": 40, "classes": 2, "features": 2, "unlabelled": 0.2}


def diagonal_simulation_setup() -> tuple[DiagonalPrior, dict]:
    """As :func:`simulation_setup`, ``variance_kj ~ InvGamma(2, 1 / 2)`` (``nu0 = 4``)."""
    prior = DiagonalPrior(m0=np.zeros(2), kappa0=0.5, nu0=4.0, psi0=np.ones(2))
    return prior, {"points": 40, "classes": 2, "features": 2, "unlabelled": 0.2}


QDA = Model(
    location="zoo.models.gda:QDA",
    name="qda",
    Prior=PerClassPrior,
    Data=Data,
    simulate=simulate_per_class,
    posterior=full_posterior,
    program=full_program,
    kernel=make_per_class_kernel(diagonal=False),
    default_problem=full_default_problem,
    variables=full_variables,
    simulation_setup=full_simulation_setup,
    log_likelihood=log_likelihood,
    pointwise_log_likelihood=pointwise_log_likelihood,
    validation_problems=full_validation_problems,
    summary="x | y=k ~ N(mu_k, Sigma_k), one Sigma_k ~ InvWishart per class (QDA); labels missing",
    faults=faults(diagonal=False),
    kernel_checks=FULL_KERNEL_CHECKS,
)

GAUSSIAN_NB = Model(
    location="zoo.models.gda:GAUSSIAN_NB",
    name="gaussian-nb",
    Prior=DiagonalPrior,
    Data=Data,
    simulate=simulate_per_class,
    posterior=diagonal_posterior,
    program=diagonal_program,
    kernel=make_per_class_kernel(diagonal=True),
    default_problem=diagonal_default_problem,
    variables=diagonal_variables,
    simulation_setup=diagonal_simulation_setup,
    log_likelihood=log_likelihood,
    pointwise_log_likelihood=pointwise_log_likelihood,
    validation_problems=diagonal_validation_problems,
    summary=(
        "x_j | y=k ~ N(mu_kj, variance_kj), InvGamma per class and feature (Gaussian naive "
        "Bayes); labels may be missing"
    ),
    faults=faults(diagonal=True),
    kernel_checks=DIAGONAL_KERNEL_CHECKS,
)

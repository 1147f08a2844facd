"""Beta-Binomial, fixed or with the BDA3 hyperprior ``p(a, b) ∝ (a + b)^(-5/2)``.

Variables (both engines): ``theta`` (dim ``group``); with the hierarchical prior also
``a``, ``b``, ``logit_mean = log(a / b)`` and ``log_concentration = log(a + b)``.
"""

from __future__ import annotations

from zoo.core.contract import Model
from zoo.models.beta_binomial.faults import FAULTS
from zoo.models.beta_binomial.gibbs import kernel
from zoo.models.beta_binomial.kernel_checks import KERNEL_CHECKS
from zoo.models.beta_binomial.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.beta_binomial.posterior import posterior
from zoo.models.beta_binomial.problems import default_problem, validation_problems
from zoo.models.beta_binomial.spec import Data, Prior, augment, simulate

__all__ = [
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
    """The PyMC program, built by :func:`zoo.models.beta_binomial.pymc_program.program`."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.beta_binomial.pymc_program import program as build

    return build(data, prior)


def variables(prior: Prior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims under ``prior``."""
    if not prior.hierarchical:
        return {"theta": ("group",)}
    return {
        "a": (),
        "b": (),
        "logit_mean": (),
        "log_concentration": (),
        "theta": ("group",),
    }


def simulation_setup() -> tuple[Prior, dict]:
    """A proper hierarchical prior (a + b >= 1) and 12 groups of 25 trials."""
    return Prior(min_concentration=1.0), {"groups": 12, "trials": 25}


MODEL = Model(
    location="zoo.models.beta_binomial:MODEL",
    name="beta-binomial",
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
    summary="theta_j ~ Beta(a, b), y_j ~ Binomial(n_j, theta_j); fixed or BDA3 hyperprior",
    faults=FAULTS,
    kernel_checks=KERNEL_CHECKS,
    augment=augment,
)

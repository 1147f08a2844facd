"""Beta-Binomial, fixed or with the BDA3 hyperprior ``p(a, b) ∝ (a + b)^(-5/2)``.

Variables (both engines): ``theta`` (dim ``group``); with the hierarchical prior also
``a``, ``b``, ``logit_mean = log(a / b)`` and ``log_concentration = log(a + b)``.
"""

from __future__ import annotations

from zoo.core.contract import Model
from zoo.datasets import rat_tumours
from zoo.models.beta_binomial.gibbs import kernel, make_kernel
from zoo.models.beta_binomial.kernel_checks import KERNEL_CHECKS
from zoo.models.beta_binomial.loglik import log_likelihood
from zoo.models.beta_binomial.posterior import posterior
from zoo.models.beta_binomial.spec import Data, Prior, simulate
from zoo.models.beta_binomial.validation import validation_problems

__all__ = [
    "MODEL",
    "Data",
    "Prior",
    "kernel",
    "log_likelihood",
    "posterior",
    "program",
    "simulate",
]


def program(data: Data, prior: Prior):
    """The PyMC program (imported on first use: PyMC is slow to import)."""
    from zoo.models.beta_binomial.program import program as build

    return build(data, prior)


def default_problem() -> tuple[Data, Prior]:
    """The rat tumour data (BDA3 Table 5.1) under the BDA3 hyperprior."""
    rats = rat_tumours()
    return Data(rats["tumours"], rats["rats"], groups=rats["experiment"]), Prior()


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
    validation_problems=validation_problems,
    summary="theta_j ~ Beta(a, b), y_j ~ Binomial(n_j, theta_j); fixed or BDA3 hyperprior",
    faults={
        "swapped-a-b": make_kernel(swap_ab=True),
        "failures-as-trials": make_kernel(failures_as_trials=True),
        "jacobian-omitted": make_kernel(jacobian=False),
    },
    kernel_checks=KERNEL_CHECKS,
)

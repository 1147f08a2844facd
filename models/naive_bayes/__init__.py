"""Dirichlet-prior Naive Bayes, multinomial or Bernoulli event model, semi-supervised.

Variables (both engines): ``pi`` (dim ``class``), ``phi`` (dims ``class``,
``feature``) and ``class_probability`` (dims ``unlabelled``, ``class``): the
probability ``p(y_u = k | pi, phi, x_u)`` of each class for each unlabelled document,
one value per draw. The event model is a field of :class:`Data`; a label of ``-1``
marks a document whose class is missing.
"""

from __future__ import annotations

from zoo.core.contract import Model
from zoo.models.labelings import MISSING
from zoo.models.naive_bayes.faults import FAULTS
from zoo.models.naive_bayes.gibbs import kernel
from zoo.models.naive_bayes.kernel_checks import KERNEL_CHECKS
from zoo.models.naive_bayes.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.naive_bayes.posterior import posterior
from zoo.models.naive_bayes.problems import default_problem, validation_problems
from zoo.models.naive_bayes.spec import Data, Prior, augment, simulate

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
    """The PyMC program, built by :func:`zoo.models.naive_bayes.pymc_program.program`."""
    # deferred: PyMC is slow to import, and only the PyMC engine needs it.
    from zoo.models.naive_bayes.pymc_program import program as build

    return build(data, prior)


def variables(prior: Prior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims (the same for both event models)."""
    return {
        "pi": ("class",),
        "phi": ("class", "feature"),
        "class_probability": ("unlabelled", "class"),
    }


def simulation_setup() -> tuple[Prior, dict]:
    """A symmetric Dir(1) prior; 2 classes, 4 words, 12 documents of which 3 unlabelled."""
    return Prior(alpha=1.0, beta=1.0), {
        "classes": 2,
        "features": 4,
        "documents": 12,
        "unlabelled": 3,
        "length": 10,
    }


MODEL = Model(
    location="zoo.models.naive_bayes:MODEL",
    name="naive-bayes",
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
    summary="pi ~ Dir(alpha), phi ~ Dir(beta) or Beta; multinomial/Bernoulli NB, missing labels",
    faults=FAULTS,
    kernel_checks=KERNEL_CHECKS,
    augment=augment,
)

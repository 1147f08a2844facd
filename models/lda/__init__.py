"""Latent Dirichlet allocation (LDA), the topic model.

``theta_d ~ Dir(alpha)``, ``phi_k ~ Dir(beta)``, ``z_i ~ Cat(theta_{d_i})``,
``w_i ~ Cat(phi_{z_i})`` (Blei, Ng & Jordan 2003; Griffiths & Steyvers 2004).

Variables (both engines): ``theta`` (dims ``document``, ``topic``), ``phi`` (``topic``,
``word``), and the label-invariant ``doc_word`` (``doc_word_pair``): ``sum_k theta_dk
phi_kw`` for tracked (document, word) pairs, and ``coassignment`` (``token_pair``):
``sum_k r_ik r_jk`` with ``r_ik = p(z_i = k | theta, phi, w)`` for tracked token pairs,
whose posterior mean is ``P(z_i = z_j | w)``. Which pairs are tracked is set in
:class:`Data`. With a symmetric ``alpha`` the topic labels are exchangeable and only
the label-invariant variables are compared (:func:`comparable`).
"""

from __future__ import annotations

from zoo.core.contract import DerivedVariables, Model
from zoo.models.lda.corpus import Corpus
from zoo.models.lda.counts import State
from zoo.models.lda.faults import FAULTS as FAULT_KERNELS
from zoo.models.lda.gibbs import (
    counts_from_topics,
    gibbs_kernel,
    infer_documents,
    kernel,
    make_kernel,
    metropolis_kernel,
    threaded_gibbs_kernel,
    threaded_kernel,
    threaded_metropolis_kernel,
)
from zoo.models.lda.invariants import label_invariants
from zoo.models.lda.kernel_checks import KERNEL_CHECKS
from zoo.models.lda.loglik import log_likelihood, pointwise_log_likelihood
from zoo.models.lda.pairs import TrackedPairs
from zoo.models.lda.posterior import posterior
from zoo.models.lda.problems import default_problem, validation_problems
from zoo.models.lda.spec import Data, Prior, augment, simulate
from zoo.models.lda.sweeps import Fault, sweep

__all__ = [
    "MODEL",
    "Corpus",
    "Data",
    "Fault",
    "Prior",
    "State",
    "TrackedPairs",
    "counts_from_topics",
    "gibbs_kernel",
    "infer_documents",
    "kernel",
    "label_invariants",
    "make_kernel",
    "metropolis_kernel",
    "posterior",
    "program",
    "simulate",
    "sweep",
    "threaded_gibbs_kernel",
    "threaded_kernel",
    "threaded_metropolis_kernel",
]

LABEL_INVARIANT = ("doc_word", "coassignment")


def program(data: Data, prior: Prior):
    """The PyMC program (imported on first use: PyMC is slow to import)."""
    from zoo.models.lda.pymc_program import program as build  # deferred: PyMC is slow to import

    return build(data, prior)


def variables(prior: Prior) -> dict[str, tuple[str, ...]]:
    """Posterior variables and their dims (their sizes come from the Data's coords)."""
    return {
        "theta": ("document", "topic"),
        "phi": ("topic", "word"),
        "doc_word": ("doc_word_pair",),
        "coassignment": ("token_pair",),
    }


def comparable(prior: Prior) -> list[str]:
    """The label-invariant variables, and theta and phi when alpha is asymmetric.

    With a symmetric alpha the posterior is invariant under relabelling the topics;
    chains of either engine settle near one labeling on real corpora, so theta and phi
    from two correct runs need not agree (R-hat near 1.8, docs/design.md "Pitfalls").
    """
    if prior.symmetric:
        return list(LABEL_INVARIANT)
    return list(variables(prior))


def _label_invariants(data: Data, prior: Prior, draws) -> dict:
    """``doc_word`` and ``coassignment`` from draws of ``theta`` and ``phi``."""
    return label_invariants(data, draws["theta"], draws["phi"])


def simulation_setup() -> tuple[Prior, dict]:
    """A symmetric Dir(1) prior; 2 topics, 4 words, 3 documents of 3 tokens (N = 9)."""
    return Prior(alpha=1.0, beta=1.0), {"topics": 2, "words": 4, "documents": 3, "length": 3}


MODEL = Model(
    location="zoo.models.lda:MODEL",
    name="lda",
    Prior=Prior,
    Data=Data,
    simulate=simulate,
    posterior=posterior,
    program=program,
    kernel=kernel,
    default_problem=default_problem,
    variables=variables,
    simulation_setup=simulation_setup,
    summary="theta_d ~ Dir(alpha), phi_k ~ Dir(beta), z ~ Cat(theta), w ~ Cat(phi_z); topic model",
    faults=FAULT_KERNELS,
    kernel_checks=KERNEL_CHECKS,
    augment=augment,
    comparable=comparable,
    log_likelihood=log_likelihood,
    pointwise_log_likelihood=pointwise_log_likelihood,
    validation_problems=validation_problems,
    derived=DerivedVariables(LABEL_INVARIANT, ("theta", "phi"), _label_invariants),
)

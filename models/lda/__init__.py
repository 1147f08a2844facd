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

import numpy as np

from zoo.core.contract import Model
from zoo.models.lda.gibbs import (
    FAULTS,
    State,
    counts_from_topics,
    infer_documents,
    kernel,
    make_kernel,
    sweep,
)
from zoo.models.lda.kernel_checks import KERNEL_CHECKS
from zoo.models.lda.loglik import log_likelihood
from zoo.models.lda.posterior import label_invariants, posterior
from zoo.models.lda.spec import Data, Prior, simulate
from zoo.models.lda.validation import validation_problems

__all__ = [
    "MODEL",
    "Data",
    "Prior",
    "State",
    "counts_from_topics",
    "infer_documents",
    "kernel",
    "label_invariants",
    "posterior",
    "program",
    "simulate",
    "sweep",
]

LABEL_INVARIANT = ("doc_word", "coassignment")


def program(data: Data, prior: Prior):
    """The PyMC program (imported on first use: PyMC is slow to import)."""
    from zoo.models.lda.program import program as build

    return build(data, prior)


# The "bank" example of Steyvers & Griffiths ("Probabilistic topic models", 2007,
# figure 2): "bank" is shared by a money topic and a river topic.
_BANK_VOCABULARY = ("money", "loan", "bank", "river", "stream")
_BANK_DOCUMENTS = {
    "finance": ("money", "bank", "loan", "money"),
    "nature": ("river", "stream", "bank", "river"),
    "mixed": ("bank", "money", "river", "stream"),
}


def default_problem() -> tuple[Data, Prior]:
    """Three four-word documents about money and rivers, two topics, asymmetric alpha.

    N = 12 tokens, so the exact reference enumerates 2^12 = 4096 assignments. The prior
    ``alpha = (1, 0.5)`` is asymmetric on purpose: topic 0 is the common topic and
    topic 1 the rare one, so topic labels are not exchangeable and ``theta`` and
    ``phi`` are checked along with the label-invariant ``doc_word`` (all 15
    document-word pairs) and ``coassignment`` (all 66 token pairs). On a corpus this
    small both samplers move freely between topic labelings, so the asymmetric
    posterior marginals are what both must reproduce.

    Pseudo-counts below 1 (``beta = 0.5``) make the check sensitive: the planted bugs
    shift counts by one token, which matters against counts of a few tokens. Computed
    exactly (the stationary distribution of the systematic-scan chain over all 4096
    states), leaving the token in its own counts moves a co-assignment probability by
    0.069 (0.14 of its sd), against 0.040 with ``alpha = (2, 0.5)``; smaller
    pseudo-counts (0.25) move it more but cost NUTS its effective sample size (tail
    ESS near 260 of 4000 draws).
    """
    index = {word: w for w, word in enumerate(_BANK_VOCABULARY)}
    corpus = [[index[word] for word in words] for words in _BANK_DOCUMENTS.values()]
    data = Data(
        corpus,
        topics=2,
        vocabulary=np.array(_BANK_VOCABULARY),
        documents=np.array(list(_BANK_DOCUMENTS)),
    )
    return data, Prior(alpha=np.array([1.0, 0.5]), beta=0.5)


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
    from two correct runs need not agree (R-hat near 1.8, DESIGN.md "Pitfalls").
    """
    if prior.symmetric:
        return list(LABEL_INVARIANT)
    return list(variables(prior))


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
    faults={name: make_kernel(fault=name) for name in FAULTS},
    kernel_checks=KERNEL_CHECKS,
    comparable=comparable,
    log_likelihood=log_likelihood,
    validation_problems=validation_problems,
)

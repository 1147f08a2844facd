"""LDA: what Geweke's test and the invariance check need (zoo.KernelChecks).

The kernel's state is the topic of every token (with the counts it implies); ``theta``
and ``phi`` are integrated out and brought back by ``draw``. Given ``(theta, phi)`` the
topics are independent, ``p(z_i = k | theta, phi, w_i) ∝ theta_dk phi_k,w_i``
(Griffiths & Steyvers 2004, eq. 1 before integrating), and given topics the words are
``w_i ~ Categorical(phi_{z_i})``, with document lengths and tracked pairs kept.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.labelings import categorical
from zoo.models.lda.counts import State
from zoo.models.lda.gibbs import counts_from_topics
from zoo.models.lda.spec import Data, Prior

__all__ = ["KERNEL_CHECKS"]


def latents(params, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
    """Every token's topic from its exact conditional given ``theta`` and ``phi``."""
    theta = np.asarray(params["theta"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    weights = theta[data.token_document] * phi[:, data.token_word].T
    weights /= weights.sum(axis=1, keepdims=True)
    return {"topic": categorical(weights, rng)}


def redraw(params, latents, data: Data, prior: Prior, rng: np.random.Generator) -> Data:
    """New words for every token from its topic's word distribution."""
    phi = np.asarray(params["phi"], dtype=float)
    return data.with_words(categorical(phi[latents["topic"]], rng))


def state(latents, data: Data, prior: Prior) -> State:
    """Topics and their count tables for ``data``."""
    return counts_from_topics(data, latents["topic"])


def read(state: State, data: Data) -> dict:
    """Every token's topic."""
    return {"topic": np.asarray(state.topic, dtype=np.int64)}


def setup() -> tuple[Prior, dict]:
    """An asymmetric prior, 2 topics, 4 words, 3 documents of 3 tokens.

    ``alpha = (1, 0.5)`` and ``beta = (1, 1, 0.5, 2)``: a sampler that treats either
    as symmetric, or forgets to sum ``beta`` over the vocabulary, moves ``theta`` or
    ``phi``. Nine tokens keep each corpus weakly informative, so the Geweke chain mixes.
    """
    prior = Prior(alpha=[1.0, 0.5], beta=[1.0, 1.0, 0.5, 2.0])
    return prior, {"topics": 2, "words": 4, "documents": 3, "length": 3}


KERNEL_CHECKS = KernelChecks(
    latents=latents,
    redraw=redraw,
    state=state,
    read=read,
    setup=setup,
    variables=("theta", "phi", "doc_word"),
)

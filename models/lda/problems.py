"""LDA: the tiny corpora ``zoo check`` and ``zoo validate`` run on, with exact answers."""

from __future__ import annotations

import numpy as np

from zoo.models.lda.spec import Data, Prior

__all__ = ["default_problem", "validation_problems"]

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


def validation_problems() -> list[tuple[str, Data, Prior]]:
    """Three tiny corpora, each exactly enumerable (at most 2^14 assignments).

    - ``bank``: the default problem (Steyvers & Griffiths's "bank" example, 2 topics,
      asymmetric alpha = (1, 0.5), beta = 0.5; 12 tokens).
    - ``symmetric-three-topics``: K = 3 and a symmetric prior, so only the label-invariant
      ``doc_word`` and ``coassignment`` are judged; an empty document and a word shared
      by three documents (3^8 = 6561 assignments).
    - ``asymmetric-beta-four-topics``: K = 4 (the fast sweep's sparse path) with a
      per-word ``beta = (0.2, 0.5, 1, 2)``: a sampler that uses ``V * mean(beta)`` or a
      scalar beta where the prior is per word moves ``phi`` (4^7 = 16384 assignments).
    """
    bank, bank_prior = default_problem()
    three = Data([[0, 1, 1], [], [2, 0, 3], [3, 1]], topics=3)
    four = Data([[0, 1, 1], [2, 0], [3, 1]], topics=4)
    return [
        ("bank", bank, bank_prior),
        ("symmetric-three-topics", three, Prior(alpha=0.8, beta=0.6)),
        (
            "asymmetric-beta-four-topics",
            four,
            Prior(alpha=[1.0, 0.6, 0.4, 0.3], beta=[0.2, 0.5, 1.0, 2.0]),
        ),
    ]

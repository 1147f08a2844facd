"""LDA: the tiny corpora ``zoo validate`` checks a sampler on, against exact answers."""

from __future__ import annotations

from zoo.models.lda.spec import Data, Prior

__all__ = ["validation_problems"]


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
    from zoo.models.lda import default_problem

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

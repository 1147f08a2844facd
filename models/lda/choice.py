"""Which exact LDA sampler the zoo runs by default, from the corpus and K.

Two exact samplers move the same state (:mod:`zoo.models.lda.gibbs`): the collapsed
Gibbs sweep (:func:`~zoo.models.lda.sweeps.sweep`: a draw from every token's full
conditional, O(topics of the word) per token with SparseLDA's buckets) and the
Metropolis-Hastings sweep (:func:`~zoo.models.lda.metropolis.metropolis_sweep`: O(1)
per token whatever K, but a token moves less per sweep). Which reaches a good model
first is measured as CPU seconds to 99% of the way from a random start to the best log
joint any contender reached (``bench/lda_time_to_quality.py``;
``docs/performance.md, "LDA"`` has the tables the rule below comes from).

The rule: the Gibbs sweep below :data:`METROPOLIS_FROM_TOPICS` topics, the
Metropolis-Hastings sweep with :data:`METROPOLIS_CYCLES` cycles from there up. The
Gibbs sweep's cost per token grows with the topics a word holds, which grows with K
until it is bounded by the word's frequency; the Metropolis-Hastings sweep's does not,
so past some K its cheaper sweeps outweigh its slower mixing. Measured on Reuters (one
seed; CPU seconds to 99%, Gibbs against Metropolis-Hastings with 2 cycles): 0.84 against
1.65 at K = 20, 0.82 against 1.32 at 100, 0.58 against 0.96 at 1,000, 4.00 against 3.62
at 3,000, and at 10,000 the Gibbs sweep had not got there in 8 CPU seconds where the
Metropolis-Hastings sweep took 6.33. On a larger corpus the crossing may come at a
lower K (the Gibbs sweep's cost per token grows faster with K there); not measured.
"""

from __future__ import annotations

from typing import NamedTuple

from zoo.core.arguments import as_int
from zoo.models.lda.metropolis import DEFAULT_CYCLES

__all__ = ["METROPOLIS_CYCLES", "METROPOLIS_FROM_TOPICS", "SamplerChoice", "choose_sampler"]

#: From this many topics up the zoo runs the Metropolis-Hastings sweep by default.
METROPOLIS_FROM_TOPICS = 3_000

#: Cycles of (doc proposal, word proposal) per token and sweep when the rule picks the
#: Metropolis-Hastings sweep: the sweep's own default.
METROPOLIS_CYCLES = DEFAULT_CYCLES


class SamplerChoice(NamedTuple):
    """The sampler the rule picked, and why.

    Attributes
    ----------
    sampler : {"gibbs", "metropolis"}
        As :func:`~zoo.models.lda.gibbs.make_kernel`'s ``sampler``.
    cycles : int
        Cycles per token and sweep ("metropolis"; 1 for "gibbs", which has none).
    reason : str
        The rule's clause that decided, with the numbers it read.
    """

    sampler: str
    cycles: int
    reason: str

    @property
    def label(self) -> str:
        """``"gibbs"`` or ``"metropolis (cycles=c)"``: what ran, in a few words."""
        if self.sampler == "gibbs":
            return "gibbs"
        return f"metropolis (cycles={self.cycles})"


def choose_sampler(*, n_topics: int, n_tokens: int) -> SamplerChoice:
    """The exact sampler that reaches a good model first for K topics and N tokens.

    Parameters
    ----------
    n_topics : int
        K (at least 1).
    n_tokens : int
        N, the corpus's tokens (at least 0); recorded in the reason.

    Returns
    -------
    SamplerChoice
    """
    n_topics = as_int("n_topics", n_topics, minimum=1)
    n_tokens = as_int("n_tokens", n_tokens, minimum=0)
    if n_topics >= METROPOLIS_FROM_TOPICS:
        return SamplerChoice(
            "metropolis",
            METROPOLIS_CYCLES,
            f"K = {n_topics} >= {METROPOLIS_FROM_TOPICS} topics ({n_tokens} tokens)",
        )
    return SamplerChoice(
        "gibbs", 1, f"K = {n_topics} < {METROPOLIS_FROM_TOPICS} topics ({n_tokens} tokens)"
    )

"""Which exact LDA sampler the zoo runs by default, from the corpus and K.

Two exact samplers move the same state (:mod:`zoo.models.lda.gibbs`): the collapsed
Gibbs sweep (:func:`~zoo.models.lda.sweeps.sweep`: a draw from every token's full
conditional, O(topics of the word) per token with SparseLDA's buckets) and the
Metropolis-Hastings sweep (:func:`~zoo.models.lda.metropolis.metropolis_sweep`: O(1)
per token whatever K, but a token moves less per sweep). Which reaches a good model
first is measured as CPU seconds to 99% of the way from a random start to the best log
joint any contender reached (``bench/lda_time_to_quality.py``;
``docs/performance.md, "LDA"`` has the tables the rule below comes from).

The rule: the Gibbs sweep below a number of topics that falls with the corpus's size,
the Metropolis-Hastings sweep with :data:`METROPOLIS_CYCLES` cycles from there up
(:data:`METROPOLIS_FROM`: N below 300,000 tokens, from 1,700 topics (3,000 until the
doc proposal lost its prior branch); from 300,000 tokens up, from 400; from 3,000,000
tokens up it was 170 until the Gibbs sweep's unsigned indices and tree sums, below).
The Gibbs sweep's cost per token grows with the topics a word holds, which grows with
K until it is bounded by the word's frequency; the Metropolis-Hastings sweep's does
not. On a larger corpus frequent words hold more of the K topics (on the
10-million-token Zipf corpus at K = 100, 57% of tokens belong to a word holding at
least 3/4 of them; on Reuters none), so the crossing comes at a lower K. Measured as
CPU seconds to 95% / 99% of the way (one seed each unless said; Gibbs against
Metropolis-Hastings with 2 cycles; ``never``: not within the run's budget):

- Reuters (84,010 tokens): 0.19 / 1.15 against 0.43 / 2.91 at K = 20, 0.19 / 0.82
  against 0.26 / 1.33 at 100, 0.19 / 0.72 against 0.29 / 1.08 at 1,000; in the cycles
  study 4.00 against 3.62 to 99% at 3,000, and at 10,000 the Gibbs sweep had not got
  there in 8 CPU seconds where the Metropolis-Hastings sweep took 6.33; after the doc
  proposal lost its prior branch (:mod:`zoo.models.lda.metropolis`), 0.755 against
  1.14 to 99% at 1,000 and 3.70 against 2.31 at 3,000, and over two seeds each
  (0 and 1) 0.99 and 1.34 against 1.28 and 1.25 at 1,500, 1.45 and 2.27 against 1.25
  and 1.32 at 2,000, 2.77 and 2.53 against 2.28 and 1.87 at 2,500;
- Zipf, 1,000,061 tokens: 3.99 / 7.57 against 6.12 / never at K = 20, 4.40 / 8.14
  against 4.36 / 9.28 at 100, 7.76 / 9.90 against 5.90 / 8.75 at 1,000;
- Zipf, 10 million tokens: 22.3 / 30.6 against never (92.8% in 34 CPU s) at K = 20,
  43.6 / never (98.8%) against 37.1 / 48.2 at 100, never (90% in 66 CPU s) against
  34.8 / 40.2 at 1,000; after the row walk's blocked sum (the Gibbs sweep 1.25x faster
  per token at K = 100 there), 33.3 / 44.4 against 36.3 / never (98.3%) at K = 50 and
  40.1 / never (98.0%) against 34.6 / 42.8 at 100; after the row prefetch (the Gibbs
  sweep 1.33x faster per token at K = 100 there), 36.8 / 49 against 47.2 / never
  (95.4%) at 100 (45 CPU s each; with 80, 52 / 72.4 against 76.5 / never), and 45.3 /
  never (95.7%) against 36.0 / 45.5 at 300; after the unsigned indices and tree sums
  (the Gibbs sweep 1.09x faster per token at K = 20, 1.04x at 100; 45 CPU s each),
  40.5 / 48.3 against 41.4 / never (97.0%) at 300, level at 95% and the Gibbs sweep
  first to 99%, and never (94.8% in 47 CPU s) against 39.7 / 49.6 at 500.

Each threshold lies between the largest K at which the Gibbs sweep got there first and
the smallest at which the Metropolis-Hastings sweep did (about their geometric mean:
1,700 for Reuters, between 1,500, where the seeds split and the Gibbs sweep was first
on their mean, 1.16 against 1.27 CPU s, and 2,000, where the Metropolis-Hastings sweep
was first on both; it was 3,000, where the two had tied, until the doc proposal lost
its prior branch; 170 between 100 and 300 on 10 million tokens
before the unsigned indices, 70 between 50 and 100 before the row prefetch), and each
corpus size's band reaches to about the geometric mean of the measured sizes (300,000
between 84,010 and 1 million). From 300,000 tokens up one threshold, 400, holds every
measurement: on 1 million tokens the Gibbs sweep first to 99% at 100 and the
Metropolis-Hastings sweep at 1,000 (the band was 300 there, the geometric mean); on 10
million the Gibbs sweep first to 99% at 300 (level at 95%) and the Metropolis-Hastings
sweep at 500 (geometric mean 387). Not measured: other corpora, K between the measured
ones, corpora above 10 million tokens (the 400 is kept there).
"""

from __future__ import annotations

from typing import NamedTuple

from zoo.core.arguments import as_int
from zoo.models.lda.metropolis import DEFAULT_CYCLES

__all__ = [
    "METROPOLIS_CYCLES",
    "METROPOLIS_FROM",
    "SamplerChoice",
    "choose_sampler",
    "metropolis_from_topics",
]

#: The rule as (fewer than this many tokens, Metropolis-Hastings from this many topics),
#: the first band whose bound is above N deciding; N past the last bound takes its K.
METROPOLIS_FROM = ((300_000, 1_700), (None, 400))

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


def metropolis_from_topics(n_tokens: int) -> int:
    """The K from which the rule picks the Metropolis-Hastings sweep for N tokens."""
    n_tokens = as_int("n_tokens", n_tokens, minimum=0)
    for below, topics in METROPOLIS_FROM[:-1]:
        if n_tokens < below:
            return topics
    return METROPOLIS_FROM[-1][1]


def choose_sampler(*, n_topics: int, n_tokens: int) -> SamplerChoice:
    """The exact sampler that reaches a good model first for K topics and N tokens.

    Parameters
    ----------
    n_topics : int
        K (at least 1).
    n_tokens : int
        N, the corpus's tokens (at least 0).

    Returns
    -------
    SamplerChoice
        Its ``reason`` names K, N and the threshold they met (module docstring).
    """
    n_topics = as_int("n_topics", n_topics, minimum=1)
    n_tokens = as_int("n_tokens", n_tokens, minimum=0)
    threshold = metropolis_from_topics(n_tokens)
    where = f"{threshold} topics for {n_tokens} tokens"
    if n_topics >= threshold:
        return SamplerChoice("metropolis", METROPOLIS_CYCLES, f"K = {n_topics} >= {where}")
    return SamplerChoice("gibbs", 1, f"K = {n_topics} < {where}")

"""LDA: the collapsed kernels over the topic of every token (Gibbs, Metropolis-Hastings).

The kernel's state is :class:`~zoo.models.lda.counts.State`: every token's topic and the
count tables they imply. ``step`` runs one :func:`~zoo.models.lda.sweeps.sweep` (Griffiths
& Steyvers, PNAS 101, 2004, eq. 5, theta and phi integrated out; SparseLDA buckets from
4 topics up, Yao, Mimno & McCallum 2009), or for :data:`metropolis_kernel` one
:func:`~zoo.models.lda.metropolis.metropolis_sweep` (O(1) per token whatever K: doc and
word proposals corrected by Metropolis-Hastings, exact, slower to mix per sweep).
:func:`make_kernel`'s ``draw`` brings the
parameters back from their conjugate conditionals, ``theta_d | z ~ Dir(alpha + n_d.)``
and ``phi_k | z ~ Dir(beta + n_k.)``, and reports the label-invariant ``doc_word`` and
``coassignment`` computed from them (:mod:`zoo.models.lda.invariants`), as the PyMC
program does.

:func:`infer_documents` draws the topic proportions of new documents with phi fixed
(held-out "fold-in" inference; Wallach, Murray, Salakhutdinov & Mimno, "Evaluation
methods for topic models", ICML 2009), through the same sweep's held-out mode.
"""

from __future__ import annotations

import numpy as np

from zoo.core.arguments import as_int
from zoo.core.contract import Kernel
from zoo.models.lda.blocks import Partition, build_partition
from zoo.models.lda.choice import SamplerChoice, choose_sampler
from zoo.models.lda.counts import State, build_state
from zoo.models.lda.invariants import label_invariants
from zoo.models.lda.metropolis import (
    DEFAULT_CYCLES,
    MetropolisFault,
    build_word_tokens,
    metropolis_sweep,
)
from zoo.models.lda.spec import Data, Hyperparameters, Prior
from zoo.models.lda.sweeps import DENSE_FAULTS, Fault, sweep
from zoo.models.memo import LastResolved
from zoo.models.simplex import dirichlet

__all__ = [
    "FAULTS",
    "counts_from_topics",
    "gibbs_kernel",
    "infer_documents",
    "kernel",
    "make_kernel",
    "metropolis_kernel",
    "threaded_gibbs_kernel",
    "threaded_kernel",
    "threaded_metropolis_kernel",
]

#: The samplers :func:`make_kernel` builds ("auto": the one the rule picks for the data).
SAMPLERS = ("auto", "gibbs", "metropolis")

#: The model's planted faults (``Model.faults``), by name: each is one value of the
#: Gibbs sweep's :class:`~zoo.models.lda.sweeps.Fault` switch or of the
#: Metropolis-Hastings sweep's :class:`~zoo.models.lda.metropolis.MetropolisFault`.
FAULTS = {
    "token-not-removed": Fault.TOKEN_NOT_REMOVED,
    "beta-not-times-V": Fault.BETA_NOT_TIMES_V,
    "added-back-under-old-topic": Fault.ADDED_BACK_UNDER_OLD_TOPIC,
    "stale-doc-sum": Fault.STALE_DOC_SUM,
    "stale-smoothing-sum": Fault.STALE_SMOOTHING_SUM,
    "alpha-as-mean": Fault.ALPHA_AS_MEAN,
    "theta-point-estimate": Fault.THETA_POINT_ESTIMATE,
    "mh-no-proposal-ratio": MetropolisFault.NO_PROPOSAL_RATIO,
    "mh-counts-with-token": MetropolisFault.COUNTS_WITH_TOKEN,
    "mh-no-prior-branch": MetropolisFault.NO_PRIOR_BRANCH,
}


def counts_from_topics(data: Data, topic: np.ndarray) -> State:
    """Build the state (fresh count tables) from topic assignments.

    Parameters
    ----------
    data : Data
    topic : array-like of int, shape (N,)
        Topics in ``0 .. K-1``; copied to the state's unsigned type.
    """
    topic = np.asarray(topic)
    if topic.shape != (data.n_tokens,):
        raise ValueError(f"topic: expected shape ({data.n_tokens},), got {topic.shape}")
    if topic.size and (topic.min() < 0 or topic.max() >= data.n_topics):
        raise ValueError(f"topic: topics must lie in [0, {data.n_topics})")
    topic = topic.astype(data.topic_dtype)
    return build_state(data.corpus, topic, n_topics=data.n_topics, n_words=data.n_words)


def make_kernel(
    *,
    fault: str | None = None,
    sampler: str | None = None,
    cycles: int | None = None,
    parts: int = 1,
) -> Kernel:
    """Build the kernel, or one of the deliberately wrong ones (negative controls).

    Parameters
    ----------
    fault : None or a key of :data:`FAULTS`
        None: the correct sampler. Otherwise the sweep runs with the matching
        :class:`~zoo.models.lda.sweeps.Fault` (:data:`FAULTS`): "token-not-removed": the
        current token is left in the counts while its conditional is computed.
        "beta-not-times-V": the denominator is ``n_k + mean(beta)`` (``n_k + beta`` for a
        symmetric prior) instead of ``n_k + sum(beta)`` (``n_k + V beta``).
        "added-back-under-old-topic": the new topic is recorded but the counts are
        incremented under the old one, so within a sweep every token sees the others'
        topics of the previous sweep. "stale-doc-sum", "stale-smoothing-sum": the
        sparse kernel's document or smoothing bucket total is not updated when the
        token leaves its topic. "alpha-as-mean": ``mean(alpha)`` for every
        ``alpha_k``. "theta-point-estimate": the sweep is correct, but ``draw`` records
        ``E[theta_d | z] = (n_d. + alpha) / (n_d + sum(alpha))`` in place of a draw.
        The "mh-" faults are the Metropolis-Hastings sweep's
        (:class:`~zoo.models.lda.metropolis.MetropolisFault`): "mh-no-proposal-ratio":
        accepted with ``pi(t) / pi(s)``, the proposal ratio left out;
        "mh-counts-with-token": the ratio reads the counts with the token still in its
        topic; "mh-no-prior-branch": the doc proposal's ratio is the one for a proposal with
        an ``alpha`` branch, which it does not have.
    sampler : {"auto", "gibbs", "metropolis"}, optional
        The exact conditional draw of :func:`~zoo.models.lda.sweeps.sweep`,
        :func:`~zoo.models.lda.metropolis.metropolis_sweep` (O(1) per token), or "auto":
        the one :func:`~zoo.models.lda.choice.choose_sampler` picks for the data's K and
        tokens, with its cycles (decided per data set; the same data, the same pick).
        Default: the sampler ``fault`` belongs to, else "auto".
    cycles : int, optional
        "metropolis" only: cycles of (doc proposal, word proposal) per token and sweep;
        default :data:`~zoo.models.lda.metropolis.DEFAULT_CYCLES` (2).
    parts : int
        1 (default) for the exact serial sweep; more for the threaded sweep of the
        named sampler ("gibbs" or "metropolis", not "auto") over ``parts x parts``
        blocks of documents and words, which is **not exact** (each thread reads topic
        totals that lag the other threads' moves within an epoch;
        :func:`~zoo.models.lda.sweeps.sweep`,
        :func:`~zoo.models.lda.metropolis.metropolis_sweep`, :mod:`zoo.models.lda.blocks`).
        The threaded Gibbs sweep is the sparse one at every K, so the dense kernel's
        faults ("token-not-removed", "added-back-under-old-topic") do not run in parts.

    Returns
    -------
    Kernel
        Its ``describe(data, prior)`` names the sampler that runs on ``data`` (for
        "auto", with the rule's reason); ``zoo.sample`` records it in the output's
        attributes (``sampler``).

    Notes
    -----
    ``step`` rebuilds the count tables from the assignments into fresh arrays rather
    than copying them: the same cost (O(N + (D + V) K)), it keeps ``step`` pure, and a
    sweep that left its counts inconsistent with its assignments (the third fault) is
    judged by what its assignments imply. The sparse kernel's per-word topic lists are
    rebuilt by the sweep for the same reason: they depend only on ``word_topic``, so
    building them afresh gives the same draws as carrying them (tested in
    tests/models/lda/test_sparse.py) and keeps the state a plain NamedTuple.
    """
    if fault is not None and fault not in FAULTS:
        raise ValueError(f"fault: must be None or one of {sorted(FAULTS)}, got {fault!r}")
    if sampler is not None and sampler not in SAMPLERS:
        raise ValueError(f"sampler: must be one of {SAMPLERS}, got {sampler!r}")
    switch = Fault.NONE if fault is None else FAULTS[fault]
    metropolis = isinstance(switch, MetropolisFault)
    if sampler in ("gibbs", "auto") and metropolis:
        raise ValueError(f"fault: {fault!r} is a fault of the 'metropolis' sampler")
    if sampler in ("metropolis", "auto") and fault is not None and not metropolis:
        raise ValueError(f"fault: {fault!r} is a fault of the 'gibbs' sampler")
    if sampler is None:
        sampler = "metropolis" if metropolis else "gibbs" if fault is not None else "auto"
    if cycles is not None and sampler != "metropolis":
        raise ValueError("cycles: only the 'metropolis' sampler takes cycles")
    cycles = as_int("cycles", DEFAULT_CYCLES if cycles is None else cycles, minimum=1)
    parts = as_int("parts", parts, minimum=1)
    if parts != 1 and sampler not in ("gibbs", "metropolis"):
        raise ValueError("parts: name the sampler that runs in parts, 'gibbs' or 'metropolis'")
    if parts != 1 and switch in DENSE_FAULTS:
        raise ValueError(f"parts: the fault {fault!r} is the dense kernel's, which has no parts")
    if sampler == "metropolis" and not metropolis:
        switch = MetropolisFault.NONE
    point_estimate = switch == Fault.THETA_POINT_ESTIMATE
    correct = switch in (Fault.NONE, MetropolisFault.NONE)
    last = LastResolved()
    # The word proposal's index and the blocks depend on the corpus only: built once per
    # data set.
    index = LastResolved()
    blocks = LastResolved()

    def partition(data: Data, prior: Prior) -> Partition | None:
        if parts == 1:
            return None
        return blocks(prior, data, lambda data: build_partition(data.corpus, data.n_words, parts))

    def resolved(data: Data, prior: Prior) -> Hyperparameters:
        return last(prior, data, prior.resolve)

    def choice(data: Data) -> SamplerChoice:
        """The sampler and cycles that run on ``data``."""
        if sampler == "auto":
            return choose_sampler(n_topics=data.n_topics, n_tokens=data.n_tokens)
        return SamplerChoice(
            sampler, cycles if sampler == "metropolis" else 1, "chosen by the caller"
        )

    def init(data: Data, prior: Prior, rng: np.random.Generator) -> State:
        resolved(data, prior)
        # Uniform random topics: over-dispersed starts let R-hat see chains that stick.
        return counts_from_topics(data, rng.integers(0, data.n_topics, size=data.n_tokens))

    def step(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> State:
        new = counts_from_topics(data, state.topic)
        hyper = resolved(data, prior)
        picked = choice(data)
        if picked.sampler == "metropolis":
            words = index(prior, data, lambda data: build_word_tokens(data.corpus, data.n_words))
            metropolis_sweep(
                data.corpus,
                new,
                hyper,
                rng,
                cycles=picked.cycles,
                word_tokens=words,
                parts=parts,
                partition=partition(data, prior),
                fault=switch if isinstance(switch, MetropolisFault) else MetropolisFault.NONE,
            )
        else:
            sweep(
                data.corpus, new, hyper, rng, fault=switch, parts=parts,
                partition=partition(data, prior),
            )  # fmt: skip
        return new

    def draw(state: State, data: Data, prior: Prior, rng: np.random.Generator) -> dict:
        hyper = resolved(data, prior)
        # The conditionals given the assignments. A correct sweep's counts are what its
        # assignments imply; a planted one may leave them lagging (the third fault
        # does), so for those they are rebuilt.
        counts = state if correct else counts_from_topics(data, state.topic)
        theta = dirichlet(rng, hyper.alpha + counts.doc_topic)
        if point_estimate:  # the bug: E[theta_d | z] recorded, the draw thrown away
            theta = (hyper.alpha + counts.doc_topic) / (hyper.alpha + counts.doc_topic).sum(
                axis=1, keepdims=True
            )
        phi = dirichlet(rng, hyper.beta + counts.word_topic.T)
        return {
            "theta": theta,
            "phi": phi,
            **label_invariants(data, theta, phi),
        }

    def describe(data: Data, prior: Prior) -> str:
        picked = choice(data)
        text = "lda " + picked.label + ("" if parts == 1 else f", {parts} threads (not exact)")
        if fault is not None:
            text += f", fault {fault!r}"
        return text + (f" (auto: {picked.reason})" if sampler == "auto" else "")

    return Kernel(init=init, step=step, draw=draw, describe=describe)


#: The default kernel: the exact sampler :func:`~zoo.models.lda.choice.choose_sampler`
#: picks for the data (the Gibbs sweep below its topic threshold, the
#: Metropolis-Hastings sweep above), deciding per data set.
kernel = make_kernel()

#: The exact Gibbs sweep whatever the data (``kernel=`` to ask for it explicitly).
gibbs_kernel = make_kernel(sampler="gibbs")

#: The Metropolis-Hastings kernel (:mod:`zoo.models.lda.metropolis`): O(1) per token, for
#: large K (``zoo validate lda --kernel zoo.models.lda:metropolis_kernel``).
metropolis_kernel = make_kernel(sampler="metropolis")

#: The Metropolis-Hastings sampler on two threads (2 x 2 blocks of documents and words):
#: **not exact**, since a thread's topic totals lag the other thread's moves within an
#: epoch; how far it is from the posterior is measured in docs/scaling.md.
threaded_metropolis_kernel = make_kernel(sampler="metropolis", parts=2)

#: The earlier name of :data:`threaded_metropolis_kernel` (the same kernel), kept working.
threaded_kernel = threaded_metropolis_kernel

#: The collapsed Gibbs sweep (sparse, at every K) on two threads, in the same 2 x 2
#: blocks: **not exact** for the same reason (a thread's ``n_k`` lags the other's moves
#: within an epoch; docs/scaling.md measures how far).
threaded_gibbs_kernel = make_kernel(sampler="gibbs", parts=2)


def infer_documents(phi_draws, new_documents, alpha, *, sweeps: int = 50, seed=None) -> np.ndarray:
    """Topic proportions of new documents given posterior draws of phi (fold-in).

    For every draw of phi, a Gibbs chain over the new documents' topics with phi fixed
    runs ``sweeps`` sweeps from a random start, then ``theta_d ~ Dir(alpha + n_d.)`` is
    drawn from its conditional. Each output draw is thus (approximately, after
    ``sweeps``) a draw from ``p(theta | w_new, phi)`` mixed over the phi draws, that is
    from ``p(theta | w_new, w_train)`` when the phi draws are posterior draws.

    Parameters
    ----------
    phi_draws : array-like, shape (..., K, V)
        Draws of phi, for example ``tree["posterior"]["phi"].values`` (chain, draw, K, V).
    new_documents : list of array-like of int, or array-like / scipy.sparse (D, V)
        As :class:`~zoo.models.lda.Data`'s ``corpus``; word ids in ``0 .. V-1``.
    alpha : float or array-like, shape (K,)
        Document-topic pseudo-counts (the training prior's).
    sweeps : int
        Sweeps per phi draw before theta is drawn (default 50: on documents of tens of
        tokens the chain forgets its start within a few sweeps).
    seed : int, numpy.random.SeedSequence or None

    Returns
    -------
    ndarray, shape (..., D, K)
        One draw of theta for every new document per draw of phi.
    """
    phi = np.array(phi_draws, dtype=np.float64, copy=True)
    if phi.ndim < 2:
        raise ValueError(f"phi_draws: expected shape (..., K, V), got {phi.shape}")
    if not np.all(np.isfinite(phi)) or (phi < 0).any():
        raise ValueError("phi_draws: must be finite and >= 0")
    sums = phi.sum(axis=-1)
    if not np.allclose(sums, 1.0, atol=1e-6):
        raise ValueError("phi_draws: every topic's word distribution must sum to 1")
    n_topics, n_words = phi.shape[-2:]
    sweeps = as_int("sweeps", sweeps, minimum=1)
    data = Data(
        new_documents,
        topics=n_topics,
        vocabulary=np.arange(n_words),
        doc_word_pairs=None,
        token_pairs=None,
    )
    # Validated and broadcast as the training prior's alpha; beta is not read when phi is
    # fixed (the default one only fills the tuple).
    hyper = Prior(alpha=alpha).resolve(data)
    rng = np.random.default_rng(seed)
    flat = phi.reshape(-1, n_topics, n_words)
    out = np.empty((flat.shape[0], data.n_documents, n_topics))
    for s in range(flat.shape[0]):
        state = counts_from_topics(data, rng.integers(0, n_topics, size=data.n_tokens))
        sweep(data.corpus, state, hyper, rng, sweeps=sweeps, phi=flat[s])
        out[s] = dirichlet(rng, hyper.alpha + state.doc_topic)
    return out.reshape(*phi.shape[:-2], data.n_documents, n_topics)

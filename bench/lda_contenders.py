"""The LDA benchmarks' corpora and contenders, shared by every ``bench/lda_*.py`` script.

Corpora, both held flat as ``(token_word int32, doc_start int64, n_words)``, never as a
dense D x V matrix:

- ``reuters``: the sample shipped with the ``lda`` package (``lda.datasets.load_reuters``:
  395 documents, 4,258 words, 84,010 tokens), tokens of a document in word-id order;
- ``zipf-1m``: the same process with 1,000,000 tokens (about 5,000 documents);
- ``zipf``: synthetic, deterministic from :data:`ZIPF_SEED` (:func:`zipf_corpus`):
  10,000,000 tokens or a few more, V = 50,000, 50,000-odd documents of 1 + Poisson(199)
  tokens, drawn from an LDA generative process with 100 true topics whose word
  distributions are a Zipf law (exponent 1) modulated per topic by Gamma(0.1) noise.

Model: symmetric alpha = 0.1 per topic, beta = 0.01 per word. Every contender has
``name``, is built as ``cls(corpus, n_topics, seed)``, runs sweeps with ``run(n)`` and
hands back its current state with ``assignments()``: the corpus in the contender's own
token order and the topic of every token. :func:`log_joint` computes ``log p(w, z)``
from those with :func:`zoo.models.lda.counts.log_joint` (count tables rebuilt from the
topics), the same formula from the same kind of state for every contender, so that
their log joints compare:

- ``zoo``: ``zoo.models.lda.sweeps.sweep``, the exact collapsed Gibbs sweep (SparseLDA
  buckets from K = 4 up); its per-word topic lists are built once and carried;
- ``zoo-mh``: ``zoo.models.lda.metropolis.metropolis_sweep`` with its default cycles
  (``DEFAULT_CYCLES``, 2: two doc and two word proposals per token and sweep; 1 before
  the time-to-quality measurements, and in the ``lda_speed`` tables taken before them),
  its word index (``build_word_tokens``) built once; ``zoo-mh-c1``, ``zoo-mh-c3``,
  ``zoo-mh-c4``, ``zoo-mh-c6``: the same with 1, 3, 4 and 6 cycles; ``zoo-mh-d2``: 1 cycle of two
  doc proposals and a word proposal (``doc_proposals=2``);
- ``zoo-mh-2``: the same on two threads (``parts=2``: blocks of documents and words;
  not exact, docs/scaling.md), its partition built once;
- ``zoo-gibbs-2``: the collapsed Gibbs sweep (``zoo``) on two threads
  (``sweep(..., parts=2)``: the sparse kernel in the same blocks; not exact,
  docs/scaling.md), its word lists and partition built once;
- ``zoo-auto``: the sampler the zoo picks for this corpus and K
  (``zoo.models.lda.choice.choose_sampler``), run as the contender of that sampler;
- ``tomotopy``: ``LDAModel(k=K, alpha=0.1, eta=0.01, seed=...)`` with
  ``optim_interval = 0`` (no hyperparameter optimisation; its ``alpha`` is per topic),
  ``burn_in = 0``, trained with ``workers=1, parallel=ParallelScheme.NONE``;
- ``tomotopy-2``: the same model trained with ``workers=2,
  parallel=ParallelScheme.PARTITION``, which is what ``ParallelScheme.DEFAULT`` resolves
  to for ``LDAModel`` (tomotopy's ``getRealScheme``: models flagged
  ``partitioned_multisampling``, as LDAModel is by default, get PARTITION);
- ``lda``: ``lda.LDA(n_topics=K, alpha=0.1, eta=0.01)``; its state (``WS``, ``DS``,
  ``ZS``, ``nzw_``, ``ndz_``, ``nz_``) is built with numpy exactly as its ``_initialize``
  builds it (deterministic ``i % K`` topics; ``_initialize`` needs a document-term matrix
  and loops over the tokens in Python, and ``lda.utils.matrix_to_lists`` reads a sparse
  matrix one cell at a time), then driven as its ``fit`` drives it (per sweep a shuffle
  of its recycled buffer of uniforms and ``_sample_topics``). Its cost is O(K) per token.

numba compilation is excluded for the zoo's samplers: on construction one call updates
the first :data:`COMPILE_TOKENS` tokens of the chain itself (an exact update of a few
tokens, part of its burn-in).
"""

from __future__ import annotations

import functools
import logging
import os
import platform
import time
import warnings
from typing import NamedTuple

import numpy as np

from bench.host import cpu_name
from zoo.models.lda import blocks, counts, metropolis, sweeps
from zoo.models.lda.choice import choose_sampler
from zoo.models.lda.corpus import Corpus

ALPHA = 0.1
BETA = 0.01

# The synthetic corpus: fixed, so that every run sees the same tokens.
ZIPF_SEED = 17
ZIPF_TOKENS = 10_000_000
#: The smaller Zipf corpus (``zipf-1m``), for where the kernels' crossing moves with N.
ZIPF_SMALL_TOKENS = 1_000_000
ZIPF_WORDS = 50_000
ZIPF_EXPONENT = 1.0
ZIPF_MEAN_LENGTH = 200
ZIPF_TRUE_TOPICS = 100
ZIPF_DOC_ALPHA = 0.1
ZIPF_TOPIC_SHAPE = 0.1

# zoo's compile call: the first tokens only, so that it costs nothing on a large corpus.
COMPILE_TOKENS = 1_000


class BenchCorpus(NamedTuple):
    """A corpus in the zoo's flat layout, plus its vocabulary size."""

    name: str
    token_word: np.ndarray
    doc_start: np.ndarray
    n_words: int

    @property
    def corpus(self) -> Corpus:
        return Corpus(self.token_word, self.doc_start)

    @property
    def n_tokens(self) -> int:
        return int(self.token_word.shape[0])

    @property
    def n_docs(self) -> int:
        return int(self.doc_start.shape[0] - 1)


def reuters() -> BenchCorpus:
    """The ``lda`` package's Reuters sample; tokens of a document in word-id order."""
    import lda.datasets

    matrix = lda.datasets.load_reuters()
    n_docs, n_words = matrix.shape
    doc_start = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(matrix.sum(axis=1), out=doc_start[1:])
    # Each word repeated by its count: the order lda.utils.matrix_to_lists uses too, so
    # that lda sees its tokens in the order its own fit would.
    token_word = np.concatenate(
        [np.repeat(np.arange(n_words, dtype=np.int32), matrix[d]) for d in range(n_docs)]
    )
    return BenchCorpus("reuters", token_word, doc_start, int(n_words))


def zipf_corpus(seed: int = ZIPF_SEED, target: int = ZIPF_TOKENS) -> BenchCorpus:
    """A synthetic corpus from an LDA generative process over a Zipfian vocabulary.

    Word ``w`` (ids by rank, 0 the most frequent) has base probability proportional to
    ``1 / (w + 1) ** ZIPF_EXPONENT``. Each of ``ZIPF_TRUE_TOPICS`` true topics weights
    that law by independent Gamma(``ZIPF_TOPIC_SHAPE``) noise per word and renormalises:
    a topic concentrates on a few hundred words (its heavy-noise ones) while the corpus
    keeps a Zipfian rank-frequency curve, so words are spread over few topics, as in
    real text, rather than over all of them as with words drawn from the Zipf law alone
    (which gives no topic structure for the samplers to find) or with topics that are
    random permutations of one Zipf law (which flattens the corpus' word frequencies).
    Document lengths are 1 + Poisson(``ZIPF_MEAN_LENGTH - 1``) (no empty documents),
    drawn until they sum to at least ``target`` (default ``ZIPF_TOKENS``; the corpus
    ``zipf-1m`` is the same process stopped at :data:`ZIPF_SMALL_TOKENS`, with the same
    vocabulary and true topics); topic proportions are
    Dirichlet(``ZIPF_DOC_ALPHA``); tokens are shuffled within each document (text
    order, not grouped by topic or word).
    """
    rng = np.random.default_rng(seed)
    rank = np.arange(1, ZIPF_WORDS + 1, dtype=np.float64)
    base = rank**-ZIPF_EXPONENT
    phi = base * rng.gamma(ZIPF_TOPIC_SHAPE, size=(ZIPF_TRUE_TOPICS, ZIPF_WORDS))
    phi /= phi.sum(axis=1, keepdims=True)
    # Enough lengths for the target with certainty (the mean is ZIPF_MEAN_LENGTH).
    lengths = 1 + rng.poisson(ZIPF_MEAN_LENGTH - 1, size=target // ZIPF_MEAN_LENGTH * 11 // 10)
    n_docs = int(np.searchsorted(np.cumsum(lengths), target)) + 1
    lengths = lengths[:n_docs]
    theta = rng.dirichlet(np.full(ZIPF_TRUE_TOPICS, ZIPF_DOC_ALPHA), size=n_docs)
    per_topic = rng.multinomial(lengths, theta)  # (D, T): tokens of each true topic
    true_topic = np.repeat(
        np.tile(np.arange(ZIPF_TRUE_TOPICS, dtype=np.int32), n_docs), per_topic.ravel()
    )
    n_tokens = true_topic.shape[0]
    token_word = np.empty(n_tokens, dtype=np.int32)
    order = np.argsort(true_topic, kind="stable")
    topic_start = np.concatenate([[0], np.cumsum(per_topic.sum(axis=0))])
    for k in range(ZIPF_TRUE_TOPICS):
        where = order[topic_start[k] : topic_start[k + 1]]
        token_word[where] = rng.choice(ZIPF_WORDS, size=where.shape[0], p=phi[k])
    doc_start = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_start[1:])
    # Shuffle within documents: sort by document plus a uniform in [0, 1).
    doc_of = np.repeat(np.arange(n_docs, dtype=np.float64), lengths)
    token_word = token_word[np.argsort(doc_of + rng.random(n_tokens), kind="stable")]
    name = "zipf" if target == ZIPF_TOKENS else f"zipf-{target // 1_000_000}m"
    return BenchCorpus(name, token_word, doc_start, ZIPF_WORDS)


#: The corpora :func:`load_corpus` knows.
CORPORA = ("reuters", "zipf-1m", "zipf")


def load_corpus(name: str) -> BenchCorpus:
    if name == "reuters":
        return reuters()
    if name == "zipf":
        return zipf_corpus()
    if name == "zipf-1m":
        return zipf_corpus(target=ZIPF_SMALL_TOKENS)
    raise ValueError(f"unknown corpus {name!r}")


@functools.lru_cache(maxsize=2)
def vocabulary(n_words: int) -> list[str]:
    """Word strings for tomotopy (which takes words, not ids), built once per V."""
    return [str(w) for w in range(n_words)]


def hyper(n_topics: int, n_words: int):
    beta = np.full(n_words, BETA)
    return np.full(n_topics, ALPHA), beta, float(beta.sum())


class Zoo:
    name = "zoo"
    # The serial sweep; subclasses with more parts build their partition in _prepare.
    parts = 1
    partition = None

    def __init__(self, corpus: BenchCorpus, n_topics, seed):
        self.n_topics, self.n_words = n_topics, corpus.n_words
        self.corpus = corpus.corpus
        rng = np.random.default_rng(seed)
        topic = rng.integers(0, n_topics, corpus.n_tokens, dtype=np.int64).astype(
            counts.topic_dtype(n_topics)
        )
        self.state = counts.build_state(
            self.corpus, topic, n_topics=n_topics, n_words=corpus.n_words
        )
        self.hyper = hyper(n_topics, corpus.n_words)
        self.rng = np.random.default_rng(seed + 1)
        self._prepare()
        # Loads (or compiles) the numba kernel outside the timing: a copy of the state
        # would cost gigabytes at K = 10,000 on the Zipf corpus, so the chain itself
        # takes one exact update of its first tokens (part of its burn-in).
        self._sweep(1, (0, min(COMPILE_TOKENS, corpus.n_tokens)))

    def _prepare(self):
        # Carried between sweeps (the kernel would otherwise rebuild them every call).
        self.aux = (
            sweeps.build_word_lists(self.state.word_topic)
            if self.state.topic_total.shape[0] >= sweeps.SPARSE_FROM_TOPICS
            else None
        )

    def _sweep(self, n_sweeps, tokens=None):
        sweeps.sweep(
            self.corpus,
            self.state,
            self.hyper,
            self.rng,
            sweeps=n_sweeps,
            tokens=tokens,
            word_lists=self.aux,
            parts=self.parts,
            partition=self.partition,
        )

    def run(self, n_sweeps):
        if n_sweeps:
            self._sweep(n_sweeps)

    def state_bytes(self) -> int:
        arrays = list(self.state) + ([] if self.aux is None else list(self.aux))
        # The threaded samplers' blocks: a word group per word and per token.
        arrays += [] if self.partition is None else list(self.partition)
        return int(sum(a.nbytes for a in arrays))

    def assignments(self) -> tuple[Corpus, np.ndarray]:
        # The state's own topic array (read, not written, by log_joint).
        return self.corpus, self.state.topic

    def log_joint(self) -> float:
        return log_joint(self)


class ZooGibbs2(Zoo):
    """The collapsed Gibbs sweep on two threads (``parts=2``; not exact)."""

    name = "zoo-gibbs-2"
    parts = 2

    def _prepare(self):
        # The threaded sweep is the sparse one at every K: its word lists always.
        self.aux = sweeps.build_word_lists(self.state.word_topic)
        self.partition = blocks.build_partition(self.corpus, self.n_words, self.parts)


class ZooMH(Zoo):
    name = "zoo-mh"
    parts = 1
    # The sweep's default: what a user gets from metropolis_kernel.
    cycles = metropolis.DEFAULT_CYCLES
    doc_proposals = 1

    def __init__(self, corpus: BenchCorpus, n_topics, seed, *, cycles: int | None = None):
        if cycles is not None:
            self.cycles = cycles
        super().__init__(corpus, n_topics, seed)

    def _prepare(self):
        n_words = self.state.word_topic.shape[0]
        self.aux = metropolis.build_word_tokens(self.corpus, n_words)
        self.partition = None
        if self.parts > 1:
            self.partition = blocks.build_partition(self.corpus, n_words, self.parts)

    def _sweep(self, n_sweeps, tokens=None):
        metropolis.metropolis_sweep(
            self.corpus,
            self.state,
            self.hyper,
            self.rng,
            sweeps=n_sweeps,
            cycles=self.cycles,
            doc_proposals=self.doc_proposals,
            tokens=tokens,
            word_tokens=self.aux,
            parts=self.parts,
            partition=self.partition,
        )


class ZooMH2(ZooMH):
    """The Metropolis-Hastings sweep on two threads (``parts=2``; not exact)."""

    name = "zoo-mh-2"
    parts = 2


class ZooMHCycles1(ZooMH):
    """The Metropolis-Hastings sweep with 1 cycle of (doc, word) proposals per token."""

    name = "zoo-mh-c1"
    cycles = 1


class ZooMHCycles3(ZooMH):
    """The Metropolis-Hastings sweep with 3 cycles of (doc, word) proposals per token."""

    name = "zoo-mh-c3"
    cycles = 3


class ZooMHCycles4(ZooMH):
    """The Metropolis-Hastings sweep with 4 cycles of (doc, word) proposals per token."""

    name = "zoo-mh-c4"
    cycles = 4


class ZooMHCycles6(ZooMH):
    """The Metropolis-Hastings sweep with 6 cycles of (doc, word) proposals per token."""

    name = "zoo-mh-c6"
    cycles = 6


class ZooMHDocDoc(ZooMH):
    """The Metropolis-Hastings sweep with 1 cycle of (doc, doc, word) proposals per token."""

    name = "zoo-mh-d2"
    cycles = 1
    doc_proposals = 2


def zoo_auto(corpus: BenchCorpus, n_topics, seed):
    """The contender of the sampler the zoo picks for this corpus and K, named ``zoo-auto``.

    It is built from the same seed as that contender, so it draws what that contender
    draws: the row checks the rule's pick against the measured alternatives.
    """
    choice = choose_sampler(n_topics=n_topics, n_tokens=corpus.n_tokens)
    if choice.sampler == "gibbs":
        contender = Zoo(corpus, n_topics, seed)
    else:
        contender = ZooMH(corpus, n_topics, seed, cycles=choice.cycles)
    contender.name = "zoo-auto"
    contender.picked = choice.label
    return contender


zoo_auto.name = "zoo-auto"


class Tomotopy:
    name = "tomotopy"
    workers = 1

    def __init__(self, corpus: BenchCorpus, n_topics, seed):
        import tomotopy

        self.scheme = (
            tomotopy.ParallelScheme.NONE
            if self.workers == 1
            else tomotopy.ParallelScheme.PARTITION
        )
        self.n_topics, self.n_words = n_topics, corpus.n_words
        self.model = tomotopy.LDAModel(k=n_topics, alpha=ALPHA, eta=BETA, seed=seed)
        self.model.optim_interval = 0
        self.model.burn_in = 0
        vocab = vocabulary(corpus.n_words)
        doc_start = corpus.doc_start
        for d in range(corpus.n_docs):
            words = corpus.token_word[doc_start[d] : doc_start[d + 1]].tolist()
            self.model.add_doc([vocab[w] for w in words])
        # train(0) initialises the assignments without sampling.
        self.run(0)

    def run(self, n_sweeps):
        with warnings.catch_warnings():
            # Its notice that results differ with workers != 1 (they do: tomotopy-2).
            warnings.filterwarnings("ignore", message=".*may differ even with fixed seed")
            self.model.train(n_sweeps, workers=self.workers, parallel=self.scheme)

    def log_joint(self) -> float:
        return log_joint(self)

    def assignments(self) -> tuple[Corpus, np.ndarray]:
        # tomotopy numbers words in order of first appearance: map back to ours.
        to_ours = np.array([int(v) for v in self.model.used_vocabs], dtype=np.int32)
        words, topics, lengths = [], [], []
        for doc in self.model.docs:
            words.append(to_ours[np.asarray(doc.words)])
            topics.append(np.asarray(doc.topics))
            lengths.append(len(doc.words))
        doc_start = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_start[1:])
        topic = np.concatenate(topics).astype(counts.topic_dtype(self.model.k))
        return Corpus(np.concatenate(words).astype(np.int32), doc_start), topic


class Tomotopy2(Tomotopy):
    name = "tomotopy-2"
    workers = 2


class LdaPackage:
    name = "lda"

    def __init__(self, corpus: BenchCorpus, n_topics, seed):
        import lda
        import lda.utils

        logging.getLogger("lda").setLevel(logging.ERROR)
        self.corpus = corpus
        self.n_topics, self.n_words = n_topics, corpus.n_words
        model = lda.LDA(n_topics=n_topics, n_iter=1, alpha=ALPHA, eta=BETA, random_state=seed)
        # The steps of lda.LDA._fit, so that sweeps can be timed and ZS kept.
        self.random_state = lda.utils.check_random_state(seed)
        self.rands = model._rands.copy()
        # What lda.LDA._initialize builds, built with numpy (its own loop is in Python).
        n_tokens, n_words, n_docs = corpus.n_tokens, corpus.n_words, corpus.n_docs
        ws = corpus.token_word.astype(np.intc)
        ds = np.repeat(np.arange(n_docs, dtype=np.intc), np.diff(corpus.doc_start))
        zs = (np.arange(n_tokens, dtype=np.int64) % n_topics).astype(np.intc)
        nzw = np.bincount(zs.astype(np.int64) * n_words + ws, minlength=n_topics * n_words)
        ndz = np.bincount(ds.astype(np.int64) * n_topics + zs, minlength=n_docs * n_topics)
        model.nzw_ = np.asfortranarray(nzw.reshape(n_topics, n_words), dtype=np.intc)
        model.ndz_ = np.ascontiguousarray(ndz.reshape(n_docs, n_topics), dtype=np.intc)
        model.nz_ = np.bincount(zs, minlength=n_topics).astype(np.intc)
        model.WS, model.DS, model.ZS = ws, ds, zs
        model.loglikelihoods_ = []
        self.model = model

    def run(self, n_sweeps):
        for _ in range(n_sweeps):
            self.random_state.shuffle(self.rands)
            self.model._sample_topics(self.rands)

    def assignments(self) -> tuple[Corpus, np.ndarray]:
        # WS and DS are the corpus' own tokens in its own order.
        topic = np.asarray(self.model.ZS).astype(counts.topic_dtype(self.model.n_topics))
        return self.corpus.corpus, topic

    def log_joint(self) -> float:
        return log_joint(self)


def timed_run(contender, n_sweeps: int) -> tuple[float, float]:
    """Run ``n_sweeps`` sweeps of a contender; their (process CPU, wall) seconds.

    Process CPU time counts all threads (tomotopy-2's two workers twice); on a shared
    machine it is steadier than wall time.
    """
    start_wall, start_cpu = time.perf_counter(), time.process_time()
    contender.run(n_sweeps)
    return time.process_time() - start_cpu, time.perf_counter() - start_wall


def log_joint(contender) -> float:
    """``log p(w, z)`` of a contender's current assignments, the same way for every one.

    The count tables are rebuilt from the topics (``zoo.models.lda.counts.log_joint``,
    Griffiths & Steyvers 2004, eqs. 2-3) whatever the contender keeps, with alpha = 0.1
    per topic and beta = 0.01 per word; V is the corpus's vocabulary (words that never
    occur add nothing). Not part of any timed interval.
    """
    corpus, topic = contender.assignments()
    n_topics = contender.n_topics
    alpha, beta, _ = hyper(n_topics, contender.n_words)
    return counts.log_joint(corpus, topic, alpha, beta)


CONTENDERS = {
    cls.name: cls
    for cls in (
        Zoo,
        ZooGibbs2,
        ZooMH,
        ZooMH2,
        ZooMHCycles1,
        ZooMHCycles3,
        ZooMHCycles4,
        ZooMHCycles6,
        ZooMHDocDoc,
        zoo_auto,
        Tomotopy,
        Tomotopy2,
        LdaPackage,
    )
}
PEERS = ("tomotopy", "tomotopy-2", "lda")


def versions() -> dict:
    """The machine (``bench/host.py``'s processor name) and the versions of what runs."""
    import lda
    import numba
    import tomotopy

    return {
        "machine": platform.platform(),
        "cpu": cpu_name(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "tomotopy": tomotopy.__version__,
        "tomotopy_isa": tomotopy.isa,
        "lda": getattr(lda, "__version__", "3.0.2"),
    }


def corpus_info(corpus: BenchCorpus) -> dict:
    if corpus.name == "reuters":
        title = "Reuters (lda.datasets)"
    else:
        title = (
            f"a synthetic Zipf corpus (seed {ZIPF_SEED}; {ZIPF_TRUE_TOPICS} true topics, "
            f"Zipf exponent {ZIPF_EXPONENT}, 1 + Poisson({ZIPF_MEAN_LENGTH - 1}) lengths)"
        )
    return {
        "name": corpus.name,
        "title": title,
        "n_tokens": corpus.n_tokens,
        "n_docs": corpus.n_docs,
        "n_words": corpus.n_words,
        "n_words_used": int(np.count_nonzero(np.bincount(corpus.token_word))),
    }

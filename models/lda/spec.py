"""Latent Dirichlet allocation: hyperparameters, the corpus, and prior simulation.

The model (Blei, Ng & Jordan, JMLR 3, 2003; Griffiths & Steyvers, PNAS 101, 2004):

    theta_d ~ Dir(alpha)        topic proportions of document d      (K,)
    phi_k   ~ Dir(beta)         word distribution of topic k         (V,)
    z_i | theta ~ Cat(theta_{d_i})                  topic of token i
    w_i | z_i, phi ~ Cat(phi_{z_i})                 word of token i

``alpha`` is a scalar (symmetric) or a (K,) array; ``beta`` a scalar or a (V,) array
shared by every topic. With a symmetric ``alpha`` the topics are exchangeable and their
labels are not identified (DESIGN.md, "Pitfalls"), so the two label-invariant variables
below are what engines are compared on; an asymmetric ``alpha`` breaks the symmetry and
``theta`` and ``phi`` are compared as well.

Label-invariant variables, one value per posterior draw:

``doc_word`` (dim ``doc_word_pair``)
    ``sum_k theta_dk phi_kw`` for chosen (document, word) pairs: the probability that
    the next word of document d is w.
``coassignment`` (dim ``token_pair``)
    ``sum_k r_ik r_jk`` for chosen token pairs (i, j), ``i != j``, where
    ``r_ik = theta_{d_i k} phi_{k w_i} / sum_k' theta_{d_i k'} phi_{k' w_i}`` is
    ``p(z_i = k | theta, phi, w)``. Given theta and phi the topics are independent,
    so this is ``E[1{z_i = z_j} | theta, phi, w]`` and its posterior mean is the
    co-assignment probability ``P(z_i = z_j | w)`` (Rao-Blackwellised: lower variance
    than the indicator).

Which pairs are tracked is a field of :class:`Data`: every pair on a tiny corpus, a
small deterministic sample otherwise (``D V`` pairs and ``N^2`` token pairs per draw
would not fit in memory on a real corpus), or the caller's own list.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_count_array, as_positive_array
from zoo.models.lda.counts import count_dtype, topic_dtype

__all__ = ["AUTO_PAIRS", "Corpus", "Data", "Hyperparameters", "Prior", "simulate"]

# "auto" tracks every pair when there are at most this many (a tiny corpus: 66 token
# pairs is 12 tokens), and otherwise a sample of at most _SAMPLED_PAIRS.
AUTO_PAIRS = 100
_SAMPLED_PAIRS = 12


def _hyper(field: str, value) -> float | np.ndarray:
    """Validate one hyperparameter: a positive scalar or a read-only (n,) array."""
    if isinstance(value, bool):
        raise ValueError(f"{field}: expected positive numbers, got {value!r}")
    array = as_positive_array(field, value)
    if array.ndim == 0:
        return float(array)
    if array.ndim != 1:
        raise ValueError(f"{field}: expected a scalar or a 1-dimensional array, got {array.shape}")
    if array.size == 0:
        raise ValueError(f"{field}: expected positive numbers, got an empty array")
    array.flags.writeable = False
    return array


class Hyperparameters(NamedTuple):
    """Hyperparameters broadcast to the data: alpha (K,), beta (V,), beta_sum = sum(beta)."""

    alpha: np.ndarray
    beta: np.ndarray
    beta_sum: float


@dataclass(frozen=True, eq=False)
class Prior:
    """Dirichlet hyperparameters of LDA.

    Parameters
    ----------
    alpha : float or array-like, shape (K,)
        Pseudo-counts of each document's topic proportions ``theta_d``. A scalar is the
        symmetric prior (exchangeable topics).
    beta : float or array-like, shape (V,)
        Pseudo-counts of each topic's word distribution ``phi_k``, shared by all topics.

    Notes
    -----
    Griffiths & Steyvers (2004) use ``alpha = 50 / K`` and ``beta = 0.1`` on real
    corpora; the defaults here (1, 1) are uniform Dirichlets, which suit tiny test
    corpora.
    """

    alpha: float | np.ndarray = 1.0
    beta: float | np.ndarray = 1.0

    def __post_init__(self):
        object.__setattr__(self, "alpha", _hyper("alpha", self.alpha))
        object.__setattr__(self, "beta", _hyper("beta", self.beta))

    @property
    def symmetric(self) -> bool:
        """True when ``alpha`` is the same for every topic (topic labels exchangeable).

        ``beta`` is shared by all topics, so it never tells them apart.
        """
        return np.ndim(self.alpha) == 0 or bool(np.all(self.alpha == self.alpha[0]))

    def resolve(self, data: Data) -> Hyperparameters:
        """Broadcast to ``alpha`` (K,) and ``beta`` (V,), as new float64 arrays.

        Raises
        ------
        ValueError
            Naming ``alpha`` or ``beta`` when an array's length is not K or V.
        """
        alpha = _broadcast("alpha", self.alpha, data.n_topics, "K topics")
        beta = _broadcast("beta", self.beta, data.n_words, "V words in the vocabulary")
        return Hyperparameters(alpha, beta, float(beta.sum()))


def _broadcast(field: str, value, size: int, what: str) -> np.ndarray:
    array = np.asarray(value, dtype=np.float64)
    if array.ndim == 1 and array.shape != (size,):
        raise ValueError(f"{field}: expected length {size} (the {what}), got {array.shape[0]}")
    return np.array(np.broadcast_to(array, (size,)), dtype=np.float64)


class Corpus(NamedTuple):
    """The tokens of a corpus in the layout every LDA sweep uses.

    Attributes
    ----------
    token_word : ndarray of int32, shape (N,)
        Word id of every token, documents concatenated in order.
    doc_start : ndarray of int64, shape (D + 1,)
        Offsets: document d's tokens are ``token_word[doc_start[d]:doc_start[d + 1]]``.
    """

    token_word: np.ndarray
    doc_start: np.ndarray


def _names(field: str, value, size: int) -> np.ndarray:
    names = np.arange(size) if value is None else np.array(value, copy=True)
    if names.shape != (size,):
        raise ValueError(f"{field}: expected {size} names, got shape {names.shape}")
    if len(np.unique(names)) != size:
        raise ValueError(f"{field}: names must be unique")
    names.flags.writeable = False
    return names


def _from_token_lists(documents) -> tuple[list[np.ndarray], int]:
    """Validate a list of token-id sequences; return them as int64 arrays and max id + 1."""
    rows = []
    top = 0
    for d, tokens in enumerate(documents):
        row = as_count_array(f"corpus[{d}]", np.asarray(tokens).reshape(-1), ndim=1)
        if row.size:
            top = max(top, int(row.max()) + 1)
        rows.append(row)
    return rows, top


def _from_matrix(matrix) -> tuple[list[np.ndarray], int]:
    """A (D, V) count matrix, dense or scipy.sparse, as token lists in word order.

    Dense and sparse input give the same tokens in the same order (ascending word id
    within a document), hence the same chains for the same seed.
    """
    n_words = int(matrix.shape[1])
    if hasattr(matrix, "tocsr"):
        csr = matrix.tocsr(copy=True)
        csr.sum_duplicates()
        csr.sort_indices()
        values = as_count_array("corpus", csr.data, ndim=1)
        rows = []
        for d in range(csr.shape[0]):
            part = slice(csr.indptr[d], csr.indptr[d + 1])
            rows.append(np.repeat(csr.indices[part].astype(np.int64), values[part]))
        return rows, n_words
    counts = as_count_array("corpus", matrix, ndim=2)
    columns = np.arange(n_words, dtype=np.int64)
    return [np.repeat(columns, row) for row in counts], n_words


def _is_matrix(corpus) -> bool:
    if hasattr(corpus, "tocsr") and hasattr(corpus, "shape"):
        return True
    return isinstance(corpus, np.ndarray) and corpus.ndim == 2 and corpus.dtype != object


def _pairs(field: str, value, bounds: tuple[int, int], auto_all: int, sample) -> np.ndarray:
    """Validate tracked pairs: 'auto', 'all', None or an (P, 2) integer array."""
    if isinstance(value, str):
        if value not in ("auto", "all"):
            raise ValueError(
                f"{field}: expected 'auto', 'all', None or (P, 2) indices, got {value!r}"
            )
        if value == "all" or auto_all <= AUTO_PAIRS:
            return sample(everything=True)
        return sample(everything=False)
    if value is None:
        return np.zeros((0, 2), dtype=np.int64)
    pairs = as_count_array(field, value, ndim=None)
    if pairs.size == 0:
        return np.zeros((0, 2), dtype=np.int64)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"{field}: expected an array of shape (P, 2), got {pairs.shape}")
    for column, bound in enumerate(bounds):
        bad = pairs[:, column] >= bound
        if bad.any():
            where = int(np.argmax(bad))
            raise ValueError(
                f"{field}: entry {where} has index {pairs[where, column]} in column {column}, "
                f"beyond the {bound} available"
            )
    if len(np.unique(pairs, axis=0)) != len(pairs):
        raise ValueError(f"{field}: pairs must be unique")
    return pairs


@dataclass(frozen=True, init=False, eq=False)
class Data:
    """A corpus of documents, the number of topics, and the pairs to track.

    Parameters
    ----------
    corpus : list of array-like of int, or array-like / scipy.sparse matrix (D, V)
        Either one sequence of word ids per document (in ``0 .. V-1``), or a
        document-term count matrix (a 2-dimensional NumPy array or any scipy.sparse
        format), whose tokens are then taken in ascending word order. A (nested) list
        is always read as token sequences. Empty documents are allowed; the corpus as a
        whole needs at least one token.
    topics : int
        ``K >= 1``, the number of topics (coordinate ``topic`` is ``0 .. K-1``).
    vocabulary : array-like, shape (V,), optional
        Word names, coordinate ``word``. Token lists without a vocabulary get
        ``V = max id + 1``; a count matrix fixes V by its number of columns.
    documents : array-like, shape (D,), optional
        Document names, coordinate ``document``; default ``0 .. D-1``.
    doc_word_pairs : "auto", "all", None or array-like of int, shape (P, 2)
        (document index, word index) pairs whose ``doc_word`` is reported per draw.
        "auto": all ``D V`` pairs when there are at most 100 (:data:`AUTO_PAIRS`),
        otherwise one pair per document for up to 12 evenly spaced non-empty
        documents, each with its most frequent word. None: no pair.
    token_pairs : "auto", "all", None or array-like of int, shape (P, 2)
        (i, j) token indices (in the concatenated order, ``i != j``) whose
        co-assignment is reported. "auto": all ``N (N - 1) / 2`` pairs ``i < j`` when
        there are at most 100, otherwise up to 12 pairs of neighbouring tokens, in
        evenly spaced documents with at least two tokens. None: no pair.

    Notes
    -----
    Input is copied, never modified; arrays are stored read-only. Word ids are
    checked here because PyTensor's Numba backend does not bounds-check indexing.
    Count dtypes: :attr:`count_dtypes` gives the narrowest unsigned integer types that
    hold ``doc_topic`` (bounded by the longest document) and ``word_topic`` (bounded by
    the most frequent word).
    """

    token_word: np.ndarray
    doc_start: np.ndarray
    n_topics: int
    vocabulary: np.ndarray
    documents: np.ndarray
    doc_word_pairs: np.ndarray
    token_pairs: np.ndarray

    def __init__(
        self,
        corpus,
        *,
        topics: int,
        vocabulary=None,
        documents=None,
        doc_word_pairs="auto",
        token_pairs="auto",
    ):
        if isinstance(topics, bool) or not isinstance(topics, numbers.Integral) or topics < 1:
            raise ValueError(f"topics: need an integer K >= 1, got {topics!r}")
        if isinstance(corpus, str | bytes) or corpus is None:
            raise ValueError(
                "corpus: expected a list of token-id arrays or a (D, V) count matrix, "
                f"got {type(corpus).__name__}"
            )
        if isinstance(corpus, np.ndarray) and corpus.ndim == 1 and corpus.dtype != object:
            raise ValueError(
                "corpus: a 1-dimensional array is ambiguous (one document, or one token per "
                "document?); pass a list of token-id arrays, e.g. [tokens] for one document"
            )
        if _is_matrix(corpus):
            rows, n_words = _from_matrix(corpus)
            if vocabulary is not None and len(vocabulary) != n_words:
                raise ValueError(
                    f"vocabulary: expected {n_words} names (the count matrix's columns), "
                    f"got {len(vocabulary)}"
                )
        else:
            try:
                documents_in = list(corpus)
            except TypeError as err:
                raise ValueError(
                    "corpus: expected a list of token-id arrays or a (D, V) count matrix, "
                    f"got {type(corpus).__name__}"
                ) from err
            rows, n_words = _from_token_lists(documents_in)
            if vocabulary is not None:
                size = len(vocabulary)
                if n_words > size:
                    bad = next(
                        (d, int(np.argmax(r >= size)))
                        for d, r in enumerate(rows)
                        if r.size and r.max() >= size
                    )
                    raise ValueError(
                        f"corpus: token {bad[1]} of document {bad[0]} has word id "
                        f"{rows[bad[0]][bad[1]]}, outside the vocabulary of {size} words"
                    )
                n_words = size
        if not rows:
            raise ValueError("corpus: need at least one document, got none")
        lengths = np.array([r.size for r in rows], dtype=np.int64)
        if lengths.sum() == 0:
            raise ValueError("corpus: the corpus has no tokens (every document is empty)")
        if n_words > np.iinfo(np.int32).max:
            raise ValueError(f"vocabulary: at most 2^31 - 1 words, got {n_words}")
        doc_start = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_start[1:])
        token_word = np.concatenate(rows).astype(np.int32)
        n_docs, n_tokens = len(rows), int(doc_start[-1])
        vocabulary = _names("vocabulary", vocabulary, n_words)
        documents = _names("documents", documents, n_docs)

        def doc_word_sample(*, everything: bool) -> np.ndarray:
            if everything:
                grid = np.indices((n_docs, n_words)).reshape(2, -1).T
                return grid.astype(np.int64)
            nonempty = np.flatnonzero(lengths)
            chosen = nonempty[_spread(nonempty.size, _SAMPLED_PAIRS)]
            words = [
                int(np.argmax(np.bincount(token_word[doc_start[d] : doc_start[d + 1]])))
                for d in chosen
            ]
            return np.column_stack([chosen, words]).astype(np.int64).reshape(-1, 2)

        def token_pair_sample(*, everything: bool) -> np.ndarray:
            if everything:
                i, j = np.triu_indices(n_tokens, k=1)
                return np.column_stack([i, j]).astype(np.int64)
            long_enough = np.flatnonzero(lengths >= 2)
            chosen = long_enough[_spread(long_enough.size, _SAMPLED_PAIRS)]
            first = doc_start[chosen]
            return np.column_stack([first, first + 1]).astype(np.int64).reshape(-1, 2)

        doc_word_pairs = _pairs(
            "doc_word_pairs", doc_word_pairs, (n_docs, n_words), n_docs * n_words, doc_word_sample
        )
        token_pairs = _pairs(
            "token_pairs",
            token_pairs,
            (n_tokens, n_tokens),
            n_tokens * (n_tokens - 1) // 2,
            token_pair_sample,
        )
        if token_pairs.size and (token_pairs[:, 0] == token_pairs[:, 1]).any():
            where = int(np.argmax(token_pairs[:, 0] == token_pairs[:, 1]))
            raise ValueError(
                f"token_pairs: entry {where} pairs token {token_pairs[where, 0]} with itself; "
                "co-assignment needs two different tokens"
            )
        for array in (token_word, doc_start, doc_word_pairs, token_pairs):
            array.flags.writeable = False
        object.__setattr__(self, "token_word", token_word)
        object.__setattr__(self, "doc_start", doc_start)
        object.__setattr__(self, "n_topics", int(topics))
        object.__setattr__(self, "vocabulary", vocabulary)
        object.__setattr__(self, "documents", documents)
        object.__setattr__(self, "doc_word_pairs", doc_word_pairs)
        object.__setattr__(self, "token_pairs", token_pairs)

    @property
    def n_documents(self) -> int:
        """``D``."""
        return int(self.doc_start.shape[0] - 1)

    @property
    def n_words(self) -> int:
        """``V``, the vocabulary size."""
        return int(self.vocabulary.shape[0])

    @property
    def n_tokens(self) -> int:
        """``N``, the number of tokens in the corpus."""
        return int(self.token_word.shape[0])

    @property
    def corpus(self) -> Corpus:
        """``(token_word, doc_start)``, the layout of the sweep."""
        return Corpus(self.token_word, self.doc_start)

    # Derived arrays are computed once (the kernel reads them every sweep) and stored
    # read-only; cached_property writes past the frozen dataclass's __setattr__.
    @cached_property
    def lengths(self) -> np.ndarray:
        """Tokens per document, shape (D,)."""
        return _read_only(np.diff(self.doc_start))

    @cached_property
    def token_document(self) -> np.ndarray:
        """Document index of every token, shape (N,)."""
        return _read_only(np.repeat(np.arange(self.n_documents, dtype=np.int64), self.lengths))

    @cached_property
    def word_frequency(self) -> np.ndarray:
        """Occurrences of each word in the corpus, shape (V,)."""
        return _read_only(np.bincount(self.token_word, minlength=self.n_words).astype(np.int64))

    @cached_property
    def paired_tokens(self) -> tuple[np.ndarray, np.ndarray]:
        """The distinct tokens in :attr:`token_pairs`, and each pair as indices into them."""
        tokens, inverse = np.unique(self.token_pairs, return_inverse=True)
        return _read_only(tokens), _read_only(inverse.reshape(self.token_pairs.shape))

    def counts(self) -> np.ndarray:
        """The document-term count matrix, shape (D, V), dense int64."""
        matrix = np.zeros((self.n_documents, self.n_words), dtype=np.int64)
        np.add.at(matrix, (self.token_document, self.token_word), 1)
        return matrix

    @cached_property
    def topic_dtype(self) -> np.dtype:
        """Unsigned type of the topic assignments: uint8 up to 256 topics, then 16, 32."""
        return topic_dtype(self.n_topics)

    @cached_property
    def count_dtypes(self) -> tuple[np.dtype, np.dtype]:
        """Narrowest safe unsigned types of ``doc_topic`` and ``word_topic``.

        A document-topic count never exceeds the longest document, a word-topic count
        never exceeds the word's frequency in the corpus.
        """
        return (
            count_dtype(int(self.lengths.max())),
            count_dtype(int(self.word_frequency.max())),
        )

    @property
    def coords(self) -> dict[str, np.ndarray]:
        """Coordinates of the model's dims.

        ``doc_word_pair`` labels read ``document:word``; ``token_pair`` labels ``i-j``.
        """
        docs, words = self.documents, self.vocabulary
        doc_word = np.array(
            [f"{docs[d]}:{words[w]}" for d, w in self.doc_word_pairs], dtype=object
        ).astype(str)
        if len(np.unique(doc_word)) != len(doc_word):
            # Names with ':' in them can collide; indices never do.
            doc_word = np.array([f"{d}:{w}" for d, w in self.doc_word_pairs]).astype(str)
        return {
            "document": self.documents,
            "topic": np.arange(self.n_topics),
            "word": self.vocabulary,
            "token": np.arange(self.n_tokens),
            "doc_word_pair": doc_word.reshape(-1),
            "token_pair": np.array([f"{i}-{j}" for i, j in self.token_pairs]).astype(str),
        }

    def stored_arguments(self) -> dict:
        """Keyword arguments that rebuild this corpus (saved runs, ``zoo.runs.problem_dataset``).

        The flattened token arrays become one token list per document again; the
        tracked pairs are passed explicitly, so "auto" choices are not made afresh.
        """
        return {
            "corpus": [
                np.array(self.token_word[start:stop], dtype=np.int64)
                for start, stop in zip(self.doc_start[:-1], self.doc_start[1:], strict=True)
            ],
            "topics": int(self.n_topics),
            "vocabulary": np.asarray(self.vocabulary),
            "documents": np.asarray(self.documents),
            "doc_word_pairs": np.asarray(self.doc_word_pairs, dtype=np.int64).reshape(-1, 2),
            "token_pairs": np.asarray(self.token_pairs, dtype=np.int64).reshape(-1, 2),
        }

    @property
    def observed_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Observed variables with their dims: the word of every token."""
        return {"token_word": (self.token_word.astype(np.int64), ("token",))}

    @property
    def constant_data(self) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
        """Fixed inputs: the document of every token."""
        return {"token_document": (self.token_document, ("token",))}


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


def _spread(available: int, wanted: int) -> np.ndarray:
    """Up to ``wanted`` indices evenly spaced over ``range(available)``."""
    return np.unique(np.linspace(0, available - 1, num=min(available, wanted)).astype(int))


def simulate(
    prior: Prior,
    rng: np.random.Generator,
    *,
    topics: int = 2,
    words: int = 4,
    documents: int = 3,
    length: int = 3,
    doc_word_pairs="auto",
    token_pairs="auto",
):
    """Draw ``(truth, data)`` from the prior predictive distribution.

    Parameters
    ----------
    prior : Prior
    rng : numpy.random.Generator
    topics, words, documents, length : int
        ``K``, ``V``, ``D`` and the number of tokens per document.
    doc_word_pairs, token_pairs
        As for :class:`Data`.

    Returns
    -------
    truth : dict of str to ndarray
        ``theta``, ``phi``, ``doc_word`` and ``coassignment`` at the true parameters
        (the last two computed from theta and phi as both engines compute them per
        draw), so its keys are the model's variables.
    data : Data
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng: expected a numpy.random.Generator, got {type(rng).__name__}")
    for field, value in (
        ("topics", topics),
        ("words", words),
        ("documents", documents),
        ("length", length),
    ):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
            raise ValueError(f"{field}: must be an integer >= 1, got {value!r}")
    alpha = _broadcast("alpha", prior.alpha, topics, "K topics")
    beta = _broadcast("beta", prior.beta, words, "V words in the vocabulary")
    theta = rng.dirichlet(alpha, size=documents)
    phi = rng.dirichlet(beta, size=topics)
    corpus = []
    for d in range(documents):
        topic = rng.choice(topics, size=length, p=theta[d])
        corpus.append(np.array([rng.choice(words, p=phi[k]) for k in topic], dtype=np.int64))
    data = Data(
        corpus,
        topics=topics,
        vocabulary=np.arange(words),
        doc_word_pairs=doc_word_pairs,
        token_pairs=token_pairs,
    )
    from zoo.models.lda.posterior import label_invariants

    truth = {"theta": theta, "phi": phi, **label_invariants(data, theta, phi)}
    return truth, data

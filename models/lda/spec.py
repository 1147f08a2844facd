"""Latent Dirichlet allocation: hyperparameters, the corpus, and prior simulation.

The model (Blei, Ng & Jordan, JMLR 3, 2003; Griffiths & Steyvers, PNAS 101, 2004):

    theta_d ~ Dir(alpha)        topic proportions of document d      (K,)
    phi_k   ~ Dir(beta)         word distribution of topic k         (V,)
    z_i | theta ~ Cat(theta_{d_i})                  topic of token i
    w_i | z_i, phi ~ Cat(phi_{z_i})                 word of token i

``alpha`` is a scalar (symmetric) or a (K,) array; ``beta`` a scalar or a (V,) array
shared by every topic. With a symmetric ``alpha`` the topics are exchangeable and their
labels are not identified (docs/design.md, "Pitfalls"), so the two label-invariant
variables (``doc_word``, ``coassignment``: :mod:`zoo.models.lda.invariants`) are what
engines are compared on; an asymmetric ``alpha`` breaks the symmetry and ``theta`` and
``phi`` are compared as well.

:class:`Data` composes the parsed corpus (:mod:`zoo.models.lda.corpus`) and the pairs
the diagnostics track (:mod:`zoo.models.lda.pairs`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_int, check_generator
from zoo.models.arrays import as_hyperparameter, read_only
from zoo.models.labelings import categorical
from zoo.models.lda.corpus import Corpus, read_corpus
from zoo.models.lda.counts import count_dtype, topic_dtype
from zoo.models.lda.invariants import label_invariants
from zoo.models.lda.pairs import TrackedPairs, track
from zoo.models.simplex import dirichlet

__all__ = ["Data", "Hyperparameters", "Prior", "augment", "simulate"]


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
        object.__setattr__(self, "alpha", as_hyperparameter("alpha", self.alpha, max_ndim=1))
        object.__setattr__(self, "beta", as_hyperparameter("beta", self.beta, max_ndim=1))

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


def _names(field: str, value, size: int) -> np.ndarray:
    names = np.arange(size) if value is None else np.array(value, copy=True)
    if names.shape != (size,):
        raise ValueError(f"{field}: expected {size} names, got shape {names.shape}")
    if len(np.unique(names)) != size:
        raise ValueError(f"{field}: names must be unique")
    names.flags.writeable = False
    return names


@dataclass(frozen=True, init=False, eq=False)
class Data:
    """A corpus of documents, the number of topics, and the pairs to track.

    Composes the parsed corpus (:func:`zoo.models.lda.corpus.read_corpus`) and the
    tracked pairs (:func:`zoo.models.lda.pairs.track`) with the names of the documents
    and words.

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
        (document index, word index) pairs whose ``doc_word`` is reported per draw
        (:func:`zoo.models.lda.pairs.track`): "auto" is every pair when there are at
        most 100, else a small deterministic sample.
    token_pairs : "auto", "all", None or array-like of int, shape (P, 2)
        (i, j) token indices (in the concatenated order, ``i != j``) whose
        co-assignment is reported; "auto" as for ``doc_word_pairs``.

    Notes
    -----
    Input is copied, never modified; arrays are stored read-only. Word ids are
    checked here because PyTensor's Numba backend does not bounds-check indexing.
    Count dtypes: :attr:`count_dtypes` gives the narrowest unsigned integer types that
    hold ``doc_topic`` (bounded by the longest document) and ``word_topic`` (bounded by
    the most frequent word).
    """

    corpus: Corpus
    n_topics: int
    vocabulary: np.ndarray
    documents: np.ndarray
    tracked: TrackedPairs

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
        topics = as_int("topics", topics, minimum=1)
        n_words = None if vocabulary is None else len(vocabulary)
        flat, n_words = read_corpus(corpus, n_words=n_words)
        vocabulary = _names("vocabulary", vocabulary, n_words)
        documents = _names("documents", documents, flat.doc_start.shape[0] - 1)
        tracked = track(flat, n_words, doc_word_pairs=doc_word_pairs, token_pairs=token_pairs)
        object.__setattr__(self, "corpus", flat)
        object.__setattr__(self, "n_topics", topics)
        object.__setattr__(self, "vocabulary", vocabulary)
        object.__setattr__(self, "documents", documents)
        object.__setattr__(self, "tracked", tracked)

    def with_words(self, token_word) -> Data:
        """The same documents, vocabulary, topics and tracked pairs with new word ids.

        For Geweke's test, which redraws every word given its topic each iteration:
        the document layout and the tracked pairs (already checked against it) are
        kept, so only the word ids are checked (integers within the vocabulary), not
        the whole corpus parsed again (which took a third of an LDA Geweke run).

        Parameters
        ----------
        token_word : array-like of int, shape (N,)
            The new word of every token, documents concatenated in order.

        Raises
        ------
        ValueError
            Naming ``token_word``: a shape other than (N,), or an id outside ``0 .. V-1``.
        """
        words = np.asarray(token_word)
        if words.shape != (self.n_tokens,) or not np.issubdtype(words.dtype, np.integer):
            raise ValueError(
                f"token_word: expected {self.n_tokens} integer word ids, got "
                f"{words.dtype} of shape {words.shape}"
            )
        if words.size and (words.min() < 0 or words.max() >= self.n_words):
            raise ValueError(
                f"token_word: word ids must lie in 0 .. {self.n_words - 1}, got "
                f"{words.min()} .. {words.max()}"
            )
        new = object.__new__(Data)
        flat = Corpus(read_only(words.astype(np.int32)), self.doc_start)
        object.__setattr__(new, "corpus", flat)
        for name in ("n_topics", "vocabulary", "documents", "tracked"):
            object.__setattr__(new, name, getattr(self, name))
        # Layout-only cached values carry over; those of the words (frequencies, count
        # dtypes) are computed afresh.
        for name in ("lengths", "token_document", "topic_dtype"):
            if name in self.__dict__:
                new.__dict__[name] = self.__dict__[name]
        return new

    @property
    def token_word(self) -> np.ndarray:
        """Word id of every token, int32 (N,), documents concatenated in order."""
        return self.corpus.token_word

    @property
    def doc_start(self) -> np.ndarray:
        """Offsets, int64 (D + 1,): document d holds tokens ``doc_start[d]:doc_start[d+1]``."""
        return self.corpus.doc_start

    @property
    def doc_word_pairs(self) -> np.ndarray:
        """Tracked (document, word) pairs, int64 (P, 2)."""
        return self.tracked.doc_word

    @property
    def token_pairs(self) -> np.ndarray:
        """Tracked (i, j) token pairs, int64 (Q, 2)."""
        return self.tracked.token

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

    # Derived arrays are computed once (the kernel reads them every sweep) and stored
    # read-only; cached_property writes past the frozen dataclass's __setattr__.
    @cached_property
    def lengths(self) -> np.ndarray:
        """Tokens per document, shape (D,)."""
        return read_only(np.diff(self.doc_start))

    @cached_property
    def token_document(self) -> np.ndarray:
        """Document index of every token, shape (N,)."""
        return read_only(np.repeat(np.arange(self.n_documents, dtype=np.int64), self.lengths))

    @cached_property
    def word_frequency(self) -> np.ndarray:
        """Occurrences of each word in the corpus, shape (V,)."""
        return read_only(np.bincount(self.token_word, minlength=self.n_words).astype(np.int64))

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
    check_generator("rng", rng)
    for field, value in (
        ("topics", topics),
        ("words", words),
        ("documents", documents),
        ("length", length),
    ):
        as_int(field, value, minimum=1)
    alpha = _broadcast("alpha", prior.alpha, topics, "K topics")
    beta = _broadcast("beta", prior.beta, words, "V words in the vocabulary")
    theta = dirichlet(rng, alpha, size=documents)
    phi = dirichlet(rng, beta, size=topics)
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
    truth = {"theta": theta, "phi": phi, **label_invariants(data, theta, phi)}
    return truth, data


def augment(data: Data, params, prior: Prior, rng: np.random.Generator) -> Data:
    """``data`` with as many new tokens again in every document, drawn given ``params``.

    The observation axis is a document's tokens: each new token of document ``d`` takes
    a topic from ``theta_d`` and a word from that topic's ``phi``, independent of the
    observed tokens given ``(theta, phi)``, and is appended after the document's own.
    The tracked pairs are those of ``data`` (token indices moved to where the observed
    tokens now stand), so every variable means what it meant for ``data``. What
    posterior SBC fits.
    """
    check_generator("rng", rng)
    theta = np.asarray(params["theta"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    shapes = ((len(data.documents), data.n_topics), (data.n_topics, data.n_words))
    if (theta.shape, phi.shape) != shapes:
        raise ValueError(
            f"params: theta and phi must have shapes {shapes[0]} and {shapes[1]}, got "
            f"{theta.shape} and {phi.shape}"
        )
    lengths = np.diff(data.doc_start)
    documents = np.repeat(np.arange(len(lengths)), lengths)
    topics = categorical(theta[documents], rng)
    words = categorical(phi[topics], rng)
    corpus, offset = [], np.zeros(len(lengths), dtype=np.int64)
    for d, (start, end) in enumerate(zip(data.doc_start[:-1], data.doc_start[1:], strict=True)):
        corpus.append(np.concatenate([data.token_word[start:end], words[start:end]]))
        offset[d] = start  # document d now starts at 2 * start: its tokens move by start
    moved = data.token_pairs + offset[documents[data.token_pairs]] if data.n_tokens else None
    return Data(
        corpus,
        topics=data.n_topics,
        vocabulary=data.vocabulary,
        documents=data.documents,
        doc_word_pairs=data.doc_word_pairs if len(data.doc_word_pairs) else None,
        token_pairs=moved if moved is not None and len(moved) else None,
    )

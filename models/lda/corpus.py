"""LDA: the corpus, parsed from either input format into the flat layout every sweep uses.

A corpus is stored flat, the tokens of all documents concatenated in document order
(the layout of Griffiths & Steyvers' sampler, "Finding scientific topics", PNAS 101,
2004, and of SparseLDA, Yao, Mimno & McCallum, KDD 2009):

- ``token_word`` int32 (N,): the word id of every token;
- ``doc_start`` int64 (D + 1,): document ``d`` holds tokens ``doc_start[d]:doc_start[d + 1]``
  (empty documents allowed).

:func:`read_corpus` accepts a list of token-id sequences or a document-term count matrix
(dense or scipy.sparse) and raises ``ValueError`` naming the field and the rule before any
work; :func:`check_corpus` checks arrays already in the flat layout. Which (document,
word) and token pairs the diagnostics track is chosen elsewhere
(:mod:`zoo.models.lda.pairs`).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_count_array

__all__ = ["Corpus", "check_corpus", "read_corpus"]


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

    @property
    def lengths(self) -> np.ndarray:
        """Tokens per document, shape (D,)."""
        return np.diff(self.doc_start)


def _from_token_lists(documents) -> tuple[list[np.ndarray], int]:
    """Validate a list of token-id sequences; return them as int64 arrays and max id + 1."""
    rows = []
    top = 0
    for d, tokens in enumerate(documents):
        # ndim=1: a 2-D document was once flattened without a word.
        row = as_count_array(f"corpus[{d}]", tokens, ndim=1)
        if row.size:
            top = max(top, int(row.max()) + 1)
        rows.append(row)
    return rows, top


#: A vocabulary inferred from token ids (the largest id + 1) may exceed the words that
#: occur by this factor, plus the slack below, before it is taken for a mistake.
_SPARSE_IDS_FACTOR, _SPARSE_IDS_SLACK = 100, 10_000


def _check_inferred_vocabulary(rows: list[np.ndarray], top: int) -> None:
    """Refuse a vocabulary inferred from ids far beyond the words that occur.

    Every count table has a row per word of the vocabulary: ids ``[0, 10**8]`` made a
    vocabulary of 10^8 words for two tokens (243 s and 10 GB before any sweep). Ids that
    sparse are hashed or global ids; the caller knows the vocabulary and should say so.
    """
    occurring = np.unique(np.concatenate(rows)).size if rows else 0
    if top > _SPARSE_IDS_FACTOR * occurring + _SPARSE_IDS_SLACK:
        raise ValueError(
            f"corpus: word ids go up to {top - 1} but only {occurring} distinct words "
            f"occur; a vocabulary of {top} words would size every count table. Map the "
            "ids to 0 .. V-1, or pass vocabulary= (V names) to keep them"
        )


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


def _not_a_corpus(corpus) -> ValueError:
    return ValueError(
        "corpus: expected a list of token-id arrays or a (D, V) count matrix, "
        f"got {type(corpus).__name__}"
    )


def read_corpus(corpus, *, n_words: int | None = None) -> tuple[Corpus, int]:
    """Parse a corpus in either input format into the flat layout.

    Parameters
    ----------
    corpus : list of array-like of int, or array-like / scipy.sparse matrix (D, V)
        One sequence of word ids per document (in ``0 .. V-1``), or a document-term
        count matrix (a 2-dimensional NumPy array or any scipy.sparse format), whose
        tokens are then taken in ascending word order. A (nested) list is always read as
        token sequences. Empty documents are allowed; the corpus needs one token at least.
    n_words : int, optional
        ``V``, the size of the vocabulary when the caller has one: token ids must lie
        below it, and a count matrix must have that many columns. Default: a count
        matrix's number of columns, or the largest token id + 1.

    Returns
    -------
    corpus : Corpus
        New, read-only arrays (the input is copied, never modified).
    n_words : int
        ``V``.

    Raises
    ------
    ValueError
        Naming ``corpus`` (or ``corpus[d]``) or ``vocabulary`` and the broken rule. Word
        ids are checked here because neither numba nor PyTensor's Numba backend
        bounds-checks indexing.
    """
    if isinstance(corpus, str | bytes) or corpus is None:
        raise _not_a_corpus(corpus)
    if isinstance(corpus, np.ndarray) and corpus.ndim == 1 and corpus.dtype != object:
        raise ValueError(
            "corpus: a 1-dimensional array is ambiguous (one document, or one token per "
            "document?); pass a list of token-id arrays, e.g. [tokens] for one document"
        )
    if _is_matrix(corpus):
        rows, columns = _from_matrix(corpus)
        if n_words is not None and n_words != columns:
            raise ValueError(
                f"vocabulary: expected {columns} names (the count matrix's columns), got {n_words}"
            )
        n_words = columns
    else:
        try:
            documents = list(corpus)
        except TypeError as err:
            raise _not_a_corpus(corpus) from err
        rows, top = _from_token_lists(documents)
        if n_words is not None and top > n_words:
            d, row = next((d, r) for d, r in enumerate(rows) if r.size and r.max() >= n_words)
            i = int(np.argmax(row >= n_words))
            raise ValueError(
                f"corpus: token {i} of document {d} has word id {row[i]}, outside the "
                f"vocabulary of {n_words} words"
            )
        if n_words is None:
            _check_inferred_vocabulary(rows, top)
        n_words = top if n_words is None else n_words
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
    token_word.flags.writeable = False
    doc_start.flags.writeable = False
    return Corpus(token_word, doc_start), int(n_words)


def check_corpus(corpus: Corpus, n_words: int) -> None:
    """Raise ``ValueError`` unless ``corpus`` is a valid flat corpus over ``n_words`` words.

    For arrays built elsewhere (the benchmarks, the count helpers): the sweeps do not
    bounds-check (numba does not either), so an out-of-range word id would silently read
    another word's counts; ids are checked here, once.
    """
    token_word, doc_start = corpus
    if token_word.ndim != 1 or token_word.dtype != np.int32:
        raise ValueError(
            f"token_word: must be 1-d int32, got {token_word.dtype} {token_word.shape}"
        )
    if doc_start.ndim != 1 or doc_start.dtype != np.int64 or doc_start.shape[0] < 1:
        raise ValueError("doc_start: must be 1-d int64 of length D + 1 >= 1")
    if doc_start[0] != 0 or doc_start[-1] != token_word.shape[0]:
        raise ValueError("doc_start: must start at 0 and end at the number of tokens")
    if np.any(np.diff(doc_start) < 0):
        raise ValueError("doc_start: must be non-decreasing")
    if token_word.shape[0] and (token_word.min() < 0 or token_word.max() >= n_words):
        raise ValueError(f"token_word: word ids must lie in [0, {n_words})")

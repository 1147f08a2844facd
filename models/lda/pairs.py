"""LDA: which (document, word) pairs and token pairs the diagnostics track.

Every draw reports ``doc_word`` for tracked (document, word) pairs and ``coassignment``
for tracked token pairs (:mod:`zoo.models.lda.invariants`). ``D V`` and ``N^2`` values
per draw would not fit in memory on a real corpus, so :func:`track` takes every pair on
a tiny corpus, a small deterministic sample otherwise, or the caller's own list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from zoo.core.arguments import as_count_array
from zoo.models.lda.corpus import Corpus

__all__ = ["AUTO_PAIRS", "TrackedPairs", "track"]

# "auto" tracks every pair when there are at most this many (a tiny corpus: 66 token
# pairs is 12 tokens), and otherwise a sample of at most _SAMPLED_PAIRS.
AUTO_PAIRS = 100
_SAMPLED_PAIRS = 12


class TrackedPairs(NamedTuple):
    """The pairs reported per draw, as read-only int64 arrays.

    Attributes
    ----------
    doc_word : ndarray, shape (P, 2)
        (document, word) index pairs of ``doc_word``.
    token : ndarray, shape (Q, 2)
        (i, j) token index pairs of ``coassignment`` (``i != j``).
    """

    doc_word: np.ndarray
    token: np.ndarray


def _spread(available: int, wanted: int) -> np.ndarray:
    """Up to ``wanted`` indices evenly spaced over ``range(available)``."""
    return np.unique(np.linspace(0, available - 1, num=min(available, wanted)).astype(int))


def _doc_word_sample(corpus: Corpus, n_words: int, *, everything: bool) -> np.ndarray:
    """All D V pairs, or up to 12 evenly spaced non-empty documents with their top word."""
    n_docs = corpus.doc_start.shape[0] - 1
    if everything:
        return np.indices((n_docs, n_words)).reshape(2, -1).T.astype(np.int64)
    token_word, doc_start = corpus
    nonempty = np.flatnonzero(corpus.lengths)
    chosen = nonempty[_spread(nonempty.size, _SAMPLED_PAIRS)]
    words = [
        int(np.argmax(np.bincount(token_word[doc_start[d] : doc_start[d + 1]]))) for d in chosen
    ]
    return np.column_stack([chosen, words]).astype(np.int64).reshape(-1, 2)


def _token_pair_sample(corpus: Corpus, *, everything: bool) -> np.ndarray:
    """All pairs i < j, or the first two tokens of up to 12 evenly spaced documents."""
    if everything:
        i, j = np.triu_indices(corpus.token_word.shape[0], k=1)
        return np.column_stack([i, j]).astype(np.int64)
    long_enough = np.flatnonzero(corpus.lengths >= 2)
    chosen = long_enough[_spread(long_enough.size, _SAMPLED_PAIRS)]
    first = corpus.doc_start[chosen]
    return np.column_stack([first, first + 1]).astype(np.int64).reshape(-1, 2)


def _pairs(
    field: str, value, bounds: tuple[int, int], total: int, sample: Callable[..., np.ndarray]
) -> np.ndarray:
    """Validate tracked pairs: 'auto', 'all', None or an (P, 2) integer array."""
    if isinstance(value, str):
        if value not in ("auto", "all"):
            raise ValueError(
                f"{field}: expected 'auto', 'all', None or (P, 2) indices, got {value!r}"
            )
        return sample(everything=value == "all" or total <= AUTO_PAIRS)
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


def track(corpus: Corpus, n_words: int, *, doc_word_pairs, token_pairs) -> TrackedPairs:
    """Choose (or validate) the pairs reported per draw.

    Parameters
    ----------
    corpus : Corpus
    n_words : int
        ``V``.
    doc_word_pairs : "auto", "all", None or array-like of int, shape (P, 2)
        (document, word) pairs. "auto": all ``D V`` pairs when there are at most 100
        (:data:`AUTO_PAIRS`), otherwise one pair per document for up to 12 evenly spaced
        non-empty documents, each with its most frequent word. None: no pair.
    token_pairs : "auto", "all", None or array-like of int, shape (P, 2)
        (i, j) token indices (``i != j``). "auto": all ``N (N - 1) / 2`` pairs ``i < j``
        when there are at most 100, otherwise up to 12 pairs of neighbouring tokens, in
        evenly spaced documents with at least two tokens. None: no pair.

    Raises
    ------
    ValueError
        Naming ``doc_word_pairs`` or ``token_pairs`` and the broken rule.
    """
    n_docs = corpus.doc_start.shape[0] - 1
    n_tokens = corpus.token_word.shape[0]
    doc_word = _pairs(
        "doc_word_pairs",
        doc_word_pairs,
        (n_docs, n_words),
        n_docs * n_words,
        lambda everything: _doc_word_sample(corpus, n_words, everything=everything),
    )
    token = _pairs(
        "token_pairs",
        token_pairs,
        (n_tokens, n_tokens),
        n_tokens * (n_tokens - 1) // 2,
        lambda everything: _token_pair_sample(corpus, everything=everything),
    )
    same = token[:, 0] == token[:, 1]
    if same.any():
        where = int(np.argmax(same))
        raise ValueError(
            f"token_pairs: entry {where} pairs token {token[where, 0]} with itself; "
            "co-assignment needs two different tokens"
        )
    doc_word.flags.writeable = False
    token.flags.writeable = False
    return TrackedPairs(doc_word, token)

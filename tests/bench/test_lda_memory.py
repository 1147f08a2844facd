"""bench.lda_memory's pieces that decide what its comparison measures."""

from __future__ import annotations

import numpy as np
import pytest

from bench.lda_memory import FileTokens, contenders_table, toy_corpus
from zoo.models.lda import counts
from zoo.models.lda.counts import count_dtype


@pytest.mark.parametrize(("longest", "most_frequent"), [(300, 70_000), (900, 10), (5, 5)])
def test_the_toy_corpus_gives_the_real_corpus_count_dtypes(longest, most_frequent):
    # The warm-up must load the kernels of the real run's dtypes, so that compiling
    # them is part of the baseline and not of the sampler's memory.
    toy = toy_corpus(longest, most_frequent)
    lengths = np.diff(toy.doc_start)
    frequency = np.bincount(toy.token_word, minlength=toy.n_words)
    assert lengths.max() == longest and frequency.max() == most_frequent
    topic = np.zeros(toy.n_tokens, dtype=counts.topic_dtype(20))
    state = counts.build_state(toy.corpus, topic, n_topics=20, n_words=toy.n_words)
    assert state.doc_topic.dtype == count_dtype(longest)
    assert state.word_topic.dtype == count_dtype(most_frequent)


def test_file_tokens_reads_the_slices_of_the_saved_array(tmp_path):
    words = np.random.default_rng(0).integers(0, 50, 1_000).astype(np.int32)
    np.save(tmp_path / "token_word.npy", words)
    tokens = FileTokens(tmp_path / "token_word.npy")
    assert tokens.shape == words.shape
    for lo, hi in [(0, 10), (995, 1_000), (17, 17), (3, 600)]:
        assert np.array_equal(tokens[lo:hi], words[lo:hi])


def test_the_table_puts_tomotopy_over_each_zoo_sampler():
    def measured(peak, held, arrays=None):
        row = {"peak_bytes_per_token": peak, "held_bytes_per_token": held}
        return row if arrays is None else {**row, "array_bytes": arrays}

    run = {
        "date": "2026-11-26T17:00:00+00:00",
        "commit": "0123456789",
        "dirty": False,
        "corpus": {"name": "zipf", "n_tokens": 10},
        "topics": 100,
        "sweeps": 2,
        "contenders": {
            "zoo": measured(10.0, 8.0, 80),
            "zoo-mh": measured(16.0, 16.0, 150),
            "tomotopy": measured(20.0, 20.0),
        },
    }
    row = contenders_table([run]).splitlines()[-1]
    assert row == (
        "| 2026-11-26 | 0123456 | zipf | 10 | 100 | 2 | 10.0 (8.0) | 16.0 (16.0) "
        "| 20.0 (20.0) | 2.00 | 1.25 | 8.0 | 15.0 |"
    )

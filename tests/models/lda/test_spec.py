"""LDA's augment: as many new tokens again per document, the tracked pairs kept."""

import numpy as np

from zoo.models.lda import MODEL
from zoo.models.lda.spec import augment


def test_augment_doubles_each_document_and_keeps_what_the_pairs_point_at():
    _, data, prior = MODEL.validation_problems()[0]
    k, v = data.n_topics, data.n_words
    params = {
        "theta": np.full((len(data.documents), k), 1.0 / k),
        "phi": np.full((k, v), 1.0 / v),
    }
    joined = augment(data, params, prior, np.random.default_rng(0))
    np.testing.assert_array_equal(np.diff(joined.doc_start), 2 * np.diff(data.doc_start))
    for d in range(len(data.documents)):
        old = data.token_word[data.doc_start[d] : data.doc_start[d + 1]]
        start = joined.doc_start[d]
        np.testing.assert_array_equal(joined.token_word[start : start + len(old)], old)
    # Every tracked token pair points at the same two observed tokens as before.
    np.testing.assert_array_equal(
        joined.token_word[joined.token_pairs], data.token_word[data.token_pairs]
    )
    np.testing.assert_array_equal(joined.doc_word_pairs, data.doc_word_pairs)
    assert MODEL.augment is augment


def test_new_words_come_from_the_topics_of_theta():
    _, data, prior = MODEL.validation_problems()[0]
    k, v = data.n_topics, data.n_words
    phi = np.zeros((k, v))
    phi[:, 0] = 1.0  # every topic says word 0
    params = {"theta": np.full((len(data.documents), k), 1.0 / k), "phi": phi}
    joined = augment(data, params, prior, np.random.default_rng(0))
    new = np.concatenate(
        [
            joined.token_word[joined.doc_start[d] + n : joined.doc_start[d + 1]]
            for d, n in enumerate(np.diff(data.doc_start))
        ]
    )
    assert (new == 0).all()

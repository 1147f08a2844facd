"""Naive Bayes's augment: as many new labelled documents again, drawn given pi and phi."""

import numpy as np

from zoo.models.naive_bayes import MODEL
from zoo.models.naive_bayes.spec import augment


def test_augment_appends_labelled_documents_of_the_same_lengths():
    data, prior = MODEL.default_problem()
    rng = np.random.default_rng(0)
    k, v = data.n_classes, data.n_features
    params = {"pi": np.full(k, 1.0 / k), "phi": np.full((k, v), 1.0 / v)}
    joined = augment(data, params, prior, rng)
    d = len(data.documents)
    assert joined.counts.shape == (2 * d, v)
    np.testing.assert_array_equal(joined.counts[:d], data.counts)
    np.testing.assert_array_equal(joined.counts[d:].sum(axis=1), data.lengths)
    assert (joined.labels[d:] >= 0).all()  # new documents are labelled
    np.testing.assert_array_equal(joined.labels[:d], data.labels)
    assert len(set(joined.documents.tolist())) == 2 * d


def test_augment_draws_classes_from_pi():
    data, prior = MODEL.default_problem()
    k, v = data.n_classes, data.n_features
    pi = np.zeros(k)
    pi[1] = 1.0
    params = {"pi": pi, "phi": np.full((k, v), 1.0 / v)}
    joined = augment(data, params, prior, np.random.default_rng(0))
    assert (joined.labels[len(data.documents) :] == 1).all()

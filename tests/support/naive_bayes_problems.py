"""Small Naive Bayes problems shared by the test files."""

import numpy as np

from zoo.models.naive_bayes import simulate


def small_multinomial(prior, *, seed=0):
    """2 classes, 4 features, 12 documents of 10 words, 6 unlabelled: 2^6 labelings.

    Documents are long against the labelled counts, so that leaving one in its own class
    (the planted bug) visibly inflates its current label.
    """
    _, data = simulate(
        prior,
        np.random.default_rng(seed),
        classes=2,
        features=4,
        documents=12,
        unlabelled=6,
        length=10,
    )
    return data

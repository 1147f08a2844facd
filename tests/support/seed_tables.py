"""The worked tables of the notes the zoo grew from (transcribed here), shared by the tests."""

import numpy as np

# Review table (the Bayes-decision-theory notes, section 3.3). Words recommend, great, complain,
# okay, awful; class 0 = positive, 1 = negative.
REVIEWS = np.array(
    [
        [1, 1, 0, 0, 0],
        [1, 0, 0, 1, 0],
        [1, 1, 0, 1, 0],
        [1, 0, 1, 1, 0],
        [1, 1, 1, 0, 1],
        [0, 0, 1, 0, 1],
        [0, 0, 0, 0, 1],
        [0, 1, 1, 0, 1],
        [0, 0, 1, 0, 1],
        [0, 1, 0, 0, 0],
    ]
)
REVIEW_CLASS = np.array([0, 0, 0, 1, 1, 1, 1, 1, 1, 0])

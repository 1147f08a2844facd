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

# Loan table (the Bayes-decision-theory notes, section 3.1): age, income, loan.
LOAN = np.array(
    [
        [23, 8000, 1],
        [27, 12000, 1],
        [25, 6000, 0],
        [21, 6500, 0],
        [32, 15000, 1],
        [45, 10000, 1],
        [18, 4500, 0],
        [22, 7500, 1],
        [23, 6000, 0],
        [20, 6500, 0],
    ],
    dtype=float,
)

"""Naive Bayes: the data sets ``zoo check`` and ``zoo validate`` run on, with exact answers."""

from __future__ import annotations

import numpy as np

from zoo.models.labelings import MISSING
from zoo.models.naive_bayes.datasets import digits_problem
from zoo.models.naive_bayes.spec import Data, Prior

__all__ = ["default_problem", "validation_problems"]


def default_problem() -> tuple[Data, Prior]:
    """Handwritten digits 5 and 9 as ink counts (units of 8 pixels), 8 unlabelled.

    Forty labelled images per class identify the classes (no label switching); the 8
    unlabelled images are those the labelled ones leave most in doubt, and 2^8 = 256
    labelings keep the exact reference cheap; see
    :func:`zoo.models.naive_bayes.datasets.digits_problem`.
    """
    return digits_problem(classes=(5, 9), coarsen=8, labelled_per_class=40), Prior(
        alpha=1.0, beta=1.0
    )


def validation_problems() -> list[tuple[str, Data, Prior]]:
    """Three problems: real digits, then two small ones built to be sensitive.

    - ``digits``: the default problem (digits 5 and 9, 8 unlabelled images).
    - ``unbalanced-asymmetric``: 3 classes with 3, 2 and 1 labelled documents and 10
      short unlabelled ones (1 or 6 words; 3^10 = 59,049 labelings), an asymmetric
      ``alpha = (4, 2, 1)`` and a per-word ``beta = (0.5, 0.5, 1, 2)``: the words of a
      short document say little, so its label follows the label prior and the class
      counts, and a sampler that mishandles the label prior (``alpha - 1``: 0.19
      posterior sd on ``pi``), the class totals or the per-word pseudo-counts moves
      ``pi`` or ``phi``. (Before 0.2: 3, 2 and 2 labelled and 5 longer unlabelled
      documents, where ``alpha - 1`` moved no quantity by more than 0.05 sd;
      ``bench/results/catalogue/problem_sensitivity.md``.)
    - ``bernoulli``: binary features, 2 classes, 4 unlabelled documents, Beta(0.7, 1.5)
      per feature: the two-outcome update, where 0s count as much as 1s.
    """
    digits, digits_prior = default_problem()
    m = MISSING
    counts = np.array(
        [
            [5, 1, 0, 2],
            [4, 2, 1, 0],
            [6, 0, 1, 1],
            [0, 3, 4, 1],
            [1, 2, 5, 0],
            [0, 0, 2, 6],
            [1, 0, 0, 0],
            [0, 1, 0, 0],
            [0, 0, 1, 0],
            [0, 0, 0, 1],
            [1, 0, 0, 0],
            [0, 0, 0, 1],
            [0, 0, 1, 0],
            [0, 1, 0, 0],
            [3, 0, 0, 3],
            [0, 3, 3, 0],
        ]
    )
    labels = [0, 0, 0, 1, 1, 2] + [m] * 10
    unbalanced = Data(counts, labels, classes=3)
    binary = np.array(
        [
            [1, 1, 0, 1, 0, 0],
            [1, 0, 0, 1, 0, 1],
            [1, 1, 1, 0, 0, 0],
            [0, 0, 1, 0, 1, 1],
            [0, 1, 1, 0, 1, 1],
            [0, 0, 1, 1, 1, 0],
            [1, 1, 0, 0, 0, 1],
            [0, 0, 1, 0, 1, 0],
            [1, 0, 1, 1, 0, 1],
            [0, 1, 0, 0, 1, 1],
        ]
    )
    bernoulli = Data(binary, [0, 0, 0, 1, 1, 1, m, m, m, m], event_model="bernoulli")
    return [
        ("digits", digits, digits_prior),
        ("unbalanced-asymmetric", unbalanced, Prior(alpha=[4.0, 2.0, 1.0], beta=[0.5, 0.5, 1, 2])),
        ("bernoulli", bernoulli, Prior(alpha=1.0, beta=0.7, beta0=1.5)),
    ]

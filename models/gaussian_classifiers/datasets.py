"""The data sets the Gaussian classifiers' problems draw on.

The wine data (Forina et al., UCI; 178 wines of 3 cultivars, as shipped in
scikit-learn) with chosen features and hidden labels, the problems of ``qda`` and
``gaussian-nb``; and a small unbalanced set of 15 points, each member's
``unbalanced-informative`` problem with a prior of its own.
"""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.labelings import MISSING

__all__ = ["small_unbalanced", "wine"]


def wine(columns, hidden) -> Data:
    """The wine data's ``columns`` (indices), the labels of the rows ``hidden`` missing."""
    # deferred: scikit-learn is slow to import and only the wine data need it.
    from sklearn.datasets import load_wine

    table = load_wine()
    labels = np.array(table.target, copy=True)
    labels[list(hidden)] = MISSING
    return Data(
        table.data[:, list(columns)],
        labels,
        classes=np.array(table.target_names),
        features=np.array([table.feature_names[j] for j in columns]),
    )


def small_unbalanced() -> tuple[np.ndarray, list[int]]:
    """15 points in 2-D: 3 classes with 6, 3 and 2 labelled points, and 4 unlabelled.

    Each member's ``unbalanced-informative`` problem, with a prior of its own.
    """
    m = MISSING
    x = np.array(
        [
            [0.1, -0.3],
            [-0.4, 0.2],
            [0.6, 0.5],
            [0.2, -0.8],
            [-0.1, 0.4],
            [0.5, 0.1],
            [3.1, 1.2],
            [2.6, 0.7],
            [3.4, 1.5],
            [-1.2, 2.9],
            [-0.7, 3.3],
            [1.5, 0.6],
            [0.3, 1.4],
            [2.2, 1.9],
            [-0.9, 1.8],
        ]
    )
    return x, [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, m, m, m, m]

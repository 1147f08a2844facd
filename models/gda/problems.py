"""Bayesian GDA: the data sets ``zoo check`` and ``zoo validate`` run on, with exact answers."""

from __future__ import annotations

import numpy as np

from zoo.models.gda.spec import Data, Prior
from zoo.models.labelings import MISSING

__all__ = ["default_problem", "small_unbalanced", "validation_problems"]

# Rows of the iris data whose labels default_problem() hides: two versicolor and two
# virginica flowers near the boundary between the two, and one of each far from it, so
# the class probabilities are neither all 0/1 nor all 1/2.
_HIDDEN_IRIS_ROWS = (70, 77, 83, 133, 60, 110)


def default_problem() -> tuple[Data, Prior]:
    """Fisher's iris data (scikit-learn's copy), petal length and width, 6 labels hidden.

    150 flowers, 3 species, d = 2 features (petal length and width, cm); six labels are
    hidden (``-1``), so the exact reference enumerates ``3^6 = 729`` labelings. Every
    species keeps at least 46 labelled flowers, so the labels are identified. Default
    (data-scaled) prior.
    """
    # deferred: scikit-learn is slow to import and only the iris data need it.
    from sklearn.datasets import load_iris

    iris = load_iris()
    columns = [2, 3]
    labels = np.array(iris.target, copy=True)
    labels[list(_HIDDEN_IRIS_ROWS)] = MISSING
    data = Data(
        iris.data[:, columns],
        labels,
        classes=np.array(iris.target_names),
        features=np.array(["petal_length", "petal_width"]),
    )
    return data, Prior()


def validation_problems() -> list[tuple[str, Data, Prior]]:
    """Two problems: real iris flowers, and a small unbalanced one with an informative prior.

    - ``iris``: the default problem (petal length and width, 6 labels hidden, 729
      labelings).
    - ``unbalanced-informative``: 3 classes with 6, 3 and 2 labelled points and 4
      unlabelled ones (81 labelings), ``kappa0 = 1`` (the prior mean counts as one
      point), ``nu0 = 5``, a correlated ``Psi0`` and ``alpha = (3, 1, 1)``: with so few
      points the prior's degrees of freedom, the kappa update and the scatter matrix
      each move the posterior of Sigma and mu by several standard errors.
    """
    iris, iris_prior = default_problem()
    x, labels = small_unbalanced()
    prior = Prior(
        alpha=[3.0, 1.0, 1.0],
        m0=[0.5, 1.0],
        kappa0=1.0,
        nu0=5.0,
        psi0=[[1.0, 0.3], [0.3, 2.0]],
    )
    return [
        ("iris", iris, iris_prior),
        ("unbalanced-informative", Data(x, labels, classes=["a", "b", "c"]), prior),
    ]


def small_unbalanced() -> tuple[np.ndarray, list[int]]:
    """15 points in 2-D: 3 classes with 6, 3 and 2 labelled points, and 4 unlabelled.

    Each structure's ``unbalanced-informative`` problem, with a prior of its own.
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

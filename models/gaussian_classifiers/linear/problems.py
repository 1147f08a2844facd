"""Bayesian linear discriminant analysis (``gda``): the problems of ``zoo check``, ``validate``."""

from __future__ import annotations

import numpy as np

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.datasets import small_unbalanced
from zoo.models.gaussian_classifiers.prior import Prior
from zoo.models.labelings import MISSING

__all__ = ["default_problem", "validation_problems"]

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

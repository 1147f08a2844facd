"""Per-class covariances: the data sets ``zoo check`` and ``zoo validate`` run on.

The wine data (Forina et al., UCI; 178 wines of 3 cultivars, as shipped in
scikit-learn), a few features, six labels hidden: those whose class the fully labelled
posterior is least sure of (each cultivar represented), so that the class probabilities
are far from 0 and 1 and the exact reference enumerates ``3^6 = 729`` labelings. Every
cultivar keeps at least 57 labelled wines, far more than ``d + 1``.
"""

from __future__ import annotations

import numpy as np

from zoo.models.gda.per_class_spec import DiagonalPrior, PerClassPrior
from zoo.models.gda.problems import small_unbalanced
from zoo.models.gda.spec import Data
from zoo.models.labelings import MISSING

__all__ = [
    "diagonal_default_problem",
    "diagonal_validation_problems",
    "full_default_problem",
    "full_validation_problems",
]

# Wine columns and hidden rows. QDA: alcohol and flavanoids; naive Bayes adds colour
# intensity (three features are as cheap as two without correlations). The rows are
# the six most uncertain under each structure's fully labelled posterior predictive
# (default prior): cultivars 1, 2, 2, 1, 0, 0 and 0, 0, 2, 2, 1, 1.
_FULL = ((0, 6), (118, 149, 133, 70, 37, 21))
_DIAGONAL = ((0, 6, 9), (37, 38, 136, 133, 68, 73))


def _wine(columns, hidden) -> Data:
    # deferred: scikit-learn is slow to import and only the wine data need it.
    from sklearn.datasets import load_wine

    wine = load_wine()
    labels = np.array(wine.target, copy=True)
    labels[list(hidden)] = MISSING
    return Data(
        wine.data[:, list(columns)],
        labels,
        classes=np.array(wine.target_names),
        features=np.array([wine.feature_names[j] for j in columns]),
    )


def full_default_problem() -> tuple[Data, PerClassPrior]:
    """Wine, alcohol and flavanoids, 6 labels hidden; default (data-scaled) QDA prior."""
    return _wine(*_FULL), PerClassPrior()


def diagonal_default_problem() -> tuple[Data, DiagonalPrior]:
    """Wine, alcohol, flavanoids and colour intensity, 6 labels hidden; default prior."""
    return _wine(*_DIAGONAL), DiagonalPrior()


def full_validation_problems() -> list[tuple[str, Data, PerClassPrior]]:
    """The wine problem, and a small unbalanced one with an informative prior.

    ``unbalanced-informative``: :func:`zoo.models.gda.problems.small_unbalanced` (6, 3
    and 2 labelled points, 4 unlabelled: 81 labelings) with ``kappa0 = 1``, ``nu0 = 5``,
    a correlated ``Psi0`` and ``alpha = (3, 1, 1)``: with 2 or 3 points in a class its
    covariance is mostly the prior's, so ``nu0``, ``kappa_k`` and ``log |Psi_k|`` each
    move the posterior.
    """
    x, labels = small_unbalanced()
    prior = PerClassPrior(
        alpha=[3.0, 1.0, 1.0], m0=[0.5, 1.0], kappa0=1.0, nu0=5.0, psi0=[[1.0, 0.3], [0.3, 2.0]]
    )
    data = Data(x, labels, classes=["a", "b", "c"])
    return [("wine", *full_default_problem()), ("unbalanced-informative", data, prior)]


def diagonal_validation_problems() -> list[tuple[str, Data, DiagonalPrior]]:
    """The wine problem, and the small unbalanced one with an informative prior.

    As :func:`full_validation_problems`, with ``nu0 = 4`` and scales ``psi0 = (1, 2)``.
    """
    x, labels = small_unbalanced()
    prior = DiagonalPrior(
        alpha=[3.0, 1.0, 1.0], m0=[0.5, 1.0], kappa0=1.0, nu0=4.0, psi0=[1.0, 2.0]
    )
    data = Data(x, labels, classes=["a", "b", "c"])
    return [("wine", *diagonal_default_problem()), ("unbalanced-informative", data, prior)]

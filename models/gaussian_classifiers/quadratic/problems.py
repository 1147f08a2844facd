"""Bayesian quadratic discriminant analysis (``qda``): the problems of ``zoo check``, ``validate``.

The wine data (:func:`zoo.models.gaussian_classifiers.datasets.wine`), alcohol and
flavanoids, six labels hidden: those whose class the fully labelled posterior
predictive (default prior) is least sure of, cultivars 1, 2, 2, 1, 0, 0, so that the
class probabilities are far from 0 and 1 and the exact reference enumerates ``3^6 =
729`` labelings. Every cultivar keeps at least 57 labelled wines, far more than ``d +
1``.
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.datasets import small_unbalanced, wine
from zoo.models.gaussian_classifiers.quadratic.spec import PerClassPrior

__all__ = ["default_problem", "validation_problems"]

# Wine columns (alcohol, flavanoids) and the hidden rows (module docstring).
_COLUMNS, _HIDDEN = (0, 6), (118, 149, 133, 70, 37, 21)


def default_problem() -> tuple[Data, PerClassPrior]:
    """Wine, alcohol and flavanoids, 6 labels hidden; default (data-scaled) QDA prior."""
    return wine(_COLUMNS, _HIDDEN), PerClassPrior()


def validation_problems() -> list[tuple[str, Data, PerClassPrior]]:
    """The wine problem, and a small unbalanced one with an informative prior.

    ``unbalanced-informative``:
    :func:`zoo.models.gaussian_classifiers.datasets.small_unbalanced` (6, 3 and 2
    labelled points, 4 unlabelled: 81 labelings) with ``kappa0 = 1``, ``nu0 = 5``, a
    correlated ``Psi0`` and ``alpha = (3, 1, 1)``: with 2 or 3 points in a class its
    covariance is mostly the prior's, so ``nu0``, ``kappa_k`` and ``log |Psi_k|`` each
    move the posterior.
    """
    x, labels = small_unbalanced()
    prior = PerClassPrior(
        alpha=[3.0, 1.0, 1.0], m0=[0.5, 1.0], kappa0=1.0, nu0=5.0, psi0=[[1.0, 0.3], [0.3, 2.0]]
    )
    data = Data(x, labels, classes=["a", "b", "c"])
    return [("wine", *default_problem()), ("unbalanced-informative", data, prior)]

"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the problems of ``zoo check`` and ``validate``.

The wine data (:func:`zoo.models.gaussian_classifiers.datasets.wine`), alcohol,
flavanoids and colour intensity (three features are as cheap as two without
correlations), six labels hidden: those whose class the fully labelled posterior
predictive (default prior) is least sure of, cultivars 0, 0, 2, 2, 1, 1, so that the
class probabilities are far from 0 and 1 and the exact reference enumerates ``3^6 =
729`` labelings.
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.data import Data
from zoo.models.gaussian_classifiers.datasets import small_unbalanced, wine
from zoo.models.gaussian_classifiers.diagonal.spec import DiagonalPrior

__all__ = ["default_problem", "validation_problems"]

# Wine columns (alcohol, flavanoids, colour intensity) and the hidden rows (module
# docstring).
_COLUMNS, _HIDDEN = (0, 6, 9), (37, 38, 136, 133, 68, 73)


def default_problem() -> tuple[Data, DiagonalPrior]:
    """Wine, alcohol, flavanoids and colour intensity, 6 labels hidden; default prior."""
    return wine(_COLUMNS, _HIDDEN), DiagonalPrior()


def validation_problems() -> list[tuple[str, Data, DiagonalPrior]]:
    """The wine problem, and the small unbalanced one with an informative prior.

    As :func:`zoo.models.gaussian_classifiers.quadratic.problems.validation_problems`,
    with ``nu0 = 4`` and scales ``psi0 = (1, 2)``.
    """
    x, labels = small_unbalanced()
    prior = DiagonalPrior(
        alpha=[3.0, 1.0, 1.0], m0=[0.5, 1.0], kappa0=1.0, nu0=4.0, psi0=[1.0, 2.0]
    )
    data = Data(x, labels, classes=["a", "b", "c"])
    return [("wine", *default_problem()), ("unbalanced-informative", data, prior)]

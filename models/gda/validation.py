"""Bayesian GDA: the data sets ``zoo validate`` checks a sampler on, against exact answers."""

from __future__ import annotations

import numpy as np

from zoo.models.gda.spec import MISSING, Data, Prior

__all__ = ["validation_problems"]


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
    from zoo.models.gda import default_problem

    iris, iris_prior = default_problem()
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
    y = [0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, m, m, m, m]
    prior = Prior(
        alpha=[3.0, 1.0, 1.0],
        m0=[0.5, 1.0],
        kappa0=1.0,
        nu0=5.0,
        psi0=[[1.0, 0.3], [0.3, 2.0]],
    )
    return [
        ("iris", iris, iris_prior),
        ("unbalanced-informative", Data(x, y, classes=["a", "b", "c"]), prior),
    ]

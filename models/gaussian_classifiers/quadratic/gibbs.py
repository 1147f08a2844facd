"""Bayesian quadratic discriminant analysis (``qda``): the collapsed Gibbs kernel.

:func:`~zoo.models.gaussian_classifiers.class_gibbs.make_per_class_kernel` with a full
covariance per class: one Cholesky factor of ``Psi_k`` per class, updated by rank one
as a point leaves or joins the class (the derivation is in
:mod:`zoo.models.gaussian_classifiers.class_gibbs`).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.class_gibbs import make_per_class_kernel
from zoo.models.gaussian_classifiers.collapsed_gibbs import State

__all__ = ["State", "kernel"]

kernel = make_per_class_kernel(diagonal=False)

"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the collapsed Gibbs kernel.

:func:`~zoo.models.gaussian_classifiers.class_gibbs.make_per_class_kernel` with one
variance per class and feature: the per-class kernel with ``d = 1`` feature by feature,
one scale ``Psi_kj`` per class and feature updated as a point leaves or joins the class
(the derivation is in :mod:`zoo.models.gaussian_classifiers.class_gibbs`).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.class_gibbs import make_per_class_kernel
from zoo.models.gaussian_classifiers.collapsed_gibbs import State

__all__ = ["State", "kernel"]

kernel = make_per_class_kernel(diagonal=True)

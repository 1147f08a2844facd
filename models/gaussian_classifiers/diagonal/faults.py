"""Bayesian Gaussian naive Bayes (``gaussian-nb``): the deliberately wrong kernels, by name.

Each is the production kernel (:mod:`zoo.models.gaussian_classifiers.diagonal.gibbs`)
with one switch of
:func:`~zoo.models.gaussian_classifiers.class_gibbs.make_per_class_kernel` flipped: the
six classic derivation errors of the per-class normal-inverse-gamma update that
:mod:`zoo.models.gaussian_classifiers.class_gibbs` describes (``log-det-dropped``,
``nu-off-by-one``, ``kappa-not-updated``, ``sample-covariance``,
``mu-scale-as-variance``, ``probability-at-mean``).
"""

from __future__ import annotations

from zoo.models.gaussian_classifiers.class_gibbs import FAULT_KINDS, class_faults

__all__ = ["FAULTS", "KINDS"]

FAULTS = class_faults(diagonal=True)

#: The kind of each bug: "formula", "draw" or "storage" (as every model's KINDS).
KINDS = FAULT_KINDS

"""Naive Bayes: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.naive_bayes.gibbs` with one switch
of :func:`~zoo.models.naive_bayes.gibbs.make_kernel` flipped, so that a fault differs
from the correct sampler in exactly the line of its bug (classic derivation errors of
the collapsed conditional, which the diagnostics must catch):

- ``document-not-removed`` (bookkeeping of counts): the document being resampled stays
  in its class's counts (``n_k``, ``N_k``, ``T_k`` in place of ``n_k^-d``, ...);
- ``normaliser-wrong-class`` (the conditional's formula): the Dirichlet-multinomial
  normaliser ``Gamma(B_k + T_k) / Gamma(B_k + T_k + L_d)`` of class k is taken with the
  counts of class k + 1 (Bernoulli: ``b1 + b0 + n_{k+1}``);
- ``normaliser-dropped`` (the conditional's formula): only the numerator
  ``prod_v Gamma(N_kv + beta_kv + x_dv) / Gamma(N_kv + beta_kv)`` of the
  Dirichlet-multinomial;
- ``alpha-minus-one`` (the prior): the label factor ``n_k^-d + alpha_k - 1``, the
  Dirichlet's mode (MAP) pseudo-count, where the predictive's ``n_k^-d + alpha_k``
  belongs; it under-weights the classes with the fewest documents;
- ``total-not-decremented`` (bookkeeping of counts, multinomial): the document's words
  leave ``N_k`` but its length stays in the running total ``T_k = sum_v N_kv`` while its
  conditional is formed (and is added again afterwards, so ``T`` drifts up through the
  sweep): the normaliser sees ``Gamma(B + T_k + L_d) / Gamma(B + T_k + 2 L_d)``;
- ``weights-not-normalised`` (the draw step; a biased categorical draw): the label is
  the first class whose cumulative weight exceeds ``U ~ Uniform(0, 1)``, with weights
  scaled so that the largest is 1, where ``U ~ Uniform(0, sum of weights)`` belongs:
  the first classes are chosen too often.
"""

from __future__ import annotations

from zoo.models.naive_bayes.gibbs import make_kernel

__all__ = ["FAULTS", "KINDS"]

FAULTS = {
    "document-not-removed": make_kernel(remove_document=False),
    "normaliser-wrong-class": make_kernel(normaliser_offset=1),
    "normaliser-dropped": make_kernel(normaliser=False),
    "alpha-minus-one": make_kernel(alpha_offset=-1.0),
    "total-not-decremented": make_kernel(remove_length=False),
    "weights-not-normalised": make_kernel(scaled_uniform=False),
}

#: The kind of each bug (module docstring): "formula" (the conditional's formula),
#: "counts" (bookkeeping of counts), "draw" (the draw step), "prior" / "prior support"
#: (the prior's pseudo-counts or support), "slice" (the slice sampler's details),
#: "storage" (what is recorded as a draw).
KINDS = {
    "document-not-removed": "counts",
    "normaliser-wrong-class": "formula",
    "normaliser-dropped": "formula",
    "alpha-minus-one": "prior",
    "total-not-decremented": "counts",
    "weights-not-normalised": "draw",
}

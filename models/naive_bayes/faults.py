"""Naive Bayes: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.naive_bayes.gibbs` with one switch
of :func:`~zoo.models.naive_bayes.gibbs.make_kernel` flipped, so that a fault differs
from the correct sampler in exactly the line of its bug (classic derivation errors of
the collapsed conditional, which the diagnostics must catch):

- ``document-not-removed``: the document being resampled stays in its class's counts;
- ``normaliser-wrong-class``: the Dirichlet-multinomial normaliser of class k is taken
  with the counts of class k + 1;
- ``normaliser-dropped``: only the numerator of the Dirichlet-multinomial.
"""

from __future__ import annotations

from zoo.models.naive_bayes.gibbs import make_kernel

__all__ = ["FAULTS"]

FAULTS = {
    "document-not-removed": make_kernel(remove_document=False),
    "normaliser-wrong-class": make_kernel(normaliser_offset=1),
    "normaliser-dropped": make_kernel(normaliser=False),
}

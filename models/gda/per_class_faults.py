"""Per-class covariances: the deliberately wrong kernels of QDA and naive Bayes, by name.

Each is the production kernel of :mod:`zoo.models.gda.per_class_gibbs` with one switch
of :func:`~zoo.models.gda.per_class_gibbs.make_per_class_kernel` flipped (classic
derivation errors of the per-class normal-inverse-Wishart update, which the
diagnostics must catch):

- ``log-det-dropped`` (the conditional's formula): the collapsed conditional of a label
  without ``log |Psi_k|``, the term that cancels when the classes share one covariance
  (LDA) and is easily carried over as if it still did;
- ``nu-off-by-one`` (the conditional's formula): ``nu_k = nu0 + n_k + 1``;
- ``kappa-not-updated`` (the conditional's formula): ``kappa0`` where ``kappa_k = kappa0
  + n_k`` belongs in the spread of ``mu_k`` and of the predictive;
- ``sample-covariance`` (the conditional's formula, draw): ``S_k / n_k`` in ``Psi_k``
  instead of the scatter ``S_k``;
- ``mu-scale-as-variance`` (the draw step): the spread of ``mu_k`` divided by
  ``kappa_k`` instead of its square root;
- ``probability-at-mean`` (storage of draws): ``class_probability`` recorded at the
  conditional mean ``m_k`` instead of the ``mu_k`` just drawn.
"""

from __future__ import annotations

from zoo.models.gda.per_class_gibbs import make_per_class_kernel

__all__ = ["KINDS", "faults"]

#: The kind of each bug (as in :data:`zoo.models.gda.faults.KINDS`).
KINDS = {
    "log-det-dropped": "formula",
    "nu-off-by-one": "formula",
    "kappa-not-updated": "formula",
    "sample-covariance": "formula",
    "mu-scale-as-variance": "draw",
    "probability-at-mean": "storage",
}

_SWITCHES = {
    "log-det-dropped": {"log_det_term": False},
    "nu-off-by-one": {"nu_offset": 1},
    "kappa-not-updated": {"kappa_fixed": True},
    "sample-covariance": {"sample_covariance": True},
    "mu-scale-as-variance": {"mu_scale_sqrt": False},
    "probability-at-mean": {"probability_from_draw": False},
}


def faults(*, diagonal: bool) -> dict:
    """The named wrong kernels of one structure."""
    return {
        name: make_per_class_kernel(diagonal=diagonal, **switch)
        for name, switch in _SWITCHES.items()
    }

"""LDA: the deliberately wrong kernels (negative controls), by name.

Each is the production kernel of :mod:`zoo.models.lda.gibbs` built with one value of
the sweep's :class:`~zoo.models.lda.sweeps.Fault` switch (:data:`zoo.models.lda.gibbs.FAULTS`
maps the names to them), so that a fault differs from the correct sampler in exactly the
line of its bug. The correct conditional (Griffiths & Steyvers 2004, eq. 5) is
``p(z_i = k | z_-i, w) ∝ (n_dk + alpha_k) (n_kw + beta_w) / (n_k + B)``, ``B = sum(beta)``,
every count taken without token ``i``:

- ``token-not-removed`` (bookkeeping of counts): token ``i`` stays in ``n_dk``, ``n_kw``
  and ``n_k`` of its current topic while its conditional is formed (dense kernel);
- ``beta-not-times-V`` (the conditional's formula): ``n_k + mean(beta)`` (``n_k + beta``
  for a symmetric prior) where ``n_k + V beta`` belongs;
- ``added-back-under-old-topic`` (bookkeeping of counts): the new topic is recorded but
  the counts are incremented under the old one, so within a sweep every token sees the
  others' topics of the previous sweep (dense kernel);
- ``stale-doc-sum`` (bookkeeping of counts, SparseLDA): the document bucket's total
  ``r / beta_w = sum_k n_dk / (n_k + B)`` keeps token ``i`` (is not updated when the
  token leaves its topic), while the bucket's terms do not (Yao, Mimno & McCallum
  2009, section 3.4);
- ``stale-smoothing-sum`` (bookkeeping of counts, SparseLDA): the same for the smoothing
  bucket's total ``s / beta_w = sum_k alpha_k / (n_k + B)``;
- ``alpha-as-mean`` (the prior): every ``alpha_k`` replaced by ``mean(alpha)`` in the
  sweep, as in code written for a symmetric prior: ``n_dk + mean(alpha)``. Only an
  asymmetric ``alpha`` exposes it;
- ``theta-point-estimate`` (storage of draws): the sweep is correct, but ``draw``
  records the conditional mean ``E[theta_d | z] = (n_d. + alpha) / (n_d + sum(alpha))``
  (Griffiths & Steyvers's point estimate) in place of a draw from ``Dir(alpha + n_d.)``.

The Metropolis-Hastings kernel's (:mod:`zoo.models.lda.metropolis`, built with
``make_kernel(sampler="metropolis")``), with the doc proposal ``q_d ∝ n_dk`` (a random
token's topic of the document) and the word proposal ``q_w ∝ n_kw + beta_w``:

- ``mh-no-proposal-ratio`` (Metropolis details): accepted with ``pi(t) / pi(s)``, the
  asymmetric proposal's ratio ``q(s | t) / q(t | s)`` left out;
- ``mh-counts-with-token`` (bookkeeping of counts): the acceptance ratio reads ``n_sw``,
  ``n_ds`` and ``n_s`` with token ``i`` still counted in its topic ``s``;
- ``mh-no-prior-branch`` (Metropolis details): the doc proposal's ratio is LightLDA's,
  written for ``q_d ∝ n_dk + alpha_k`` (whose doc factors cancel), while the proposal
  has no ``alpha`` branch: a topic absent from the document is never proposed by it,
  and the doc factors are missing from the ratio. (Named when the correct doc proposal
  still had that branch; its draws are the same as then.)
"""

from __future__ import annotations

from zoo.models.lda.gibbs import FAULTS as SWITCHES
from zoo.models.lda.gibbs import make_kernel

__all__ = ["FAULTS", "KINDS"]

FAULTS = {name: make_kernel(fault=name) for name in SWITCHES}

#: The kind of each bug (module docstring): "formula" (the conditional's formula),
#: "counts" (bookkeeping of counts), "draw" (the draw step), "prior" / "prior support"
#: (the prior's pseudo-counts or support), "slice" (the slice sampler's details),
#: "storage" (what is recorded as a draw), "metropolis" (a Metropolis-Hastings step's
#: proposal or acceptance).
KINDS = {
    "token-not-removed": "counts",
    "beta-not-times-V": "formula",
    "added-back-under-old-topic": "counts",
    "stale-doc-sum": "counts",
    "stale-smoothing-sum": "counts",
    "alpha-as-mean": "prior",
    "theta-point-estimate": "storage",
    "mh-no-proposal-ratio": "metropolis",
    "mh-counts-with-token": "counts",
    "mh-no-prior-branch": "metropolis",
}

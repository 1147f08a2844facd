"""The parts of the Gaussian classifiers' PyMC programs that every member uses.

An inverse-Wishart by Bartlett (``gda`` and ``qda``): PyMC 6.4 has no inverse-Wishart,
and ``pm.Wishart`` silently truncates a non-integer ``nu`` (``docs/design.md``,
pitfalls). The programs therefore build Sigma from its Bartlett decomposition (Bartlett
1933; Anderson, *An Introduction to Multivariate Statistical Analysis*, 3rd ed.,
theorem 7.2.1): free variables ``bartlett_chi2[j] ~ chi2(nu0 - j)`` and
``bartlett_normal ~ N(0, 1)`` (below the diagonal) fill a lower-triangular ``A``, and
with ``Psi0 = L L^T``

``Sigma = (L A^-T)(L A^-T)^T ~ InvWishart(nu0, Psi0)``,

exactly, for any real ``nu0 > d - 1``; NUTS samples the unconstrained Bartlett
variables. :func:`inverse_wishart` is tested against ``scipy.stats.invwishart``.

Missing labels are summed out by hand in every member (pymc-extras does not install
with PyMC 6.4): each unlabelled point contributes ``logsumexp_k (log pi_k + log p(x_u |
y_u = k, params))``, as a ``CustomDist`` so that the unlabelled points stay observed
data (and have a pointwise log-likelihood, for LOO-CV), and the softmax of the same
terms is kept per draw as ``class_probability``.
"""

from __future__ import annotations

import numpy as np
import pymc as pm
import pytensor.tensor as pt

from zoo.models.gaussian_classifiers.data import Data

__all__ = ["inverse_wishart", "sum_out_labels"]


def inverse_wishart(name: str, nu: float, psi: np.ndarray, dims=None, batch: int | None = None):
    """Add ``Sigma ~ InvWishart(nu, psi)`` to the current model, by Bartlett.

    Parameters
    ----------
    name : str
        Name of the deterministic Sigma; the free variables are ``bartlett_chi2`` and,
        for ``d > 1``, ``bartlett_normal``.
    nu : float
        Degrees of freedom, ``> d - 1`` (not rounded).
    psi : ndarray, shape (d, d)
        Scale matrix, symmetric positive definite.
    dims : tuple of str, optional
        Dims of Sigma.
    batch : int, optional
        Draw this many independent matrices (one per class), stacked on a first axis.

    Returns
    -------
    sigma, root : TensorVariable
        Sigma and ``R = L A^-T`` with ``Sigma = R R^T``.
    """
    d = psi.shape[0]
    lead = () if batch is None else (batch,)
    psi_chol = np.linalg.cholesky(psi)
    chi2 = pm.ChiSquared("bartlett_chi2", nu=nu - np.arange(d), shape=(*lead, d))
    bartlett = pt.zeros((*lead, d, d))
    bartlett = pt.set_subtensor(bartlett[..., np.arange(d), np.arange(d)], pt.sqrt(chi2))
    if d > 1:
        below = np.tril_indices(d, -1)
        normal = pm.Normal("bartlett_normal", 0.0, 1.0, shape=(*lead, below[0].size))
        bartlett = pt.set_subtensor(bartlett[..., below[0], below[1]], normal)
    inverse = pt.linalg.solve_triangular(bartlett, pt.eye(d), lower=True)
    if batch is None:
        root = pt.dot(psi_chol, inverse.T)
        sigma = pm.Deterministic(name, pt.dot(root, root.T), dims=dims)
    else:
        root = pt.matmul(psi_chol, inverse.mT)
        sigma = pm.Deterministic(name, pt.matmul(root, root.mT), dims=dims)
    return sigma, root


def sum_out_labels(data: Data, pi, params: tuple, class_log_density, signature: str) -> None:
    """Observe the unlabelled points with their labels summed out, and their class odds.

    Adds ``x_unlabelled``, a ``CustomDist`` with log density ``logsumexp_k (log pi_k +
    log p(x_u | y_u = k, params))`` (so the points stay observed data, with a pointwise
    log-likelihood for LOO-CV), and the deterministic ``class_probability``, the
    softmax of the same terms. ``class_log_density(value, *params)`` gives ``log p(value
    | y = k)`` for ``value`` of shape (..., 1, d) against every class, shape (..., K);
    ``signature`` is the ``CustomDist``'s, ``"(k),<params>->(d)"``. Without unlabelled
    points ``class_probability`` is kept with an empty dim, so both engines name the
    same variables.
    """
    hidden = data.unlabelled
    if not hidden.size:
        pm.Deterministic(
            "class_probability", pt.zeros((0, data.n_classes)), dims=("unlabelled", "class")
        )
        return
    x_hidden = data.x[hidden]

    def logp(value, pi, *params):
        # The parameters come with the value's batch dims prepended (size 1 where not
        # broadcast); the class axis sits before the feature axes.
        joint = pt.log(pi) + class_log_density(value[..., None, :], *params)
        return pt.logsumexp(joint, axis=-1)

    pm.CustomDist(
        "x_unlabelled",
        pi,
        *params,
        logp=logp,
        signature=signature,
        observed=x_hidden,
        dims=("unlabelled", "feature"),
    )
    log_joint = pt.log(pi) + class_log_density(pt.as_tensor(x_hidden)[:, np.newaxis, :], *params)
    pm.Deterministic(
        "class_probability", pt.special.softmax(log_joint, axis=1), dims=("unlabelled", "class")
    )

"""The log-likelihood of many draws at once, from a model's vectorised pointwise form.

The Gibbs engine (its ``log_likelihood`` group and ``log_likelihood_total``) and
simulation-based calibration (the log-likelihood as a test quantity) both need
``log p(data | draw)`` for every draw of a chains-by-draws posterior. A model's
``pointwise_log_likelihood`` takes leading sample dims, so it is called once per block
of draws of all chains, not once per draw: for the Gaussian classifiers a per-draw loop
cost about half a millisecond a draw, most of an SBC simulation's time.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from zoo.core.contract import Model

__all__ = ["log_likelihood_per_draw", "pointwise_size"]

#: Memory for one block of draws: the block's parameters and result, four times over for
#: temporaries (copies made contiguous, a mixture's per-class terms).
BLOCK_BYTES = 2**26


def pointwise_size(data) -> int | None:
    """Values per draw of the pointwise log-likelihood, or None if it cannot be known.

    Known before any draw from the observed variables' sizes: an upper bound, exact but
    for a multivariate observation, which counts its components (a few times too high
    for a Gaussian classifier's points, never too low).
    """
    sizes = [np.size(values) for values, _ in data.observed_data.values()]
    return int(sum(sizes)) if sizes else None


def log_likelihood_per_draw(
    model: Model, data, posterior: Mapping[str, np.ndarray], *, keep: bool = False
):
    """``log p(data | draw)`` for every draw, and optionally each observation's term.

    Parameters
    ----------
    model : Model
        With ``pointwise_log_likelihood`` (vectorised over leading sample dims) or, failing
        that, ``log_likelihood`` (one draw at a time).
    data
        The model's data.
    posterior : mapping of str to ndarray
        Each variable's draws, shape ``(chain, draw, ...)``. Read, never changed.
    keep : bool
        Also return every observation's term (needs ``pointwise_log_likelihood``).

    Returns
    -------
    total : ndarray, shape (chain, draw)
        The log-likelihood of all the data at each draw: the sum of the pointwise terms
        (which every model of the zoo defines ``log_likelihood`` to be).
    pointwise : dict
        ``{name: (values (chain, draw, ...), dims)}``; empty unless ``keep``.

    Raises
    ------
    ValueError
        If the model has neither form, or ``keep`` without the pointwise form.
    """
    chains, draws = next(iter(posterior.values())).shape[:2]
    if model.pointwise_log_likelihood is None:
        if keep or model.log_likelihood is None:
            raise ValueError(
                f"model {model.name!r}: no pointwise_log_likelihood"
                + ("" if keep else " or log_likelihood")
            )
        total = np.empty((chains, draws))
        for c in range(chains):
            for d in range(draws):
                params = {name: values[c, d] for name, values in posterior.items()}
                total[c, d] = model.log_likelihood(data, params)
        return total, {}
    per_draw = sum(values[0, 0].nbytes for values in posterior.values())
    per_draw += 8 * (pointwise_size(data) or 0)
    # Blocks of draws of all chains, as many as BLOCK_BYTES allows: memory beyond the
    # result stays bounded (one draw per block on a large LDA corpus).
    step = int(np.clip(BLOCK_BYTES // (4 * chains * max(per_draw, 1)), 1, draws))
    pointwise: dict[str, tuple[np.ndarray, tuple[str, ...]]] = {}
    total = np.zeros((chains, draws))
    for start in range(0, draws, step):
        block = slice(start, min(start + step, draws))
        terms = model.pointwise_log_likelihood(
            data, {name: values[:, block] for name, values in posterior.items()}
        )
        for name, (term, dims) in terms.items():
            total[:, block] += term.reshape(*term.shape[:2], -1).sum(axis=-1)
            if keep:
                if name not in pointwise:
                    pointwise[name] = (np.empty((chains, draws, *term.shape[2:])), tuple(dims))
                pointwise[name][0][:, block] = term
    return total, pointwise

"""LDA: the log-likelihood of the corpus given the parameters, topics summed out."""

from __future__ import annotations

from collections.abc import Mapping

import numba
import numpy as np

from zoo.models.lda.spec import Data

__all__ = ["log_likelihood", "pointwise_log_likelihood"]


@numba.njit(cache=True)
def _token_log_likelihood(theta, phi_t, token_word, doc_start):
    """``log sum_k theta_{d_i k} phi_{k w_i}`` for draws ``s`` and tokens ``i``: (S, N).

    ``theta`` (S, D, K), ``phi_t`` (S, V, K): phi transposed, so that the sum over
    topics reads contiguous memory. A loop, so that no (S, N, K) array is ever held: the
    work is O(S N K), the memory only the result's.
    """
    n_draws, n_documents, n_topics = theta.shape
    out = np.empty((n_draws, token_word.shape[0]))
    for s in range(n_draws):
        for d in range(n_documents):
            for i in range(doc_start[d], doc_start[d + 1]):
                w = token_word[i]
                total = 0.0
                for k in range(n_topics):
                    total += theta[s, d, k] * phi_t[s, w, k]
                out[s, i] = np.log(total)
    return out


def pointwise_log_likelihood(
    data: Data, params: Mapping[str, np.ndarray]
) -> dict[str, tuple[np.ndarray, tuple[str, ...]]]:
    """``log p(w_i | theta, phi) = log sum_k theta_{d_i k} phi_{k w_i}`` per token.

    Each token's topic summed out (Blei, Ng & Jordan 2003, eq. 3), as the PyMC
    program's ``CustomDist`` on ``token_word`` does; for any number of draws.

    Parameters
    ----------
    data : Data
    params : mapping
        ``theta`` (..., D, K) and ``phi`` (..., K, V), with the same leading sample dims.

    Returns
    -------
    dict
        ``{"token_word": (values, ("token",))}``, values of shape ``(..., N)``: 8 bytes
        per token and draw.
    """
    theta = np.asarray(params["theta"], dtype=float)
    phi = np.asarray(params["phi"], dtype=float)
    sample_shape = theta.shape[:-2]
    if phi.shape[:-2] != sample_shape:
        raise ValueError(
            f"phi: expected the sample dims {sample_shape} of theta, got {phi.shape[:-2]}"
        )
    flat = _token_log_likelihood(
        np.ascontiguousarray(theta.reshape(-1, *theta.shape[-2:])),
        np.ascontiguousarray(np.swapaxes(phi.reshape(-1, *phi.shape[-2:]), -1, -2)),
        np.ascontiguousarray(data.token_word, dtype=np.int64),
        np.ascontiguousarray(data.doc_start, dtype=np.int64),
    )
    return {"token_word": (flat.reshape(*sample_shape, data.n_tokens), ("token",))}


def log_likelihood(data: Data, params: Mapping[str, np.ndarray]) -> float:
    """``log p(w | theta, phi) = sum_i log sum_k theta_{d_i k} phi_{k w_i}``.

    Each token's topic summed out (Blei, Ng & Jordan 2003, eq. 3), as the PyMC program
    does. Invariant under relabelling the topics, so it is a test quantity for
    simulation-based calibration whatever the prior's symmetry. The sum of
    :func:`pointwise_log_likelihood` for one draw.
    """
    theta = np.asarray(params["theta"], dtype=float)
    if theta.shape != (data.n_documents, data.n_topics):
        raise ValueError(
            f"theta: expected shape {(data.n_documents, data.n_topics)}, got {theta.shape}"
        )
    values, _ = pointwise_log_likelihood(data, params)["token_word"]
    return float(np.sum(values))

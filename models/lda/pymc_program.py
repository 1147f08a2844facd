"""LDA: the PyMC program, with every token's topic marginalised.

theta and phi are sampled by NUTS; the topics are summed out by hand (PyMC 6.4 has no
core ``marginalize``, and pymc-extras does not install with it):

    log p(w_i | theta, phi) = logsumexp_k [log theta_{d_i k} + log phi_{k w_i}]

for every token, as a ``CustomDist`` on the token words (``dtype="int64"``) so that the
words stay observed data. ``doc_word`` and ``coassignment`` are deterministic functions
of theta and phi, computed exactly as the Gibbs kernel computes them per draw.
"""

from __future__ import annotations

import pymc as pm
import pytensor.tensor as pt

from zoo.models.lda.spec import Data, Prior

__all__ = ["program"]


def _token_logp(value, theta_row, phi):
    """``log sum_k theta_k phi_{k, value}``; parameters carry (some of) the batch dims.

    ``theta_row`` is (..., K) and ``phi`` (..., K, V), with batch dims of size 1 where
    the CustomDist did not broadcast them. The word's column of phi is picked by a
    one-hot product, which broadcasts either way (O(N K V): the PyMC engine is meant
    for small corpora). Word ids were validated in :class:`Data` (PyTensor's Numba
    backend does not bounds-check indexing).
    """
    one_hot = pt.eq(value[..., None], pt.arange(phi.shape[-1]))  # (..., V)
    phi_word = pt.sum(phi * one_hot[..., None, :], axis=-1)  # (..., K)
    return pt.logsumexp(pt.log(theta_row) + pt.log(phi_word), axis=-1)


def program(data: Data, prior: Prior) -> pm.Model:
    """Return the PyMC model; variable names and dims match the Gibbs output."""
    hyper = prior.resolve(data)
    d, k = data.n_documents, data.n_topics
    token_document = data.token_document
    token_word = data.token_word.astype("int64")
    with pm.Model(coords=data.coords) as model:
        theta = pm.Dirichlet("theta", a=pt.ones((d, 1)) * hyper.alpha, dims=("document", "topic"))
        phi = pm.Dirichlet("phi", a=pt.ones((k, 1)) * hyper.beta, dims=("topic", "word"))
        pm.CustomDist(
            "token_word",
            theta[token_document],
            phi,
            logp=_token_logp,
            signature="(k),(k,v)->()",
            dtype="int64",
            observed=token_word,
            dims=("token",),
        )
        pairs = data.doc_word_pairs
        pm.Deterministic(
            "doc_word",
            pt.sum(theta[pairs[:, 0]] * phi[:, pairs[:, 1]].T, axis=-1),
            dims=("doc_word_pair",),
        )
        token_pairs = data.token_pairs
        left, right = token_pairs[:, 0], token_pairs[:, 1]
        # r_ik = p(z_i = k | theta, phi, w): a softmax over topics of log theta + log phi.
        log_joint = pt.log(theta[token_document]) + pt.log(phi[:, token_word].T)  # (N, K)
        responsibility = pt.special.softmax(log_joint, axis=-1)
        pm.Deterministic(
            "coassignment",
            pt.sum(responsibility[left] * responsibility[right], axis=-1),
            dims=("token_pair",),
        )
    return model

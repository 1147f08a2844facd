"""Naive Bayes: what Geweke's test and the invariance check need (zoo.KernelChecks).

The kernel's state holds every document's label; the latents are the labels of the
unlabelled documents. Given ``(pi, phi)`` they are independent, each drawn from
``p(y_u = k | pi, phi, x_u)`` (``class_probability``, the quantity the engines report).
Given parameters and latents the data are: labels of the labelled documents
``y_d ~ Categorical(pi)``, then features ``x_d ~ Multinomial(L_d, phi_{y_d})`` with the
document lengths ``L_d`` kept (they are ancillary), or ``x_dv ~ Bernoulli(phi_{y_d v})``.
"""

from __future__ import annotations

import numpy as np

from zoo.core.contract import KernelChecks
from zoo.models.labelings import (
    completed_labels,
    latent_labels,
    read_latent_labels,
    redrawn_labels,
)
from zoo.models.naive_bayes.gibbs import State
from zoo.models.naive_bayes.spec import Data, Prior

__all__ = ["KERNEL_CHECKS"]


def redraw(params, latents, data: Data, prior: Prior, rng: np.random.Generator) -> Data:
    """New labels for the labelled documents, new features for all; lengths kept."""
    phi = np.asarray(params["phi"], dtype=float)
    labels, classes = redrawn_labels(params["pi"], data, latents, rng)
    if data.event_model == "multinomial":
        counts = np.zeros_like(data.counts)
        for d, (length, k) in enumerate(zip(data.lengths, classes, strict=True)):
            counts[d] = rng.multinomial(length, phi[k])
    else:
        counts = (rng.random(data.counts.shape) < phi[classes]).astype(np.int64)
    return Data(
        counts,
        labels,
        classes=data.classes,
        features=data.features,
        documents=data.documents,
        event_model=data.event_model,
    )


def state(latents, data: Data, prior: Prior) -> State:
    """The kernel's state: every label, ``latents["labels"]`` for the missing ones."""
    return State(completed_labels(data.labels, latents))


def setup() -> tuple[Prior, dict]:
    """An asymmetric Dir((2, 1)) x Dir(1) prior; 8 documents of 4 words, 3 unlabelled.

    Short documents keep each data set weakly informative, so that the Geweke chain,
    which redraws the data every step, mixes; the asymmetric label prior makes a
    sampler that mishandles ``alpha`` visible in ``pi``.
    """
    return Prior(alpha=[2.0, 1.0], beta=1.0), {
        "classes": 2,
        "features": 3,
        "documents": 8,
        "unlabelled": 3,
        "length": 4,
    }


KERNEL_CHECKS = KernelChecks(
    latents=latent_labels, redraw=redraw, state=state, read=read_latent_labels, setup=setup
)

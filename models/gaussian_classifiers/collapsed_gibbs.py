"""What the Gaussian classifiers' collapsed Gibbs kernels share: the labels they move.

With ``pi`` and every class's mean and covariance integrated out, a member's kernel
state is the full label vector (:class:`State`); only the unlabelled points' labels
move, each drawn from its collapsed conditional (:func:`draw_class`, from the log
weights the member's sweep computes). Every member starts from the same over-dispersed
state (:func:`initial_state`) and rebuilds it the same way from the latents of
Geweke's test (:func:`state_from_latents`).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from zoo.models.labelings import completed_labels

__all__ = ["State", "draw_class", "initial_state", "state_from_latents"]


class State(NamedTuple):
    """Labels of all points (observed ones fixed, unlabelled ones current)."""

    labels: np.ndarray


def initial_state(data, prior, rng: np.random.Generator) -> State:
    """The kernels' ``init``: the observed labels, uniform random ones for the rest.

    The hyperparameters are resolved first, so that ones that do not fit the data fail
    before any sampling. Uniform labels are over-dispersed relative to the posterior,
    so R-hat sees chains stuck in different labelings.
    """
    prior.resolve(data)
    labels = np.array(data.labels, dtype=np.int64, copy=True)
    hidden = data.unlabelled
    labels[hidden] = rng.integers(0, data.n_classes, size=hidden.size)
    return State(labels)


def state_from_latents(latents, data, prior) -> State:
    """The kernel's state for Geweke's test: every label, ``latents["labels"]`` for the missing."""
    return State(completed_labels(data.labels, latents))


@numba.njit(cache=True)
def draw_class(log_weight, top, rng):
    """A class drawn with probability proportional to ``exp(log_weight)``.

    ``top`` is the largest log weight, subtracted before exponentiating so that no
    weight overflows; ``log_weight`` is overwritten with the unnormalised weights.
    """
    n_classes = log_weight.shape[0]
    total = 0.0
    for k in range(n_classes):
        log_weight[k] = math.exp(log_weight[k] - top)
        total += log_weight[k]
    threshold = rng.random() * total
    running = 0.0
    for k in range(n_classes):
        running += log_weight[k]
        if threshold < running:
            return k
    return n_classes - 1

"""Bounded discrete free variables: their supports and every joint configuration.

A DiscreteUniform with constant bounds, a Bernoulli, a Categorical (``K`` classes from
its probabilities' length) and a Binomial with a constant ``n`` have finite supports.
Their joint configurations (every element of every such variable) are enumerated in
mixed radix, the first element of the first variable the fastest digit, up to
:data:`zoo.models.labelings.MAX_LABELINGS`; beyond it the reference is refused with the
count, as the zoo's labelings machinery does.
"""

from __future__ import annotations

import math

import numpy as np
from pymc.distributions.discrete import DiscreteUniformRV
from pytensor.tensor.random import basic as rvs

from zoo.models.labelings import MAX_LABELINGS
from zoo.specification.conjugate_graph import NotRecognised, evaluate, free_parents

__all__ = ["MAX_CONFIGURATIONS", "configurations", "support"]

#: Largest number of joint configurations enumerated (the labelings' bound).
MAX_CONFIGURATIONS = MAX_LABELINGS


def support(rv, free, replacements, shape) -> list[np.ndarray]:
    """The values each element of the discrete free variable ``rv`` can take.

    Raises
    ------
    NotRecognised
        Naming the variable, for an unbounded family or bounds that depend on free
        variables.
    """
    name = rv.name
    op = rv.owner.op
    params = op.dist_params(rv.owner)
    size = int(np.prod(shape, dtype=int))
    if isinstance(op, rvs.BernoulliRV):
        return [np.array([0, 1])] * size
    if isinstance(op, rvs.CategoricalRV):
        # the number of classes is the probabilities' static length (their values may
        # be free: latent labels z ~ Categorical(w))
        classes = params[0].type.shape[-1]
        if classes is None:
            raise NotRecognised(
                f"{name}: its number of classes is not known before sampling; give its "
                "probabilities a fixed length"
            )
        return [np.arange(classes)] * size
    bounded = {
        DiscreteUniformRV: lambda p: (p[0], p[1]),
        rvs.BinomialRV: lambda p: (p[0] * 0, p[0]),
    }
    for kind, ends in bounded.items():
        if isinstance(op, kind):
            low, high = ends(params)
            for end in (low, high):
                if free_parents(end, free, what=name) if hasattr(end, "owner") else False:
                    raise NotRecognised(
                        f"{name}: its support's bounds depend on free variables; only "
                        "constant bounds are enumerated"
                    )
            low, high = evaluate([low, high], replacements)
            low = np.broadcast_to(low, shape).ravel().astype(int)
            high = np.broadcast_to(high, shape).ravel().astype(int)
            return [np.arange(lo, hi + 1) for lo, hi in zip(low, high, strict=True)]
    raise NotRecognised(
        f"{name}: a {type(op).__name__.removesuffix('RV')} free variable has no finite "
        "support to enumerate (DiscreteUniform, Bernoulli, Categorical and Binomial do)"
    )


def configurations(supports: dict, shapes: dict) -> dict[str, np.ndarray]:
    """Every joint configuration of the variables' elements, ``(N, *shape)`` per name.

    Raises
    ------
    NotRecognised
        With the count, when there are more than :data:`MAX_CONFIGURATIONS`.
    """
    sizes = [len(values) for name in supports for values in supports[name]]
    log_count = sum(math.log(s) for s in sizes)
    if log_count > math.log(MAX_CONFIGURATIONS) + 1e-9:
        names = " and ".join(supports)
        count = math.prod(sizes)
        raise NotRecognised(
            f"{names}: {count:.4g} joint configurations exceed the enumeration limit "
            f"{MAX_CONFIGURATIONS}"
        )
    count = math.prod(sizes)
    index = np.arange(count)
    result, digit = {}, 1
    for name, per_element in supports.items():
        columns = []
        for values in per_element:
            columns.append(values[(index // digit) % len(values)])
            digit *= len(values)
        stacked = np.stack(columns, axis=1) if columns else np.zeros((count, 0), int)
        result[name] = stacked.reshape(count, *shapes[name])
    return result

"""Test functions of Geweke's test and the invariance check: first and second moments.

Geweke (2004, sec. 2) compares means of test functions ``g(theta, y)`` under two
simulators of the joint distribution. The zoo uses, for every scalar element ``x`` of
every tested variable, ``g = x`` and ``g = x**2`` (so that a kernel that gets the
location right but the spread wrong is seen too), plus the log-likelihood
``log p(y | theta)``, a function of data and parameters together that sees errors no
parameter's marginal sees (Modrák et al. 2023, sec. 3). Latent quantities (labels,
topics, hyperparameters held in the kernel's state) get the same two moments.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from zoo.diagnostics.draws import element_labels

__all__ = ["MomentFunctions"]

LOG_LIKELIHOOD = "log_likelihood"


class MomentFunctions:
    """The test functions for one model, with fixed names and order.

    Parameters
    ----------
    variables : sequence of str
        Variables (keys of a parameter draw) whose elements get two moments each.
    shapes : mapping of str to tuple
        The shape of each variable (fixed by the design of the data).
    log_likelihood : callable, optional
        ``log_likelihood(data, params)``; adds one test function.
    latents : mapping of str to tuple, optional
        Shapes of latent quantities (kernel state) that get two moments each.
    dims : mapping of str to tuple of str, optional
        Dim names for the labels (``theta[group=3]``).
    second_moments : bool
        Whether each element gets ``x**2`` besides ``x``. Geweke's test takes the
        values alone and builds its own functions of them
        (:mod:`zoo.diagnostics.geweke_functions`).
    coords : mapping of str to array, optional
        Coordinate values for the labels, where the design fixes them
        (:func:`~zoo.diagnostics.draws.design_coords`); elements of other dims are
        numbered by position, as in simulation-based calibration.
    """

    def __init__(
        self,
        variables: Sequence[str],
        shapes: Mapping[str, tuple[int, ...]],
        log_likelihood=None,
        latents: Mapping[str, tuple[int, ...]] | None = None,
        dims: Mapping[str, tuple[str, ...]] | None = None,
        second_moments: bool = True,
        coords: Mapping | None = None,
    ):
        self.variables = list(variables)
        self.shapes = {name: tuple(shapes[name]) for name in self.variables}
        self.latent_shapes = {name: tuple(shape) for name, shape in (latents or {}).items()}
        self.log_likelihood = log_likelihood
        self.second_moments = second_moments
        moments = ("mean", "second moment") if second_moments else ("mean",)
        names = []
        kinds = []
        for group in (self.shapes, self.latent_shapes):
            for name, shape in group.items():
                elements = _labels(name, shape, (dims or {}).get(name), coords)
                for moment in moments:
                    names.extend(elements)
                    kinds.extend([moment] * len(elements))
        if log_likelihood is not None:
            names.append(LOG_LIKELIHOOD)
            kinds.append("mean")
        self.names = names
        self.kinds = kinds

    def __len__(self) -> int:
        return len(self.names)

    def __call__(self, params, data, latents=None) -> np.ndarray:
        """Values of every test function at one draw, as a float vector."""
        parts = []
        for group, values in ((self.shapes, params), (self.latent_shapes, latents or {})):
            for name, shape in group.items():
                x = np.asarray(values[name], dtype=float)
                if x.shape != shape:
                    raise ValueError(f"{name}: expected shape {shape}, got {x.shape}")
                x = x.ravel()
                parts.extend((x, x * x) if self.second_moments else (x,))
        if self.log_likelihood is not None:
            parts.append(np.array([self.log_likelihood(data, params)], dtype=float))
        return np.concatenate(parts) if parts else np.empty(0)

    def labels(self) -> list[str]:
        """``"mean theta[0]"``, ``"second moment theta[0]"``, ..., ``"log_likelihood"``."""
        return [
            name if name == LOG_LIKELIHOOD else f"{kind} {name}"
            for name, kind in zip(self.names, self.kinds, strict=True)
        ]


def _labels(name: str, shape: tuple[int, ...], dims, coords) -> list[str]:
    if not shape:
        return [name]
    if dims is None or len(dims) != len(shape):
        dims = tuple(f"dim_{i}" for i in range(len(shape)))
        coords = None  # made-up dims have no coordinates
    return element_labels(name, tuple(dims), shape, coords)

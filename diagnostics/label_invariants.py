"""Label-invariant quantities of a mixture whose components are exchangeable.

When a mixture's component parameters are iid a priori and its weights symmetric, the
posterior is invariant under every permutation of the component labels (Stephens 2000,
"Dealing with label switching in mixture models", JRSS B 62, section 2; Jasra, Holmes &
Stephens 2005, Statistical Science 20, section 2). A sampler that keeps one labelling is
then right in practice, but its draws of ``mu`` or of the labels ``z`` are not draws of
the symmetric marginal the exact reference holds. Functions of the draws that do not
change when the labels are permuted have the same distribution under every labelling,
so they are what two samplers, or a sampler and the reference, can be compared on:

- ``{theta}_of_{z}``: each observation's own component parameter ``theta[z[i]]``
  (and the weight of its component, ``w[z[i]]``);
- ``coassignment_{z}``: the indicator ``1[z_i = z_j]`` for every pair ``i < j`` of
  observations, whose posterior mean is ``P(z_i = z_j | y)``;
- ``{theta}_sorted``: the components ordered by the first element of the first
  parameter, for a mixture with no labels to index (``pm.NormalMixture``).

Numbers only: :class:`Exchangeable` names the variables; the functions take arrays
(any leading sample axes) or a draws ``Dataset`` / ``DataTree``. ``docs/design.md``,
"Label symmetry", argues why these quantities suffice.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import xarray as xr

from zoo.diagnostics.draws import posterior_dataset

__all__ = [
    "Exchangeable",
    "at_labels",
    "coassignment_pairs",
    "invariant_dims",
    "invariant_draws",
    "invariant_names",
    "label_invariant_dataset",
]


@dataclass(frozen=True)
class Exchangeable:
    """One mixture whose components are exchangeable, by the names of its variables.

    Attributes
    ----------
    parameters : tuple of str
        The component parameters, each with the component axis first (``mu`` of shape
        ``(K,)`` or ``(K, d)``).
    label : str, optional
        The latent label variable (``z``: one label per observation, values
        ``0..K-1``); None for a mixture with no labels (``pm.NormalMixture``), whose
        components are then compared sorted.
    weights : str, optional
        The mixture weights read by the labels: a ``(K,)`` vector for categorical
        labels, or for Bernoulli labels (``binary``) the probability of label 1.
    binary : bool
        Whether the labels are Bernoulli (two components, ``weights`` a scalar).
    """

    parameters: tuple[str, ...]
    label: str | None = None
    weights: str | None = None
    binary: bool = False

    @property
    def variables(self) -> tuple[str, ...]:
        """Every variable of the mixture: its parameters, label and weights."""
        return (*self.parameters, *(n for n in (self.label, self.weights) if n is not None))

    def describe(self) -> str:
        """``"components of mu, sigma (labels z)"``: how the output names this mixture."""
        labels = f" (labels {self.label})" if self.label else " (no labels: sorted)"
        return f"components of {', '.join(self.parameters)}{labels}"


def _at_label(name: str, spec: Exchangeable) -> str:
    return f"{name}_of_{spec.label}"


def invariant_names(spec: Exchangeable) -> list[str]:
    """The names of the label-invariant quantities of one mixture, in a fixed order."""
    if spec.label is None:
        return [f"{name}_sorted" for name in spec.parameters]
    names = [_at_label(name, spec) for name in spec.parameters]
    if spec.weights is not None:
        names.append(_at_label(spec.weights, spec))
    names.append(f"coassignment_{spec.label}")
    return names


def invariant_dims(
    spec: Exchangeable, dims: Mapping[str, tuple[str, ...]]
) -> dict[str, tuple[str, ...]]:
    """The dims of each invariant quantity, from the dims of the mixture's variables.

    ``theta_of_z`` has the label's dims then the parameter's own beyond the component
    axis; ``coassignment_z`` one dim, ``{z}_pair``; a sorted parameter keeps its dims.
    """
    if spec.label is None:
        return {f"{name}_sorted": tuple(dims[name]) for name in spec.parameters}
    label_dims = tuple(dims[spec.label])
    out = {_at_label(name, spec): label_dims + tuple(dims[name][1:]) for name in spec.parameters}
    if spec.weights is not None:
        out[_at_label(spec.weights, spec)] = label_dims
    out[f"coassignment_{spec.label}"] = (f"{spec.label}_pair",)
    return out


def coassignment_pairs(n: int) -> np.ndarray:
    """Every pair ``(i, j)``, ``i < j``, of ``n`` observations, row-major: shape (P, 2)."""
    first, second = np.triu_indices(n, k=1)
    return np.stack([first, second], axis=1)


def invariant_draws(
    spec: Exchangeable, draws: Mapping[str, np.ndarray], *, lead: int = 2
) -> dict[str, np.ndarray]:
    """The invariant quantities of draws whose first ``lead`` axes are sample axes.

    Parameters
    ----------
    spec : Exchangeable
    draws : mapping of str to ndarray
        At least the mixture's variables, each ``(*sample, *shape)`` (labels may be
        floats holding integers).
    lead : int
        How many leading axes index draws (2 for ``(chain, draw)``, 0 for one draw).

    Returns
    -------
    dict of str to ndarray
        Each quantity ``(*sample, *its shape)``, as floats.
    """
    if spec.label is None:
        return _sorted(spec, draws, lead)
    labels = np.asarray(draws[spec.label])
    sample = labels.shape[:lead]
    labels = np.rint(labels).astype(np.int64).reshape(*sample, -1)
    n = labels.shape[-1]
    out = {}
    for name in spec.parameters:
        values = np.asarray(draws[name], dtype=float)
        out[_at_label(name, spec)] = at_labels(values, labels, lead)
    if spec.weights is not None:
        weights = np.asarray(draws[spec.weights], dtype=float)
        if spec.binary:
            # Bernoulli labels: component 1 has weight w, component 0 has 1 - w
            w = weights.reshape(*sample, 1)
            at = np.where(labels == 1, w, 1.0 - w)
        else:
            at = at_labels(weights, labels, lead)
        out[_at_label(spec.weights, spec)] = at
    pairs = coassignment_pairs(n)
    same = labels[..., pairs[:, 0]] == labels[..., pairs[:, 1]]
    out[f"coassignment_{spec.label}"] = same.astype(float)
    label_shape = np.shape(draws[spec.label])[lead:]
    for name in spec.parameters:
        key = _at_label(name, spec)
        out[key] = out[key].reshape(*sample, *label_shape, *out[key].shape[lead + 1 :])
    if spec.weights is not None:
        key = _at_label(spec.weights, spec)
        out[key] = out[key].reshape(*sample, *label_shape)
    return out


def at_labels(values: np.ndarray, labels: np.ndarray, lead: int) -> np.ndarray:
    """Each observation's component: ``values[..., labels[..., i], ...]``.

    ``values`` is ``(*sample, K, ...)`` and ``labels`` ``(*sample, n)`` with ``lead``
    sample axes; the result is ``(*sample, n, ...)``.
    """
    extra = values.ndim - lead - 1  # the parameter's own axes beyond the components
    index = labels.reshape(labels.shape + (1,) * extra)
    index = np.broadcast_to(index, labels.shape + values.shape[lead + 1 :])
    return np.take_along_axis(values, index, axis=lead)


def _sorted(spec: Exchangeable, draws, lead: int) -> dict[str, np.ndarray]:
    """Every parameter with its components ordered by the first parameter's first element."""
    first = np.asarray(draws[spec.parameters[0]], dtype=float)
    key = first.reshape(*first.shape[: lead + 1], -1)[..., 0]
    order = np.argsort(key, axis=lead, kind="stable")
    out = {}
    for name in spec.parameters:
        values = np.asarray(draws[name], dtype=float)
        index = order.reshape(order.shape + (1,) * (values.ndim - lead - 1))
        index = np.broadcast_to(index, values.shape)
        out[f"{name}_sorted"] = np.take_along_axis(values, index, axis=lead)
    return out


def label_invariant_dataset(draws, specs, dims: Mapping[str, tuple[str, ...]]) -> xr.Dataset:
    """The invariant quantities of every mixture in ``specs`` as a draws ``Dataset``.

    Parameters
    ----------
    draws : xarray.DataTree, xarray.Dataset or mapping
        Posterior draws with ``(chain, draw)`` leading dims (a DataTree's ``posterior``).
    specs : sequence of Exchangeable
    dims : mapping of str to tuple of str
        The dims of the mixtures' variables (without ``chain`` and ``draw``).
    """
    dataset = posterior_dataset(draws)
    arrays = {name: dataset[name].values for name in dataset.data_vars}
    out = {}
    for spec in specs:
        computed = invariant_draws(spec, arrays)
        named = invariant_dims(spec, dims)
        for name, values in computed.items():
            out[name] = (("chain", "draw", *named[name]), values)
    return xr.Dataset(out, coords={k: dataset.coords[k] for k in ("chain", "draw")})

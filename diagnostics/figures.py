"""Figures for reports: posteriors against the exact answer, ranks, traces, SBC ECDFs.

Built with arviz-plots (matplotlib backend) on a small set of scalar *quantities* (one
element of one variable each, named like the agreement table's rows,
``theta[group=3]``), so that a model with thousands of elements still gives a bounded
number of panels: :func:`select_elements` picks the failing ones first, then the first
few of each variable.

Every function returns a :class:`matplotlib.figure.Figure` of a fixed size in inches;
:class:`zoo.diagnostics.report.Report` renders it at 100 dpi and closes it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from zoo.core.arguments import as_int
from zoo.diagnostics.draws import SAMPLE_DIMS, element_labels

__all__ = [
    "Quantity",
    "posterior_figure",
    "quantities",
    "rank_figure",
    "sbc_ecdf_figure",
    "sbc_outside",
    "select_elements",
    "trace_figure",
]

# Panels per row, and inches per panel: a 12 x 2.8 inch row reads well on a laptop.
COLUMNS = 4
WIDTH = 12.0
ROW_HEIGHT = 2.8


def _pyplot():
    # deferred: matplotlib is slow to import; only figures need it
    import matplotlib

    # Reports are written from the command line, CI and tests: never open a window.
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        matplotlib.use("Agg", force=True)
    # deferred: matplotlib is slow to import; only figures need it
    import matplotlib.pyplot as plt

    return plt


class Quantity:
    """One scalar element of a posterior variable.

    Attributes
    ----------
    label : str
        ``name[dim=value,...]``, as in the agreement table.
    variable : str
    index : dict of str to int
        Positional index of the element along each of the variable's own dims.
    """

    def __init__(self, label: str, variable: str, index: Mapping[str, int]):
        self.label, self.variable, self.index = label, variable, dict(index)

    def __repr__(self) -> str:
        return f"Quantity({self.label!r})"


def quantities(posterior: xr.Dataset, reference=None) -> dict[str, list[Quantity]]:
    """Every scalar element of every variable of ``posterior``, per variable.

    Labels use the reference's dims and coordinates where it has the variable (so they
    match :func:`zoo.diagnostics.agreement`'s rows), the draws' otherwise.
    """
    marginals = getattr(reference, "marginals", {}) or {}
    out = {}
    for name in posterior.data_vars:
        name = str(name)
        array = posterior[name]
        own = tuple(d for d in array.dims if d not in SAMPLE_DIMS)
        if name in marginals and set(marginals[name].dims) == set(own):
            dims, coords = tuple(marginals[name].dims), reference.coords
        else:
            dims = own
            coords = {d: array[d].values for d in dims if d in array.coords}
        shape = tuple(array.sizes[d] for d in dims)
        labels = element_labels(name, dims, shape, coords)
        out[name] = [
            Quantity(label, name, dict(zip(dims, index, strict=True)))
            for label, index in zip(labels, np.ndindex(*shape), strict=True)
        ]
    return out


def select_elements(
    by_variable: Mapping[str, Sequence[Quantity]],
    failing: Sequence[str] = (),
    *,
    per_variable: int = 2,
    total: int = 12,
) -> list[Quantity]:
    """Pick a bounded set of quantities to plot.

    First the failing ones (labels in ``failing``, in order; at most half of ``total``),
    then the first ``per_variable`` elements of each variable, round-robin over
    variables, then more failing ones, until ``total``.
    """
    as_int("per_variable", per_variable, minimum=1)
    as_int("total", total, minimum=1)
    everything = {q.label: q for qs in by_variable.values() for q in qs}
    failing = [everything[label] for label in dict.fromkeys(failing) if label in everything]
    # Failing quantities take at most half the panels, so that every variable still
    # shows; the rest of them come last if there is room.
    chosen = failing[: max(1, total // 2)]
    for rank in range(per_variable):
        for qs in by_variable.values():
            if len(chosen) < total and rank < len(qs) and qs[rank] not in chosen:
                chosen.append(qs[rank])
    chosen += [q for q in failing if q not in chosen][: total - len(chosen)]
    return chosen


def _quantity_tree(tree: xr.DataTree, chosen: Sequence[Quantity]) -> xr.DataTree:
    posterior = tree["posterior"].to_dataset()
    variables = {}
    for q in chosen:
        array = posterior[q.variable].isel(q.index).transpose(*SAMPLE_DIMS)
        variables[q.label] = (SAMPLE_DIMS, np.asarray(array.values, dtype=float))
    # Sample dims need coordinates: arviz-plots colours traces by chain only when the
    # chain coordinate exists.
    coords = {d: np.arange(posterior.sizes[d]) for d in SAMPLE_DIMS}
    return xr.DataTree.from_dict({"posterior": xr.Dataset(variables, coords=coords)})


def _size(panels: int) -> tuple[float, float]:
    rows = max(1, math.ceil(panels / COLUMNS))
    return WIDTH, ROW_HEIGHT * rows + 0.6


def _figure(pc):
    return pc.viz["figure"].item()


def _exact_curves(engines: Mapping[str, xr.DataTree], reference, chosen, points: int = 400):
    """Exact density (continuous) or CDF (discrete) of each chosen quantity on a grid.

    The density is the exact CDF differenced on a fine grid: it works for every
    reference that has a CDF (scipy frozen distributions, mixtures, tabulated CDFs)
    without asking models for a density they do not expose.
    """
    marginals = getattr(reference, "marginals", {}) or {}
    curves = {}
    by_variable: dict[str, list[Quantity]] = {}
    for q in chosen:
        if q.variable in marginals and marginals[q.variable].cdf is not None:
            by_variable.setdefault(q.variable, []).append(q)
    for name, qs in by_variable.items():
        marginal = marginals[name]
        pooled = np.concatenate(
            [
                np.asarray(
                    tree["posterior"][name].transpose(*SAMPLE_DIMS, *marginal.dims).values,
                    dtype=float,
                ).reshape(-1, *marginal.shape)
                for tree in engines.values()
            ]
        )
        # Points inside the support for the elements that are not being evaluated.
        base = np.median(pooled, axis=0)
        x = np.broadcast_to(base, (points, *marginal.shape)).copy()
        grids = {}
        for q in qs:
            idx = tuple(q.index[d] for d in marginal.dims)
            values = pooled[(slice(None), *idx)]
            # Where the draws are (not the exact +-3 sd, which can leave the support).
            low, high = np.quantile(values, [0.001, 0.999])
            if marginal.discrete:
                low, high = values.min() - 0.5, values.max() + 0.5
            if not high > low:
                high = low + 1e-9
            grid = np.linspace(low, high, points)
            grids[q.label] = (idx, grid)
            x[(slice(None), *idx)] = grid
        cdf = np.asarray(marginal.cdf(x), dtype=float)
        for label, (idx, grid) in grids.items():
            values = cdf[(slice(None), *idx)]
            if marginal.discrete:
                curves[label] = ("cdf", grid, values)
            else:
                middle = 0.5 * (grid[1:] + grid[:-1])
                curves[label] = ("pdf", middle, np.diff(values) / np.diff(grid))
    return curves


def posterior_figure(
    engines: Mapping[str, xr.DataTree],
    chosen: Sequence[Quantity],
    reference=None,
    *,
    title: str = "",
):
    """Each engine's marginal posterior of each chosen quantity, and the exact one.

    Continuous marginals: histograms (density scale) of the draws of every engine and
    the exact density as a dashed black line. Discrete marginals (or no density): the
    ECDF of each engine against the exact CDF. Quantities without an exact marginal
    show the engines only.

    Parameters
    ----------
    engines : mapping of str to DataTree
        Draws per engine (``{"gibbs": tree, "pymc": tree}``); at least one.
    chosen : sequence of Quantity
        From :func:`select_elements`.
    reference : Reference, optional
        The exact posterior.
    title : str
        Figure title.
    """
    # deferred: arviz_plots takes about 2 s to import; only figures need it
    import arviz_plots as azp

    if not engines:
        raise ValueError("engines: need the draws of at least one engine")
    if not chosen:
        raise ValueError("chosen: need at least one quantity")
    _pyplot()
    trees = {name: _quantity_tree(tree, chosen) for name, tree in engines.items()}
    curves = _exact_curves(engines, reference, chosen)
    discrete = any(kind == "cdf" for kind, _, _ in curves.values())
    pc = azp.plot_dist(
        trees,
        kind="ecdf" if discrete else "hist",
        backend="matplotlib",
        col_wrap=COLUMNS,
        figure_kwargs={"figsize": _size(len(chosen))},
        visuals={
            "credible_interval": False,
            "point_estimate": False,
            "point_estimate_text": False,
            "title": {"fontsize": 8},
        },
    )
    for q in chosen:
        axes = pc.viz["plot"][q.label].item()
        if q.label in curves:
            kind, grid, values = curves[q.label]
            if kind == "cdf":
                axes.step(grid, values, where="post", color="black", linestyle="--", lw=1.2)
            else:
                axes.plot(grid, values, color="black", linestyle="--", lw=1.2)
    pc.add_legend("model")
    figure = _figure(pc)
    suffix = "; dashed black: exact" if curves else ""
    figure.suptitle(f"{title}{suffix}", x=0.01, ha="left", fontsize=10)
    figure.set_label(f"Marginal posteriors by engine{suffix}")
    return figure


def rank_figure(tree: xr.DataTree, chosen: Sequence[Quantity], *, title: str = ""):
    """Rank plots across chains (ArviZ's fractional-rank ECDF differences, with envelope)."""
    # deferred: arviz_plots takes about 2 s to import; only figures need it
    import arviz_plots as azp

    if not chosen:
        raise ValueError("chosen: need at least one quantity")
    _pyplot()
    pc = azp.plot_rank(
        _quantity_tree(tree, chosen),
        backend="matplotlib",
        visuals={"title": {"fontsize": 8}},
        col_wrap=COLUMNS,
        figure_kwargs={"figsize": _size(len(chosen))},
    )
    figure = _figure(pc)
    figure.suptitle(title, x=0.01, ha="left", fontsize=10)
    return figure


def trace_figure(tree: xr.DataTree, chosen: Sequence[Quantity], *, title: str = ""):
    """Trace plots, one line per chain."""
    # deferred: arviz_plots takes about 2 s to import; only figures need it
    import arviz_plots as azp

    if not chosen:
        raise ValueError("chosen: need at least one quantity")
    _pyplot()
    pc = azp.plot_trace(
        _quantity_tree(tree, chosen),
        backend="matplotlib",
        visuals={"title": {"fontsize": 8}},
        col_wrap=COLUMNS,
        figure_kwargs={"figsize": _size(len(chosen))},
    )
    figure = _figure(pc)
    figure.suptitle(title, x=0.01, ha="left", fontsize=10)
    return figure


def _sbc_inputs(ranks, max_rank, grid, lower, upper):
    ranks = np.asarray(ranks, dtype=float)
    if ranks.ndim == 1:
        ranks = ranks[:, np.newaxis]
    if ranks.ndim != 2 or ranks.shape[0] < 1:
        raise ValueError(f"ranks: expected shape (n_sims, n_quantities), got {ranks.shape}")
    as_int("max_rank", max_rank, minimum=1, allow_none=True)
    if max_rank is None:
        if not np.all((ranks >= 0) & (ranks <= 1)):
            raise ValueError("ranks: normalised ranks (max_rank=None) must lie in [0, 1]")
    elif not np.all(ranks == np.floor(ranks)) or ranks.min() < 0 or ranks.max() > max_rank:
        raise ValueError(f"ranks: must be integers in 0..{max_rank}")
    grid = np.asarray(grid, dtype=float)
    if grid.ndim != 1 or grid.size < 2 or grid.min() < 0 or grid.max() > 1:
        raise ValueError("grid: must be a 1-D array of at least 2 points in [0, 1]")
    bands = []
    for field, band in (("lower", lower), ("upper", upper)):
        band = np.asarray(band, dtype=float)
        if band.ndim == 1:
            band = np.repeat(band[:, np.newaxis], ranks.shape[1], axis=1)
        if band.shape != (grid.size, ranks.shape[1]):
            raise ValueError(
                f"{field}: expected shape ({grid.size},) or ({grid.size}, {ranks.shape[1]}), "
                f"got {np.shape(band)}"
            )
        bands.append(band)
    # ECDF of the fractional ranks u = (rank + 1) / (L + 1) at the grid points: uniform
    # ranks give E[ECDF(z)] = z at z = j / (L + 1). Normalised ranks are used as given.
    fractional = ranks if max_rank is None else (ranks + 1.0) / (max_rank + 1.0)
    ecdf = (fractional[np.newaxis, :, :] <= grid[:, np.newaxis, np.newaxis] + 1e-12).mean(axis=1)
    return ranks, grid, bands[0], bands[1], ecdf


def sbc_outside(ranks, *, max_rank: int | None, grid, lower, upper) -> dict:
    """Whether each quantity's rank ECDF leaves its simultaneous band.

    Parameters are those of :func:`sbc_ecdf_figure`.

    Returns
    -------
    dict
        ``outside`` (bool per quantity), ``max_deviation`` (largest ``|ECDF(z) - z|``),
        ``n_sims``, ``names`` (``q0, q1, ...``).
    """
    ranks, grid, lower, upper, ecdf = _sbc_inputs(ranks, max_rank, grid, lower, upper)
    outside = ((ecdf < lower) | (ecdf > upper)).any(axis=0)
    deviation = np.abs(ecdf - grid[:, np.newaxis]).max(axis=0)
    return {
        "outside": [bool(o) for o in outside],
        "max_deviation": [float(d) for d in deviation],
        "n_sims": int(ranks.shape[0]),
        "names": [f"q{k}" for k in range(ranks.shape[1])],
    }


def sbc_ecdf_figure(
    ranks,
    *,
    max_rank: int | None,
    grid,
    lower,
    upper,
    quantities: Sequence[str] | None = None,
    max_panels: int = 12,
):
    """ECDF difference plot of SBC ranks inside their simultaneous band.

    Säilynoja, Bürkner & Vehtari (2022, Statistics and Computing 32:32): with calibrated
    inference the ranks are uniform, and ``ECDF(z) - z`` of the fractional ranks stays
    inside a simultaneous band with the band's probability.

    Parameters
    ----------
    ranks : array-like, shape (n_sims, n_quantities)
        Integer ranks in ``0..max_rank``, or normalised ranks in [0, 1] when
        ``max_rank`` is None.
    max_rank : int or None
        ``L``, the number of posterior draws each rank was taken among; None for ranks
        already normalised (``zoo.diagnostics.sbc.SBCResult.ranks``).
    grid : array-like, shape (n_points,)
        Points in [0, 1] where the band is given.
    lower, upper : array-like, shape (n_points,) or (n_points, n_quantities)
        The band on the ECDF of ``(rank + 1) / (L + 1)``, or of the normalised ranks
        (ECDF values, not differences).
    quantities : sequence of str, optional
        Panel titles.
    max_panels : int
        At most this many panels: quantities leaving their band first, then the first.
    """
    ranks, grid, lower, upper, ecdf = _sbc_inputs(ranks, max_rank, grid, lower, upper)
    names = [f"q{k}" for k in range(ranks.shape[1])] if quantities is None else list(quantities)
    if len(names) != ranks.shape[1]:
        raise ValueError(f"quantities: expected {ranks.shape[1]} names, got {len(names)}")
    as_int("max_panels", max_panels, minimum=1)
    outside = ((ecdf < lower) | (ecdf > upper)).any(axis=0)
    order = [k for k in range(len(names)) if outside[k]]
    order += [k for k in range(len(names)) if not outside[k]]
    shown = order[:max_panels]
    plt = _pyplot()
    rows = max(1, math.ceil(len(shown) / COLUMNS))
    columns = min(COLUMNS, len(shown))
    figure, axes = plt.subplots(
        rows, columns, figsize=_size(len(shown)), squeeze=False, sharex=True, sharey=True
    )
    for panel, k in enumerate(shown):
        ax = axes[panel // columns][panel % columns]
        ax.fill_between(grid, lower[:, k] - grid, upper[:, k] - grid, color="0.85", step="post")
        ax.step(grid, ecdf[:, k] - grid, where="post", color="C3" if outside[k] else "C0", lw=1.2)
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.set_title(names[k] + ("  (outside)" if outside[k] else ""), fontsize=9)
    for panel in range(len(shown), rows * columns):
        axes[panel // columns][panel % columns].set_visible(False)
    figure.supxlabel("fractional rank")
    figure.supylabel("ECDF - uniform")
    hidden = len(names) - len(shown)
    note = f" ({hidden} more quantities in the table)" if hidden else ""
    figure.set_label(
        f"SBC: ECDF of the fractional ranks minus uniform, grey the simultaneous band; "
        f"red: outside{note}"
    )
    figure.tight_layout()
    return figure

"""Figures for reports: posteriors against the exact answer, ranks, traces, SBC ECDFs.

Built with arviz-plots (matplotlib backend) on a small set of scalar *quantities* (one
element of one variable each, named like the agreement table's rows,
``theta[group=3]``), so that a model with thousands of elements still gives a bounded
number of panels: :func:`select_elements` picks the failing ones first, then the first
few of each variable.

Every function returns a :class:`matplotlib.figure.Figure` of a fixed size in inches;
:class:`zoo.reports.html.Report` renders it at 100 dpi and closes it. The figures
use matplotlib's constrained layout, so titles, axis and tick labels get the room they
need instead of running into the next panel; long quantity labels are wrapped to a
panel's width (:func:`wrap_label`) and large tick values written compactly (``200k``,
:func:`compact_formatter`), so that making room does not squeeze the panels.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Mapping, Sequence

import numpy as np
import xarray as xr

from zoo.core.arguments import as_int
from zoo.diagnostics.draws import SAMPLE_DIMS, element_labels

__all__ = [
    "RANK_LEVEL",
    "Quantity",
    "compact_formatter",
    "posterior_figure",
    "quantities",
    "rank_figure",
    "sbc_ecdf_figure",
    "sbc_outside",
    "select_elements",
    "trace_figure",
    "wrap_label",
]

# Panels per row, and inches per panel: a 12 x 2.8 inch row reads well on a laptop.
COLUMNS = 4
WIDTH = 12.0
ROW_HEIGHT = 2.8
# Characters per line of a panel title: a 3-inch panel holds about 50 characters of
# 8-point text; the margin leaves room for its tick labels.
TITLE_CHARACTERS = 40
TITLE_SIZE = 8

#: Level of ArviZ's multi-chain rank test in :func:`rank_figure` (its
#: ``envelope_prob``): points are marked where a chain's ranks are improbable at 1 - this.
RANK_LEVEL = 0.99

# Tick values from this size on are written with a suffix (compact_formatter); below
# 10^-SMALLEST_DIGITS as digits and a power of ten.
COMPACT_FROM = 1e4
SMALLEST_DIGITS = 3
# At most this many intervals between x ticks of a panel.
X_TICKS = 4
SUFFIXES = ((1e9, "G"), (1e6, "M"), (1e3, "k"))


def _pyplot():
    # deferred: matplotlib is slow to import; only figures need it
    import matplotlib

    # Reports are written from the command line, CI and tests: never open a window.
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo"):
        matplotlib.use("Agg", force=True)
    # deferred: matplotlib is slow to import; only figures need it
    import matplotlib.pyplot as plt

    return plt


def wrap_label(label: str, width: int = TITLE_CHARACTERS) -> str:
    """Break a quantity label across lines after ``[`` or ``,`` to fit ``width`` characters.

    ``class_probability[unlabelled=image 633,class=digit 5]`` becomes two lines, so
    a panel's title fits over its panel instead of running into its neighbours'. A
    piece longer than ``width`` with no break point stays whole.

    Parameters
    ----------
    label : str
    width : int
        Characters per line.

    Returns
    -------
    str
        The label with newlines inserted; nothing else changes.
    """
    as_int("width", width, minimum=1)
    lines: list[str] = []
    for piece in re.split(r"(?<=[\[,])", label):
        if lines and len(lines[-1]) + len(piece) <= width:
            lines[-1] += piece
        elif piece:
            lines.append(piece)
    return "\n".join(lines)


@functools.cache
def _compact_class():
    # deferred: matplotlib is slow to import; only figures need it. The class is built
    # once, on first use, because its base class lives in matplotlib.
    from matplotlib import ticker

    class CompactFormatter(ticker.ScalarFormatter):
        def __init__(self):
            super().__init__()
            # Small values as digits times a power of ten shown once at the axis's end
            # (0, 2, 4 and "1e-4"), not as 0.0002, 0.0004 side by side.
            self.set_powerlimits((-SMALLEST_DIGITS, 4))

        def set_locs(self, locs):
            super().set_locs(locs)
            largest = max((abs(v) for v in locs), default=0.0)
            self.compact = None
            if largest >= COMPACT_FROM:
                self.compact = next((s, t) for s, t in SUFFIXES if largest >= s)

        def __call__(self, x, pos=None):
            if getattr(self, "compact", None) is None:
                return super().__call__(x, pos)
            scale, suffix = self.compact
            return "0" if x == 0 else f"{x / scale:.3g}{suffix}"

        def get_offset(self):
            # The suffix carries the scale: no "1e5" above the axis.
            return "" if getattr(self, "compact", None) else super().get_offset()

    return CompactFormatter


def compact_formatter():
    """A matplotlib tick formatter whose labels stay short: ``200k``, ``1.5M`` from 10^4 up.

    Between ``10**-SMALLEST_DIGITS`` and ``COMPACT_FROM`` in absolute value the labels
    are matplotlib's (``ScalarFormatter``, a subclass of which this is); smaller values
    are written as digits with the power of ten once at the axis's end (``2``, ``4`` and
    ``1e-4``, not ``0.0002``, ``0.0004``). From ``COMPACT_FROM`` on the ticks are
    shown in thousands (``k``), millions (``M``) or billions (``G``), so the
    ``737638``-sized draws of a heavy-tailed concentration (the Beta-Binomial's ``b``)
    take four characters instead of six and leave the panel its width.

    Returns
    -------
    matplotlib.ticker.ScalarFormatter
        A new formatter; give each axis its own (``axis.set_major_formatter``).
    """
    return _compact_class()()


def _finish(figure, title: str, *, wrap_titles: bool = True):
    """Compact tick labels, wrapped panel titles and the figure's title, left-aligned."""
    # deferred: matplotlib is slow to import; only figures need it
    from matplotlib import ticker

    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            # Only matplotlib's default numbers: a categorical or date axis keeps its own.
            if type(axis.get_major_formatter()) is ticker.ScalarFormatter:
                axis.set_major_formatter(compact_formatter())
        if type(ax.xaxis.get_major_locator()) is ticker.AutoLocator:
            # matplotlib spaces x ticks by font size, not label width: a panel's
            # "0.9990 0.9992 ..." would touch. At most X_TICKS intervals leave a label
            # of seven characters its room.
            ax.xaxis.set_major_locator(ticker.MaxNLocator(X_TICKS, steps=[1, 2, 2.5, 5, 10]))
        if wrap_titles and ax.get_title():
            ax.set_title(wrap_label(ax.get_title()), fontsize=TITLE_SIZE)
    if title:
        figure.suptitle(title, x=0.01, ha="left", fontsize=10)
    return figure


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


def _figure_kwargs(panels: int) -> dict:
    # Constrained layout gives each panel's titles and labels their room.
    return {"figsize": _size(panels), "layout": "constrained"}


def _figure(pc):
    return pc.viz["figure"].item()


def _exact_curves(
    engines: Mapping[str, xr.DataTree], reference, chosen, points: int = 400, *, cdf=False
):
    """Exact density (continuous) or CDF (discrete, or all with ``cdf``) on a grid.

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
        # Where the exact mass is: a wrong sampler's draws may all lie elsewhere, and
        # a figure of failing quantities must show both.
        exact_range = None
        if marginal.ppf is not None and not marginal.discrete:
            with np.errstate(all="ignore"):
                exact_range = [
                    np.broadcast_to(np.asarray(marginal.ppf(q), dtype=float), marginal.shape)
                    for q in (0.001, 0.999)
                ]
        grids = {}
        for q in qs:
            idx = tuple(q.index[d] for d in marginal.dims)
            values = pooled[(slice(None), *idx)]
            # Where the draws are (not the exact +-3 sd, which can leave the support).
            low, high = np.quantile(values, [0.001, 0.999])
            if exact_range is not None:
                low = np.nanmin([low, exact_range[0][idx]])
                high = np.nanmax([high, exact_range[1][idx]])
            if marginal.discrete:
                low, high = values.min() - 0.5, values.max() + 0.5
            if not high > low:
                high = low + 1e-9
            grid = np.linspace(low, high, points)
            grids[q.label] = (idx, grid)
            x[(slice(None), *idx)] = grid
        probabilities = np.asarray(marginal.cdf(x), dtype=float)
        for label, (idx, grid) in grids.items():
            values = probabilities[(slice(None), *idx)]
            if marginal.discrete or cdf:
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
    show the engines only. The figure's label (``get_label()``) says which, for a
    caption.

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
    marginals = getattr(reference, "marginals", {}) or {}
    discrete = any(
        q.variable in marginals
        and marginals[q.variable].discrete
        and marginals[q.variable].cdf is not None
        for q in chosen
    )
    # One kind of panel for all: with any discrete quantity, every panel is an ECDF
    # and every exact curve a CDF.
    curves = _exact_curves(engines, reference, chosen, cdf=discrete)
    pc = azp.plot_dist(
        trees,
        kind="ecdf" if discrete else "hist",
        backend="matplotlib",
        col_wrap=COLUMNS,
        figure_kwargs=_figure_kwargs(len(chosen)),
        visuals={
            "credible_interval": False,
            "point_estimate": False,
            "point_estimate_text": False,
            "title": {"fontsize": TITLE_SIZE},
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
    shown = "ECDF" if discrete else "histogram"
    figure.set_label(
        f"Marginal posteriors: each engine's draws ({shown})"
        + (
            f" and the exact posterior ({'CDF' if discrete else 'density'}, dashed black)."
            if curves
            else "; no exact marginal to show."
        )
    )
    return _finish(figure, f"{title}{suffix}")


def rank_figure(tree: xr.DataTree, chosen: Sequence[Quantity], *, title: str = ""):
    """Rank plots across chains: fractional-rank ECDF differences and the multi-chain test.

    ArviZ's ``plot_rank`` with its recommended method (``mtc_c``): the draws are ranked
    over all chains, and each chain's ECDF of its fractional ranks minus the uniform
    CDF is drawn (Säilynoja, Bürkner & Vehtari 2022, Statistics and Computing 32:32).
    Chains that sample one distribution stay near zero (the grey line). Each panel
    states the p-value of ArviZ's multi-chain uniformity test, which allows for
    autocorrelation (Tesso et al. 2026, arXiv:2603.02928), and marks the points that
    drive a p below ``1 - RANK_LEVEL``. No envelope is drawn: ArviZ's envelope
    assumes independent draws and needs thinning, and ArviZ no longer recommends it.
    The figure's label (``get_label()``) says so, for a caption.
    """
    # deferred: arviz_plots takes about 2 s to import; only figures need it
    import arviz_plots as azp

    if not chosen:
        raise ValueError("chosen: need at least one quantity")
    _pyplot()
    pc = azp.plot_rank(
        _quantity_tree(tree, chosen),
        backend="matplotlib",
        envelope_prob=RANK_LEVEL,
        visuals={"title": {"fontsize": TITLE_SIZE}},
        col_wrap=COLUMNS,
        figure_kwargs=_figure_kwargs(len(chosen)),
    )
    figure = _figure(pc)
    for ax in figure.axes:
        if ax.axison:
            ax.axhline(0.0, color="0.6", lw=0.6, zorder=0)
    alpha = 1 - RANK_LEVEL
    figure.set_label(
        "Per chain, the ECDF of its fractional ranks (ranked over all chains) minus the "
        "uniform CDF: chains that sample the same distribution stay close to the grey "
        f"zero line. p: ArviZ's multi-chain uniformity test, which allows for "
        f"autocorrelation; where p < {alpha:.2g}, the points that drive it are marked."
    )
    return _finish(figure, title)


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
        visuals={"title": {"fontsize": TITLE_SIZE}},
        col_wrap=COLUMNS,
        figure_kwargs=_figure_kwargs(len(chosen)),
    )
    figure = _figure(pc)
    figure.set_label("One colour per chain.")
    return _finish(figure, title)


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
        rows,
        columns,
        figsize=_size(len(shown)),
        squeeze=False,
        sharex=True,
        sharey=True,
        layout="constrained",
    )
    for panel, k in enumerate(shown):
        ax = axes[panel // columns][panel % columns]
        ax.fill_between(grid, lower[:, k] - grid, upper[:, k] - grid, color="0.85", step="post")
        ax.step(grid, ecdf[:, k] - grid, where="post", color="C3" if outside[k] else "C0", lw=1.2)
        ax.axhline(0.0, color="0.5", lw=0.6)
        ax.set_title(wrap_label(names[k] + (" (outside)" if outside[k] else "")), fontsize=9)
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
    return _finish(figure, "", wrap_titles=False)

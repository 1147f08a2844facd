"""Agreement of MCMC draws with an exact reference, or of two sets of draws.

The protocol (DESIGN.md, "Diagnostics"), per scalar quantity (every element of every
variable):

1. Gates: rank-normalised split R-hat <= 1.01 and bulk and tail ESS >= 400 (Vehtari,
   Gelman, Simpson, Carpenter & Bürkner, Bayesian Analysis 16, 2021). A quantity that
   fails a gate is *inconclusive*: its Monte Carlo standard errors cannot be trusted,
   so it is neither passed nor failed, and its tests leave the family.
2. Tests: z-scores ``(estimate - exact) / MCSE`` of the mean, the sd and tail quantiles,
   with ArviZ's MCSEs; and a Kolmogorov-Smirnov test of the PIT values against the exact
   CDF, on draws thinned to near independence (twice the ``n / ESS`` factor, because
   uniformity tests assume independent draws).
3. One family-wise error rate over all tests of all quantities (Holm 1979), default 1%:
   with a correct sampler, the probability that *any* row is flagged is at most
   ``alpha`` (up to the normal approximation of the z-scores).

The two-sample version (:func:`compare`) replaces the exact value by the other sampler's
estimate and the MCSE by the root sum of squares of both, and KS by its two-sample form.
"""

from __future__ import annotations

import math

import numpy as np
import xarray as xr
from scipy import stats

from zoo.diagnostics.draws import element_labels, posterior_dataset, variable_draws
from zoo.diagnostics.reference import Marginal
from zoo.diagnostics.result import AgreementResult

__all__ = ["agreement", "compare", "holm"]

DEFAULT_QUANTILES = (0.05, 0.95)


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm, Scand. J. Statist. 6, 1979).

    Rejecting every test whose adjusted p-value is <= alpha controls the family-wise
    error rate at alpha under any dependence between the tests.
    """
    p_values = np.asarray(p_values, dtype=float)
    m = p_values.size
    if m == 0:
        return p_values.copy()
    order = np.argsort(p_values, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p_values[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def _check_settings(alpha, quantiles, rhat_max, ess_min):
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise ValueError(f"alpha: must be a probability in (0, 1), got {alpha!r}")
    for q in quantiles:
        if not 0 < q < 1:
            raise ValueError(f"quantiles: each must lie in (0, 1), got {q!r}")
    if not rhat_max >= 1:
        raise ValueError(f"rhat_max: must be >= 1, got {rhat_max!r}")
    if not ess_min > 0:
        raise ValueError(f"ess_min: must be > 0, got {ess_min!r}")


class _Summary:
    """Estimates, MCSEs and gates of one variable's draws, element by element."""

    def __init__(self, values: np.ndarray, quantiles):
        import arviz_stats as azs

        chains, draws = values.shape[:2]
        flat = values.reshape(chains, draws, -1)
        pooled = flat.reshape(chains * draws, -1)
        self.flat = flat
        self.mean = pooled.mean(axis=0)
        self.sd = pooled.std(axis=0, ddof=1)
        self.quantiles = {q: np.quantile(pooled, q, axis=0) for q in quantiles}
        self.mcse_mean = np.atleast_1d(azs.mcse(flat, method="mean"))
        self.mcse_sd = np.atleast_1d(azs.mcse(flat, method="sd"))
        self.mcse_quantiles = {
            q: np.atleast_1d(azs.mcse(flat, method="quantile", prob=q)) for q in quantiles
        }
        self.rhat = np.atleast_1d(azs.rhat(flat)) if chains > 1 else np.full(flat.shape[2], np.nan)
        self.ess_bulk = np.atleast_1d(azs.ess(flat, method="bulk"))
        self.ess_tail = np.atleast_1d(azs.ess(flat, method="tail", prob=DEFAULT_QUANTILES))

    def passes(self, rhat_max, ess_min) -> np.ndarray:
        # NaN (constant draws, a single chain) fails every comparison, hence every gate.
        return (self.rhat <= rhat_max) & (self.ess_bulk >= ess_min) & (self.ess_tail >= ess_min)

    def thinned(self) -> np.ndarray:
        """Draws thinned to near independence, shape (n, elements), one factor for all."""
        ess = np.nanmin(np.minimum(self.ess_bulk, self.ess_tail))
        total = self.flat.shape[0] * self.flat.shape[1]
        factor = 1 if not np.isfinite(ess) or ess <= 0 else max(1, math.ceil(2 * total / ess))
        return self.flat[:, ::factor].reshape(-1, self.flat.shape[2])


def _z_row(estimate, reference, mcse):
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - reference) / mcse
    z = np.where(mcse > 0, z, np.where(estimate == reference, 0.0, np.inf))
    return z, 2.0 * stats.norm.sf(np.abs(z))


def agreement(
    draws,
    reference,
    *,
    var_names=None,
    alpha: float = 0.01,
    quantiles=DEFAULT_QUANTILES,
    rhat_max: float = 1.01,
    ess_min: float = 400,
    ks: bool = True,
    group: str = "posterior",
) -> AgreementResult:
    """Test whether MCMC draws agree with an exact posterior.

    Parameters
    ----------
    draws : DataTree, Dataset or dict of arrays
        Posterior draws with leading ``(chain, draw)`` dims (at least 2 chains), from any
        sampler; variables are matched to the reference by name.
    reference : zoo.diagnostics.Reference
        The exact marginals (``model.posterior(data, prior)``).
    var_names : list of str, optional
        Variables to test; default every variable of the reference.
    alpha : float
        Family-wise error rate over all tests (Holm). Default 1%.
    quantiles : sequence of float
        Quantiles whose estimates are tested against the exact ones.
    rhat_max, ess_min : float
        Gates: quantities beyond them are inconclusive.
    ks : bool
        Also run Kolmogorov-Smirnov tests of the PIT against exact CDFs.
    group : str
        DataTree group holding the draws.

    Returns
    -------
    AgreementResult
        ``.table`` (an ``xarray.Dataset`` with one row per test: reference, estimate,
        mcse, z, p, p_adjusted, verdict, and the gates) and ``.verdict``
        (``"agree"``, ``"disagree"`` or ``"inconclusive"``).
    """
    _check_settings(alpha, quantiles, rhat_max, ess_min)
    if not getattr(reference, "available", False):
        reason = getattr(reference, "reason", "not a Reference")
        raise ValueError(f"reference: no exact reference is available ({reason})")
    dataset = posterior_dataset(draws, group=group)
    names = list(reference.marginals) if var_names is None else list(var_names)
    rows = _Rows()
    for name in names:
        if name not in reference.marginals:
            raise ValueError(f"var_names: the reference has no variable {name!r}")
        marginal: Marginal = reference.marginals[name]
        values = variable_draws(dataset, name, marginal.dims, marginal.shape)
        summary = _Summary(values, quantiles)
        labels = element_labels(name, marginal.dims, marginal.shape, reference.coords)
        gates = summary.passes(rhat_max, ess_min)
        exact = {
            "mean": np.ravel(marginal.mean),
            "sd": np.ravel(marginal.sd),
        }
        estimates = {
            "mean": (summary.mean, summary.mcse_mean),
            "sd": (summary.sd, summary.mcse_sd),
        }
        for q in quantiles:
            if marginal.ppf is not None:
                exact[f"q{q:g}"] = np.ravel(marginal.ppf(q))
                estimates[f"q{q:g}"] = (summary.quantiles[q], summary.mcse_quantiles[q])
        for statistic, reference_value in exact.items():
            estimate, mcse = estimates[statistic]
            defined = np.isfinite(reference_value)
            z, p = _z_row(estimate, reference_value, mcse)
            rows.add(
                name,
                labels,
                statistic,
                reference_value,
                0.0,
                estimate,
                mcse,
                z,
                p,
                summary,
                gates,
                defined,
            )
        if ks and marginal.cdf is not None and not marginal.discrete:
            thinned = summary.thinned()
            pit = np.asarray(marginal.cdf(thinned.reshape(-1, *marginal.shape)))
            pit = pit.reshape(thinned.shape)
            statistic_values = np.empty(pit.shape[1])
            p = np.empty(pit.shape[1])
            for e in range(pit.shape[1]):
                result = stats.kstest(pit[:, e], "uniform")
                statistic_values[e], p[e] = result.statistic, result.pvalue
            nan = np.full(pit.shape[1], np.nan)
            rows.add(
                name,
                labels,
                "ks",
                nan,
                0.0,
                statistic_values,
                nan,
                nan,
                p,
                summary,
                gates,
                np.ones(pit.shape[1], dtype=bool),
            )
    return rows.result(alpha, kind="exact", note=getattr(reference, "note", ""))


def compare(
    draws_a,
    draws_b,
    *,
    var_names=None,
    alpha: float = 0.01,
    quantiles=DEFAULT_QUANTILES,
    rhat_max: float = 1.01,
    ess_min: float = 400,
    ks: bool = True,
    group: str = "posterior",
) -> AgreementResult:
    """Test whether two sets of MCMC draws come from the same posterior.

    The two-sample form of :func:`agreement`: for every common scalar quantity,
    ``z = (estimate_a - estimate_b) / sqrt(mcse_a^2 + mcse_b^2)`` for the mean, the sd
    and tail quantiles, and a two-sample Kolmogorov-Smirnov test on thinned draws; Holm
    over all tests at ``alpha``. In the table, ``estimate`` and ``mcse`` are draws_a's,
    ``reference`` and ``reference_mcse`` draws_b's.

    Parameters are those of :func:`agreement`; ``var_names`` defaults to every variable
    the two have in common.
    """
    _check_settings(alpha, quantiles, rhat_max, ess_min)
    first = posterior_dataset(draws_a, group=group)
    second = posterior_dataset(draws_b, group=group)
    if var_names is None:
        names = [n for n in first.data_vars if n in second.data_vars]
        if not names:
            raise ValueError("draws_a, draws_b: no variable in common")
    else:
        names = list(var_names)
    rows = _Rows()
    for name in names:
        array = first[name] if name in first.data_vars else None
        if array is None:
            raise ValueError(f"draws_a: no variable {name!r}")
        dims = tuple(d for d in array.dims if d not in ("chain", "draw"))
        shape = tuple(array.sizes[d] for d in dims)
        values_a = variable_draws(first, name, dims, shape)
        values_b = variable_draws(second, name, dims, shape)
        a, b = _Summary(values_a, quantiles), _Summary(values_b, quantiles)
        coords = {d: first[d].values for d in dims if d in first.coords}
        labels = element_labels(name, dims, shape, coords)
        gates = a.passes(rhat_max, ess_min) & b.passes(rhat_max, ess_min)
        pairs = {
            "mean": (a.mean, a.mcse_mean, b.mean, b.mcse_mean),
            "sd": (a.sd, a.mcse_sd, b.sd, b.mcse_sd),
        }
        for q in quantiles:
            pairs[f"q{q:g}"] = (
                a.quantiles[q],
                a.mcse_quantiles[q],
                b.quantiles[q],
                b.mcse_quantiles[q],
            )
        for statistic, (est_a, mcse_a, est_b, mcse_b) in pairs.items():
            combined = np.sqrt(mcse_a**2 + mcse_b**2)
            z, p = _z_row(est_a, est_b, combined)
            rows.add(
                name,
                labels,
                statistic,
                est_b,
                mcse_b,
                est_a,
                mcse_a,
                z,
                p,
                a,
                gates,
                np.ones_like(gates),
                other=b,
            )
        if ks:
            thin_a, thin_b = a.thinned(), b.thinned()
            statistic_values = np.empty(thin_a.shape[1])
            p = np.empty(thin_a.shape[1])
            for e in range(thin_a.shape[1]):
                result = stats.ks_2samp(thin_a[:, e], thin_b[:, e])
                statistic_values[e], p[e] = result.statistic, result.pvalue
            nan = np.full(thin_a.shape[1], np.nan)
            rows.add(
                name,
                labels,
                "ks",
                nan,
                nan,
                statistic_values,
                nan,
                nan,
                p,
                a,
                gates,
                np.ones_like(gates),
                other=b,
            )
    return rows.result(alpha, kind="two-sample", note="")


class _Rows:
    """Accumulates test rows and turns them into the result table."""

    def __init__(self):
        self.columns: dict[str, list] = {
            key: []
            for key in (
                "variable",
                "element",
                "statistic",
                "reference",
                "reference_mcse",
                "estimate",
                "mcse",
                "z",
                "p",
                "rhat",
                "ess_bulk",
                "ess_tail",
                "gates",
            )
        }

    def add(
        self,
        name,
        labels,
        statistic,
        reference,
        reference_mcse,
        estimate,
        mcse,
        z,
        p,
        summary,
        gates,
        defined,
        other=None,
    ):
        rhat, ess_bulk, ess_tail = summary.rhat, summary.ess_bulk, summary.ess_tail
        if other is not None:
            rhat = np.fmax(rhat, other.rhat)
            ess_bulk = np.fmin(ess_bulk, other.ess_bulk)
            ess_tail = np.fmin(ess_tail, other.ess_tail)
        n = len(labels)
        columns = {
            "reference": np.broadcast_to(reference, n),
            "reference_mcse": np.broadcast_to(reference_mcse, n),
            "estimate": np.broadcast_to(estimate, n),
            "mcse": np.broadcast_to(mcse, n),
            "z": np.broadcast_to(z, n),
            "p": np.broadcast_to(p, n),
            "rhat": rhat,
            "ess_bulk": ess_bulk,
            "ess_tail": ess_tail,
            "gates": gates,
        }
        for e in range(n):
            if not defined[e]:
                continue
            self.columns["variable"].append(name)
            self.columns["element"].append(labels[e])
            self.columns["statistic"].append(statistic)
            for key, values in columns.items():
                self.columns[key].append(values[e])

    def result(self, alpha, *, kind, note) -> AgreementResult:
        c = {key: np.asarray(values) for key, values in self.columns.items()}
        n = len(c["variable"])
        gates = c["gates"].astype(bool) if n else np.zeros(0, dtype=bool)
        p = c["p"].astype(float) if n else np.zeros(0)
        adjusted = np.full(n, np.nan)
        adjusted[gates] = holm(p[gates])
        verdict = np.where(
            ~gates, "inconclusive", np.where(adjusted <= alpha, "disagree", "agree")
        )
        table = xr.Dataset(
            {
                key: ("check", c[key].astype(float) if n else np.zeros(0))
                for key in (
                    "reference",
                    "reference_mcse",
                    "estimate",
                    "mcse",
                    "z",
                    "p",
                    "rhat",
                    "ess_bulk",
                    "ess_tail",
                )
            },
            coords={
                "variable": ("check", c["variable"].astype(str)),
                "element": ("check", c["element"].astype(str)),
                "statistic": ("check", c["statistic"].astype(str)),
            },
        )
        table["p_adjusted"] = ("check", adjusted)
        table["verdict"] = ("check", verdict.astype(str))
        table["gates_passed"] = ("check", gates)
        if n == 0:
            overall = "inconclusive"
        elif (verdict == "disagree").any():
            overall = "disagree"
        elif (verdict == "inconclusive").any():
            overall = "inconclusive"
        else:
            overall = "agree"
        table.attrs.update(
            verdict=overall,
            alpha=alpha,
            correction="holm",
            kind=kind,
            tests=int(gates.sum()),
            note=note,
        )
        return AgreementResult(table)

"""Agreement of MCMC draws with an exact reference, or of two sets of draws.

The protocol (``docs/design.md``, "Diagnostics"), per scalar quantity (every element of every
variable):

1. Gates: rank-normalised split R-hat <= 1.01 and bulk and tail ESS >= 400 (Vehtari,
   Gelman, Simpson, Carpenter & Bürkner, Bayesian Analysis 16, 2021), an R-hat above
   1.01 counting only when it is beyond its own noise at the quantity's ESS
   (:mod:`zoo.diagnostics.gates`). A quantity that fails a gate is *inconclusive*: its
   Monte Carlo standard errors cannot be trusted, so it is neither passed nor failed,
   and its tests leave the family.
   The quantities share one chain: a slow mode that gates one out can bias another
   whose own autocorrelation is too weak to show it (a metastable LDA chain at
   pseudo-counts of 1e-3: coassignments at bulk ESS 13 beside doc-word pairs at 1000,
   whose mean was off by |z| 5.7 with the exact answer). So when the smallest bulk ESS
   of the posterior is below ``ess_min``, every test is judged as if its quantity had
   that ESS (z and MCSE rescaled by ``sqrt(slowest / own)``, p-values from the
   rescaled z): a difference that survives is a wrong sampler whatever the slow mode
   does; one that does not is left inconclusive by the gated quantities. Multivariate
   ESS is likewise governed by the slowest direction of the chain (Vats, Flegal & Jones,
   Biometrika 106, 2019). A threshold of a quarter of ``ess_min`` was tried and left
   2 of those 20 seeds failing, with the slowest quantity at bulk ESS 100 to 400: a
   chain still drifting in one direction carries every quantity with it.
2. Tests, on all draws, in score form (null variances): z-scores of the mean and the sd
   with ArviZ's MCSEs rescaled to the exact sd (and, where the reference knows the
   kurtosis, the sd's MCSE from it and ArviZ's ESS of the squared deviations; sd
   p-values from a Satterthwaite scaled chi-square); tail tests at the exact 5% and 95%
   quantiles ``q``: the fraction of draws below ``q`` against its exact value, with a
   binomial p-value at ArviZ's ESS of the indicator; and a Kolmogorov-Smirnov test of
   the PIT values against the exact CDF, on draws thinned to near independence (lag
   ``2 n / ESS``, the smallest ESS of the posterior), because KS assumes independence.
3. One family-wise error rate over all tests of all quantities (Holm 1979), default 1%:
   with a correct sampler, the probability that *any* row is flagged is at most
   ``alpha`` (up to the normal approximation of the z-scores).

Why tail *probabilities* and not tail quantiles: the z-score of an estimated quantile
divides by an MCSE that needs the density at the quantile, which ArviZ estimates from
the spacing of the draws there. That estimate is noisy, so the z-score has heavy
tails: with about 370 tests per model and Holm at 1%, each test is judged at
``|z| > 4.2``, where that noise mattered: 5 false alarms in 100 correct runs on the rat
data (bench/false_alarm.py). The fraction of draws below the exact quantile is a mean
of a bounded indicator; its MCSE needs no density, and its p-value is taken from a
binomial at the indicator's effective sample size, which keeps the skewness of a tail
count that a normal approximation would miss. Measured rates: bench/README.md.

The two-sample version (:func:`compare`) replaces the exact value by the other sampler's
estimate and the MCSE by the root sum of squares of both; tails are compared at the
quantiles of the pooled draws, and KS takes its two-sample form.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special, stats

from zoo.core.arguments import as_positive_scalar, as_probability
from zoo.core.defaults import ALPHA
from zoo.core.reference import Marginal
from zoo.diagnostics.agreement_table import (
    GATE_COLUMNS,
    AgreementRows,
    StatisticTest,
    agreement_result,
)
from zoo.diagnostics.draws import element_labels, posterior_dataset, variable_draws
from zoo.diagnostics.gates import (
    ESS_MIN,
    RHAT_MAX,
    passes,
    rhat_gate_level,
    within_chain_ess,
)
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
    as_probability("alpha", alpha)
    for q in quantiles:
        as_probability("quantiles", q)
    # R-hat is >= 1 by construction: a threshold below 1 would gate every quantity out.
    if isinstance(rhat_max, bool) or not isinstance(rhat_max, int | float) or not rhat_max >= 1:
        raise ValueError(f"rhat_max: must be a number >= 1, got {rhat_max!r}")
    as_positive_scalar("ess_min", ess_min)


class _Summary:
    """Gates, estimates and MCSEs of one variable's draws, element by element.

    Gates (R-hat, bulk and tail ESS) and the moment and tail tests use all draws, with
    ArviZ's MCSEs floored at their value for independent draws (ArviZ's ESS can exceed
    the number of draws: antithetic chains, or noise in the estimated autocorrelations).
    The tests are score tests (null variances, see :func:`agreement`); with them, AR(1)
    chains at rho = 0.7 and 0.95 give p < 0.002 and p < 0.0005 at their nominal rates.

    Only KS thins, to lag ``2 n / ESS`` with ESS the smallest over every quantity under
    test in the whole posterior (:meth:`thinned`): KS assumes independent draws, and a
    quantity can inherit a slow mode from another (theta_j from the concentration in a
    hierarchical model) with too little variance for its own autocorrelation estimate to
    see; with NUTS on the rat data that gave KS false alarms. An earlier version also
    thinned the moment and tail tests; on a Naive Bayes chain whose labels flip back and
    forth, keeping every second draw discarded the antithetic half and produced false
    alarms, so they no longer thin.
    """

    def __init__(self, values: np.ndarray):
        # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
        import arviz_stats as azs

        chains, draws = values.shape[:2]
        full = values.reshape(chains, draws, -1)
        self.rhat = np.atleast_1d(azs.rhat(full)) if chains > 1 else np.full(full.shape[2], np.nan)
        self.ess_bulk = np.atleast_1d(azs.ess(full, method="bulk"))
        self.ess_within = within_chain_ess(full) if chains > 1 else np.full(full.shape[2], np.nan)
        self.ess_tail = np.atleast_1d(azs.ess(full, method="tail", prob=DEFAULT_QUANTILES))
        self.full = full

    def smallest_ess(self, rhat_max, ess_min, level) -> float:
        """Smallest bulk or tail ESS among the elements that pass the gates (inf if none)."""
        ess = np.minimum(self.ess_bulk, self.ess_tail)[self.passes(rhat_max, ess_min, level)]
        return float(ess.min()) if ess.size else np.inf

    def prepare(self, smallest_ess: float) -> None:
        """Compute the estimates and MCSEs; remember the smallest ESS for KS thinning."""
        # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
        import arviz_stats as azs

        self.smallest = smallest_ess
        flat = self.full
        pooled = flat.reshape(-1, flat.shape[2])
        n = pooled.shape[0]
        self.flat, self.pooled, self.n = flat, pooled, n
        self.mean = pooled.mean(axis=0)
        self.sd = pooled.std(axis=0, ddof=1)
        centred = pooled - self.mean
        kurtosis = (
            np.mean(centred**4, axis=0) / np.maximum(np.mean(centred**2, axis=0), 1e-300) ** 2
        )
        self.mcse_mean = np.fmax(
            np.atleast_1d(azs.mcse(flat, method="mean")), self.sd / np.sqrt(n)
        )
        # Independent draws: var(s) ≈ sigma^2 (kurtosis - 1) / (4 n) (delta method).
        self.mcse_sd = np.fmax(
            np.atleast_1d(azs.mcse(flat, method="sd")),
            self.sd * np.sqrt(np.maximum(kurtosis - 1.0, 0.0) / (4 * n)),
        )
        # Elements whose draws take two values at most (a label, a co-assignment
        # indicator): their sd is a function of their mean, sqrt(m (1 - m)) times the
        # gap, so the sd test says nothing the mean's does not, and near m = 1/2 its
        # delta-method MCSE vanishes (the sd's derivative in m is 0 there) while the
        # estimate's error is of second order: a correct sampler failed at z = 10.
        self.two_valued = np.all(
            (pooled == pooled.min(axis=0)) | (pooled == pooled.max(axis=0)), axis=0
        )
        # ESS of the squared deviations (what the sd's MCSE rests on), at most n.
        self.ess_squares = np.minimum(
            np.atleast_1d(azs.ess(centred.reshape(flat.shape) ** 2, method="mean")), n
        )

    def mcse_sd_under(self, sd: np.ndarray, kurtosis: np.ndarray) -> np.ndarray:
        """MCSE of the sd if the exact sd and kurtosis held (delta method)."""
        return sd * np.sqrt(np.maximum(kurtosis - 1.0, 0.0) / (4.0 * self.ess_squares))

    def below(self, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Fraction of draws at or below each threshold, and its ESS.

        The ESS is ArviZ's for the indicator's mean, at most the number of draws (and the
        number of draws when the indicator is constant).
        """
        # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
        import arviz_stats as azs

        indicator = (self.flat <= thresholds).astype(float)
        fraction = indicator.mean(axis=(0, 1))
        mcse = np.atleast_1d(azs.mcse(indicator, method="mean"))
        with np.errstate(divide="ignore", invalid="ignore"):
            ess = fraction * (1.0 - fraction) / mcse**2
        ess = np.where(np.isfinite(ess) & (ess > 0), np.minimum(ess, self.n), self.n)
        return fraction, ess

    def passes(self, rhat_max, ess_min, level) -> np.ndarray:
        # NaN (constant draws, a single chain) fails every comparison, hence every gate.
        chains, draws = self.full.shape[:2]
        return passes(
            self.rhat,
            self.ess_bulk,
            self.ess_tail,
            chains=chains,
            draws=draws,
            rhat_max=rhat_max,
            ess_min=ess_min,
            level=level,
            ess_within=self.ess_within,
        )

    def thinned(self) -> np.ndarray:
        """Draws thinned to near independence for uniformity tests, shape (n, elements).

        Twice the ``n / ESS`` lag: KS assumes independent draws outright.
        """
        factor = _factor(self.full.shape[0] * self.full.shape[1], self.smallest, 2.0)
        return self.full[:, ::factor].reshape(-1, self.full.shape[2])


def _slowest_bulk_ess(summaries) -> float:
    """Smallest bulk ESS over every quantity, gated or not (inf if none is defined).

    Constant draws have no ESS (NaN): a constant quantity has no slow mode to show.
    """
    values = [s.ess_bulk[np.isfinite(s.ess_bulk)] for s in summaries]
    values = [v.min() for v in values if v.size]
    return float(min(values)) if values else np.inf


def _factor(total: int, ess: float, multiple: float) -> int:
    if not np.isfinite(ess) or ess <= 0:
        return 1
    return max(1, math.ceil(multiple * total / ess))


def _z_row(estimate, reference, mcse):
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - reference) / mcse
    z = np.where(mcse > 0, z, np.where(estimate == reference, 0.0, np.inf))
    return z, 2.0 * stats.norm.sf(np.abs(z))


def _tail_row(fraction, prob, ess):
    """Return MCSE, z and p for an observed tail fraction against its exact value.

    A score test: the MCSE is the one the fraction would have if the exact ``prob`` held,
    ``sqrt(prob (1 - prob) / ESS)``. (The Wald form, with the observed fraction in the
    variance, is anti-conservative exactly where a tail count is short.) The p-value
    treats ``fraction * ESS`` as a binomial count out of ``ESS`` trials, continuously
    interpolated through the regularised incomplete beta function, which keeps the
    skewness of a small tail count that a normal approximation would miss.
    """
    mcse = np.sqrt(prob * (1.0 - prob) / ess)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (fraction - prob) / mcse
    count = fraction * ess
    lower = special.betainc(np.maximum(ess - count, 1e-12), count + 1.0, 1.0 - prob)
    upper = special.betainc(np.maximum(count, 1e-12), ess - count + 1.0, prob)
    p = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    # A discrete marginal can put all its mass on one side of a quantile (prob 0 or 1):
    # every draw must then fall there, and one that does not is impossible.
    certain = (prob <= 0.0) | (prob >= 1.0)
    matches = fraction == prob
    z = np.where(certain, np.where(matches, 0.0, np.inf), z)
    p = np.where(certain, np.where(matches, 1.0, 0.0), p)
    return mcse, z, p


def _variance_p(sd, exact_sd, mcse):
    """Two-sided p-value of an estimated sd by a scaled chi-square (Satterthwaite).

    ``s^2`` is treated as ``sigma^2 chi2_df / df`` with ``df = 2 (sigma / (2 mcse))^2``,
    the degrees of freedom that give it the variance implied by the MCSE of the sd. It
    keeps the right skew of a variance estimate, which a normal z misses at the
    ``|z| > 4`` where Holm judges hundreds of tests.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        df = 2.0 * (exact_sd / (2.0 * mcse)) ** 2
        statistic = df * (sd / exact_sd) ** 2
        lower = stats.chi2.cdf(statistic, df)
        upper = stats.chi2.sf(statistic, df)
    p = np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    return np.where(np.isfinite(p), p, 2.0 * stats.norm.sf(np.abs((sd - exact_sd) / mcse)))


def _two_sample_tail_row(fraction_a, ess_a, fraction_b, ess_b):
    """MCSE of the difference, z and p for two tail fractions, pooled under the null."""
    pooled = (fraction_a * ess_a + fraction_b * ess_b) / (ess_a + ess_b)
    spread = np.sqrt(pooled * (1.0 - pooled) * (1.0 / ess_a + 1.0 / ess_b))
    z, p = _z_row(fraction_a - fraction_b, 0.0, spread)
    return spread, z, p


def _spread_unresolved(pit: np.ndarray, draws: np.ndarray, marginal: Marginal) -> np.ndarray:
    """PIT values of draws beyond double precision, spread evenly over the mass there.

    A Beta with a pseudo-count of 1e-3 puts about half its mass below the smallest
    normal double; those draws are stored as 0 (or a subnormal) by any sampler, correct
    or not, and their PIT, the CDF there, is 0 instead of uniform on ``[0, F(tiny)]``:
    KS would reject every correct sampler. Such draws (at most ``tiny`` where the
    support starts at 0, at least ``1 - epsneg`` where it ends at 1) get PIT values
    spread evenly over ``[0, F(tiny)]`` (or ``[F(1 - epsneg), 1]``), ranked as they
    came. KS then still sees whether their *share* is right (the ECDF at ``F(tiny)``),
    not how they are spread inside a region double precision cannot resolve, which
    makes the test slightly conservative there.
    """
    tiny, top = np.finfo(float).tiny, 1.0 - np.finfo(float).epsneg
    shape = marginal.shape
    # At the smallest double a scale-family CDF divides by it (scipy's inverse gamma
    # overflows to a correct 0 with a warning the user would see).
    with np.errstate(over="ignore", divide="ignore", under="ignore"):
        ends = np.asarray(
            marginal.cdf(np.stack([np.full(shape, x) for x in (0.0, tiny, top, 1.0)])),
            dtype=float,
        ).reshape(4, -1)
    pit = pit.copy()
    for e in range(pit.shape[1]):
        at_zero, at_tiny, at_top, at_one = ends[:, e]
        regions = []
        if at_zero == 0.0 and at_tiny > 0.0:
            regions.append((draws[:, e] <= tiny, 0.0, at_tiny))
        if at_one == 1.0 and at_top < 1.0:
            regions.append((draws[:, e] >= top, at_top, 1.0))
        for inside, start, stop in regions:
            count = int(inside.sum())
            if count:
                spread = start + (stop - start) * (np.arange(count) + 0.5) / count
                pit[np.flatnonzero(inside), e] = spread
    return pit


class _AgainstReference:
    """The tests of one variable's draws against its exact marginal (:func:`agreement`).

    Score form: both MCSEs are proportional to the posterior sd, so the exact sd
    replaces the sample's. (With the sample's, a run that happens to miss the tails gets
    a smaller sd *and* a smaller MCSE, and an inflated |z|: this gave 2 false alarms in
    40 correct PyMC runs on the rat data.)
    """

    def __init__(self, summary: _Summary, marginal: Marginal):
        self.summary, self.marginal = summary, marginal
        self.exact = {"mean": np.ravel(marginal.mean), "sd": np.ravel(marginal.sd)}
        exact_sd = self.exact["sd"]
        with np.errstate(divide="ignore", invalid="ignore"):
            rescale = np.where(
                np.isfinite(exact_sd) & (summary.sd > 0), exact_sd / summary.sd, 1.0
            )
        mcse_sd = summary.mcse_sd * rescale
        if marginal.kurtosis is not None:
            # Fully in score form: only the ESS comes from the draws, not the fourth
            # moment, whose estimate is noisy for skewed posteriors.
            exact_kurtosis = np.ravel(marginal.kurtosis)
            known = np.isfinite(exact_kurtosis) & np.isfinite(exact_sd)
            mcse_sd = np.where(known, summary.mcse_sd_under(exact_sd, exact_kurtosis), mcse_sd)
        self.estimates = {
            "mean": (summary.mean, summary.mcse_mean * rescale),
            "sd": (summary.sd, mcse_sd),
        }

    def gate_columns(self) -> dict[str, np.ndarray]:
        return {key: getattr(self.summary, key) for key in GATE_COLUMNS}

    def moment(self, statistic: str) -> StatisticTest:
        """The mean's z-score, or the sd's with a scaled chi-square p-value."""
        reference_value = self.exact[statistic]
        estimate, mcse = self.estimates[statistic]
        defined = np.isfinite(reference_value)
        z, p = _z_row(estimate, reference_value, mcse)
        if statistic == "sd":
            p = np.where(defined, _variance_p(estimate, reference_value, mcse), p)
            defined = defined & ~self.summary.two_valued  # the mean's test covers it
        return StatisticTest(statistic, reference_value, 0.0, estimate, mcse, z, p, defined)

    def tail(self, q: float) -> StatisticTest | None:
        """The fraction of draws at or below the exact ``q`` quantile, against ``q``."""
        marginal = self.marginal
        if marginal.ppf is None:
            return None
        threshold = np.ravel(marginal.ppf(q))
        fraction, ess = self.summary.below(threshold)
        # For a discrete marginal P(x <= q) can exceed q: use the exact CDF there.
        prob = np.ravel(marginal.cdf(threshold[None])[0]) if marginal.discrete else q
        mcse, z, p = _tail_row(fraction, prob, ess)
        # NaN marks an element whose quantile the reference does not know.
        return StatisticTest(
            f"P(x<=q{q:g})", prob, 0.0, fraction, mcse, z, p, np.isfinite(threshold)
        )

    def ks(self) -> StatisticTest | None:
        """Kolmogorov-Smirnov of the thinned draws' PIT against the uniform."""
        marginal = self.marginal
        if marginal.cdf is None or marginal.discrete:
            return None
        thinned = self.summary.thinned()
        pit = np.asarray(marginal.cdf(thinned.reshape(-1, *marginal.shape)))
        pit = _spread_unresolved(pit.reshape(thinned.shape), thinned, marginal)
        statistic_values = np.empty(pit.shape[1])
        p = np.empty(pit.shape[1])
        for e in range(pit.shape[1]):
            result = stats.kstest(pit[:, e], "uniform")
            statistic_values[e], p[e] = result.statistic, result.pvalue
        nan = np.full(pit.shape[1], np.nan)
        # NaN marks an element whose CDF the reference does not know.
        defined = np.isfinite(pit).all(axis=0)
        return StatisticTest("ks", nan, 0.0, statistic_values, nan, nan, p, defined)


class _BetweenSamples:
    """The tests of one variable's draws against another sampler's (:func:`compare`).

    The exact value is replaced by the other sample's estimate and the MCSE by the root
    sum of squares of both; tails are compared at the quantiles of the pooled draws;
    KS takes its two-sample form. Every element is defined.
    """

    def __init__(self, a: _Summary, b: _Summary, gates: np.ndarray):
        self.a, self.b = a, b
        self.defined = np.ones_like(gates)

    def gate_columns(self) -> dict[str, np.ndarray]:
        a, b = self.a, self.b
        return {
            "rhat": np.fmax(a.rhat, b.rhat),
            "ess_bulk": np.fmin(a.ess_bulk, b.ess_bulk),
            "ess_tail": np.fmin(a.ess_tail, b.ess_tail),
            "ess_within": np.fmin(a.ess_within, b.ess_within),
        }

    def moment(self, statistic: str) -> StatisticTest:
        a, b = self.a, self.b
        mcse = "mcse_mean" if statistic == "mean" else "mcse_sd"
        est_a, mcse_a = getattr(a, statistic), getattr(a, mcse)
        est_b, mcse_b = getattr(b, statistic), getattr(b, mcse)
        combined = np.sqrt(mcse_a**2 + mcse_b**2)
        z, p = _z_row(est_a, est_b, combined)
        defined = self.defined
        if statistic == "sd":  # two-valued in both: the mean's test covers it
            defined = defined & ~(a.two_valued & b.two_valued)
        return StatisticTest(statistic, est_b, mcse_b, est_a, mcse_a, z, p, defined)

    def tail(self, q: float) -> StatisticTest:
        a, b = self.a, self.b
        # Tails of the pooled draws, where the two fractions should coincide.
        threshold = np.quantile(np.concatenate([a.pooled, b.pooled]), q, axis=0)
        fraction_a, ess_a = a.below(threshold)
        fraction_b, ess_b = b.below(threshold)
        _, z, p = _two_sample_tail_row(fraction_a, ess_a, fraction_b, ess_b)
        return StatisticTest(
            f"P(x<=q{q:g})",
            fraction_b,
            np.sqrt(fraction_b * (1 - fraction_b) / ess_b),
            fraction_a,
            np.sqrt(fraction_a * (1 - fraction_a) / ess_a),
            z,
            p,
            self.defined,
        )

    def ks(self) -> StatisticTest:
        thin_a, thin_b = self.a.thinned(), self.b.thinned()
        statistic_values = np.empty(thin_a.shape[1])
        p = np.empty(thin_a.shape[1])
        for e in range(thin_a.shape[1]):
            result = stats.ks_2samp(thin_a[:, e], thin_b[:, e])
            statistic_values[e], p[e] = result.statistic, result.pvalue
        nan = np.full(thin_a.shape[1], np.nan)
        return StatisticTest("ks", nan, nan, statistic_values, nan, nan, p, self.defined)


def _tests(tests, quantiles, ks: bool):
    """The four tests of one variable, in the table's order: mean, sd, tails, KS."""
    for statistic in ("mean", "sd"):
        yield tests.moment(statistic)
    for q in quantiles:
        yield tests.tail(q)
    if ks:
        yield tests.ks()


def _rows(variables, quantiles, ks: bool) -> AgreementRows:
    """Every test of every variable: ``variables`` yields ``(name, labels, gates, tests)``."""
    rows = AgreementRows()
    for name, labels, gates, tests in variables:
        columns = tests.gate_columns()
        for block in _tests(tests, quantiles, ks):
            if block is not None:
                rows.add(name, labels, block, gates, columns)
    return rows


def _judged(rows: AgreementRows, alpha, *, slowest, **attrs) -> AgreementResult:
    """Holm over the gated tests at ``alpha``, each at the slowest quantity's ESS.

    When the smallest bulk ESS of the posterior is below ``ess_min``, every test is
    judged as if its quantity had that ESS (module docstring, step 1).
    """
    c = rows.arrays()
    n = len(c["variable"])
    gates, p = c["gates"], c["p"]
    if n and slowest < attrs["ess_min"]:
        # A slow mode somewhere: every test at the slowest quantity's ESS (module doc).
        scale = np.sqrt(np.minimum(1.0, slowest / c["ess_bulk"].astype(float)))
        scale = np.where(np.isfinite(scale), scale, 1.0)
        with np.errstate(invalid="ignore"):
            c["z"] = c["z"].astype(float) * scale
            c["mcse"] = c["mcse"].astype(float) / scale
        p = np.where(scale < 1.0, 2.0 * stats.norm.sf(stats.norm.isf(p / 2.0) * scale), p)
        c["p"] = p
    adjusted = np.full(n, np.nan)
    adjusted[gates] = holm(p[gates])
    verdict = np.where(~gates, "inconclusive", np.where(adjusted <= alpha, "disagree", "agree"))
    return agreement_result(c, adjusted, verdict, alpha=alpha, slowest_ess=slowest, **attrs)


def agreement(
    draws,
    reference,
    *,
    var_names=None,
    alpha: float = ALPHA,
    quantiles=DEFAULT_QUANTILES,
    rhat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
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
        Tail probabilities: at each exact quantile ``q``, the fraction of draws at or
        below it is tested against ``q``.
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
    summaries = {}
    for name in names:
        if name not in reference.marginals:
            raise ValueError(f"var_names: the reference has no variable {name!r}")
        marginal = reference.marginals[name]
        values = variable_draws(dataset, name, marginal.dims, marginal.shape)
        if values[0, 0].size == 0:
            continue  # a zero-length variable (no unlabelled points, say): nothing to test
        summaries[name] = _Summary(values)
    level = rhat_gate_level(alpha, sum(s.full.shape[2] for s in summaries.values()))
    smallest = min(
        (summary.smallest_ess(rhat_max, ess_min, level) for summary in summaries.values()),
        default=np.inf,
    )

    def variables():
        for name, summary in summaries.items():
            marginal: Marginal = reference.marginals[name]
            summary.prepare(smallest)
            labels = element_labels(name, marginal.dims, marginal.shape, reference.coords)
            gates = summary.passes(rhat_max, ess_min, level)
            yield name, labels, gates, _AgainstReference(summary, marginal)

    rows = _rows(variables(), quantiles, ks)
    return _judged(
        rows,
        alpha,
        slowest=_slowest_bulk_ess(summaries.values()),
        kind="exact",
        note=getattr(reference, "note", ""),
        chains=dataset.sizes["chain"],
        draws=dataset.sizes["draw"],
        rhat_max=rhat_max,
        ess_min=ess_min,
        rhat_level=level,
    )


def compare(
    draws_a,
    draws_b,
    *,
    var_names=None,
    alpha: float = ALPHA,
    quantiles=DEFAULT_QUANTILES,
    rhat_max: float = RHAT_MAX,
    ess_min: float = ESS_MIN,
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
    summaries = {}
    for name in names:
        if name not in first.data_vars:
            raise ValueError(f"draws_a: no variable {name!r}")
        dims = tuple(d for d in first[name].dims if d not in ("chain", "draw"))
        shape = tuple(first[name].sizes[d] for d in dims)
        values_a = variable_draws(first, name, dims, shape)
        values_b = variable_draws(second, name, dims, shape)
        if values_a[0, 0].size == 0:
            continue  # a zero-length variable: nothing to compare
        summaries[name] = (dims, shape, _Summary(values_a), _Summary(values_b))
    # Both samples are gated: twice the quantities share the gates' rate.
    level = rhat_gate_level(alpha, 2 * sum(s[2].full.shape[2] for s in summaries.values()))
    smallest_a = min(
        (s[2].smallest_ess(rhat_max, ess_min, level) for s in summaries.values()),
        default=np.inf,
    )
    smallest_b = min(
        (s[3].smallest_ess(rhat_max, ess_min, level) for s in summaries.values()),
        default=np.inf,
    )

    def variables():
        for name, (dims, shape, a, b) in summaries.items():
            a.prepare(smallest_a)
            b.prepare(smallest_b)
            coords = {d: first[d].values for d in dims if d in first.coords}
            labels = element_labels(name, dims, shape, coords)
            gates = a.passes(rhat_max, ess_min, level) & b.passes(rhat_max, ess_min, level)
            yield name, labels, gates, _BetweenSamples(a, b, gates)

    rows = _rows(variables(), quantiles, ks)
    # The gates' sizes are draws_a's: in a validation, the sampler under test.
    slowest = min(
        _slowest_bulk_ess(s[2] for s in summaries.values()),
        _slowest_bulk_ess(s[3] for s in summaries.values()),
    )
    return _judged(
        rows,
        alpha,
        slowest=slowest,
        kind="two-sample",
        note="",
        chains=first.sizes["chain"],
        draws=first.sizes["draw"],
        rhat_max=rhat_max,
        ess_min=ess_min,
        rhat_level=level,
    )

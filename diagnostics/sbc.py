"""Simulation-based calibration (Talts et al. 2018; Modrák et al. 2023).

One simulation: draw parameters and data from the prior predictive
(``model.simulate``), fit the data with the sampler under test, thin the posterior
draws to near independence, and record, for every test quantity, where the truth falls
among the draws. If the sampler draws from the exact posterior, each such normalised
rank is uniform on (0, 1) across simulations (Talts et al., "Validating Bayesian
inference algorithms with simulation-based calibration", arXiv:1804.06788, thm. 1).

Choices, and why:

- Test quantities: every scalar element of every variable (label-invariant ones only
  where the model declares its labels unidentified), plus the log-likelihood of the
  simulated data, ``log p(y_sim | draw)`` against ``log p(y_sim | truth)``: a
  data-dependent quantity, which Modrák et al. ("Simulation-based calibration checking
  for Bayesian computation: the choice of test quantities shapes sensitivity", Bayesian
  Analysis 2023, sec. 3) show detects errors that no parameter's marginal sees.
- Thinning: to ``ceil(n / ESS)`` with ESS the smallest bulk or tail ESS (ArviZ) over all
  quantities, by ``arviz_stats.thin``: ranks among autocorrelated draws are not uniform.
- Ties (discrete quantities; a sampler that repeats a value): broken at random, then the
  rank ``r`` in ``0..L`` is spread uniformly over its cell, ``u = (r + U) / (L + 1)``, so
  that ``u`` is exactly uniform on (0, 1) for every ``L``; simulations may then thin by
  different factors and still be pooled.
- Uniformity: :mod:`zoo.diagnostics.uniformity` (simultaneous ECDF bands, Säilynoja,
  Bürkner & Vehtari 2022), one p-value per quantity, Holm over quantities.
- Data outside their support or type (a count that overflows int64; NaN): redrawn
  from the simulation's own generator and counted. The event depends on the data
  alone, and ``p(theta | y, y in A) = p(theta | y)`` for ``y`` in ``A``, so every data
  set kept has the posterior it would have had, and the ranks stay uniform
  (``docs/design.md``, "The verdict policy"). Beyond :data:`MAX_REDRAW_SHARE` of the
  draws, or when ``simulate`` raises anything else, the check could not judge: the
  model's simulation is at fault, not the sampler.
- Seeds: simulation ``i`` draws from item ``i`` of the ``sbc-simulations`` stream of
  :mod:`zoo.core.streams` (split three ways: simulation, fit, ties), so a result depends
  on ``(seed, i)`` only, not on which worker ran it or in which order.
- The fit: a plain callable that returns draws already checked against the model's
  variables (``zoo validate`` passes its sampler under test's ``fit``), so this module
  knows nothing of the sampler protocol's output forms.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from zoo.core import streams
from zoo.core.arguments import as_int, as_probability
from zoo.core.contract import OutsideSupport
from zoo.core.log_likelihood import log_likelihood_per_draw
from zoo.diagnostics.agreement import holm
from zoo.diagnostics.draws import design_coords, element_labels
from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding, finding_order, findings_html
from zoo.diagnostics.uniformity import EcdfBand, ecdf_band, uniformity_pvalue

__all__ = [
    "MAX_REDRAWS",
    "MAX_REDRAW_SHARE",
    "PURPOSE",
    "REDRAW_LEVEL",
    "SIMULATION_ERROR",
    "UNSIMULABLE",
    "SBCResult",
    "SimulationFailed",
    "drawn_inside",
    "quantity_labels",
    "redrawn",
    "sbc_result",
    "simulation_ranks",
    "tested_variables",
    "thinning_factor",
    "truth_ranks",
]

#: The stream of :mod:`zoo.core.streams` the simulations draw from: simulation ``i`` from
#: item ``i``.
PURPOSE = "sbc-simulations"

LOG_LIKELIHOOD = "log_likelihood"
# Fewer usable simulations than this and the ECDF test has almost no power: say so.
_MIN_SIMULATIONS = 20
#: The largest share of prior-predictive draws that may be redrawn (data outside their
#: support or type) before SBC says the prior is not simulable: beyond it the data sets
#: ranked stand for too little of the prior predictive to speak for it. Judged by a
#: one-sided test at :data:`REDRAW_LEVEL` (:attr:`SBCResult.prior_not_simulable`).
MAX_REDRAW_SHARE = 0.10
#: The level of that test: how often a prior exactly at the stated share is called not
#: simulable.
REDRAW_LEVEL = 0.01
#: Redraws in a row after which one simulation gives up (at a 10% share, a chance of
#: 1e-100).
MAX_REDRAWS = 99
#: Record statuses of a simulation whose data could not be drawn: the model's, never the
#: sampler's (the fit did not run).
UNSIMULABLE = "unsimulable"
SIMULATION_ERROR = "simulation-error"
#: The sd of a uniform variable on (0, 1): what the normalised ranks' sd should be.
_UNIFORM_SD = 1.0 / math.sqrt(12.0)


def tested_variables(model, prior) -> dict[str, tuple[str, ...]]:
    """Variables SBC ranks: all, or the model's label-invariant ones when it names them."""
    variables = dict(model.variables(prior))
    return {name: variables[name] for name in model.comparable_variables(prior)}


def quantity_labels(model, prior, data) -> list[str]:
    """Names of the test quantities for one simulated data set, in the order ranked.

    Elements are named by coordinate value where every simulated data set shares the
    coordinate (:func:`~zoo.diagnostics.draws.design_coords`: a PyMC model's coords,
    ``p[cat=d]`` as the exact and nuts checks name it), else by position
    (``class_probability[unlabelled=0,class=1]``): which items are unlabelled changes
    from one simulated data set to the next, and the i-th of them is as good a test
    quantity in every simulation.
    """
    labels = []
    coords = design_coords(data)
    for name, dims in tested_variables(model, prior).items():
        shape = tuple(len(data.coords[d]) for d in dims)
        labels.extend(element_labels(name, dims, shape, coords))
    if model.log_likelihood is not None:
        labels.append(LOG_LIKELIHOOD)
    return labels


def _seeds(seed: int, index: int) -> tuple[np.random.Generator, int, np.random.Generator]:
    simulate_seq, fit_seq, ties_seq = streams.item(seed, PURPOSE, index).spawn(3)
    return (
        np.random.default_rng(simulate_seq),
        streams.integer(fit_seq),
        np.random.default_rng(ties_seq),
    )


def simulation_ranks(
    model, fit, index: int, *, seed: int, prior, size: Mapping, draws: int, chains: int
) -> dict:
    """Run simulation ``index``: simulate, fit, thin, rank. Returns a JSON-ready record.

    Parameters
    ----------
    model : Model
    fit : callable
        ``fit(data, prior, *, draws, chains, seed) -> xarray.Dataset``: posterior draws
        of the model's variables with dims ``(chain, draw, *dims)``, ``chains`` by
        ``draws``, finite (``zoo.validation``'s sampler under test checks a sampler's
        output into this form).
    index : int
        The simulation; with ``seed`` it fixes the simulated data, the fit's seed and
        the tie-breaking.
    seed : int
    prior, size
        The proper prior and the keyword sizes for ``model.simulate``.
    draws, chains : int
        Per fit.

    A data set outside the data's support or type
    (:class:`zoo.core.contract.OutsideSupport`) is drawn again from the simulation's own
    generator, and counted in the record's ``redraws``; when the data cannot be drawn
    (``simulate`` raised anything else, or :data:`MAX_REDRAWS` redraws did not help)
    the record says so (status ``simulation-error`` or ``unsimulable``) and nothing is
    fitted: the model's failure, never the sampler's.

    Raises whatever ``fit`` raises; the caller records it as a failed fit.
    """
    index = as_int("index", index, minimum=0)
    draws = as_int("draws", draws, minimum=1)
    chains = as_int("chains", chains, minimum=1)
    started = time.perf_counter()
    simulate_rng, fit_seed, ties_rng = _seeds(seed, index)
    drawn = redrawn(lambda: model.simulate(prior, simulate_rng, **size))
    if drawn["status"] != "ok":
        return {"index": index, **drawn, "seconds": time.perf_counter() - started}
    truth, data = drawn.pop("draw")
    posterior = fit(data, prior, draws=draws, chains=chains, seed=fit_seed)
    ranked = truth_ranks(model, prior, data, truth, posterior, ties_rng)
    return {
        "index": index,
        "status": "ok",
        **ranked,
        "redraws": drawn["redraws"],
        **({"outside": drawn["outside"]} if drawn["outside"] else {}),
        "seconds": time.perf_counter() - started,
    }


def thinning_factor(values: np.ndarray) -> tuple[int, float]:
    """The thinning that leaves draws near independence, and the ESS it was read from.

    ``values`` has dims ``(chain, draw, quantity)``. The factor is ``ceil(n / ESS)``, ESS
    the smallest bulk or tail ESS (ArviZ) over the quantities, at most ``n``: ranks
    among autocorrelated draws are not uniform (Talts et al. 2018, sec. 4.1). A quantity
    constant over the draws has no ESS (NaN) and does not limit it.
    """
    # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
    import arviz_stats as azs

    stacked = xr.Dataset({"q": (("chain", "draw", "quantity"), values)})
    ess = np.concatenate(
        [np.asarray(azs.ess(stacked, method=m)["q"].values).ravel() for m in ("bulk", "tail")]
    )
    ess = ess[np.isfinite(ess)]
    total = values.shape[0] * values.shape[1]
    min_ess = float(min(ess.min(), total)) if ess.size else float(total)
    return max(1, math.ceil(total / max(min_ess, 1.0))), min_ess


def truth_ranks(model, prior, data, truth, posterior, ties_rng: np.random.Generator) -> dict:
    """Where ``truth`` falls among the thinned draws of ``posterior``, per test quantity.

    The step SBC and posterior SBC share: the test quantities of
    :func:`quantity_labels` (every tested element, and the log-likelihood of ``data``
    under each draw against under ``truth``), thinned by :func:`thinning_factor`, ties
    broken at random and each rank spread over its cell (module docstring), so that
    every normalised rank is exactly uniform on (0, 1) when ``truth`` is a draw from the
    posterior ``posterior`` samples.

    Returns
    -------
    dict
        ``{"ranks": {label: u}, "thinned": draws kept, "min_ess": the ESS read}``.
    """
    # deferred: arviz_stats takes about 0.5 s to import; `zoo list` needs none of it
    import arviz_stats as azs

    chains, draws = posterior.sizes["chain"], posterior.sizes["draw"]
    columns, truths = [], []
    for name in tested_variables(model, prior):
        values = posterior[name].values
        columns.append(values.reshape(chains, draws, -1))
        truths.append(np.asarray(truth[name], dtype=float).ravel())
    if model.log_likelihood is not None:
        arrays = {name: posterior[name].values for name in posterior.data_vars}
        log_lik, _ = log_likelihood_per_draw(model, data, arrays)
        columns.append(log_lik[..., np.newaxis])
        truths.append(np.array([model.log_likelihood(data, truth)]))
    values = np.concatenate(columns, axis=2)
    truth_values = np.concatenate(truths)

    factor, min_ess = thinning_factor(values)
    stacked = xr.Dataset({"q": (("chain", "draw", "quantity"), values)})
    thinned = np.asarray(azs.thin(stacked, factor=factor)["q"].values).reshape(-1, values.shape[2])
    n_kept = thinned.shape[0]

    below = np.count_nonzero(thinned < truth_values, axis=0)
    equal = np.count_nonzero(thinned == truth_values, axis=0)
    rank = below + ties_rng.integers(0, equal + 1)
    normalised = (rank + ties_rng.random(rank.shape)) / (n_kept + 1)
    labels = quantity_labels(model, prior, data)
    return {
        "ranks": {label: float(u) for label, u in zip(labels, normalised, strict=True)},
        "thinned": int(n_kept),
        "min_ess": min_ess,
    }


def redrawn(draw: Callable[[], object]) -> dict:
    """``draw()``, called again while what it drew is outside the data's support or type.

    ``draw`` draws data (with their parameters) from the model's own generator: a
    prior-predictive draw here, or Geweke's data given the parameters
    (:mod:`zoo.diagnostics.geweke`), which conditions on the same event of the data.
    Returns ``{"status": "ok", "draw": value, "redraws": k, "outside": why}`` (``why``
    the last redrawn data set's reason, or ""); or, when :data:`MAX_REDRAWS` draws in a
    row fell outside (status ``unsimulable``) or ``draw`` raised anything else (status
    ``simulation-error``), the status, its message and the redraws. The redraws come
    from the caller's generator, so the same seed gives the same data. Never a verdict
    on the sampler: the fit has not run.
    """
    last = ""
    for redraws in range(MAX_REDRAWS + 1):
        try:
            value = draw()
        except OutsideSupport as error:
            last = str(error)
            continue
        except Exception as error:  # the model's own simulation: reported, never the sampler's
            message = f"{type(error).__name__}: {error}"
            return {"status": SIMULATION_ERROR, "message": message, "redraws": redraws}
        return {"status": "ok", "draw": value, "redraws": redraws, "outside": last}
    return {
        "status": UNSIMULABLE,
        "message": f"{MAX_REDRAWS + 1} draws in a row outside the data's support; the last: "
        f"{last}",
        "redraws": MAX_REDRAWS + 1,
    }


class SimulationFailed(ValueError):
    """The model's own simulation could not draw data: never a verdict on the sampler.

    Raised by :func:`drawn_inside` where a check draws prior-predictive data inside a
    task (the start of Geweke's chains and its marginal side, the invariance check's
    joint draws), which no kernel has touched; the check then could not judge
    (:mod:`zoo.validation.kernel_check_task`).
    """


def drawn_inside(draw: Callable[[], object], what: str) -> tuple[object, int]:
    """``(value, redraws)``: :func:`redrawn`'s draw, or :class:`SimulationFailed` saying why.

    ``what`` names what was drawn (``"Geweke's data given the parameters"``).
    """
    drawn = redrawn(draw)
    if drawn["status"] != "ok":
        raise SimulationFailed(
            f"model: {what} could not be drawn ({drawn['status']}: {drawn['message']}): "
            "the model's simulation, not the sampler"
        )
    return drawn["draw"], drawn["redraws"]


@dataclass
class SBCResult:
    """Simulation-based calibration of one sampler on one model.

    Attributes
    ----------
    quantities : list of str
        Quantities present in every simulation (a simulated data set may have, say, a
        different number of unlabelled items; positions beyond the smallest count are
        left out and counted in ``dropped``).
    ranks : ndarray, shape (simulations, quantities)
        Normalised ranks (uniform on (0, 1) under a correct sampler).
    p_values, p_adjusted : ndarray, shape (quantities,)
        Uniformity p-values and their Holm adjustment.
    alpha : float
        Family-wise false-alarm rate over the quantities.
    failures : list of dict
        Simulations whose fit raised, timed out or returned bad output.
    thinned : ndarray
        Draws kept per simulation after thinning.
    settings : dict
    unsimulated : list of dict
        Simulations whose data could not be drawn (status ``simulation-error``: the
        model's ``simulate`` raised; ``unsimulable``: :data:`MAX_REDRAWS` redraws in a
        row were outside the data's support or type): the model's failures, never the
        sampler's.
    redraws : int
        Prior-predictive data sets drawn again because they were outside the data's
        support or type, over every simulation.
    outside : str
        Why one of them was (the simulator's message), for the findings.
    """

    quantities: list[str]
    ranks: np.ndarray
    p_values: np.ndarray
    p_adjusted: np.ndarray
    alpha: float
    failures: list[dict] = field(default_factory=list)
    thinned: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    settings: dict = field(default_factory=dict)
    seconds: float = 0.0
    dropped: list[str] = field(default_factory=list)
    unsimulated: list[dict] = field(default_factory=list)
    redraws: int = 0
    outside: str = ""

    @property
    def n_simulations(self) -> int:
        """Simulations whose ranks were used."""
        return int(self.ranks.shape[0])

    @property
    def redraw_share(self) -> float:
        """The share of prior-predictive draws redrawn: ``redraws / all draws``.

        All draws are the redrawn ones and those kept (one per simulation whose data
        were drawn): the maximum-likelihood estimate of the probability that a draw
        falls outside the data's support or type.
        """
        kept = self.n_simulations + len(self.failures)
        total = self.redraws + kept
        return self.redraws / total if total else 0.0

    @property
    def prior_not_simulable(self) -> bool:
        """Whether more than :data:`MAX_REDRAW_SHARE` of prior-predictive draws fall outside.

        Each simulation draws until its data are inside, so with ``k`` data sets kept
        the redraws are negative binomial, ``NB(k, 1 - p)``, ``p`` the probability that
        a draw falls outside. The prior is not simulable when ``P(R >= redraws | p =``
        :data:`MAX_REDRAW_SHARE` ``)`` is below :data:`REDRAW_LEVEL` (scipy.stats.nbinom):
        a prior at the stated share is so called in 1% of runs, one at half of it (the
        BUGS pumps' 5%, at 100 simulations) in about 1 in 2 million.
        """
        kept = self.n_simulations + len(self.failures)
        if not self.redraws:
            return False
        if not kept:
            return True
        tail = stats.nbinom(kept, 1.0 - MAX_REDRAW_SHARE).sf(self.redraws - 1)
        return bool(tail < REDRAW_LEVEL)

    @property
    def simulation_errors(self) -> list[dict]:
        """Simulations in which the model's ``simulate`` raised (not a redraw)."""
        return [u for u in self.unsimulated if u["status"] == SIMULATION_ERROR]

    @property
    def verdict(self) -> str:
        """``fail``, ``could not judge`` or ``pass``.

        ``fail`` on any failed fit or non-uniform quantity. ``could not judge`` when the
        model's simulation raised (the data sets kept are then selected by an event
        that may depend on the parameters, and their ranks are not judged), when more
        than :data:`MAX_REDRAW_SHARE` of the prior-predictive draws were redrawn (the
        prior is not simulable: :attr:`prior_not_simulable`), or when too few
        simulations ran to judge. A redrawn
        data set leaves the ranks uniform and the uniformity test in force.
        """
        if self.failures or self.failing():
            return "fail"
        if (
            self.simulation_errors
            or self.prior_not_simulable
            or self.n_simulations < _MIN_SIMULATIONS
        ):
            return COULD_NOT_JUDGE
        return "pass"

    def failing(self) -> list[str]:
        """Quantities whose ranks are not uniform, most significant first.

        None while the model's simulation raised in some simulation: the data sets kept
        may then be selected by the parameters, and their ranks are not judged.
        """
        if self.simulation_errors:
            return []
        order = np.argsort(self.p_adjusted)
        return [self.quantities[i] for i in order if self.p_adjusted[i] < self.alpha]

    def findings(self) -> list[Finding]:
        """Failed fits (one per distinct message) and non-uniform quantities.

        A quantity's ranks are judged by the ECDF test (its Holm p); the finding shows
        the moment of the ranks that moved most, as a direction to look in: the mean rank
        (uniform: 1/2; above it, the sampler's draws sit below the truth) or the rank sd
        (uniform: ``1/sqrt(12)``; above it, a U shape: posteriors too narrow; below it,
        too wide), with its standard error under uniformity.
        """
        found = []
        by_message: dict[tuple[str, str], list[int]] = {}
        for failure in self.failures:
            key = (failure["status"], failure.get("message", ""))
            by_message.setdefault(key, []).append(failure["index"])
        for (status, message), indices in by_message.items():
            which = (
                f"simulation {indices[0]}"
                if len(indices) == 1
                else f"{len(indices)} simulations ({', '.join(map(str, indices[:3]))}"
                + (", ...)" if len(indices) > 3 else ")")
            )
            found.append(Finding(which, "fail", message=f"{status}: {message}"))
        n = self.n_simulations
        for q in self.failing():
            j = self.quantities.index(q)
            ranks = self.ranks[:, j]
            mean_se = np.sqrt(1.0 / (12.0 * n))
            # Var(s^2) of uniform values: (mu_4 - sigma^4) / n = (1/80 - 1/144) / n; the
            # delta method gives se(s) = se(s^2) / (2 sigma).
            sd_se = np.sqrt((1.0 / 80.0 - 1.0 / 144.0) / n) / (2.0 * _UNIFORM_SD)
            z_mean = (ranks.mean() - 0.5) / mean_se
            z_sd = (ranks.std(ddof=1) - _UNIFORM_SD) / sd_se
            if abs(z_mean) >= abs(z_sd):
                statistic, estimate, expected = "mean rank", ranks.mean(), 0.5
                se, z = mean_se, z_mean
            else:
                statistic, estimate, expected = "rank sd", ranks.std(ddof=1), _UNIFORM_SD
                se, z = sd_se, z_sd
            found.append(
                Finding(
                    q,
                    "fail",
                    statistic,
                    float(estimate),
                    float(expected),
                    float(se),
                    float(z),
                    float(self.p_adjusted[j]),
                    "uniform",
                )
            )
        # The ECDF test's p has the resolution of its null table: |z| breaks the ties.
        found.sort(key=finding_order)
        if self.verdict == COULD_NOT_JUDGE:
            found.extend(self._unjudged())
        return found

    def _unjudged(self) -> list[Finding]:
        """Why the ranks could not be judged, each with its cure."""
        found = []
        errors = self.simulation_errors
        if errors:
            first = errors[0]
            which = (
                f"simulation {first['index']}"
                if len(errors) == 1
                else (f"{len(errors)} simulations ({first['index']}, ...)")
            )
            found.append(
                Finding(
                    which,
                    COULD_NOT_JUDGE,
                    gate=f"the model's simulate raised ({first['message']})",
                    cure="an error in the model's simulation, not in the sampler: draw "
                    "from the prior predictive by hand (model.simulate, or "
                    "pm.sample_prior_predictive) to see why",
                )
            )
        if self.prior_not_simulable:
            total = self.redraws + self.n_simulations + len(self.failures)
            found.append(
                Finding(
                    "prior",
                    COULD_NOT_JUDGE,
                    gate=f"the prior is not simulable: {self.redraws} of {total} "
                    f"prior-predictive draws ({self.redraw_share:.0%}; more than "
                    f"{MAX_REDRAW_SHARE:.0%} at level {REDRAW_LEVEL:g}) had data outside "
                    f"their support or type ({self.outside})",
                    cure="a more informative (lighter-tailed) prior, under which the data "
                    "it simulates stay within their type",
                )
            )
        if not found and self.n_simulations < _MIN_SIMULATIONS:
            found.append(
                Finding(
                    "simulations",
                    COULD_NOT_JUDGE,
                    gate=f"{self.n_simulations} simulations < {_MIN_SIMULATIONS}",
                    cure=f"run at least {_MIN_SIMULATIONS} simulations (simulations=, "
                    "--simulations)",
                )
            )
        return found

    def __repr__(self) -> str:
        return (
            f"SBCResult(verdict={self.verdict!r}, simulations={self.n_simulations}, "
            f"quantities={len(self.quantities)}, failing={len(self.failing())}, "
            f"failed_fits={len(self.failures)})"
        )

    def _repr_html_(self) -> str:
        head = f"SBCResult: <b>{self.verdict}</b>: {html.escape(self.summary())}"
        return findings_html(head, self.findings())

    def to_dataframe(self) -> pd.DataFrame:
        """One row per quantity: p-value, Holm-adjusted p-value, verdict."""
        return self.table.to_dataframe().reset_index()

    def band(self) -> EcdfBand:
        """The simultaneous band a quantity's ECDF must stay in.

        Bonferroni over the quantities: the band of Holm's first, strictest step.
        """
        return ecdf_band(self.n_simulations, self.alpha / max(len(self.quantities), 1))

    @property
    def table(self) -> xr.Dataset:
        """Per quantity: p-value, Holm-adjusted p-value, verdict."""
        verdicts = np.where(self.p_adjusted < self.alpha, "fail", "pass")
        return xr.Dataset(
            {
                "p": ("quantity", self.p_values),
                "p_adjusted": ("quantity", self.p_adjusted),
                "verdict": ("quantity", verdicts),
            },
            coords={"quantity": self.quantities},
        )

    def summary(self) -> str:
        """One line: what ran and what was found."""
        head = (
            f"{self.n_simulations} simulations, {len(self.quantities)} quantities, "
            f"median {int(np.median(self.thinned)) if self.thinned.size else 0} thinned draws"
        )
        parts = [head]
        if self.failures:
            messages = {(f["status"], f.get("message", "")) for f in self.failures}
            first = self.failures[0]
            said = f"{first['status']}: {first.get('message', '')}"
            if len(messages) == 1:
                every = "all" if not self.n_simulations else "each"
                parts.append(f"{len(self.failures)} fit(s) failed, {every} with {said}")
            else:
                parts.append(
                    f"{len(self.failures)} fit(s) failed ({len(messages)} different "
                    f"errors; simulation {first['index']}: {said})"
                )
        failing = self.failing()
        if failing:
            shown = ", ".join(
                f"{q} (p={self.p_adjusted[self.quantities.index(q)]:.2g})" for q in failing[:5]
            )
            more = f" and {len(failing) - 5} more" if len(failing) > 5 else ""
            parts.append(f"ranks not uniform: {shown}{more}")
        if self.dropped:
            parts.append(f"{len(self.dropped)} quantities not in every simulation, left out")
        if self.redraws:
            parts.append(self.redraw_note())
        if self.verdict == COULD_NOT_JUDGE:
            parts.extend(f"could not judge: {f.gate}" for f in self._unjudged())
        return "; ".join(parts)

    def redraw_note(self) -> str:
        """``3 data sets redrawn (2.9% of draws outside their support or type)``."""
        return (
            f"{self.redraws} data set(s) redrawn ({self.redraw_share:.1%} of prior-predictive "
            "draws outside their support or type)"
        )

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "verdict": self.verdict,
            "alpha": self.alpha,
            "simulations": self.n_simulations,
            "failures": self.failures,
            "unsimulated": self.unsimulated,
            "redraws": self.redraws,
            "redraw_share": self.redraw_share,
            "failing": self.failing(),
            "quantities": {
                q: {"p": float(p), "p_adjusted": float(pa)}
                for q, p, pa in zip(self.quantities, self.p_values, self.p_adjusted, strict=True)
            },
            "settings": self.settings,
            "seconds": self.seconds,
        }

    def __str__(self) -> str:
        return f"SBC: {self.verdict.upper()}: {self.summary()}"


def sbc_result(records: Sequence[Mapping], *, alpha: float, settings=None) -> SBCResult:
    """Pool simulation records into an :class:`SBCResult`."""
    alpha = as_probability("alpha", alpha)
    good = sorted((r for r in records if r["status"] == "ok"), key=lambda r: r["index"])
    drawn_by_model = (UNSIMULABLE, SIMULATION_ERROR)
    failures, unsimulated = [], []
    for r in sorted(records, key=lambda r: r["index"]):
        if r["status"] == "ok":
            continue
        entry = {"index": r["index"], "status": r["status"], "message": r.get("message", "")}
        if r["status"] in drawn_by_model:
            unsimulated.append({**entry, "redraws": int(r.get("redraws", 0))})
        else:
            failures.append(entry)
    outside = next((r["outside"] for r in good if r.get("outside")), "")
    outside = outside or next((r["message"] for r in records if r["status"] == UNSIMULABLE), "")
    seen: dict[str, int] = {}
    for record in good:
        for label in record["ranks"]:
            seen[label] = seen.get(label, 0) + 1
    quantities = [label for label, count in seen.items() if count == len(good)]
    dropped = [label for label, count in seen.items() if count < len(good)]
    ranks = np.array([[r["ranks"][q] for q in quantities] for r in good], dtype=float).reshape(
        len(good), len(quantities)
    )
    if len(good):
        p_values = np.array([uniformity_pvalue(ranks[:, j]) for j in range(len(quantities))])
        p_adjusted = holm(p_values)
    else:
        p_values = p_adjusted = np.full(len(quantities), np.nan)
    return SBCResult(
        quantities=quantities,
        ranks=ranks,
        p_values=p_values,
        p_adjusted=p_adjusted,
        alpha=alpha,
        failures=failures,
        thinned=np.array([r["thinned"] for r in good], dtype=int),
        settings=dict(settings or {}),
        seconds=float(sum(r.get("seconds", 0.0) for r in records)),
        dropped=dropped,
        unsimulated=unsimulated,
        redraws=int(sum(r.get("redraws", 0) for r in records)),
        outside=outside,
    )

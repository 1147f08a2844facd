"""``zoo check``: both engines on a model's default data, judged against the exact answer."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

from zoo.core.defaults import ALPHA, CHAINS, DRAWS, ENGINES, TUNE
from zoo.diagnostics import AgreementResult, agreement, compare
from zoo.registry import get
from zoo.runs.model_run import ModelRun, sample_model

__all__ = ["COMPARISONS", "ModelCheck", "exact_mean", "judge", "quantity_rows", "run_check"]

#: The three comparisons of a check, in table order: (key, column title).
COMPARISONS = (("gibbs", "Gibbs vs exact"), ("pymc", "PyMC vs exact"), ("cross", "Gibbs vs PyMC"))


@dataclass
class ModelCheck:
    """Everything ``zoo check`` learned about one model.

    Attributes
    ----------
    model : str
        Registry name.
    gibbs, pymc : AgreementResult or None
        Each engine against the exact reference (None when there is no reference or the
        engine did not run).
    cross : AgreementResult or None
        Gibbs against PyMC, two-sample (None unless both engines ran).
    reference_note : str
        How the exact reference was obtained, or why there is none.
    settings : dict
        Draws, tune, chains, seed, alpha.
    seconds : dict
        Wall time of each stage.
    run : ModelRun, optional
        The draws and the problem they came from (for reports and saving).
    reference : Reference or NoReference, optional
        The exact posterior the draws were judged against.
    """

    model: str
    gibbs: AgreementResult | None
    pymc: AgreementResult | None
    cross: AgreementResult | None
    reference_note: str
    settings: dict
    seconds: dict = field(default_factory=dict)
    run: ModelRun | None = None
    reference: object = None

    @property
    def verdict(self) -> str:
        """``agree`` only when every comparison agrees; otherwise the worst verdict.

        A check with nothing to judge (every engine missing) is ``inconclusive``, and so
        is an interrupted run whose comparisons agree: an engine it cut short or never
        started was not checked, and AGREE would read as a full check.
        """
        verdicts = [r.verdict for r in (self.gibbs, self.pymc, self.cross) if r is not None]
        if not verdicts:
            return "inconclusive"
        for worst in ("disagree", "inconclusive"):
            if worst in verdicts:
                return worst
        if self.run is not None and self.run.interrupted:
            return "inconclusive"
        return "agree"

    def verdicts(self) -> dict:
        """``{"gibbs": ..., "pymc": ..., "cross": ..., "overall": ...}`` (None if absent)."""
        out = {
            key: None if getattr(self, key) is None else getattr(self, key).verdict
            for key, _ in COMPARISONS
        }
        out["overall"] = self.verdict
        return out

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "model": self.model,
            "verdict": self.verdict,
            "settings": self.settings,
            "reference": self.reference_note,
            "seconds": self.seconds,
            "interrupted": bool(self.run is not None and self.run.interrupted),
            "kept": None if self.run is None else self.run.kept(),
            "gibbs_vs_exact": None if self.gibbs is None else self.gibbs.to_dict(),
            "pymc_vs_exact": None if self.pymc is None else self.pymc.to_dict(),
            "gibbs_vs_pymc": None if self.cross is None else self.cross.to_dict(),
        }


def judge(run: ModelRun, *, alpha: float | None = None, status=None) -> ModelCheck:
    """Test a run's draws against the exact reference, and the engines against each other.

    The reference is recomputed from the run's data and prior, so a saved run is judged
    exactly as a fresh one (the tests are deterministic given the draws).
    """
    say = status or (lambda message: None)
    model = get(run.model)
    alpha = run.settings.get("alpha", ALPHA) if alpha is None else alpha
    seconds = dict(run.seconds)
    say(f"{model.name}: exact reference")
    started = time.perf_counter()
    reference = model.posterior(run.data, run.prior)
    seconds["reference"] = time.perf_counter() - started
    say(f"{model.name}: agreement tests")
    started = time.perf_counter()
    results = {}
    compared = model.comparable_variables(run.prior)
    # One family per model: the exact comparison of each engine and the cross-engine one
    # share alpha (Bonferroni), so a correct pair of engines gives a model a false alarm
    # with probability at most alpha, as the verdict line states (as zoo validate's checks
    # share theirs). Each once had all of it: up to 3 alpha per model.
    engines = [engine for engine in ENGINES if engine in run.trees]
    both = "gibbs" in run.trees and "pymc" in run.trees
    comparisons = (len(engines) if reference.available else 0) + int(both)
    share = alpha / max(comparisons, 1)
    # Models whose labels are exchangeable (mixtures, topics) name the identified
    # variables to compare on (Model.comparable_variables); otherwise every variable.
    if reference.available:
        judged = [name for name in compared if name in reference.marginals]
        for engine in engines:
            results[engine] = agreement(
                run.trees[engine], reference, var_names=judged, alpha=share
            )
        note = reference.note
    else:
        note = f"no exact reference: {reference.reason}"
    cross = None
    if both:
        cross = compare(run.trees["gibbs"], run.trees["pymc"], var_names=compared, alpha=share)
    seconds["diagnostics"] = time.perf_counter() - started
    settings = {**run.settings, "alpha": alpha}
    return ModelCheck(
        model.name,
        results.get("gibbs"),
        results.get("pymc"),
        cross,
        note,
        settings,
        seconds,
        run=run,
        reference=reference,
    )


def run_check(
    name: str,
    *,
    draws: int = DRAWS,
    tune: int = TUNE,
    chains: int = CHAINS,
    seed: int = 0,
    alpha: float = ALPHA,
    progress: bool | None = None,
    status=None,
) -> ModelCheck:
    """Sample a model's default problem with both engines and test them.

    The Gibbs and PyMC runs draw from their own streams of ``seed``
    (:mod:`zoo.core.streams`). ``status``,
    if given, is called with a short message before each stage.
    """
    run = sample_model(
        name,
        draws=draws,
        tune=tune,
        chains=chains,
        seed=seed,
        alpha=alpha,
        progress=progress,
        status=status,
    )
    return judge(run, alpha=alpha, status=status)


def quantity_rows(check: ModelCheck) -> list[dict]:
    """One row per scalar quantity: each comparison's summary of it, and the worst verdict.

    Rows are ordered as the cross-engine table, then any quantity only one engine has.
    Each row: ``element``, ``variable``, ``verdict`` (worst over comparisons) and, per
    comparison key (``gibbs``, ``pymc``, ``cross``), the quantity summary of
    :meth:`AgreementResult.quantities` or None.
    """
    per = {
        key: {q["element"]: q for q in getattr(check, key).quantities()}
        if getattr(check, key) is not None
        else {}
        for key, _ in COMPARISONS
    }
    elements = list(per["cross"])
    for key in ENGINES:
        elements += [e for e in per[key] if e not in elements]
    severity = {"agree": 0, "inconclusive": 1, "disagree": 2}
    rows = []
    for element in elements:
        row = {"element": element, "variable": element.split("[")[0]}
        worst = "agree"
        for key, _ in COMPARISONS:
            q = per[key].get(element)
            row[key] = q
            if q is not None and severity[q["verdict"]] > severity[worst]:
                worst = q["verdict"]
        row["verdict"] = worst
        rows.append(row)
    return rows


def exact_mean(row: dict) -> float:
    """The exact posterior mean of a quantity row (NaN when unknown or infinite)."""
    for key in ENGINES:
        q = row.get(key)
        if q is not None:
            return q["mean_reference"]
    return math.nan

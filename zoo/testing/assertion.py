"""``assert_valid``: the validation battery as one assertion of a test suite."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zoo.core.arguments import as_probability, as_seed
from zoo.testing.sequential import RATE, Stage, check_step, stages
from zoo.validation.battery import CHECKS, validate
from zoo.validation.plan import resolve_budgets
from zoo.validation.results import ValidationResult, finding_cells

__all__ = ["SequentialRecord", "assert_valid", "findings_table", "stage_budgets"]

#: Budget settings that count a check's evidence: simulated data sets, steps of a chain
#: and the independent draws they are compared with, replicates; a check with none of
#: these is judged on its fits' draws.
_SIZES = ("simulations", "iterations", "max_iterations", "marginal_draws", "replicates")


def stage_budgets(preset: str, scale: float) -> dict[str, dict[str, int]]:
    """Every check's budget: the ``preset``'s, its sample sizes times ``scale``.

    The sample sizes are SBC's simulations, Geweke's steps per chain and the independent
    draws it compares them with, the invariance check's replicates, and the draws per
    chain of the checks that judge a fit's draws (exact, nuts; the exact check's most
    draws too); never below a setting's own minimum. Every test of the battery then
    rests on ``scale`` times the preset's evidence on each side it compares, so its
    z-statistic under a fixed bug grows as ``sqrt(scale)``, as
    :mod:`zoo.testing.sequential`'s power argument takes it to. Chains, and SBC's draws
    per fit (thinned to their ESS), stay the preset's.
    """
    budgets = resolve_budgets(CHECKS, None, preset)
    for check in CHECKS:
        sized = [s for s in check.budget if s.name in _SIZES]
        sized = sized or [s for s in check.budget if s.name in ("draws", "max_draws")]
        for s in sized:
            budgets[check.name][s.name] = max(
                s.minimum, round(budgets[check.name][s.name] * scale)
            )
    return budgets


@dataclass
class SequentialRecord:
    """What a sequential validation did: its stages, their results and its verdict.

    Attributes
    ----------
    verdict : str
        ``pass``, ``fail`` or ``inconclusive``.
    stages : list of (Stage, ValidationResult)
        The stages run, in order, each with the checks it ran.
    result : ValidationResult
        Every check's outcome from the stage that decided it, in the battery's order.
    seconds : float
        Wall time of all stages.
    """

    verdict: str
    stages: list = field(default_factory=list)
    result: ValidationResult | None = None
    seconds: float = 0.0

    @property
    def draws(self) -> int:
        """Draws per chain of the exact check, summed over the stages that ran it.

        A stage counts the length its longest fit reached: the exact check's fits double
        from the stage's ``draws`` while a quantity is below its gates
        (:mod:`zoo.validation.exact_check`), so that length, not the one they started
        from, is what the stage drew.
        """
        return sum(
            _exact_draws(check, result.settings["budgets"]["exact"])
            for _, result in self.stages
            for check in result.checks
            if check.name == "exact"
        )

    def line(self) -> str:
        """One line: verdict, checks, stages, draws and seconds (pytest's summary)."""
        result = self.result
        checks = ",".join(check.name for check in result.checks)
        return (
            f"{self.verdict.upper()} {result.model}: {result.sampler} [{checks}] "
            f"{len(self.stages)} stage(s), {self.draws} draws per chain, {self.seconds:.1f} s"
        )


def _exact_draws(outcome, budget) -> int:
    """Draws per chain of the exact check's longest judged fit in one stage.

    Each judged data set's table records the length of the fit it judged (its
    ``draws``); a stage whose fits all failed, or could not be judged, drew its
    budget's first length.
    """
    details = outcome.details if isinstance(outcome.details, dict) else {}
    lengths = [
        int(result.table.attrs["draws"])
        for result in details.values()
        if "draws" in getattr(getattr(result, "table", None), "attrs", {})
    ]
    return max(lengths, default=int(budget["draws"]))


def findings_table(result: ValidationResult) -> str:
    """The findings of every check that did not pass, as a plain-text table.

    Columns: check, quantity, statistic, estimate, reference, MCSE, z, Holm p, note (a
    gate not passed and its cure, or a failed fit's message).
    """
    header = ["check", "quantity", "statistic", "estimate", "reference", "mcse", "z", "p"]
    rows = []
    notes = []
    for check in result.checks:
        if check.verdict == "pass":
            continue
        if not check.findings:
            notes.append(f"{check.name}: {check.verdict}: {check.summary}")
        for finding in check.findings:
            cells = finding_cells(finding)
            where = f"{finding.problem}: " if finding.problem else ""
            rows.append(
                [
                    check.name,
                    where + finding.quantity,
                    finding.statistic or finding.verdict,
                    cells["estimate"],
                    cells["reference"],
                    cells["mcse"],
                    cells["z"],
                    cells["p_adjusted"],
                ]
            )
            if cells["note"]:
                notes.append(f"{check.name}: {where}{finding.quantity}: {cells['note']}")
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths, strict=True)) for r in rows]
    table = "  ".join(h.ljust(w) for h, w in zip(header, widths, strict=True))
    return "\n".join([table, *lines, *notes]) if rows else "\n".join(notes)


def assert_valid(
    model,
    sampler: Callable | None = None,
    *,
    kernel=None,
    rate: float = RATE,
    budget: str = "default",
    seed: int = 0,
    allow_inconclusive: bool = False,
    checks=None,
    workers: int | None = 0,
    on_record: Callable[[SequentialRecord], None] | None = None,
    **options,
) -> ValidationResult:
    """Validate a sampler and raise ``AssertionError`` unless it passes.

    The battery of :func:`zoo.validate` runs in stages of growing budget at a small
    family-wise false-alarm rate, stopping as soon as a stage decides
    (:mod:`zoo.testing.sequential`): a correct sampler usually pays for one stage, three
    quarters of the fixed battery's budget; a subtle bug gets the budget it needs.

    Parameters
    ----------
    model, sampler, kernel :
        As :func:`zoo.validate`: a zoo model's name or a user's PyMC model (or a
        function returning one), and a sampler or a kernel.
    rate : float
        The false-alarm rate of this assertion on a correct sampler, over all its stages
        (default 1e-4).
    budget : {"quick", "default", "thorough"}
        ``zoo validate``'s preset of that name (:data:`zoo.core.defaults.BUDGET_PRESETS`:
        a quarter of, equal to, or four times the battery's defaults in exact-check
        draws, SBC simulations, Geweke steps): the first stage spends three quarters of
        it (:data:`zoo.testing.sequential.FIRST`), later stages grow it fourfold.
    seed : int
        The root of every stage's seed: the same seed gives the same stages, draws and
        verdict on any machine.
    allow_inconclusive : bool
        Return instead of raising when the battery cannot judge (the result says why).
    checks : sequence of str, optional
        As :func:`zoo.validate`.
    workers : int or None
        Where fits run (:func:`zoo.validate`); default 0, in this process: a test
        suite, possibly under pytest-xdist, starts no cluster per test.
    on_record : callable, optional
        Called with the :class:`SequentialRecord` before returning or raising (the
        pytest plugin's summary line and report).
    **options :
        Passed to :func:`zoo.validate` (``reference``, ``problems``, ``timeout``, ...).

    Returns
    -------
    ValidationResult
        The deciding stage's result, on PASS (or INCONCLUSIVE when allowed).

    Raises
    ------
    AssertionError
        On FAIL, with the findings table (quantity, statistic, estimate, reference,
        MCSE, z, Holm p); on INCONCLUSIVE unless allowed, with why and the cure.
    ValueError
        For a bad argument, before any fit.
    """
    rate = as_probability("rate", rate)
    seed = as_seed("seed", seed)
    clash = sorted(
        set(options) & {"alpha", "budget", "budgets", "draws", "simulations", "stop_at_failure"}
    )
    if clash:
        raise ValueError(
            f"{clash[0]}: set by the sequential stages (rate= and budget= choose them); "
            "call zoo.validate for a fixed budget"
        )
    plan = stages(rate, budget, seed)
    record = SequentialRecord("pass")
    decided: dict = {}  # check name -> its outcome in the stage that decided it
    steps: dict = {}
    pending = checks
    started = time.perf_counter()
    for stage in plan:
        last = stage is plan[-1]
        result = _run_stage(model, sampler, kernel, pending, workers, stage, budget, options)
        record.stages.append((stage, result))
        for outcome in result.checks:
            decided[outcome.name] = outcome
            steps[outcome.name] = check_step(outcome, len(result.checks), last)
        pending = tuple(name for name, step in steps.items() if step == "continue")
        if "fail" in steps.values() or not pending:
            break
    first = record.stages[0][1]
    record.result = ValidationResult(
        first.model,
        first.sampler,
        rate,
        [decided[check.name] for check in first.checks],
        {
            **first.settings,
            "rate": rate,
            "budget": budget,
            "stages": len(record.stages),
            "draws_per_chain": record.draws,
        },
    )
    for _, result in record.stages:
        # checks a failure in their stage left unrun, and why (none ran in a later stage)
        record.result.skipped.update(
            (name, why) for name, why in result.skipped.items() if name not in decided
        )
    # The battery's own verdict policy over each check's deciding outcome: a check that
    # could not judge is no evidence either way, and PASS needs exact or SBC to judge.
    record.verdict = record.result.verdict
    record.seconds = time.perf_counter() - started
    if on_record is not None:
        on_record(record)
    result = record.result
    if record.verdict == "pass" or (record.verdict == "inconclusive" and allow_inconclusive):
        return result
    head = (
        f"{result.model}: {result.sampler}: {record.verdict.upper()} after "
        f"{len(record.stages)} stage(s) (false-alarm rate {rate:g} over all stages)"
    )
    unrun = [f"{name}: {why}" for name, why in result.skipped.items()]
    raise AssertionError("\n".join([head, findings_table(result), *unrun]))


def _run_stage(model, sampler, kernel, checks, workers, stage: Stage, preset: str, options):
    return validate(
        model,
        sampler,
        kernel=kernel,
        checks=checks,
        seed=stage.seed,
        alpha=stage.alpha,
        workers=workers,
        budgets=stage_budgets(preset, stage.scale),
        # any failure ends the run, so the checks after it in the stage would decide nothing
        stop_at_failure=True,
        **options,
    )

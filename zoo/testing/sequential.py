"""Sequential decisions at a low false-alarm rate: when to stop drawing, and what to say.

A check in a test suite runs on every commit, so its false-alarm rate must be small
(``1e-4`` by default: twenty samplers checked on every commit then fail a correct build
about once in 500 runs, where a 1% battery fails it once in five). At a rate that small
a fixed budget is either costly for every run or weak against subtle bugs. Here the
battery runs in *stages* of growing budget, and each stage ends the run as soon as its
evidence decides (Jennison & Turnbull 2000, "Group Sequential Methods with Applications
to Clinical Trials", chapters 1, 7 and 10):

- **alpha spending with a union bound.** Stage ``k`` runs the whole battery at its own
  family-wise rate ``alpha_k``, with ``sum_k alpha_k = rate``: the spending sequence
  :data:`SPENDING` (Lan & DeMets 1983 in spirit: little early, most at the last look).
  Each stage draws from its own seed (fresh fits, fresh simulations), and whatever the
  dependence between stages, the probability that a correct sampler fails at *any*
  stage is at most the sum of the stages' rates (Bonferroni), so at most ``rate``.
- **each check stops at a clear pass (non-binding futility).** A check whose smallest
  adjusted p-value, at its share of the stage's family (:func:`check_step`), is at
  least :data:`CLEAR` is a clear pass: nothing in it is even mildly surprising, and it
  is done. Only the other checks run again in the next stage, sharing that stage's rate
  among themselves: the set that runs is fixed by the earlier stages, whose draws are
  independent of this stage's, so given that set the stage fails a correct sampler with
  probability at most its rate, and the bound above holds. Stopping to accept can only
  lower the chance of a false alarm (early stopping to accept, Jennison & Turnbull
  2000, chapters 4 and 5, here non-binding: the bound above never counts on it); it
  costs power only against bugs too small to move any test to ``p < CLEAR`` at the
  stage's budget, and those go on to the next, larger stage instead. Any check failing
  ends the run with FAIL.
- **inconclusive checks go on** when more draws could cure them (a finding names the
  draws per chain that would clear its gate); a check that more draws cannot cure (one
  that cannot judge at all) ends inconclusive.

**The schedule.** The first stage spends :data:`FIRST` (three quarters) of the budget
preset, each later one :data:`GROWTH` times the one before (0.75, 3, 12 times the
preset). A stage's budget scales every sample size a test rests on, on both sides of
its comparison: the exact check's draws (its reference is exact), SBC's simulations,
Geweke's chains *and* its independent joint draws, the invariance check's replicates.
The rate bound above needs none of that (each look is judged at its own level whatever its
sample size); the power argument does: a test's z-statistic under a fixed bug grows as
the square root of its evidence only when both sides grow, and a Geweke comparison
against a fixed marginal sample, or invariance at fixed replicates, would gain little
or nothing from a later stage that claims 4 or 16 times the first one's budget.

A correct sampler almost always stops after the first stage, so its run costs
less than the fixed-budget battery at that preset. The futility boundary is chosen for
that smaller first stage: with the most sensitive of ``m`` tests (all the battery's
tests, Bonferroni-Holm) shifted by a bug that the fixed battery at 1% detects with
probability ``q``, its z-statistic at the first stage is ``sqrt(FIRST)`` times the fixed
battery's, and a clear pass needs it below the two-sided normal quantile of
``CLEAR / m``. Under that normal approximation, with :data:`CLEAR` = 0.25 the
sequential run fails such a bug with probability at least ``q - 0.01`` for every
``m`` up to 1,000 and ``q`` from 0.5 to 0.99 (``tests/testing/test_sequential.py``
computes it): no less power than the fixed battery it replaces, at a fraction of its
false-alarm rate. A correct sampler goes on to the second stage with probability up to
about :data:`CLEAR` (19 runs in 91 measured, docs/testing.md), and then only in the
checks that were not clear passes. At the last stage every check's verdict
stands; a gross bug fails in the first stage; a subtle one gets the budget it needs, in
the checks that need it.

Every stage's seed is derived from the caller's (``numpy.random.SeedSequence``), so the
same seed gives the same stages, the same draws and the same verdict on any machine.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from zoo.core.defaults import BUDGET_PRESETS
from zoo.diagnostics.findings import COULD_NOT_JUDGE

__all__ = [
    "BUDGETS",
    "CLEAR",
    "FIRST",
    "GROWTH",
    "RATE",
    "SPENDING",
    "Stage",
    "check_step",
    "evidence",
    "stages",
]

#: The family-wise false-alarm rate of a check in a test suite (per validation).
RATE = 1e-4
#: Share of the rate each stage spends: 10%, 30%, 60%.
SPENDING = (0.1, 0.3, 0.6)
#: A check whose smallest adjusted p-value (times the checks sharing the stage's rate)
#: is at least this is a clear pass: chosen with :data:`FIRST` so that the sequential
#: run has the power of the fixed battery at 1% (module docstring).
CLEAR = 0.25
#: Budget presets of the first stage: ``zoo validate``'s own (``--budget``), one table,
#: :data:`zoo.core.defaults.BUDGET_PRESETS`.
BUDGETS = BUDGET_PRESETS
#: The first stage's budget as a share of the preset's: less than the fixed battery
#: spends, so a correct sampler's run (almost always one stage) costs less than it.
FIRST = 0.75
#: How much larger each stage's budget is than the one before.
GROWTH = 4.0


@dataclass(frozen=True)
class Stage:
    """One look of a sequential validation.

    Attributes
    ----------
    index : int
        0 for the first stage.
    alpha : float
        The family-wise rate this stage spends.
    scale : float
        Its budget as a multiple of the preset's: every sample size a test of the
        battery rests on (exact-check draws per chain, SBC simulations, Geweke's steps
        per chain and the independent draws they are compared with, invariance
        replicates).
    seed : int
        The battery's root seed for this stage.
    """

    index: int
    alpha: float
    scale: float
    seed: int


def stages(rate: float, budget: str, seed: int) -> list[Stage]:
    """The stages of a sequential validation at family-wise ``rate``.

    Parameters
    ----------
    rate : float
        The overall false-alarm rate, in (0, 1).
    budget : {"quick", "default", "thorough"}
        The budget preset (:data:`BUDGETS`): the first stage spends :data:`FIRST` of
        it, each later stage :data:`GROWTH` times the one before.
    seed : int
        The caller's seed; each stage's is derived from it and its index.
    """
    if budget not in BUDGETS:
        raise ValueError(f"budget: must be one of {', '.join(BUDGETS)}, got {budget!r}")
    out = []
    for index, share in enumerate(SPENDING):
        state = np.random.SeedSequence([seed, index]).generate_state(1, dtype=np.uint32)
        out.append(Stage(index, rate * share, FIRST * GROWTH**index, int(state[0])))
    return out


def _smallest(result) -> float:
    """The smallest finite adjusted p-value of one diagnostic result (1 if none)."""
    values = getattr(result, "p_adjusted", None)
    if values is None:
        table = getattr(result, "table", None)
        if table is None or "p_adjusted" not in getattr(table, "data_vars", ()):
            return math.nan
        values = table["p_adjusted"].values
    values = np.asarray(values, dtype=float)
    values = values[np.isfinite(values)]
    return float(values.min()) if values.size else 1.0


def _check_evidence(details) -> float:
    """The smallest rate at which one check would fail: its results' adjusted p-values.

    A check over several data sets gives each the same share of its rate (Bonferroni),
    so a data set's smallest Holm p-value counts times the number of data sets.
    """
    if isinstance(details, Mapping):
        values = [_smallest(result) for result in details.values()]
        if not values or any(math.isnan(v) for v in values):
            return 0.0
        return min(1.0, min(values) * len(values))
    value = _smallest(details)
    return 0.0 if math.isnan(value) else value


def evidence(result) -> float:
    """The smallest family-wise rate at which ``result``'s battery would fail.

    Each check runs at an equal share of the battery's rate and Holm's adjusted
    p-values decide within it, so the battery fails at rate ``a`` exactly when some
    check's smallest adjusted p-value (times the number of checks, and of data sets
    where a check splits its share over them) is at most ``a``. A check whose results
    cannot be read (a fit that raised, an unknown result type) counts as 0: evidence
    against a clear pass, never for one.

    Parameters
    ----------
    result : zoo.ValidationResult
    """
    checks = list(result.checks)
    if not checks:
        return 0.0
    return min(1.0, min(_check_evidence(check.details) for check in checks) * len(checks))


def _curable(outcome) -> bool:
    """Whether more draws could turn a check's inconclusive findings into verdicts."""
    unjudged = [f for f in outcome.findings if f.verdict == "inconclusive"]
    return bool(unjudged) and all(f.draws_per_chain for f in unjudged)


def check_step(outcome, checks_in_stage: int, last: bool) -> str:
    """What one check's outcome in a stage decides for that check.

    One of ``"fail"`` (the run fails), ``"pass"`` (a clear pass: this check is done),
    ``"inconclusive"`` (more draws would not help), ``"could not judge"`` (the check is
    no evidence either way: more draws would not change that), or ``"continue"`` (the
    check runs again in the next stage). ``outcome`` is the check's result at its share of the
    stage's rate, ``checks_in_stage`` the number of checks that shared it. At the last
    stage the outcome's verdict stands.
    """
    if outcome.verdict in ("fail", COULD_NOT_JUDGE):
        return outcome.verdict
    if last:
        return outcome.verdict
    if outcome.verdict == "pass":
        clear = _check_evidence(outcome.details) * checks_in_stage >= CLEAR
        return "pass" if clear else "continue"
    return "continue" if _curable(outcome) else "inconclusive"

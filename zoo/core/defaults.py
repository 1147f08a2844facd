"""Defaults shared by the Python API and the command line, defined once.

Changing one here changes it everywhere: the ``zoo check`` and ``zoo validate``
options, :func:`zoo.sample`, :func:`zoo.validate` and the diagnostics' signatures. A
budget setting of one check of ``zoo validate`` alone (SBC's simulations, say) is in
that check's entry of the battery's table (:data:`zoo.validation.CHECKS`).
"""

from __future__ import annotations

__all__ = [
    "ALPHA",
    "BUDGET_PRESETS",
    "CHAINS",
    "DRAWS",
    "ENGINES",
    "EXACT_MAX_DRAWS",
    "FIT_TIMEOUT",
    "GEWEKE_BATCHES",
    "GEWEKE_COMPARED",
    "GEWEKE_DRAWS",
    "GEWEKE_ITERATIONS",
    "GEWEKE_MAX_ITERATIONS",
    "GEWEKE_PILOT",
    "INVARIANCE_REPLICATES",
    "TUNE",
]

#: Family-wise false-alarm rate of a battery of tests (one verdict per run).
ALPHA = 0.01
#: Kept draws per chain.
DRAWS = 1000
#: The most draws per chain the exact check's fits grow to, doubling from DRAWS while a
#: quantity is below the ESS gate (1,000, 2,000, 4,000, 8,000).
EXACT_MAX_DRAWS = 8 * DRAWS
#: Warm-up (tuning) iterations per chain: NUTS adaptation, Gibbs burn-in.
TUNE = 1000
#: Chains per engine; four is the fewest for which rank-normalised R-hat is reliable
#: (Vehtari et al. 2021, section 4).
CHAINS = 4
#: The engines of every model: the hand-written Gibbs kernel and PyMC's NUTS.
ENGINES = ("gibbs", "pymc")

# zoo validate's budget is each check's own (zoo.validation.plan.Setting, in the check's
# entry of the battery's table); the defaults below are those several layers share.
#: Seconds one fit may take before its worker is restarted and the fit counted failed.
FIT_TIMEOUT = 600.0

#: Geweke's test: independent (marginal-conditional) joint draws, of which the first
#: GEWEKE_PILOT fix the test functions and the rest are compared; the first length of
#: each successive-conditional chain and the most it doubles to while a test function's
#: ESS is below the gate and within reach (10,000, 20,000); the batches per chain at the
#: first stage, each a segment begun at an exact joint draw (zoo.diagnostics.geweke).
#: The maximum is 20,000 (it was 80,000): the examples whose chains clear only at
#: 40,000 to 80,000 steps (the mixture, coal mining) spent 45 to 75 CPU s there, over
#: the 60 a default validation may take in all; they now could not judge at the
#: default, with the length that would as the cure, and judge under ``thorough``
#: (docs/design.md, "Geweke's test: its test functions and its length").
GEWEKE_DRAWS = 5000
GEWEKE_PILOT = 1000
#: The independent draws compared (the budget's ``marginal_draws`` by default).
GEWEKE_COMPARED = GEWEKE_DRAWS - GEWEKE_PILOT
GEWEKE_ITERATIONS = 10000
GEWEKE_MAX_ITERATIONS = 20000
GEWEKE_BATCHES = 20

#: The one-sweep invariance check: independent exact joint draws.
INVARIANCE_REPLICATES = 4000

#: zoo validate's budget presets (``--budget``, ``zoo.validate(budget=)``, and the first
#: stage of ``zoo.testing``'s ``--zoo-budget``): each a mapping of check settings,
#: ``{check: {setting: value}}``, over the defaults of the checks' entries in the
#: battery's table; a setting a preset leaves out keeps its default, and a check's own
#: option (``--simulations``, ``budgets=``) overrides the preset. ``quick`` is a quarter
#: of each check's evidence (draws per chain of the exact and nuts fits and the most the
#: exact fits grow to, SBC's simulated data sets, Geweke's steps per chain and the
#: independent draws they are compared with, the invariance replicates), ``thorough``
#: four times the draws, simulations and steps; chains, SBC's draws per fit (thinned to
#: their ESS), and at ``thorough`` Geweke's independent draws and the invariance
#: replicates, stay. Geweke's independent side at ``quick`` was 4,000 draws against
#: chains a quarter as long as the default's, a third of the Welch standard error where
#: the chains' was two thirds (probit, seed 0): quartered with the chains, the test's
#: standard error is twice the default's, as the rest of ``quick``'s are (it was 1.7
#: times), for about 0.7 CPU s of a run's 10 to 20; the invariance replicates the same,
#: about 1 CPU s (docs/validating.md, "Budgets and presets"). Kept here, with
#: the defaults, rather than beside the table: pytest's plugin reads the names when it
#: loads, without importing the battery. What each costs: docs/validating.md.
BUDGET_PRESETS: dict[str, dict[str, dict[str, int]]] = {
    "quick": {
        "exact": {"draws": DRAWS // 4, "max_draws": EXACT_MAX_DRAWS // 4},
        "nuts": {"draws": DRAWS // 4},
        "sbc": {"simulations": 25},
        "geweke": {
            "iterations": GEWEKE_ITERATIONS // 4,
            "max_iterations": GEWEKE_MAX_ITERATIONS // 4,
            "marginal_draws": GEWEKE_COMPARED // 4,
        },
        "invariance": {"replicates": INVARIANCE_REPLICATES // 4},
    },
    "default": {},
    "thorough": {
        "exact": {"draws": DRAWS * 4, "max_draws": EXACT_MAX_DRAWS * 4},
        "nuts": {"draws": DRAWS * 4},
        "sbc": {"simulations": 400},
        "geweke": {
            "iterations": GEWEKE_ITERATIONS * 4,
            "max_iterations": GEWEKE_MAX_ITERATIONS * 4,
        },
    },
}

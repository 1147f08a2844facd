"""Each example's sampler agrees with its exact reference; each planted bug does not.

The verdicts are those of :func:`zoo.diagnostics.agreement`: convergence gates, then
MCSE-based z-scores of means and sds, tail probabilities at the exact 5% and 95%
quantiles and Kolmogorov-Smirnov tests, Holm over all of them at a family-wise rate of
1%. A correct sampler is therefore flagged with probability at most 1% per run; the
seeds are fixed and were not tuned. The references (``references.py``) are closed forms,
quadratures and enumerations of the model as written in the module's constants, written
by hand apart from the zoo's derivation from the graph (``tests/specification``); the
NUTS tests check them against PyMC on the module's own ``model()``, which ties the
reference to the specification.
"""

import pytest

from tests.examples.conftest import EXAMPLES, REFERENCES, model_data, reference_of
from zoo.diagnostics import agreement

BUDGET = {"draws": 1000, "chains": 4, "seed": 1}
#: The examples with a reference (the others are checked against NUTS for now).
WITH_REFERENCE = [name for name in EXAMPLES if name in REFERENCES]
BUGS = [(name, bug) for name in WITH_REFERENCE for bug in EXAMPLES[name].bug_samplers]


@pytest.fixture(scope="module")
def reference():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = reference_of(name)
        return cache[name]

    return get


@pytest.mark.parametrize("name", WITH_REFERENCE)
def test_correct_sampler_agrees_with_the_quadrature(name, reference):
    example = EXAMPLES[name]
    draws = example.sampler(model_data(example.model()), **BUDGET)
    result = agreement(draws, reference(name))
    assert result.verdict == "agree", result.failing()


@pytest.mark.parametrize(("name", "bug"), BUGS)
def test_each_planted_bug_disagrees_with_the_quadrature(name, bug, reference):
    example = EXAMPLES[name]
    draws = example.bug_samplers[bug](model_data(example.model()), **BUDGET)
    result = agreement(draws, reference(name))
    assert result.verdict == "disagree"


#: NUTS diverges in the centred eight schools' funnel; the same posterior written
#: non-centred carries ``theta`` as a Deterministic, which the reference's draws include.
NUTS_MODEL = {"eight_schools:centred_model": EXAMPLES["eight_schools:noncentred_model"].model}
#: Smaller steps where NUTS's default (0.8) leaves a few divergences: eight schools'
#: tau near 0 (even non-centred, under a half-Cauchy), the mixture's means as the labels move.
TARGET_ACCEPT = {
    "eight_schools:centred_model": 0.99,
    "eight_schools:noncentred_model": 0.99,
    "gaussian_mixture:model": 0.95,
}


#: The first three by default; the classic models' (30 s to minutes each) with -m slow.
NUTS_BY_DEFAULT = ("pump_failures:model", "semi_conjugate_normal:model", "probit_regression:model")


@pytest.mark.pymc
@pytest.mark.parametrize(
    "name",
    [
        name if name in NUTS_BY_DEFAULT else pytest.param(name, marks=pytest.mark.slow)
        for name in WITH_REFERENCE
    ],
)
def test_nuts_on_the_pymc_model_agrees_with_the_reference(name, reference):
    # deferred: PyMC takes seconds to import
    import pymc as pm

    with NUTS_MODEL.get(name, EXAMPLES[name].model)():
        tree = pm.sample(
            draws=2000,
            tune=1000,
            chains=4,
            cores=1,
            random_seed=1,
            progressbar=False,
            target_accept=TARGET_ACCEPT.get(name, 0.8),
        )
    assert int(tree["sample_stats"]["diverging"].sum()) == 0
    result = agreement(tree, reference(name))
    assert result.verdict == "agree", result.failing()

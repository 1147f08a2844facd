"""Small Gibbs-only checks for the report and saved-run tests (no PyMC, under a second).

A fixed-prior Beta-Binomial: the Gibbs draws of theta are independent, so 500 draws x
2 chains pass the ESS gates, and a wrong kernel is judged ``disagree``, not
``inconclusive``.
"""

import dataclasses

import zoo
from zoo import registry
from zoo.check import judge
from zoo.models.beta_binomial import Data, Prior
from zoo.runs.model_run import sample_model

SPEC = zoo.get("beta-binomial")
PROBLEM = (Data([3, 5, 2, 7, 4, 6], [20, 22, 18, 25, 19, 21]), Prior(a=2.0, b=8.0))
BROKEN = "beta-binomial-swapped-for-tests"


def register_broken():
    """Register a Beta-Binomial whose kernel swaps a and b; return its name."""
    if BROKEN not in registry._registered:
        zoo.register(dataclasses.replace(SPEC, name=BROKEN, kernel=SPEC.faults["swapped-a-b"]))
    return BROKEN


def unregister_broken():
    registry._registered.pop(BROKEN, None)


def gibbs_check(name="beta-binomial", *, draws=500, chains=2, seed=0):
    run = sample_model(
        name,
        draws=draws,
        tune=20,
        chains=chains,
        seed=seed,
        engines=("gibbs",),
        problem=PROBLEM,
        progress=False,
    )
    return judge(run)

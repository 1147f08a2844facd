"""CPU seconds to derive and compute the exact reference of classic linear-Gaussian models.

Issue 29 asks that deriving and computing the reference of each classic model take at
most 5 CPU seconds, and that a caller integrating a hyperparameter out (quadrature over
a noise scale, eight schools' ``tau``) can solve the compiled model many times fast.
For each model this measures, in one process after a warm-up derivation of an
unrelated small model (PyMC and PyTensor loaded, their first-use costs paid):

- ``derive``: reading the graph and compiling
  (``zoo.specification.linear_gaussian.LinearGaussian(model, fixed=...)``);
- ``solve``: one ``solve()`` after that (the posterior moments and the evidence), the
  mean of ``--solves`` calls;
- ``reference``: ``reference()``, the solve and the scipy marginals;
- ``exact_reference``: ``zoo.exact_reference(model)`` end to end (eight schools: its
  refusal, as ``tau`` is not fixed there), from a freshly built model.

Models: Bayesian linear regression with known noise (30 points, 4 coefficients), the
same with a normal-inverse-gamma prior, eight schools non-centred with ``tau`` fixed
(BDA3 section 5.5 data). CPU seconds (``time.process_time``), median over ``--rounds``
rounds, each on a freshly built model. Run from the repository root::

    nice python -m bench.exact_reference_cost [--rounds 5] [--solves 200]

The record (settings, per-model medians; host, commit, date and command added by
``bench.records``) goes to ``bench/results/exact_reference_cost/records.jsonl``.

``--examples`` instead times ``zoo.specification.exact.derive_reference`` (reading the
graph, compiling, quadrature or enumeration, every marginal) on the model of every
classic example (``bench.classic_power.EXAMPLES``) and on the two-component mixture at
16 points (2^16 labelings; once at two decimals as the example's data, once at full
precision, where no two labelings share a component), each in a fresh interpreter with
the disk cache off; one JSON line per model to
``bench/results/exact_reference_cost/examples.jsonl``::

    nice python -m bench.exact_reference_cost --examples
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import pymc as pm
import pytensor.tensor as pt

import zoo
from bench import records
from bench.classic_power import EXAMPLES
from zoo.specification.linear_gaussian import LinearGaussian

_RNG = np.random.default_rng(29)
DESIGN = _RNG.normal(size=(30, 4))
Y = DESIGN @ np.array([1.0, -0.5, 0.3, 2.0]) + 0.8 * _RNG.normal(size=30)
SCHOOLS_Y = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SCHOOLS_SD = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])


def regression_known_noise():
    with pm.Model() as model:
        x = pm.Data("X", DESIGN)
        beta = pm.Normal("beta", 0.0, 2.0, shape=4)
        pm.Normal("y", x @ beta, 0.8, observed=Y)
    return model


def regression_normal_inverse_gamma():
    with pm.Model() as model:
        x = pm.Data("X", DESIGN)
        sigma2 = pm.InverseGamma("sigma2", 3.0, 2.0)
        beta = pm.Normal("beta", 0.0, 2.0 * pt.sqrt(sigma2), shape=4)
        pm.Normal("y", x @ beta, pt.sqrt(sigma2), observed=Y)
    return model


def eight_schools():
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 5.0)
        tau = pm.HalfCauchy("tau", 5.0)
        eta = pm.Normal("eta", 0.0, 1.0, shape=8)
        theta = pm.Deterministic("theta", mu + tau * eta)
        pm.Normal("y", theta, SCHOOLS_SD, observed=SCHOOLS_Y)
    return model


#: name -> (builder, fixed variables, their values)
MODELS = {
    "regression, known noise (30 x 4)": (regression_known_noise, (), {}),
    "regression, normal-inverse-gamma (30 x 4)": (regression_normal_inverse_gamma, (), {}),
    "eight schools non-centred, tau fixed": (eight_schools, ("tau",), {"tau": 3.0}),
}


def _cpu(function):
    started = time.process_time()
    value = function()
    return time.process_time() - started, value


def measure(builder, fixed, values, solves: int) -> dict:
    derive, engine = _cpu(lambda: LinearGaussian(builder(), fixed=fixed))
    solve, _ = _cpu(lambda: [engine.solve(values) for _ in range(solves)])
    reference, _ = _cpu(lambda: engine.reference(values))
    model = builder()
    whole, result = _cpu(lambda: zoo.exact_reference(model))
    return {
        "derive": derive,
        "solve": solve / solves,
        "reference": reference,
        "exact_reference": whole,
        "exact_reference_available": bool(result.available),
    }


_EXAMPLE_CHILD = r"""
import json, sys, time, warnings
import numpy as np
warnings.simplefilter("ignore")
from zoo.specification.exact import derive_reference
name = sys.argv[1]
if name.startswith("gaussian-mixture-16"):
    from examples import gaussian_mixture
    rng = np.random.default_rng(16)
    y = np.sort(rng.normal(0.0, 0.8, 16))
    model = gaussian_mixture.model(np.round(y, 2) if name.endswith("two-decimals") else y)
else:
    from bench.classic_power import EXAMPLES
    model = EXAMPLES[name].model()
start = time.process_time()
reference = derive_reference(model)
seconds = time.process_time() - start
note = getattr(reference, "note", None) or reference.reason
print(json.dumps({"seconds": seconds, "note": note}))
"""


def examples_cost() -> None:
    """``derive_reference`` of each classic example's model, each in a fresh interpreter."""
    names = [*EXAMPLES, "gaussian-mixture-16-two-decimals", "gaussian-mixture-16-full-precision"]
    for name in names:
        found = subprocess.run(
            [sys.executable, "-c", _EXAMPLE_CHILD, name],
            cwd=records.REPOSITORY,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "ZOO_CACHE_DIR": ""},
        )
        record = records.append(
            "exact_reference_cost",
            {"model": name, **json.loads(found.stdout.strip().splitlines()[-1])},
            file="examples",
        )
        print(f"{name:<40} {record['seconds']:.2f} CPU s  {record['note'][:90]}", flush=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--solves", type=int, default=200)
    parser.add_argument("--examples", action="store_true")
    args = parser.parse_args(argv)
    if args.examples:
        examples_cost()
        return 0
    # warm-up: PyMC, PyTensor and scipy's first-use costs, on another model
    with pm.Model() as warm:
        mu = pm.Normal("mu", 0.0, 1.0)
        pm.Normal("obs", mu, 1.0, observed=[0.1, 0.2])
    zoo.exact_reference(warm)
    results = {}
    for name, (builder, fixed, values) in MODELS.items():
        rounds = [measure(builder, fixed, values, args.solves) for _ in range(args.rounds)]
        results[name] = {
            key: statistics.median(r[key] for r in rounds)
            for key in ("derive", "solve", "reference", "exact_reference")
        }
        results[name]["exact_reference_available"] = rounds[0]["exact_reference_available"]
        row = results[name]
        print(
            f"{name:<44} derive {row['derive']:.3f} s  solve {1000 * row['solve']:.2f} ms  "
            f"reference {row['reference']:.3f} s  exact_reference {row['exact_reference']:.3f} s"
        )
    record = {
        "benchmark": "exact_reference_cost",
        "python": sys.version.split()[0],
        "pymc": pm.__version__,
        "settings": {"rounds": args.rounds, "solves": args.solves, "clock": "process_time"},
        "cpu_seconds_median": results,
    }
    records.append("exact_reference_cost", record)
    print("written bench/results/exact_reference_cost/records.jsonl")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

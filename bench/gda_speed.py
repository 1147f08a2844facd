"""Gaussian classifiers: effective samples per second, collapsed Gibbs vs PyMC NUTS.

``--model gda`` (default), ``qda`` or ``gaussian-nb``, each with its default prior.
Data: 5,000 points (``--points``), 5 features, 3 classes (proportions 0.5 / 0.3 / 0.2,
means 1.5 sds apart, one correlated covariance), 30% of the labels hidden.

ESS is ArviZ's bulk and tail ESS of every scalar of ``pi``, ``mu`` and ``Sigma`` (or
``variance``: the parameters both engines share; ``class_probability`` is left out,
4,500 scalars); the figure of merit is the smallest ESS over them divided by the
sampling time. For PyMC the time excludes compilation (reported separately); for Gibbs
it includes the numba JIT of the first sweep (cached on disk after the first run).

Run: ``python -m bench.gda_speed [--model gda] [--points 5000] [--draws 1000] [--tune 1000]
[--chains 2]``.

Records: one per run in ``bench/results/gda_speed/records.jsonl`` (``--study`` another
study folder) through ``bench.records`` (host, commit, date and command inside each).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings

import numpy as np

import zoo
from bench import records
from zoo.models.gaussian_classifiers import Data

PARAMETERS = ("pi", "mu", "Sigma", "variance")


def dataset(seed: int = 0, n: int = 5000) -> Data:
    rng = np.random.default_rng(seed)
    d = 5
    means = 1.5 * np.array([[0, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 1, 1, 1, 0]], dtype=float)
    cov = 0.5 * np.eye(d) + 0.5 * np.full((d, d), 0.3) + 0.35 * np.eye(d)
    y = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    x = means[y] + rng.standard_normal((n, d)) @ np.linalg.cholesky(cov).T
    observed = y.copy()
    observed[rng.random(n) < 0.3] = -1
    return Data(x, observed, classes=["a", "b", "c"])


def efficiency(tree, seconds: float) -> dict:
    import arviz_stats as azs

    bulk, tail = [], []
    for name in PARAMETERS:
        if name not in tree.posterior:
            continue
        values = tree.posterior[name].values
        flat = values.reshape(values.shape[0], values.shape[1], -1)
        if name == "Sigma":
            # Sigma is symmetric: keep the lower triangle only.
            d = values.shape[-1]
            lower = np.zeros((d, d), dtype=bool)
            lower[np.tril_indices(d)] = True
            keep = np.broadcast_to(lower, values.shape[2:]).reshape(-1)
            flat = flat[:, :, keep]
        bulk.append(np.atleast_1d(azs.ess(flat, method="bulk")))
        tail.append(np.atleast_1d(azs.ess(flat, method="tail", prob=(0.05, 0.95))))
    bulk, tail = np.concatenate(bulk), np.concatenate(tail)
    worst = float(min(bulk.min(), tail.min()))
    return {
        "seconds": seconds,
        "min_ess": worst,
        "median_ess_bulk": float(np.median(bulk)),
        "min_ess_per_second": worst / seconds,
        "median_ess_bulk_per_second": float(np.median(bulk)) / seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="gda", choices=("gda", "qda", "gaussian-nb"))
    parser.add_argument("--points", type=int, default=5000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--study", default="gda_speed", help="folder under bench/results")
    args = parser.parse_args()
    model = zoo.get(args.model)
    data = dataset(n=args.points)
    prior = model.Prior()
    common = dict(draws=args.draws, chains=args.chains, seed=args.seed, progress=False)
    results = {"machine": platform.platform(), "model": args.model, "points": args.points}
    results.update(features=5, classes=3)
    results["unlabelled"] = int(data.unlabelled.size)

    started = time.perf_counter()
    gibbs = zoo.sample(model, data, prior, engine="gibbs", tune=min(args.tune, 200), **common)
    results["gibbs"] = efficiency(gibbs, time.perf_counter() - started)
    results["gibbs"]["tune"] = min(args.tune, 200)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        started = time.perf_counter()
        nuts = zoo.sample(model, data, prior, engine="pymc", tune=args.tune, **common)
        wall = time.perf_counter() - started
    sampling = float(nuts.posterior.attrs.get("sampling_time", wall))
    results["pymc"] = efficiency(nuts, sampling)
    results["pymc"].update(tune=args.tune, wall_seconds_with_compile=wall)
    results["speedup_min_ess_per_second"] = (
        results["gibbs"]["min_ess_per_second"] / results["pymc"]["min_ess_per_second"]
    )
    print(json.dumps(records.append(args.study, results), indent=2))


if __name__ == "__main__":
    main()

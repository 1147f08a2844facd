"""Speed of the Naive Bayes engines: Gibbs sweeps/s and ESS/s against PyMC's NUTS.

A corpus drawn from the model's prior predictive (default 2400 documents, half of them
unlabelled, 4 classes, a 100-word vocabulary, 50 words per document), sampled by the
collapsed Gibbs kernel and by NUTS on the PyMC program with the labels marginalised.
Reported per engine: wall time, sweeps (or NUTS iterations) per second per chain, and
bulk ESS per second of wall time for pi, phi and the unlabelled documents' class
probabilities (minimum over elements for pi and phi, median for class_probability,
whose elements near 0 or 1 are nearly constant).

Usage::

    python -m bench.naive_bayes_speed
    python -m bench.naive_bayes_speed --documents 4000 --event-model bernoulli --json

Records: one per run in ``bench/results/naive_bayes_speed/records.jsonl`` (what
``--json`` prints) through ``bench.records`` (host, commit, date and command inside
each). ``output.txt`` beside them is an earlier run's printed output.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import zoo
from bench import records
from zoo.models.naive_bayes import Prior, simulate


def ess_summary(tree) -> dict[str, float]:
    import arviz_stats as azs

    out = {}
    posterior = tree["posterior"]
    for name, reduce in (
        ("pi", np.nanmin),
        ("phi", np.nanmin),
        ("class_probability", np.nanmedian),
    ):
        values = posterior[name].values
        flat = values.reshape(values.shape[0], values.shape[1], -1)
        with np.errstate(invalid="ignore", divide="ignore"):
            ess = np.atleast_1d(azs.ess(flat, method="bulk"))
        out[name] = float(reduce(ess))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=2400)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument("--features", type=int, default=100)
    parser.add_argument("--length", type=int, default=50)
    parser.add_argument(
        "--event-model", choices=("multinomial", "bernoulli"), default="multinomial"
    )
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--tune", type=int, default=500)
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-pymc", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    prior = Prior(alpha=1.0, beta=0.5)
    _, data = simulate(
        prior,
        np.random.default_rng(args.seed),
        event_model=args.event_model,
        classes=args.classes,
        features=args.features,
        documents=args.documents,
        unlabelled=args.documents // 2,
        length=args.length,
    )
    spec = zoo.get("naive-bayes")
    results = {
        "corpus": {
            "documents": args.documents,
            "unlabelled": int(data.unlabelled.size),
            "classes": args.classes,
            "features": args.features,
            "event_model": args.event_model,
            "words": int(data.counts.sum()),
        },
        "settings": {"draws": args.draws, "tune": args.tune, "chains": args.chains},
    }
    # Compile the numba kernels outside the timing (cached on disk after the first run).
    zoo.sample(spec, data, prior, draws=2, tune=1, chains=1, seed=0, progress=False)
    started = time.perf_counter()
    gibbs = zoo.sample(
        spec,
        data,
        prior,
        draws=args.draws,
        tune=args.tune,
        chains=args.chains,
        seed=args.seed,
        progress=False,
    )
    wall = time.perf_counter() - started
    sweeps = args.chains * (args.draws + args.tune)
    ess = ess_summary(gibbs)
    results["gibbs"] = {
        "wall_seconds": wall,
        "sweeps_per_second": sweeps / wall,
        "ess_bulk": ess,
        "ess_per_second": {k: v / wall for k, v in ess.items()},
    }
    if not args.json:
        # Report the Gibbs figures at once: NUTS on a large corpus can take many minutes.
        g = results["gibbs"]
        corpus = results["corpus"]
        print(
            f"corpus: {corpus['documents']} documents ({corpus['unlabelled']} unlabelled), "
            f"K={corpus['classes']}, V={corpus['features']}, {corpus['words']} words, "
            f"{corpus['event_model']}; {args.chains} chains x ({args.tune} + {args.draws})",
            flush=True,
        )
        print(
            f"gibbs: {g['wall_seconds']:.1f} s, {g['sweeps_per_second']:.0f} sweeps/s "
            "(all chains), "
            + ", ".join(f"ESS/s {k} {v:.0f}" for k, v in g["ess_per_second"].items())
            + ", ESS "
            + ", ".join(f"{k} {v:.0f}" for k, v in g["ess_bulk"].items()),
            flush=True,
        )
    if not args.skip_pymc:
        started = time.perf_counter()
        pymc = zoo.sample(
            spec,
            data,
            prior,
            engine="pymc",
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=args.seed,
            progress=False,
        )
        wall = time.perf_counter() - started
        sampling = float(pymc["posterior"].attrs.get("sampling_time", np.nan))
        ess = ess_summary(pymc)
        results["pymc"] = {
            "wall_seconds": wall,
            "sampling_seconds": sampling,
            # Chains run in parallel on up to 2 cores: iterations per second per chain.
            "iterations_per_second_per_chain": (args.draws + args.tune) / sampling,
            "ess_bulk": ess,
            "ess_per_second": {k: v / wall for k, v in ess.items()},
            "ess_per_sampling_second": {k: v / sampling for k, v in ess.items()},
        }
    records.append("naive_bayes_speed", results)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    if "pymc" in results:
        p = results["pymc"]
        print(
            f"pymc:  {p['wall_seconds']:.1f} s wall ({p['sampling_seconds']:.1f} s sampling), "
            f"{p['iterations_per_second_per_chain']:.0f} iterations/s per chain, "
            + ", ".join(f"ESS/s {k} {v:.1f}" for k, v in p["ess_per_second"].items())
            + ", ESS "
            + ", ".join(f"{k} {v:.0f}" for k, v in p["ess_bulk"].items())
        )


if __name__ == "__main__":
    main()

"""CPU seconds to derive and compute the exact references of the classic outer models.

Times :func:`zoo.specification.exact.derive_reference` (reading the graph,
compiling, quadrature or enumeration, building every marginal) on the BUGS pumps
(two Gamma hyperparameters), the coal-mining change point (112 years enumerated), a
hierarchical Beta-Binomial written in PyMC (both hyperparameters; the first 20 rat
groups of BDA3 table 5.1) and a two-component Gaussian mixture with 8 latent labels
(2^8 labelings), and eight schools centred and non-centred (quadrature over ``tau``,
the linear-Gaussian engine inside), each in a fresh interpreter so that nothing is cached
between models (the mixture CDF disk cache is pointed at a fresh folder). One JSON
record per model goes to ``bench/results/exact_outer_cost/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each).
Issue 29 asks for at most 5 CPU seconds per model.

Run from the repository root::

    nice python -m bench.exact_outer_cost [--models pumps coal rats mixture schools ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

from bench import records

ROOT = records.REPOSITORY

_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from tests.support import classic_models as classic
from zoo.specification.exact import derive_reference
name = sys.argv[2]
if name == "rats":
    import csv
    lines = [l for l in open(sys.argv[1] + "/zoo/datasets/rats.csv") if not l.startswith("#")]
    rows = list(csv.DictReader(lines))
    y = np.array([int(r["tumours"]) for r in rows])[:20]
    n = np.array([int(r["rats"]) for r in rows])[:20]
    model = classic.hierarchical_beta_binomial(y, n)
else:
    builders = {
        "pumps": classic.pumps,
        "coal": classic.coal_change_point,
        "mixture": classic.two_component_mixture,
        "schools": classic.eight_schools,
        "schools-noncentred": lambda: classic.eight_schools(centred=False),
    }
    model = builders[name]()
start = time.process_time()
reference = derive_reference(model)
seconds = time.process_time() - start
note = getattr(reference, "note", None) or reference.reason
print(json.dumps({"seconds": seconds, "note": note}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--models",
        nargs="+",
        default=["pumps", "coal", "rats", "mixture", "schools", "schools-noncentred"],
    )
    args = parser.parse_args()
    for name in args.models:
        with tempfile.TemporaryDirectory() as cache:
            env = {"ZOO_CACHE_DIR": cache}
            result = subprocess.run(
                [sys.executable, "-c", _CHILD, str(ROOT), name],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, **env},
            )
        record = json.loads(result.stdout.strip().splitlines()[-1])
        record["model"] = name
        records.append("exact_outer_cost", record)
        print(f"{name}: {record['seconds']:.2f} CPU s  ({record['note']})")


if __name__ == "__main__":
    main()

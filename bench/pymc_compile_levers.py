"""What a first ``pm.sample`` costs per model, cold and warm, under each compile lever.

A first ``zoo check`` is mostly PyTensor compiling the PyMC programs. Each measurement
here is one fresh interpreter that builds a model's ``zoo check`` program and runs
``pm.sample`` for 20 + 20 iterations of one chain (so the time is compiling, not
sampling), with PyTensor's and numba's caches in a folder of its own: emptied first
(cold), then kept for a second run (warm). CPU seconds include the children (the C
backend compiles with g++ in subprocesses); the machine may be shared, so compare the
levers within one run.

Levers: ``numba`` (PyTensor 3's default backend), ``cvm`` (its C backend),
``numba-opt1`` / ``numba-opt0`` (LLVM's optimisation level lowered with ``NUMBA_OPT``),
and ``nutpie`` (``pm.sample(nuts_sampler="nutpie")``: PyMC's program, compiled by
nutpie through PyTensor's numba backend into one log-density-and-gradient function,
sampled by nutpie's NUTS; needs ``pip install nutpie``).
A Python-only linker (no compiling) took over 15 minutes to sample GDA at ``zoo
check``'s defaults and is left out.

Usage::

    python -m bench.pymc_compile_levers --models gaussian-nb gda --levers numba cvm

Records: one per model and lever in ``bench/results/pymc_compile_levers/records.jsonl``
through ``bench.records`` (host, commit, date and command inside each). ``table.md``
beside them is an earlier run's printed table with its notes.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from bench import records

_ONE_FIRST_SAMPLE = """
import sys
import pymc as pm
import zoo
import zoo.core.reproducible
model = zoo.get(sys.argv[1])
data, prior = model.default_problem()
program = model.program(data, prior)
# PyMC 6 samples with nutpie whenever it is installed unless told otherwise: every lever
# but nutpie names PyMC's own NUTS, as the zoo's driver does.
kwargs = {
    "numba": {"nuts_sampler": "pymc"},
    "cvm": {"nuts_sampler": "pymc", "compile_kwargs": {"mode": "CVM"}},
    "nutpie": {"nuts_sampler": "nutpie"},
}[sys.argv[2]]
with zoo.core.reproducible.ieee_arithmetic():
    pm.sample(draws=20, tune=20, chains=1, cores=1, progressbar=False,
              compute_convergence_checks=False, model=program, random_seed=1, **kwargs)
"""

LEVERS = {
    "numba": ("numba", {}),
    "cvm": ("cvm", {}),
    "numba-opt1": ("numba", {"NUMBA_OPT": "1"}),
    "numba-opt0": ("numba", {"NUMBA_OPT": "0"}),
    "nutpie": ("nutpie", {}),
}


def first_sample(model: str, lever: str, cache: str) -> tuple[float, float]:
    """Wall and CPU seconds (children included) of one fresh interpreter's first sample."""
    backend, extra = LEVERS[lever]
    env = {
        **os.environ,
        **extra,
        "PYTENSOR_FLAGS": f"base_compiledir={cache}/pytensor",
        "NUMBA_CACHE_DIR": f"{cache}/numba",
    }
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", _ONE_FIRST_SAMPLE, model, backend],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["gaussian-nb", "gda"])
    parser.add_argument("--levers", nargs="+", default=list(LEVERS), choices=list(LEVERS))
    args = parser.parse_args(argv)
    print("| model | lever | cold wall s | cold CPU s | warm wall s | warm CPU s |")
    print("|---|---|---|---|---|---|")
    for model in args.models:
        for lever in args.levers:
            cache = tempfile.mkdtemp(prefix="zoo-compile-")
            try:
                cold = first_sample(model, lever, cache)
                warm = first_sample(model, lever, cache)
            finally:
                shutil.rmtree(cache, ignore_errors=True)
            records.append(
                "pymc_compile_levers",
                {
                    "model": model,
                    "lever": lever,
                    "cold": {"wall_seconds": cold[0], "cpu_seconds": cold[1]},
                    "warm": {"wall_seconds": warm[0], "cpu_seconds": warm[1]},
                },
            )
            print(
                f"| {model} | {lever} | {cold[0]:.1f} | {cold[1]:.1f} | "
                f"{warm[0]:.1f} | {warm[1]:.1f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()

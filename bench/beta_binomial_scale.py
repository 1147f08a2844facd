"""Hierarchical Beta-Binomial at large trial counts: reference and Gibbs cost, before and after.

Data at each scale ``n``: 20 groups, ``n_j = round(n U_j)`` with ``U_j ~ Uniform(0.5,
1.5)``, ``theta_j ~ Beta(10, 90)`` (success rates near 0.1, spread between groups as in
A/B tests of many variants) and ``y_j ~ Binomial(n_j, theta_j)``; with ``--homogeneous``
also a second data set whose groups share ``theta = 0.1`` (the posterior of
``log(a / b)`` then has an sd near ``1 / sqrt(0.09 sum n_j)``, 2.6e-5 at 1e9, and that
of ``log(a + b)`` a heavy right tail): the case that tests how the quadrature adapts.
One generator seed for all.

Each measurement runs in a fresh subprocess, after a warm-up on a small data set (numba
compilation and imports are not counted):

- reference: seconds of ``posterior(data, Prior())``, the peak of ``tracemalloc`` during
  that call (every NumPy allocation) and the process's peak resident set size
  (``resource.getrusage``, imports included);
- Gibbs: ``kernel.init``, 20 untimed sweeps, then seconds per sweep over ``--sweeps``
  sweeps of ``kernel.step``, and the peak RSS.

"before" runs the code of a git revision (``--before``, default the last commit
before the bounded-cost likelihood), extracted with ``git archive`` into a temporary
folder laid out as the installed package; "after" runs this checkout. The old
likelihood tables hold ``3 max(n_j)`` float64 numbers (24 GB at ``n = 1e9``), so the
old form is not run at 1e9 (``--before-scales``), and its reference, which evaluates
that ``O(max n_j)`` likelihood at some 30,000 quadrature nodes (529 s at 1e6 on one
core, as reported before 0.2), only where ``--before-reference-scales`` says.

Run: ``python -m bench.beta_binomial_scale [--scales 1e3 1e6 1e9] [--before-scales 1e3
1e6] [--before-reference-scales 1e3] [--sweeps 200] [--homogeneous]``.

Records: one per measurement in ``bench/results/beta_binomial_scale/records.jsonl``
through ``bench.records`` (host, commit, date and command inside each, and ``before``,
the revision of the old form); ``python -m bench.tables`` writes the table of the latest
run to ``table.md`` beside them. The first run's records say ``machine`` instead of a
host: its processor was not recorded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from bench import records as bench_records

ROOT = bench_records.REPOSITORY
STUDY = "beta_binomial_scale"
BEFORE = "a448c46"

CHILD = r"""
import json, resource, sys, time, tracemalloc
import numpy as np
import zoo
from zoo.models.beta_binomial import Data, Prior, kernel, posterior

what, scale, kind, sweeps = sys.argv[1], float(sys.argv[2]), sys.argv[3], int(sys.argv[4])
rng = np.random.default_rng(20260503)
trials = np.round(scale * rng.uniform(0.5, 1.5, 20)).astype(np.int64)
theta = rng.beta(10.0, 90.0, 20) if kind == "spread" else np.full(20, 0.1)
successes = rng.binomial(trials, theta)
data, prior = Data(successes, trials), Prior()
warm = Data([3, 9, 5], [20, 25, 30])
record = {"what": what, "scale": scale, "kind": kind, "zoo": zoo.__file__,
          "max_trials": int(trials.max())}

def max_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kB on Linux

if what == "reference":
    posterior(warm, prior)
    record["rss_before_bytes"] = max_rss()
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    reference = posterior(data, prior)
    record["seconds"] = time.perf_counter() - start
    record["cpu_seconds"] = time.process_time() - cpu
    record["tracemalloc_peak_bytes"] = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    record["max_rss_bytes"] = max_rss()
    for name in ("logit_mean", "log_concentration"):
        record[name] = [float(reference[name].mean), float(reference[name].sd)]
    record["theta_0"] = [float(reference["theta"].mean[0]), float(reference["theta"].sd[0])]
    record["quadrature_error"] = float(reference.quadrature_error)
    record["note"] = reference.note
else:
    generator = np.random.default_rng(1)
    state = kernel.init(warm, prior, generator)
    for _ in range(5):
        state = kernel.step(state, warm, prior, generator)
    record["rss_before_bytes"] = max_rss()
    state = kernel.init(data, prior, generator)
    for _ in range(20):
        state = kernel.step(state, data, prior, generator)
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(sweeps):
        state = kernel.step(state, data, prior, generator)
    record["seconds_per_sweep"] = (time.perf_counter() - start) / sweeps
    record["cpu_seconds_per_sweep"] = (time.process_time() - cpu) / sweeps
    record["sweeps"] = sweeps
    record["max_rss_bytes"] = max_rss()
print(json.dumps(record))
"""


def _extract(revision: str, folder: Path) -> Path:
    """The zoo at ``revision``, laid out as installed (models/ and diagnostics/ inside zoo/)."""
    archive = folder / "source.tar"
    with archive.open("wb") as out:
        subprocess.run(
            ["git", "archive", revision, "zoo", "models", "diagnostics"],
            cwd=ROOT,
            stdout=out,
            check=True,
        )
    source = folder / "source"
    with tarfile.open(archive) as tar:
        tar.extractall(source, filter="data")
    package = folder / "site" / "zoo"
    package.parent.mkdir()
    (source / "zoo").rename(package)
    (source / "models").rename(package / "models")
    (source / "diagnostics").rename(package / "diagnostics")
    return folder / "site"


def _run(what, scale, kind, sweeps, path) -> dict:
    env = dict(os.environ)
    if path is not None:
        env["PYTHONPATH"] = str(path)
    done = subprocess.run(
        [sys.executable, "-c", CHILD, what, str(scale), kind, str(sweeps)],
        env=env,
        cwd=path or ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{what} at {scale:g} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _table(records) -> str:
    def find(form, what, scale, kind):
        return next(
            (
                r
                for r in records
                if (r["form"], r["what"], r["scale"], r["kind"]) == (form, what, scale, kind)
            ),
            None,
        )

    lines = [
        "| data | n | form | reference s (CPU s) | reference peak MB (tracemalloc) | "
        "reference max RSS MB | Gibbs ms / sweep (CPU ms) | Gibbs max RSS MB | "
        "log(a/b) mean, sd | log(a+b) mean, sd |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    scales = sorted({r["scale"] for r in records})
    kinds = sorted({r["kind"] for r in records}, reverse=True)
    for kind in kinds:
        for scale in scales:
            for form in ("before", "after"):
                ref = find(form, "reference", scale, kind)
                gibbs = find(form, "gibbs", scale, kind)
                if ref is None and gibbs is None:
                    lines.append(
                        f"| {kind} | {scale:.0e} | {form} | not run (tables of "
                        f"{3 * 1.5 * scale * 8 / 1e9:.0f} GB) | | | | | | |"
                    )
                    continue
                cells = [kind, f"{scale:.0e}", form]
                cells += _cells(
                    ref,
                    ["not run", "", ""],
                    lambda r: f"{r['seconds']:.2f} ({r['cpu_seconds']:.2f})",
                    lambda r: f"{r['tracemalloc_peak_bytes'] / 1e6:.0f}",
                    lambda r: f"{r['max_rss_bytes'] / 1e6:.0f}",
                )
                cells += _cells(
                    gibbs,
                    ["", ""],
                    lambda g: (
                        f"{1e3 * g['seconds_per_sweep']:.3f} "
                        f"({1e3 * g['cpu_seconds_per_sweep']:.3f})"
                    ),
                    lambda g: f"{g['max_rss_bytes'] / 1e6:.0f}",
                )
                cells += _cells(
                    ref,
                    ["", ""],
                    lambda r: f"{r['logit_mean'][0]:.6f}, {r['logit_mean'][1]:.3g}",
                    lambda r: f"{r['log_concentration'][0]:.4f}, {r['log_concentration'][1]:.4f}",
                )
                lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _cells(record, missing, *formats):
    """Table cells of one measurement, or ``missing`` when it was not made."""
    return list(missing) if record is None else [cell(record) for cell in formats]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", type=float, nargs="+", default=[1e3, 1e6, 1e9])
    parser.add_argument("--before-scales", type=float, nargs="*", default=[1e3, 1e6])
    parser.add_argument(
        "--before-reference-scales",
        type=float,
        nargs="*",
        default=[1e3],
        help="scales at which the old reference runs too (529 s at 1e6 on one core)",
    )
    parser.add_argument("--before", default=BEFORE, help="git revision of the old form")
    parser.add_argument("--sweeps", type=int, default=200)
    parser.add_argument("--homogeneous", action="store_true")
    args = parser.parse_args(argv)
    kinds = ["spread", "homogeneous"] if args.homogeneous else ["spread"]
    with tempfile.TemporaryDirectory() as folder:
        old = _extract(args.before, Path(folder))
        for kind in kinds:
            for scale in args.scales:
                forms = [("after", None)]
                if scale in args.before_scales:
                    forms.insert(0, ("before", old))
                for form, path in forms:
                    for what in ("gibbs", "reference"):
                        if form == "before" and what == "reference":
                            if scale not in args.before_reference_scales:
                                continue
                        record = _run(what, scale, kind, args.sweeps, path)
                        record.update(form=form, before=args.before)
                        print(json.dumps(bench_records.append(STUDY, record)), flush=True)
    print(table(bench_records.read(STUDY)))


def table(records: list[dict]) -> str:
    """The markdown of the latest run's records (those of its date)."""
    latest = [r for r in records if r.get("date") == records[-1].get("date")]
    first = latest[0]
    if "machine" in first:
        machine = first["machine"]
    else:
        machine = f"{first['host']['cpu']}, {first['host']['cores']} cores"
    return (
        "# Hierarchical Beta-Binomial at large trial counts\n\n"
        f"`{first['command']}` ({machine}; before = `{first['before']}`, the tail-count "
        "tables; after = this checkout). 20 groups; `spread`: theta_j ~ Beta(10, 90); "
        "`homogeneous`: theta_j = 0.1. Wall seconds (CPU seconds of the process in "
        "parentheses), measured while other jobs shared the machine. Peak MB: "
        "tracemalloc during the reference call; max RSS: the whole process "
        "(interpreter, NumPy, SciPy, numba included).\n\n" + _table(latest) + "\n"
    )


if __name__ == "__main__":
    main()

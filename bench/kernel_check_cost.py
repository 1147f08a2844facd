"""CPU seconds of one Geweke chain per model, this tree against an earlier commit, same run.

Geweke's test (4 chains of 10,000 steps, each a sweep, a parameter draw, the test
functions and a fresh data set) and the invariance check are the part of ``zoo
validate`` that runs the kernel one step at a time, where Python's per-call overhead is
the cost. This times ``zoo.diagnostics.geweke.chain_side`` (chain 0, seed 0, ``--steps``
steps after a 100-step warm-up that loads the compiled code) per model, in a fresh
interpreter per (version, model, round), the versions interleaved round by round
because CPU time itself varies on a shared machine. The earlier version is checked out
into a temporary git worktree and imported from there. Each version's test-function
values are printed as a checksum: equal draws give sums equal to rounding (the
log-likelihood may be summed in another order).

Run from the repository root::

    python -m bench.kernel_check_cost --before COMMIT [--models qda gda] [--rounds 3]

Records: one per model and run in ``bench/results/kernel_check_cost/records.jsonl``
(every round's CPU seconds of both versions and their checksums) through
``bench.records`` (host, commit, date and command inside each; ``commit`` is the
"after"). ``table.md`` beside them is an earlier run's printed table.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from bench import records

ROOT = records.REPOSITORY

# Run in the child: import the zoo from ``root`` (its own zoo/, with models/ and
# diagnostics/ mounted inside as the installed package has them), time one chain.
_CHILD = r"""
import json, os, sys, tempfile, time
root, name, steps = sys.argv[1], sys.argv[2], int(sys.argv[3])
if root:
    # Drop the editable install's finder: it maps zoo.models to this checkout's models/.
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    package = tempfile.mkdtemp(prefix="zoo-before-")
    import shutil
    shutil.copytree(os.path.join(root, "zoo"), os.path.join(package, "zoo"), symlinks=True)
    for part in ("models", "diagnostics"):
        os.symlink(os.path.join(root, part), os.path.join(package, "zoo", part))
    sys.path.insert(0, package)
import zoo
from zoo.diagnostics.geweke import chain_side
from zoo.registry import get
model = get(name)
chain_side(model, chain=0, iterations=100, seed=0)
started = time.process_time()
values = chain_side(model, chain=0, iterations=steps, seed=0).values
seconds = time.process_time() - started
print(json.dumps({"file": zoo.__file__, "seconds": seconds, "checksum": float(values.sum())}))
"""


def _one(root: str, model: str, steps: int) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, root, model, str(steps)],
        check=True,
        capture_output=True,
        text=True,
        cwd=tempfile.gettempdir(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", required=True, help="the earlier commit")
    parser.add_argument(
        "--models",
        nargs="+",
        default=["beta-binomial", "naive-bayes", "gda", "qda", "gaussian-nb", "lda"],
    )
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    worktree = Path(tempfile.mkdtemp(prefix="zoo-worktree-")) / "before"
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(worktree), args.before],
        check=True,
    )
    try:
        print(f"CPU seconds of one Geweke chain of {args.steps} steps (chain 0, seed 0)")
        print("| model | before s | after s | after / before | checksums (before, after) |")
        print("|---|---|---|---|---|")
        for model in args.models:
            times = {"before": [], "after": []}
            sums = {}
            for _ in range(args.rounds):
                for version, root in (("before", str(worktree)), ("after", "")):
                    result = _one(root, model, args.steps)
                    times[version].append(result["seconds"])
                    sums[version] = result["checksum"]
            before, after = (statistics.median(times[v]) for v in ("before", "after"))
            records.append(
                "kernel_check_cost",
                {
                    "model": model,
                    "before": args.before,
                    "steps": args.steps,
                    "cpu_seconds": times,
                    "checksums": sums,
                },
            )
            print(
                f"| {model} | {before:.2f} | {after:.2f} | {after / before:.2f} | "
                f"{sums['before']:.10g}, {sums['after']:.10g} |",
                flush=True,
            )
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(worktree)], check=False
        )


if __name__ == "__main__":
    main()

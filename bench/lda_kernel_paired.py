"""The exact LDA sparse sweep against its own version at an earlier commit, same states.

A change to the sparse kernel (``zoo.models.lda.sweeps``) is timed against the kernel it
replaces in the same process: ``--before COMMIT``'s ``models/lda/sweeps.py`` is read
with ``git show`` into a temporary module (importing the rest of the zoo from the
working tree) and its production kernel compiled beside the working tree's. Then, as in
``bench/lda_prefetch.py``, ``--burn`` sweeps from random topics (seed 0), and
``--rounds`` rounds each timing one sweep of each kernel from copies of that state with
the same generator seed, its uniforms stepped inline as ``sweeps.sweep`` draws them
(records before 2026-11-27, without a ``uniforms`` field, timed the kernel compiled for
the Generator's portable path instead, which ``sweep`` never runs), alternating; the
study stops unless both leave the same state bit for bit (a change that only regroups
sums may differ where a uniform falls within rounding of a boundary between two topics:
about 1e-16 relative, so a difference would almost surely be a mistake). Prints the
medians in million tokens per CPU second, their ratio, and the share of tokens whose
word the working tree's kernel walks by row.

    python -m bench.lda_kernel_paired --before 32a88c6 --corpus zipf --burn 10 \\
        --topics 20 100 --rounds 5
    python -m bench.lda_kernel_paired --before 32a88c6 --corpus reuters --burn 30 \\
        --topics 20 100 1000 --rounds 5

Records: one per corpus and K in ``bench/results/lda_kernel_paired/records.jsonl``
(every round's rate, the commit compared with) through ``bench.records``;
``python -m bench.tables`` writes ``table.md`` beside them.
"""

from __future__ import annotations

import importlib.util
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from bench.lda_prefetch import paired_study
from bench.lda_row_walk import record_pair
from zoo.models.lda import sweeps

#: The kernel's source, relative to the repository's root.
SWEEPS_SOURCE = "models/lda/sweeps.py"


def kernel_at(commit: str, folder: Path):
    """The production sparse kernel of ``SWEEPS_SOURCE`` as it was at ``commit``."""
    source = subprocess.run(
        ["git", "show", f"{commit}:{SWEEPS_SOURCE}"],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(__file__).resolve().parent.parent,
    ).stdout
    # A file of its own, so that numba can cache the old kernel beside it.
    path = folder / f"sweeps_{commit}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(f"sweeps_{commit}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._SPARSE_KERNELS[module.Fault.NONE]


def summary(runs: list[dict]) -> str:
    """The markdown table of the records ``runs``: one row per run."""
    lines = [
        "# The sparse sweep against its earlier version, paired sweeps from the same states",
        "",
        "Million tokens per CPU second, median of the rounds (`bench/lda_kernel_paired.py`); "
        "every round left both kernels' states equal bit for bit. Uniforms: `pcg64-inline`, "
        "as `sweep` draws them; `Generator`, the portable path `sweep` never runs (the "
        "records before 2026-11-27).",
        "",
        "| date | commit | before | corpus | K | burn | rounds | uniforms | row walk from | "
        "tokens walked by row | before | after | after / before |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for run in runs:
        rates = run["mtokens_per_cpu_second"]
        before, after = (float(np.median(rates[k])) for k in ("before", "after"))
        lines.append(
            f"| {run['date']} | {run['commit'][:7]}{' (dirty)' if run['dirty'] else ''} | "
            f"{run['before']} | {run['corpus']} | {run['topics']:,} | {run['burn']} | "
            f"{len(rates['after'])} | {run.get('uniforms', 'Generator')} | "
            f"{run['row_walk_eighths']}/8 of K | "
            f"{run['tokens_walked_by_row']:.0%} | {before:.2f} | {after:.2f} | "
            f"{after / before:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    def options(parser):
        parser.add_argument("--before", required=True, help="the commit to compare with")

    args, started = paired_study(__doc__.splitlines()[0], burn=10, rounds=5, options=options)
    with tempfile.TemporaryDirectory() as folder:
        kernels = {False: kernel_at(args.before, Path(folder)), True: sweeps._SPARSE_KERNELS[0]}
        for n_topics, zoo in started:
            record_pair(
                "lda_kernel_paired",
                args,
                n_topics,
                zoo,
                kernels,
                change="the change",
                names=("before", "after"),
                labels=(args.before, "now"),
                extra={"before": args.before},
            )


if __name__ == "__main__":
    main()

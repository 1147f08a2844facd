"""Nanoseconds per uniform: the LDA kernels' PCG64 stepped inline against numba's rng.random().

``zoo.models.lda.uniforms`` gives the kernels NumPy's own PCG64 numbers without calling
into the bit generator. This times ``draw_uniforms`` (``--size`` uniforms into a buffer
that stays in cache, ``--rounds`` times, CPU seconds) for both sources, one draw at a
time and in one run, and checks that both give ``Generator.random``'s numbers.

    python -m bench.lda_uniforms

Records: one per way and source in ``bench/results/lda_uniforms/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from bench import records
from bench.host import cpu_name
from zoo.models.lda.uniforms import draw_uniforms, pcg64_state


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=200)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    sources = {"PCG64 inline": pcg64_state(rng), "rng.random()": rng}
    for one_at_a_time in (True, False):
        for source in sources.values():
            draw_uniforms(source, 10, one_at_a_time)  # compile outside the timing
    expected = np.random.default_rng(1).random(1_000)
    for source in (pcg64_state(np.random.default_rng(1)), np.random.default_rng(1)):
        if not np.array_equal(draw_uniforms(source, 1_000, True), expected):
            raise SystemExit("a source drew other numbers than Generator.random")
    print(f"# CPU {cpu_name()}; {args.rounds} x {args.size} uniforms; both sources draw "
          "Generator.random's numbers")  # fmt: skip
    for one_at_a_time in (True, False):
        how = "uniform() per draw" if one_at_a_time else "fill_uniforms() run"
        for name, source in sources.items():
            started = time.process_time()
            for _ in range(args.rounds):
                draw_uniforms(source, args.size, one_at_a_time)
            seconds = time.process_time() - started
            nanoseconds = seconds / (args.rounds * args.size) * 1e9
            print(f"{how:20s} {name:13s} {nanoseconds:.2f} ns")
            records.append(
                "lda_uniforms",
                {
                    "how": how,
                    "source": name,
                    "rounds": args.rounds,
                    "size": args.size,
                    "ns_per_uniform": nanoseconds,
                },
            )


if __name__ == "__main__":
    main()

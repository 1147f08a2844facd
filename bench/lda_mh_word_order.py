"""The Metropolis-Hastings LDA sweep against an earlier version of itself, same run.

Loads ``models/lda/metropolis.py`` as it was at ``--before`` (a git commit) beside the
current one, and times each on the 10M-token Zipf corpus of ``bench/lda_speed.py``:
``--repeats`` rounds, the two versions interleaved, each round a fresh chain from the
same random topics, a compile call on its first 1,000 tokens, then ``--sweeps`` timed
sweeps. Prints Mtokens per CPU second per version and round, and whether the two
versions drew the same topics. Written for the change that keeps the topics in word
order as well (bench/README.md: before = the commit before it), which draws the same
topics; used again for the batch of uniforms drawn ahead (before = 41567eb), which
consumes the generator differently and so draws other topics.

Run: ``python -m bench.lda_mh_word_order --before COMMIT [--topics 100 1000]
[--sweeps 2] [--repeats 2]`` from the repository root.

Records: one per K and round in ``bench/results/lda_mh_word_order/records.jsonl`` through
``bench.records`` (host, commit, date and command inside each; ``before`` the earlier
commit).
"""

from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from bench import records
from bench.lda_contenders import hyper, zipf_corpus
from zoo.models.lda import counts, metropolis


def _load_version(commit: str):
    """``models/lda/metropolis.py`` at ``commit``, imported as a module of its own."""
    source = subprocess.run(
        ["git", "show", f"{commit}:models/lda/metropolis.py"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    folder = Path(tempfile.mkdtemp(prefix="zoo-mh-"))
    path = folder / f"metropolis_{commit}.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[path.stem] = module
    spec.loader.exec_module(module)
    return module


def _time(module, corpus, n_topics, sweeps):
    rng = np.random.default_rng(1)
    topic = rng.integers(0, n_topics, corpus.n_tokens).astype(counts.topic_dtype(n_topics))
    state = counts.build_state(corpus.corpus, topic, n_topics=n_topics, n_words=corpus.n_words)
    words = module.build_word_tokens(corpus.corpus, corpus.n_words)
    prior = hyper(n_topics, corpus.n_words)
    module.metropolis_sweep(corpus.corpus, state, prior, rng, word_tokens=words, tokens=(0, 1000))
    started = time.process_time()
    module.metropolis_sweep(corpus.corpus, state, prior, rng, word_tokens=words, sweeps=sweeps)
    seconds = time.process_time() - started
    return sweeps * corpus.n_tokens / seconds / 1e6, state.topic


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="git commit of the earlier version")
    parser.add_argument("--topics", type=int, nargs="+", default=[100, 1000])
    parser.add_argument("--sweeps", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    before = _load_version(args.before)
    corpus = zipf_corpus()
    for n_topics in args.topics:
        for repeat in range(args.repeats):
            old, old_topic = _time(before, corpus, n_topics, args.sweeps)
            new, new_topic = _time(metropolis, corpus, n_topics, args.sweeps)
            same = bool(np.array_equal(old_topic, new_topic))
            records.append(
                "lda_mh_word_order",
                {
                    "before": args.before,
                    "topics": n_topics,
                    "round": repeat + 1,
                    "sweeps": args.sweeps,
                    "mtokens_per_cpu_second": {"before": old, "after": new},
                    "same_topics": same,
                },
            )
            print(
                f"K = {n_topics}, round {repeat + 1}: before {old:.2f}, after {new:.2f} "
                f"Mtokens per CPU s; same topics: {same}",
                flush=True,
            )


if __name__ == "__main__":
    main()

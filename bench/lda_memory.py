"""LDA collapsed Gibbs: peak memory for a 10-million-token corpus.

Synthetic corpus: V = 50,000 words with Zipf frequencies (p_w ∝ 1 / rank, as in text;
Zipf, "Human behavior and the principle of least effort", 1949), D = 20,000 documents
whose lengths are multinomial with equal cells (about 500 tokens each), exactly
N = 10,000,000 tokens; K = 100 topics, alpha = 0.1, beta = 0.01.

The parent writes the corpus to ``.npy`` files; a fresh subprocess imports the zoo,
loads the corpus, and then runs init (random topics, ``counts.build_state``,
``sweeps.build_word_lists``) and ``--sweeps`` sweeps of ``sweeps.sweep``. The subprocess reports,
after each stage, the peak resident set size (``resource.getrusage`` ``ru_maxrss``),
the peak of ``tracemalloc`` (which sees every NumPy allocation), and the ``nbytes`` and
dtype of each array of the sampler state. Bytes per token are the growth of each peak
over the memory in use after imports and compilation (interpreter, NumPy, numba: not
the sampler's).

Run: ``python -m bench.lda_memory [--tokens 10000000] [--sweeps 3]``.

Records: ``bench/results/lda_memory/records.jsonl``, one per run, through
``bench.records`` (host, commit, date and command inside each); ``python -m
bench.tables`` writes the latest run's table to ``table.md`` beside them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench import records
from zoo.models.lda.counts import count_dtype, word_frequency

CHILD = r"""
import json, resource, sys, time, tracemalloc
tracemalloc.start()
import numpy as np
from zoo.models.lda import counts, sweeps
from zoo.models.lda.corpus import Corpus

folder, n_topics, n_sweeps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
doc_dtype, word_dtype = np.dtype(sys.argv[4]), np.dtype(sys.argv[5])
stages = []

def stage(name, **extra):
    # ru_maxrss is in kilobytes on Linux.
    stages.append({
        "stage": name,
        "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
        "tracemalloc_current_bytes": tracemalloc.get_traced_memory()[0],
        "tracemalloc_peak_bytes": tracemalloc.get_traced_memory()[1],
        **extra,
    })

# Compile (or load from numba's cache) for the run's dtypes on a toy corpus first, so
# that the compiler's memory is part of the baseline, not of the sampler.
toy = Corpus(np.array([0, 1, 1], dtype=np.int32), np.array([0, 2, 3], dtype=np.int64))
toy_topic = np.zeros(3, dtype=counts.topic_dtype(n_topics))
toy_state = counts.build_state(toy, toy_topic, n_topics=n_topics, n_words=2)
toy_state = toy_state._replace(doc_topic=toy_state.doc_topic.astype(doc_dtype),
                               word_topic=toy_state.word_topic.astype(word_dtype))
sweeps.sweep(toy, toy_state, (np.full(n_topics, 0.1), np.full(2, 0.01), 0.02),
             np.random.default_rng(0), word_lists=sweeps.build_word_lists(toy_state.word_topic))
tracemalloc.reset_peak()
stage("imports and compilation")

corpus = Corpus(np.load(f"{folder}/token_word.npy"), np.load(f"{folder}/doc_start.npy"))
n_words = int(np.load(f"{folder}/n_words.npy"))
stage("corpus loaded")

rng = np.random.default_rng(0)
topic = rng.integers(0, n_topics, corpus.token_word.shape[0], dtype=counts.topic_dtype(n_topics))
state = counts.build_state(corpus, topic, n_topics=n_topics, n_words=n_words)
word_lists = sweeps.build_word_lists(state.word_topic)
alpha = np.full(n_topics, 0.1)
beta = np.full(n_words, 0.01)
stage("init")

seconds = []
for _ in range(n_sweeps):
    start = time.perf_counter()
    sweeps.sweep(corpus, state, (alpha, beta, float(beta.sum())), rng, word_lists=word_lists)
    seconds.append(time.perf_counter() - start)
stage("sweeps", sweep_seconds=seconds)

arrays = {**corpus._asdict(), **state._asdict(), "alpha": alpha, "beta": beta}
arrays.update({f"word_lists.{name}": value for name, value in word_lists._asdict().items()})
print(json.dumps({
    "stages": stages,
    "arrays": {name: {"dtype": str(a.dtype), "shape": list(a.shape), "nbytes": int(a.nbytes)}
               for name, a in arrays.items()},
}))
"""


def write_corpus(folder: Path, n_tokens: int, n_words: int, n_docs: int, seed: int):
    rng = np.random.default_rng(seed)
    cdf = np.cumsum(1.0 / np.arange(1, n_words + 1))
    cdf /= cdf[-1]
    token_word = np.empty(n_tokens, dtype=np.int32)
    chunk = 1_000_000  # bounded temporaries while drawing
    for lo in range(0, n_tokens, chunk):
        hi = min(lo + chunk, n_tokens)
        # min() guards the last cell against cdf[-1] rounding below 1.
        token_word[lo:hi] = np.minimum(np.searchsorted(cdf, rng.random(hi - lo)), n_words - 1)
    lengths = rng.multinomial(n_tokens, np.full(n_docs, 1.0 / n_docs))
    doc_start = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(lengths, out=doc_start[1:])
    np.save(folder / "token_word.npy", token_word)
    np.save(folder / "doc_start.npy", doc_start)
    np.save(folder / "n_words.npy", np.array(n_words))
    # The count dtypes build_state will choose, so the child can compile for them.
    longest = int(lengths.max())
    most_frequent = int(word_frequency(token_word, n_words).max())
    return str(count_dtype(longest)), str(count_dtype(most_frequent))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=10_000_000)
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--sweeps", type=int, default=3)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        dtypes = write_corpus(Path(folder), args.tokens, args.words, args.docs, seed=0)
        done = subprocess.run(
            [sys.executable, "-c", CHILD, folder, str(args.topics), str(args.sweeps), *dtypes],
            capture_output=True,
            text=True,
            check=True,
        )
    report = json.loads(done.stdout.strip().splitlines()[-1])
    report["args"] = vars(args)
    base = report["stages"][0]
    for row in report["stages"]:
        row["rss_growth_per_token"] = (row["max_rss_bytes"] - base["max_rss_bytes"]) / args.tokens
        row["tracemalloc_growth_per_token"] = (
            row["tracemalloc_peak_bytes"] - base["tracemalloc_current_bytes"]
        ) / args.tokens
    state_bytes = sum(a["nbytes"] for a in report["arrays"].values())
    report["state_bytes"] = state_bytes
    report["state_bytes_per_token"] = state_bytes / args.tokens
    records.append("lda_memory", report)
    print(table(report))


def table(report: dict) -> str:
    """The markdown of one run's record."""
    args = argparse.Namespace(**report["args"])
    state_bytes = report["state_bytes"]
    lines = [
        f"# LDA memory: {args.tokens:,} tokens, V = {args.words:,} (Zipf), "
        f"D = {args.docs:,}, K = {args.topics}",
        "",
        "| stage | peak RSS (MB) | RSS growth, B/token | tracemalloc peak (MB) "
        "| tracemalloc growth, B/token |",
        "|---|---|---|---|---|",
    ]
    for row in report["stages"]:
        lines.append(
            f"| {row['stage']} | {row['max_rss_bytes'] / 1e6:.0f} "
            f"| {row['rss_growth_per_token']:.2f} | {row['tracemalloc_peak_bytes'] / 1e6:.0f} "
            f"| {row['tracemalloc_growth_per_token']:.2f} |"
        )
    lines += [
        "",
        f"Sampler state: {state_bytes / 1e6:.1f} MB = "
        f"{report['state_bytes_per_token']:.2f} bytes per token. Sweep seconds: "
        + ", ".join(f"{s:.2f}" for s in report["stages"][-1]["sweep_seconds"]),
        "",
        "| array | dtype | shape | MB |",
        "|---|---|---|---|",
    ]
    for name, a in report["arrays"].items():
        lines.append(f"| {name} | {a['dtype']} | {tuple(a['shape'])} | {a['nbytes'] / 1e6:.2f} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()

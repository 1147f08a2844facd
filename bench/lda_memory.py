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

Against the other samplers (``--corpus``)
-----------------------------------------
With ``--corpus reuters|zipf-1m|zipf`` (``bench/lda_contenders.py``'s corpora) the study
compares contenders instead: for each K, each of ``--contenders`` (default ``zoo``, the
Gibbs sweep, ``zoo-mh``, the Metropolis-Hastings sweep, and ``tomotopy`` on one worker)
runs in a fresh process of its own, built as the time-to-quality study builds it
(``bench.lda_contenders``), then ``--sweeps`` sweeps. The method, the same for every
contender:

1. imports, then a warm-up on a toy corpus with the same K (for the zoo's samplers a
   corpus whose longest document and most frequent word give the real corpus's count
   dtypes, so that numba loads or compiles the very kernels the run uses; for tomotopy
   one trained sweep, which starts its thread pool), discarded; for tomotopy the word
   strings it is fed (``lda_contenders.vocabulary``) are built here too, as input, not
   its model;
2. ``gc.collect()`` and glibc's ``malloc_trim(0)``; the baseline is the resident set
   size now (``VmRSS`` of ``/proc/self/status``), and the peak is reset to it (writing
   ``5`` to ``/proc/self/clear_refs``, Linux 4.0 on);
3. the model is built: the zoo's samplers load the corpus arrays (token words int32,
   document starts int64: the corpus they sample, counted as theirs) and build their
   state; tomotopy gets each document's words as strings, read one document at a time
   from the file, so that no copy of the corpus but its own is ever resident;
4. ``--sweeps`` sweeps.

Bytes per token are (peak resident set size after the sweeps, ``VmHWM``) minus the
baseline, over the corpus's tokens: everything the sampler held at its largest, corpus,
state, word index, buffers and allocator slack, the same way for C++ and for NumPy
(``tracemalloc`` does not see tomotopy's allocations, so it is not used here). The
resident size after the sweeps and, for the zoo's samplers, the ``nbytes`` of their
arrays are recorded beside it.

    python -m bench.lda_memory --corpus reuters --topics 20 100 1000 10000
    python -m bench.lda_memory --corpus zipf-1m --topics 20 100 1000 10000
    python -m bench.lda_memory --corpus zipf --topics 20 100 1000

Records: one per corpus and K, every contender's figures in it, in
``bench/results/lda_memory/contenders.jsonl``; ``python -m bench.tables`` writes
``contenders.md`` beside them.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from bench import records
from bench.lda_contenders import CONTENDERS, BenchCorpus, load_corpus, vocabulary
from zoo.models.lda.counts import count_dtype, word_frequency

#: The contenders ``--corpus`` compares by default: the zoo's two exact sweeps, tomotopy.
DEFAULT_CONTENDERS = ("zoo", "zoo-mh", "tomotopy")

#: The records of the comparison, a file of their own in the study's folder.
CONTENDERS_FILE = "contenders"

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


def resident() -> dict:
    """The resident set size now and its peak since the last reset, in bytes (Linux)."""
    sizes = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                sizes[key] = int(value.split()[0]) * 1024  # given in kB
    return {"rss_bytes": sizes["VmRSS"], "peak_rss_bytes": sizes["VmHWM"]}


def reset_peak() -> dict:
    """Free what can be freed, reset the peak resident size to the current one; return it."""
    gc.collect()
    # Hand freed heap pages back to the kernel, so that the baseline counts no slack
    # left by the warm-up (glibc; a no-op where there is nothing to trim).
    ctypes.CDLL("libc.so.6").malloc_trim(0)
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")  # proc(5): reset the peak RSS (VmHWM) to the current RSS
    return resident()


class FileTokens:
    """A corpus's token words, read from their ``.npy`` file one slice at a time.

    What tomotopy is fed from: its model keeps its own copy of the corpus, so the
    words are read per document and never all resident at once outside it.
    """

    def __init__(self, path: Path):
        # Open for the process's life: tomotopy's model is built from it, then it ends.
        self.file = open(path, "rb")
        version = np.lib.format.read_magic(self.file)
        read_header = (
            np.lib.format.read_array_header_1_0
            if version == (1, 0)
            else np.lib.format.read_array_header_2_0
        )
        shape, _, self.dtype = read_header(self.file)
        self.shape = shape
        self.offset = self.file.tell()

    def __getitem__(self, part: slice) -> np.ndarray:
        self.file.seek(self.offset + part.start * self.dtype.itemsize)
        n = part.stop - part.start
        return np.frombuffer(self.file.read(n * self.dtype.itemsize), dtype=self.dtype)


def toy_corpus(longest: int, most_frequent: int) -> BenchCorpus:
    """A small corpus whose longest document and most frequent word are as given.

    ``counts.build_state`` then picks the real corpus's count dtypes, so a zoo sampler
    warmed up on it has loaded (or compiled) the very kernels the real run calls.
    """
    n_tokens = max(longest, most_frequent)
    rest = n_tokens - most_frequent
    # Word 0 most_frequent times; the rest over further words, none more often than it.
    n_other = -(-rest // most_frequent)
    token_word = np.concatenate(
        [
            np.zeros(most_frequent, dtype=np.int32),
            1 + (np.arange(rest, dtype=np.int32) % max(n_other, 1)),
        ]
    )
    doc_start = np.append(np.arange(0, n_tokens, longest, dtype=np.int64), n_tokens)
    return BenchCorpus("toy", token_word, doc_start, 1 + n_other)


def child() -> None:
    """One contender's memory in this fresh process (``--corpus``; module docstring).

    Arguments (``sys.argv``): the corpus folder, the contender, K, the sweeps. Prints
    one JSON line.
    """
    folder, name, n_topics, n_sweeps = Path(sys.argv[1]), sys.argv[2], *map(int, sys.argv[3:5])
    shape = json.loads((folder / "shape.json").read_text())
    contender_class = CONTENDERS[name]
    is_zoo = name.startswith("zoo")
    toy = toy_corpus(shape["longest"], shape["most_frequent"]) if is_zoo else toy_corpus(8, 8)
    warm = contender_class(toy, n_topics, 0)
    warm.run(1)
    del warm, toy
    if is_zoo:
        doc_start = token_word = None
    else:
        # Input, not model: the strings tomotopy is fed, the documents' bounds, the file.
        vocabulary(shape["n_words"])
        doc_start = np.load(folder / "doc_start.npy")
        token_word = FileTokens(folder / "token_word.npy")
    baseline = reset_peak()

    if is_zoo:
        doc_start = np.load(folder / "doc_start.npy")
        token_word = np.load(folder / "token_word.npy")
    corpus = BenchCorpus(shape["name"], token_word, doc_start, shape["n_words"])
    contender = contender_class(corpus, n_topics, 0)
    built = resident()
    contender.run(n_sweeps)
    swept = resident()
    result = {"baseline": baseline, "built": built, "swept": swept}
    if is_zoo:
        result["array_bytes"] = contender.state_bytes() + token_word.nbytes + doc_start.nbytes
    print(json.dumps(result))


def compare(args) -> None:
    """``--corpus``: every contender at every K, each in a fresh process (docstring)."""
    corpus = load_corpus(args.corpus)
    shape = {
        "name": corpus.name,
        "n_tokens": corpus.n_tokens,
        "n_docs": corpus.n_docs,
        "n_words": corpus.n_words,
        "longest": int(np.diff(corpus.doc_start).max()),
        "most_frequent": int(word_frequency(corpus.token_word, corpus.n_words).max()),
    }
    repository = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        np.save(Path(folder) / "token_word.npy", corpus.token_word)
        np.save(Path(folder) / "doc_start.npy", corpus.doc_start)
        (Path(folder) / "shape.json").write_text(json.dumps(shape))
        del corpus
        for n_topics in args.topics:
            measured = {}
            for name in args.contenders:
                command = "from bench.lda_memory import child; child()"
                done = subprocess.run(
                    [sys.executable, "-c", command, folder, name, str(n_topics), str(args.sweeps)],
                    capture_output=True,
                    text=True,
                    cwd=repository,
                )
                if done.returncode != 0:
                    raise SystemExit(f"{name} K={n_topics} failed:\n{done.stderr}")
                row = json.loads(done.stdout.strip().splitlines()[-1])
                base, n_tokens = row["baseline"]["rss_bytes"], shape["n_tokens"]
                row["peak_bytes_per_token"] = (row["swept"]["peak_rss_bytes"] - base) / n_tokens
                row["held_bytes_per_token"] = (row["swept"]["rss_bytes"] - base) / n_tokens
                measured[name] = row
                print(
                    f"{shape['name']} K={n_topics:,} {name}: peak "
                    f"{row['peak_bytes_per_token']:.1f} B/token, held after the sweeps "
                    f"{row['held_bytes_per_token']:.1f}",
                    flush=True,
                )
            records.append(
                "lda_memory",
                {
                    "corpus": shape,
                    "topics": n_topics,
                    "sweeps": args.sweeps,
                    "method": "peak RSS (VmHWM) minus the RSS after imports and warm-up",
                    "contenders": measured,
                },
                file=CONTENDERS_FILE,
            )


def contenders_table(runs: list[dict]) -> str:
    """The markdown of the comparison's records ``runs``: one row per corpus and K."""
    lines = [
        "# LDA memory per token against tomotopy, each sampler in a fresh process",
        "",
        "Bytes per token: the peak resident set size after the model was built and its "
        "sweeps ran, minus the resident size after imports and a warm-up "
        '(`bench/lda_memory.py`, "Against the other samplers"); in brackets the '
        "resident size after the sweeps, minus the same baseline. For the zoo's samplers the "
        "arrays they hold (`nbytes`: corpus, state, word lists or index) are in the last "
        "columns: a page of a count table that is never written is never resident, so "
        "the resident figure can be below it.",
        "",
        "| date | commit | corpus | tokens | K | sweeps | zoo (Gibbs) | zoo-mh | tomotopy "
        "| tomotopy / zoo | tomotopy / zoo-mh | zoo arrays | zoo-mh arrays |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(measured: dict, name: str) -> str:
        if name not in measured:
            return "-"
        row = measured[name]
        return f"{row['peak_bytes_per_token']:.1f} ({row['held_bytes_per_token']:.1f})"

    def ratio(measured: dict, name: str, peer: str = "tomotopy", spec: str = ".2f") -> str:
        # The peer's peak over the contender's; "-" where either was not measured.
        if name not in measured or peer not in measured or name == peer:
            return "-"
        theirs = measured[peer]["peak_bytes_per_token"]
        return f"{theirs / measured[name]['peak_bytes_per_token']:{spec}}"

    def arrays(measured: dict, name: str, n_tokens: int) -> str:
        if name not in measured:
            return "-"
        return f"{measured[name]['array_bytes'] / n_tokens:.1f}"

    for run in runs:
        measured = run["contenders"]
        n_tokens = run["corpus"]["n_tokens"]
        lines.append(
            f"| {run['date'][:10]} | {run['commit'][:7]}{' (dirty)' if run['dirty'] else ''} "
            f"| {run['corpus']['name']} | {run['corpus']['n_tokens']:,} | {run['topics']:,} "
            f"| {run['sweeps']} | {cell(measured, 'zoo')} | {cell(measured, 'zoo-mh')} "
            f"| {cell(measured, 'tomotopy')} | {ratio(measured, 'zoo')} "
            f"| {ratio(measured, 'zoo-mh')} | {arrays(measured, 'zoo', n_tokens)} "
            f"| {arrays(measured, 'zoo-mh', n_tokens)} |"
        )
    others = [run for run in runs if set(run["contenders"]) - set(DEFAULT_CONTENDERS)]
    if others:
        # Any other contender (the two-thread samplers, tomotopy on 2 workers): a row each,
        # against tomotopy on as many workers where that run measured it.
        lines += [
            "",
            "The other contenders (the two-thread samplers against tomotopy on 2 workers), "
            "the same measure:",
            "",
            "| date | commit | corpus | tokens | K | sweeps | contender | bytes per token "
            "| tomotopy-2 / it | arrays |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for run in others:
            measured = run["contenders"]
            n_tokens = run["corpus"]["n_tokens"]
            for name in sorted(set(measured) - set(DEFAULT_CONTENDERS)):
                # Three figures: a ratio just below 1 must not print as 1.00.
                peer = ratio(measured, name, "tomotopy-2", ".3g")
                lines.append(
                    f"| {run['date'][:10]} "
                    f"| {run['commit'][:7]}{' (dirty)' if run['dirty'] else ''} "
                    f"| {run['corpus']['name']} | {n_tokens:,} | {run['topics']:,} "
                    f"| {run['sweeps']} | {name} | {cell(measured, name)} | {peer} "
                    f"| {arrays(measured, name, n_tokens) if name.startswith('zoo') else '-'} |"
                )
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=10_000_000)
    parser.add_argument("--words", type=int, default=50_000)
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--topics", type=int, nargs="+", default=[100])
    parser.add_argument("--sweeps", type=int, default=3)
    parser.add_argument(
        "--corpus",
        choices=("reuters", "zipf-1m", "zipf"),
        help="compare the contenders on this corpus (module docstring)",
    )
    parser.add_argument(
        "--contenders", nargs="+", choices=tuple(CONTENDERS), default=list(DEFAULT_CONTENDERS)
    )
    args = parser.parse_args()
    if args.corpus is not None:
        compare(args)
        return
    if len(args.topics) != 1:
        parser.error("--topics: one K without --corpus")
    args.topics = args.topics[0]

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

"""LDA collapsed Gibbs: tokens per second and log joint, zoo vs tomotopy vs lda.

Corpus: the Reuters sample shipped with the ``lda`` package (``lda.datasets.load_reuters``:
395 documents, 4,258 words, 84,010 tokens). Model: symmetric alpha = 0.1 per topic,
beta = 0.01 per word, K = 20, 100, 500. All three run on one core:

- zoo: ``zoo.models.lda.sweeps.sweep`` (SparseLDA buckets or the dense loop, by K);
  numba compilation is excluded (one untimed sweep on a throwaway copy first);
- tomotopy: ``LDAModel(k=K, alpha=0.1, eta=0.01, seed=...)`` with ``optim_interval = 0``
  (no hyperparameter optimisation; tomotopy's ``alpha`` is per topic: ``model.alpha`` is
  a length-K vector of 0.1), ``burn_in = 0``, trained with ``workers=1,
  parallel=ParallelScheme.NONE``;
- lda: ``lda.LDA(n_topics=K, alpha=0.1, eta=0.01)``, driven through the same steps as its
  ``fit`` (``_initialize``, then per sweep a shuffle of its recycled buffer of uniforms
  and ``_sample_topics``) so that burn-in and measured sweeps can be timed apart and its
  assignments ``ZS`` read before ``fit`` would delete them.

Each seed runs every contender from its own initial state (zoo: uniform random topics;
tomotopy: its own random init; lda: its deterministic ``i % K`` init) for ``--burn``
untimed and ``--sweeps`` timed sweeps; contenders are interleaved (rotated order per
seed) so that machine load affects all alike; the table reports medians over seeds.
The log joint ``log p(w, z)`` after burn + sweeps is computed by
``zoo.models.lda.counts.log_joint`` from each package's final assignments.

Run: ``python bench/lda_speed.py [--topics 20 100 500] [--seeds 5] [--burn 100]
[--sweeps 50] [--out bench/results/lda_speed]`` (needs ``pip install -e '.[bench]'``).
"""

from __future__ import annotations

import argparse
import json
import logging
import platform
import time
from pathlib import Path

import numpy as np

from zoo.models.lda import counts, sweeps
from zoo.models.lda.corpus import Corpus

ALPHA = 0.1
BETA = 0.01


def reuters():
    import lda.datasets

    matrix = lda.datasets.load_reuters()
    n_docs, n_words = matrix.shape
    doc_start = np.zeros(n_docs + 1, dtype=np.int64)
    np.cumsum(matrix.sum(axis=1), out=doc_start[1:])
    # Tokens of a document in word-id order, each word repeated by its count (the
    # order lda.utils.matrix_to_lists uses too).
    token_word = np.concatenate(
        [np.repeat(np.arange(n_words, dtype=np.int32), matrix[d]) for d in range(n_docs)]
    )
    return matrix, token_word, doc_start


class Zoo:
    name = "zoo"

    def __init__(self, corpus, n_topics, seed):
        self.corpus = Corpus(corpus[1], corpus[2])
        n_words = corpus[0].shape[1]
        rng = np.random.default_rng(seed)
        topic = rng.integers(0, n_topics, self.corpus.token_word.shape[0]).astype(
            counts.topic_dtype(n_topics)
        )
        self.state = counts.build_state(self.corpus, topic, n_topics=n_topics, n_words=n_words)
        beta = np.full(n_words, BETA)
        self.hyper = (np.full(n_topics, ALPHA), beta, float(beta.sum()))
        # Carried between sweeps (the kernel would otherwise rebuild them every call).
        self.word_lists = (
            sweeps.build_word_lists(self.state.word_topic)
            if n_topics >= sweeps.SPARSE_FROM_TOPICS
            else None
        )
        self.rng = np.random.default_rng(seed + 1)
        self._compile()

    def _compile(self):
        # One sweep on copies: loads (or compiles) the numba kernel outside the timing.
        state = counts.State(*(a.copy() for a in self.state))
        lists = None if self.word_lists is None else self.word_lists.copy()
        sweeps.sweep(self.corpus, state, self.hyper, np.random.default_rng(0), word_lists=lists)

    def run(self, n_sweeps):
        if n_sweeps:
            sweeps.sweep(
                self.corpus,
                self.state,
                self.hyper,
                self.rng,
                sweeps=n_sweeps,
                word_lists=self.word_lists,
            )

    def assignments(self):
        return (*self.corpus, self.state.topic)


class Tomotopy:
    name = "tomotopy"

    def __init__(self, corpus, n_topics, seed):
        import tomotopy

        self.tp = tomotopy
        matrix = corpus[0]
        self.model = tomotopy.LDAModel(k=n_topics, alpha=ALPHA, eta=BETA, seed=seed)
        self.model.optim_interval = 0
        self.model.burn_in = 0
        for d in range(matrix.shape[0]):
            self.model.add_doc([str(w) for w in np.repeat(np.arange(matrix.shape[1]), matrix[d])])
        # train(0) initialises the assignments without sampling.
        self.run(0)

    def run(self, sweeps):
        self.model.train(sweeps, workers=1, parallel=self.tp.ParallelScheme.NONE)

    def assignments(self):
        # tomotopy numbers words in order of first appearance: map back to our ids.
        to_ours = np.array([int(v) for v in self.model.used_vocabs], dtype=np.int32)
        words, topics, lengths = [], [], []
        for doc in self.model.docs:
            words.append(to_ours[np.asarray(doc.words)])
            topics.append(np.asarray(doc.topics))
            lengths.append(len(doc.words))
        doc_start = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=doc_start[1:])
        topic = np.concatenate(topics).astype(counts.topic_dtype(self.model.k))
        return np.concatenate(words).astype(np.int32), doc_start, topic


class LdaPackage:
    name = "lda"

    def __init__(self, corpus, n_topics, seed):
        import lda
        import lda.utils

        logging.getLogger("lda").setLevel(logging.WARNING)
        self.matrix = corpus[0]
        self.model = lda.LDA(n_topics=n_topics, n_iter=1, alpha=ALPHA, eta=BETA, random_state=seed)
        # The steps of lda.LDA._fit, so that sweeps can be timed and ZS kept.
        self.random_state = lda.utils.check_random_state(seed)
        self.rands = self.model._rands.copy()
        self.model._initialize(self.matrix)

    def run(self, sweeps):
        for _ in range(sweeps):
            self.random_state.shuffle(self.rands)
            self.model._sample_topics(self.rands)

    def assignments(self):
        doc = np.asarray(self.model.DS)
        if np.any(np.diff(doc) < 0):
            raise RuntimeError("lda's tokens are not in document order")
        doc_start = np.zeros(self.matrix.shape[0] + 1, dtype=np.int64)
        np.cumsum(np.bincount(doc, minlength=self.matrix.shape[0]), out=doc_start[1:])
        topic = np.asarray(self.model.ZS).astype(counts.topic_dtype(self.model.n_topics))
        return np.asarray(self.model.WS, dtype=np.int32), doc_start, topic


CONTENDERS = (Zoo, Tomotopy, LdaPackage)


def one_run(corpus, cls, n_topics, seed, burn, sweeps):
    n_tokens = int(corpus[1].shape[0])
    contender = cls(corpus, n_topics, seed)
    contender.run(burn)
    start, start_cpu = time.perf_counter(), time.process_time()
    contender.run(sweeps)
    seconds = time.perf_counter() - start
    # CPU time of the whole process (all threads): on a shared machine it is steadier
    # than wall time, and cpu_seconds / seconds <= 1 shows that one core was used.
    cpu_seconds = time.process_time() - start_cpu
    token_word, doc_start, topic = contender.assignments()
    if token_word.shape[0] != n_tokens:
        raise RuntimeError(f"{cls.name} holds {token_word.shape[0]} tokens, not {n_tokens}")
    n_words = corpus[0].shape[1]
    log_p = counts.log_joint(
        Corpus(token_word, doc_start), topic, np.full(n_topics, ALPHA), np.full(n_words, BETA)
    )
    return {
        "contender": cls.name,
        "topics": n_topics,
        "seed": seed,
        "burn": burn,
        "sweeps": sweeps,
        "seconds": seconds,
        "cpu_seconds": cpu_seconds,
        "mtokens_per_second": n_tokens * sweeps / seconds / 1e6,
        "mtokens_per_cpu_second": n_tokens * sweeps / cpu_seconds / 1e6,
        "log_joint": log_p,
    }


def environment():
    import lda
    import numba
    import tomotopy

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "machine": platform.platform(),
        "cpu": cpu,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "tomotopy": tomotopy.__version__,
        "tomotopy_isa": tomotopy.isa,
        "lda": getattr(lda, "__version__", "3.0.2"),
        "zoo_sparse_from_topics": sweeps.SPARSE_FROM_TOPICS,
    }


def summarise(records, env):
    lines = [
        "# LDA sweep speed on Reuters (lda.datasets, 84,010 tokens), one core",
        "",
        f"alpha = {ALPHA} per topic, beta = {BETA} per word; medians over seeds; "
        f"tomotopy {env['tomotopy']} ({env['tomotopy_isa']}), lda {env['lda']}, "
        f"numba {env['numba']}; CPU {env['cpu']}.",
        "",
        "Wall time (Mtokens per second):",
        "",
        "| K | zoo | tomotopy | lda | zoo / tomotopy | zoo / lda | seeds |",
        "|---|---|---|---|---|---|---|",
    ]
    cpu_lines = [
        "",
        "CPU time of the process (Mtokens per CPU second; steadier on a shared machine):",
        "",
        "| K | zoo | tomotopy | lda | zoo / tomotopy | zoo / lda | max CPU/wall |",
        "|---|---|---|---|---|---|---|",
    ]
    summary = {}
    for n_topics in sorted({r["topics"] for r in records}):
        row = {}
        for name in ("zoo", "tomotopy", "lda"):
            runs = [r for r in records if r["topics"] == n_topics and r["contender"] == name]
            speed = np.array([r["mtokens_per_second"] for r in runs])
            cpu_speed = np.array([r["mtokens_per_cpu_second"] for r in runs])
            log_p = np.array([r["log_joint"] for r in runs])
            row[name] = {
                "median_mtokens_per_second": float(np.median(speed)),
                "median_mtokens_per_cpu_second": float(np.median(cpu_speed)),
                "max_cpu_over_wall": float(max(r["cpu_seconds"] / r["seconds"] for r in runs)),
                "log_joint_mean": float(log_p.mean()),
                "log_joint_sd": float(log_p.std(ddof=1)) if log_p.size > 1 else float("nan"),
                "log_joint_min": float(log_p.min()),
                "log_joint_max": float(log_p.max()),
                "seeds": len(runs),
            }
        summary[n_topics] = row
        speed = {name: row[name]["median_mtokens_per_second"] for name in row}
        lines.append(
            f"| {n_topics} | {speed['zoo']:.2f} | {speed['tomotopy']:.2f} | {speed['lda']:.2f} "
            f"| {speed['zoo'] / speed['tomotopy']:.2f} | {speed['zoo'] / speed['lda']:.2f} "
            f"| {row['zoo']['seeds']} |"
        )
        cpu = {name: row[name]["median_mtokens_per_cpu_second"] for name in row}
        most = max(row[name]["max_cpu_over_wall"] for name in row)
        cpu_lines.append(
            f"| {n_topics} | {cpu['zoo']:.2f} | {cpu['tomotopy']:.2f} | {cpu['lda']:.2f} "
            f"| {cpu['zoo'] / cpu['tomotopy']:.2f} | {cpu['zoo'] / cpu['lda']:.2f} "
            f"| {most:.2f} |"
        )
    lines += cpu_lines
    burn, sweeps = records[0]["burn"], records[0]["sweeps"]
    lines += [
        "",
        f"## Log joint log p(w, z) after {burn + sweeps} sweeps "
        "(mean ± sd over seeds [min, max]; same function for all)",
        "",
        "| K | zoo | tomotopy | lda | (zoo - peers) / peers' sd | zoo within peers' range |",
        "|---|---|---|---|---|---|",
    ]
    for n_topics, row in summary.items():
        cells = [
            f"{row[n]['log_joint_mean']:.0f} ± {row[n]['log_joint_sd']:.0f} "
            f"[{row[n]['log_joint_min']:.0f}, {row[n]['log_joint_max']:.0f}]"
            for n in ("zoo", "tomotopy", "lda")
        ]
        peers = np.array(
            [
                r["log_joint"]
                for r in records
                if r["topics"] == n_topics and r["contender"] in ("tomotopy", "lda")
            ]
        )
        zoo_mean = row["zoo"]["log_joint_mean"]
        standardised = (zoo_mean - peers.mean()) / peers.std(ddof=1)
        inside = peers.min() <= zoo_mean <= peers.max()
        row["zoo_minus_peers_in_peer_sd"] = float(standardised)
        lines.append(
            f"| {n_topics} | {' | '.join(cells)} | {standardised:+.2f} "
            f"| {'yes' if inside else 'no'} |"
        )
    return summary, "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, nargs="+", default=[20, 100, 500])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--burn", type=int, default=100)
    parser.add_argument("--sweeps", type=int, default=50)
    parser.add_argument("--out", default="bench/results/lda_speed")
    args = parser.parse_args()

    corpus = reuters()
    env = environment()
    print(json.dumps(env))
    records = []
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out.with_suffix(".jsonl"), "w") as raw:
        for seed in range(args.seeds):
            for n_topics in args.topics:
                # Rotate the order per seed: no contender always runs first or last.
                order = CONTENDERS[seed % 3 :] + CONTENDERS[: seed % 3]
                for cls in order:
                    record = one_run(corpus, cls, n_topics, seed, args.burn, args.sweeps)
                    records.append(record)
                    raw.write(json.dumps(record) + "\n")
                    raw.flush()
                    print(
                        f"K={n_topics:4d} seed={seed} {cls.name:9s} "
                        f"{record['mtokens_per_second']:7.2f} Mtok/s  "
                        f"log p(w,z) = {record['log_joint']:.0f}",
                        flush=True,
                    )
    summary, table = summarise(records, env)
    out.with_suffix(".json").write_text(
        json.dumps({"environment": env, "args": vars(args), "summary": summary}, indent=2)
    )
    out.with_suffix(".md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()

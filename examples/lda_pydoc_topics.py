"""Topics in Python's own help pages: LDA three ways, and the checks, with no download.

CPython ships the text of ``help("topics")`` (``pydoc_data.topics``): 79 reference
pages (assignment, exceptions, for, with, ...). They are the corpus.

1. The collapsed Gibbs sampler (the exact SparseLDA sweep) on the whole corpus, K
   topics, prints each topic's most probable words. No exact reference exists at this
   size, and with a symmetric prior topic labels are exchangeable, so the runs are
   judged on label-invariant quantities only (``doc_word``: sum_k theta_dk phi_kw).
2. Gibbs against PyMC (topics summed out per token, NUTS) on a few pages cut to a few
   words each: two-sample, label-invariant.
3. Gibbs against the exact posterior (all K^N topic assignments enumerated) on a tiny
   corpus cut from the same pages.

    python examples/lda_pydoc_topics.py [--draws 1000] [--tune 500] [--chains 4] [--topics 8]

Defaults can also be set with ZOO_EXAMPLE_DRAWS, ZOO_EXAMPLE_TUNE, ZOO_EXAMPLE_CHAINS.
"""

import argparse
import os
import re
from collections import Counter
from pydoc_data.topics import topics as pydoc_topics

import numpy as np

import zoo
from zoo.diagnostics import agreement, compare
from zoo.models.lda import Data, Prior

# Words too common in any English or Python text to say what a page is about.
STOPWORDS = set(
    """a an and are as at be been but by can for from has have if in into is it its may
    must not of on one or other same such than that the their then there these this to
    two was when where which while will with would also any each more only so some used
    use does do see new e g i example value values following form given""".split()
)


def settings():
    """Command-line settings; defaults from ZOO_EXAMPLE_* environment variables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("draws", 1000), ("tune", 500), ("chains", 4), ("topics", 8)):
        env = os.environ.get(f"ZOO_EXAMPLE_{name.upper()}")
        parser.add_argument(f"--{name}", type=int, default=int(env) if env else default)
    return parser.parse_args()


def corpus(vocabulary_size: int = 600):
    """Tokenised pages restricted to the most frequent informative words."""
    pages = {
        name: [w for w in re.findall(r"[a-z_]{3,}", text.lower()) if w not in STOPWORDS]
        for name, text in sorted(pydoc_topics.items())
    }
    counts = Counter(word for words in pages.values() for word in words)
    vocabulary = [word for word, _ in counts.most_common(vocabulary_size)]
    index = {word: i for i, word in enumerate(vocabulary)}
    documents = [[index[w] for w in words if w in index] for words in pages.values()]
    return documents, np.array(vocabulary), np.array(list(pages))


def main():
    """Run the example and print a short result."""
    args = settings()
    documents, vocabulary, names = corpus()
    run = {"draws": args.draws, "tune": args.tune, "chains": args.chains, "progress": False}

    # 1. The whole corpus: 79 pages, ~30,000 tokens.
    data = Data(documents, topics=args.topics, vocabulary=vocabulary, documents=names)
    prior = Prior(alpha=0.5, beta=0.05)
    tree = zoo.sample("lda", data, prior, seed=1, **run)
    phi = tree["posterior"]["phi"].sel(chain=0).mean("draw").values  # one chain: no switching
    print(f"{data.n_documents} pages, {data.n_tokens} tokens, {data.n_words} words")
    for k in range(args.topics):
        top = vocabulary[np.argsort(phi[k])[::-1][:6]]
        print(f"  topic {k}: {' '.join(top)}")

    # 2. Gibbs against PyMC on four pages, eight words each, two topics.
    pages = [list(names).index(n) for n in ("exceptions", "for", "try", "while")]
    small = [documents[p][:8] for p in pages]
    used = sorted({w for doc in small for w in doc})
    remap = {w: i for i, w in enumerate(used)}
    small_data = Data(
        [[remap[w] for w in doc] for doc in small],
        topics=2,
        vocabulary=vocabulary[used],
        documents=names[pages],
    )
    small_prior = Prior(alpha=1.0, beta=0.5)
    gibbs = zoo.sample("lda", small_data, small_prior, seed=2, **run)
    nuts = zoo.sample("lda", small_data, small_prior, engine="pymc", seed=3, **run)
    label_invariant = zoo.get("lda").comparable_variables(small_prior)
    print(
        f"Gibbs vs PyMC ({', '.join(label_invariant)}): "
        f"{compare(gibbs, nuts, var_names=label_invariant).verdict}"
    )

    # 3. Gibbs against the exact posterior: three pages, three words each (2^9 states).
    tiny_docs = [[remap[w] for w in doc[:3]] for doc in small[:3]]
    tiny = Data(tiny_docs, topics=2, vocabulary=vocabulary[used], documents=names[pages[:3]])
    exact = zoo.get("lda").posterior(tiny, small_prior)
    draws = zoo.sample("lda", tiny, small_prior, seed=4, **run)
    print(f"Gibbs vs exact ({exact.note[:60]}...): {agreement(draws, exact).verdict}")


if __name__ == "__main__":
    main()

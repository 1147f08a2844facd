"""LDA input handling: bad input raises ValueError naming the field, before any work.

Also: every accepted corpus form gives the same tokens, empty documents are kept,
input is never modified, and the internal layout has the documented dtypes.
"""

import re

import numpy as np
import pytest
from scipy import sparse

import zoo
from zoo.models.lda import Data, Prior, infer_documents, posterior, simulate
from zoo.models.lda.corpus import read_corpus
from zoo.models.lda.pairs import track

SPEC = zoo.get("lda")
TOKENS = [[0, 2, 2], [], [1, 0, 3, 3]]
MATRIX = np.array([[1, 0, 2, 0], [0, 0, 0, 0], [1, 1, 0, 2]])


@pytest.mark.parametrize(
    ("corpus", "kwargs", "field"),
    [
        ([[0, 1], [2, -1]], {}, "corpus[1]"),  # negative word id
        ([[0, 1.5]], {}, "corpus[0]"),  # not an integer
        ([[0, np.nan]], {}, "corpus[0]"),
        ([[0, 4]], {"vocabulary": ["a", "b", "c", "d"]}, "corpus"),  # outside the vocabulary
        ([[], []], {}, "corpus"),  # no tokens at all
        ([np.array([[0, 1], [2, 3]])], {}, "corpus[0]"),  # 2-D: once flattened silently
        ([np.array([0, 10**8])], {}, "corpus"),  # 10^8 words inferred for 2 tokens
        ([[0, 2**63]], {}, "corpus[0]"),  # beyond int64: once wrapped negative
        ([], {}, "corpus"),  # no documents
        ("some text", {}, "corpus"),
        (np.array([0, 1, 2]), {}, "corpus"),  # 1-D: one document or three?
        (np.array([[1, -1], [0, 2]]), {}, "corpus"),  # negative count
        (np.array([[1, 0.5], [0, 2]]), {}, "corpus"),  # fractional count
        (np.zeros((2, 3), dtype=int), {}, "corpus"),  # empty corpus as a matrix
        (sparse.csr_array(np.array([[1, -2], [0, 1]])), {}, "corpus"),
        (MATRIX, {"vocabulary": ["a", "b"]}, "vocabulary"),  # length != V
        (TOKENS, {"vocabulary": ["a", "a", "b", "c"]}, "vocabulary"),
        (TOKENS, {"documents": ["x", "y"]}, "documents"),
        (TOKENS, {"topics": 0}, "topics"),
        (TOKENS, {"topics": 2.5}, "topics"),
        (TOKENS, {"topics": True}, "topics"),
        (TOKENS, {"doc_word_pairs": [[0, 9]]}, "doc_word_pairs"),  # word beyond V
        (TOKENS, {"doc_word_pairs": [[3, 0]]}, "doc_word_pairs"),  # document beyond D
        (TOKENS, {"doc_word_pairs": [[0, 1], [0, 1]]}, "doc_word_pairs"),
        (TOKENS, {"doc_word_pairs": [0, 1, 2]}, "doc_word_pairs"),
        (TOKENS, {"doc_word_pairs": "some"}, "doc_word_pairs"),
        (TOKENS, {"token_pairs": [[0, 0]]}, "token_pairs"),  # a token with itself
        (TOKENS, {"token_pairs": [[0, 7]]}, "token_pairs"),  # N = 7 tokens
        (TOKENS, {"token_pairs": [[0, -1]]}, "token_pairs"),
    ],
)
def test_bad_data(corpus, kwargs, field):
    arguments = {"topics": 2, **kwargs}
    with pytest.raises(ValueError, match=f"^{re.escape(field)}"):
        Data(corpus, **arguments)


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"alpha": 0.0}, "alpha"),
        ({"alpha": -1.0}, "alpha"),
        ({"alpha": np.nan}, "alpha"),
        ({"alpha": True}, "alpha"),
        ({"alpha": np.ones((2, 2))}, "alpha"),
        ({"alpha": []}, "alpha"),
        ({"beta": [1.0, 0.0, 1.0, 1.0]}, "beta"),
        ({"beta": np.inf}, "beta"),
    ],
)
def test_bad_prior(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}:"):
        Prior(**kwargs)


@pytest.mark.parametrize(
    ("prior", "field"),
    [(Prior(alpha=[1.0, 2.0, 3.0]), "alpha"), (Prior(beta=[1.0, 2.0]), "beta")],
)
def test_prior_shape_must_fit_the_data(prior, field):
    data = Data(TOKENS, topics=2)
    with pytest.raises(ValueError, match=f"^{field}: expected length"):
        prior.resolve(data)
    with pytest.raises(ValueError, match=f"^{field}:"):
        posterior(data, prior)
    with pytest.raises(ValueError, match=f"^{field}:"):
        SPEC.kernel.init(data, prior, np.random.default_rng(0))


def test_token_lists_dense_and_sparse_give_the_same_corpus():
    in_word_order = [sorted(doc) for doc in TOKENS]
    forms = [
        Data(in_word_order, topics=2),
        Data(MATRIX, topics=2),
        Data(sparse.csr_array(MATRIX), topics=2),
        Data(sparse.coo_matrix(MATRIX), topics=2),
        Data(sparse.csc_array(MATRIX), topics=2),
    ]
    for data in forms:
        np.testing.assert_array_equal(data.token_word, forms[0].token_word)
        np.testing.assert_array_equal(data.doc_start, forms[0].doc_start)
        np.testing.assert_array_equal(data.counts(), MATRIX)
    draws = [
        zoo.sample(SPEC, data, Prior(), draws=20, tune=5, chains=2, seed=4)["posterior"]
        for data in forms
    ]
    for other in draws[1:]:
        for name in SPEC.variables(Prior()):
            assert other[name].values.tobytes() == draws[0][name].values.tobytes()


def test_layout_and_dtypes():
    data = Data(TOKENS, topics=2)
    assert data.token_word.dtype == np.int32
    assert data.doc_start.dtype == np.int64
    np.testing.assert_array_equal(data.doc_start, [0, 3, 3, 7])
    np.testing.assert_array_equal(data.lengths, [3, 0, 4])
    assert data.topic_dtype == np.uint8
    assert data.count_dtypes == (np.uint8, np.uint8)
    state = SPEC.kernel.init(data, Prior(), np.random.default_rng(0))
    assert state.topic.dtype == np.uint8
    assert state.doc_topic.dtype == np.uint8 and state.doc_topic.shape == (3, 2)
    assert state.word_topic.dtype == np.uint8 and state.word_topic.shape == (4, 2)
    assert state.topic_total.dtype == np.int64
    # 300 copies of one word in one document need 16-bit counts; 300 topics 16-bit labels.
    long = Data([[0] * 300, [1]], topics=300)
    assert long.count_dtypes == (np.uint16, np.uint16)
    assert long.topic_dtype == np.uint16
    assert Data([[0]], topics=256).topic_dtype == np.uint8


def test_input_is_not_modified_and_data_is_read_only():
    tokens = [np.array(doc) for doc in TOKENS]
    matrix = MATRIX.copy()
    alpha = np.array([1.0, 2.0])
    data = Data(tokens, topics=2)
    Data(matrix, topics=2)
    prior = Prior(alpha=alpha)
    alpha[0] = 5.0
    assert prior.alpha[0] == 1.0
    for before, after in zip(TOKENS, tokens, strict=True):
        np.testing.assert_array_equal(before, after)
    np.testing.assert_array_equal(matrix, MATRIX)
    with pytest.raises(ValueError):
        data.token_word[0] = 3


def test_empty_documents_are_kept_and_get_prior_theta():
    data = Data(TOKENS, topics=2, vocabulary=["a", "b", "c", "d"])
    assert data.n_documents == 3 and data.n_tokens == 7
    prior = Prior(alpha=[2.0, 1.0])
    tree = zoo.sample(SPEC, data, prior, draws=2000, tune=10, chains=2, seed=0)
    theta = tree["posterior"]["theta"].sel(document=1).values[..., 0].ravel()
    # An empty document's theta is its prior, Dir(2, 1): theta_0 ~ Beta(2, 1), mean 2/3.
    assert abs(theta.mean() - 2 / 3) < 5 * np.sqrt(1 / 18 / theta.size)
    reference = posterior(data, prior)
    np.testing.assert_allclose(reference["theta"].mean[1], [2 / 3, 1 / 3])


def test_tracked_pairs_defaults_and_choice():
    tiny = Data(TOKENS, topics=2)
    assert tiny.doc_word_pairs.shape == (12, 2)  # all D V pairs
    assert tiny.token_pairs.shape == (21, 2)  # all N (N - 1) / 2 pairs
    none = Data(TOKENS, topics=2, doc_word_pairs=None, token_pairs=None)
    assert none.doc_word_pairs.shape == (0, 2) and none.token_pairs.shape == (0, 2)
    values = SPEC.kernel.draw(
        SPEC.kernel.init(none, Prior(), np.random.default_rng(0)),
        none,
        Prior(),
        np.random.default_rng(1),
    )
    assert values["doc_word"].shape == (0,) and values["coassignment"].shape == (0,)
    chosen = Data(TOKENS, topics=2, doc_word_pairs=[[2, 3]], token_pairs=[[0, 4], [5, 6]])
    assert list(chosen.coords["doc_word_pair"]) == ["2:3"]
    assert list(chosen.coords["token_pair"]) == ["0-4", "5-6"]
    # A corpus too large for every pair gets a small deterministic sample.
    rng = np.random.default_rng(0)
    documents = [rng.integers(0, 50, size=20) for _ in range(40)]
    big = Data(documents, topics=5)
    assert 0 < len(big.doc_word_pairs) <= 12 and 0 < len(big.token_pairs) <= 12
    again = Data(documents, topics=5)
    np.testing.assert_array_equal(again.doc_word_pairs, big.doc_word_pairs)
    np.testing.assert_array_equal(again.token_pairs, big.token_pairs)
    everything = Data(documents, topics=5, doc_word_pairs="all")
    assert len(everything.doc_word_pairs) == 40 * 50


def test_simulate_validates_and_is_reproducible():
    prior = Prior(alpha=0.5, beta=0.5)
    with pytest.raises(ValueError, match=r"^topics:"):
        simulate(prior, np.random.default_rng(0), topics=0)
    with pytest.raises(ValueError, match=r"^rng:"):
        simulate(prior, 0)
    truth, _ = simulate(prior, np.random.default_rng(3), topics=3, words=5, documents=4)
    assert truth["theta"].shape == (4, 3) and truth["phi"].shape == (3, 5)
    np.testing.assert_allclose(truth["theta"].sum(axis=1), 1.0)


def test_infer_documents_validates():
    phi = np.full((2, 4), 0.25)
    with pytest.raises(ValueError, match=r"^phi_draws:"):
        infer_documents(np.full((2, 4), 0.5), [[0, 1]], 1.0)
    with pytest.raises(ValueError, match=r"^corpus"):
        infer_documents(phi, [[0, 4]], 1.0)
    with pytest.raises(ValueError, match=r"^alpha:"):
        infer_documents(phi, [[0, 1]], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match=r"^sweeps:"):
        infer_documents(phi, [[0, 1]], 1.0, sweeps=0)


def test_data_composes_the_parsed_corpus_and_the_tracked_pairs():
    # Parsing and the choice of pairs are separate steps; Data is their composition.
    corpus, n_words = read_corpus(MATRIX)
    assert n_words == 4
    np.testing.assert_array_equal(corpus.doc_start, [0, 3, 3, 7])
    tracked = track(corpus, n_words, doc_word_pairs="auto", token_pairs=[[0, 4]])
    data = Data(MATRIX, topics=2, token_pairs=[[0, 4]])
    for have, want in zip((*data.corpus, *data.tracked), (*corpus, *tracked), strict=True):
        np.testing.assert_array_equal(have, want)
        assert not have.flags.writeable
    with pytest.raises(ValueError, match=r"^vocabulary: expected 4 names"):
        read_corpus(MATRIX, n_words=5)
    with pytest.raises(ValueError, match=r"^token_pairs: entry 0 pairs token 1 with itself"):
        track(corpus, n_words, doc_word_pairs=None, token_pairs=[[1, 1]])


def test_spec_does_not_import_the_posterior_or_the_sampler():
    # simulate's derived quantities (doc_word, coassignment) sit below spec.py: nothing
    # spec.py reaches, at module or function level, is the posterior or the sampler.
    import ast
    from pathlib import Path

    import zoo.models.lda

    folder = Path(zoo.models.lda.__file__).parent
    reached, todo = set(), ["spec"]
    while todo:
        name = todo.pop()
        reached.add(name)
        tree = ast.parse((folder / f"{name}.py").read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                module = node.module
            elif isinstance(node, ast.Import):
                module = node.names[0].name
            else:
                continue
            assert module != "zoo.models.lda", (name, "imports the package's __init__")
            if module.startswith("zoo.models.lda."):
                below = module.removeprefix("zoo.models.lda.")
                if below not in reached:
                    todo.append(below)
    assert reached == {"spec", "corpus", "pairs", "counts", "invariants"}, reached


def test_with_words_is_the_corpus_rebuilt_with_the_new_words():
    data = Data([[0, 1, 2], [], [2, 2]], topics=2, vocabulary=["a", "b", "c"])
    assert data.token_document.size == 5  # a cached layout value, carried over
    assert data.word_frequency[2] == 3  # a cached value of the words, not carried over
    words = np.array([2, 0, 0, 1, 1])
    new = data.with_words(words)
    rebuilt = Data(
        [[2, 0, 0], [], [1, 1]],
        topics=2,
        vocabulary=["a", "b", "c"],
        doc_word_pairs=data.doc_word_pairs,
        token_pairs=data.token_pairs,
    )
    for name in ("token_word", "doc_start", "token_document", "word_frequency", "lengths"):
        np.testing.assert_array_equal(getattr(new, name), getattr(rebuilt, name))
    assert new.count_dtypes == rebuilt.count_dtypes and new.coords.keys() == rebuilt.coords.keys()
    np.testing.assert_array_equal(new.doc_word_pairs, rebuilt.doc_word_pairs)
    assert not new.token_word.flags.writeable
    words[0] = 1  # the caller's array is copied
    assert new.token_word[0] == 2
    np.testing.assert_array_equal(data.token_word, [0, 1, 2, 2, 2])


@pytest.mark.parametrize(
    "words", [[0, 1, 2], [0, 1, 2, 3, 0], [0, 1, 2, -1, 0], [0.0, 1.0, 2.0, 0.0, 0.0]]
)
def test_with_words_rejects_the_wrong_length_type_or_ids(words):
    data = Data([[0, 1, 2], [2, 2]], topics=2, vocabulary=["a", "b", "c"])
    with pytest.raises(ValueError, match="token_word"):
        data.with_words(np.array(words))

"""The PyMC program (topics summed out per token) against the Gibbs kernel.

One small PyMC fit, compiled once per module: a corpus of 30 tokens with hand-picked
tracked pairs (6 document-word, 5 token pairs) (2^30 assignments,
beyond exact enumeration) under a symmetric prior, so the two engines are compared
with each other (two-sample agreement) on the label-invariant variables; the twin
feeds a wrong Gibbs kernel. The default problem's fit against the exact reference runs
in ``zoo check lda`` (test_lda_slow.py).
"""

import numpy as np
import pytest

import zoo
from zoo.diagnostics import NoReference, compare
from zoo.models.lda import Data, Prior

SPEC = zoo.get("lda")
RUN = {"draws": 1000, "tune": 500, "chains": 4}
PRIOR = Prior(alpha=0.5, beta=0.5)


@pytest.fixture(scope="module")
def small_corpus():
    # Six documents of 5 tokens over 10 words, two themes (words 0-4 and 5-9).
    corpus = [
        [0, 1, 0, 2, 3],
        [5, 6, 7, 5, 8],
        [0, 4, 1, 2, 9],
        [9, 8, 6, 4, 0],
        [1, 2, 3, 0, 4],
        [7, 8, 9, 5, 6],
    ]
    data = Data(
        corpus,
        topics=2,
        doc_word_pairs=[[0, 0], [0, 5], [1, 6], [2, 4], [3, 0], [5, 1]],
        token_pairs=[[0, 1], [0, 5], [3, 8], [10, 11], [13, 28]],
    )
    pymc = zoo.sample(SPEC, data, PRIOR, engine="pymc", seed=7, progress=False, **RUN)
    gibbs = zoo.sample(SPEC, data, PRIOR, seed=8, **RUN)
    return data, pymc, gibbs


@pytest.mark.pymc
def test_pymc_and_gibbs_agree_on_label_invariants(small_corpus):
    data, pymc, gibbs = small_corpus
    assert isinstance(SPEC.posterior(data, PRIOR), NoReference)
    result = compare(gibbs, pymc, var_names=SPEC.comparable_variables(PRIOR))
    assert result.verdict == "agree", str(result)


@pytest.mark.pymc
def test_wrong_gibbs_disagrees_with_pymc(small_corpus):
    data, pymc, _ = small_corpus
    # The token left in its own counts. (Dropping the V of n_k + V beta is barely
    # visible on this corpus's label-invariant quantities: against 16,000 correct Gibbs
    # draws its largest |z| was 2.9, against 10.5 for this bug; it is caught on the
    # default problem, test_lda_gibbs.py.)
    wrong = zoo.sample(SPEC, data, PRIOR, kernel=SPEC.faults["token-not-removed"], seed=8, **RUN)
    assert compare(wrong, pymc, var_names=SPEC.comparable_variables(PRIOR)).verdict == "disagree"


@pytest.mark.pymc
def test_pymc_output_names_dims_and_observed_tokens(small_corpus):
    data, pymc, gibbs = small_corpus
    for name, dims in SPEC.variables(PRIOR).items():
        assert pymc["posterior"][name].dims == ("chain", "draw", *dims)
        assert pymc["posterior"][name].shape == gibbs["posterior"][name].shape
    np.testing.assert_array_equal(pymc["observed_data"]["token_word"].values, data.token_word)
    np.testing.assert_allclose(pymc["posterior"]["theta"].values.sum(axis=-1), 1.0)


def test_program_log_likelihood_is_the_marginal_over_topics():
    # At any theta and phi, the observed term is sum_i log sum_k theta_{d_i k} phi_{k w_i}.
    data = Data([[0, 2, 1], [2, 2]], topics=2)
    model = SPEC.program(data, PRIOR)
    rng = np.random.default_rng(0)
    theta = rng.dirichlet([1.0, 1.0], size=2)
    phi = rng.dirichlet([1.0, 1.0, 1.0], size=2)
    point = model.initial_point()
    point["theta_simplex__"] = model.rvs_to_transforms[model["theta"]].forward(theta).eval()
    point["phi_simplex__"] = model.rvs_to_transforms[model["phi"]].forward(phi).eval()
    # The graph's arithmetic in PyTensor's Python implementations: compiling this one
    # term with Numba cost 12 CPU s with a cold cache; the fits above run the program
    # compiled, and what is checked here is what the program computes.
    logp = model.compile_logp(vars=[model["token_word"]], sum=True, mode="FAST_COMPILE")(point)
    expected = np.sum(
        np.log(np.sum(theta[data.token_document] * phi[:, data.token_word].T, axis=1))
    )
    np.testing.assert_allclose(logp, expected)


def test_program_without_tracked_pairs_has_empty_deterministics():
    data = Data([[0, 2, 1], [2, 2]], topics=2, doc_word_pairs=None, token_pairs=None)
    model = SPEC.program(data, PRIOR)
    for name in ("doc_word", "coassignment"):
        assert model[name].shape.eval().tolist() == [0]

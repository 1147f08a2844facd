"""Variables a model derives from others may be left out of a sampler's output.

LDA's ``doc_word`` and ``coassignment`` are functions of ``theta`` and ``phi``: a sampler
that returns only those is validated on all four, the zoo computing the rest.
"""

import numpy as np
import pytest

import zoo
from zoo.models import lda
from zoo.validation import SamplerOutputError, checked_draws, validate

MODEL = zoo.get("lda")
PROBLEMS = {name: (data, prior) for name, data, prior in MODEL.validation_problems()}


def _theta_phi_only(tree):
    return {name: tree.posterior[name].values for name in ("theta", "phi")}


def theta_phi_sampler(data, prior, *, draws, chains, seed):
    """The zoo's correct Gibbs sampler, its output cut to theta and phi."""
    tree = zoo.sample(MODEL, data, prior, draws=draws, chains=chains, seed=seed, progress=False)
    return _theta_phi_only(tree)


def token_not_removed_sampler(data, prior, *, draws, chains, seed):
    """A catalogued wrong kernel, its output cut to theta and phi."""
    tree = zoo.sample(
        MODEL,
        data,
        prior,
        fault="token-not-removed",
        draws=draws,
        chains=chains,
        seed=seed,
        progress=False,
    )
    return _theta_phi_only(tree)


def test_label_invariants_over_chains_and_draws_equal_the_one_draw_values():
    data, _prior = PROBLEMS["bank"]
    rng = np.random.default_rng(3)
    theta = rng.dirichlet(np.ones(data.n_topics), size=(2, 3, data.n_documents))
    phi = rng.dirichlet(np.ones(data.n_words), size=(2, 3, data.n_topics))
    together = lda.label_invariants(data, theta, phi)
    for c in range(2):
        for d in range(3):
            one = lda.label_invariants(data, theta[c, d], phi[c, d])
            for name in ("doc_word", "coassignment"):
                np.testing.assert_allclose(together[name][c, d], one[name], rtol=1e-12)


@pytest.mark.parametrize(
    ("extra_documents", "extra_topics", "extra_words", "field"),
    [(1, 0, 0, "theta"), (0, 1, 0, "phi"), (0, 0, -1, "phi")],
)
def test_label_invariants_refuse_shapes_that_do_not_fit_the_corpus(
    extra_documents, extra_topics, extra_words, field
):
    data, _ = PROBLEMS["bank"]
    theta = np.full((data.n_documents + extra_documents, 2), 0.5)
    phi = np.full((2 + extra_topics, data.n_words + extra_words), 0.2)
    with pytest.raises(ValueError, match=f"^{field}: expected shape"):
        lda.label_invariants(data, theta, phi)


def test_output_without_the_derived_variables_gets_them_computed():
    data, prior = PROBLEMS["bank"]
    tree = zoo.sample(MODEL, data, prior, draws=20, chains=2, seed=5, progress=False)
    full = checked_draws(tree, MODEL, data, prior)
    cut = checked_draws(_theta_phi_only(tree), MODEL, data, prior)
    for name in ("doc_word", "coassignment"):
        np.testing.assert_allclose(cut[name].values, full[name].values, rtol=1e-12)
        assert cut[name].dims == full[name].dims


def test_a_missing_input_is_named_with_what_may_be_left_out():
    data, prior = PROBLEMS["bank"]
    tree = zoo.sample(MODEL, data, prior, draws=5, chains=2, seed=5, progress=False)
    with pytest.raises(SamplerOutputError, match=r"missing variable\(s\) \['phi'.*computes them"):
        checked_draws({"theta": tree.posterior["theta"].values}, MODEL, data, prior)


def test_a_theta_phi_sampler_is_validated_on_the_label_invariants_too():
    # The exact check compares doc_word and coassignment under a symmetric prior: a
    # sampler returning theta and phi only is judged on them, and a wrong one is caught.
    right = validate("lda", theta_phi_sampler, checks=("exact",), seed=1, workers=0)
    assert right.verdict == "pass", str(right)
    wrong = validate("lda", token_not_removed_sampler, checks=("exact",), seed=1, workers=0)
    assert wrong.verdict == "fail", str(wrong)

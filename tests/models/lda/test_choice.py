"""The sampler the zoo picks for LDA (zoo.models.lda.choice) and how the output says so.

The default kernel decides per data set: it must run exactly the sampler the rule
names (the same draws, bit for bit, as that sampler asked for explicitly), and
``zoo.sample`` must record and print which one ran.
"""

import numpy as np
import pytest

import zoo
from zoo.models.lda import Data, Prior, gibbs_kernel, kernel, make_kernel, metropolis_kernel
from zoo.models.lda.choice import (
    METROPOLIS_CYCLES,
    METROPOLIS_FROM,
    SamplerChoice,
    choose_sampler,
    metropolis_from_topics,
)
from zoo.models.lda.metropolis import DEFAULT_CYCLES

CORPUS = [[0, 1, 1, 2, 3], [2, 3, 3], [1, 0, 4, 4]]
# The threshold for a corpus as small as CORPUS (12 tokens).
METROPOLIS_FROM_TOPICS = metropolis_from_topics(12)


def _chain(the_kernel, data, prior, sweeps=3, seed=5):
    rng = np.random.default_rng(seed)
    state = the_kernel.init(data, prior, rng)
    for _ in range(sweeps):
        state = the_kernel.step(state, data, prior, rng)
    return state.topic


@pytest.mark.parametrize(("bound", "topics"), [(300_000, 1_700)])
def test_the_rule_takes_gibbs_below_the_threshold_and_metropolis_from_it(bound, topics):
    for n_tokens in (bound // 10, bound - 1):
        below = choose_sampler(n_topics=topics - 1, n_tokens=n_tokens)
        at = choose_sampler(n_topics=topics, n_tokens=n_tokens)
        assert below == SamplerChoice("gibbs", 1, below.reason)
        assert at == SamplerChoice("metropolis", METROPOLIS_CYCLES, at.reason)
        assert f"{topics} topics for {n_tokens} tokens" in at.reason
    assert at.label == f"metropolis (cycles={METROPOLIS_CYCLES})"
    assert below.label == "gibbs"
    # From the band's bound up the next, lower threshold holds: the twin of the above.
    assert choose_sampler(n_topics=topics - 1, n_tokens=bound).sampler == "metropolis"


def test_the_threshold_falls_with_the_corpus_and_holds_past_the_last_band():
    thresholds = [metropolis_from_topics(n) for n in (0, 84_010, 1_000_061, 10**7, 10**9)]
    assert thresholds == [1_700, 1_700, 400, 400, 400]
    assert METROPOLIS_FROM[-1] == (None, 400)
    assert choose_sampler(n_topics=399, n_tokens=10**9).sampler == "gibbs"
    assert choose_sampler(n_topics=400, n_tokens=10**7).sampler == "metropolis"


@pytest.mark.parametrize(
    ("n_tokens", "n_topics", "first_to_99"),
    [
        # Each measured pair of the module docstring, by the sweep first to 99% of the way.
        (84_010, 1_000, "gibbs"),
        (84_010, 1_500, "gibbs"),  # on the mean of two seeds, which split
        (84_010, 2_000, "metropolis"),
        (84_010, 10_000, "metropolis"),
        (1_000_061, 100, "gibbs"),
        (1_000_061, 1_000, "metropolis"),
        (10**7, 300, "gibbs"),
        (10**7, 500, "metropolis"),
    ],
)
def test_the_rule_picks_the_measured_winner(n_tokens, n_topics, first_to_99):
    assert choose_sampler(n_topics=n_topics, n_tokens=n_tokens).sampler == first_to_99


@pytest.mark.parametrize(
    ("arguments", "field"),
    [({"n_topics": 0, "n_tokens": 5}, "n_topics"), ({"n_topics": 3, "n_tokens": -1}, "n_tokens")],
)
def test_the_rule_names_a_bad_argument(arguments, field):
    with pytest.raises(ValueError, match=field):
        choose_sampler(**arguments)


def test_the_default_kernel_runs_gibbs_on_small_k_draw_for_draw():
    data, prior = Data(CORPUS, topics=3), Prior()
    assert np.array_equal(_chain(kernel, data, prior), _chain(gibbs_kernel, data, prior))
    # The twin: the other sampler draws otherwise from the same seed, so equality above
    # says which sampler ran.
    assert not np.array_equal(_chain(metropolis_kernel, data, prior), _chain(kernel, data, prior))


def test_the_default_kernel_runs_metropolis_from_the_threshold_draw_for_draw():
    data, prior = Data(CORPUS, topics=METROPOLIS_FROM_TOPICS), Prior()
    explicit = make_kernel(sampler="metropolis", cycles=METROPOLIS_CYCLES)
    assert np.array_equal(_chain(kernel, data, prior), _chain(explicit, data, prior))
    assert not np.array_equal(_chain(gibbs_kernel, data, prior), _chain(kernel, data, prior))


def test_describe_names_the_sampler_and_the_rule():
    small, large = Data(CORPUS, topics=3), Data(CORPUS, topics=METROPOLIS_FROM_TOPICS)
    assert kernel.describe(small, Prior()).startswith("lda gibbs (auto: K = 3 <")
    assert kernel.describe(large, Prior()).startswith("lda metropolis (cycles=")
    assert gibbs_kernel.describe(large, Prior()) == "lda gibbs"
    assert "not exact" in make_kernel(sampler="metropolis", parts=2).describe(small, Prior())
    assert "fault 'token-not-removed'" in make_kernel(fault="token-not-removed").describe(
        small, Prior()
    )


def test_sample_records_and_prints_the_sampler(capsys):
    data, prior = Data(CORPUS, topics=3), Prior()
    tree = zoo.sample("lda", data, prior, draws=5, tune=2, chains=1, seed=1, progress=True)
    for group in ("posterior", "sample_stats"):
        assert tree[group].attrs["sampler"] == kernel.describe(data, prior)
    assert f"lda: sampling with {kernel.describe(data, prior)}" in capsys.readouterr().err
    quiet = zoo.sample("lda", data, prior, draws=5, tune=2, chains=1, seed=1, progress=False)
    assert "sampling with" not in capsys.readouterr().err
    assert quiet["posterior"].attrs["sampler"] == tree["posterior"].attrs["sampler"]


def test_an_explicit_kernel_is_recorded_as_itself():
    data, prior = Data(CORPUS, topics=3), Prior()
    tree = zoo.sample(
        "lda", data, prior, draws=5, tune=2, chains=1, seed=1, kernel=metropolis_kernel
    )
    assert tree["posterior"].attrs["sampler"] == f"lda metropolis (cycles={DEFAULT_CYCLES})"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"sampler": "auto", "cycles": 2}, "cycles"),
        ({"sampler": "auto", "parts": 2}, "parts"),
        ({"sampler": "auto", "fault": "mh-no-proposal-ratio"}, "fault"),
        ({"sampler": "fastest"}, "sampler"),
    ],
)
def test_make_kernel_names_what_auto_does_not_take(arguments, message):
    with pytest.raises(ValueError, match=message):
        make_kernel(**arguments)

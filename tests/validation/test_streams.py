"""Each check of the battery draws from its own stream, and the same seed repeats a run.

The streams are those of zoo.core.streams: ``exact-fits``, ``sbc-simulations``,
``geweke-chains``, ``invariance-replicates``. Each test below pins a check to its
documented stream by recording what the check hands the sampler or kernel.
"""

import numpy as np
import pytest

import zoo
from zoo.core import streams
from zoo.diagnostics.geweke import geweke
from zoo.diagnostics.invariance import invariance
from zoo.diagnostics.sbc import simulation_ranks
from zoo.validation import SamplerUnderTest, validate

SPEC = zoo.get("beta-binomial")
PURPOSES = ("exact-fits", "sbc-simulations", "geweke-chains", "invariance-replicates")
SEED = 11


def _recording_kernel(seen: list):
    """The model's kernel, recording the data every step and draw is handed."""
    kernel = SPEC.kernel

    def step(state, data, prior, rng):
        seen.append(("step", data))
        return kernel.step(state, data, prior, rng)

    def draw(state, data, prior, rng):
        seen.append(("draw", data))
        return kernel.draw(state, data, prior, rng)

    return zoo.Kernel(kernel.init, step, draw)


def _simulated(sequence, prior, size):
    return SPEC.simulate(prior, np.random.default_rng(sequence), **size)[1]


def _same(a, b) -> bool:
    return np.array_equal(a.successes, b.successes) and np.array_equal(a.trials, b.trials)


def test_the_purposes_of_the_battery_never_share_a_stream():
    states = {
        (purpose, i): tuple(streams.item(SEED, purpose, i).generate_state(4))
        for purpose in PURPOSES
        for i in range(5)
    }
    assert len(set(states.values())) == len(states)


def test_geweke_chain_i_and_sbc_simulation_i_start_from_different_draws():
    prior, size = SPEC.simulation_setup()
    seen = []
    geweke(
        SPEC,
        _recording_kernel(seen),
        draws=4,
        pilot=2,
        chains=3,
        iterations=2,
        max_iterations=2,
        batches=2,
        seed=SEED,
        setup=(prior, size),
    )
    steps = [data for kind, data in seen if kind == "step"]
    fits = []

    def fit(data, prior, *, draws, chains, seed):
        fits.append((seed, data))
        return SamplerUnderTest(SPEC).fit(data, prior, draws=draws, chains=chains, seed=seed)

    for i in range(3):
        simulation_ranks(SPEC, fit, i, seed=SEED, prior=prior, size=size, draws=20, chains=2)
    for i in range(3):
        # Chain i starts from its own exact joint draw: item i + 1 of geweke-chains
        # (item 0 is the marginal-conditional side).
        chain_start = steps[2 * i]
        assert _same(
            chain_start, _simulated(streams.item(SEED, "geweke-chains", i + 1), prior, size)
        )
        # Simulation i: item i of sbc-simulations, split into simulation, fit and ties.
        simulate, fit_seq, _ = streams.item(SEED, "sbc-simulations", i).spawn(3)
        seed, data = fits[i]
        assert seed == streams.integer(fit_seq)
        assert _same(data, _simulated(simulate, prior, size))
        assert not _same(data, chain_start)


def test_invariance_replicate_r_draws_from_its_item():
    prior, size = SPEC.kernel_checks.setup()
    seen = []
    invariance(SPEC, _recording_kernel(seen), replicates=3, seed=SEED)
    draws = [data for kind, data in seen if kind == "draw"]
    for r in range(3):
        expected = _simulated(streams.item(SEED, "invariance-replicates", r), prior, size)
        assert _same(draws[2 * r], expected)


def test_the_same_seed_gives_the_same_battery_bit_for_bit():
    options = {
        "checks": ("exact", "sbc"),
        "problems": ["informative-fixed"],
        "budgets": {
            "exact": {"draws": 200, "chains": 2},
            "sbc": {"simulations": 20, "draws": 40},
        },
        "seed": 7,
        "workers": 0,
    }
    first, second = validate(SPEC, **options), validate(SPEC, **options)
    assert first.verdict == second.verdict
    for a, b in zip(first.checks, second.checks, strict=True):
        assert (a.name, a.verdict, a.failing) == (b.name, b.verdict, b.failing)
    exact_a, exact_b = first.checks[0].details, second.checks[0].details
    for name in exact_a:
        np.testing.assert_array_equal(
            exact_a[name].table["estimate"].values, exact_b[name].table["estimate"].values
        )
    np.testing.assert_array_equal(first.checks[1].details.ranks, second.checks[1].details.ranks)
    other = validate(SPEC, **{**options, "seed": 8})
    assert not np.array_equal(first.checks[1].details.ranks, other.checks[1].details.ranks)


def test_invariance_is_reproducible_and_depends_on_the_seed():
    first = invariance(SPEC, seed=3, replicates=50)
    second = invariance(SPEC, seed=3, replicates=50)
    np.testing.assert_array_equal(first.table.observed.values, second.table.observed.values)
    other = invariance(SPEC, seed=4, replicates=50)
    assert not np.array_equal(first.table.observed.values, other.table.observed.values)


@pytest.mark.parametrize("purpose", ["geweke-chains", "invariance-replicates"])
def test_kernel_checks_refuse_a_bad_seed(purpose):
    check = geweke if purpose == "geweke-chains" else invariance
    with pytest.raises(ValueError, match="seed: must be an integer >= 0"):
        check(SPEC, seed=-1)

"""Geweke's test and the one-sweep invariance check, and the models' KernelChecks.

Verdicts come from Holm at the stated rate (alpha = 0.01) over the test functions;
seeds are fixed for determinism, never tuned. The measured detection and false-alarm
rates over many seeds are in bench/results/validate_power_v0.1/records.jsonl (0.1's)
and bench/results/catalogue/ (the extended catalogue); bench/README.md has the
commands.
"""

import dataclasses
import pickle

import numpy as np
import pytest

import zoo
from examples import eight_schools
from tests.support import pymc_models
from zoo.core.contract import OutsideSupport
from zoo.diagnostics.findings import COULD_NOT_JUDGE
from zoo.diagnostics.geweke import (
    EARLY_SHARE,
    FUTILITY_MARGIN,
    chain_side,
    confirmed,
    geweke,
    geweke_result,
    length_to_clear,
    look,
    look_alpha,
    marginal_side,
    next_length,
    stage_lengths,
    within_reach,
)
from zoo.diagnostics.invariance import invariance, invariance_replicates, invariance_result
from zoo.diagnostics.kernel_result import KernelCheckResult, welch_test
from zoo.diagnostics.moments import MomentFunctions
from zoo.specification.adapter import data_only_kernel, specified_model

MODELS = ["beta-binomial", "naive-bayes", "gda", "qda", "gaussian-nb", "lda"]
# Per model, a fault the invariance check catches in one sweep (bench/README.md lists
# which check catches which fault; "not removed" bugs need the exact check).
INVARIANCE_FAULT = {
    "beta-binomial": "jacobian-omitted",
    "naive-bayes": "normaliser-dropped",
    "gda": "kappa-not-updated",
    "qda": "kappa-not-updated",
    "gaussian-nb": "kappa-not-updated",
    "lda": "beta-not-times-V",
}


def _joint(name, seed=0):
    spec = zoo.get(name)
    checks = spec.kernel_checks
    prior, size = checks.setup()
    rng = np.random.default_rng(seed)
    truth, data = spec.simulate(prior, rng, **size)
    return spec, checks, prior, truth, data, rng


@pytest.mark.parametrize("name", MODELS)
def test_state_round_trip_and_redraw_keeps_the_design(name):
    spec, checks, prior, truth, data, rng = _joint(name)
    latents = checks.latents(truth, data, prior, rng)
    state = checks.state(latents, data, prior)
    read = checks.read(state, data)
    assert read.keys() == latents.keys()
    for key in latents:
        np.testing.assert_array_equal(read[key], latents[key])
    frozen = {key: np.array(value, copy=True) for key, value in truth.items()}
    redrawn = checks.redraw(truth, latents, data, prior, rng)
    for key, value in truth.items():
        np.testing.assert_array_equal(value, frozen[key])  # nothing modified in place
    assert type(redrawn) is type(data)
    # The kernel runs on the new data from the same latents, and sees the same design.
    stepped = spec.kernel.step(checks.state(latents, redrawn, prior), redrawn, prior, rng)
    params = spec.kernel.draw(stepped, redrawn, prior, rng)
    for key in checks.variables or truth:
        assert np.shape(params[key]) == np.shape(truth[key])


def test_lda_latent_topics_follow_their_exact_conditional():
    _spec, checks, prior, truth, data, rng = _joint("lda", seed=3)
    theta, phi = truth["theta"], truth["phi"]
    document = np.repeat(np.arange(data.n_documents), np.diff(data.doc_start))
    weights = theta[document] * phi[:, data.token_word].T
    weights /= weights.sum(axis=1, keepdims=True)
    draws = np.stack([checks.latents(truth, data, prior, rng)["topic"] for _ in range(4000)])
    frequency = (draws == 1).mean(axis=0)
    z = (frequency - weights[:, 1]) / np.sqrt(weights[:, 0] * weights[:, 1] / 4000)
    # 9 tokens, Bonferroni at 1%: |z| < 3.26.
    assert np.all(np.abs(z) < 3.26), z


def test_naive_bayes_redraw_keeps_lengths_and_hidden_labels():
    _spec, checks, prior, truth, data, rng = _joint("naive-bayes")
    latents = checks.latents(truth, data, prior, rng)
    redrawn = checks.redraw(truth, latents, data, prior, rng)
    np.testing.assert_array_equal(redrawn.lengths, data.lengths)
    np.testing.assert_array_equal(redrawn.unlabelled, data.unlabelled)


def test_welch_test_matches_scipy():
    from scipy import stats

    rng = np.random.default_rng(0)
    a, b = rng.normal(size=50), rng.normal(0.3, 2.0, size=80)
    t, _df, p = welch_test(
        b.mean() - a.mean(), b.std(ddof=1) / np.sqrt(80), 79, a.std(ddof=1) / np.sqrt(50), 49
    )
    expected = stats.ttest_ind(b, a, equal_var=False)
    assert t == pytest.approx(expected.statistic)
    assert p == pytest.approx(expected.pvalue)
    # A constant function: p = 1 when both sides agree, 0 when they do not.
    _, _, p_const = welch_test(np.array([0.0, 1.0]), np.zeros(2), 10)
    np.testing.assert_array_equal(p_const, [1.0, 0.0])


def test_moment_functions_names_and_values():
    functions = MomentFunctions(
        ["theta"], {"theta": (2,)}, log_likelihood=lambda data, p: -1.5, latents={"z": (1,)}
    )
    assert functions.labels() == [
        "mean theta[dim_0=0]",
        "mean theta[dim_0=1]",
        "second moment theta[dim_0=0]",
        "second moment theta[dim_0=1]",
        "mean z[dim_0=0]",
        "second moment z[dim_0=0]",
        "log_likelihood",
    ]
    values = functions({"theta": np.array([0.5, 2.0])}, None, {"z": np.array([3])})
    np.testing.assert_allclose(values, [0.5, 2.0, 0.25, 4.0, 3.0, 9.0, -1.5])
    with pytest.raises(ValueError, match="theta: expected shape"):
        functions({"theta": np.zeros(3)}, None, {"z": np.array([3])})


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"draws": 1}, "draws: must be an integer >= 2"),
        ({"chains": 0}, "chains: must be an integer >= 1"),
        ({"iterations": 10, "batches": 20}, "iterations: must be >= batches"),
        ({"alpha": 1.5}, "alpha: must be a probability in"),
        ({"seed": -1}, "seed: must be an integer >= 0"),
        ({"draws": 1000}, r"draws: must be >= pilot \+ 2 = 1002"),
        ({"max_iterations": 5000}, "max_iterations: must be an integer >= 10000"),
    ],
)
def test_geweke_rejects_bad_settings(kwargs, message):
    with pytest.raises(ValueError, match=message):
        geweke(zoo.get("beta-binomial"), **kwargs)


def test_kernel_checks_take_a_model_not_a_name():
    for check in (geweke, invariance):
        with pytest.raises(ValueError, match=r"model: expected a zoo\.Model"):
            check("beta-binomial")


def test_a_model_without_kernel_checks_is_refused():
    import dataclasses

    spec = dataclasses.replace(zoo.get("beta-binomial"), kernel_checks=None)
    with pytest.raises(ValueError, match="no kernel_checks"):
        invariance(spec)


@pytest.mark.parametrize(
    "name",
    # The per-class Gaussian classifiers take about 20 s each here (2 x 2000 replicates
    # of a sweep and a draw per class): -m slow, to keep the default run in its budget.
    [
        pytest.param(n, marks=pytest.mark.slow) if n in ("qda", "gaussian-nb") else n
        for n in MODELS
    ],
)
def test_invariance_passes_the_kernel_and_catches_a_fault(name):
    spec = zoo.get(name)
    right = invariance(spec, seed=1, replicates=2000)
    assert right.verdict == "pass", str(right)
    wrong = invariance(spec, spec.faults[INVARIANCE_FAULT[name]], seed=1, replicates=2000)
    assert wrong.verdict == "fail", str(wrong)
    assert wrong.failing()


def test_invariance_names_the_conditional_at_fault():
    spec = zoo.get("gda")
    # nu-off-by-one is in draw (the inverse-Wishart's degrees of freedom) only.
    result = invariance(spec, spec.faults["nu-off-by-one"], seed=2, replicates=2000)
    assert result.verdict == "fail"
    assert {row.split(":")[0] for row in result.failing()} == {"draw"}
    # jacobian-omitted is in the slice sweep over (u, v) only.
    spec = zoo.get("beta-binomial")
    result = invariance(spec, spec.faults["jacobian-omitted"], seed=2, replicates=2000)
    assert result.verdict == "fail"
    assert {row.split(":")[0] for row in result.failing()} == {"step"}


@pytest.mark.slow  # 35 s: the default run stays under 10 minutes on 2 cores, cold
def test_geweke_passes_the_kernel_and_catches_a_fault():
    right = geweke(zoo.get("beta-binomial"), seed=1)
    assert right.verdict == "pass", str(right)
    spec = zoo.get("beta-binomial")
    wrong = geweke(spec, spec.faults["jacobian-omitted"], seed=1)
    assert wrong.verdict == "fail", str(wrong)
    # Failed twice: the first replicate, then its independent confirmation.
    assert wrong.table.attrs["confirmation"].startswith("confirmed: an independent replicate")
    # Its chain drifts in log_concentration (ESS about 5 at 10,000 steps), whose rows
    # stay below the gate; a row that cleared it fails, its error bounded by that ESS.
    failing = wrong.failing()
    assert failing
    rows = wrong.table
    assert all(rows.gates_passed.values[rows.rejected.values])


def test_geweke_is_reproducible():
    spec = zoo.get("beta-binomial")
    first = geweke(spec, seed=5, draws=200, pilot=50, chains=2, iterations=200, max_iterations=400)
    second = geweke(
        spec, seed=5, draws=200, pilot=50, chains=2, iterations=200, max_iterations=400
    )
    np.testing.assert_array_equal(first.table.observed.values, second.table.observed.values)
    np.testing.assert_array_equal(first.table.expected.values, second.table.expected.values)


def test_geweke_sides_run_apart_give_the_values_of_one_run():
    """The battery runs the marginal side and each chain as tasks; same values, any order."""
    spec = zoo.get("gaussian-nb")
    whole = geweke(spec, seed=5, draws=200, pilot=50, chains=2, iterations=200, max_iterations=200)
    # geweke restarts its chains every 200 // 20 batches = 10 steps
    chains = [chain_side(spec, chain=c, iterations=200, seed=5, segment=10) for c in (1, 0)]
    chains = chains[::-1]
    apart = geweke_result(marginal_side(spec, draws=200, seed=5), chains, pilot=50)
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(apart.table[column].values, whole.table[column].values)
    assert apart.verdict == whole.verdict


@pytest.mark.parametrize("name", ["beta-binomial", "lda"])
def test_a_continued_chain_has_the_values_of_the_chain_run_from_its_start(name):
    """Geweke's stages continue their chains: the same values, bit for bit, steps run once,
    through restarts (every 25 steps here: one at the step the continuation begins)."""
    spec = zoo.get(name)
    whole = chain_side(spec, chain=1, iterations=120, seed=3, segment=25)
    short = chain_side(spec, chain=1, iterations=50, seed=3, segment=25)
    longer = chain_side(spec, chain=1, iterations=120, seed=3, segment=25, after=short)
    np.testing.assert_array_equal(longer.values, whole.values)
    assert longer.redraws == whole.redraws
    assert longer.end.steps == 120
    # The side continued is left as it was: continuing it again gives the same values.
    again = chain_side(spec, chain=1, iterations=120, seed=3, segment=25, after=short)
    np.testing.assert_array_equal(again.values, whole.values)
    # The twin: continued from another seed's chain, the values are not those.
    other = chain_side(spec, chain=1, iterations=50, seed=4, segment=25)
    moved = chain_side(spec, chain=1, iterations=120, seed=3, segment=25, after=other)
    assert not np.array_equal(moved.values[50:], whole.values[50:])


def test_a_pymc_models_chain_continues_in_another_process_with_the_same_values():
    """Pickled as the battery ships it to a worker: the end's data, latents and generator."""
    spec = specified_model(pymc_models.beta_binomial(), kernel=pymc_models.KERNEL)
    whole = chain_side(spec, chain=0, iterations=60, seed=7)
    short = pickle.loads(pickle.dumps(chain_side(spec, chain=0, iterations=25, seed=7)))
    longer = chain_side(spec, chain=0, iterations=60, seed=7, after=short)
    np.testing.assert_array_equal(longer.values, whole.values)


def test_a_chain_is_continued_only_from_a_shorter_chain_of_its_model():
    spec = zoo.get("beta-binomial")
    side = chain_side(spec, chain=0, iterations=40, seed=1)
    with pytest.raises(ValueError, match="after: its chain ran 40 steps, more than iterations"):
        chain_side(spec, chain=0, iterations=20, seed=1, after=side)
    with pytest.raises(ValueError, match="after: must be a side chain_side returned"):
        chain_side(spec, chain=0, iterations=80, seed=1, after=side[:2])
    with pytest.raises(ValueError, match="after: must be a side chain_side returned"):
        chain_side(zoo.get("naive-bayes"), chain=0, iterations=80, seed=1, after=side)
    with pytest.raises(ValueError, match="after: its chain restarted every 500 steps, not"):
        chain_side(spec, chain=0, iterations=80, seed=1, segment=20, after=side)


def test_geweke_runs_each_step_of_a_growing_chain_once():
    """Chains that double from 200 cost their last length each, not 200 + 400 + ...

    A maximum of 1,600 keeps the gate within reach of the first look (about 3,500
    steps needed there, at most FUTILITY_MARGIN x 1,600), so the chains grow."""
    spec = zoo.get("beta-binomial")
    steps = []

    def step(state, data, prior, rng):
        steps.append(1)
        return spec.kernel.step(state, data, prior, rng)

    counted = spec.kernel._replace(step=step)
    result = geweke(
        spec, counted, seed=2, draws=2000, pilot=500, chains=2, iterations=200, max_iterations=1600
    )
    stopped = result.table.attrs["draws"]
    assert stopped > 200, "the chains must have grown for this test to say anything"
    assert len(steps) == 2 * stopped


def test_a_confirmation_draws_from_streams_of_its_own():
    """Its marginal side and chains are new draws, reproducible as the first's are."""
    spec = zoo.get("beta-binomial")
    first = marginal_side(spec, draws=50, seed=1)
    confirmation = marginal_side(spec, draws=50, seed=1, replicate=1)
    assert not np.array_equal(first.values, confirmation.values)
    again = marginal_side(spec, draws=50, seed=1, replicate=1)
    np.testing.assert_array_equal(confirmation.values, again.values)
    chain = chain_side(spec, chain=0, iterations=40, seed=1, segment=10)
    confirmation = chain_side(spec, chain=0, iterations=40, seed=1, segment=10, replicate=1)
    assert not np.array_equal(chain.values, confirmation.values)
    # A confirmation's chain continues as any chain does, from its own end.
    short = chain_side(spec, chain=0, iterations=20, seed=1, segment=10, replicate=1)
    longer = chain_side(spec, chain=0, iterations=40, seed=1, segment=10, after=short, replicate=1)
    np.testing.assert_array_equal(longer.values, confirmation.values)
    for replicate in (2, True):
        with pytest.raises(ValueError, match="replicate: must be 0 or 1"):
            marginal_side(spec, draws=50, seed=1, replicate=replicate)
    for replicate in (2, True, "first"):
        with pytest.raises(ValueError, match="replicate: must be None, 0 or 1"):
            geweke(spec, seed=1, replicate=replicate)


def _replicate(p_values, settings="a replicate"):
    """A Geweke result from its rows' p-values (the rest of each row made up)."""
    n = len(p_values)
    rows = {
        "function": [f"f{i}" for i in range(n)],
        "part": ["joint"] * n,
        "expected": np.zeros(n),
        "expected_se": np.ones(n),
        "observed": np.ones(n),
        "se": np.ones(n),
        "t": np.ones(n),
        "df": np.full(n, 100.0),
        "p": np.asarray(p_values, dtype=float),
    }
    return KernelCheckResult.build("geweke", rows, alpha=0.01, settings=settings)


def test_a_failure_stands_only_when_its_confirmation_fails_too():
    failed, passed = _replicate([1e-6, 0.3], "first"), _replicate([0.4, 0.9], "second")
    answer = confirmed(failed, passed)
    assert answer.verdict == "pass"
    np.testing.assert_array_equal(answer.table.p.values, passed.table.p.values)
    note = answer.table.attrs["confirmation"]
    assert note.startswith("not confirmed: a first replicate rejected 1 test functions")
    # Holm over the two rows doubles the smallest p
    assert "(joint: f0; smallest adjusted p 2e-06)" in note
    assert answer.table.attrs["settings"] == f"second; {note}"
    # The twin: a confirmation that fails too leaves the first replicate failing.
    again = _replicate([0.5, 1e-8], "second")
    answer = confirmed(failed, again)
    assert answer.verdict == "fail"
    np.testing.assert_array_equal(answer.table.p.values, failed.table.p.values)
    assert answer.table.attrs["confirmation"].startswith(
        "confirmed: an independent replicate (stream geweke-confirmation) failed too, "
        "rejecting 1 test functions (joint: f1"
    )
    # The results given are left as they were.
    assert "confirmation" not in failed.table.attrs
    assert failed.table.attrs["settings"] == "first"
    with pytest.raises(ValueError, match="first: only a failed run is confirmed, got 'pass'"):
        confirmed(passed, failed)


def test_geweke_result_refuses_sides_of_other_test_functions():
    spec = zoo.get("beta-binomial")
    labels, values = marginal_side(spec, draws=50, seed=1)[:2]
    chain = chain_side(spec, chain=0, iterations=40, seed=1)
    with pytest.raises(ValueError, match="chains: need at least one chain"):
        geweke_result((labels, values), [], pilot=20)
    with pytest.raises(ValueError, match=r"chains\[0\]: its test functions differ"):
        geweke_result((labels[::-1], values), [chain], pilot=20)


def test_invariance_replicate_ranges_run_apart_give_the_values_of_one_run():
    spec = zoo.get("lda")
    whole = invariance(spec, replicates=300, seed=4)
    parts = [invariance_replicates(spec, start=a, stop=a + 100, seed=4) for a in (0, 100, 200)]
    apart = invariance_result(parts)
    for column in ("expected", "observed", "se", "t", "p"):
        np.testing.assert_array_equal(apart.table[column].values, whole.table[column].values)
    with pytest.raises(ValueError, match="parts: need at least one"):
        invariance_result([])
    with pytest.raises(ValueError, match=r"parts\[1\]: its test functions differ"):
        invariance_result([parts[0], parts[1]._replace(labels=parts[1].labels[::-1])])


def test_every_model_catalogues_six_faults_and_kernel_checks():
    for name in zoo.names():
        spec = zoo.get(name)
        assert len(spec.faults) >= 6, name
        assert spec.kernel_checks is not None, name


def test_geweke_chains_double_until_every_gate_clears_then_judge():
    """The adaptive stop: a length that leaves rows unjudged no longer ends the test.

    At 400 steps per chain the beta-binomial's hyperparameters are below the ESS gate
    (the old check was inconclusive there); doubling, the chains stop at the first
    length where every gate clears, and the kernel is judged.
    """
    spec = zoo.get("beta-binomial")
    short = geweke(spec, seed=2, draws=2000, pilot=500, iterations=400, max_iterations=400)
    assert short.verdict == COULD_NOT_JUDGE
    assert "max_iterations" in short.table.attrs["cure"]
    assert all(f.cure for f in short.findings() if f.verdict == COULD_NOT_JUDGE)
    grown = geweke(spec, seed=2, draws=2000, pilot=500, iterations=400, max_iterations=25600)
    assert grown.verdict == "pass", str(grown)
    assert grown.table.gates_passed.values.all()
    stopped = grown.table.attrs["draws"]
    assert 400 < stopped < 25600
    assert (
        f"stages {', '.join(str(n) for n in stage_lengths(400, stopped))};"
        in (grown.table.attrs["settings"])
    )
    # The twin: a wrong kernel under the same rule fails, its chains grown too.
    wrong = geweke(
        spec,
        spec.faults["slice-level-uniform"],
        seed=2,
        draws=2000,
        pilot=500,
        iterations=400,
        max_iterations=25600,
    )
    assert wrong.verdict == "fail", str(wrong)
    assert wrong.table.attrs["draws"] > 400


def test_the_looks_spend_alpha_so_that_their_union_is_at_most_alpha():
    lengths = stage_lengths(10000, 80000)
    assert lengths == [10000, 20000, 40000, 80000]
    assert stage_lengths(300, 1000) == [300, 600, 1000]
    early = look_alpha(0.01, 10000, 80000, last=False)
    last = look_alpha(0.01, 10000, 80000, last=True)
    assert early * (len(lengths) - 1) + last == pytest.approx(0.01)
    assert early == pytest.approx(EARLY_SHARE * 0.01 / 3)
    # One stage only: the one look has all of alpha.
    assert look_alpha(0.01, 500, 500, last=True) == 0.01


def test_geweke_tests_the_label_invariants_of_exchangeable_components():
    """A model whose latents are its variables, mixture components exchangeable."""
    import pymc as pm

    from zoo.diagnostics.geweke import tested_latents
    from zoo.specification.adapter import specified_model

    def mixture():
        with pm.Model(coords={"obs": [0, 1, 2], "component": [0, 1]}) as model:
            w = pm.Beta("w", 1.0, 1.0)
            z = pm.Bernoulli("z", p=w, dims="obs")
            mu = pm.Normal("mu", 0.0, 1.0, dims="component")
            pm.Normal("y", mu=mu[z], sigma=1.0, observed=[0.0, 1.0, 2.0], dims="obs")
        return model

    model = specified_model(mixture)
    data, prior = model.default_problem()
    latents = {"w": np.array(0.2), "z": np.array([1, 0, 1]), "mu": np.array([-1.0, 3.0])}
    tested = tested_latents(model, prior, data, latents)
    assert sorted(tested) == ["coassignment_z", "mu_of_z", "w_of_z"]
    assert tested["mu_of_z"].tolist() == [3.0, -1.0, 3.0]
    assert tested["w_of_z"].tolist() == pytest.approx([0.2, 0.8, 0.2])
    # the twin: compared raw, the latents are the test functions as they are
    raw = specified_model(mixture, exchangeable=False)
    assert tested_latents(raw, prior, data, latents) is latents


# Data outside their support or type (docs/design.md, "SBC and data outside their
# support"): the Beta-Binomial with a fixed Beta(2, 3) prior, 6 groups of 3 trials, whose
# data count as outside when the first group has no success (a share of
# E[(1 - theta)^3] = B(2, 6) / B(2, 3) = 2 / 7 of the prior-predictive draws).
OUTSIDE_SETUP = (zoo.get("beta-binomial").Prior(a=2.0, b=3.0), {"groups": 6, "trials": 3})


def _outside(data) -> bool:
    return data.successes[0] == 0


def _conditioned(chain_conditions: bool):
    """The model whose simulations raise OutsideSupport on the event; its chain's data
    redraw raises it too when ``chain_conditions``, as a forward-simulated PyMC model's
    does (``zoo.specification.forward``)."""
    base = zoo.get("beta-binomial")

    def simulate(prior, rng, **size):
        truth, data = base.simulate(prior, rng, **size)
        if _outside(data):
            raise OutsideSupport("no success in the first group")
        return truth, data

    def redraw(params, latents, data, prior, rng):
        new = base.kernel_checks.redraw(params, latents, data, prior, rng)
        if chain_conditions and _outside(new):
            raise OutsideSupport("no success in the first group")
        return new

    checks = base.kernel_checks._replace(redraw=redraw)
    return dataclasses.replace(base, simulate=simulate, kernel_checks=checks)


def test_geweke_redraws_data_outside_their_support_on_both_sides_and_counts_them():
    """Both simulators then draw from the joint conditioned on the event: a correct
    kernel passes, and the settings say how many data sets were redrawn."""
    options = {"draws": 2000, "pilot": 500, "chains": 2, "iterations": 2000, "seed": 3}
    result = geweke(_conditioned(True), setup=OUTSIDE_SETUP, **options)
    assert result.verdict == "pass", str(result)
    marginal = marginal_side(_conditioned(True), draws=2000, seed=3, setup=OUTSIDE_SETUP)
    assert 0.2 < marginal.redraws / (marginal.redraws + 2000) < 0.37  # 2/7, within 5 se
    assert f"{marginal.redraws} for the marginal draws" in result.table.attrs["settings"]


def test_the_twin_a_chain_that_does_not_condition_fails():
    """Redrawn on the marginal side only, the two sides draw from different joints."""
    options = {"draws": 2000, "pilot": 500, "chains": 2, "iterations": 2000, "seed": 3}
    result = geweke(_conditioned(False), setup=OUTSIDE_SETUP, **options)
    assert result.verdict == "fail", str(result)


# Geweke's gate and its futility rule on sides built by hand: two scalars, ``fast``
# independent N(0, 1) draws and ``slow`` an AR(1) with N(0, 1) margins, restarted from a
# N(0, 1) draw every SEGMENT steps, as chain_side restarts its chains from exact joint
# draws. Within a segment the chains' ESS is about steps x (1 - rho) / (1 + rho); the
# gate asks for 10 x 4 chains x 20 batches = 800. Each assertion holds by a factor of 2
# or more.
SEGMENT = 100


def _sides(rho: float, *, steps: int = 2000, shift: float = 0.0, seed: int = 0):
    rng = np.random.default_rng(seed)
    names = ["fast", "slow"]
    marginal = (names, rng.standard_normal((3000, 2)))
    chains = []
    for _ in range(4):
        values = np.empty((steps, 2))
        values[:, 0] = rng.standard_normal(steps) + shift
        noise = rng.standard_normal(steps) * np.sqrt(1.0 - rho**2)
        slow = 0.0
        for t in range(steps):
            slow = rng.standard_normal() if t % SEGMENT == 0 else rho * slow + noise[t]
            values[t, 1] = slow
        chains.append((names, values))
    return marginal, chains


def test_geweke_stops_when_the_gate_is_out_of_reach_of_the_maximum():
    """The futility rule: ESS near 80 (one a segment) at 2,000 steps needs about 20,000
    per chain, over FUTILITY_MARGIN x 4,000; the chains stop here and could not judge,
    saying so."""
    marginal, chains = _sides(rho=0.9999)
    result, following = look(
        marginal, chains, alpha=0.01, first=2000, max_iterations=4000, pilot=1000, segment=SEGMENT
    )
    assert following is None
    assert next_length(result, 2000, 4000) is None
    assert result.verdict == COULD_NOT_JUDGE
    needed = length_to_clear(result.table.attrs)
    assert needed > FUTILITY_MARGIN * 4000
    assert "out of reach" in result.table.attrs["gate_message"]
    assert f"about {needed} steps per chain" in result.table.attrs["cure"]
    assert "--geweke-max-iterations" in result.table.attrs["cure"]


def test_the_twin_geweke_goes_on_when_the_maximum_can_clear_the_gate():
    """ESS near 300 at 2,000 steps needs about 5,000: within reach, the chains double."""
    marginal, chains = _sides(rho=0.9)
    result, following = look(
        marginal, chains, alpha=0.01, first=2000, max_iterations=8000, pilot=1000, segment=SEGMENT
    )
    assert following == 4000
    assert length_to_clear(result.table.attrs) < 8000
    assert within_reach(result.table.attrs, 8000)
    assert "out of reach" not in result.table.attrs["gate_message"]


def _regimes(*, restarted: bool, shift: float = 0.0, seed: int = 0):
    """A slow component no ESS from the chains can see, as in eight schools, centred.

    The joint: a regime ``s ~ Bernoulli(0.1)``, and ``x ~ Normal(5 s, 1)``. The chain
    draws ``x`` afresh at every step but never leaves its regime (an excursion longer
    than any run): restarted, each segment of 50 steps draws its regime from the joint,
    as chain_side's exact joint draws do; not restarted, the four chains all stay in
    the commoner regime, 0 (which they start in with probability 0.9^4 = 0.66).
    """
    rng = np.random.default_rng(seed)
    names = ["x", "s"]
    regime = rng.random(5000) < 0.1
    marginal = (names, np.column_stack([rng.normal(5.0 * regime, 1.0), regime]))
    steps, segment = 4000, 50
    chains = []
    for _ in range(4):
        if restarted:
            regime = np.repeat(rng.random(steps // segment) < 0.1, segment)
        else:
            regime = np.zeros(steps, bool)
        x = rng.normal(5.0 * regime, 1.0) + shift * ~regime
        chains.append((names, np.column_stack([x, regime])))
    return marginal, chains, segment


def test_a_slow_component_the_chains_cannot_see_is_not_a_failure():
    """Restarted chains: the segments' means are independent, their spread an honest
    error, and the correct 'kernel' passes. The same chain run on without restarts, as
    Geweke's chains were, with batch means over batches of 50: every row of ``x``
    clears the gate (its steps are independent draws) and its error is too small for
    the regime it never left, a false alarm (the twin: a chain that errs is failed
    there too, below)."""
    options = {"pilot": 1000, "batches": 2}
    marginal, chains, segment = _regimes(restarted=True)
    honest = geweke_result(marginal, chains, segment=segment, **options)
    assert honest.verdict == "pass", str(honest)
    marginal, chains, segment = _regimes(restarted=False)
    fooled = geweke_result(marginal, chains, segment=segment, **options)
    assert fooled.verdict == "fail"
    assert fooled.table.gates_passed.values[fooled.table.rejected.values].all()


def test_the_twin_restarted_chains_that_err_are_failed():
    """The same restarted chains with ``x`` off by 0.25 sd in the commoner regime."""
    marginal, chains, segment = _regimes(restarted=True, shift=0.25)
    result = geweke_result(marginal, chains, segment=segment, pilot=1000, batches=2)
    assert result.verdict == "fail", str(result)
    assert any("x" in row for row in result.failing())


def test_sides_built_by_hand_must_say_their_segments():
    marginal, chains, _ = _regimes(restarted=True)
    with pytest.raises(ValueError, match="segment: the steps between the chains' restarts"):
        geweke_result(marginal, chains, pilot=1000, batches=2)
    with pytest.raises(ValueError, match="segment: each chain must hold two segments"):
        geweke_result(marginal, chains, pilot=1000, batches=2, segment=3000)


def test_a_correct_kernel_with_a_slow_component_is_not_failed():
    """Eight schools, non-centred, its correct kernel, the call that failed at the first
    look under batch means (``eta``'s rows at adjusted p down to 2.5e-6, ``tau``'s ESS
    5 to 7): restarted every 125 steps, its segments' means give honest errors."""
    model = specified_model(eight_schools.noncentred_model, kernel=eight_schools.noncentred_kernel)
    kernel = data_only_kernel(eight_schools.noncentred_kernel)
    result = geweke(model, kernel, iterations=2500, max_iterations=2500, seed=0, alpha=0.01)
    assert result.verdict != "fail", str(result)
    assert result.table.attrs["draws"] == 2500


def _label_sides(chain_share: float, seed: int):
    """A latent label, half the pilot's draws each way, and chains drawing it iid."""
    rng = np.random.default_rng(seed)
    pilot = rng.permutation(np.repeat([0.0, 1.0], 500))
    marginal = (["z"], np.r_[pilot, rng.random(4000) < 0.5].astype(float)[:, None])
    chains = [(["z"], (rng.random((2000, 1)) < chain_share).astype(float)) for _ in range(4)]
    return marginal, chains


@pytest.mark.parametrize("seed", range(3))
def test_a_label_split_evenly_is_not_failed_on_rounding(seed):
    # Its normal scores are +a and -a to rounding, so its squared score is constant to
    # rounding, with standard errors of 1e-16: the last bits gave t = -53 (a correct
    # mixture kernel failed its default run so). Constant to rounding on both sides at
    # the same value is nothing to compare.
    marginal, chains = _label_sides(0.5, seed)
    result = geweke_result(marginal, chains, segment=100, pilot=1000, batches=2)
    assert result.verdict == "pass", str(result)


def test_the_twin_a_label_drawn_too_often_is_failed():
    marginal, chains = _label_sides(0.56, 0)
    result = geweke_result(marginal, chains, segment=100, pilot=1000, batches=2)
    assert result.verdict == "fail", str(result)

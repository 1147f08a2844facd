"""The agreement diagnostics on draws whose truth is known exactly."""

import numpy as np
import pytest
import xarray as xr
from scipy import stats

from zoo.diagnostics import Marginal, Reference, agreement, compare, holm

SHAPE = (3,)


def normal_reference(mean=0.0, sd=1.0):
    frozen = stats.norm(np.full(SHAPE, mean), np.full(SHAPE, sd))
    return Reference(
        {"x": Marginal.from_scipy(frozen, ("item",))}, coords={"item": ["a", "b", "c"]}
    )


def ar1(rng, rho, chains=4, draws=2000, shift=0.0, scale=1.0):
    """Stationary AR(1) chains with N(shift, scale^2) marginals."""
    noise = rng.normal(size=(chains, draws, *SHAPE))
    x = np.empty_like(noise)
    x[:, 0] = noise[:, 0]
    innovation = np.sqrt(1 - rho**2)
    for t in range(1, draws):
        x[:, t] = rho * x[:, t - 1] + innovation * noise[:, t]
    return shift + scale * x


def test_holm_adjusted_p_values_by_hand():
    # sorted p: 0.01, 0.02, 0.03, 0.04 with m = 4 -> 0.04, 0.06, 0.06, 0.06
    np.testing.assert_allclose(holm([0.03, 0.01, 0.04, 0.02]), [0.06, 0.04, 0.06, 0.06])
    assert holm([]).size == 0


def test_independent_draws_agree():
    draws = {"x": np.random.default_rng(1).normal(size=(4, 1000, *SHAPE))}
    result = agreement(draws, normal_reference())
    assert result.verdict == "agree", str(result)
    assert set(result.table.statistic.values) == {"mean", "sd", "P(x<=q0.05)", "P(x<=q0.95)", "ks"}


def test_autocorrelated_draws_agree():
    # rho = 0.9: MCSEs must account for autocorrelation (and KS must thin).
    draws = {"x": ar1(np.random.default_rng(2), 0.9, draws=8000)}
    assert agreement(draws, normal_reference()).verdict == "agree"


@pytest.mark.parametrize(
    ("shift", "scale"), [(0.15, 1.0), (0.0, 1.15)], ids=["mean-off", "sd-off"]
)
def test_wrong_draws_disagree(shift, scale):
    draws = {"x": ar1(np.random.default_rng(3), 0.5, shift=shift, scale=scale)}
    result = agreement(draws, normal_reference())
    assert result.verdict == "disagree"
    assert {q["element"] for q in result.failing()} <= {"x[item=a]", "x[item=b]", "x[item=c]"}


def test_heavier_tails_with_right_mean_and_sd_disagree():
    # Student-t(5) scaled to sd 1: same mean and sd, different shape. Only the tail and
    # KS tests can see it.
    t = stats.t(5)
    draws = {"x": t.rvs(size=(4, 5000, *SHAPE), random_state=4) / t.std()}
    result = agreement(draws, normal_reference())
    assert result.verdict == "disagree"
    flagged = result.table.statistic.values[result.table.verdict.values == "disagree"]
    assert set(flagged) <= {"P(x<=q0.05)", "P(x<=q0.95)", "ks", "sd"}


def test_too_few_effective_draws_is_inconclusive_never_agree():
    draws = {"x": ar1(np.random.default_rng(5), 0.99, draws=1000)}
    result = agreement(draws, normal_reference())
    assert result.verdict == "inconclusive"
    assert not result.table.gates_passed.values.any()


@pytest.mark.parametrize("shift", [3.0, 0.5])
def test_a_chain_away_from_the_others_is_inconclusive(shift):
    # The chains' disagreement enters ArviZ's ESS (pooled autocorrelations): no verdict.
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4, 1000, *SHAPE))
    x[0] += shift
    result = agreement({"x": x}, normal_reference())
    assert result.verdict == "inconclusive"
    assert not result.table.gates_passed.values.any()
    assert all("bulk ESS" in f.gate for f in result.findings())


def test_a_chain_slightly_away_is_never_agreement():
    # Independent draws, one chain 0.3 sd off: the ESS stays high and R-hat, just above
    # 1.01, is beyond what that ESS explains, or the mean test sees the shift.
    rng = np.random.default_rng(6)
    x = rng.normal(size=(4, 1000, 50))
    x[0] += 0.3
    reference = Reference({"x": Marginal.from_scipy(stats.norm(np.zeros(50)), ("item",))})
    result = agreement({"x": x}, reference)
    assert result.verdict != "agree"
    gated = [f for f in result.findings() if f.verdict == "inconclusive"]
    assert gated and all("beyond its noise" in f.gate for f in gated)


def test_rhat_above_the_threshold_within_its_noise_passes_the_gate():
    # AR(1) at rho = 0.8 over 200 quantities: bulk ESS about 450, where R-hat exceeds
    # 1.01 by chance in a quarter of the quantities (bench/rhat_gate.py). Gated on R-hat
    # alone (the ESS gate set aside), the plain rule would leave many out; the noise-aware
    # gate leaves out none of them, with a stated family rate of 1%.
    rng = np.random.default_rng(7)
    shape = (200,)
    noise = rng.normal(size=(4, 1000, *shape)) * np.sqrt(1 - 0.8**2)
    noise[:, 0] = rng.normal(size=(4, *shape))
    x = np.empty_like(noise)
    x[:, 0] = noise[:, 0]
    for t in range(1, 1000):
        x[:, t] = 0.8 * x[:, t - 1] + noise[:, t]
    reference = Reference({"x": Marginal.from_scipy(stats.norm(np.zeros(shape)), ("item",))})
    result = agreement({"x": x}, reference, ess_min=100)
    assert (result.table.rhat.values > 1.01).sum() > 10
    assert result.table.gates_passed.values.all()
    assert result.verdict == "agree"


def test_accepts_datatree_dataset_and_dict_alike():
    values = np.random.default_rng(7).normal(size=(4, 500, *SHAPE))
    dataset = xr.Dataset({"x": (("chain", "draw", "item"), values)})
    tree = xr.DataTree.from_dict({"posterior": dataset})
    results = [agreement(obj, normal_reference()) for obj in ({"x": values}, dataset, tree)]
    for other in results[1:]:
        np.testing.assert_array_equal(other.table.z.values, results[0].table.z.values)


def test_clear_errors_for_bad_draws():
    reference = normal_reference()
    with pytest.raises(ValueError, match=r"draws\['x'\]: each draw has shape \(2,\)"):
        agreement({"x": np.zeros((2, 10, 2))}, reference)
    with pytest.raises(ValueError, match="no variable 'x'"):
        agreement({"y": np.zeros((2, 10, 3))}, reference)
    bad = np.zeros((2, 10, 3))
    bad[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        agreement({"x": bad}, reference)
    with pytest.raises(ValueError, match="alpha"):
        agreement({"x": np.zeros((2, 10, 3))}, reference, alpha=2.0)
    with pytest.raises(ValueError, match="leading"):
        agreement({"x": np.zeros(10)}, reference)


def test_moments_that_do_not_exist_are_not_tested():
    # A Cauchy marginal: no mean or sd, only tails and KS.
    frozen = stats.cauchy(np.zeros(SHAPE))
    marginal = Marginal(
        ("item",), np.full(SHAPE, np.nan), np.full(SHAPE, np.nan), frozen.cdf, frozen.ppf
    )
    draws = {"x": frozen.rvs(size=(4, 1000, *SHAPE), random_state=8)}
    result = agreement(draws, Reference({"x": marginal}))
    assert "mean" not in set(result.table.statistic.values)
    assert result.verdict == "agree"


def test_compare_same_and_different_posteriors():
    rng = np.random.default_rng(9)
    first = {"x": ar1(rng, 0.6)}
    second = {"x": ar1(rng, 0.3)}
    shifted = {"x": ar1(rng, 0.3, shift=0.2)}
    assert compare(first, second).verdict == "agree"
    assert compare(first, shifted).verdict == "disagree"


def test_result_serialises_and_summarises():
    draws = {"x": np.random.default_rng(10).normal(size=(4, 500, *SHAPE))}
    result = agreement(draws, normal_reference())
    payload = result.to_dict()
    assert payload["verdict"] == result.verdict
    assert len(payload["rows"]) == result.table.sizes["check"]
    assert len(result.quantities()) == 3
    assert "verdict" in str(result)


@pytest.mark.slow
def test_false_alarm_rate_on_autocorrelated_draws_is_at_most_alpha():
    # 400 replicates of AR(1) draws from the exact posterior; the family-wise rate is
    # 1%, so more than 10 alarms (binomial upper 99.9% point for p = 0.01) is a failure.
    rng = np.random.default_rng(11)
    reference = normal_reference()
    alarms = sum(
        agreement({"x": ar1(rng, 0.7, draws=1500)}, reference).verdict == "disagree"
        for _ in range(400)
    )
    assert alarms <= stats.binom(400, 0.01).ppf(0.999)


def test_zero_length_variables_are_skipped_and_unknown_quantiles_untested():
    rng = np.random.default_rng(12)
    x = rng.normal(size=(4, 500, *SHAPE))
    empty = np.zeros((4, 500, 0))
    frozen = stats.norm(np.zeros(SHAPE), np.ones(SHAPE))
    # the reference knows no quantile or CDF for the last element

    def ppf(prob):
        return np.r_[frozen.ppf(prob)[:2], np.nan]

    def cdf(v):
        unknown = np.full((*v.shape[:-1], 1), np.nan)
        return np.concatenate([frozen.cdf(v)[..., :2], unknown], axis=-1)

    reference = Reference(
        {
            "x": Marginal(("item",), np.zeros(SHAPE), np.ones(SHAPE), cdf, ppf),
            "none": Marginal(("nothing",), np.zeros(0), np.zeros(0)),
        }
    )
    result = agreement({"x": x, "none": empty}, reference)
    assert result.verdict == "agree"
    rows = result.table
    last = rows.element.values == "x[item=2]"
    assert set(rows.statistic.values[last]) == {"mean", "sd"}
    assert compare({"x": x, "none": empty}, {"x": x[::-1], "none": empty}).verdict == "agree"


def _two_point_reference():
    # Mass 0.3 on 1 and 0.7 on 2: the upper quantiles are 2, where the CDF is exactly 1.
    frozen = stats.rv_discrete(values=(np.arange(3), [0.0, 0.3, 0.7]))
    return Reference({"k": Marginal.from_scipy(frozen, (), discrete=True)})


def test_a_discrete_marginal_with_all_its_mass_at_or_below_a_quantile_agrees():
    rng = np.random.default_rng(0)
    draws = {"k": np.where(rng.uniform(size=(4, 1000)) < 0.3, 1.0, 2.0)}
    assert agreement(draws, _two_point_reference()).verdict == "agree"


def test_a_draw_where_the_marginal_has_no_mass_is_a_disagreement():
    rng = np.random.default_rng(0)
    u = rng.uniform(size=(4, 1000))
    draws = {"k": np.where(u < 0.3, 1.0, np.where(u < 0.99, 2.0, 3.0))}
    assert agreement(draws, _two_point_reference()).verdict == "disagree"


def _beta_in_log_space(rng, a, b, size):
    """Exact Beta(a, b) draws for tiny ``a``: log-gamma by G(a) = G(a + 1) U^(1/a)."""
    log_first = np.log(rng.gamma(a + 1.0, size=size)) + np.log(rng.uniform(size=size)) / a
    second = rng.gamma(b, size=size)
    return np.exp(log_first - np.logaddexp(log_first, np.log(second)))


@pytest.mark.parametrize(("a", "verdict"), [(1e-3, "agree"), (2e-3, "disagree")])
def test_draws_below_the_smallest_double_are_judged_by_their_share(a, verdict):
    # Beta(1e-3, 10) puts about half its mass below the smallest normal double: every
    # sampler stores those draws as 0. Its 5% quantile is not resolvable (no tail test
    # at it); KS spreads those draws' PIT over [0, F(tiny)] and still sees their share,
    # so the correct draws agree and draws of Beta(2e-3, 10) (a quarter below) do not.
    rng = np.random.default_rng(11)
    draws = _beta_in_log_space(rng, a, 10.0, (4, 1000, 2))
    assert (draws == 0).mean() > 0.2
    frozen = stats.beta(np.full(2, 1e-3), np.full(2, 10.0))
    reference = Reference({"x": Marginal.from_scipy(frozen, ("item",))})
    result = agreement({"x": draws}, reference)
    assert result.verdict == verdict
    statistics = set(result.table.statistic.values)
    assert "P(x<=q0.05)" not in statistics and "ks" in statistics


@pytest.mark.parametrize(("shift", "verdict"), [(0.15, "inconclusive"), (3.0, "disagree")])
def test_a_slow_mode_elsewhere_takes_every_test_to_its_ess(shift, verdict):
    # One chain, two kinds of quantity: "slow" barely moves (bulk ESS a few dozen), "x"
    # looks independent. A metastable chain can bias x where x's own autocorrelation
    # cannot show it, so x is judged at the slow quantity's ESS: a small difference is
    # left inconclusive, a gross one (a wrong sampler whatever the slow mode does) fails.
    rng = np.random.default_rng(8)
    draws = {
        "x": rng.normal(size=(4, 1000, *SHAPE)) + shift,
        "slow": ar1(rng, 0.995, draws=1000),
    }
    reference = Reference(
        {
            "x": Marginal.from_scipy(stats.norm(np.zeros(SHAPE)), ("item",)),
            "slow": Marginal.from_scipy(stats.norm(np.zeros(SHAPE)), ("item",)),
        }
    )
    result = agreement(draws, reference)
    assert result.verdict == verdict
    assert result.table.attrs["slowest_ess"] < 400
    # Without the slow quantity the small shift is a |z| of about 9.5 in the mean.
    alone = agreement({"x": draws["x"]}, Reference({"x": reference.marginals["x"]}))
    assert alone.verdict == "disagree"

    def mean_z(table):
        rows = (table.variable == "x") & (table.statistic == "mean")
        return np.abs(table.z.values[rows.values])

    assert (mean_z(result.table) < mean_z(alone.table)).all()


@pytest.mark.parametrize(("p", "verdict"), [(0.5, "agree"), (0.56, "disagree")])
def test_an_indicator_is_judged_by_its_mean_not_its_sd(p, verdict):
    # A co-assignment indicator or a label at P = 1/2: its sd, sqrt(m (1 - m)), is a
    # function of its mean with zero slope there, so the delta-method MCSE of the sd
    # vanishes while the sd's error is of second order (and ddof=1 alone moves it by
    # 6e-5): a correct sampler of the mixture example failed at z = 10 on it.
    reference = Reference(
        {"z": Marginal.from_scipy(stats.bernoulli(np.full(SHAPE, 0.5)), ("item",), discrete=True)}
    )
    draws = {"z": (np.random.default_rng(4).uniform(size=(4, 1000, *SHAPE)) < p).astype(float)}
    result = agreement(draws, reference)
    assert "sd" not in set(result.table.statistic.values)
    assert "mean" in set(result.table.statistic.values)
    assert result.verdict == verdict, str(result)
    # between two samplers, likewise
    assert "sd" not in set(compare(draws, draws).table.statistic.values)

"""A predictive averaged over Gibbs draws against the exact one, at a stated error rate.

A semi-supervised estimator predicts ``p_k = J_k / sum_j J_j`` with ``J_k = (1/S)
sum_s f_k(z_s)``, ``f_k(z) = p(y = k, x | D, z)``, over the labelings ``z_s`` of its
Gibbs chain. Several fits with different seeds are independent chains; pooled, by the
delta method ``p_hat_k - p_k ≈ mean_s g_k(z_s)`` with ``g_k = (f_k - p_k sum_j f_j) /
sum_j J_j``, so the Monte Carlo standard error of the pooled ``p_hat_k`` is ArviZ's
multi-chain MCSE of the mean of ``g_k`` (autocorrelation included), and ``z = (p_hat -
p_exact) / MCSE`` is standard normal for a correct sampler. Bonferroni over the tested
probabilities keeps the family-wise false-alarm rate at ``alpha``.

Several chains, not one: with a single chain of 2000 sweeps the MCSE estimate of one
fit was noisy enough that the family-wise false-alarm rate on the GDA problem of the
tests was 4 in 200 seeds at a nominal 1%.

As in the zoo's diagnostics, a probability within
:data:`zoo.models.labelings.NEAR_CERTAIN` (0.025) of 0 or 1 is not tested: its estimate
is dominated by a few rare labelings, the MCSE estimate itself is then unreliable and
the normal approximation fails (measured on the GDA problem of the tests: at 0.024 and
0.982 the MCSE's coefficient of variation over seeds was 0.49 and 0.21 against about
0.1 elsewhere, and the family-wise false-alarm rate 6% in 200 seeds instead of 1%).
"""

from __future__ import annotations

import arviz_stats as azs
import numpy as np
from scipy import stats
from sklearn.base import clone

from zoo.core.defaults import CHAINS
from zoo.models.labelings import NEAR_CERTAIN

__all__ = [
    "WRONG_PREDICTIVES",
    "assert_agrees",
    "assert_detected",
    "assert_rejected",
    "away_from_certain",
    "chain_estimates",
    "chain_log_joints",
    "predictive_z_scores",
    "sampled_chains",
    "wrong_predictive",
    "z_threshold",
]

#: Wrong ways to treat the rows labelled -1, for the twins of the agreement tests.
WRONG_PREDICTIVES = ("unlabelled rows ignored", "-1 treated as a class")


def _scaled(log_joints: np.ndarray) -> np.ndarray:
    # One shift per row i for every chain and draw: ratios are unchanged.
    return np.exp(log_joints - log_joints.max(axis=(0, 1, 3))[None, None, :, None])


def sampled_chains(estimator, x, y, *, n_draws: int = 2000, n_tune: int = 100) -> list:
    """``CHAINS`` fits of ``estimator`` forced onto its Gibbs kernel, seeds ``0 .. CHAINS-1``.

    ``max_labelings=1`` makes every problem with an unlabelled row too large to
    enumerate, so the labelings are sampled.
    """
    settings = {"max_labelings": 1, "n_draws": n_draws, "n_tune": n_tune}
    return [
        clone(estimator).set_params(random_state=seed, **settings).fit(x, y)
        for seed in range(CHAINS)
    ]


def chain_log_joints(chains, given) -> np.ndarray:
    """Per-draw log joints of fitted estimators' Gibbs chains, shape (chains, S, n, K).

    Parameters
    ----------
    chains : sequence of fitted estimators
        Each with ``labelings_`` and ``draw_labeling_`` (its chain in sweep order).
    given : callable
        ``given(labeling) -> (n, K)``: ``log p(y = k, x_i | D, z)`` for the unlabelled
        rows labelled ``labeling``, computed independently of the sampler (a fully
        labelled fit); called once per distinct labeling.
    """
    joints = {}
    for fitted in chains:
        for labeling in fitted.labelings_:
            if tuple(labeling) not in joints:
                joints[tuple(labeling)] = given(labeling)
    return np.stack(
        [
            np.stack([joints[tuple(labeling)] for labeling in fitted.labelings_])[
                fitted.draw_labeling_
            ]
            for fitted in chains
        ]
    )


def chain_estimates(log_joints: np.ndarray) -> np.ndarray:
    """Each chain's own predictive ``J_k / sum_j J_j``, shape (chains, n, K).

    Parameters
    ----------
    log_joints : ndarray, shape (chains, S, n, K)
        ``log p(y = k, x_i | D, z_s)`` per draw in sweep order, up to a constant per
        row ``i`` shared by all chains and draws.
    """
    mean = _scaled(log_joints).mean(axis=1)
    return mean / mean.sum(axis=2, keepdims=True)


def predictive_z_scores(log_joints: np.ndarray, exact: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(estimate, mcse, z)`` of the pooled Monte Carlo predictive against the exact one.

    Parameters
    ----------
    log_joints : ndarray, shape (chains, S, n, K)
        As for :func:`chain_estimates`.
    exact : ndarray, shape (n, K)
        The exact predictive probabilities.

    Returns
    -------
    estimate, mcse, z : ndarray, shape (n, K)
    """
    f = _scaled(log_joints)
    mean = f.mean(axis=(0, 1))
    total = mean.sum(axis=1)
    estimate = mean / total[:, None]
    g = (f - estimate * f.sum(axis=3, keepdims=True)) / total[:, None]
    mcse = np.asarray(azs.mcse(g, method="mean")).reshape(estimate.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (estimate - exact) / mcse
    return estimate, mcse, z


def away_from_certain(exact: np.ndarray) -> np.ndarray:
    """The probabilities at least :data:`NEAR_CERTAIN` from 0 and 1 (the ones tested)."""
    return np.minimum(exact, 1.0 - exact) >= NEAR_CERTAIN


def z_threshold(alpha: float, tests: int) -> float:
    """Two-sided normal quantile for ``tests`` z-scores at family-wise rate ``alpha``."""
    return float(stats.norm.isf(alpha / (2 * tests)))


def assert_agrees(chains, log_joints, exact, x_new, *, alpha: float) -> None:
    """Each fit predicts its own chain's average; pooled, the chains agree with ``exact``.

    Two classes: class 1's z-scores are tested (class 0's are the same up to sign),
    those of probabilities :func:`away_from_certain`, at family-wise rate ``alpha``.
    """
    for fitted, estimate in zip(chains, chain_estimates(log_joints), strict=True):
        assert not fitted.exact_
        np.testing.assert_allclose(fitted.predict_proba(x_new), estimate, atol=1e-12)
    _, mcse, z = predictive_z_scores(log_joints, exact)
    tested = away_from_certain(exact[:, 1])
    assert tested.sum() >= 4, "too few probabilities away from 0 and 1 to test"
    assert np.abs(z[tested, 1]).max() <= z_threshold(alpha, tested.sum()), (z[:, 1], mcse[:, 1])


def wrong_predictive(estimator, x, y, x_new, wrong: str) -> np.ndarray:
    """Class probabilities of ``x_new`` from a fit that mishandles the rows labelled -1.

    ``"unlabelled rows ignored"`` fits the labelled rows only; ``"-1 treated as a
    class"`` fits -1 as a third class and renormalises over the two real ones.
    """
    if wrong == "unlabelled rows ignored":
        return clone(estimator).fit(x[y != -1], y[y != -1]).predict_proba(x_new)
    three = clone(estimator).fit(x, np.where(y == -1, 2, y)).predict_proba(x_new)
    return three[:, :2] / three[:, :2].sum(axis=1, keepdims=True)


def assert_detected(probability, log_joints, exact, *, alpha: float) -> None:
    """The twin of :func:`assert_agrees`: the same MCSE and threshold reject ``probability``."""
    _, mcse, _ = predictive_z_scores(log_joints, exact)
    tested = away_from_certain(exact[:, 1])
    z = (probability[tested, 1] - exact[tested, 1]) / mcse[tested, 1]
    assert np.abs(z).max() > z_threshold(alpha, tested.sum()), z


def assert_rejected(log_joints, exact, *, alpha: float) -> None:
    """The twin of :func:`assert_agrees` for a wrong sampler: its pooled chains disagree.

    A chain stuck on one labeling has an MCSE of 0 and an infinite z, a rejection too.
    """
    _, _, z = predictive_z_scores(log_joints, exact)
    tested = away_from_certain(exact[:, 1])
    assert np.abs(z[tested, 1]).max() > z_threshold(alpha, tested.sum()), z[:, 1]

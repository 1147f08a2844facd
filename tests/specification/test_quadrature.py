"""zoo.specification.quadrature: accuracy on known integrals and an honest error estimate.

Each density is given on the quadrature's axis (``z = log x``, ``logit x`` or ``x``,
Jacobian included, as the conditional layer does); the grid's moments of ``x`` are
compared with the distribution's exact ones, and the actual error must lie below the
error the grid states.
"""

import numpy as np
import pytest
from scipy import stats

from zoo.specification.quadrature import Axis, adaptive_grid


def _one_axis(frozen, axis):
    def evaluate(z):
        x = axis.value(z[:, 0])
        log_density = frozen.logpdf(x) + axis.log_jacobian(z[:, 0])
        means = np.stack([x], axis=1)
        return log_density, means, np.zeros_like(means), None

    return evaluate


@pytest.mark.parametrize(
    ("frozen", "axis"),
    [
        (stats.gamma(3.0, scale=0.5), Axis("x", "log", 0.0)),
        (stats.gamma(0.3, scale=2.0), Axis("x", "log", 0.0)),  # a power-law edge at 0
        (stats.lognorm(1.5), Axis("x", "log", 0.0)),  # a heavy right tail
        (stats.beta(2.0, 5.0), Axis("x", "logit", 0.0, 1.0)),
        (stats.uniform(2.0, 8.0), Axis("x", "logit", 2.0, 10.0)),
        (stats.t(6.0, loc=1.0), Axis("x", "real")),
    ],
)
def test_moments_of_known_distributions_within_the_stated_error(frozen, axis):
    grid = adaptive_grid(_one_axis(frozen, axis), (axis,), tolerance=1e-3)
    weights = grid.weights.ravel()[grid.kept]
    x = axis.value(grid.z(0, grid.ticks[0]))[grid.kept]
    mean = weights @ x
    sd = np.sqrt(weights @ (x - mean) ** 2)
    assert grid.error <= 1e-3
    # honest: the actual error is within the stated one (which bounds the coarser rule)
    assert abs(mean - frozen.mean()) <= max(grid.error, 1e-12) * frozen.std()
    assert abs(sd - frozen.std()) <= max(grid.error, 1e-12) * frozen.std()


def test_two_correlated_axes_give_the_tensor_grid_s_moments():
    cov = np.array([[1.0, 0.95 * 0.3], [0.95 * 0.3, 0.09]])
    target = stats.multivariate_normal([0.5, -1.0], cov)
    axes = (Axis("a", "real"), Axis("b", "real"))

    def evaluate(z):
        return np.atleast_1d(target.logpdf(z)), z.copy(), np.zeros_like(z), None

    grid = adaptive_grid(evaluate, axes, tolerance=1e-3)
    for k, expected_sd in enumerate(np.sqrt(np.diag(cov))):
        other = 1 - k
        mass = grid.weights.sum(axis=other)
        z = grid.z(k, grid.ticks[k])
        mean = mass @ z
        assert abs(mean - target.mean[k]) <= max(grid.error, 1e-12) * expected_sd
        assert abs(np.sqrt(mass @ (z - mean) ** 2) - expected_sd) <= 1e-6 * expected_sd


def test_an_improper_posterior_is_refused():
    axis = Axis("x", "log", 0.0)

    def evaluate(z):
        # p(x) proportional to 1 / x: flat in log x, no decay at either end
        return np.zeros(len(z)), z.copy(), np.zeros_like(z), None

    with pytest.raises(ValueError, match="x: the posterior does not decay"):
        adaptive_grid(evaluate, (axis,))

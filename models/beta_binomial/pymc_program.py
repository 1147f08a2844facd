"""Beta-Binomial: the PyMC program.

Hierarchical prior: BDA3 (p. 110) notes that ``p(a, b) ∝ (a + b)^(-5/2)`` is uniform
on ``(a / (a + b), (a + b)^(-1/2))``; the program states it that way, as a
``Uniform(0, 1)`` population mean and a flat positive ``(a + b)^(-1/2)``, so that no
hand-written Jacobian is needed. With ``min_concentration`` the second is bounded
above by ``min_concentration^(-1/2)``. ``theta`` is not integrated out: NUTS samples
the full joint, which makes the program an independent check on the collapsed Gibbs
sampler.
"""

from __future__ import annotations

import numpy as np
import pymc as pm

from zoo.models.beta_binomial.spec import Data, Prior

__all__ = ["program"]


def program(data: Data, prior: Prior) -> pm.Model:
    """Return the PyMC model; variable names and dims match the Gibbs output."""
    with pm.Model(coords=data.coords) as model:
        # As float64: pm.Data stores integers as int32, which wraps counts above 2^31 - 1
        # (3e9 trials became -1.3e9); float64 holds every count Data accepts (up to
        # 2^53) exactly, and pm.Binomial casts n back to int64.
        trials = pm.Data("trials", data.trials.astype(np.float64), dims="group")
        if prior.hierarchical:
            mean = pm.Uniform("population_mean", 0.0, 1.0)
            if prior.min_concentration is None:
                inverse_root = pm.HalfFlat("inverse_root_concentration")
            else:
                inverse_root = pm.Uniform(
                    "inverse_root_concentration", 0.0, prior.min_concentration**-0.5
                )
            concentration = inverse_root**-2
            a = pm.Deterministic("a", mean * concentration)
            b = pm.Deterministic("b", (1.0 - mean) * concentration)
            pm.Deterministic("logit_mean", pm.math.log(a) - pm.math.log(b))
            pm.Deterministic("log_concentration", -2.0 * pm.math.log(inverse_root))
        else:
            a, b = prior.a, prior.b
        theta = pm.Beta("theta", alpha=a, beta=b, dims="group")
        pm.Binomial("y", n=trials, p=theta, observed=data.successes, dims="group")
    return model

"""The pumps of examples/pump_failures.py under BUGS's own hyperprior, Gamma(0.1, 1.0).

Under it about 2% of prior-predictive data sets hold counts that overflow int64 (a
``beta`` below 1e-17 makes the failure rates exceed 1e18 per thousand hours): SBC must
draw those again rather than blame the sampler. ``model`` is the example's
``bugs_model()``; ``sampler`` is the example's Gibbs sampler, which reads the
hyperprior's shape and rate from the data (``pm.Data``) and so is right under either
prior; ``six_and_a_half`` is the same loop around a step derived for the example's
Gamma(6, 2.5) whatever the data say: wrong here.
"""

import numpy as np

import zoo
from examples import harness, pump_failures

model = pump_failures.bugs_model
sampler = pump_failures.sampler


def step_six_and_a_half(state, data, rng):
    """One Gibbs sweep with ``beta``'s conditional for Gamma(6, 2.5), the data ignored."""
    fixed = {**data, "beta_shape": np.asarray(6.0), "beta_rate": np.asarray(2.5)}
    return pump_failures.step(state, fixed, rng)


#: The sampler derived for Gamma(6, 2.5): the twin that must fail under BUGS's prior.
six_and_a_half = harness.BugSampler(
    "six-and-a-half",
    zoo.Kernel(pump_failures.init, step_six_and_a_half, pump_failures.draw),
    warmup=pump_failures.WARMUP,
)


def unsimulable():
    """The pumps with ``beta ~ Gamma(0.1, rate 1e30)``: every prior-predictive count overflows.

    ``beta`` near 1e-31 puts the failure rates near 1e31 per thousand hours, beyond int64:
    no data set can be drawn, whatever the kernel.
    """
    return pump_failures.model(hyperprior=(0.1, 1e30))

"""The pumps of examples/pump_failures.py under BUGS's own hyperprior, Gamma(0.1, 1.0).

Under it about 2% of prior-predictive data sets hold counts that overflow int64 (a
``beta`` below 1e-17 makes the failure rates exceed 1e18 per thousand hours): SBC must
draw those again rather than blame the sampler. ``sampler`` is the example's Gibbs
sampler with the hyperprior's shape and rate in ``beta``'s conditional; ``six_and_a_half``
is the example's own sampler, derived for Gamma(6, 2.5): wrong here.
"""

import zoo
from examples import pump_failures
from examples.pump_failures import BUGS_HYPERPRIOR


def model():
    """The PyMC program with ``beta ~ Gamma(0.1, 1.0)`` (the BUGS "Pumps" example)."""
    return pump_failures.model(hyperprior=BUGS_HYPERPRIOR)


def step(state, data, rng):
    """One Gibbs sweep with ``beta | theta ~ Gamma(0.1 + n alpha, 1 + sum theta)``."""
    return pump_failures.step(state, data, rng, hyperprior=BUGS_HYPERPRIOR)


kernel = zoo.Kernel(pump_failures.init, step, pump_failures.draw)


def sampler(data, *, draws, chains, seed):
    """The Gibbs sampler of ``kernel`` (the example's loop, warm-up discarded)."""
    return pump_failures.run(kernel, data, draws=draws, chains=chains, seed=seed)


#: The example's sampler for Gamma(6, 2.5): the twin that must fail under BUGS's prior.
six_and_a_half = pump_failures.sampler

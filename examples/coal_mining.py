"""British coal-mining disasters, 1851-1962: a Gibbs sampler for one change point.

The yearly counts ``y_t`` of disasters (explosions killing ten or more) in British coal
mines, from the dates of Jarrett (1979) as corrected there, tabulated by year in Carlin,
Gelfand & Smith (1992): 191 disasters over the 112 years 1851-1962. The change-point
model of Carlin, Gelfand & Smith, with fixed Gamma priors on the two rates:

    switch ~ DiscreteUniform(1851, 1962)     the last year of the early rate
    early, late ~ Gamma(A, rate B)           independently
    y_t ~ Poisson(early) for years t <= switch, Poisson(late) after

Given the switch, with ``m = switch - 1850`` early years, ``S_m`` their disasters and
``S`` the total, the rates are conjugate:

    early | switch, y ~ Gamma(A + S_m, rate B + m)
    late | switch, y ~ Gamma(A + S - S_m, rate B + n - m)

and given the rates the switch has a discrete full conditional over the 112 years,
``log p(switch | early, late, y) = S_m log early - m early + (S - S_m) log late - (n - m)
late + const``, drawn exactly by inverting its CDF (cumulative sums give every ``S_m`` at
once). One sweep draws the switch, then both rates.

Planted bugs (``BUG_KERNELS``, ``BUG_SAMPLERS``):

``wrong-side`` (formula)
    the switch's conditional with the likelihood summed over the wrong side: the early
    rate scored on the years after the switch and the late rate on those up to it.
``switch-year-twice`` (bookkeeping)
    the switch year counted on both sides: the late rate's conditional takes ``n - m +
    1`` years and their disasters include year ``m``'s.
``rate-as-scale`` (draw)
    numpy's ``gamma`` takes a scale; the rates' Gamma rate passed as is.
``prior-rate-as-scale`` (prior)
    the prior's rate ``B`` entered as its scale: the conditional rates ``1 / B + m`` and
    ``1 / B + n - m``.

    python examples/coal_mining.py [--sampler] [--checks LIST] [--only NAMES] ...
    zoo validate --model examples.coal_mining:model --kernel examples.coal_mining:kernel

References
----------
Carlin, B. P., Gelfand, A. E. & Smith, A. F. M. (1992). Hierarchical Bayesian analysis of
changepoint problems. Applied Statistics 41, 389-405.
Jarrett, R. G. (1979). A note on the intervals between coal-mining disasters.
Biometrika 66, 191-193.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.coal_mining`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: The years 1851-1962.
YEARS = np.arange(1851, 1963)
#: Disasters per year (Jarrett 1979, as corrected, by year as in Carlin et al. 1992).
# fmt: off
DISASTERS = np.array([
    4, 5, 4, 1, 0, 4, 3, 4, 0, 6, 3, 3, 4, 0, 2, 6, 3, 3, 5, 4, 5, 3, 1, 4, 4, 1, 5, 5,
    3, 4, 2, 5, 2, 2, 3, 4, 2, 1, 3, 2, 2, 1, 1, 1, 1, 3, 0, 0, 1, 0, 1, 1, 0, 0, 3, 1,
    0, 3, 2, 2, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 1, 0, 2, 3, 3, 1, 1,
    2, 1, 1, 1, 1, 2, 4, 2, 0, 0, 0, 1, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1,
])
# fmt: on
#: Gamma(A, rate B) prior of each rate (prior mean 4 disasters a year, sd 2.8).
A, B = 2.0, 0.5
#: Sweeps discarded at the start of each chain.
WARMUP = 100


def model(disasters=DISASTERS, years=YEARS):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    disasters : array of int
        Disasters per year (observed).
    years : array of int
        The consecutive years counted (a ``pm.Data``).

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    years = np.asarray(years)
    with pm.Model(coords={"year": years}) as coal:
        year = pm.Data("years", years, dims="year")
        switch = pm.DiscreteUniform("switch", lower=int(years[0]), upper=int(years[-1]))
        early = pm.Gamma("early", alpha=A, beta=B)
        late = pm.Gamma("late", alpha=A, beta=B)
        rate = pm.math.switch(year <= switch, early, late)
        pm.Poisson("y", rate, observed=np.asarray(disasters), dims="year")
    return coal


def _data(data):
    """Counts and years from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    years = np.asarray(data["years"])
    if y.shape != years.shape or y.ndim != 1:
        raise ValueError(
            f"data: y and years must be 1-d of one length, got {y.shape}, {years.shape}"
        )
    if (np.diff(years) != 1).any():
        raise ValueError("data: years must hold consecutive years")
    if (y < 0).any() or (y != np.floor(y)).any():
        raise ValueError("data: y must hold counts >= 0")
    return y, years


def _rates_given(m, y, rng, *, shift=0, prior_rate=B, as_scale=False):
    """``(early, late)`` given ``m`` early years; ``shift`` and the options plant bugs."""
    n, before = y.size, y[:m].sum()
    after = y.sum() - before + (y[m - 1] if shift else 0.0)
    rates = np.array([prior_rate + m, prior_rate + n - m + shift])
    shapes = np.array([A + before, A + after])
    # numpy's gamma takes the *scale*, 1 / rate
    return rng.gamma(shapes, rates if as_scale else 1.0 / rates)


def _switch_given(early, late, y, years, rng, *, wrong_side=False):
    """The switch year given the rates: its discrete conditional, drawn by inverse CDF."""
    m = np.arange(1, y.size + 1)  # early years for each candidate switch
    before = np.cumsum(y)  # S_m
    after = y.sum() - before
    if wrong_side:
        early, late = late, early
    log_p = before * np.log(early) - m * early + after * np.log(late) - (y.size - m) * late
    p = np.exp(log_p - log_p.max())
    cdf = np.cumsum(p)
    index = np.searchsorted(cdf, rng.random() * cdf[-1], side="right")
    return years[min(index, y.size - 1)]


def init(data, rng):
    """A starting state: the switch uniform over the years, the rates from their priors."""
    _, years = _data(data)
    return {
        "switch": np.asarray(rng.choice(years)),
        "early": np.asarray(rng.gamma(A, 1.0 / B)),
        "late": np.asarray(rng.gamma(A, 1.0 / B)),
    }


def _sweep(state, data, rng, *, wrong_side=False, **rate_options):
    """One sweep: the switch given the rates, then the rates given the switch."""
    y, years = _data(data)
    switch = _switch_given(state["early"], state["late"], y, years, rng, wrong_side=wrong_side)
    early, late = _rates_given(int(switch - years[0]) + 1, y, rng, **rate_options)
    return {"switch": np.asarray(switch), "early": np.asarray(early), "late": np.asarray(late)}


def step(state, data, rng):
    """One Gibbs sweep (Carlin, Gelfand & Smith 1992): the switch, then both rates."""
    return _sweep(state, data, rng)


def draw(state, data, rng):
    """The free variables given the state (the state itself)."""
    return {name: np.array(value) for name, value in state.items()}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``switch``, ``early`` and ``late`` by the Gibbs sampler ``kernel``.

    ``data`` is ``{"y": disasters, "years": years}``, as ``zoo validate`` passes it; the
    draws (``switch``, a year, ``early`` and ``late``) are ``(chain, draw)`` arrays.

    The other arguments are those of :func:`harness.run` (same seed, same draws).
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


def step_wrong_side(state, data, rng):
    """Bug (formula): the switch's likelihood summed over the wrong side of it."""
    return _sweep(state, data, rng, wrong_side=True)


def step_switch_year_twice(state, data, rng):
    """Bug (bookkeeping): the switch year counted among the late years too."""
    return _sweep(state, data, rng, shift=1)


def step_rate_as_scale(state, data, rng):
    """Bug (draw): the Gamma rate passed where numpy wants the scale."""
    return _sweep(state, data, rng, as_scale=True)


def step_prior_rate_as_scale(state, data, rng):
    """Bug (prior): the prior's rate ``B`` entered as its scale, ``1 / B``."""
    return _sweep(state, data, rng, prior_rate=1.0 / B)


BUG_KERNELS = {
    "wrong-side": zoo.Kernel(init, step_wrong_side, draw),
    "switch-year-twice": zoo.Kernel(init, step_switch_year_twice, draw),
    "rate-as-scale": zoo.Kernel(init, step_rate_as_scale, draw),
    "prior-rate-as-scale": zoo.Kernel(init, step_prior_rate_as_scale, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)

#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [
    harness.Example("coal-mining disasters", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS)
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)

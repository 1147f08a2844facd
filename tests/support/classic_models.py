"""Classic models people write Gibbs samplers for, written in PyMC, with their data.

- Pumps (George, Makov & Smith 1993; the BUGS example "pumps"): failures ``y_i`` of ten
  pumps in ``t_i`` thousand hours, ``theta_i ~ Gamma(alpha, beta)``, BUGS's own
  hyperpriors ``alpha ~ Exponential(1)``, ``beta ~ Gamma(0.1, 1.0)``.
- British coal-mining disasters, 1851-1962 (Jarrett, Biometrika 66, 1979; the change
  point model of Carlin, Gelfand & Smith, Applied Statistics 41, 1992): yearly counts
  of explosions that killed ten or more, 191 in all (the 191 dates of R's
  ``boot::coal``, counted by year).
"""

import numpy as np
import pymc as pm

PUMP_HOURS = np.array([94.3, 15.7, 62.9, 126.0, 5.24, 31.4, 1.05, 1.05, 2.1, 10.5])
PUMP_FAILURES = np.array([5, 1, 5, 14, 3, 19, 1, 1, 4, 22])

COAL_YEARS = np.arange(1851, 1963)
COAL_DISASTERS = np.array(
    [
        *(4, 5, 4, 1, 0, 4, 3, 4, 0, 6, 3, 3, 4, 0, 2, 6, 3, 3, 5, 4, 5, 3, 1, 4, 4, 1, 5, 5),
        *(3, 4, 2, 5, 2, 2, 3, 4, 2, 1, 3, 2, 2, 1, 1, 1, 1, 3, 0, 0, 1, 0, 1, 1, 0, 0, 3, 1),
        *(0, 3, 2, 2, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 2, 1, 0, 0, 0, 1, 1, 0, 2, 3, 3, 1, 1),
        *(2, 1, 1, 1, 1, 2, 4, 2, 0, 0, 0, 1, 4, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1),
    ]
)
#: Gamma(shape, rate) prior of both disaster rates.
COAL_RATE_PRIOR = (0.5, 1.0)


def pumps() -> pm.Model:
    """The BUGS pumps model with its Gamma(0.1, 1.0) hyperprior on beta."""
    with pm.Model(coords={"pump": np.arange(10)}) as model:
        alpha = pm.Exponential("alpha", 1.0)
        beta = pm.Gamma("beta", 0.1, 1.0)
        theta = pm.Gamma("theta", alpha, beta, dims="pump")
        pm.Poisson("y", theta * PUMP_HOURS, observed=PUMP_FAILURES)
    return model


def coal_change_point() -> pm.Model:
    """Rates ``early`` up to and including year ``k``, ``late`` after it."""
    shape, rate = COAL_RATE_PRIOR
    with pm.Model() as model:
        k = pm.DiscreteUniform("k", COAL_YEARS[0], COAL_YEARS[-1])
        early = pm.Gamma("early", shape, rate)
        late = pm.Gamma("late", shape, rate)
        pm.Poisson("y", pm.math.switch(COAL_YEARS <= k, early, late), observed=COAL_DISASTERS)
    return model


def hierarchical_beta_binomial(successes, trials, prior=(1.0, 0.1)) -> pm.Model:
    """``theta_j ~ Beta(a, b)`` with ``a, b ~ Gamma(shape, rate)`` (a proper hyperprior)."""
    shape, rate = prior
    with pm.Model() as model:
        a = pm.Gamma("a", shape, rate)
        b = pm.Gamma("b", shape, rate)
        theta = pm.Beta("theta", a, b, shape=len(trials))
        pm.Binomial("y", n=trials, p=theta, observed=successes)
    return model


#: Eight points of a two-component Gaussian mixture (invented for the test: two clear
#: groups and two points between them), noise sd and component prior sd known.
MIXTURE_POINTS = np.array([-1.2, -0.8, -1.5, 0.9, 1.4, 1.1, -0.3, 2.0])
MIXTURE_NOISE_SD = 0.5
MIXTURE_PRIOR_SD = 2.0


def two_component_mixture(points=MIXTURE_POINTS) -> pm.Model:
    """Latent labels ``z_i ~ Categorical(w)``, ``y_i ~ Normal(mu[z_i], sigma)``."""
    with pm.Model() as model:
        w = pm.Dirichlet("w", np.ones(2))
        mu = pm.Normal("mu", 0.0, MIXTURE_PRIOR_SD, shape=2)
        z = pm.Categorical("z", p=w, shape=len(points))
        pm.Normal("y", mu[z], MIXTURE_NOISE_SD, observed=points)
    return model


#: BDA3 table 5.2: estimated coaching effects and their standard errors.
SCHOOL_EFFECTS = np.array([28.0, 8.0, -3.0, 7.0, -1.0, 1.0, 18.0, 12.0])
SCHOOL_SDS = np.array([15.0, 10.0, 16.0, 11.0, 9.0, 11.0, 10.0, 18.0])
#: The prior of the population mean, ``mu ~ Normal(0, 5)``, and of ``tau ~ HalfCauchy(5)``.
SCHOOL_MU_SD = 5.0
SCHOOL_TAU_SCALE = 5.0


def eight_schools(centred: bool = True) -> pm.Model:
    """Eight schools (BDA3 section 5.5): ``theta ~ Normal(mu, tau)``, or non-centred
    ``theta = mu + tau * eta`` with ``eta ~ Normal(0, 1)``; ``y_j ~ Normal(theta_j, s_j)``."""
    with pm.Model(coords={"school": np.arange(8)}) as model:
        mu = pm.Normal("mu", 0.0, SCHOOL_MU_SD)
        tau = pm.HalfCauchy("tau", SCHOOL_TAU_SCALE)
        if centred:
            theta = pm.Normal("theta", mu, tau, dims="school")
        else:
            eta = pm.Normal("eta", 0.0, 1.0, dims="school")
            theta = pm.Deterministic("theta", mu + tau * eta, dims="school")
        pm.Normal("y", theta, SCHOOL_SDS, observed=SCHOOL_EFFECTS, dims="school")
    return model


REGRESSION_X = np.column_stack([np.ones(12), np.linspace(-1.0, 1.0, 12)])
REGRESSION_Y = np.array([0.3, -0.1, 0.5, 0.9, 0.4, 1.1, 0.8, 1.5, 1.2, 1.9, 1.4, 2.2])


def regression_with_sd_prior(prior: str = "HalfNormal") -> pm.Model:
    """``beta ~ Normal(0, 2)``, ``y ~ Normal(X beta, sigma)``, ``sigma`` under ``prior``
    (HalfNormal(1), HalfCauchy(1) or Exponential(1)): no conjugate prior on the sd."""
    with pm.Model() as model:
        beta = pm.Normal("beta", 0.0, 2.0, shape=2)
        if prior == "HalfNormal":
            sigma = pm.HalfNormal("sigma", 1.0)
        elif prior == "HalfCauchy":
            sigma = pm.HalfCauchy("sigma", 1.0)
        else:
            sigma = pm.Exponential("sigma", 1.0)
        pm.Normal("y", REGRESSION_X @ beta, sigma, observed=REGRESSION_Y)
    return model

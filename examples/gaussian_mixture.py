"""A two-component Gaussian mixture with latent labels: a collapsed Gibbs sampler.

Twelve observations ``y_i`` (illustrative values, two overlapping groups), each from one
of two normal components with a known sd:

    w ~ Beta(A, B)                               the weight of component 1
    mu_k ~ Normal(M_k, S^2),  M = (-2, 2)        the component means
    z_i | w ~ Bernoulli(w)                       the latent labels
    y_i | z, mu ~ Normal(mu_{z_i}, SIGMA^2)      SIGMA known

In ``model`` the prior means differ, so the components are not exchangeable: the
posterior is not symmetric under relabelling. With ``M = (-2, 2)`` and ``S = 1``,
swapping the two means (posterior means near -0.64 and 0.71) costs about 5.6 nats of
prior, so the swapped labelling holds well under 1% of the posterior; the exact
reference (an enumeration of the 4,096 labellings) includes it, and the sampler visits
it. The observations overlap enough that every label is uncertain (posterior
probabilities of component 1 from 0.07 to 0.93): a label that is certain would be
constant in every chain, and its R-hat undefined.

The sampler (Diebolt & Robert 1994, with ``w`` integrated out of the label updates as
in Neal 2000, algorithm 3 restricted to two fixed components):

    P(z_i = k | z_-i, mu, y) propto (A_k + n_k^-i) Normal(y_i; mu_k, SIGMA^2),
        A_1 = A, A_0 = B, n_k^-i the labels k among the others
    mu_k | z, y ~ Normal((M_k / S^2 + sum_{z_i = k} y_i / SIGMA^2) / P_k, 1 / P_k),
        P_k = 1 / S^2 + n_k / SIGMA^2
    w | z ~ Beta(A + n_1, B + n_0)

One sweep updates each label in turn (the counts follow each change), then both means,
then ``w``. The labels are free variables: the sampler returns them.

``exchangeable_model`` is the same mixture with one prior for both means, ``mu_k ~
Normal(0, S^2)``, and ``A = B``: its components are exchangeable, the exact posterior
is symmetric under swapping them (every label has probability 1/2 of each value), and
the same sampler keeps one labelling for thousands of sweeps. It is right in
practice; the zoo finds the symmetry in the graph and compares the label-invariant
quantities (each point's own mean ``mu[z[i]]``, its component's weight, and whether two
points share a component; docs/validating.md, "Mixtures and label switching"). Its bugs
are ``EXCHANGEABLE_BUG_KERNELS``: the same slips less ``prior-mean-dropped``, which a
zero prior mean hides.

Planted bugs (``BUG_KERNELS``, ``BUG_SAMPLERS``):

``counts-of-the-other-label`` (bookkeeping)
    each label's prior odds from the other label's count, ``A_k + n_(1-k)^-i``: an
    index slip that pushes the labels to balance. (Leaving the label's own value in the
    counts, ``n_k`` for ``n_k^-i``, is the commoner slip, but here it moves the posterior
    too little for 4,000 draws to show.)
``prior-mean-dropped`` (prior)
    ``mu_k``'s conditional mean ``(sum y_i / SIGMA^2) / P_k``, the prior's ``M_k / S^2``
    left out (the precision kept).
``variance-as-sd`` (draw)
    ``mu_k`` drawn with its conditional variance ``1 / P_k`` passed as the sd.
``noise-sd-as-variance`` (formula)
    the labels' likelihoods ``exp(-(y - mu)^2 / (2 SIGMA))``: the sd where its square
    belongs.

    python examples/gaussian_mixture.py [--sampler] [--checks LIST] [--only NAMES] ...
    zoo validate --model examples.gaussian_mixture:model
                 --kernel examples.gaussian_mixture:kernel
    zoo validate --model examples.gaussian_mixture:exchangeable_model
                 --kernel examples.gaussian_mixture:exchangeable_kernel

References
----------
Diebolt, J. & Robert, C. P. (1994). Estimation of finite mixture distributions through
Bayesian sampling. Journal of the Royal Statistical Society B 56, 363-375.
Neal, R. M. (2000). Markov chain sampling methods for Dirichlet process mixture models.
Journal of Computational and Graphical Statistics 9, 249-265.
"""

import numpy as np

import zoo

if __package__:  # imported: `examples.gaussian_mixture`, from the root of the repository
    from . import harness
else:  # run as a script: Python puts examples/ first on the path
    import harness

#: Twelve observations (illustrative: two overlapping groups).
OBSERVATIONS = np.array([-1.2, -1.0, -0.8, -0.6, -0.4, -0.2, 0.1, 0.3, 0.5, 0.8, 1.0, 1.3])
#: Beta(A, B) prior of the weight w of component 1.
A, B = 2.0, 2.0
#: Prior means of mu (component 0, component 1) and their prior sd.
M = np.array([-2.0, 2.0])
S = 1.0
#: The exchangeable variant's prior mean of both components (A = B already).
EXCHANGEABLE_M = np.zeros(2)
#: The known noise sd.
SIGMA = 0.6
#: Sweeps discarded at the start of each chain.
WARMUP = 100


def model(y=OBSERVATIONS, prior_means=M):
    """The PyMC program: the specification the sampler is checked against.

    Parameters
    ----------
    y : array of float
        The observations (at most 16: the exact reference enumerates the labels).
    prior_means : array of float
        The prior means of ``mu`` (component 0, component 1).

    Returns
    -------
    pymc.Model
    """
    # deferred: PyMC takes seconds to import, and the sampler does not need it
    import pymc as pm

    y = np.asarray(y, dtype=float)
    coords = {"obs": np.arange(1, y.size + 1), "component": [0, 1]}
    with pm.Model(coords=coords) as mixture:
        w = pm.Beta("w", alpha=A, beta=B)
        mu = pm.Normal("mu", mu=prior_means, sigma=S, dims="component")
        z = pm.Bernoulli("z", p=w, dims="obs")
        pm.Normal("y", mu=mu[z], sigma=SIGMA, observed=y, dims="obs")
    return mixture


def exchangeable_model(y=OBSERVATIONS):
    """The mixture with exchangeable components: both means ``Normal(0, S^2)``, ``A = B``."""
    return model(y, prior_means=EXCHANGEABLE_M)


def _data(data):
    """The observations from a data dict, checked."""
    y = np.asarray(data["y"], dtype=float)
    if y.ndim != 1 or y.size == 0 or not np.isfinite(y).all():
        raise ValueError(f"data: y must be a non-empty 1-d array of finite numbers, got {y!r}")
    return y


def _labels(z, mu, y, rng, *, other_label=False, noise_variance=SIGMA**2):
    """One pass over the labels, ``w`` integrated out; returns new labels.

    ``other_label=True`` plants a bug: the prior odds read the other label's count.
    """
    z = z.copy()
    counts = np.array([np.sum(z == 0), np.sum(z == 1)], dtype=float)
    prior = np.array([B, A])  # pseudo-counts of labels 0 and 1
    for i in range(y.size):
        counts[z[i]] -= 1  # n_k^-i: the others' labels
        others = counts[::-1] if other_label else counts
        log_p = np.log(prior + others) - (y[i] - mu) ** 2 / (2 * noise_variance)
        p1 = 1.0 / (1.0 + np.exp(log_p[0] - log_p[1]))
        z[i] = int(rng.random() < p1)
        counts[z[i]] += 1
    return z


def _means(z, y, rng, *, prior_mean=M, variance_as_sd=False):
    """Both means given the labels: precisions add, the mean is precision-weighted."""
    n = np.array([np.sum(z == 0), np.sum(z == 1)])
    sums = np.array([y[z == 0].sum(), y[z == 1].sum()])
    precision = 1.0 / S**2 + n / SIGMA**2
    mean = (prior_mean / S**2 + sums / SIGMA**2) / precision
    return rng.normal(mean, 1.0 / precision if variance_as_sd else 1.0 / np.sqrt(precision))


def _weight(z, rng):
    """``w | z ~ Beta(A + n_1, B + n_0)``."""
    n1 = z.sum()
    return np.asarray(rng.beta(A + n1, B + z.size - n1))


def init(data, rng, *, prior_means=M):
    """A starting state from the prior."""
    y = _data(data)
    w = rng.beta(A, B)
    return {
        "w": np.asarray(w),
        "mu": rng.normal(prior_means, S),
        "z": (rng.random(y.size) < w).astype(np.int64),
    }


def _sweep(state, data, rng, *, labels=None, means=None):
    """The labels, then the means, then the weight; the options plant bugs."""
    y = _data(data)
    z = _labels(np.asarray(state["z"], dtype=np.int64), state["mu"], y, rng, **(labels or {}))
    mu = _means(z, y, rng, **(means or {}))
    return {"w": _weight(z, rng), "mu": mu, "z": z}


def step(state, data, rng):
    """One sweep of the collapsed Gibbs sampler: labels, means, weight."""
    return _sweep(state, data, rng)


def draw(state, data, rng):
    """The free variables given the state (the state itself)."""
    return {name: np.array(value) for name, value in state.items()}


kernel = zoo.Kernel(init, step, draw)


def sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws of ``w``, ``mu`` and ``z`` by the Gibbs sampler ``kernel``.

    ``data`` is ``{"y": observations}``, as ``zoo validate`` passes it; ``w`` is drawn
    ``(chain, draw)``, ``mu`` ``(chain, draw, component)`` and ``z`` ``(chain, draw,
    obs)`` (0 or 1).

    The other arguments are those of :func:`harness.run` (same seed, same draws).
    """
    return harness.run(kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup)


def step_counts_of_the_other_label(state, data, rng):
    """Bug (bookkeeping): each label's prior odds from the other label's count."""
    return _sweep(state, data, rng, labels={"other_label": True})


def step_prior_mean_dropped(state, data, rng):
    """Bug (prior): the means' conditional mean without the prior's ``M_k / S^2``."""
    return _sweep(state, data, rng, means={"prior_mean": np.zeros(2)})


def step_variance_as_sd(state, data, rng):
    """Bug (draw): the means drawn with their conditional variance as the sd."""
    return _sweep(state, data, rng, means={"variance_as_sd": True})


def step_noise_sd_as_variance(state, data, rng):
    """Bug (formula): the labels' likelihoods with ``SIGMA`` for ``SIGMA^2``."""
    return _sweep(state, data, rng, labels={"noise_variance": SIGMA})


BUG_KERNELS = {
    "counts-of-the-other-label": zoo.Kernel(init, step_counts_of_the_other_label, draw),
    "prior-mean-dropped": zoo.Kernel(init, step_prior_mean_dropped, draw),
    "variance-as-sd": zoo.Kernel(init, step_variance_as_sd, draw),
    "noise-sd-as-variance": zoo.Kernel(init, step_noise_sd_as_variance, draw),
}
BUG_SAMPLERS = harness.bug_samplers(BUG_KERNELS, warmup=WARMUP)


def exchangeable_init(data, rng):
    """A starting state from the exchangeable prior."""
    return init(data, rng, prior_means=EXCHANGEABLE_M)


def exchangeable_step(state, data, rng):
    """One sweep of the same sampler under the exchangeable prior."""
    return _sweep(state, data, rng, means={"prior_mean": EXCHANGEABLE_M})


exchangeable_kernel = zoo.Kernel(exchangeable_init, exchangeable_step, draw)


def exchangeable_sampler(data, *, draws, chains, seed, warmup=WARMUP):
    """Posterior draws under the exchangeable prior (see :func:`sampler`)."""
    return harness.run(
        exchangeable_kernel, data, draws=draws, chains=chains, seed=seed, warmup=warmup
    )


def exchangeable_step_counts_of_the_other_label(state, data, rng):
    """Bug (bookkeeping), exchangeable prior: the other label's count."""
    means = {"prior_mean": EXCHANGEABLE_M}
    return _sweep(state, data, rng, labels={"other_label": True}, means=means)


def exchangeable_step_variance_as_sd(state, data, rng):
    """Bug (draw), exchangeable prior: the conditional variance as the sd."""
    return _sweep(state, data, rng, means={"prior_mean": EXCHANGEABLE_M, "variance_as_sd": True})


def exchangeable_step_noise_sd_as_variance(state, data, rng):
    """Bug (formula), exchangeable prior: ``SIGMA`` for ``SIGMA^2`` in the labels."""
    means = {"prior_mean": EXCHANGEABLE_M}
    return _sweep(state, data, rng, labels={"noise_variance": SIGMA}, means=means)


EXCHANGEABLE_BUG_KERNELS = {
    "counts-of-the-other-label": zoo.Kernel(
        exchangeable_init, exchangeable_step_counts_of_the_other_label, draw
    ),
    "variance-as-sd": zoo.Kernel(exchangeable_init, exchangeable_step_variance_as_sd, draw),
    "noise-sd-as-variance": zoo.Kernel(
        exchangeable_init, exchangeable_step_noise_sd_as_variance, draw
    ),
}
EXCHANGEABLE_BUG_SAMPLERS = harness.bug_samplers(
    EXCHANGEABLE_BUG_KERNELS, warmup=WARMUP, collection="EXCHANGEABLE_BUG_SAMPLERS"
)

#: The model with its correct forms and bugs, for the script and the tests.
EXAMPLES = [
    harness.Example("two-component mixture", model, kernel, sampler, BUG_KERNELS, BUG_SAMPLERS),
    harness.Example(
        "exchangeable two-component mixture",
        exchangeable_model,
        exchangeable_kernel,
        exchangeable_sampler,
        EXCHANGEABLE_BUG_KERNELS,
        EXCHANGEABLE_BUG_SAMPLERS,
    ),
]

if __name__ == "__main__":
    harness.main(__doc__.splitlines()[0], EXAMPLES)

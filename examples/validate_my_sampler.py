"""Check a Gibbs sampler you wrote by hand against the exact posterior.

A Beta-Binomial with fixed hyperparameters on the rat tumour data: ``theta_j | y ~
Beta(a + y_j, b + n_j - y_j)``. Two hand-written kernels draw from it, one correct and
one with a classic derivation bug (the Beta parameters swapped). The zoo's agreement
check (ArviZ convergence gates, MCSE z-scores, tail and KS tests, Holm at 1%) passes
the first and names the quantities the second gets wrong.

Three ways to plug a sampler in, all shown:

- run your own loop and pass the draws (a dict of arrays with leading (chain, draw)
  axes, named like the model's variables) to ``zoo.diagnostics.agreement``;
- write the kernel as ``zoo.Kernel(init, step, draw)`` and let ``zoo.sample`` run it;
- hand the sampler function to ``zoo.validate``, which runs the whole battery: exact
  agreement on data sets chosen for the kind of prior the sampler handles, and
  simulation-based calibration (the same as ``zoo validate beta-binomial --sampler
  module:function`` on the command line).

    python examples/validate_my_sampler.py [--draws 1000] [--chains 4]
"""

import argparse
import os

import numpy as np

import zoo
from zoo.datasets import rat_tumours
from zoo.diagnostics import agreement
from zoo.models.beta_binomial import Data, Prior


def settings():
    """Command-line settings; defaults from ZOO_EXAMPLE_* environment variables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("draws", 1000), ("tune", 100), ("chains", 4), ("simulations", 100)):
        env = os.environ.get(f"ZOO_EXAMPLE_{name.upper()}")
        parser.add_argument(f"--{name}", type=int, default=int(env) if env else default)
    return parser.parse_args()


# A kernel is three pure functions (blackjax style). Here the state is theta itself.
def init(data, prior, rng):
    """Start each chain from uniform draws of theta."""
    return rng.uniform(size=data.successes.size)


def step(theta, data, prior, rng):
    """One sweep: theta from its conditional Beta(a + y, b + n - y)."""
    return rng.beta(prior.a + data.successes, prior.b + data.failures)


def step_swapped(theta, data, prior, rng):
    """One sweep with a classic bug."""
    # The bug: successes paired with b and failures with a.
    return rng.beta(prior.b + data.successes, prior.a + data.failures)


def draw(theta, data, prior, rng):
    """The model's variables given the state."""
    return {"theta": theta}


def my_own_loop(step_function, data, prior, *, chains, draws, seed):
    """Any sampler at all: only the shape of its output matters, (chain, draw, group)."""
    rng = np.random.default_rng(seed)
    out = np.empty((chains, draws, data.successes.size))
    for chain in range(chains):
        theta = init(data, prior, rng)
        for i in range(draws):
            theta = step_function(theta, data, prior, rng)
            out[chain, i] = theta
    return {"theta": out}


def main():
    """Run the example and print a short result."""
    args = settings()
    rats = rat_tumours()
    data = Data(rats["tumours"], rats["rats"], groups=rats["experiment"])
    prior = Prior(a=2.4, b=14.3)  # near the BDA3 posterior mode of (a, b)
    exact = zoo.get("beta-binomial").posterior(data, prior)

    print("1. your own loop, draws passed to zoo.diagnostics.agreement")
    for name, step_function in (("correct", step), ("swapped a, b", step_swapped)):
        draws = my_own_loop(
            step_function, data, prior, chains=args.chains, draws=args.draws, seed=7
        )
        result = agreement(draws, exact)
        print(f"  {name} kernel: {result.verdict}")
        for quantity in result.failing()[:3]:
            print(
                f"    {quantity['element']}: {quantity['verdict']}, "
                f"max |z| {quantity['max_abs_z']:.1f}, ESS {quantity['ess_bulk']:.0f}"
            )

    print("2. the kernel run by zoo.sample (output shaped like pymc.sample's)")
    for name, step_function in (("correct", step), ("swapped a, b", step_swapped)):
        tree = zoo.sample(
            "beta-binomial",
            data,
            prior,
            kernel=zoo.Kernel(init, step_function, draw),
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=7,
            progress=False,
        )
        result = agreement(tree, exact)
        failing = len(result.failing())
        total = len(exact["theta"].mean)
        print(f"  {name} kernel: {result.verdict} ({failing} of {total} quantities not agreeing)")

    print("3. the sampler function through zoo.validate (exact agreement and SBC)")
    spec = zoo.get("beta-binomial")
    for name, step_function in (("correct", step), ("swapped a, b", step_swapped)):

        def sampler(data, prior, *, draws, chains, seed, step_function=step_function):
            return my_own_loop(step_function, data, prior, chains=chains, draws=draws, seed=seed)

        result = zoo.validate(
            spec,
            sampler,
            # This sampler handles fixed (a, b) only: check it on such data sets.
            problems=["informative-fixed", ("rats, a = 2.4, b = 14.3", data, prior)],
            sbc_setup=(prior, {"groups": 12, "trials": 25}),
            budgets={
                "exact": {"draws": args.draws, "chains": args.chains},
                "sbc": {"simulations": args.simulations},
            },
            workers=0,  # in this process: a sampler defined in a script is not importable
        )
        print(f"  {name} sampler: {result.verdict}")
        for check in result.checks:
            print(f"    {check.name}: {check.verdict}: {check.summary[:150]}")


if __name__ == "__main__":
    main()

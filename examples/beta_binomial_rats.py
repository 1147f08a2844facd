"""Rat tumours (BDA3 section 5.3): exact posterior, Gibbs and PyMC, and whether they agree.

The hierarchical Beta-Binomial ``theta_j ~ Beta(a, b)``, ``y_j ~ Binomial(n_j, theta_j)``
with the BDA3 hyperprior ``p(a, b) ∝ (a + b)^(-5/2)``, on 71 experiments (Tarone 1982).

    python examples/beta_binomial_rats.py [--draws 1000] [--tune 1000] [--chains 4]

Defaults can also be set with ZOO_EXAMPLE_DRAWS, ZOO_EXAMPLE_TUNE, ZOO_EXAMPLE_CHAINS.
"""

import argparse
import os

import zoo
from zoo.datasets import rat_tumours
from zoo.diagnostics import agreement, compare
from zoo.models.beta_binomial import Data, Prior


def settings():
    """Command-line settings; defaults from ZOO_EXAMPLE_* environment variables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("draws", 1000), ("tune", 1000), ("chains", 4)):
        env = os.environ.get(f"ZOO_EXAMPLE_{name.upper()}")
        parser.add_argument(f"--{name}", type=int, default=int(env) if env else default)
    return parser.parse_args()


def main():
    """Run the example and print a short result."""
    args = settings()
    rats = rat_tumours()
    data = Data(rats["tumours"], rats["rats"], groups=rats["experiment"])
    prior = Prior()  # a, b unknown, with the BDA3 hyperprior

    # 1. The exact posterior (quadrature over (log(a/b), log(a+b))).
    exact = zoo.get("beta-binomial").posterior(data, prior)
    current = exact["theta"]  # the 71st experiment is the current one
    print(f"exact: E[theta_71] = {current.mean[-1]:.4f}, sd {current.sd[-1]:.4f}")

    # 2. and 3. The collapsed Gibbs sampler and NUTS on the PyMC program.
    runs = {}
    for engine in ("gibbs", "pymc"):
        runs[engine] = zoo.sample(
            "beta-binomial",
            data,
            prior,
            engine=engine,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=1,
            progress=False,
        )
        theta = runs[engine]["posterior"]["theta"].isel(group=-1)
        print(f"{engine}: E[theta_71] = {float(theta.mean()):.4f}, sd {float(theta.std()):.4f}")

    # The agreement check: gates, MCSE z-scores, tails, KS; Holm at 1% over all tests.
    print(f"Gibbs vs exact: {agreement(runs['gibbs'], exact).verdict}")
    print(f"PyMC vs exact:  {agreement(runs['pymc'], exact).verdict}")
    print(f"Gibbs vs PyMC:  {compare(runs['gibbs'], runs['pymc']).verdict}")


if __name__ == "__main__":
    main()

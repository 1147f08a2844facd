"""Handwritten digits 5 vs 9: Dirichlet-prior Naive Bayes three ways, and the check.

Multinomial Naive Bayes on ink counts (UCI digits as shipped in scikit-learn), 40
labelled images per class and 8 unlabelled ones whose class is summed out; the exact
posterior enumerates all 2^8 labelings.

    python examples/naive_bayes_digits.py [--draws 1000] [--tune 1000] [--chains 4]

Defaults can also be set with ZOO_EXAMPLE_DRAWS, ZOO_EXAMPLE_TUNE, ZOO_EXAMPLE_CHAINS.
"""

import argparse
import os

import zoo
from zoo.diagnostics import agreement, compare
from zoo.models.naive_bayes import Prior
from zoo.models.naive_bayes.datasets import digits_problem


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
    data = digits_problem(classes=(5, 9), coarsen=8, labelled_per_class=40)
    prior = Prior(alpha=1.0, beta=1.0)  # beta = 1: the posterior mean is Laplace smoothing

    # 1. The exact posterior: a mixture over the labelings of the unlabelled images.
    exact = zoo.get("naive-bayes").posterior(data, prior)
    probability = exact["class_probability"].mean[:, 1]
    images = data.coords["unlabelled"]
    print("exact P(digit 9) of the unlabelled images:")
    for image, p in zip(images, probability, strict=True):
        print(f"  {image}: {p:.3f}")

    # 2. and 3. Collapsed Gibbs over the missing labels, and NUTS with labels summed out.
    runs = {
        engine: zoo.sample(
            "naive-bayes",
            data,
            prior,
            engine=engine,
            draws=args.draws,
            tune=args.tune,
            chains=args.chains,
            seed=1,
            progress=False,
        )
        for engine in ("gibbs", "pymc")
    }
    for engine, tree in runs.items():
        estimate = tree["posterior"]["class_probability"].mean(("chain", "draw")).values[:, 1]
        print(f"{engine}: P(digit 9) = {', '.join(f'{p:.3f}' for p in estimate)}")

    print(f"Gibbs vs exact: {agreement(runs['gibbs'], exact).verdict}")
    print(f"PyMC vs exact:  {agreement(runs['pymc'], exact).verdict}")
    print(f"Gibbs vs PyMC:  {compare(runs['gibbs'], runs['pymc']).verdict}")


if __name__ == "__main__":
    main()

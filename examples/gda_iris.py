"""Fisher's iris: Bayesian Gaussian discriminant analysis three ways, and the check.

Petal length and width of 150 flowers, one covariance shared by the three species
(linear discriminant analysis) under a normal-inverse-Wishart prior; six labels are
hidden and summed out, so the exact posterior mixes over 3^6 labelings.

    python examples/gda_iris.py [--draws 1000] [--tune 1000] [--chains 4]

Defaults can also be set with ZOO_EXAMPLE_DRAWS, ZOO_EXAMPLE_TUNE, ZOO_EXAMPLE_CHAINS.
"""

import argparse
import os

import numpy as np
from sklearn.datasets import load_iris

import zoo
from zoo.diagnostics import agreement, compare
from zoo.models.gaussian_classifiers import MISSING, Data, Prior


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
    iris = load_iris()
    labels = np.array(iris.target, copy=True)
    hidden = [70, 77, 83, 133, 60, 110]  # near the versicolor / virginica boundary, and two not
    labels[hidden] = MISSING
    data = Data(
        iris.data[:, [2, 3]],
        labels,
        classes=np.array(iris.target_names),
        features=np.array(["petal_length", "petal_width"]),
    )
    prior = Prior()  # scaled to the data (Fraley & Raftery 2007); prior.resolve(data) shows it

    # 1. The exact posterior.
    exact = zoo.get("gda").posterior(data, prior)
    # The reference leaves out (NaN) probabilities within 0.025 of 0 or 1: draws of a
    # near-constant say nothing a test could use. Shown as "~0/1".
    print("exact class probabilities of the hidden flowers (setosa, versicolor, virginica):")
    for row, p in zip(data.coords["unlabelled"], exact["class_probability"].mean, strict=True):
        print(f"  flower {row}: " + "  ".join("~0/1 " if np.isnan(v) else f"{v:.3f}" for v in p))

    # 2. and 3. Collapsed Gibbs and NUTS (the inverse-Wishart by its Bartlett decomposition).
    runs = {
        engine: zoo.sample(
            "gda",
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
        sigma = tree["posterior"]["Sigma"].mean(("chain", "draw")).values
        print(f"{engine}: E[Sigma] = {np.round(sigma, 4).tolist()}")
    print(f"exact: E[Sigma] = {np.round(exact['Sigma'].mean, 4).tolist()}")

    print(f"Gibbs vs exact: {agreement(runs['gibbs'], exact).verdict}")
    print(f"PyMC vs exact:  {agreement(runs['pymc'], exact).verdict}")
    print(f"Gibbs vs PyMC:  {compare(runs['gibbs'], runs['pymc']).verdict}")


if __name__ == "__main__":
    main()

"""QDA and Gaussian naive Bayes in the weak-prior limit against scikit-learn, by N.

For N = 100, 1000, 10000 points of a 3-class, 3-feature problem (one covariance per
class), the exact posterior under a prior weakened to 1e-9 against
``QuadraticDiscriminantAnalysis`` / ``GaussianNB(var_smoothing=0)``: the largest gap of
the moments (class means, covariances with the matching divisor, class priors; relative
for the covariances) and of ``predict_proba`` on 200 new points, with the smallest class
size ``n_min`` and the tests' bound ``4 / n_min``. The measurement is the tests' own
(``tests/models/gaussian_classifiers/test_sklearn.py``, ``weak_prior_gap``).

Run from the repository root: ``python -m bench.gaussian_weak_prior``.

Records: ``bench/results/gaussian_classifiers/weak_prior.jsonl``, one per run holding
the printed table, through ``bench.records`` (host, commit, date and command inside
each); ``python -m bench.tables`` writes every run's table to ``weak_prior.md`` beside
them.
"""

from __future__ import annotations

import argparse

from tests.models.gaussian_classifiers.test_sklearn import weak_prior_gap

from bench import records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.parse_args()
    lines = [
        "| model | N | n_min | moments gap | predict_proba gap | bound 4 / n_min |",
        "|---|---|---|---|---|---|",
    ]
    for name in ("qda", "gaussian-nb"):
        for points in (100, 1000, 10000):
            moments, gap, n_min = weak_prior_gap(name, points)
            lines.append(
                f"| {name} | {points} | {n_min} | {moments:.1e} | {gap:.2e} | {4 / n_min:.2e} |"
            )
    text = "\n".join(lines)
    print(text)
    records.append("gaussian_classifiers", {"table": text + "\n"}, file="weak_prior")


if __name__ == "__main__":
    main()

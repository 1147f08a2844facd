"""SBC's own false-alarm rate, measured on the zoo's correct kernels.

Three studies, each record carrying the host and the git commit, in
``bench/results/sbc_false_alarms/``:

1. ``--null``: the uniformity test alone, no sampler. Exactly uniform ranks as
   :func:`zoo.diagnostics.sbc.simulation_ranks` makes them (a rank ``r`` uniform on
   ``0..L`` among ``L`` thinned draws, spread over its cell, ``u = (r + U) / (L + 1)``),
   ``simulations`` per quantity; the single-quantity p-value's size at several levels
   (exact p-values, or with ``--table`` those of the simulated null table used before),
   and the check's decision (Holm over ``quantities`` quantities) over ``replicates``
   runs.
2. ``--exact-size``: the same sizes computed exactly by the recursion, no simulation.
3. ``--models``: the correct kernel of each model through ``zoo.validate(model,
   checks=("sbc",), seed=s)`` at its default budget (100 simulations, 2 x 200 draws
   thinned to the fit's ESS), one record per seed with every quantity's p-value, the
   family-wise p-value (the smallest Holm-adjusted p: the run fails at ``alpha`` exactly
   when it is below ``alpha``, so one record answers for every rate), the thinned draws
   per simulation, and the CPU seconds. With ``--exact-draws`` the fits are exact,
   independent posterior draws (:mod:`bench.exact_draws`, ``exact_MODEL.jsonl``)
   through the same ``zoo.validate``: the rate of the test and the rank computation
   alone, on the same simulated data sets as the kernels' runs of the same seeds.

4. ``--conjugate``: the machinery alone (``simulation_ranks`` and ``sbc_result``) on
   exact conjugate draws of a Beta-Binomial with a fixed prior, whose quantities are
   nearly independent: one record per run, ``conjugate_beta-binomial.jsonl``.

``--summary`` prints the tables: per model and fit the runs failing at 0.2% per check
with a Clopper-Pearson interval (scipy.stats), the same at 1% and 5% (where a handful
of failures already measures the rate), the per-quantity p-values' lower tail, the
kernels' runs against the exact draws' seed by seed, and each quantity's ranks pooled
over the runs that kept their counts (``rank_counts``, :func:`pooled`): whether every
rank is uniform and every run's simulations independent, the two conditions under
which a run fails at exactly the stated rate.

    nice python -m bench.sbc_false_alarms --null --replicates 100000 --thinned 100 --table
    python -m bench.sbc_false_alarms --exact-size
    nice python -m bench.sbc_false_alarms --models beta-binomial naive-bayes --seeds 100 200
    nice python -m bench.sbc_false_alarms --exact-draws --models beta-binomial naive-bayes \
        --seeds 100 400
    nice python -m bench.sbc_false_alarms --exact-draws --models lda --seeds 0 30
    nice python -m bench.sbc_false_alarms --conjugate --seeds 0 1000
    python -m bench.sbc_false_alarms --summary
"""

from __future__ import annotations

import argparse
import json
import time
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np
from scipy import stats

from bench import exact_draws
from bench import records as bench_records
from bench.host import cpu_name
from zoo.diagnostics import holm
from zoo.diagnostics.uniformity import (
    critical_value,
    exceedance_probability,
    null_statistics,
    tail_statistic,
    uniformity_pvalue,
)

FOLDER = Path(__file__).parent / "results" / "sbc_false_alarms"
NULL = FOLDER / "uniform_ranks.jsonl"
#: The records that raised the question: the correct kernels' SBC at 0.2% per check,
#: seeds 0-59 (``bench/validate_power.py``, p-values from the simulated table).
EARLIER = (
    Path(__file__).parent / "results" / "catalogue" / "validate_power_sbc_geweke.jsonl",
    *sorted(
        (Path(__file__).parent / "results" / "catalogue").glob(
            "validate_power_sbc_correct_more_*.jsonl"
        )
    ),
)
#: The per-check rate of the records that raised the question.
STATED = 0.002
LEVELS = (0.05, 0.01, 0.002)
#: Bins of the ranks' counts kept per run (``rank_counts``).
RANK_BINS = 20


def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The exact (Clopper-Pearson) interval of a binomial rate, by scipy.stats."""
    ci = stats.binomtest(k, n).proportion_ci(level, method="exact")
    return float(ci.low), float(ci.high)


def uniform_ranks(rng: np.random.Generator, shape: tuple, thinned: int) -> np.ndarray:
    """Normalised ranks of a truth among ``thinned`` exact, independent posterior draws.

    The rank is uniform on ``0..thinned`` (the truth is one more draw from the posterior)
    and spread over its cell as :func:`zoo.diagnostics.sbc.simulation_ranks` does.
    """
    rank = rng.integers(0, thinned + 1, size=shape)
    return (rank + rng.random(shape)) / (thinned + 1)


def null_study(
    replicates: int, simulations: int, quantities: int, thinned: int, seed: int, table: bool
):
    """Size of the uniformity p-value and of the check's decision under exact uniform ranks."""
    rng = np.random.default_rng(seed)
    started = time.process_time()
    grid_points = min(simulations, 100)
    grid = np.arange(1, grid_points) / grid_points
    observed = np.empty((replicates, quantities))
    for start in range(0, replicates, 1000):
        rows = min(start + 1000, replicates) - start
        values = uniform_ranks(rng, (rows, quantities, simulations), thinned)
        observed[start : start + rows] = tail_statistic(values, grid)
    # The statistic is discrete: each distinct value's p-value once, as uniformity_pvalue
    # computes it (exact, or read from the simulated table with --table).
    atoms, where = np.unique(observed, return_inverse=True)
    if table:
        null = null_statistics(simulations)
        p_atoms = (1 + np.searchsorted(null, atoms, side="right")) / (1 + null.size)
    else:
        p_atoms = np.array([exceedance_probability(simulations, float(a)) for a in atoms])
    p = p_atoms[where].reshape(replicates, quantities)
    if not table and p[-1, -1] != uniformity_pvalue(values[-1, -1]):
        raise RuntimeError("the p-values differ from uniformity_pvalue's")
    single = p.ravel()
    family = np.array([holm(row).min() for row in p])
    host, commit = cpu_name(), bench_records.provenance()["commit"]
    record = {
        "study": "uniform-ranks",
        "p_value": "simulated null table (100,000)" if table else "exact recursion",
        "replicates": replicates,
        "simulations": simulations,
        "quantities": quantities,
        "thinned": thinned,
        "seed": seed,
        "single": {f"{a:g}": int(np.count_nonzero(single <= a)) for a in (*LEVELS, 1e-3, 1e-4)},
        "single_n": int(single.size),
        "family": {f"{a:g}": int(np.count_nonzero(family < a)) for a in LEVELS},
        "cpu_seconds": time.process_time() - started,
        "host": host,
        "commit": commit,
    }
    return record


def exact_sizes(simulations: int, quantities: int) -> dict:
    """Sizes of the uniformity test and of SBC's decision, exactly, with no simulation.

    A p-value computed from the statistic ``s`` is at most ``a`` exactly when ``s`` is at
    most some value ``s_a`` of the statistic (p grows with ``s``), so the test's size at
    ``a`` is ``P(S <= s_a)``, which :func:`exceedance_probability` gives exactly: ``s_a``
    is the largest value of the statistic whose p-value (exact, or read from the
    simulated table as before) is at most ``a``. Holm over ``quantities`` fails a run
    exactly when the smallest p-value is below ``a / quantities``; for independent
    quantities that has probability ``1 - (1 - size(a / quantities))^quantities``
    (dependent ones make it smaller, by Holm's bound).
    """
    # The statistic's values from scipy's binomial tails, as the records were taken
    # (the test's own, statistic_atoms, differ in the last bits from bdtr's rounding).
    grid_points = min(simulations, 100)
    grid = np.arange(1, grid_points) / grid_points
    counts = np.arange(simulations + 1)
    lower = stats.binom.cdf(counts, simulations, grid[:, None])
    upper = stats.binom.sf(counts - 1, simulations, grid[:, None])
    atoms = np.unique(np.minimum(lower, upper))
    null = null_statistics(simulations)
    table_p = (1 + np.searchsorted(null, atoms, side="right")) / (1 + null.size)

    def size(level: float, table: bool) -> float:
        if table:
            below = np.flatnonzero(table_p <= level)
            return (
                exceedance_probability(simulations, float(atoms[below[-1]])) if below.size else 0.0
            )
        critical = critical_value(simulations, level, atoms)
        return exceedance_probability(simulations, critical) if critical > 0 else 0.0

    out = {}
    for method, table in (("table", True), ("exact", False)):
        single = {f"{a:g}": size(a, table) for a in (*LEVELS, 1e-3, 1e-4)}
        family = {}
        for a in LEVELS:
            each = size(a / quantities, table)
            family[f"{a:g}"] = 1.0 - (1.0 - each) ** quantities
        out[method] = {"single": single, "family": family}
    return out


def run_models(
    models, first: int, last: int, folder: Path = FOLDER, sampler: str = "correct"
) -> None:
    """One SBC run per (model, seed), appended to ``folder/SAMPLER_MODEL.jsonl`` (one file
    per model: runs in parallel never share one).

    ``sampler`` is ``correct`` (the model's Gibbs kernel) or ``exact`` (independent
    exact posterior draws, :mod:`bench.exact_draws`), both through ``zoo.validate``.
    """
    # deferred: the battery takes seconds to import; --summary needs none of it
    import zoo

    done = set()
    for model in models:
        path = folder / f"{sampler}_{model}.jsonl"
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            r = json.loads(line)
            done.add((r["model"], r["seed"]))
    host, commit = cpu_name(), bench_records.provenance()["commit"]
    folder.mkdir(parents=True, exist_ok=True)
    for seed in range(first, last):
        for model in models:
            if (model, seed) in done:
                continue
            started = time.process_time()
            wall = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                result = zoo.validate(
                    model,
                    exact_draws.SAMPLERS[model] if sampler == "exact" else None,
                    checks=("sbc",),
                    seed=seed,
                    workers=0,
                    alpha=STATED,
                )
            check = result.checks[0]
            sbc = check.details
            thinned = np.asarray(sbc.thinned)
            record = {
                "model": model,
                "sampler": sampler,
                "seed": seed,
                "verdict": check.verdict,
                "alpha": check.alpha,
                "simulations": sbc.n_simulations,
                "failed_fits": len(sbc.failures),
                "family_p": float(np.min(sbc.p_adjusted)) if sbc.p_adjusted.size else None,
                "p_value": "exact recursion",
                "p": {q: float(v) for q, v in zip(sbc.quantities, sbc.p_values, strict=True)},
                "rank_mean": {
                    q: round(float(v), 4)
                    for q, v in zip(sbc.quantities, sbc.ranks.mean(axis=0), strict=True)
                },
                "rank_sd": {
                    q: round(float(v), 4)
                    for q, v in zip(sbc.quantities, sbc.ranks.std(axis=0, ddof=1), strict=True)
                },
                # Each quantity's ranks counted in twentieths: pooled over seeds they test
                # the ranks' marginal uniformity with thousands of simulations
                # (:func:`pooled`), where one run's 100 cannot.
                "rank_counts": {
                    q: np.histogram(sbc.ranks[:, j], bins=RANK_BINS, range=(0.0, 1.0))[0].tolist()
                    for j, q in enumerate(sbc.quantities)
                },
                "thinned": {
                    "min": int(thinned.min()),
                    "median": float(np.median(thinned)),
                    "max": int(thinned.max()),
                },
                "cpu_seconds": time.process_time() - started,
                "seconds": time.perf_counter() - wall,
                "host": host,
                "commit": commit,
            }
            bench_records.append_to((folder / f"{sampler}_{model}.jsonl"), record)
            print(
                f"{sampler} {model:14s} seed {seed:4d} {check.verdict:6s} family p "
                f"{record['family_p']:.3g}  {record['cpu_seconds']:.1f} CPU s",
                flush=True,
            )


#: The conjugate study's design: the Beta-Binomial with a fixed Beta(2, 3) prior, whose
#: 12 groups' theta are independent given the data (13 quantities with the
#: log-likelihood, nearly independent), fitted by exact conjugate draws.
CONJUGATE = {"prior": (2.0, 3.0), "size": {"groups": 12, "trials": 25}}
CONJUGATE_RECORDS = FOLDER / "conjugate_beta-binomial.jsonl"


def _conjugate_fit(data, prior, *, draws: int, chains: int, seed: int):
    """``theta_j | y ~ Beta(a + y_j, b + n_j - y_j)``, independent draws (BDA3 sec. 2.4)."""
    # deferred: xarray comes with the battery; --summary needs none of it
    import xarray as xr

    rng = np.random.default_rng(seed)
    a, b = prior.a + data.successes, prior.b + data.trials - data.successes
    theta = rng.beta(a, b, size=(chains, draws, a.size))
    return xr.Dataset({"theta": (("chain", "draw", "group"), theta)})


def run_conjugate(first: int, last: int, path: Path = CONJUGATE_RECORDS) -> None:
    """SBC's machinery alone: ``zoo.diagnostics.sbc.simulation_ranks`` and ``sbc_result``
    (thinning to the ESS, ties, ranks, the exact test, Holm) on exact conjugate draws,
    100 simulations of 2 x 200 draws per run, one record per run (seed)."""
    # deferred: the battery takes seconds to import; --summary needs none of it
    import zoo
    from zoo.diagnostics.sbc import sbc_result, simulation_ranks

    model = zoo.get("beta-binomial")
    prior = model.Prior(*CONJUGATE["prior"])
    done = set()
    if path.exists():
        done = {json.loads(line)["seed"] for line in path.read_text().splitlines()}
    host, commit = cpu_name(), bench_records.provenance()["commit"]
    for seed in range(first, last):
        if seed in done:
            continue
        started = time.process_time()
        ranked = [
            simulation_ranks(
                model,
                _conjugate_fit,
                i,
                seed=seed,
                prior=prior,
                size=CONJUGATE["size"],
                draws=200,
                chains=2,
            )
            for i in range(100)
        ]
        result = sbc_result(ranked, alpha=STATED)
        record = {
            "model": "beta-binomial, fixed Beta(2, 3)",
            "sampler": "exact conjugate draws",
            "seed": seed,
            "family_p": float(result.p_adjusted.min()),
            "p": dict(zip(result.quantities, map(float, result.p_values), strict=True)),
            "thinned_median": float(np.median(result.thinned)),
            "cpu_seconds": time.process_time() - started,
            "host": host,
            "commit": commit,
        }
        bench_records.append_to(path, record)
        print(f"conjugate seed {seed:5d} family p {record['family_p']:.3g}", flush=True)


def conjugate_summary(path: Path = CONJUGATE_RECORDS) -> list[str]:
    """The conjugate study: single p-values and the check's decision against their levels."""
    if not path.exists():
        return []
    records = [json.loads(line) for line in path.read_text().splitlines()]
    p = np.array([v for r in records for v in r["p"].values()])
    family = np.array([r["family_p"] for r in records])
    single = " / ".join(
        f"{np.count_nonzero(p <= a)} ({a * p.size:.1f})" for a in (0.05, 0.01, 0.004, 0.002, 0.001)
    )
    cells = []
    for a in (0.05, 0.01, 0.002):
        k = int(np.count_nonzero(family < a))
        low, high = clopper_pearson(k, family.size)
        cells.append(f"{k} ({k / family.size:.1%}) [{low:.1%}, {high:.1%}]")
    return [
        "| exact conjugate draws | runs | quantity p <= 0.05 / 0.01 / 0.004 / 0.002 / 0.001 "
        "(expected) | fails at 5% [95% CI] | at 1% | at 0.2% |",
        "|---|---|---|---|---|---|",
        f"| beta-binomial, Beta(2, 3), 12 x 25 | {family.size} | {single} | {' | '.join(cells)} |",
        "",
    ]


def summary(folder: Path = FOLDER, null: Path = NULL) -> str:
    """Markdown tables of both studies from their records."""
    lines = []
    if null.exists():
        lines += [
            "| simulations | quantities | thinned L | replicates | single p <= 0.05 / 0.01 / "
            "0.002 / 1e-3 / 1e-4 (expected) | check fails at 5% / 1% / 0.2% |",
            "|---|---|---|---|---|---|",
        ]
        for line in null.read_text().splitlines():
            r = json.loads(line)
            n = r["single_n"]
            single = " / ".join(
                f"{r['single'][k]} ({float(k) * n:.0f})" for k in ("0.05", "0.01", "0.002")
            )
            single += " / " + " / ".join(
                f"{r['single'][k]} ({float(k) * n:.0f})" for k in ("0.001", "0.0001")
            )
            fam = " / ".join(
                f"{r['family'][f'{a:g}']} ({r['family'][f'{a:g}'] / r['replicates']:.4f})"
                for a in LEVELS
            )
            lines.append(
                f"| {r['simulations']} | {r['quantities']} | {r['thinned']} | "
                f"{r['replicates']} | {single} | {fam} |"
            )
        lines.append("")
    by_model = defaultdict(list)
    # exact_MODEL.jsonl, not exact_size.jsonl (the test's sizes, no runs)
    run_files = [*folder.glob("correct_*.jsonl"), *folder.glob("exact_*.jsonl")]
    for runs in sorted(path for path in run_files if path.name != "exact_size.jsonl"):
        for line in runs.read_text().splitlines():
            r = json.loads(line)
            method = "exact" if r.get("p_value", "").startswith("exact") else "table"
            by_model[(r["model"], SAMPLER_NAMES[r["sampler"]], method)].append(r)
    if by_model:
        lines += [
            "| model | fitted by | p-values | seeds | quantities | fails at 0.2% [95% CI] | "
            "at 1% [95% CI] | at 5% [95% CI] | quantity p <= 0.01 (expected) | KS p of "
            "quantity p-values | median thinned draws | median CPU s |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        total = defaultdict(int)
        total_n = defaultdict(int)
        for model, records in sorted(by_model.items()):
            n = len(records)
            total_n[model[1]] += n
            cells = []
            for a in (0.002, 0.01, 0.05):
                k = sum(r["family_p"] < a for r in records)
                total[(model[1], a)] += k
                low, high = clopper_pearson(k, n)
                cells.append(f"{k} ({k / n:.1%}) [{low:.1%}, {high:.1%}]")
            p = np.array([v for r in records for v in r["p"].values()])
            ks = stats.kstest(p, "uniform").pvalue
            lines.append(
                f"| {model[0]} | {model[1]} | {model[2]} | {n} | {len(records[0]['p'])} | "
                f"{' | '.join(cells)} | "
                f"{np.count_nonzero(p <= 0.01)} ({0.01 * p.size:.0f}) | {ks:.3g} | "
                f"{np.median([r['thinned']['median'] for r in records]):.0f} | "
                f"{np.median([r['cpu_seconds'] for r in records]):.1f} |"
            )
        for sampler, n in sorted(total_n.items()):
            cells = []
            for a in (0.002, 0.01, 0.05):
                k = total[(sampler, a)]
                low, high = clopper_pearson(k, n)
                cells.append(f"{k} ({k / n:.1%}) [{low:.1%}, {high:.1%}]")
            lines.append(f"| all | {sampler} | | {n} | | {' | '.join(cells)} | | | | | |")
    lines += ["", *combined(by_model), "", *paired(by_model), "", *conjugate_summary()]
    lines += ["", *pooled(by_model)]
    return "\n".join(lines)


def pooled(by_model) -> list[str]:
    """Each quantity's ranks pooled over the runs that kept their counts (``rank_counts``).

    Two chi-square tests (scipy.stats) per quantity, over the twentieths of (0, 1):

    - *pooled*: the counts summed over runs against their expected ``n / 20``, with
      ``19`` degrees of freedom: is each simulation's rank uniform (its marginal
      distribution)? With thousands of simulations this sees a departure far smaller
      than any one run of 100 can.
    - *between runs*: each run's own chi-square summed over runs, ``19 x runs`` degrees
      of freedom: are the simulations of a run independent? A shared cause within a
      run (a common draw, a seed reused) spreads the runs' ECDFs more than independent
      uniform ranks do, which is the one way a run could fail more often than the test
      states while the pooled ranks stay uniform.

    Also the pooled tails: ranks in the first and last twentieth (expected ``n / 20``
    each), where SBC's ECDF test is most sensitive to a few simulations.
    """
    lines = [
        "| model | fitted by | quantity | runs | simulations | pooled chi2 p | between-runs "
        "chi2 p | first / last twentieth (expected) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    worst = []
    for (model, sampler, _), records in sorted(by_model.items()):
        kept = [r for r in records if "rank_counts" in r]
        if not kept:
            continue
        for q in kept[0]["rank_counts"]:
            counts = np.array([r["rank_counts"][q] for r in kept if q in r["rank_counts"]])
            n = int(counts.sum())
            total = counts.sum(axis=0)
            pooled_p = stats.chisquare(total).pvalue
            per_run = counts.sum(axis=1, keepdims=True) / RANK_BINS
            between = float((((counts - per_run) ** 2) / per_run).sum())
            dof = (RANK_BINS - 1) * counts.shape[0]
            between_p = stats.chi2.sf(between, dof)
            worst.append(min(pooled_p, between_p))
            lines.append(
                f"| {model} | {sampler} | {q} | {counts.shape[0]} | {n} | {pooled_p:.3g} | "
                f"{between_p:.3g} | {total[0]} / {total[-1]} ({n / RANK_BINS:.0f}) |"
            )
    if not worst:
        return []
    m = len(worst)
    lines.append(
        f"\n{m} quantities; smallest p {min(worst):.3g} (Bonferroni over {2 * m} tests: "
        f"{min(1.0, 2 * m * min(worst)):.3g})"
    )
    return lines


#: How each sampler of the records is named in the tables.
SAMPLER_NAMES = {"correct": "Gibbs kernel", "exact": "exact draws"}


def paired(by_model) -> list[str]:
    """The Gibbs kernel against exact draws on the same seeds: the same simulated data sets.

    A run's simulations depend on ``(seed, index)`` only, so both fit the same truths
    and data; a correct, well-mixed sampler then ranks each truth about where exact
    draws do (both near the posterior CDF at the truth). Per model: the seeds both ran
    (the kernel's first seeds with table p-values, a little off in the far tail), the
    runs failing at 5% with each, the Spearman correlation of
    their family p-values, and the mean over quantities of the absolute difference of
    mean rank and rank sd (each quantity's over the 100 simulations) between the two,
    with the first's expected size between two fits of independent exact draws.
    """
    lines = [
        "| model | seeds both | Gibbs fails at 5% | exact fails at 5% | Gibbs fails at 1% | "
        "exact fails at 1% | Spearman of family p | mean abs diff: mean rank (two exact fits) | "
        "rank sd |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for model in sorted({key[0] for key in by_model}):
        gibbs, exact = {}, {}
        for (name, sampler, _), records in by_model.items():
            if name == model:
                side = gibbs if sampler == SAMPLER_NAMES["correct"] else exact
                side.update((r["seed"], r) for r in records)
        seeds = sorted(set(gibbs) & set(exact))
        if len(seeds) < 3:
            continue
        g = np.array([gibbs[s]["family_p"] for s in seeds])
        e = np.array([exact[s]["family_p"] for s in seeds])
        diffs = {"rank_mean": [], "rank_sd": []}
        expected = []
        for s in seeds:
            for key, values in diffs.items():
                values.extend(abs(gibbs[s][key][q] - exact[s][key][q]) for q in gibbs[s][key])
            # Two fits of the same truth, each ranking it among L independent draws:
            # given its posterior quantile q the rank's variance is q (1 - q) / L, 1 / (6 L)
            # on average over q, so a mean over N simulations differs between them with
            # variance (1 / (6 L1) + 1 / (6 L2)) / N, and E|d| = sqrt(2 / pi) sd(d).
            var = sum(1.0 / (6.0 * r["thinned"]["median"]) for r in (gibbs[s], exact[s]))
            expected.append(np.sqrt(2.0 / np.pi * var / exact[s]["simulations"]))
        rho = stats.spearmanr(g, e).statistic
        lines.append(
            f"| {model} | {len(seeds)} | {np.count_nonzero(g < 0.05)} | "
            f"{np.count_nonzero(e < 0.05)} | {np.count_nonzero(g < 0.01)} | "
            f"{np.count_nonzero(e < 0.01)} | {rho:.2f} | "
            f"{np.mean(diffs['rank_mean']):.4f} ({np.mean(expected):.4f}) | "
            f"{np.mean(diffs['rank_sd']):.4f} |"
        )
    return [*lines, "", *distinct(by_model)]


def distinct(by_model) -> list[str]:
    """Every simulated collection once: per seed the exact draws' run, else the kernel's.

    A seed fixes the 100 simulated data sets and truths; where both fits ran, they are
    one piece of evidence about the test, not two.
    """
    lines = [
        "| model | distinct seeds (exact draws) | fails at 0.2% [95% CI] | at 1% [95% CI] | "
        "at 5% [95% CI] |",
        "|---|---|---|---|---|",
    ]
    totals = defaultdict(int)
    for model in sorted({key[0] for key in by_model}):
        runs = {}
        for sampler in (SAMPLER_NAMES["correct"], SAMPLER_NAMES["exact"]):
            for method in ("table", "exact"):
                runs.update((r["seed"], r) for r in by_model.get((model, sampler, method), []))
        exact = sum(r["sampler"] == "exact" for r in runs.values())
        if not exact:
            continue
        n = len(runs)
        totals["n"] += n
        cells = []
        for a in (0.002, 0.01, 0.05):
            k = sum(r["family_p"] < a for r in runs.values())
            totals[a] += k
            low, high = clopper_pearson(k, n)
            cells.append(f"{k} ({k / n:.1%}) [{low:.1%}, {high:.1%}]")
        lines.append(f"| {model} | {n} ({exact}) | {' | '.join(cells)} |")
    cells = []
    for a in (0.002, 0.01, 0.05):
        low, high = clopper_pearson(totals[a], totals["n"])
        cells.append(f"{totals[a]} ({totals[a] / totals['n']:.1%}) [{low:.1%}, {high:.1%}]")
    lines.append(f"| all | {totals['n']} | {' | '.join(cells)} |")
    return lines


def combined(by_model) -> list[str]:
    """Per kernel at 0.2% per check: the earlier records (seeds 0-59) and these together."""
    earlier = defaultdict(list)
    for path in EARLIER:
        for line in path.read_text().splitlines():
            r = json.loads(line)
            if r["check"] == "sbc" and r["sampler"] == "correct":
                earlier[r["model"]].append(r["verdict"] == "fail")
    now = defaultdict(list)
    for (model, sampler, _), records in by_model.items():
        if sampler == SAMPLER_NAMES["correct"]:
            now[model].extend(r["family_p"] < STATED for r in records)
    lines = [
        "| model | seeds 0-59 (table) fail | new seeds fail | together [95% CI] |",
        "|---|---|---|---|",
    ]
    all_k = all_n = 0
    for model in sorted(set(earlier) | set(now)):
        k0, n0 = sum(earlier[model]), len(earlier[model])
        k1, n1 = sum(now[model]), len(now[model])
        k, n = k0 + k1, n0 + n1
        all_k, all_n = all_k + k, all_n + n
        low, high = clopper_pearson(k, n)
        lines.append(
            f"| {model} | {k0} / {n0} | {k1} / {n1} | {k} / {n} = {k / n:.1%} "
            f"[{low:.1%}, {high:.1%}] |"
        )
    low, high = clopper_pearson(all_k, all_n)
    lines.append(f"| all | | | {all_k} / {all_n} = {all_k / all_n:.1%} [{low:.1%}, {high:.1%}] |")
    return lines


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--null", action="store_true", help="the test on exact uniform ranks")
    parser.add_argument(
        "--exact-size", action="store_true", help="the test's size by the recursion, no simulation"
    )
    parser.add_argument("--replicates", type=int, default=100_000)
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--quantities", type=int, default=17)
    parser.add_argument("--thinned", type=int, default=100, help="draws L left by thinning")
    parser.add_argument(
        "--table", action="store_true", help="p-values from the simulated null table (before)"
    )
    parser.add_argument("--models", nargs="+", default=[])
    parser.add_argument(
        "--exact-draws",
        action="store_true",
        help="fit with exact independent posterior draws (bench.exact_draws), not the kernel",
    )
    parser.add_argument(
        "--conjugate", action="store_true", help="the machinery alone, on exact conjugate draws"
    )
    parser.add_argument("--seeds", type=int, nargs=2, default=(100, 200), metavar=("FIRST", "END"))
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(argv)
    if args.exact_size:
        record = {
            "study": "exact-size",
            "simulations": args.simulations,
            "quantities": args.quantities,
            **exact_sizes(args.simulations, args.quantities),
            "host": cpu_name(),
            "commit": bench_records.provenance()["commit"],
        }
        NULL.parent.mkdir(parents=True, exist_ok=True)
        bench_records.append_to((FOLDER / "exact_size.jsonl"), record)
        print(json.dumps(record))
    if args.null:
        record = null_study(
            args.replicates,
            args.simulations,
            args.quantities,
            args.thinned,
            seed=20261126,
            table=args.table,
        )
        NULL.parent.mkdir(parents=True, exist_ok=True)
        bench_records.append_to(NULL, record)
        print(json.dumps(record))
    if args.conjugate:
        run_conjugate(*args.seeds)
    if args.models:
        run_models(args.models, *args.seeds, sampler="exact" if args.exact_draws else "correct")
    if args.summary:
        print(summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

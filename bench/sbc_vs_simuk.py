"""The zoo's simulation-based calibration beside simuk's, on the same PyMC program.

Both tools run prior SBC of the beta-binomial PyMC program (``zoo.get("beta-binomial")
.program``) under ``Prior(min_concentration=1.0)`` with 12 groups of 25 trials (the
model's ``simulation_setup``), with the same ``pm.sample`` settings per fit (NUTS from
PyMC, ``draws`` draws after ``draws`` tuning steps, ``chains`` chains) and the same
number of simulations, one simulation after the other in this process:

- the zoo: ``zoo.validate(..., engine="pymc", checks=("sbc",), workers=0)``;
- simuk 0.3: ``simuk.SBC(model, num_simulations=..., sample_kwargs=...)`` on the
  program built from one simulated data set (simuk draws its own prior-predictive data
  sets from the program and swaps them in with ``pm.observe``; the program's observed
  ``y`` is a plain array and needs no change).

Measured: wall time per simulation (median and mean, first fit apart), and, per shared
test quantity, a two-sample Kolmogorov-Smirnov test between the two tools' normalised
ranks and each tool's uniformity p-value (:func:`zoo.diagnostics.uniformity
.uniformity_pvalue`). simuk's integer ranks ``r`` in ``0..L`` become ``(r + U) / (L + 1)``
with ``U`` uniform, the zoo's own normalisation.

What simuk ranks natively is the program's free variables: ``population_mean``,
``inverse_root_concentration`` and ``theta``. The zoo ranks ``a``, ``b``, ``logit_mean``,
``log_concentration``, ``theta`` and the log-likelihood. ``logit_mean`` is an increasing
function of ``population_mean`` and ``log_concentration`` a decreasing one of
``inverse_root_concentration``, so their ranks are simuk's (the second reversed,
``L - r``). ``a``, ``b`` and the log-likelihood are not ranked by simuk; they are ranked
here from simuk's own fits and reference draws with simuk's rule (draws strictly below
the truth) and marked "derived" in the table.

Records: ``bench/results/sbc_vs_simuk/records.jsonl``, one per run (settings, timings,
table rows, all normalised ranks), through ``bench.records`` (host, commit, date and
command inside each); ``python -m bench.tables`` writes the latest run's table to
``table.md`` beside them.

    python -m bench.sbc_vs_simuk --simulations 100 --draws 500 --chains 2

simuk is a benchmark dependency only (``pip install -e '.[bench]'``); the package never
imports it.
"""

from __future__ import annotations

import argparse
import logging
import os
import time
import warnings

import numpy as np
from scipy import stats

from bench import records

MODEL = "beta-binomial"


def _quiet() -> None:
    # PyMC announces every fit ("Multiprocess sampling ...") and warns about small
    # chain counts; a hundred fits of that drown the table.
    for name in ("pymc", "pymc.sampling", "pymc.stats.convergence", "pytensor"):
        logging.getLogger(name).setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=RuntimeWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    warnings.filterwarnings("ignore", category=FutureWarning)


def _cores(chains: int) -> int:
    # What the zoo's PyMC engine passes to pm.sample (zoo/driver.py); simuk is given the
    # same, so that both tools make the very same call per fit.
    return max(1, min(chains, os.cpu_count() or 1))


def warm_up(seed: int) -> float:
    """One short, untimed fit: PyTensor's on-disk cache of compiled C code is filled
    before either tool is timed, so neither pays for it alone."""
    import zoo
    from zoo.validation import SamplerUnderTest

    spec = zoo.get(MODEL)
    prior, size = spec.simulation_setup()
    _, data = spec.simulate(prior, np.random.default_rng([seed, 0xBA5E]), **size)
    started = time.perf_counter()
    SamplerUnderTest(spec, engine="pymc").sample(data, prior, draws=50, chains=2, seed=seed)
    return time.perf_counter() - started


def run_zoo(simulations: int, draws: int, chains: int, seed: int) -> dict:
    """``zoo validate``'s SBC check of the PyMC engine, in this process.

    Returns
    -------
    dict
        ``quantities``, ``ranks`` (simulations x quantities, normalised), ``p_values``,
        ``thinned`` (draws kept per simulation), ``seconds`` (wall time per simulation,
        in order of completion), ``total_seconds``, ``failures``.
    """
    import zoo
    from zoo.validation import validate

    spec = zoo.get(MODEL)
    stamps: list[float] = []

    def on_simulation(done: int, total: int) -> None:
        # Called once before the first fit and after every fit: the gaps are the wall
        # time of each simulation (simulate, fit, thin, rank), fits run one at a time.
        stamps.append(time.perf_counter())

    started = time.perf_counter()
    result = validate(
        MODEL,
        engine="pymc",
        checks=("sbc",),
        budgets={"sbc": {"simulations": simulations, "draws": draws, "chains": chains}},
        seed=seed,
        workers=0,
        timeout=None,
        sbc_setup=spec.simulation_setup(),
        on_simulation=on_simulation,
    )
    total = time.perf_counter() - started
    sbc = result.checks[0].details
    return {
        "quantities": list(sbc.quantities),
        "ranks": np.asarray(sbc.ranks),
        "p_values": np.asarray(sbc.p_values),
        "thinned": np.asarray(sbc.thinned),
        "seconds": np.diff(stamps),
        "total_seconds": total,
        "failures": sbc.failures,
        "verdict": sbc.verdict,
    }


def _timed_sbc_class():
    """simuk's SBC, timing each fit and keeping each simulated data set.

    A subclass, not a copy: the fit itself is simuk's ``_get_posterior_samples`` (a
    private method of simuk 0.3; the timing wraps it). The simulated data sets are kept
    only to rank the log-likelihood, which simuk does not.
    """
    import simuk

    class TimedSBC(simuk.SBC):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            self.fit_seconds: list[float] = []
            self.replicated: list[dict] = []

        def _get_posterior_samples(self, replicated_data):
            started = time.perf_counter()
            posterior = super()._get_posterior_samples(replicated_data)
            self.fit_seconds.append(time.perf_counter() - started)
            self.replicated.append({k: np.asarray(v) for k, v in replicated_data.items()})
            return posterior

    return TimedSBC


def run_simuk(simulations: int, draws: int, chains: int, seed: int) -> dict:
    """simuk's prior SBC of the zoo's PyMC program, in this process.

    Returns
    -------
    dict
        ``native``: simuk's integer ranks per variable (``population_mean``,
        ``inverse_root_concentration``: shape (simulations,); ``theta``: (simulations,
        groups)); ``derived``: integer ranks of ``a``, ``b`` and ``log_likelihood``
        computed here from simuk's fits by simuk's rule; ``n_draws`` (``L``);
        ``seconds`` (wall time per fit), ``outside_fit_seconds`` (building the program,
        simuk's prior-predictive draws and its ranking of the kept fits),
        ``total_seconds``.
    """
    import zoo

    spec = zoo.get(MODEL)
    prior, size = spec.simulation_setup()
    started = time.perf_counter()
    # simuk needs a model with observed data to start from; its values are replaced by
    # each simulated data set, so any draw from the prior predictive will do.
    _, data = spec.simulate(prior, np.random.default_rng([seed, 0x51]), **size)
    model = spec.program(data, prior)
    sbc = _timed_sbc_class()(
        model,
        num_simulations=simulations,
        sample_kwargs={
            "draws": draws,
            "tune": draws,
            "chains": chains,
            "cores": _cores(chains),
            "nuts_sampler": "pymc",
        },
        seed=seed,
        keep_fits=True,
        progress_bar=False,
    )
    sbc.run_simulations()
    total = time.perf_counter() - started
    if sbc._simulations_complete != simulations:
        raise RuntimeError(
            f"simuk stopped after {sbc._simulations_complete} of {simulations} simulations "
            "(its traceback is above)"
        )
    ranks = sbc.simulations["prior_sbc"]
    native = {
        name: np.asarray(ranks[name].values)[0]
        for name in ("population_mean", "inverse_root_concentration", "theta")
    }
    n_draws = {int(p.sizes["sample"]) for p in sbc.posteriors}
    if len(n_draws) != 1:
        raise RuntimeError(f"simuk fits kept different numbers of draws: {sorted(n_draws)}")

    derived = {"a": [], "b": [], "log_likelihood": []}
    # simuk counts draws strictly below the truth and never breaks ties; count how
    # many draws equal the truth, to show that this cannot matter here.
    ties = 0
    for index, posterior in enumerate(sbc.posteriors):
        reference = sbc.ref_params.isel(sample=index)
        for name in ("population_mean", "inverse_root_concentration", "theta", "a", "b"):
            truth = reference[name].values
            draws_of = posterior[name].transpose("sample", ...).values
            ties += int(np.count_nonzero(draws_of == truth))
        for name in ("a", "b"):
            below = posterior[name].values < float(reference[name].values)
            derived[name].append(int(np.count_nonzero(below)))
        simulated = spec.Data(sbc.replicated[index]["y"], data.trials)
        theta = posterior["theta"].transpose("sample", "group").values
        log_lik = np.array([spec.log_likelihood(simulated, {"theta": row}) for row in theta])
        truth = spec.log_likelihood(simulated, {"theta": reference["theta"].values})
        derived["log_likelihood"].append(int(np.count_nonzero(log_lik < truth)))
    return {
        "native": native,
        "derived": {k: np.array(v) for k, v in derived.items()},
        "n_draws": n_draws.pop(),
        "ties": ties,
        "seconds": np.asarray(sbc.fit_seconds),
        "outside_fit_seconds": total - float(np.sum(sbc.fit_seconds)),
        "total_seconds": total,
    }


def _normalise(ranks: np.ndarray, n_draws: int, rng: np.random.Generator) -> np.ndarray:
    # The zoo's normalisation of an integer rank in 0..L: uniform on (0, 1) for every L.
    return (ranks + rng.random(ranks.shape)) / (n_draws + 1)


def simuk_columns(simuk: dict, zoo_quantities: list[str], seed: int) -> dict[str, tuple]:
    """simuk's normalised ranks for each zoo quantity it can be matched with.

    Returns
    -------
    dict
        zoo quantity -> (source description, normalised ranks of shape (simulations,)).
    """
    rng = np.random.default_rng([seed, 0x7135])
    n_draws = simuk["n_draws"]
    native, derived = simuk["native"], simuk["derived"]
    columns = {}
    for quantity in zoo_quantities:
        if quantity.startswith("theta[group="):
            group = int(quantity[len("theta[group=") : -1])
            source, ranks = f"theta[{group}] (native)", native["theta"][:, group]
        elif quantity == "logit_mean":
            # logit(population_mean): increasing, so the very same rank.
            source, ranks = "population_mean (native)", native["population_mean"]
        elif quantity == "log_concentration":
            # -2 log(inverse_root_concentration): decreasing, so the rank counted from
            # the top; exact without ties, which continuous draws do not have.
            source = "inverse_root_concentration, reversed (native)"
            ranks = n_draws - native["inverse_root_concentration"]
        elif quantity in derived:
            source, ranks = f"{quantity} (derived from simuk's fits)", derived[quantity]
        else:
            continue
        columns[quantity] = (source, _normalise(np.asarray(ranks), n_draws, rng))
    return columns


def compare(zoo: dict, simuk: dict, seed: int) -> tuple[list[dict], dict]:
    """Per quantity: two-sample KS between the tools, and each tool's uniformity p."""
    from zoo.diagnostics.agreement import holm
    from zoo.diagnostics.uniformity import uniformity_pvalue

    columns = simuk_columns(simuk, zoo["quantities"], seed)
    rows = []
    for j, quantity in enumerate(zoo["quantities"]):
        zoo_ranks = zoo["ranks"][:, j]
        row = {
            "quantity": quantity,
            "simuk_source": None,
            "ks_statistic": None,
            "ks_p": None,
            "zoo_uniformity_p": float(zoo["p_values"][j]),
            "simuk_uniformity_p": None,
        }
        if quantity in columns:
            source, simuk_ranks = columns[quantity]
            test = stats.ks_2samp(zoo_ranks, simuk_ranks)
            row |= {
                "simuk_source": source,
                "ks_statistic": float(test.statistic),
                "ks_p": float(test.pvalue),
                "simuk_uniformity_p": uniformity_pvalue(simuk_ranks),
            }
        rows.append(row)
    # Holm over the quantities, per column: about 17 tests each, so a raw p near 0.01
    # is no surprise under agreement and uniformity.
    for key in ("ks_p", "zoo_uniformity_p", "simuk_uniformity_p"):
        present = [i for i, row in enumerate(rows) if row[key] is not None]
        adjusted = holm(np.array([rows[i][key] for i in present]))
        for i, value in zip(present, adjusted, strict=True):
            rows[i][f"{key}_holm"] = float(value)
    return rows, {q: c[1] for q, c in columns.items()}


def _timing(seconds: np.ndarray, total: float, simulations: int) -> dict:
    return {
        "first_seconds": float(seconds[0]),
        "median_seconds": float(np.median(seconds)),
        "mean_seconds": float(np.mean(seconds)),
        "mean_seconds_after_first": float(np.mean(seconds[1:])) if seconds.size > 1 else None,
        "total_seconds": float(total),
        "total_per_simulation": float(total / simulations),
        "per_simulation": [float(s) for s in seconds],
    }


def _p(value) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def markdown(report: dict) -> str:
    """The report as a Markdown table with its settings and timings."""
    s = report["settings"]
    zt, st = report["timing"]["zoo"], report["timing"]["simuk"]
    lines = [
        "# SBC of the beta-binomial PyMC program: zoo validate vs simuk",
        "",
        f"{s['simulations']} simulations per tool; per fit `pm.sample(draws={s['draws']}, "
        f"tune={s['draws']}, chains={s['chains']}, cores={s['cores']}, "
        f'nuts_sampler="pymc")`; `Prior(min_concentration=1.0)`, 12 groups x 25 trials; '
        f"seed {s['seed']}; simuk {s['simuk_version']}, PyMC {s['pymc_version']}. "
        f"Run {s['finished']} on a shared 2-core machine.",
        "",
        "| | zoo | simuk |",
        "|---|---|---|",
        f"| wall s / simulation, median | {zt['median_seconds']:.2f} | "
        f"{st['median_seconds']:.2f} |",
        f"| wall s / simulation, mean | {zt['mean_seconds']:.2f} | {st['mean_seconds']:.2f} |",
        f"| first simulation, s | {zt['first_seconds']:.2f} | {st['first_seconds']:.2f} |",
        f"| total wall s (incl. setup) | {zt['total_seconds']:.1f} | {st['total_seconds']:.1f} |",
        f"| draws ranked per simulation | median {report['zoo_thinned_median']:g} "
        f"(thinned to ESS) | {report['simuk_draws']} (all) |",
        f"| quantities ranked | {len(report['rows'])} | {report['simuk_native_quantities']} "
        "native |",
        f"| draws equal to the truth (ties) | broken at random | {report['simuk_ties']} "
        "(not broken) |",
        "",
        "zoo's time per simulation covers simulate, fit, thin and rank; simuk's covers its "
        "fit (`pm.observe` + `pm.sample`); its prior-predictive draws and ranking are in "
        "its total.",
        "",
        "KS: two-sample Kolmogorov-Smirnov between the tools' normalised ranks. "
        "Uniformity: `zoo.diagnostics.uniformity.uniformity_pvalue`. Raw p-values; the "
        "smallest Holm-adjusted value per column is given below the table.",
        "",
        "| quantity (zoo) | simuk source | KS D | KS p | zoo uniformity p | simuk uniformity p |",
        "|---|---|---|---|---|---|",
    ]
    for row in report["rows"]:
        lines.append(
            f"| {row['quantity']} | {row['simuk_source'] or 'not ranked'} | "
            f"{_p(row['ks_statistic'])} | {_p(row['ks_p'])} | {_p(row['zoo_uniformity_p'])} "
            f"| {_p(row['simuk_uniformity_p'])} |"
        )
    lines.append("")
    for key, name in (
        ("ks_p", "KS"),
        ("zoo_uniformity_p", "zoo uniformity"),
        ("simuk_uniformity_p", "simuk uniformity"),
    ):
        values = [row[f"{key}_holm"] for row in report["rows"] if f"{key}_holm" in row]
        lines.append(f"- smallest Holm-adjusted {name} p: {min(values):.3g}")
    lines.append("")
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=100)
    parser.add_argument("--draws", type=int, default=500, help="draws and tuning steps per fit")
    parser.add_argument("--chains", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    _quiet()

    from importlib.metadata import version

    import pymc
    import simuk  # noqa: F401  (fail before an hour of fits if it is missing)

    warm = warm_up(args.seed)
    print(f"warm-up fit: {warm:.1f} s", flush=True)
    zoo = run_zoo(args.simulations, args.draws, args.chains, args.seed)
    print(
        f"zoo: {zoo['total_seconds']:.1f} s, median {np.median(zoo['seconds']):.2f} s "
        f"per simulation, verdict {zoo['verdict']}",
        flush=True,
    )
    simuk_run = run_simuk(args.simulations, args.draws, args.chains, args.seed)
    print(
        f"simuk: {simuk_run['total_seconds']:.1f} s, median "
        f"{np.median(simuk_run['seconds']):.2f} s per fit",
        flush=True,
    )
    rows, simuk_ranks = compare(zoo, simuk_run, args.seed)
    report = {
        "settings": {
            "model": MODEL,
            "prior": "Prior(min_concentration=1.0)",
            "size": {"groups": 12, "trials": 25},
            "simulations": args.simulations,
            "draws": args.draws,
            "tune": args.draws,
            "chains": args.chains,
            "cores": _cores(args.chains),
            "seed": args.seed,
            "simuk_version": version("simuk"),
            "pymc_version": pymc.__version__,
            "warm_up_seconds": warm,
            "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        },
        "timing": {
            "zoo": _timing(zoo["seconds"], zoo["total_seconds"], args.simulations),
            "simuk": _timing(simuk_run["seconds"], simuk_run["total_seconds"], args.simulations)
            | {"outside_fit_seconds": simuk_run["outside_fit_seconds"]},
        },
        "zoo_verdict": zoo["verdict"],
        "zoo_failures": zoo["failures"],
        "zoo_thinned_median": float(np.median(zoo["thinned"])),
        "zoo_thinned": [int(t) for t in zoo["thinned"]],
        "simuk_draws": simuk_run["n_draws"],
        "simuk_ties": simuk_run["ties"],
        "simuk_native_quantities": 2 + simuk_run["native"]["theta"].shape[1],
        "rows": rows,
        "ranks": {
            "zoo": {q: zoo["ranks"][:, j].tolist() for j, q in enumerate(zoo["quantities"])},
            "simuk": {q: r.tolist() for q, r in simuk_ranks.items()},
        },
    }
    records.append("sbc_vs_simuk", report)
    print(markdown(report))


if __name__ == "__main__":
    main()

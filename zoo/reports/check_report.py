"""The report of ``zoo check`` and ``zoo report``: one section per model.

Each section has the verdicts, the agreement table (failing rows highlighted; every
quantity in a folded table below), each engine's marginal posteriors over the exact
density, and per engine rank and trace plots. Figures show a bounded set of quantities:
the failing ones first, then the first few of each variable (the section says which).
"""

from __future__ import annotations

import math

from zoo.check import COMPARISONS, ModelCheck, exact_mean, quantity_rows
from zoo.core.defaults import ENGINES
from zoo.reports.figures import (
    posterior_figure,
    quantities,
    rank_figure,
    select_elements,
    trace_figure,
)
from zoo.reports.html import Report, ReportFigure, Table

__all__ = ["add_check_section", "check_figures", "check_report"]

ENGINE_TITLES = {"gibbs": "Gibbs", "pymc": "PyMC"}


def check_report(checks, *, title: str = "zoo check", text: str | None = None) -> Report:
    """A report with one section per :class:`~zoo.check.ModelCheck`."""
    report = Report(title, text=text)
    for check in checks:
        add_check_section(report, check)
    return report


def _fmt(value, mcse=None) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    if mcse is not None and math.isfinite(mcse) and mcse > 0:
        digits = max(2, min(6, 2 - math.floor(math.log10(mcse))))
        return f"{value:.{digits}f} ± {mcse:.1g}"
    return f"{value:.4f}"


def _comparison_cell(q) -> str:
    if q is None:
        return "-"
    return f"{q['verdict']} max|z| {q['max_abs_z']:.1f}"


def _row_cells(row) -> list:
    mean = exact_mean(row)
    cells = [row["element"], "infinite" if math.isinf(mean) else _fmt(mean)]
    for key in ENGINES:
        q = row[key]
        if q is None:
            cells.append("-")
        elif not math.isfinite(q["mean"]):
            cells.append("(no mean)")
        else:
            cells.append(_fmt(q["mean"], q["mean_mcse"]))
    cells += [_comparison_cell(row[key]) for key, _ in COMPARISONS]
    summaries = [row[k] for k, _ in COMPARISONS if row[k] is not None]
    rhat = max((q["rhat"] for q in summaries), default=math.nan)
    ess = min((min(q["ess_bulk"], q["ess_tail"]) for q in summaries), default=math.nan)
    cells += [_fmt(rhat) if math.isfinite(rhat) else "-", "-" if math.isnan(ess) else f"{ess:.0f}"]
    return cells


_COLUMNS = [
    "quantity",
    "exact mean",
    "Gibbs mean",
    "PyMC mean",
    *(title for _, title in COMPARISONS),
    "worst R-hat",
    "min ESS",
]


def _tables(rows) -> list[Table]:
    """The short table (scalars, failing rows, one folded row per agreeing vector) and all."""
    short, status, folded = [], [], {}
    for row in rows:
        if "[" not in row["element"] or row["verdict"] != "agree":
            short.append(_row_cells(row))
            status.append(row["verdict"])
        else:
            folded.setdefault(row["variable"], []).append(row)
    for variable, members in folded.items():
        worst = {}
        for key, _ in COMPARISONS:
            zs = [m[key]["max_abs_z"] for m in members if m[key] is not None]
            worst[key] = f"agree max|z| {max(zs):.1f}" if zs else "-"
        short.append(
            [f"{variable}[...] ({len(members)} elements, all agree)", "", "", ""]
            + [worst[key] for key, _ in COMPARISONS]
            + ["", ""]
        )
        status.append("agree")
    tables = [Table(_COLUMNS, short, status=status, caption="Agreement by quantity")]
    if folded:
        tables.append(
            Table(
                _COLUMNS,
                [_row_cells(r) for r in rows],
                status=[r["verdict"] for r in rows],
                caption=f"Every quantity ({len(rows)})",
                collapsed=True,
            )
        )
    return tables


def _plottable(check: ModelCheck, rows) -> dict:
    """The quantities of the draws that were judged, per variable."""
    first = next(iter(check.run.trees.values()))
    by_variable = quantities(first["posterior"].to_dataset(), check.reference)
    # Plot what was judged: label-switching variables of a mixture are left out.
    judged = {r["variable"] for r in rows}
    return {k: v for k, v in by_variable.items() if k in judged} or by_variable


def _plotted_count(check: ModelCheck, rows) -> int:
    return sum(len(v) for v in _plottable(check, rows).values())


def check_figures(
    check: ModelCheck, *, per_variable: int = 2, total: int = 8
) -> tuple[list[ReportFigure], list]:
    """The figures of one model's section, and the quantities they show.

    The marginal posteriors of every engine over the exact density, then per engine
    its rank plot and its traces, each with its caption. Without draws (a check
    without its ``run``) there are none.

    Parameters
    ----------
    check : ModelCheck
    per_variable, total : int
        As for :func:`add_check_section`.

    Returns
    -------
    figures : list of ReportFigure
        Not yet rendered: :meth:`Report.add_section` renders and closes them.
    chosen : list of Quantity
        The quantities shown, those that do not agree first.
    """
    run = check.run
    if run is None or not run.trees:
        return [], []
    rows = quantity_rows(check)
    # Disagreements first: they are what the reader came for.
    failing = [r["element"] for r in rows if r["verdict"] == "disagree"]
    failing += [r["element"] for r in rows if r["verdict"] == "inconclusive"]
    chosen = select_elements(
        _plottable(check, rows), failing, per_variable=per_variable, total=total
    )
    engines = {ENGINE_TITLES[e]: t for e, t in run.trees.items()}
    posterior = posterior_figure(engines, chosen, check.reference, title=check.model)
    # Each figure says what it shows, so a caption cannot drift from its figure.
    figures = [ReportFigure(posterior, f"{check.model}-posterior", posterior.get_label())]
    for engine, tree in run.trees.items():
        name = ENGINE_TITLES[engine]
        kinds = [("rank", rank_figure, "ranks"), ("trace", trace_figure, "traces")]
        if tree["posterior"].sizes["chain"] < 2:
            # A rank plot compares chains (ranks of each chain within the pooled draws):
            # one chain has nothing to compare with, and ArviZ's envelope needs two.
            kinds = kinds[1:]
        for kind, build, heading in kinds:
            figure = build(tree, chosen, title=f"{check.model}: {name} {heading}")
            figures.append(
                ReportFigure(
                    figure,
                    f"{check.model}-{engine}-{kind}",
                    f"{name} {heading}. {figure.get_label()}",
                )
            )
    return figures, chosen


def add_check_section(report: Report, check: ModelCheck, *, per_variable: int = 2, total: int = 8):
    """Add one model's check to ``report``.

    Parameters
    ----------
    report : Report
    check : ModelCheck
        With its ``run`` (the draws); without it only the tables are shown.
    per_variable, total : int
        Quantities in the figures: the failing ones first, then the first
        ``per_variable`` elements of each variable, at most ``total`` in all.

    Returns
    -------
    Section
    """
    rows = quantity_rows(check)
    settings = check.settings
    verdicts = check.verdicts()
    text = [
        f"Verdict: {check.verdict}. "
        + "; ".join(f"{title}: {verdicts[key] or 'not made'}" for key, title in COMPARISONS)
        + ".",
        f"{settings.get('draws')} draws x {settings.get('chains')} chains after "
        f"{settings.get('tune')} warm-up sweeps, seed {settings.get('seed')}, family-wise "
        f"false-alarm rate {settings.get('alpha'):g} (Holm). Reference: {check.reference_note}.",
    ]
    run = check.run
    if run is not None:
        kept = ", ".join(f"{ENGINE_TITLES.get(e, e)} {w}" for e, w in run.kept().items())
        text.append(f"Draws kept: {kept}.")
    if run is not None and run.interrupted:
        text.append(
            "Sampling was interrupted (Ctrl-C): these are the draws completed until then, "
            "so the verdict is at best inconclusive."
        )
    figures, chosen = check_figures(check, per_variable=per_variable, total=total)
    if chosen:
        verdict_of = {r["element"]: r["verdict"] for r in rows}
        n_all = _plotted_count(check, rows)
        text.append(
            f"Figures show {len(chosen)} of {n_all} quantities, those that do not agree "
            f"first, then the first {per_variable} elements of each variable: "
            + ", ".join(f"{q.label} ({verdict_of.get(q.label, 'not tested')})" for q in chosen)
            + "."
        )
    seconds = ", ".join(f"{k} {v:.1f} s" for k, v in check.seconds.items())
    if seconds:
        text.append(f"Time: {seconds}.")
    return report.add_section(
        check.model, text=text, table=_tables(rows), figures=figures, status=check.verdict
    )

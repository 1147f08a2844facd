"""The report of ``zoo validate --report DIR``: the battery, what each check found, why.

Built with :class:`zoo.reports.html.Report`: a summary of the checks (what ran and
how many quantities failed per data set); per check, every finding (statistic, estimate
against the reference value, MCSE, z, Holm p; or the gate not passed and the draws that
would clear it); for the exact and nuts checks, the sampler's posterior of the failing
quantities over the exact density (or over NUTS's draws) and one table per data set;
the simulation-based calibration as ECDF differences of the normalised ranks in their
simultaneous band.
"""

from __future__ import annotations

from zoo.reports.figures import posterior_figure, quantities
from zoo.reports.html import Report, ReportFigure, Table
from zoo.validation.battery import CHECKS
from zoo.validation.results import finding_cells

__all__ = ["validation_report"]


def _agreement_table(name: str, result) -> Table:
    rows, status = [], []
    for q in result.quantities():
        rows.append(
            [
                q["element"],
                f"{q['verdict']} max|z| {q['max_abs_z']:.1f}",
                f"{q['min_p_adjusted']:.3g}",
                f"{q['rhat']:.3f}",
                f"{min(q['ess_bulk'], q['ess_tail']):.0f}",
            ]
        )
        status.append(q["verdict"])
    return Table(
        ["quantity", "verdict", "smallest Holm p", "R-hat", "min ESS"],
        rows,
        status=status,
        caption=f"{name}: {result.verdict} ({len(rows)} quantities)",
        # Long tables fold away: what failed is in the findings table above them.
        collapsed=len(rows) > 12,
    )


def _kernel_check_table(result) -> Table:
    """Rows of Geweke's test or the invariance check, most significant first."""
    t = result.table
    order = sorted(range(t.sizes["test"]), key=lambda i: float(t.p.values[i]))
    rows, status = [], []
    for i in order:
        rows.append(
            [
                str(t.part.values[i]),
                str(t.function.values[i]),
                f"{float(t.expected.values[i]):.4g}",
                f"{float(t.observed.values[i]):.4g}",
                f"{float(t.t.values[i]):.2f}",
                f"{float(t.p_adjusted.values[i]):.3g}",
            ]
        )
        if bool(t.rejected.values[i]):
            status.append("fail")
        else:
            status.append("pass" if bool(t.gates_passed.values[i]) else "inconclusive")
    return Table(
        ["part", "test function", "expected", "observed", "t", "Holm p"],
        rows,
        status=status,
        caption=f"{t.attrs['check']}: {result.verdict} ({len(rows)} test functions)",
        collapsed=result.verdict == "pass" and len(rows) > 12,
    )


#: Failing quantities drawn per data set (the findings table lists them all).
_FIGURE_QUANTITIES = 8


_FINDING_COLUMNS = (
    "data set",
    "quantity",
    "statistic",
    "estimate",
    "reference",
    "MCSE",
    "z",
    "Holm p",
    "note",
)
_NUMBER_CELLS = ("estimate", "reference", "mcse", "z", "p_adjusted")


def _findings_table(check) -> Table:
    """Every finding of a check: one row each, failing first; empty columns left out."""
    rows = []
    for f in check.findings:
        cells = finding_cells(f)
        numbers = [cells[key] for key in _NUMBER_CELLS]
        rows.append([f.problem, f.quantity, f.statistic, *numbers, cells["note"]])
    kept = [j for j in range(len(_FINDING_COLUMNS)) if any(row[j] for row in rows)]
    return Table(
        [_FINDING_COLUMNS[j] for j in kept],
        [[row[j] for j in kept] for row in rows],
        status=[f.verdict for f in check.findings],
        caption=f"{check.name}: {len(rows)} finding(s)",
    )


def _failing_figures(check) -> list[ReportFigure]:
    """Per data set, the failing quantities' posterior over the exact density (or NUTS)."""
    figures = []
    for problem, kept in check.draws.items():
        engines, reference = kept["engines"], kept["reference"]
        first = next(iter(engines.values()))
        by_label = {
            q.label: q
            for qs in quantities(first["posterior"].to_dataset(), reference).values()
            for q in qs
        }
        chosen = [
            by_label[f.quantity]
            for f in check.findings
            if f.problem == problem and f.verdict == "fail" and f.quantity in by_label
        ][:_FIGURE_QUANTITIES]
        if not chosen:
            continue
        against = "the exact density (dashed)" if reference is not None else "PyMC's NUTS"
        figures.append(
            ReportFigure(
                posterior_figure(engines, chosen, reference, title=f"{problem}: failing"),
                name=f"{check.name}-{problem}",
                caption=f"{problem}: the sampler's draws of the failing quantities "
                f"(the first {len(chosen)}, most significant first) against {against}.",
            )
        )
    return figures


def validation_report(result, *, title: str | None = None, table=CHECKS) -> Report:
    """A report of a :class:`zoo.validation.ValidationResult`.

    One section per check, headed by its entry's title in ``table`` (the battery's,
    :data:`zoo.validation.CHECKS`), with its description, and laid out by what the
    check found: agreement tables per data set, SBC's ranks, a kernel check's table.
    """
    entries = {entry.name: entry for entry in table}
    report = Report(
        title or f"zoo validate {result.model}",
        text=f"Sampler: {result.sampler}. Family-wise false-alarm rate {result.alpha:g}, "
        "split over the checks.",
    )
    summary = Table(
        ["check", "verdict", "alpha", "seconds", "what was found"],
        [
            [c.name, c.verdict, f"{c.alpha:.2g}", f"{c.seconds:.1f}", c.brief]
            for c in result.checks
        ],
        status=[c.verdict for c in result.checks],
    )
    report.add_section("Summary", table=summary, status=result.verdict)
    for check in result.checks:
        details = check.details
        found = [_findings_table(check)] if check.findings else []
        head = check.head or check.summary
        entry = entries.get(check.name)
        heading = entry.title if entry is not None else check.name
        text = [head, entry.description] if entry is not None and entry.description else head
        if isinstance(details, dict):
            tables = [
                _agreement_table(name, value)
                for name, value in details.items()
                if hasattr(value, "quantities")
            ]
            report.add_section(
                heading,
                text=text,
                table=found + tables,
                figures=_failing_figures(check),
                status=check.verdict,
            )
        elif getattr(details, "ranks", None) is not None:
            if details.ranks.size == 0:
                report.add_section(heading, text=text, table=found, status=check.verdict)
                continue
            band = details.band()
            section = report.add_sbc_section(
                heading,
                details.ranks,
                max_rank=None,
                grid=band.grid,
                lower=band.lower,
                upper=band.upper,
                quantities=details.quantities,
                text=f"{head}. The grey band is simultaneous at "
                f"{band.level:.3g} for each quantity (Bonferroni over the quantities: the "
                "band of Holm's strictest step).",
            )
            section.tables.extend(found)
            section.status = check.verdict
        elif hasattr(details, "table"):
            report.add_section(
                heading,
                text=text,
                table=[*found, _kernel_check_table(details)],
                status=check.verdict,
            )
        else:
            report.add_section(heading, text=text, table=found, status=check.verdict)
    return report

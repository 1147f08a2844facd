"""The report of ``zoo validate --report DIR``: the battery, its agreement tables, SBC.

Built with :class:`zoo.diagnostics.report.Report`: a summary of the checks, one table
per exact-agreement problem (failing quantities highlighted), and the simulation-based
calibration as ECDF differences of the normalised ranks in their simultaneous band.
"""

from __future__ import annotations

from zoo.diagnostics.report import Report, Table

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
        # Long tables fold away unless something in them failed.
        collapsed=result.verdict == "agree" and len(rows) > 12,
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


#: Checks whose details are one agreement table per data set, and their section titles.
_AGREEMENT_SECTIONS = {
    "exact": "Agreement with exact posteriors",
    "nuts": "Agreement with PyMC's NUTS (two-sample)",
}
_KERNEL_SECTIONS = {
    "geweke": (
        "Geweke's joint-distribution test",
        "Means of each test function under independent joint draws (expected) and "
        "under the chain that alternates the kernel with fresh data (observed).",
    ),
    "invariance": (
        "Invariance of each conditional",
        "From exact posterior draws, one application of draw (parameters) and of step "
        "(latents): the mean of each test function before (expected) and after "
        "(observed); a row that moves names the conditional at fault.",
    ),
}


def validation_report(result, *, title: str | None = None) -> Report:
    """A report of a :class:`zoo.validation.ValidationResult`."""
    report = Report(
        title or f"zoo validate {result.model}",
        text=f"Sampler: {result.sampler}. Family-wise false-alarm rate {result.alpha:g}, "
        "split over the checks.",
    )
    summary = Table(
        ["check", "verdict", "alpha", "seconds", "what was found"],
        [
            [c.name, c.verdict, f"{c.alpha:.2g}", f"{c.seconds:.1f}", c.summary]
            for c in result.checks
        ],
        status=[c.verdict for c in result.checks],
    )
    report.add_section("Summary", table=summary, status=result.verdict)
    for check in result.checks:
        details = check.details
        if check.name in _AGREEMENT_SECTIONS and isinstance(details, dict):
            tables = [
                _agreement_table(name, value)
                for name, value in details.items()
                if hasattr(value, "quantities")
            ]
            notes = [
                f"{name}: {value}" for name, value in details.items() if isinstance(value, str)
            ]
            report.add_section(
                _AGREEMENT_SECTIONS[check.name],
                text=[check.summary, *notes],
                table=tables,
                status=check.verdict,
            )
        elif check.name == "sbc" and getattr(details, "ranks", None) is not None:
            if details.ranks.size == 0:
                report.add_section("Simulation-based calibration", text=check.summary)
                continue
            band = details.band()
            section = report.add_sbc_section(
                "Simulation-based calibration",
                details.ranks,
                max_rank=None,
                grid=band.grid,
                lower=band.lower,
                upper=band.upper,
                quantities=details.quantities,
                text=f"{check.summary}. The grey band is simultaneous at "
                f"{band.level:.3g} for each quantity (Bonferroni over the quantities: the "
                "band of Holm's strictest step).",
            )
            section.status = check.verdict
        elif check.name in _KERNEL_SECTIONS and hasattr(details, "table"):
            heading, explanation = _KERNEL_SECTIONS[check.name]
            report.add_section(
                heading,
                text=[check.summary, explanation],
                table=_kernel_check_table(details),
                status=check.verdict,
            )
        else:
            report.add_section(check.name, text=check.summary, status=check.verdict)
    return report

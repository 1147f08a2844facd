"""What ``zoo validate`` found: a ValidationResult holding one CheckOutcome per check."""

from __future__ import annotations

import html
import math
from dataclasses import dataclass, field

import pandas as pd
import xarray as xr

from zoo.diagnostics.findings import COULD_NOT_JUDGE, Finding, findings_html

__all__ = [
    "COULD_NOT_JUDGE",
    "JUDGES",
    "VERDICTS",
    "CheckOutcome",
    "ValidationResult",
    "agreement_verdict",
    "battery_verdict",
    "by_data_set",
    "failing_draws",
    "finding_cells",
    "summarise",
    "worst_verdict",
]

#: A check's (or a data set's) verdict, in the order in which they combine within a
#: check: a data set that could not be judged does not spoil those that passed, and the
#: check's verdict is the last of its data sets' in this order
#: (:func:`worst_verdict`). The battery's verdict is :func:`battery_verdict`'s.
VERDICTS = (COULD_NOT_JUDGE, "pass", "inconclusive", "fail")

#: The checks whose pass alone can make the battery's PASS: they test the sampler
#: against the target itself (its exact posterior; calibration over the prior), where
#: nuts tests it against another sampler and the kernel checks test a kernel's parts.
JUDGES = ("exact", "sbc")


@dataclass
class CheckOutcome:
    """One check of the battery.

    Attributes
    ----------
    name : str
        ``exact``, ``nuts``, ``sbc``, ``geweke`` or ``invariance``.
    verdict : str
        ``pass``, ``fail``, ``inconclusive`` (the sampler's draws did not pass a gate)
        or :data:`COULD_NOT_JUDGE` (the check cannot serve as evidence, for a reason
        outside the sampler, said with its cure in a finding).
    summary : str
        What was run and, per data set, how many quantities failed, the first of them,
        and "and N more".
    alpha : float
        The false-alarm rate this check was run at.
    findings : list of Finding
        Every failing or unjudged quantity (or failed fit), most significant first, with
        the statistic that decided it, estimate, reference value, MCSE and z, or the gate
        not passed and the draws per chain that would clear it
        (:class:`zoo.diagnostics.findings.Finding`).
    details : object
        The full result(s): AgreementResult per problem, SBCResult, KernelCheckResult.
    seconds : float
        Wall time of the check.
    head : str
        What was run (the start of ``summary``).
    draws : dict
        Per data set with failing quantities, the draws of their variables for the
        report's figures: ``{"engines": {label: DataTree}, "reference": Reference or
        None}``. Not part of ``to_dict()``.
    notes : list of str
        What the check noticed without judging it (a data set without an exact reference,
        a sampler whose draws the same seed does not reproduce); the end of ``summary``.
    """

    name: str
    verdict: str
    summary: str
    alpha: float
    findings: list[Finding] = field(default_factory=list)
    details: object = None
    seconds: float = 0.0
    head: str = ""
    draws: dict = field(default_factory=dict, repr=False, compare=False)
    notes: list[str] = field(default_factory=list)

    @property
    def brief(self) -> str:
        """What was run and how many findings per data set (``summary`` without them)."""
        if not self.head:
            return self.summary
        counts = [
            f"{problem + ': ' if problem else ''}{_count_text(group)}"
            for problem, group in _by_problem(self.findings).items()
        ]
        return "; ".join([self.head, *counts, *self.notes])

    @property
    def failing(self) -> list[str]:
        """The findings as short labels (``problem: quantity (verdict)``)."""
        return [_label(f) for f in self.findings]

    def to_dict(self) -> dict:
        """JSON-ready form."""
        if isinstance(self.details, dict):
            details = {k: _as_dict(v) for k, v in self.details.items()}
        else:
            details = _as_dict(self.details)
        return {
            "check": self.name,
            "verdict": self.verdict,
            "summary": self.summary,
            "failing": self.failing,
            "findings": [f.to_dict() for f in self.findings],
            "failing_per_problem": _counts(self.findings),
            "alpha": self.alpha,
            "seconds": self.seconds,
            "details": details,
        }

    def to_dataframe(self) -> pd.DataFrame:
        """The findings, one row each (empty, with the columns, when none)."""
        return pd.DataFrame([f.to_dict() for f in self.findings], columns=list(Finding._fields))

    def __repr__(self) -> str:
        return (
            f"CheckOutcome(name={self.name!r}, verdict={self.verdict!r}, "
            f"findings={len(self.findings)}, seconds={self.seconds:.1f})"
        )

    def _repr_html_(self) -> str:
        head = (
            f"{html.escape(self.name)}: <b>{self.verdict}</b> (alpha {self.alpha:.2g}, "
            f"{self.seconds:.1f} s): {html.escape(self.summary)}"
        )
        return findings_html(head, self.findings)


def finding_cells(finding: Finding) -> dict[str, str]:
    """A finding as display strings: the one formatting of the terminal and the report.

    Keys ``estimate``, ``reference`` (with what it is), ``mcse``, ``z``, ``p_adjusted``
    (empty for a finding without numbers), ``note`` (a failed fit's message, the gate
    not passed and the draws per chain that would clear it, or why a check could not
    judge) and ``cure`` (what would let a check that could not judge do so).
    """
    cells = dict.fromkeys(("estimate", "reference", "mcse", "z", "p_adjusted", "note", "cure"), "")
    cells["cure"] = finding.cure
    if finding.message:
        cells["note"] = finding.message
    elif finding.verdict == COULD_NOT_JUDGE:
        cells["note"] = finding.gate
    elif finding.verdict == "inconclusive":
        clear = (
            f"; about {finding.draws_per_chain} draws per chain would clear it"
            if finding.draws_per_chain
            else ""
        )
        cells["note"] = finding.gate + clear
    else:
        cells.update(
            estimate=_number(finding.estimate),
            reference=(
                f"{_number(finding.reference)} ({finding.against})"
                if math.isfinite(finding.reference)
                else ""
            ),
            mcse=_number(finding.mcse) if math.isfinite(finding.mcse) else "",
            z=_number(finding.z, ".1f") if math.isfinite(finding.z) else "",
            p_adjusted=_number(finding.p_adjusted, ".2g"),
        )
    return cells


def _number(value, spec: str = ".4g") -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return format(value, spec)


def _label(finding: Finding) -> str:
    where = f"{finding.problem}: " if finding.problem else ""
    return f"{where}{finding.quantity} ({finding.verdict})"


def _by_problem(findings) -> dict[str, list[Finding]]:
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        groups.setdefault(f.problem, []).append(f)
    return groups


def _count_text(group) -> str:
    """``3 failing, 1 not judged`` (or the message of fits that failed alike)."""
    failed = sum(f.verdict == "fail" for f in group)
    cannot = sum(f.verdict == COULD_NOT_JUDGE for f in group)
    unjudged = len(group) - failed - cannot
    parts = [
        f"{failed} failing" if failed else "",
        f"{unjudged} not judged" if unjudged else "",
        "could not judge" if cannot else "",
    ]
    return ", ".join(p for p in parts if p)


def _counts(findings) -> dict[str, int]:
    """Findings per data set (``""`` for a check that is not per data set)."""
    counts: dict[str, int] = {}
    for f in findings:
        counts[f.problem] = counts.get(f.problem, 0) + 1
    return counts


def by_data_set(findings) -> dict[str, list[Finding]]:
    """Findings per data set, in order.

    A failure said alike (the same message) on several data sets is one finding, under
    all their names (``"a, b"``), and comes first.
    """
    alike: dict[tuple[str, str], list[Finding]] = {}
    groups: dict[str, list[Finding]] = {}
    for f in findings:
        if f.message:
            alike.setdefault((f.quantity, f.message), []).append(f)
        else:
            groups.setdefault(f.problem, []).append(f)
    merged: dict[str, list[Finding]] = {}
    for same in alike.values():
        merged.setdefault(", ".join(f.problem for f in same if f.problem), []).append(same[0])
    for where, group in groups.items():
        merged.setdefault(where, []).extend(group)
    return merged


def summarise(head: str, findings, notes=(), *, shown: int = 3) -> str:
    """A check's one-line summary: ``head``, then per data set its count and first few.

    ``problem: 30 not agreeing: theta[group=1]: mean 0.41 vs exact 0.35 (MCSE 0.004,
    z 15.2); ...; and 27 more``. Findings with the same message (a fit that raised the
    same error on every data set) are said once, with the data sets they hit.
    """
    parts = [head]
    for where, group in by_data_set(findings).items():
        prefix = f"{where}: " if where else ""
        parts.extend(f"{prefix}{f.quantity}: {f.message}" for f in group if f.message)
        judged = [f for f in group if not f.message]
        if not judged:
            continue
        lines = [g.describe().removeprefix(prefix) for g in judged[:shown]]
        more = f"; and {len(judged) - shown} more" if len(judged) > shown else ""
        parts.append(f"{prefix}{_count_text(judged)}: " + "; ".join(lines) + more)
    parts.extend(notes)
    return "; ".join(parts)


def _as_dict(value):
    if value is None or isinstance(value, str | int | float):
        return value
    return value.to_dict() if hasattr(value, "to_dict") else str(value)


@dataclass
class ValidationResult:
    """Everything ``zoo validate`` found about one sampler.

    Attributes
    ----------
    model : str
        The model's name.
    sampler : str
        The sampler under test's label.
    alpha : float
        The battery's family-wise false-alarm rate.
    checks : list of CheckOutcome
        In the order run.
    settings : dict
        The budget and seed, JSON-ready.
    warnings : dict of str to int
        Each warning the fits raised (PyMC, PyTensor, numba, the user's code), one line,
        with how many times: said once each rather than once per fit.
    skipped : dict of str to str
        Checks a default run left out, and why (``exact`` without an exact reference,
        its reason in the model's terms).
    """

    model: str
    sampler: str
    alpha: float
    checks: list[CheckOutcome] = field(default_factory=list)
    settings: dict = field(default_factory=dict)
    warnings: dict[str, int] = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``pass``, ``fail`` or ``inconclusive``, by :func:`battery_verdict`."""
        return battery_verdict(self.checks)[0]

    @property
    def reason(self) -> str:
        """Why the verdict is what it is, in one line (:func:`battery_verdict`)."""
        return battery_verdict(self.checks)[1]

    @property
    def unjudged(self) -> list[tuple[str, Finding]]:
        """``(check, finding)`` for every check or data set that could not judge."""
        return [
            (check.name, f)
            for check in self.checks
            for f in check.findings
            if f.verdict == COULD_NOT_JUDGE
        ]

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "model": self.model,
            "sampler": self.sampler,
            "verdict": self.verdict,
            "reason": self.reason,
            "alpha": self.alpha,
            "settings": self.settings,
            "checks": [check.to_dict() for check in self.checks],
            "warnings": [{"warning": w, "count": n} for w, n in self.warnings.items()],
            "skipped": dict(self.skipped),
        }

    def warning_lines(self) -> list[str]:
        """``warning (100 times): NumbaWarning: ...``: each warning of the fits, once."""
        return [
            f"warning ({count} time{'s' if count > 1 else ''}): {line}"
            for line, count in sorted(self.warnings.items(), key=lambda item: -item[1])
        ]

    def __str__(self) -> str:
        lines = [
            f"{self.model}: {self.sampler}: {self.verdict.upper()} (alpha = {self.alpha:g}): "
            f"{self.reason}"
        ]
        for check in self.checks:
            lines.append(f"  {check.name:<10} {check.verdict:<15} {check.summary}")
        for name, reason in self.skipped.items():
            lines.append(f"  {name:<10} {'skipped':<15} {reason}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        checks = ", ".join(f"{c.name}={c.verdict}" for c in self.checks)
        return (
            f"ValidationResult(model={self.model!r}, sampler={self.sampler!r}, "
            f"verdict={self.verdict!r}, {checks or 'no checks'})"
        )

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{html.escape(c.name)}</td><td><b>{c.verdict}</b></td>"
            f"<td style='text-align:right'>{c.alpha:.2g}</td>"
            f"<td style='text-align:right'>{c.seconds:.1f}</td>"
            f"<td style='text-align:left'>{c._repr_html_()}</td></tr>"
            for c in self.checks
        )
        return (
            f"<div><p>{html.escape(self.model)}: {html.escape(self.sampler)}: "
            f"<b>{self.verdict.upper()}</b> (family-wise false-alarm rate {self.alpha:g}): "
            f"{html.escape(self.reason)}</p>"
            "<table><thead><tr><th>check</th><th>verdict</th><th>alpha</th><th>seconds</th>"
            f"<th style='text-align:left'>what was found</th></tr></thead><tbody>{rows}"
            "</tbody></table></div>"
        )

    def to_dataframe(self) -> pd.DataFrame:
        """Every finding of every check, one row each, with the check's name and verdict.

        A check that passed contributes no row; ``[(c.name, c.verdict) for c in
        result.checks]`` lists them all.
        """
        frames = [
            check.to_dataframe().assign(check=check.name, check_verdict=check.verdict)
            for check in self.checks
            if check.findings
        ]
        columns = ["check", "check_verdict", *Finding._fields]
        if not frames:
            return pd.DataFrame(columns=columns)
        return pd.concat(frames, ignore_index=True)[columns]


def worst_verdict(verdicts) -> str:
    """A check's verdict from its data sets': the last of them in :data:`VERDICTS`.

    ``fail`` over ``inconclusive`` over ``pass`` over :data:`COULD_NOT_JUDGE`: a data set
    that could not be judged leaves the others' verdict as it is.
    """
    return max(verdicts, key=VERDICTS.index)


def battery_verdict(checks) -> tuple[str, str]:
    """The battery's verdict from its checks', and why, in one line.

    The policy (``docs/design.md``, "The verdict policy"):

    - **FAIL** when any check fails.
    - **PASS** when every check that could judge passed and at least one of exact and
      SBC (:data:`JUDGES`) judged: they test the sampler against its target itself.
    - **INCONCLUSIVE** otherwise: a check whose gates the sampler's own draws did not
      pass (too few effective draws to judge), or neither exact nor SBC judged, or no
      check ran.

    A check that could not judge (:data:`COULD_NOT_JUDGE`: an unhealthy NUTS reference,
    a prior that cannot be simulated) is no evidence about the sampler either way: it
    neither spoils a PASS nor makes one; its reason and cure are in its findings.

    Parameters
    ----------
    checks : sequence of CheckOutcome

    Returns
    -------
    verdict : {"pass", "fail", "inconclusive"}
    reason : str
    """
    checks = list(checks)
    unknown = [c.verdict for c in checks if c.verdict not in VERDICTS]
    if unknown:
        raise ValueError(f"verdict: must be one of {VERDICTS}, got {unknown[0]!r}")
    if not checks:
        return "inconclusive", "no check ran"

    def named(verdict: str) -> list[str]:
        return [c.name for c in checks if c.verdict == verdict]

    cannot = named(COULD_NOT_JUDGE)
    unjudged = f"; {', '.join(cannot)} could not judge" if cannot else ""
    if failed := named("fail"):
        return "fail", f"{', '.join(failed)} failed"
    if gated := named("inconclusive"):
        return "inconclusive", (
            f"{', '.join(gated)} inconclusive (the sampler's draws did not pass a gate){unjudged}"
        )
    passed = named("pass")
    if not any(name in JUDGES for name in passed):
        judged = f" ({', '.join(passed)} passed)" if passed else ""
        return "inconclusive", f"neither exact nor sbc judged{judged}{unjudged}"
    return "pass", f"every check that could judge passed ({', '.join(passed)}){unjudged}"


def agreement_verdict(name: str, result) -> tuple[str, list[Finding]]:
    """A check's verdict on one data set from an AgreementResult, and its findings.

    ``agree`` passes, ``disagree`` fails, anything else (a gate not passed) is
    inconclusive. The findings are the result's, labelled with the data set ``name``.
    """
    verdict = {"agree": "pass", "disagree": "fail"}.get(result.verdict, "inconclusive")
    if result.verdict == "agree":
        return verdict, []
    found = result.findings(problem=name)
    return verdict, found or [
        Finding("every quantity", verdict, problem=name, message=result.verdict)
    ]


def failing_draws(posterior, findings, problem: str) -> xr.DataTree | None:
    """The variables of ``posterior`` that hold a failing quantity of ``problem``.

    Kept for the report's posterior-over-exact figures; the other variables are
    dropped so that a large model's draws are not all held to the end of the run.
    """
    variables = {f.quantity.split("[")[0] for f in findings if f.problem == problem}
    variables &= {str(name) for name in posterior.data_vars}
    if not variables:
        return None
    return xr.DataTree.from_dict({"posterior": posterior[sorted(variables)]})

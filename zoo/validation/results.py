"""What ``zoo validate`` found: a ValidationResult holding one CheckOutcome per check."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = [
    "VERDICTS",
    "CheckOutcome",
    "ValidationResult",
    "agreement_verdict",
    "worst_verdict",
]

#: A check's verdict, best first; the battery's verdict is its worst check's.
VERDICTS = ("pass", "inconclusive", "fail")


@dataclass
class CheckOutcome:
    """One check of the battery.

    Attributes
    ----------
    name : str
        ``exact``, ``sbc``, ``geweke`` or ``invariance``.
    verdict : str
        ``pass``, ``fail`` or ``inconclusive``.
    summary : str
        One line saying what was run and, on failure, which quantities failed.
    failing : list of str
        The failing quantities (or problems / fits), most significant first.
    alpha : float
        The false-alarm rate this check was run at.
    details : object
        The full result(s): AgreementResult per problem, SBCResult, KernelCheckResult.
    seconds : float
        Wall time of the check.
    """

    name: str
    verdict: str
    summary: str
    failing: list[str]
    alpha: float
    details: object = None
    seconds: float = 0.0

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
            "alpha": self.alpha,
            "seconds": self.seconds,
            "details": details,
        }


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
    """

    model: str
    sampler: str
    alpha: float
    checks: list[CheckOutcome] = field(default_factory=list)
    settings: dict = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        """``pass`` only when every check passes; else ``fail`` or ``inconclusive``."""
        if not self.checks:
            return "inconclusive"
        return worst_verdict(check.verdict for check in self.checks)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {
            "model": self.model,
            "sampler": self.sampler,
            "verdict": self.verdict,
            "alpha": self.alpha,
            "settings": self.settings,
            "checks": [check.to_dict() for check in self.checks],
        }

    def __str__(self) -> str:
        lines = [f"{self.model}: {self.sampler}: {self.verdict.upper()} (alpha = {self.alpha:g})"]
        for check in self.checks:
            lines.append(f"  {check.name:<10} {check.verdict:<12} {check.summary}")
        return "\n".join(lines)


def worst_verdict(verdicts) -> str:
    """The worst of ``verdicts`` (``fail`` over ``inconclusive`` over ``pass``)."""
    return max(verdicts, key=VERDICTS.index)


def agreement_verdict(name: str, result) -> tuple[str, list[str]]:
    """A check's verdict on one data set from an AgreementResult, and what failed.

    ``agree`` passes, ``disagree`` fails, anything else (a gate not passed) is
    inconclusive. The failing quantities are named ``"{name}: {element} ({verdict})"``,
    disagreements first, then by adjusted p-value.
    """
    verdict = {"agree": "pass", "disagree": "fail"}.get(result.verdict, "inconclusive")
    if result.verdict == "agree":
        return verdict, []
    rows = sorted(
        result.failing(), key=lambda q: (q["verdict"] != "disagree", q["min_p_adjusted"])
    )
    failing = [f"{name}: {q['element']} ({q['verdict']})" for q in rows]
    return verdict, failing or [f"{name}: {result.verdict}"]

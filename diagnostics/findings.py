"""What a check found, one quantity at a time, with the numbers behind the verdict.

Every result of the diagnostics (:class:`~zoo.diagnostics.result.AgreementResult`,
:class:`~zoo.diagnostics.sbc.SBCResult`,
:class:`~zoo.diagnostics.kernel_result.KernelCheckResult`) lists its failing and
unjudged quantities as :class:`Finding` records: the statistic that failed, the estimate
against the reference value with its Monte Carlo standard error and z, and, for a
quantity whose draws were too few or too dependent to judge, the gate that stopped it
and the draws per chain that would clear it.
"""

from __future__ import annotations

import html
import math
from collections.abc import Sequence
from typing import NamedTuple

from zoo.diagnostics.gates import rhat_beyond_noise

__all__ = [
    "COULD_NOT_JUDGE",
    "Finding",
    "draws_to_clear",
    "finding_order",
    "findings_html",
    "gate_failures",
]

#: The verdict of a quantity, data set or check that cannot serve as evidence about the
#: sampler for a reason outside it (an unhealthy reference, a prior that cannot be
#: simulated): said with its reason and its cure, and never held against the sampler
#: (``docs/design.md``, "The verdict policy").
COULD_NOT_JUDGE = "could not judge"


def _fmt(value: float) -> str:
    if value is None or not math.isfinite(value):
        return "-"
    return f"{value:.4g}"


class Finding(NamedTuple):
    """One quantity a check failed or could not judge.

    Attributes
    ----------
    quantity : str
        The scalar quantity (``theta[group=3]``), test function or simulation.
    verdict : str
        ``fail``; ``inconclusive`` (the sampler's own draws did not pass a gate); or
        :data:`COULD_NOT_JUDGE` (the check cannot serve as evidence here, for a reason
        outside the sampler: ``gate`` says why and ``cure`` what would let it judge).
    statistic : str
        The test that decided (``mean``, ``sd``, ``P(x<=q0.05)``, ``ks``, ``rank
        uniformity``, a Geweke part); empty for a fit that raised.
    estimate, reference : float
        The sampler's value and the value it is tested against (exact, the other
        sample's, or expected).
    mcse, reference_mcse : float
        Their Monte Carlo standard errors (``reference_mcse`` 0 for an exact value).
    z : float
        The standardised difference the test rests on (NaN for KS).
    p_adjusted : float
        Holm-adjusted p-value within its check.
    against : str
        What ``reference`` is: ``exact``, ``NUTS``, ``uniform``, ``expected``.
    gate : str
        For ``inconclusive``: the gate not passed (``bulk ESS 212 < 400``); for
        :data:`COULD_NOT_JUDGE`: why the check could not judge.
    draws_per_chain : int or None
        For ``inconclusive``: draws per chain that would clear the gate at the ESS per
        draw measured here (None when more draws would not: chains that disagree).
    problem : str
        The data set, when the check runs on several.
    message : str
        A fit that raised, timed out or returned bad output: what it said.
    cure : str
        For :data:`COULD_NOT_JUDGE`: what would let the check judge (a reparameterised
        model, a more informative prior, more simulations).
    """

    quantity: str
    verdict: str
    statistic: str = ""
    estimate: float = math.nan
    reference: float = math.nan
    mcse: float = math.nan
    z: float = math.nan
    p_adjusted: float = math.nan
    against: str = "exact"
    reference_mcse: float = 0.0
    gate: str = ""
    draws_per_chain: int | None = None
    problem: str = ""
    message: str = ""
    cure: str = ""

    def describe(self) -> str:
        """One line: the quantity, the statistic, estimate against reference, MCSE, z."""
        where = f"{self.problem}: " if self.problem else ""
        if self.message:
            return f"{where}{self.quantity}: {self.message}"
        if self.verdict == COULD_NOT_JUDGE:
            cure = f"; cure: {self.cure}" if self.cure else ""
            return f"{where}{self.quantity}: could not judge ({self.gate}){cure}"
        if self.verdict == "inconclusive":
            clear = (
                f"; about {self.draws_per_chain} draws per chain would clear it"
                if self.draws_per_chain
                else ""
            )
            return f"{where}{self.quantity}: not judged ({self.gate}{clear})"
        if self.statistic == "ks":
            return (
                f"{where}{self.quantity}: ks D = {_fmt(self.estimate)} "
                f"(Holm p {self.p_adjusted:.2g})"
            )
        mcse = _fmt(self.mcse)
        if self.reference_mcse:
            mcse += f" and {_fmt(self.reference_mcse)}"
        return (
            f"{where}{self.quantity}: {self.statistic} {_fmt(self.estimate)} vs "
            f"{self.against} {_fmt(self.reference)} (MCSE {mcse}, z {self.z:.1f})"
        )

    def to_dict(self) -> dict:
        """JSON-ready form (non-finite numbers as None)."""
        out = {}
        for key, value in self._asdict().items():
            if isinstance(value, float) and not math.isfinite(value):
                value = None
            out[key] = value
        return out


def finding_order(finding: Finding) -> tuple:
    """Sort key of findings: failed fits, failures (most significant first), unjudged.

    Among failures ties of the Holm p (a p-value at its resolution, or 0) are broken by
    |z|; among the unjudged, those needing the most draws come first (those that draws
    would not clear first of all).
    """
    needed = math.inf if finding.draws_per_chain is None else finding.draws_per_chain
    p = finding.p_adjusted if math.isfinite(finding.p_adjusted) else 1.0
    z = abs(finding.z) if math.isfinite(finding.z) else 0.0
    return (not finding.message, finding.verdict != "fail", p, -z, -needed)


def gate_failures(
    rhat: float,
    ess_bulk: float,
    ess_tail: float,
    rhat_max,
    ess_min,
    *,
    chains: int = 0,
    draws: int = 0,
    level: float = 0.0,
    ess_within: float = math.nan,
) -> str:
    """The gates a quantity did not pass, as text (``R-hat 1.03 > 1.01, bulk ESS 212 < 400``).

    With ``level`` > 0 (and the run's ``chains`` and ``draws``) the R-hat gate is
    :mod:`zoo.diagnostics.gates`'s: an R-hat above ``rhat_max`` but within its noise at
    the quantity's within-chain ESS ``ess_within`` passes, and one beyond it is said to be
    so.
    """
    failed = []
    if math.isnan(rhat) and ess_bulk >= ess_min:
        failed.append("R-hat undefined: every draw equal (constant in double precision?)")
    elif not rhat <= rhat_max:
        if level <= 0:
            failed.append(f"R-hat {rhat:.4f} > {rhat_max:g}")
        elif rhat_beyond_noise(rhat, ess_within, chains=chains, draws=draws, level=level):
            failed.append(
                f"R-hat {rhat:.4f} > {rhat_max:g}, beyond its noise at within-chain ESS"
                f" {ess_within:.0f}"
            )
    if not ess_bulk >= ess_min:
        failed.append(f"bulk ESS {ess_bulk:.0f} < {ess_min:g}")
    if not ess_tail >= ess_min:
        failed.append(f"tail ESS {ess_tail:.0f} < {ess_min:g}")
    return ", ".join(failed)


#: Level at which an R-hat is judged beyond its noise when the gate itself did not say
#: (the plain ``R-hat <= rhat_max`` rule).
_STUCK_LEVEL = 1e-3


def draws_to_clear(
    rhat: float,
    ess_bulk: float,
    ess_tail: float,
    *,
    chains: int,
    draws: int,
    rhat_max: float,
    ess_min: float,
    level: float = 0.0,
) -> int | None:
    """Draws per chain at which the gates would pass, at the mixing measured.

    ESS grows in proportion to the draws of a chain that has reached its stationary
    distribution, so ``ess_min`` needs ``ess_min / (ESS / (chains * draws))`` draws in
    all. For mixing chains ``R-hat^2 - 1`` falls as ``1 / ESS`` (``R-hat^2 ~ 1 + chains
    / ESS``: the relation of Vats & Knudson 2021, "Revisiting the Gelman-Rubin
    diagnostic", Statistical Science 36), so an R-hat above its gate needs the draws
    multiplied by ``(R-hat^2 - 1) / (rhat_max^2 - 1)``. An R-hat beyond its noise at the
    pooled ESS (:func:`zoo.diagnostics.gates.rhat_beyond_noise`, at ``level``, or at
    0.1% for the plain rule) is chains that disagree beyond what their mixing explains
    (a stuck chain, a mode each): more draws may not clear it, and None is returned.

    Returns
    -------
    int or None
        Draws per chain, rounded up to two significant digits.
    """
    ess = min(ess_bulk, ess_tail)
    if not (math.isfinite(ess) and ess > 0 and chains > 0 and draws > 0):
        return None
    factor = ess_min / ess
    if not rhat <= rhat_max:
        if not (math.isfinite(rhat) and rhat_max > 1):
            return None
        # ArviZ's pooled ESS here, not the within-chain one of the gate: the question is
        # whether the chains' mixing, between-chain variance included, explains the
        # excess (then more draws clear it), not whether the chains are stationary.
        if not math.isfinite(ess_bulk) or rhat_beyond_noise(
            rhat, ess_bulk, chains=chains, draws=draws, level=level or _STUCK_LEVEL
        ):
            return None
        factor = max(factor, (rhat**2 - 1.0) / (rhat_max**2 - 1.0))
    needed = max(factor * draws, draws + 1)
    scale = 10 ** max(0, math.floor(math.log10(needed)) - 1)
    return int(math.ceil(needed / scale) * scale)


def findings_html(head: str, findings: Sequence[Finding], *, limit: int = 20) -> str:
    """A small HTML block for notebooks: ``head`` (HTML), then one line per finding."""
    items = "".join(f"<li>{html.escape(f.describe())}</li>" for f in findings[:limit])
    more = f"<li>and {len(findings) - limit} more</li>" if len(findings) > limit else ""
    body = f"<ul>{items}{more}</ul>" if findings else ""
    return f"<div>{head}{body}</div>"

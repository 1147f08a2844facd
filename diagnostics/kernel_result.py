"""The answer of Geweke's test or the invariance check: one row per test function."""

from __future__ import annotations

import html
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr
from scipy import stats

from zoo.diagnostics.agreement import holm
from zoo.diagnostics.findings import (
    COULD_NOT_JUDGE,
    Finding,
    draws_to_clear,
    finding_order,
    findings_html,
)
from zoo.diagnostics.result import TableVerdict

__all__ = ["KernelCheckResult", "welch_test"]


def welch_test(difference, se_first, df_first, se_second=None, df_second=None):
    """Two-sided t test of ``difference`` with Welch-Satterthwaite degrees of freedom.

    ``se_second`` absent: a one-sample (paired) test with ``df_first`` degrees of freedom.
    A difference with zero standard error (a constant test function) has p = 1 when it
    is zero and p = 0 otherwise.

    Returns
    -------
    t, df, p : ndarray
    """
    difference = np.asarray(difference, dtype=float)
    v1 = np.asarray(se_first, dtype=float) ** 2
    if se_second is None:
        variance = v1
        df = np.broadcast_to(np.asarray(df_first, dtype=float), difference.shape).copy()
    else:
        v2 = np.asarray(se_second, dtype=float) ** 2
        variance = v1 + v2
        with np.errstate(divide="ignore", invalid="ignore"):
            df = variance**2 / (v1**2 / df_first + v2**2 / df_second)
    se = np.sqrt(variance)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, difference / se, np.where(difference == 0, 0.0, np.inf))
    df = np.where(np.isfinite(df) & (df > 0), df, 1.0)
    p = 2.0 * stats.t.sf(np.abs(t), df)
    p = np.where(np.isnan(t), 1.0, p)
    return t, df, p


@dataclass(frozen=True)
class KernelCheckResult(TableVerdict):
    """Result of :func:`zoo.diagnostics.geweke.geweke` or ``invariance.invariance``.

    Attributes
    ----------
    table : xarray.Dataset
        Verdict (``pass``, ``fail``, ``inconclusive``, ``could not judge``) and alpha in
        its attrs.
        One row per test function along dim ``test``, with coordinates ``function``
        and ``part`` (the simulator side or the kernel's conditional the row tests) and
        variables ``expected``, ``observed``, ``se``, ``t``, ``df``, ``p``,
        ``p_adjusted`` (Holm over all rows), ``gates_passed`` and ``rejected``.
        ``table.attrs``: ``check``, ``verdict``, ``alpha``, ``settings`` (a string),
        ``gate_message``, ``cure`` (empty unless the check could not judge) and, where
        rows have an ESS gate, ``chains``, ``draws`` (per chain) and ``ess_min``.
    """

    table: xr.Dataset

    @classmethod
    def build(cls, check, rows, *, alpha, settings, gate_message="", sizes=None, cure=""):
        """Holm over ``rows`` (a dict of equal-length arrays) and the verdict.

        A row fails when its Holm-adjusted p-value is at most ``alpha`` and its gates
        passed; the check fails when any row fails, is inconclusive when no row fails
        but some rows' gates did not pass, and passes otherwise. With a ``cure`` (what
        would let the unjudged rows be judged: Geweke's chains at their maximum length)
        the check could not judge instead of being inconclusive.
        """
        p_adjusted = holm(rows["p"])
        gates = np.asarray(rows.get("gates_passed", np.ones(p_adjusted.size, bool)), bool)
        rejected = (p_adjusted <= alpha) & gates
        if rejected.any():
            verdict = "fail"
        elif not gates.all():
            verdict = COULD_NOT_JUDGE if cure else "inconclusive"
        else:
            verdict = "pass"
        data = {
            name: ("test", np.asarray(value))
            for name, value in rows.items()
            if name not in ("function", "part")
        }
        data.update(
            p_adjusted=("test", p_adjusted),
            gates_passed=("test", gates),
            rejected=("test", rejected),
        )
        table = xr.Dataset(
            data,
            coords={
                "function": ("test", np.asarray(rows["function"], dtype=str)),
                "part": ("test", np.asarray(rows["part"], dtype=str)),
            },
            attrs={
                "check": check,
                "verdict": verdict,
                "alpha": float(alpha),
                "settings": settings,
                "gate_message": gate_message,
                "cure": cure,
                **(sizes or {}),
            },
        )
        return cls(table)

    def __bool__(self) -> bool:
        return self.verdict == "pass"

    def failing(self) -> list[str]:
        """Rejected test functions, most significant first (``part: function``)."""
        t = self.table
        order = np.argsort(t.p.values, kind="stable")
        return [
            f"{t.part.values[i]}: {t.function.values[i]}" for i in order if t.rejected.values[i]
        ]

    def failing_named(self, shown: int) -> str:
        """The first ``shown`` of :meth:`failing`, then "and N more" for the rest."""
        failing = self.failing()
        more = f" and {len(failing) - shown} more" if len(failing) > shown else ""
        return ", ".join(failing[:shown]) + more

    def findings(self) -> list[Finding]:
        """Rejected test functions, most significant first, then those not judged.

        A rejected row shows the chain's mean of the test function (``estimate``) against
        its mean under independent joint draws (``reference``, "expected"), the batch
        means standard error and the Welch t. A row whose ESS gate did not pass says the
        draws per chain of the check's chains that would clear it and, when the check
        could not judge, the cure.
        """
        t = self.table
        attrs = t.attrs
        found = []
        order = np.argsort(t.p.values, kind="stable")
        for i in order:
            if t.rejected.values[i]:
                found.append(
                    Finding(
                        f"{t.part.values[i]}: {t.function.values[i]}",
                        "fail",
                        "mean",
                        float(t.observed.values[i]),
                        float(t.expected.values[i]),
                        float(t.se.values[i]),
                        float(t.t.values[i]),
                        float(t.p_adjusted.values[i]),
                        "expected",
                        float(t["expected_se"].values[i]) if "expected_se" in t else 0.0,
                    )
                )
        for i in order:
            if t.gates_passed.values[i] or t.rejected.values[i]:
                continue
            ess = float(t.ess_bulk.values[i]) if "ess_bulk" in t else np.nan
            needed = None
            if "ess_min" in attrs and np.isfinite(ess):
                needed = draws_to_clear(
                    1.0,
                    ess,
                    ess,
                    chains=int(attrs["chains"]),
                    draws=int(attrs["draws"]),
                    rhat_max=np.inf,
                    ess_min=float(attrs["ess_min"]),
                )
            gate = (
                f"bulk ESS {ess:.0f} < {float(attrs['ess_min']):g}"
                if "ess_min" in attrs
                else attrs.get("gate_message", "gates not passed")
            )
            cure = attrs.get("cure", "")
            found.append(
                Finding(
                    f"{t.part.values[i]}: {t.function.values[i]}",
                    COULD_NOT_JUDGE if cure else "inconclusive",
                    "mean",
                    gate=gate,
                    draws_per_chain=needed,
                    cure=cure,
                )
            )
        return sorted(found, key=finding_order)

    def to_dataframe(self) -> pd.DataFrame:
        """One row per test function, as a :class:`pandas.DataFrame`."""
        return self.table.to_dataframe().reset_index(drop=True)

    def __repr__(self) -> str:
        t = self.table
        return (
            f"KernelCheckResult(check={t.attrs['check']!r}, verdict={self.verdict!r}, "
            f"tests={t.sizes['test']}, rejected={int(t.rejected.values.sum())})"
        )

    def _repr_html_(self) -> str:
        t = self.table
        head = (
            f"{html.escape(t.attrs['check'])}: <b>{self.verdict}</b> "
            f"({t.sizes['test']} test functions, {html.escape(t.attrs['settings'])})"
        )
        return findings_html(head, self.findings())

    def to_dict(self) -> dict:
        """JSON-ready form: verdict, settings and the rows."""
        t = self.table
        rows = []
        for i in range(t.sizes["test"]):
            row = {"function": str(t.function.values[i]), "part": str(t.part.values[i])}
            for name, variable in t.data_vars.items():
                value = variable.values[i]
                row[name] = value.item() if hasattr(value, "item") else value
            rows.append(row)
        return {
            "check": t.attrs["check"],
            "verdict": self.verdict,
            "alpha": self.alpha,
            "settings": t.attrs["settings"],
            "rows": rows,
        }

    def __str__(self) -> str:
        t = self.table
        n = t.sizes["test"]
        head = f"{t.attrs['check']}: {self.verdict.upper()}: {n} test functions, "
        head += t.attrs["settings"]
        if self.failing():
            head += f"; failing: {self.failing_named(4)}"
        elif self.verdict == "inconclusive":
            head += f"; {t.attrs['gate_message']}"
        else:
            head += f"; smallest adjusted p {float(t.p_adjusted.min()) if n else 1.0:.3g}"
        lines = [head]
        order = np.argsort(t.p.values, kind="stable")[:10]
        for i in order:
            lines.append(
                f"  {t.part.values[i]:<10} {t.function.values[i]:<40} "
                f"expected {t.expected.values[i]:>11.4g}  observed {t.observed.values[i]:>11.4g}  "
                f"t {t.t.values[i]:>7.2f}  p_adj {t.p_adjusted.values[i]:.3g}"
            )
        return "\n".join(lines)

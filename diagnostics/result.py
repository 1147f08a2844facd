"""The answer of an agreement test: a table of tests and one verdict."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from zoo.diagnostics.findings import (
    Finding,
    draws_to_clear,
    finding_order,
    findings_html,
    gate_failures,
)
from zoo.diagnostics.gates import ESS_MIN, RHAT_MAX

__all__ = ["AgreementResult"]

_SEVERITY = {"agree": 0, "inconclusive": 1, "disagree": 2}
_NUMBERS = (
    "estimate",
    "reference",
    "mcse",
    "reference_mcse",
    "z",
    "p_adjusted",
    "rhat",
    "ess_bulk",
    "ess_tail",
)


class TableVerdict:
    """Verdict and rate of a result held as an ``xarray.Dataset`` with those attrs."""

    table: xr.Dataset

    @property
    def verdict(self) -> str:
        """The overall verdict (``table.attrs["verdict"]``)."""
        return self.table.attrs["verdict"]

    @property
    def alpha(self) -> float:
        """The family-wise error rate the verdict was reached at."""
        return self.table.attrs["alpha"]


def _rank(t: xr.Dataset, i: int) -> tuple:
    """How damning row ``i`` is: its verdict, then a smaller Holm p, then a larger |z|."""
    return (
        _SEVERITY[str(t.verdict.values[i])],
        -float(np.nan_to_num(t.p_adjusted.values[i], nan=1.0)),
        float(np.nan_to_num(abs(t.z.values[i]), nan=0.0)),
    )


@dataclass(frozen=True)
class AgreementResult(TableVerdict):
    """Result of :func:`zoo.diagnostics.agreement` or :func:`zoo.diagnostics.compare`.

    Attributes
    ----------
    table : xarray.Dataset
        One row per test along dim ``check``, with coordinates ``variable``, ``element``
        and ``statistic`` and variables ``reference``, ``reference_mcse``, ``estimate``,
        ``mcse``, ``z``, ``p``, ``p_adjusted`` (Holm), ``verdict``, ``rhat``,
        ``ess_bulk``, ``ess_tail`` and ``gates_passed``. ``table.attrs`` holds the overall
        verdict, alpha, the number of tests in the family, and the gates' settings
        (``rhat_max``, ``ess_min``, and ``rhat_level``, the per-quantity level at which an
        R-hat above ``rhat_max`` is judged beyond its noise) and sizes (``chains``, ``draws``).
    """

    table: xr.Dataset

    def __bool__(self) -> bool:
        return self.verdict == "agree"

    def quantities(self) -> list[dict]:
        """One summary per scalar quantity: its worst verdict, largest |z|, smallest p."""
        t = self.table
        out: dict[str, dict] = {}
        for i in range(t.sizes["check"]):
            key = str(t.element.values[i])
            row = out.setdefault(
                key,
                {
                    "variable": str(t.variable.values[i]),
                    "element": key,
                    "verdict": "agree",
                    "max_abs_z": 0.0,
                    "min_p_adjusted": 1.0,
                    "worst_statistic": "",
                    "rhat": float(t.rhat.values[i]),
                    "ess_bulk": float(t.ess_bulk.values[i]),
                    "ess_tail": float(t.ess_tail.values[i]),
                    "mean": np.nan,
                    "mean_reference": np.nan,
                    "mean_mcse": np.nan,
                },
            )
            verdict = str(t.verdict.values[i])
            if _SEVERITY[verdict] > _SEVERITY[row["verdict"]]:
                row["verdict"] = verdict
            z = float(t.z.values[i])
            if np.isfinite(z):
                row["max_abs_z"] = max(row["max_abs_z"], abs(z))
            p_adj = float(t.p_adjusted.values[i])
            if np.isfinite(p_adj) and p_adj <= row["min_p_adjusted"]:
                row["min_p_adjusted"] = p_adj
                row["worst_statistic"] = str(t.statistic.values[i])
            if str(t.statistic.values[i]) == "mean":
                row["mean"] = float(t.estimate.values[i])
                row["mean_reference"] = float(t.reference.values[i])
                row["mean_mcse"] = float(t.mcse.values[i])
        return list(out.values())

    def failing(self) -> list[dict]:
        """The quantities whose verdict is not ``agree``."""
        return [q for q in self.quantities() if q["verdict"] != "agree"]

    def findings(self, problem: str = "") -> list[Finding]:
        """The quantities not in agreement, each with the test that decided it.

        A disagreeing quantity is described by its most significant disagreeing test
        (statistic, estimate against reference, MCSE, z); an inconclusive one by the
        gates it did not pass and the draws per chain that would clear them. Failures
        come first, most significant first, then the inconclusive quantities.

        Parameters
        ----------
        problem : str
            The data set's name, copied into each finding.
        """
        t = self.table
        attrs = t.attrs
        against = "exact" if attrs.get("kind") == "exact" else "other sample"
        worst: dict[str, int] = {}
        for i in range(t.sizes["check"]):
            key = str(t.element.values[i])
            verdict = str(t.verdict.values[i])
            if verdict == "agree":
                continue
            j = worst.get(key)
            if j is None:
                worst[key] = i
                continue
            if _rank(t, i) > _rank(t, j):
                worst[key] = i
        found = []
        for key, i in worst.items():
            row = {name: float(t[name].values[i]) for name in _NUMBERS}
            if "ess_within" in t:  # tables saved before it was a column lack it
                row["ess_within"] = float(t["ess_within"].values[i])
            if str(t.verdict.values[i]) == "disagree":
                found.append(
                    Finding(
                        key,
                        "fail",
                        str(t.statistic.values[i]),
                        row["estimate"],
                        row["reference"],
                        row["mcse"],
                        row["z"],
                        row["p_adjusted"],
                        against,
                        row["reference_mcse"],
                        problem=problem,
                    )
                )
                continue
            rhat_max, ess_min = attrs.get("rhat_max", RHAT_MAX), attrs.get("ess_min", ESS_MIN)
            level = float(attrs.get("rhat_level", 0.0))
            gate = gate_failures(
                row["rhat"],
                row["ess_bulk"],
                row["ess_tail"],
                rhat_max,
                ess_min,
                chains=int(attrs.get("chains", 0)),
                draws=int(attrs.get("draws", 0)),
                level=level,
                ess_within=row.get("ess_within", np.nan),
            )
            needed = None
            if "chains" in attrs:
                needed = draws_to_clear(
                    row["rhat"],
                    row["ess_bulk"],
                    row["ess_tail"],
                    chains=int(attrs["chains"]),
                    draws=int(attrs["draws"]),
                    rhat_max=rhat_max,
                    ess_min=ess_min,
                    level=level,
                )
            found.append(
                Finding(
                    key,
                    "inconclusive",
                    gate=gate or "gates not passed",
                    draws_per_chain=needed,
                    problem=problem,
                )
            )
        found.sort(key=finding_order)
        return found

    def to_dataframe(self) -> pd.DataFrame:
        """Every test row as a :class:`pandas.DataFrame` (one row per test)."""
        return self.table.to_dataframe().reset_index(drop=True)

    def __repr__(self) -> str:
        failing = len(self.failing())
        return (
            f"AgreementResult(verdict={self.verdict!r}, alpha={self.alpha:g}, "
            f"tests={self.table.attrs.get('tests')}, not_agreeing={failing})"
        )

    def _repr_html_(self) -> str:
        head = (
            f"AgreementResult: <b>{self.verdict}</b> at family-wise rate {self.alpha:g} "
            f"(Holm over {self.table.attrs.get('tests')} tests)"
        )
        return findings_html(head, self.findings())

    def to_dict(self) -> dict:
        """A JSON-ready description: verdict, settings and every test row."""
        t = self.table
        rows = []
        for i in range(t.sizes["check"]):
            row = {
                "variable": str(t.variable.values[i]),
                "element": str(t.element.values[i]),
                "statistic": str(t.statistic.values[i]),
                "verdict": str(t.verdict.values[i]),
                "gates_passed": bool(t.gates_passed.values[i]),
            }
            for key in (
                "reference",
                "reference_mcse",
                "estimate",
                "mcse",
                "z",
                "p",
                "p_adjusted",
                "rhat",
                "ess_bulk",
                "ess_tail",
            ):
                value = float(t[key].values[i])
                row[key] = value if np.isfinite(value) else None
            rows.append(row)
        return {
            "verdict": self.verdict,
            "alpha": self.alpha,
            "correction": t.attrs.get("correction"),
            "kind": t.attrs.get("kind"),
            "tests": t.attrs.get("tests"),
            "rows": rows,
        }

    def __str__(self) -> str:
        lines = [
            f"verdict: {self.verdict} (family-wise rate {self.alpha:g}, Holm over "
            f"{self.table.attrs.get('tests')} tests)"
        ]
        for q in self.failing():
            lines.append(
                f"  {q['element']}: {q['verdict']} (worst {q['worst_statistic'] or '-'}, "
                f"max |z| {q['max_abs_z']:.2f}, R-hat {q['rhat']:.3f}, "
                f"ESS bulk {q['ess_bulk']:.0f}, tail {q['ess_tail']:.0f})"
            )
        return "\n".join(lines)

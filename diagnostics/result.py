"""The answer of an agreement test: a table of tests and one verdict."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import xarray as xr

__all__ = ["AgreementResult"]

_SEVERITY = {"agree": 0, "inconclusive": 1, "disagree": 2}


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
        verdict, alpha and the number of tests in the family.
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

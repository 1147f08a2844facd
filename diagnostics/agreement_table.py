"""The table of :func:`~zoo.diagnostics.agreement` and :func:`~zoo.diagnostics.compare`.

The statistics (:mod:`zoo.diagnostics.agreement`) hand over one :class:`StatisticTest` per
test of a variable (every element at once) with the variable's gate columns;
:class:`AgreementRows` lays them out one row per element and test, and
:func:`agreement_result` turns the judged rows into the ``xarray.Dataset`` an
:class:`~zoo.diagnostics.result.AgreementResult` holds, with the overall verdict.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from zoo.diagnostics.result import AgreementResult

__all__ = ["GATE_COLUMNS", "AgreementRows", "StatisticTest", "agreement_result"]

#: Per element of a variable, the gates' numbers (the worse of two samples in compare).
GATE_COLUMNS = ("rhat", "ess_bulk", "ess_tail", "ess_within")
#: Numeric columns of the table, as floats.
_NUMBERS = ("reference", "reference_mcse", "estimate", "mcse", "z", "p", *GATE_COLUMNS)


@dataclass(frozen=True)
class StatisticTest:
    """One test of one variable, every element at once (arrays, or scalars broadcast).

    Attributes
    ----------
    statistic : str
        ``mean``, ``sd``, ``P(x<=q0.05)``, ``ks``.
    reference, reference_mcse : array
        The exact value (MCSE 0), or the other sample's estimate and MCSE.
    estimate, mcse, z, p : array
        The draws' estimate, its MCSE, the z-score and the two-sided p-value.
    defined : array of bool
        Elements the test applies to (an exact quantile or CDF the reference knows).
    """

    statistic: str
    reference: Any
    reference_mcse: Any
    estimate: Any
    mcse: Any
    z: Any
    p: Any
    defined: Any


class AgreementRows:
    """The tests' rows, one per element of a variable and test, in the order added."""

    def __init__(self):
        self.columns: dict[str, list] = {
            key: [] for key in ("variable", "element", "statistic", *_NUMBERS, "gates")
        }

    def add(
        self,
        name: str,
        labels,
        block: StatisticTest,
        gates: np.ndarray,
        gate_columns: Mapping[str, np.ndarray],
    ) -> None:
        """The rows of ``block`` for variable ``name`` (elements ``labels``).

        ``gates`` says per element whether the gates passed; ``gate_columns`` holds the
        numbers behind them (:data:`GATE_COLUMNS`).
        """
        n = len(labels)
        columns = {
            key: np.broadcast_to(getattr(block, key), n)
            for key in ("reference", "reference_mcse", "estimate", "mcse", "z", "p")
        }
        columns.update({key: gate_columns[key] for key in GATE_COLUMNS})
        columns["gates"] = gates
        for e in range(n):
            if not block.defined[e]:
                continue
            self.columns["variable"].append(name)
            self.columns["element"].append(labels[e])
            self.columns["statistic"].append(block.statistic)
            for key, values in columns.items():
                self.columns[key].append(values[e])

    def arrays(self) -> dict[str, np.ndarray]:
        """Every column as an array (``gates`` boolean and ``p`` float, even when empty)."""
        c = {key: np.asarray(values) for key, values in self.columns.items()}
        n = len(c["variable"])
        c["gates"] = c["gates"].astype(bool) if n else np.zeros(0, dtype=bool)
        c["p"] = c["p"].astype(float) if n else np.zeros(0)
        return c


def agreement_result(
    c: Mapping[str, np.ndarray], adjusted: np.ndarray, verdict: np.ndarray, **attrs
) -> AgreementResult:
    """The result of judged rows: the table along dim ``check`` and the overall verdict.

    Parameters
    ----------
    c : mapping
        :meth:`AgreementRows.arrays`, after judging (z, MCSE and p as the verdicts used them).
    adjusted, verdict : array
        Holm-adjusted p-value and verdict (``agree``, ``disagree``, ``inconclusive``) per
        row.
    **attrs
        The table's attributes besides the verdict and the number of tests (alpha, the
        gates' settings, the sizes).
    """
    n = len(c["variable"])
    gates = c["gates"]
    table = xr.Dataset(
        {key: ("check", c[key].astype(float) if n else np.zeros(0)) for key in _NUMBERS},
        coords={
            key: ("check", c[key].astype(str)) for key in ("variable", "element", "statistic")
        },
    )
    table["p_adjusted"] = ("check", adjusted)
    table["verdict"] = ("check", verdict.astype(str))
    table["gates_passed"] = ("check", gates)
    if n == 0:
        overall = "inconclusive"
    elif (verdict == "disagree").any():
        overall = "disagree"
    elif (verdict == "inconclusive").any():
        overall = "inconclusive"
    else:
        overall = "agree"
    alpha = attrs.pop("alpha")
    table.attrs.update(
        verdict=overall,
        alpha=alpha,
        correction="holm",
        slowest_ess=float(attrs.pop("slowest_ess")),
        kind=attrs.pop("kind"),
        tests=int(gates.sum()),
        **attrs,
    )
    return AgreementResult(table)

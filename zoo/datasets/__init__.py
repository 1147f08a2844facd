"""Data sets shipped with the zoo (no download at run time)."""

from __future__ import annotations

from importlib import resources

import numpy as np

__all__ = ["rat_tumours"]


def rat_tumours() -> dict[str, np.ndarray]:
    """Rat tumour incidence in 71 experiments (Tarone 1982; BDA3 Table 5.1).

    Returns
    -------
    dict
        ``experiment`` (1..71), ``tumours`` (rats with a tumour, ``y_j``) and ``rats``
        (rats in the experiment, ``n_j``); the 71st row is the current experiment.
    """
    text = resources.files(__package__).joinpath("rats.csv").read_text()
    rows = [line for line in text.splitlines() if line and not line.startswith("#")]
    table = np.array([row.split(",") for row in rows[1:]], dtype=np.int64)
    return {"experiment": table[:, 0], "tumours": table[:, 1], "rats": table[:, 2]}

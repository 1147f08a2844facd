"""Progress display for long runs: shown on a terminal, silent otherwise."""

from __future__ import annotations

import sys
import time


class ChainProgress:
    """A progress bar over sweeps (all chains advance together), with ETA.

    Uses ``rich`` when enabled; a no-op otherwise. Redraws at most ten times a second so
    that the display never costs more than the sampler.
    """

    def __init__(self, total: int, chains: int, *, enabled: bool, label: str):
        self.total, self.chains, self.enabled, self.label = total, chains, enabled, label
        self._last = 0.0

    @staticmethod
    def wanted() -> bool:
        """True when standard error is a terminal."""
        return sys.stderr.isatty()

    def __enter__(self):
        if self.enabled:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("eta"),
                TimeRemainingColumn(),
                transient=True,
            )
            self._progress.start()
            self._task = self._progress.add_task(
                f"{self.label}: {self.chains} chains, sweeps", total=self.total
            )
        return self

    def advance(self, done: int) -> None:
        """Report that ``done`` sweeps of every chain are finished."""
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= 0.1 or done == self.total:
            self._last = now
            self._progress.update(self._task, completed=done)

    def __exit__(self, *exc):
        if self.enabled:
            self._progress.stop()
        return False

"""Progress display for long runs: shown on a terminal, silent otherwise."""

from __future__ import annotations

import contextlib
import logging
import sys
import time

from zoo.core.arguments import as_int

__all__ = ["ChainProgress", "TaskProgress", "quiet_logs"]


def _bar(console=None):
    """The one progress display of the zoo: description, bar, n/total, elapsed, ETA.

    Transient, so a finished bar leaves no line behind in the terminal.
    """
    # deferred: rich's live display is only built when a terminal wants one
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        transient=True,
        console=console,
    )


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
            self._progress = _bar()
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


class TaskProgress:
    """A progress bar over a count of tasks (simulations, fits), with ETA.

    Shown with ``rich`` when enabled, a no-op otherwise; redraws at most ten times a
    second. The count and the time estimate are kept either way, so callers can log
    them.

    Parameters
    ----------
    total : int
        Number of tasks.
    description : str
        Shown before the bar (``"SBC: beta-binomial"``).
    enabled : bool, optional
        Show the bar; default: only when standard error is a terminal.
    console : rich.console.Console, optional
        Where to draw (default: standard error).

    Examples
    --------
    >>> with TaskProgress(200, "SBC simulations") as progress:
    ...     for future in as_completed(futures):
    ...         progress.advance()
    """

    def __init__(self, total: int, description: str, enabled: bool | None = None, *, console=None):
        self.total, self.description = as_int("total", total, minimum=0), description
        self.enabled = ChainProgress.wanted() if enabled is None else bool(enabled)
        self.console = console
        self.completed = 0
        self._started = None
        self._last = 0.0

    def __enter__(self):
        self._started = time.perf_counter()
        if self.enabled:
            self._progress = _bar(self.console)
            self._progress.start()
            self._task = self._progress.add_task(self.description, total=self.total)
        return self

    def advance(self, n: int = 1) -> None:
        """Report that ``n`` more tasks are finished."""
        self.completed = min(self.total, self.completed + as_int("n", n, minimum=0))
        if not self.enabled:
            return
        now = time.perf_counter()
        if now - self._last >= 0.1 or self.completed == self.total:
            self._last = now
            self._progress.update(self._task, completed=self.completed)

    @property
    def elapsed(self) -> float:
        """Seconds since the bar started (0 before)."""
        return 0.0 if self._started is None else time.perf_counter() - self._started

    @property
    def remaining(self) -> float:
        """Estimated seconds to go at the average pace so far (NaN before any task)."""
        if self.completed == 0:
            return float("nan")
        return self.elapsed / self.completed * (self.total - self.completed)

    def __exit__(self, *exc):
        if self.enabled:
            self._progress.stop()
        return False


@contextlib.contextmanager
def quiet_logs(enabled: bool = True):
    """Silence PyMC's and PyTensor's informational log lines while active.

    PyMC logs its sampler set-up and timing at INFO level to standard error whatever the
    progress setting; a run that shows no progress (not a terminal, or ``--quiet``)
    keeps standard error for warnings and errors.
    """
    if not enabled:
        yield
        return
    # PyMC sets its logger's level when first imported: import it first, or the level
    # set here would be overwritten mid-run.
    import pymc  # noqa: F401

    loggers = [logging.getLogger(name) for name in ("pymc", "pytensor")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)

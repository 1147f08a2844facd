"""Progress displays: counted tasks with ETA, silent unless asked for."""

import io

import pytest
from rich.console import Console

from zoo.sampling.progress import ChainProgress, TaskProgress


def test_disabled_progress_draws_nothing_but_counts(capsys):
    with TaskProgress(4, "simulations", enabled=False) as progress:
        for _ in range(3):
            progress.advance()
        assert progress.completed == 3
        assert progress.remaining >= 0
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == ""


def test_default_is_off_when_stderr_is_not_a_terminal():
    # Under pytest standard error is captured, not a terminal.
    assert not ChainProgress.wanted()
    assert TaskProgress(3, "x").enabled is False


def test_enabled_progress_shows_description_and_count():
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=100)
    with TaskProgress(5, "SBC simulations", enabled=True, console=console) as progress:
        progress.advance(2)
        progress.advance(3)
        console.print()  # flush a final frame before the transient bar is removed
    assert progress.completed == 5
    assert "SBC simulations" in buffer.getvalue()


def test_counts_are_capped_and_eta_unknown_before_the_first_task():
    with TaskProgress(2, "x", enabled=False) as progress:
        assert progress.remaining != progress.remaining  # NaN
        progress.advance(5)
    assert progress.completed == 2
    assert progress.remaining == 0


@pytest.mark.parametrize(("total", "n"), [(-1, 1), (2.5, 1), (3, -1)])
def test_inputs_are_checked(total, n):
    with pytest.raises(ValueError, match=r"total|n:"):
        with TaskProgress(total, "x", enabled=False) as progress:
            progress.advance(n)

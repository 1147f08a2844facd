"""A run ended by code in the zoo's own process never exits 0 without a word.

A sampler calling the C library's ``exit(0)`` under ``--workers 0`` ended ``zoo validate``
with status 0 and no output. The user's code runs in the zoo's process only when asked
(``--in-process``; by default in a supervised child, tests/cli/test_user_process.py).
Each case runs in a subprocess, since it ends the process.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from zoo.cli.exit_guard import UNFINISHED

ROOT = Path(__file__).resolve().parents[2]


def _validate(tmp_path, how, sampler="sampler"):
    env = {**os.environ, "HOW": how, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "zoo.cli", "validate", "beta-binomial", "--sampler",
         f"tests.support.misbehaving:{sampler}", "--problems", "informative-fixed",
         "--checks", "exact", "--quiet", "--workers", "0", "--in-process"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=600,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("how", "called"),
    [("c-exit", "exit(0)"), ("c-exit-at-import", "exit(0)"), ("posix-exit", "os._exit(0)")],
)
def test_a_sampler_ending_the_process_ends_the_run_with_70_and_one_line(tmp_path, how, called):
    done = _validate(tmp_path, how)
    assert done.returncode == UNFINISHED, (done.returncode, done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert lines[-1] == (
        f"zoo validate: the run did not finish: code run in this process called {called}; "
        f"exit status {UNFINISHED}"
    )


def test_exit_0_after_a_failing_run_keeps_the_runs_status(tmp_path):
    # The run finished and failed; the user's atexit handler's exit(0) must not turn
    # FAIL into success.
    done = _validate(tmp_path, "c-exit-after-the-run", sampler="wrong")
    assert done.returncode == 1, done.stderr[-2000:]
    assert "did not finish" not in done.stderr


#: The guard alone, armed or not, then the C library's exit(0) (the twin: unarmed, the
#: process ends 0, as every ``zoo validate`` did before the guard).
GUARDED = """
import ctypes, os, sys
from zoo.cli import exit_guard

if sys.argv[1] == "armed":
    exit_guard.arm("zoo validate")
if sys.argv[2] == "finished":
    exit_guard.finish(0)
if sys.argv[3] == "fork":
    child = os.fork()
    if child == 0:
        sys.exit(6)  # a forked child's own exit, Python's finalisation and then exit()
    print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]))
    sys.stdout.flush()
ctypes.CDLL(None).exit(0)
"""


def _guarded(*argv):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", GUARDED, *argv],
        capture_output=True, text=True, env=env, check=False, timeout=300,
    )  # fmt: skip


def test_without_the_guard_a_c_exit_ends_the_process_0_in_silence():
    done = _guarded("unarmed", "running", "-")
    assert (done.returncode, done.stderr) == (0, "")


def test_the_guard_lets_a_finished_run_and_a_forked_child_exit_as_they_would():
    assert _guarded("armed", "finished", "-").returncode == 0
    done = _guarded("armed", "running", "fork")
    assert (done.returncode, done.stdout.strip()) == (UNFINISHED, "6")
    assert done.stderr.count("did not finish") == 1  # the zoo's, not the child's

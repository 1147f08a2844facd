"""An interrupt never raised inside numba's conversion of a call's arguments.

Issue 32 saw Ctrl-C end ``zoo validate --workers 0`` by a segmentation fault, 3 times in
30. Reproduced here: a timer sends SIGINT every few milliseconds to a process calling a
numba function that takes a NumPy ``Generator``; a handler that raises wherever it runs
crashes the process, one that defers the raise (zoo.sampling.interrupts) never does.
Each run is a subprocess, since the crash takes the process with it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Calls a numba function with a Generator while a thread sends SIGINT 300 times, every
#: 3.7 ms; counts the KeyboardInterrupts raised and handled. ``DEFER`` chooses the handler.
HAMMERED = """
import os, signal, sys, threading, time
import numba
import numpy as np
from zoo.sampling.interrupts import deferred

@numba.njit
def work(n, rng):
    total = 0.0
    for _ in range(n):
        total += rng.random()
    return total

rng = np.random.default_rng(0)
work(10, rng)
DEFER = sys.argv[1] == "defer"

def handler(number, frame):
    if DEFER and deferred(number, frame):
        return
    raise KeyboardInterrupt

def sender():
    time.sleep(0.5)  # the handler installed and the loop entered
    for _ in range(300):
        time.sleep(0.0037)
        os.kill(os.getpid(), signal.SIGINT)

# The handler first, and the sender started inside the try: on a loaded machine the
# first signal can come before the loop is entered, and must be caught there too.
signal.signal(signal.SIGINT, handler)
sending = threading.Thread(target=sender)
caught = 0
while True:
    try:
        if sending.ident is None:
            sending.start()
        while sending.is_alive():
            work(2000, rng)
        time.sleep(0.2)  # a signal sent again after a deferral lands here
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        break
    except KeyboardInterrupt:
        caught += 1
sending.join()  # no interrupt can reach the interpreter's shutdown now
print(caught)
"""


def _hammer(handler: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", HAMMERED, handler],
        capture_output=True, text=True, env=env, timeout=300, check=False,
    )  # fmt: skip


# Slow: a stress study, not a unit test. On a quiet machine the deferring handler
# survives every run; with the two cores loaded four times over it still crashed (-11) in
# about one run of five (2026-11-26): the deferral narrows the window, it does not close
# it (CHANGELOG, "Known issues").
@pytest.mark.slow
def test_a_deferring_handler_survives_interrupts_during_numba_calls():
    done = _hammer("defer")
    assert done.returncode == 0, done.stderr[-1000:]
    assert int(done.stdout) > 10  # interrupted, and each time caught


@pytest.mark.slow  # the twin: three processes, each crashed within a second or two
def test_a_handler_that_raises_anywhere_crashes_the_process():
    statuses = [_hammer("raise").returncode for _ in range(3)]
    assert -11 in statuses, statuses  # SIGSEGV at least once in three

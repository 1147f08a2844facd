"""A user's module that misbehaves as the environment variable ``HOW`` says.

Imported by the ``zoo validate`` subprocesses of tests/cli/test_user_process.py and
tests/cli/test_exit_guard.py as ``--sampler tests.support.misbehaving:sampler`` (or
``:wrong``): at import, in the sampler or at exit it ends its process, crashes, writes
to standard output, or takes the stopping signals. It says ``imported`` on standard
error once imported, so that a test knows when its handlers are in place.
"""

import atexit
import ctypes
import os
import signal
import sys
import threading
import time

from tests.support.user_samplers import beta_binomial_conjugate, beta_binomial_swapped

HOW = os.environ.get("HOW", "")
libc = ctypes.CDLL(None)

if HOW == "c-exit-at-import":
    libc.exit(0)
if HOW == "crash-at-import":
    ctypes.string_at(0)  # a segmentation fault
if HOW == "c-exit-after-the-run":
    atexit.register(libc.exit, 0)
if HOW == "noisy":
    print("printed at import")
    atexit.register(print, "printed at exit")

    def _chatter():
        while True:
            os.write(1, b"written to fd 1 by a thread\n")
            time.sleep(0.005)

    threading.Thread(target=_chatter, daemon=True).start()
if HOW == "swallows-signals":
    signal.signal(signal.SIGINT, lambda *_: None)
    signal.signal(signal.SIGTERM, lambda *_: None)
if HOW == "exits-0-on-signals":
    signal.signal(signal.SIGINT, lambda *_: os._exit(0))
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
print("imported", file=sys.stderr, flush=True)


def sampler(data, prior, *, draws, chains, seed):
    """Right for fixed (a, b), after misbehaving as ``HOW`` says."""
    if HOW == "c-exit":
        libc.exit(0)
    if HOW == "posix-exit":
        import posix

        posix._exit(0)
    if HOW == "crash":
        ctypes.string_at(0)
    if HOW in ("swallows-signals", "exits-0-on-signals"):
        time.sleep(3)  # long enough for the test's signal to land in the fit
    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)


def wrong(data, prior, *, draws, chains, seed):
    """Wrong: the Beta's parameters swapped (the run fails)."""
    return beta_binomial_swapped(data, prior, draws=draws, chains=chains, seed=seed)

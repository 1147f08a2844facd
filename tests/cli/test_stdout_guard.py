"""``--json``: standard output is one JSON document whatever the user's code writes, and when.

Issue 32: an ``atexit`` print in the user's module landed after the JSON, and a thread
writing to file descriptor 1 before and inside it.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: A user's module that writes to standard output at import, from a thread all along (to
#: the file descriptor, unbuffered), in each fit, and at exit.
NOISY = """
import atexit
import os
import threading
import time

from tests.support.user_samplers import beta_binomial_conjugate

print("noisy imported")


def _chatter():
    while True:
        os.write(1, b"thread at the file descriptor\\n")
        time.sleep(0.01)


threading.Thread(target=_chatter, daemon=True).start()
atexit.register(print, "noisy at exit")
atexit.register(os.write, 1, b"noisy at exit, at the file descriptor\\n")


def sampler(data, prior, *, draws, chains, seed):
    print("noisy fit")
    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)
"""


def test_json_is_the_only_thing_on_stdout_whatever_the_user_writes_and_when(tmp_path):
    (tmp_path / "noisy.py").write_text(NOISY)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "zoo.cli", "validate", "beta-binomial", "--sampler",
         "noisy:sampler", "--problems", "informative-fixed", "--checks", "exact",
         "--json", "--quiet", "--workers", "0"],
        capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["verdict"] == "pass"  # one document, nothing around it
    for said in ("noisy imported", "noisy fit", "thread at the file descriptor", "at exit"):
        assert said in done.stderr

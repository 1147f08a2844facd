"""The user's code runs in a child the zoo supervises: nothing it does ends the zoo silently.

Issue 32, item 5: ``zoo validate`` imported the user's modules and called them in its own
process, where an ``os._exit(0)``, a C ``exit(0)``, a crash or a signal handler of theirs
could end the run with status 0 and no word, and an ``atexit`` print or a thread writing
to file descriptor 1 could break ``--json``. Each case is a real ``zoo validate`` in a
subprocess (the child only exists in the zoo program); each misbehaviour is the user's
module's own (tests/support/misbehaving.py), chosen by ``HOW``.
"""

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.foreground import python_command
from zoo.cli.exit_guard import UNFINISHED

ROOT = Path(__file__).resolve().parents[2]


def _command(tmp_path, how, *options):
    env = {**os.environ, "HOW": how, "PYTHONPATH": str(ROOT)}
    argv = python_command(
        "-m", "zoo.cli", "validate", "beta-binomial", "--sampler",
        "tests.support.misbehaving:sampler",
        "--problems", "informative-fixed", "--checks", "exact", "--quiet", *options,
    )  # fmt: skip
    return argv, env


def _validate(tmp_path, how, *options):
    argv, env = _command(tmp_path, how, *options)
    return subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False, timeout=600
    )


@pytest.mark.parametrize(
    ("how", "workers", "said"),
    [
        ("c-exit", "0", "exited with status 0 (os._exit or the C library's exit called in it)"),
        pytest.param("posix-exit", "0", "exited with status 0", marks=pytest.mark.slow),
        pytest.param("c-exit-at-import", "2", "exited with status 0", marks=pytest.mark.slow),
        ("crash", "0", "was ended by SIGSEGV (a crash in compiled code; --in-process shows"),
        pytest.param("crash-at-import", "2", "was ended by SIGSEGV", marks=pytest.mark.slow),
    ],
)
def test_code_that_ends_its_process_ends_the_run_with_70_and_one_line(
    tmp_path, how, workers, said
):
    # (the twin, --in-process: tests/cli/test_exit_guard.py, the zoo's own exit guard)
    done = _validate(tmp_path, how, "--workers", workers)
    assert done.returncode == UNFINISHED, (done.returncode, done.stderr[-2000:])
    assert done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if line != "imported"]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(
        "zoo validate: the run did not finish: the process running your code "
    ), lines
    assert said in lines[0] and lines[0].endswith(f"; exit status {UNFINISHED}")


# In the default run, tests/cli/test_stdout_guard.py and test_cli's chatty sampler check
# the same through the same supervised child (at --workers 0 and 1): slow here.
@pytest.mark.slow
@pytest.mark.parametrize("workers", ["0", "2"])
def test_json_is_one_document_whatever_the_users_code_writes(tmp_path, workers):
    done = _validate(tmp_path, "noisy", "--workers", workers, "--json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["verdict"] == "pass"  # the whole of stdout, nothing else
    assert "printed at import" in done.stderr and "written to fd 1" in done.stderr


def _interrupted(tmp_path, how, number):
    """``zoo validate`` sent ``number`` once the user's module has been imported."""
    argv, env = _command(tmp_path, how, "--workers", "0")
    process = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=tmp_path
    )
    try:
        seen, deadline = b"", time.monotonic() + 300
        while b"imported\n" not in seen:
            assert time.monotonic() < deadline, seen
            if select.select([process.stderr], [], [], 1)[0]:
                chunk = os.read(process.stderr.fileno(), 4096)
                assert chunk, (process.wait(), seen)
                seen += chunk
        time.sleep(0.5)  # into the sampler's sleep
        process.send_signal(number)
        out, err = process.communicate(timeout=300)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, out.decode(), (seen + err).decode()


@pytest.mark.parametrize(
    ("how", "number", "status"),
    [
        ("swallows-signals", signal.SIGINT, 130),
        pytest.param("exits-0-on-signals", signal.SIGTERM, 143, marks=pytest.mark.slow),
    ],
)
def test_a_users_signal_handler_cannot_turn_an_interrupt_into_success(
    tmp_path, how, number, status
):
    # The user's module replaced the handlers: the run either goes on to its end or its
    # process exits 0; the zoo was told to stop, and says so.
    code, out, err = _interrupted(tmp_path, how, number)
    assert code == status, (code, err[-2000:])
    assert out == ""
    assert [line for line in err.splitlines() if line != "imported"] == [
        "zoo validate: interrupted"
    ], err

"""SIGINT and SIGTERM at any moment of ``zoo check`` and ``zoo validate``: one line, 130 or 143.

What a probe found: with ``--workers 0`` an SBC fit cut short by Ctrl-C was stored as a
failed fit ("38 draws; 200 were asked for") and every resumed run FAILed; SIGTERM ended
the process by the signal, with no word and the lock files left. Each test here starts
the real command, sends the real signal to it (SIGINT to its process group, as a
terminal's Ctrl-C does; SIGTERM to the process, as ``kill`` does) and checks: the exit
status, one line on stderr and no traceback, no lock file left, every stored record a
finished fit, and that a resumed run passes where an uninterrupted one does.

The default run sends a few signals; the sweep over many moments is marked slow.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests.support.foreground import python_command

ROOT = Path(__file__).resolve().parents[2]

#: The shell's exit status for each signal.
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}

#: An SBC run of the zoo's own Gibbs kernel: fits long enough to be cut in the middle.
VALIDATE = [
    "validate", "beta-binomial", "--checks", "sbc", "--simulations", "20",
    "--sbc-draws", "1500", "--quiet", "--json",
]  # fmt: skip

#: The same run of the user's code (a sampler of theirs, here the zoo's Gibbs kernel behind
#: the sampler protocol): it runs in a child process that the zoo supervises
#: (zoo.cli.user_process), which must stop, store and say as the zoo's own run does.
USERS = [*VALIDATE, "--sampler", "tests.support.user_samplers:zoo_gibbs"]

#: Two models, so that an interrupt can land between them as well as inside one.
CHECK = ["check", "beta-binomial", "gaussian-nb", "--draws", "2000", "--quiet"]


def _start(command, folder: Path) -> subprocess.Popen:
    return _python(["-m", "zoo.cli", *command], folder)


def _python(arguments, folder: Path) -> subprocess.Popen:
    """Python with ``arguments``, as a terminal's foreground job (SIGINT at its default:
    :mod:`tests.support.foreground`), in a process group of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen(
        python_command(*arguments),
        cwd=folder,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )


def _send(process: subprocess.Popen, number: int) -> None:
    try:
        if number == signal.SIGINT:
            os.killpg(process.pid, number)  # Ctrl-C reaches the whole foreground group
        else:
            process.send_signal(number)
    except ProcessLookupError:  # it had finished
        pass


def _records(store: Path) -> list[dict]:
    if not store.exists():
        return []
    return [json.loads(line) for line in store.read_text().splitlines()[1:]]


def _stop_validate(
    folder: Path, workers: str, number: int, delay: float, after: int, validate=VALIDATE
):
    """Run ``zoo validate`` until ``after`` records are stored, wait ``delay`` s, signal.

    Not before the store exists: in the second or two Python takes to import NumPy before
    ``zoo.cli.main`` runs, a signal meets Python's own handlers (a traceback for SIGINT).
    """
    store = folder / "sbc.jsonl"
    command = [*validate, "--workers", workers, "--store", str(store), "--report", "rep"]
    process = _start(command, folder)
    deadline = time.monotonic() + 600
    # The store exists once the command has started (its imports done): from then on.
    while (not store.exists() or len(_records(store)) < after) and process.poll() is None:
        assert time.monotonic() < deadline, "no record in 600 s"
        time.sleep(0.05)
    time.sleep(delay)
    _send(process, number)
    out, err = process.communicate(timeout=300)
    return process.returncode, out, err


def _assert_stopped(status, out, err, number, folder, *, json_out=False):
    if status in (0, 1):  # the run ended before the signal: nothing to check here
        return False
    assert status == STATUS[number], (status, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert "interrupted" in err
    if json_out:  # no JSON of an unfinished run (zoo check prints the tables it judged)
        assert out == ""
    assert not list(folder.glob("*.lock")), "lock files left"
    assert not list(folder.glob(".zoo-partial-*")), "staging folders left"
    assert not (folder / "rep").exists(), "a report of an unfinished run"
    return True


def _assert_resumes_and_passes(folder: Path, workers: str, validate=VALIDATE) -> None:
    store = folder / "sbc.jsonl"
    records = _records(store)
    # Every stored record is a finished fit: an interrupted one is not stored at all.
    assert all(r["status"] == "ok" for r in records), [r for r in records if r["status"] != "ok"]
    assert len({r["key"] for r in records}) == len(records)
    process = _start([*validate, "--workers", workers, "--store", str(store)], folder)
    out, err = process.communicate(timeout=600)
    assert process.returncode == 0, err
    assert json.loads(out)["verdict"] == "pass"
    assert len(_records(store)) == 20


def _validate_stopped_and_resumed(folder, workers, moments, validate=VALIDATE):
    stopped = []
    for number, delay, after in moments:
        status, out, err = _stop_validate(folder, workers, number, delay, after, validate)
        stopped.append(_assert_stopped(status, out, err, number, folder, json_out=True))
    # A run that ended before its signal checks nothing: one of them at least must stop.
    assert any(stopped), "no signal stopped a run: every run ended first (signal ignored?)"
    _assert_resumes_and_passes(folder, workers, validate)


def _check_stopped(process, number, folder, *, when: str) -> str:
    out, err = process.communicate(timeout=300)
    if not _assert_stopped(process.returncode, out, err, number, folder):
        pytest.skip(
            f"zoo check ended (status {process.returncode}) before the signal "
            f"({when}): nothing was checked"
        )
    return err


def test_a_command_here_starts_with_sigint_at_its_default_even_if_ignored_here(tmp_path):
    # The case that made every SIGINT test pass vacuously: pytest run with SIGINT ignored.
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        process = _python(
            ["-c", "import signal; print(signal.getsignal(signal.SIGINT).__name__)"], tmp_path
        )
    finally:
        signal.signal(signal.SIGINT, previous)
    out, err = process.communicate(timeout=60)
    assert out.strip() == "default_int_handler", (out, err)


def test_validate_in_this_process_stopped_twice_then_resumed_passes(tmp_path):
    # SIGINT while the first fits run; SIGTERM in the resumed run, once it has stored more.
    moments = [(signal.SIGINT, 0.2, 1), (signal.SIGTERM, 0.5, 3)]
    _validate_stopped_and_resumed(tmp_path, "0", moments)


def test_validate_of_the_users_code_stopped_twice_then_resumed_passes(tmp_path):
    # The child running the user's code is in a process group of its own: the zoo
    # passes each signal on, and it stops, stores and says as the zoo's own run does.
    moments = [(signal.SIGINT, 0.2, 1), (signal.SIGTERM, 0.5, 3)]
    _validate_stopped_and_resumed(tmp_path, "0", moments, USERS)


def test_check_stopped_by_sigterm_saves_what_it_drew_in_one_line(tmp_path):
    process = _start([*CHECK, "--jobs", "1", "--out", "run.nc"], tmp_path)
    # The output's lock is claimed once the options are checked, before any model is
    # built: a few seconds later the run is compiling or sampling its first model (a
    # fixed sleep had to cover a start-up of 5 to 20 s on a loaded machine).
    deadline = time.monotonic() + 120
    while not (tmp_path / "run.nc.lock").exists() and process.poll() is None:
        assert time.monotonic() < deadline, "zoo check claimed no output in 120 s"
        time.sleep(0.05)
    time.sleep(3)
    _send(process, signal.SIGTERM)
    err = _check_stopped(process, signal.SIGTERM, tmp_path, when="3 s after it claimed its output")
    assert "zoo check: interrupted" in err


@pytest.mark.slow  # about 40 runs of zoo validate, each 10 to 60 s
@pytest.mark.parametrize("workers", ["0", "2"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("validate", [VALIDATE, USERS], ids=["zoo", "users-code"])
def test_validate_stopped_at_many_moments_resumes_and_passes(workers, number, validate, tmp_path):
    moments = [(number, delay, after) for after, delay in ((0, 0.0), (0, 3.0), (1, 0.0), (2, 0.3))]
    _validate_stopped_and_resumed(tmp_path, workers, moments, validate)


@pytest.mark.slow  # 12 runs of zoo check, each 10 to 60 s
@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("delay", [5.0, 10.0, 20.0])
def test_check_stopped_at_many_moments_ends_in_one_line(jobs, number, delay, tmp_path):
    process = _start([*CHECK, "--jobs", jobs, "--out", "run.nc"], tmp_path)
    time.sleep(delay)
    _send(process, number)
    _check_stopped(process, number, tmp_path, when=f"{delay} s after its start")

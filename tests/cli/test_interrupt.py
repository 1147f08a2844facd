"""Ctrl-C: exit 130, one line, no traceback, no worker noise, no report that looks finished.

``zoo report`` once printed a traceback on Ctrl-C (before 0.2), and ``zoo validate`` the
tracebacks of its Dask workers when they were interrupted while starting. The signal is
real in every test: sent to a process group as a terminal does; for ``zoo report``,
raised in this process by a model's own code (the exact reference of a model registered
here), or sent to a ``zoo report`` subprocess once it says which phase it is in (status
lines appear on a terminal, so its standard error is a pseudo-terminal)."""

import dataclasses
import os
import pty
import select
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path

import pytest

import zoo
from tests.support.foreground import python_command
from tests.support.report_problems import PROBLEM, SPEC
from zoo import registry
from zoo.cli import main
from zoo.cli.stop_signals import StopSignals
from zoo.runs.model_run import sample_model
from zoo.runs.saved import save_runs

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def sigint_in_reference():
    """A Beta-Binomial whose exact reference is interrupted by SIGINT (Ctrl-C)."""

    def posterior(data, prior):
        signal.raise_signal(signal.SIGINT)
        return SPEC.posterior(data, prior)

    spec = dataclasses.replace(SPEC, name="beta-binomial-sigint", posterior=posterior)
    zoo.register(spec)
    # Python's own handler turns SIGINT into KeyboardInterrupt; a test runner's worker
    # may have set another.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield spec
    signal.signal(signal.SIGINT, previous)
    registry._registered.pop(spec.name)


def test_ctrl_c_while_judging_exits_130_in_one_line_and_writes_no_report(
    sigint_in_reference, tmp_path, capsys
):
    run = sample_model(
        sigint_in_reference.name, draws=20, tune=5, chains=2, engines=("gibbs",), problem=PROBLEM
    )
    path = save_runs(tmp_path / "run.nc", [run])
    html = tmp_path / "html"
    assert main(["report", str(path), "--report", str(html), "--quiet"]) == 130
    captured = capsys.readouterr()
    assert captured.err == "zoo report: interrupted; no report written\n"
    # Without the signal the same call writes the report and exits 1 (too few draws for
    # the ESS gates): tests/runs/test_saved_runs.py, test_zoo_report_rebuilds_...
    assert not html.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["run.nc"]


def _read_until(fd: int, text: str, timeout: float) -> str:
    """What ``fd`` (a pseudo-terminal) shows until ``text`` appears in it."""
    seen, deadline = "", time.monotonic() + timeout
    while text not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"no {text!r} within {timeout} s; saw {seen!r}"
        if select.select([fd], [], [], left)[0]:
            try:
                seen += os.read(fd, 4096).decode(errors="replace")
            except OSError:  # the child closed the terminal
                break
    return seen


@pytest.mark.slow  # two fresh interpreters that import ArviZ and matplotlib (~10 s)
@pytest.mark.parametrize(
    "phase", ["reading", "writing the report"], ids=["while-loading", "while-rendering"]
)
def test_ctrl_c_sent_to_zoo_report_exits_130_and_leaves_no_report(phase, tmp_path):
    run = sample_model(
        SPEC.name, draws=500, tune=20, chains=2, engines=("gibbs",), problem=PROBLEM
    )
    path = save_runs(tmp_path / "run.nc", [run])
    html = tmp_path / "html"
    terminal, child_end = pty.openpty()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    process = subprocess.Popen(
        python_command("-m", "zoo.cli", "report", str(path), "--report", str(html)),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=child_end,
        env=env,
    )
    os.close(child_end)
    try:
        _read_until(terminal, phase, timeout=300)
        process.send_signal(signal.SIGINT)
        status = process.wait(timeout=120)
        rest = _read_until(terminal, "interrupted", timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(terminal)
    assert status == 130
    assert "zoo report: interrupted" in rest and "Traceback" not in rest
    assert not html.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["run.nc"]  # no partial folder left


#: A process that starts the zoo's local Dask cluster, as ``zoo validate`` does, and says
#: when it begins; it is interrupted somewhere in the second or two the workers take to
#: start (the window in which they are still in the terminal's process group).
_STARTS_A_CLUSTER = """
import sys
import time
import weakref
from zoo.sampling.parallel import FitPool, Task
print("starting", flush=True)
try:
    with FitPool(workers=2) as pool:
        list(pool.run([Task("one", time.sleep, (60,))]))
except KeyboardInterrupt:
    print("zoo validate: interrupted", file=sys.stderr)
    sys.exit(130)
"""


@pytest.mark.slow  # six fresh interpreters, each starting a two-worker cluster (~30 s)
def test_ctrl_c_while_the_workers_start_gives_one_line():
    # A terminal's Ctrl-C goes to the whole process group, workers included; a probe
    # measured 93 lines of worker tracebacks and Dask exit-hook errors in this window.
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    for delay in (0.3, 0.8, 1.3, 1.8, 2.5, 3.5):
        process = subprocess.Popen(
            python_command("-c", _STARTS_A_CLUSTER),
            start_new_session=True,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        assert process.stdout.readline() == "starting\n"
        time.sleep(delay)
        try:
            os.killpg(process.pid, signal.SIGINT)
        except ProcessLookupError:  # it had finished
            pass
        _, err = process.communicate(timeout=120)
        assert process.returncode == 130, (delay, process.returncode, err)
        assert err == "zoo validate: interrupted\n", (delay, err)


def test_the_signal_handlers_are_set_before_numpy_loads():
    # Ctrl-C or kill while the program starts: the handlers of zoo.cli.main are set
    # before the parser, the registry and NumPy load (most of a second on a loaded
    # machine), which before 0.3 ran on Python's defaults: a traceback on Ctrl-C.
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, zoo.cli; print(' '.join(sorted(sys.modules)))",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout.split()
    heavy = [name for name in loaded if name.split(".")[0] in {"numpy", "scipy", "pymc"}]
    assert heavy == [], heavy
    assert "zoo.cli.program" not in loaded


def _python_code(code: str) -> subprocess.CompletedProcess:
    """``code`` run by a new Python with the repository on its path, SIGINT at its default
    (:mod:`tests.support.foreground`) and its output buffered as a user's is (without
    ``PYTHONUNBUFFERED``, which would hide output lost at an abrupt end); its output, text.
    """
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONUNBUFFERED", None)
    return subprocess.run(python_command("-c", code), capture_output=True, text=True, env=env)


@pytest.mark.parametrize(("number", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_program_loads_gives_one_line(number, status):
    # The signal arrives while zoo.cli.program is imported (the parser, NumPy): a
    # signal raised by the import itself, so the moment is certain on any machine.
    code = (
        "import signal, sys, zoo.cli, importlib.abc\n"
        "class Stop(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'zoo.cli.program':\n"
        f"            signal.raise_signal({int(number)})\n"
        "        return None\n"
        "sys.meta_path.insert(0, Stop())\n"
        "sys.argv = ['zoo', 'list']\n"
        "sys.exit(zoo.cli.main())\n"
    )
    done = _python_code(code)
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stderr == "zoo: interrupted\n", done.stderr


@pytest.mark.parametrize(("number", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_the_process_exits_after_its_run_gives_one_line(number, status):
    # Issue 32's probe: Ctrl-C at 20 s of `zoo validate beta-binomial --checks exact
    # --workers 0` landed after the run had finished, in Python's shutdown: the process
    # ended by the signal (status -2) with no word. The signal is sent here by an atexit
    # handler, so it lands in the shutdown on any machine.
    code = (
        "import atexit, os, signal, sys, time, zoo.cli\n"
        "def late():\n"
        f"    signal.raise_signal({int(number)})\n"
        "    time.sleep(0.5)\n"
        "    print('atexit went on', file=sys.stderr)\n"
        "atexit.register(late)\n"
        "sys.argv = ['zoo', 'list']\n"
        "sys.exit(zoo.cli.main())\n"
    )
    done = _python_code(code)
    assert done.returncode == status, (done.returncode, done.stderr)
    assert done.stderr == "zoo: interrupted while exiting; the run had finished\n", done.stderr
    assert "beta-binomial" in done.stdout  # the run's own output, whole


class _Freed:
    """An object whose weakref callback runs Python code when it is freed."""


def test_an_interrupt_python_drops_in_a_weakref_callback_is_raised_again_quietly(capfd):
    # Issue 32's probe: a SIGTERM during an SBC run landed in importlib's weakref callback;
    # Python printed "Exception ignored in ... KeyboardInterrupt" (8 lines) and dropped
    # it. The signal lands in such a callback here on purpose.
    def callback(_):
        signal.raise_signal(signal.SIGTERM)
        for _ in range(1000):  # the handler runs at one of these instructions
            pass

    stop = StopSignals()
    ended = None
    with pytest.raises(KeyboardInterrupt), stop:
        freed = _Freed()
        keep = weakref.ref(freed, callback)
        del freed  # the callback runs here, and the interrupt is raised inside it
        ended = time.monotonic() + 5
        while time.monotonic() < ended:  # dropped for good, this ran to its end
            pass
    assert keep() is None and ended is not None and time.monotonic() < ended
    assert stop.received == [signal.SIGTERM]
    err = capfd.readouterr().err
    assert "Exception ignored" not in err and "Traceback" not in err, err
    assert sys.unraisablehook is not stop._unraisable


#: A script whose object, freed as Python tears its modules down (after it has set the
#: signals back to their defaults), sends SIGTERM to its own process; END says how the
#: script ends: by zoo.cli.program, or by ``sys.exit(zoo.cli.main())``.
_TORN_DOWN = (
    "import os, signal, sys, zoo.cli\n"
    "class Late:\n"
    "    def __del__(self):\n"
    "        os.kill(os.getpid(), signal.SIGTERM)\n"
    "late = Late()\n"
    "sys.argv = ['zoo', 'list']\n"
    "if os.environ['END'] == 'main':\n"
    "    sys.exit(zoo.cli.main())\n"
    "zoo.cli.program()\n"
)


@pytest.mark.parametrize("end", ["program", "main"])
def test_the_program_ends_before_python_resets_the_signal_handlers(end, monkeypatch):
    # Issue 32: a signal after Python had reset its handlers, in the teardown of modules,
    # ended the process by the signal with no line. zoo.cli.program ends the process
    # once the exit handlers have run: no teardown, nothing for a signal to land in. The
    # twin (`main`) shows the window: killed by SIGTERM after a run that had finished.
    monkeypatch.setenv("END", end)
    done = _python_code(_TORN_DOWN)
    assert "beta-binomial" in done.stdout  # the run's own output, whole, either way
    if end == "program":
        assert (done.returncode, done.stderr) == (0, "")
    else:
        assert done.returncode == -signal.SIGTERM, (done.returncode, done.stderr)


def test_the_handlers_are_armed_before_ctypes_or_the_program_load():
    # The start that remains the signal's: Python's own, and the imports before
    # main() arms the handlers; ctypes (the exit guard's, ~6 ms) is not among them.
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, zoo.cli; print(' '.join(sorted(sys.modules)))"],
        capture_output=True, text=True, check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout.split()  # fmt: skip
    assert "ctypes" not in loaded and "zoo.cli.exit_guard" not in loaded

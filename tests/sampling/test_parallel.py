"""The fit pool in this process (``workers=0``): what a fit does to the process is named.

The Dask side (a timeout, a dead worker) is tested in tests/validation/test_validate.py;
here, a cluster whose workers are gone for good and the local cluster's own settings.
"""

import os
import signal
import subprocess
import threading
from pathlib import Path

import pytest
from distributed import LocalCluster

from tests.support.foreground import python_command
from zoo.sampling import parallel
from zoo.sampling.parallel import (
    _QUIET_CLUSTER,
    WORKERS_PER_CORE,
    FitPool,
    Task,
    _call,
    as_workers,
    default_workers,
)


def _swallows_ctrl_c():
    """What the Gibbs driver and pm.sample do: keep the draws so far, return normally."""
    try:
        signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        return "38 draws; 200 were asked for"
    return "no interrupt"


@pytest.fixture
def python_sigint():
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_fit_cut_short_by_ctrl_c_is_not_an_outcome(python_sigint):
    # Issue 32: the cut-short fit came back as the sampler's (stored as a failed SBC fit,
    # which failed every resumed run), and the run went on to its end.
    seen = []
    with FitPool(workers=0) as pool, pytest.raises(KeyboardInterrupt):
        for outcome in pool.run([Task("first", _swallows_ctrl_c), Task("second", sum, ([],))]):
            seen.append(outcome)
    assert seen == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_sampler_that_ends_the_process_is_an_error_not_the_end_of_the_zoo():
    def ends():
        os._exit(0)  # looked up at the call, as in a user's sampler

    with FitPool(workers=0) as pool:
        (outcome,) = pool.run([Task("ends", ends)])
    assert outcome.status == "error"
    assert outcome.message == "the sampler called os._exit(0), which would end the zoo"
    assert os._exit.__module__ == "posix"  # given back


def _ends_from_a_thread():
    worker = threading.Thread(target=os._exit, args=(0,))
    worker.start()
    worker.join()
    return "draws"


def _ends_and_catches_it():
    try:
        os._exit(0)
    except BaseException:
        return "draws"


@pytest.mark.parametrize("sampler", [_ends_from_a_thread, _ends_and_catches_it])
def test_a_sampler_whose_exit_ended_a_thread_or_was_caught_is_still_an_error(sampler, monkeypatch):
    # Issue 32's probe: os._exit(0) from a thread of the sampler printed the traceback of
    # the exception that stood in for it, ended only that thread, and the fit returned
    # its draws as the sampler's (the run ended with status 0).
    printed = []
    monkeypatch.setattr(threading, "excepthook", printed.append)  # what would be printed
    with FitPool(workers=0) as pool:
        (outcome,) = pool.run([Task("ends", sampler)])
    assert outcome.status == "error" and outcome.value is None
    assert outcome.message.startswith("the sampler called os._exit(0), which would end the zoo")
    assert printed == [] and threading.excepthook == printed.append  # given back
    # The twin: a thread that ends normally is not an exit.
    with FitPool(workers=0) as pool:
        (fine,) = pool.run([Task("fine", _ends_normally_in_a_thread)])
    assert fine.status == "ok" and fine.value == "draws"


def _ends_normally_in_a_thread():
    worker = threading.Thread(target=sum, args=([],))
    worker.start()
    worker.join()
    return "draws"


def test_workers_are_bounded_with_the_rule_said():
    most = WORKERS_PER_CORE * default_workers()
    assert as_workers("--workers", most) == most and as_workers("--workers", None) is None
    with pytest.raises(ValueError, match=rf"^--workers: must be at most {most} \(4 per core"):
        as_workers("--workers", most + 1)
    with pytest.raises(ValueError, match=r"^workers: must be at most"):
        FitPool(workers=10**6)


def test_a_samplers_keyboard_interrupt_on_a_worker_is_the_fits_error():
    # What a Dask worker runs (zoo.sampling.parallel._call): raised on, the interrupt
    # printed some 30 lines of Dask's traceback. In this process it is the run's.
    def interrupts():
        raise KeyboardInterrupt

    outcome = _call(Task("ctrl-c", interrupts))
    assert (outcome.status, outcome.message) == ("error", "the sampler raised KeyboardInterrupt")
    with pytest.raises(KeyboardInterrupt):
        _call(Task("ctrl-c", interrupts), here=True)


def _dask_settings():
    """The worker's settings that the zoo's local cluster quiets (run on a worker)."""
    import dask  # a worker's own import, like a sampler's

    return {name: dask.config.get(name) for name in _QUIET_CLUSTER}


def test_the_local_cluster_runs_without_the_dashboards_background_work():
    # Dask's defaults sample each worker's stack every 10 ms while a fit runs and poll
    # memory and event loops many times a second: CPU a run pays for nothing.
    import dask
    import distributed  # noqa: F401  (its defaults enter dask's config on import)

    before = {name: dask.config.get(name) for name in _QUIET_CLUSTER}
    assert before["distributed.worker.profile.enabled"] is True  # Dask's default
    with FitPool(workers=1) as pool:
        (outcome,) = pool.run([Task("settings", _dask_settings)])
    assert outcome.status == "ok", outcome.message
    assert outcome.value == _QUIET_CLUSTER
    # The caller's own settings are left as they were.
    assert {name: dask.config.get(name) for name in _QUIET_CLUSTER} == before


#: A local cluster's run in a temporary folder ($TMPDIR) where another user planted
#: Dask's fixed scratch name as a link to a folder of the victim's; Ctrl-C (a real
#: SIGINT) once a fit has told where its worker's folder is.
_SCRATCH = """
import os, signal, sys
from zoo.sampling.parallel import FitPool, Task


def where():
    from distributed import get_worker

    return get_worker().local_directory


if __name__ == "__main__":
    try:
        with FitPool(workers=1) as pool:
            [outcome] = pool.run([Task("w", where, ())])
            folder = outcome.value.split(os.sep + "dask-scratch-space")[0]
            print(outcome.value, oct(os.stat(folder).st_mode & 0o777), flush=True)
            signal.raise_signal(signal.SIGINT)
    except KeyboardInterrupt:
        print("interrupted", flush=True)
"""


def test_the_clusters_scratch_folder_is_private_unplantable_and_gone_after_ctrl_c(tmp_path):
    temporary, victim = tmp_path / "tmp", tmp_path / "victim"
    temporary.mkdir()
    victim.mkdir()
    (temporary / "dask-scratch-space").symlink_to(victim)  # planted by someone else
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "TMPDIR": str(temporary), "PYTHONPATH": str(root)}
    # SIGINT at its default in the child, whatever started pytest (a shell that ignores
    # it would make the raised signal a no-op: tests/support/foreground.py)
    done = subprocess.run(
        python_command("-c", _SCRATCH), capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    worker_folder, mode, said = done.stdout.split()
    # A folder of the run's own, named unpredictably, that nobody else may enter
    assert Path(worker_folder).parent.parent.parent == temporary
    assert Path(worker_folder).parent.parent.name.startswith("zoo-dask-")
    assert mode == "0o700" and said == "interrupted"
    assert list(victim.iterdir()) == []  # the planted link was not followed
    # removed with the cluster, Ctrl-C or not; only the planted link is left
    assert sorted(p.name for p in temporary.iterdir()) == ["dask-scratch-space"]


def test_a_cluster_whose_every_worker_is_gone_for_good_stops_the_run_in_words(
    tmp_path, monkeypatch
):
    # A scheduler of the test's own and one worker without a nanny: when the fit ends
    # the worker's process nothing restarts it. The run waited 120 s and raised
    # distributed's TimeoutError (a traceback at the command line); it now waits
    # _RETURN_SECONDS and says what happened.
    monkeypatch.setattr(parallel, "_RETURN_SECONDS", 2.0)
    # No nanny reports how the worker ended: its fit is given up after _GONE_SECONDS.
    monkeypatch.setattr(parallel, "_GONE_SECONDS", 1.0)
    # (the scheduler in this process, on TCP so that the worker's process can reach it)
    scheduler = {"processes": False, "protocol": "tcp://", "dashboard_address": "127.0.0.1:0"}
    with LocalCluster(n_workers=0, **scheduler) as cluster:
        worker = subprocess.Popen(
            [
                *python_command("-m", "distributed.cli.dask_worker"),
                cluster.scheduler_address,
                "--no-nanny",
                "--nthreads",
                "1",
                "--local-directory",
                str(tmp_path),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            cluster.wait_for_workers(1, timeout=120)  # up before the run, not gone later
            with FitPool(scheduler=cluster.scheduler_address) as pool:
                with pytest.raises(parallel.WorkersGone, match="none came back within 2 s"):
                    list(pool.run([Task("ends", os._exit, (7,)), Task("after", sum, ((1, 2),))]))
        finally:
            worker.kill()
            worker.wait()

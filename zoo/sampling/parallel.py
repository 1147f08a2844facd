"""Run many independent fits, in this process or on a Dask cluster, with a per-fit timeout.

Simulation-based calibration and ``zoo validate`` call a sampler hundreds of times. The
fits are independent, so they run as Dask tasks: on a local cluster of worker processes
by default, or on an existing scheduler given by address. A fit that hangs must not hang
the run, and a numba loop that holds the GIL cannot be interrupted from a thread, so the
timeout is enforced from outside: every worker runs one fit at a time (tasks are pinned
to idle workers by this module rather than queued by the scheduler, so the start time of
each fit is known), and a fit that overruns has its worker process restarted by its
nanny. The fit is reported as timed out; the run goes on.

``workers=0`` runs the fits one after the other in this process (no timeout: nothing can
stop code that holds the GIL from inside the process); useful for debugging.

Worker processes are started by ``spawn``, which imports the caller's ``__main__``
module again in each of them: a script that calls ``zoo.validate`` at its top level,
without an ``if __name__ == "__main__":`` guard, would call it again in every worker
(Python's multiprocessing guide, "Safe importing of main module"). Such a call is seen
here from the stack and the script's source, and runs in this process instead, with a
one-line :class:`InProcessWarning` saying what to add. A notebook has no script to
import and keeps its cluster.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import itertools
import logging
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from zoo.core.arguments import as_int, as_positive_scalar
from zoo.sampling.child_stderr import ChildStderr
from zoo.sampling.interrupts import deferred

__all__ = [
    "FitPool",
    "InProcessWarning",
    "Outcome",
    "Task",
    "WorkersGone",
    "as_workers",
    "default_workers",
    "run_tasks",
    "unguarded_script_call",
]


#: The zoo package's folder: frames in it are not the user's.
_ZOO_SOURCE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


#: Seconds to wait for a scheduler given by address (Dask's default is 30).
_CONNECT_SECONDS = 10

#: Seconds given to closing a local cluster whose start was interrupted.
_CLOSE_SECONDS = 5

#: Dask settings of the local cluster the zoo starts: the background work of a cluster
#: that serves one run and no dashboard. Dask's defaults sample each worker's stack
#: every 10 ms while a fit runs (the dashboard's profile), check each event loop every
#: 20 ms, each worker's memory every 100 ms and the host every 500 ms, and steal tasks
#: every second (the zoo pins each fit to an idle worker: nothing to steal). Measured on
#: a 2-worker cluster left idle: 0.077 CPU s per second of wall time with the defaults,
#: 0.021 with these; a run of ten minutes on a loaded machine paid some 45 CPU s for
#: the defaults. A worker over its memory limit is still stopped, within a second.
_QUIET_CLUSTER = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


class InProcessWarning(UserWarning):
    """Fits run in this process because worker processes could not be started safely."""


@dataclass(frozen=True)
class Task:
    """One call ``function(*args)`` identified by ``key`` (a string unique in the run)."""

    key: str
    function: Callable[..., Any]
    args: tuple = ()


@dataclass(frozen=True)
class Outcome:
    """What became of a task: ``status`` is ``ok``, ``error``, ``timeout`` or ``died``.

    ``died``: the worker process running it ended (an exit from compiled code, a crash, the
    out-of-memory killer); ``message`` says how when the cluster is local.
    """

    key: str
    status: str
    value: Any = None
    message: str = ""
    seconds: float = 0.0
    warnings: tuple[str, ...] = ()


#: Loggers whose warnings during a fit are collected with the fit's Python warnings: PyMC
#: reports divergences and R-hat there, PyTensor and numba their compilation troubles.
_LOGGERS = ("pymc", "pytensor", "numba")


class _Collector(logging.Handler):
    """Keeps WARNING records as lines; hands lower ones to the logger's own handlers."""

    def __init__(self, lines: list[str], handlers: list[logging.Handler]):
        super().__init__()
        self.lines, self.handlers = lines, handlers

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.lines.append(_one_line(f"{record.name}: {record.getMessage()}"))
            return
        for handler in self.handlers:
            if record.levelno >= handler.level:
                handler.handle(record)


def _one_line(text: str) -> str:
    """A warning's first line, at most 300 characters: the key it is counted under."""
    first = text.strip().splitlines()[0] if text.strip() else text
    return first[:300]


@contextmanager
def _collected_warnings() -> Iterator[list[str]]:
    """The warnings raised inside, one line each, instead of printed.

    Python warnings that pass the filters in force (so "once per location" and the
    caller's ignores still hold) and WARNING records of :data:`_LOGGERS`. A battery
    runs hundreds of fits; the caller counts the lines and says each once
    (:attr:`FitPool.warnings`), rather than a hundred copies on standard error.
    """
    lines: list[str] = []
    loggers = [logging.getLogger(name) for name in _LOGGERS]
    saved = [(logger.handlers, logger.propagate) for logger in loggers]
    for logger, (handlers, _) in zip(loggers, saved, strict=True):
        logger.handlers, logger.propagate = [_Collector(lines, list(handlers))], False
    try:
        with warnings.catch_warnings(record=True) as caught:
            yield lines
        lines.extend(_one_line(f"{w.category.__name__}: {w.message}") for w in caught)
    finally:
        for logger, (handlers, propagate) in zip(loggers, saved, strict=True):
            logger.handlers, logger.propagate = handlers, propagate


def _call(task: Task, *, here: bool = False) -> Outcome:
    """``task.function(*task.args)`` as an Outcome, with the warnings it raised."""
    with _collected_warnings() as lines:
        outcome = _call_quietly(task, here=here)
    return dataclasses.replace(outcome, warnings=tuple(lines))


def _call_quietly(task: Task, *, here: bool = False) -> Outcome:
    """Run ``task``: whatever it raises is its outcome, but an interrupt ``here``."""
    started = time.perf_counter()
    try:
        value = task.function(*task.args)
    except KeyboardInterrupt:
        if here:
            raise
        # A worker is not interrupted by the terminal (it leaves its process group): the
        # sampler raised it. Raised on, Dask printed 30 lines of its own traceback.
        message = "the sampler raised KeyboardInterrupt"
        return Outcome(task.key, "error", None, message, time.perf_counter() - started)
    except _ProcessExit as error:
        return Outcome(task.key, "error", None, str(error), time.perf_counter() - started)
    except SystemExit as error:
        # Not an error of the run: a sampler that exits must not take its worker (or,
        # with workers=0, the zoo) with it.
        message = f"the sampler called sys.exit({error.code!r})"
        return Outcome(task.key, "error", None, message, time.perf_counter() - started)
    except Exception as error:  # a user's sampler may raise anything; report it, go on
        message = f"{type(error).__name__}: {error}"
        return Outcome(task.key, "error", None, message, time.perf_counter() - started)
    return Outcome(task.key, "ok", value, "", time.perf_counter() - started)


#: The signals that stop a run: Ctrl-C, and ``kill``'s default.
_STOPPING = (signal.SIGINT, signal.SIGTERM)


def _call_here(task: Task) -> Outcome:
    """Run ``task`` in this process (``workers=0``); a signal that stops the run wins.

    The Gibbs driver and ``pm.sample`` both answer Ctrl-C by returning the draws made so
    far: in a fit of a check, that cut-short fit was taken for the sampler's (an SBC
    record "38 draws; 200 were asked for", stored, and failing every resumed run). A
    stopping signal received while the task runs discards its outcome and raises, as
    the signal's own handler would have. A sampler that ends the process with
    ``os._exit`` is stopped at the call and reported as an error: the process must not
    end with the run unfinished and its exit status the sampler's.
    """
    received: list[int] = []
    previous = {}

    def note(number, frame):
        if deferred(number, frame):
            return  # inside numba's conversion of arguments: sent again in a moment
        received.append(number)
        previous[number](number, frame)

    here = os.getpid()
    exits: list = []  # the statuses the sampler's os._exit calls were given, any thread

    def ended_process(status=0):
        if os.getpid() != here:  # a forked child (PyMC's chains) ends as it should
            exit_process(status)
        exits.append(status)
        raise _ProcessExit(status)

    if threading.current_thread() is threading.main_thread():
        for number in _STOPPING:
            handler = signal.getsignal(number)
            if callable(handler):  # Python's handler, or the zoo's: not the default
                previous[number] = handler
                signal.signal(number, note)
    exit_process, os._exit = os._exit, ended_process
    thread_hook = threading.excepthook

    def quiet_exit(arguments) -> None:
        # threading ends a thread quietly on SystemExit itself only, not a subclass.
        if not isinstance(arguments.exc_value, _ProcessExit):
            thread_hook(arguments)

    threading.excepthook = quiet_exit
    try:
        with warnings.catch_warnings():
            # The driver's "interrupted: keeping the N draws" is about a fit whose
            # outcome is discarded here: the run says it was interrupted, once.
            warnings.filterwarnings("ignore", message="interrupted:", category=RuntimeWarning)
            outcome = _call(task, here=True)
    finally:
        os._exit = exit_process
        threading.excepthook = thread_hook
        for number, handler in previous.items():
            signal.signal(number, handler)
    if received:
        # The fit swallowed what the handler raised: raise it again.
        previous[received[0]](received[0], None)
        raise KeyboardInterrupt
    if exits and outcome.status == "ok":
        # Called from a thread of the sampler's (or caught by it), the exit ended its
        # thread only, and the fit went on to return draws: still the sampler's error.
        message = f"{_ProcessExit(exits[0])} (from a thread of the sampler, or caught by it)"
        outcome = dataclasses.replace(outcome, status="error", value=None, message=message)
    return outcome


class _ProcessExit(SystemExit):
    """``os._exit`` called by a sampler running in the zoo's own process.

    A ``SystemExit``, which ``except Exception`` in the sampler does not catch. Raised in
    a thread the sampler started, it ends that thread; its traceback is not printed
    while the fit runs (:func:`_call_here`: it once was, and the fit went on).
    """

    def __init__(self, status):
        super().__init__(f"the sampler called os._exit({status!r}), which would end the zoo")


def default_workers() -> int:
    """One worker per core the process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


#: Local worker processes allowed per core: beyond a few per core, more only cost memory
#: (each imports NumPy, numba and the sampler) and start-up time.
WORKERS_PER_CORE = 4


def as_workers(field: str, value, *, minimum: int = 0) -> int | None:
    """``value`` as a number of local worker processes: None, or ``minimum`` to 4 per core.

    ``zoo validate --workers`` takes 0 (the fits in this process); ``zoo check --jobs``
    takes ``minimum=1``.
    """
    value = as_int(field, value, minimum=minimum, allow_none=True)
    most = WORKERS_PER_CORE * default_workers()
    if value is not None and value > most:
        in_process = "; 0 runs the fits in this process" if minimum == 0 else ""
        raise ValueError(
            f"{field}: must be at most {most} ({WORKERS_PER_CORE} per core this process may "
            f"use{in_process}), got {value}"
        )
    return value


class FitPool:
    """Where fits run: this process, a local Dask cluster, or a remote scheduler.

    A context manager; the cluster (if any) starts on entry and stops on exit, so the
    several batteries of one ``zoo validate`` share it.

    Parameters
    ----------
    workers : int, optional
        Worker processes of the local Dask cluster (default: one per core); ``0`` runs
        the tasks in this process, one after the other, without a timeout.
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``); ``workers`` is then
        ignored. Its workers should run one thread each under a nanny (``dask worker
        --nthreads 1``), so that a timed-out fit can be stopped by a restart.
    timeout : float, optional
        Seconds a single task may run before its worker is restarted and the task is
        reported with status ``timeout``.

    Attributes
    ----------
    warnings : dict of str to int
        Each warning raised during the fits run so far (one line: a Python warning's
        category and message, or a PyMC, PyTensor or numba logger's WARNING record)
        and how many times the fits raised it (each fit shows a warning once per
        location, as Python's default filter does).
    """

    def __init__(
        self,
        *,
        workers: int | None = None,
        scheduler: str | None = None,
        timeout: float | None = None,
    ):
        if timeout is not None:
            timeout = as_positive_scalar("timeout", timeout)
        self.workers = as_workers("workers", workers)
        self.scheduler = scheduler
        self.timeout = timeout
        self._client = None
        self._cluster = None
        self._notices = None
        self._scratch: str | None = None  # the local cluster's folder, while it runs
        self._child_stderr = ChildStderr()
        self.warnings: dict[str, int] = {}

    @property
    def in_process(self) -> bool:
        """True when fits run here, one after the other."""
        return self.scheduler is None and self.workers == 0

    def __enter__(self) -> FitPool:
        if self.scheduler is None and self.workers != 0:
            line = unguarded_script_call()
            if line is not None:
                warnings.warn(
                    "called at the top level of a script without an "
                    '`if __name__ == "__main__":` guard, which worker processes need: '
                    "running the fits in this process, one at a time and without a "
                    "timeout; put the call under that guard to run them in parallel",
                    InProcessWarning,
                    # Said at the user's line, not at the zoo's.
                    skip_file_prefixes=(_ZOO_SOURCE,),
                )
                self.workers = 0
        if self.in_process:
            return self
        if self.scheduler is None:
            self._start_local_cluster()
        else:
            self._connect(self.scheduler)
        return self

    def _start_local_cluster(self) -> None:
        # deferred: distributed takes about 1 s to import; workers=0 runs without it
        import dask
        from distributed import Client, LocalCluster
        from distributed.deploy.spec import SpecCluster

        # The nannies of a local cluster live in this process: their words on how a
        # worker process ended are caught here and attached to the fit it was running.
        self._notices = _DeathNotices()
        logging.getLogger("distributed.nanny").addHandler(self._notices)
        # Ctrl-C is the zoo's to handle, not its workers': once up, a worker leaves the
        # terminal's process group and its log (zoo.sampling.worker_process); while they
        # start, what they write goes through this process, which drops it on Ctrl-C.
        earlier = set(SpecCluster._instances)
        # Dask's scratch space (its workers' folders, their spill files, its lock files)
        # is by default the fixed name dask-scratch-space in the shared temporary
        # folder, used as found: a directory or a symbolic link planted there by another
        # user took the workers' folders and their files, and Dask's purge of stale
        # folders ran in it. The cluster's is a folder made for this run, private (0700)
        # and named unpredictably (mkdtemp), and removed with the cluster.
        self._scratch = tempfile.mkdtemp(prefix="zoo-dask-")
        scratch = {"temporary-directory": self._scratch}
        try:
            # Read when the scheduler, nannies and workers are built; each worker has
            # them from its nanny.
            with (
                self._child_stderr.spawning(),
                dask.config.set({**_QUIET_CLUSTER, **scratch}),
            ):
                self._cluster = LocalCluster(
                    local_directory=self._scratch,
                    n_workers=self.workers or default_workers(),
                    threads_per_worker=1,
                    processes=True,
                    # The scheduler's HTTP server starts whatever the dashboard setting;
                    # at Dask's fixed 8787 a second cluster on the machine (another run,
                    # a parallel test) warned "Port 8787 is already in use": any free port.
                    dashboard_address="127.0.0.1:0",
                    silence_logs=logging.ERROR,
                    preload=["zoo.sampling.worker_process"],
                )
            self._client = Client(self._cluster)
        except BaseException as error:  # Ctrl-C included: no cluster left behind
            if isinstance(error, KeyboardInterrupt):
                self._child_stderr.mute()
            for cluster in set(SpecCluster._instances) - earlier:
                _close_half_built(cluster, SpecCluster)
            self.__exit__(None, None, None)
            raise

    def _connect(self, address: str) -> None:
        # deferred: distributed takes about 1 s to import; workers=0 runs without it
        from distributed import Client

        _require_listening(address)
        try:
            self._client = Client(address, timeout=_CONNECT_SECONDS)
        except Exception as error:  # a timeout, a refused handshake, a non-Dask server
            raise ValueError(
                f"scheduler: {address} is not a Dask scheduler, or it did not answer "
                f"within {_CONNECT_SECONDS} s ({type(error).__name__}: {str(error)[:200]})"
            ) from None

    def __exit__(self, exc_type=None, *exc) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):
            self._child_stderr.mute()
        if self._client is not None:
            self._client.close()
        if self._cluster is not None:
            self._cluster.close()
        if self._notices is not None:
            logging.getLogger("distributed.nanny").removeHandler(self._notices)
        if self._scratch is not None:  # the workers have ended: nothing writes there now
            shutil.rmtree(self._scratch, ignore_errors=True)
        self._client = self._cluster = self._notices = self._scratch = None

    def run(self, tasks: Iterable[Task]) -> Iterator[Outcome]:
        """Run ``tasks``; yield their outcomes as they complete (not in order).

        ``tasks`` is read lazily, one task when a worker is free to start it: an
        iterator that claims each task as it hands it out (a store shared by several
        runs, :mod:`zoo.validation.result_store`) claims no more than it can start. The
        warnings each fit raised are counted in :attr:`warnings`.
        """
        for outcome in self._outcomes(iter(tasks)):
            for line in outcome.warnings:
                self.warnings[line] = self.warnings.get(line, 0) + 1
            yield outcome

    def _outcomes(self, tasks: Iterator[Task]) -> Iterator[Outcome]:
        if self.in_process:
            for task in tasks:
                yield _call_here(task)
            return
        if self._client is None:
            raise RuntimeError("FitPool.run: use the pool as a context manager (with ...)")
        yield from _run_on_dask(self._client, tasks, self.timeout, self._notices)


def _close_half_built(cluster, spec_cluster_class) -> None:
    """Close a local cluster whose start was interrupted, quietly, before Dask's exit hook.

    Left alone, Dask's exit hook closes it as the interpreter ends and asserts that every
    worker had started ("AssertionError: Status.init"), and the event loop reports the
    nannies' failed starts ("Task exception was never retrieved"): some 30 lines after the
    zoo's one-line message. Its workers were interrupted anyway.
    """
    loop = getattr(getattr(cluster, "loop", None), "asyncio_loop", None)
    if loop is not None:
        loop.set_exception_handler(lambda loop, context: None)
    try:
        cluster.close(timeout=_CLOSE_SECONDS)
    except BaseException:  # the half-built cluster's own assertions, a second Ctrl-C
        pass
    spec_cluster_class._instances.discard(cluster)


def _require_listening(address: str) -> None:
    """Raise ValueError at once when nothing listens at a ``tcp://host:port`` address.

    Dask's client would retry for its connect timeout before saying so; a refused
    connection is certain at the first try. Other protocols are left to Dask.
    """
    scheme, _, location = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return
    host, colon, port = location.rpartition(":")
    if not colon or not port.isdigit():
        raise ValueError(f"scheduler: expected tcp://host:port, got {address!r}")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=_CONNECT_SECONDS):
            pass
    except OSError as error:
        reason = error.strerror or type(error).__name__
        raise ValueError(
            f"scheduler: nothing listens at {address} ({reason}); start one with "
            "`dask scheduler` and `dask worker ADDRESS --nthreads 1`, or leave --scheduler "
            "out for a local cluster"
        ) from None


def unguarded_script_call() -> str | None:
    """``file:line`` of a call on the stack from a script's unguarded top level, or None.

    That is a frame running the module-level code of ``__main__`` (a script, or ``python
    -m``) at a line outside every top-level ``if __name__ == "__main__":`` block. Spawned
    worker processes import ``__main__`` again, and would run that line again.
    """
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None:
        return None  # an interactive session or a notebook: nothing to import again
    frame = inspect.currentframe()
    try:
        while frame is not None:
            if frame.f_code.co_name == "<module>" and frame.f_globals is vars(main):
                line = frame.f_lineno
                if not any(first <= line <= last for first, last in _guarded_lines(path)):
                    return f"{os.path.basename(path)}:{line}"
                return None
            frame = frame.f_back
    finally:
        del frame  # a frame held in a local keeps every frame above it alive
    return None


def _guarded_lines(path: str) -> list[tuple[int, int]]:
    """Line spans of the top-level ``if __name__ == "__main__":`` blocks of a script."""
    try:
        with open(path, encoding="utf-8") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        # Unreadable source: assume the guard is there (the old behaviour) rather than
        # silently lose parallelism.
        return [(0, sys.maxsize)]
    spans = []
    for node in tree.body:
        if isinstance(node, ast.If) and _is_main_test(node.test):
            spans.append((node.lineno, node.end_lineno or node.lineno))
    return spans


def _is_main_test(test: ast.expr) -> bool:
    """``__name__ == "__main__"``, either way round."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return False
    if not isinstance(test.ops[0], ast.Eq):
        return False
    sides = [test.left, test.comparators[0]]
    names = [s for s in sides if isinstance(s, ast.Name) and s.id == "__name__"]
    constants = [s for s in sides if isinstance(s, ast.Constant) and s.value == "__main__"]
    return len(names) == 1 and len(constants) == 1


def run_tasks(
    tasks: Iterable[Task],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    timeout: float | None = None,
) -> Iterator[Outcome]:
    """Run ``tasks`` on a :class:`FitPool` of their own; yield outcomes as they complete."""
    with FitPool(workers=workers, scheduler=scheduler, timeout=timeout) as pool:
        yield from pool.run(tasks)


def _run_on_dask(client, tasks, timeout, notices=None):
    # deferred: distributed takes about 1 s to import; workers=0 runs without it
    from distributed import wait

    pending = _Lookahead(tasks)
    running = {}  # future -> (task, worker address, start time)
    pids = {}  # worker address -> process id, for the nannies' death notices
    missing = {}  # worker address -> when it was first seen gone with a fit running
    try:
        while running or pending:
            workers = set(client.scheduler_info()["workers"])
            now = time.monotonic()
            for future, (task, worker, start) in list(running.items()):
                if worker in workers or future.done():
                    missing.pop(worker, None)
                    continue
                # Its worker left the cluster. Said at once when its nanny reported the
                # process's end; a worker that left without such a word (a remote
                # cluster, a lost connection) is given _GONE_SECONDS to come back.
                how = notices.how(pids.get(worker)) if notices is not None else None
                since = missing.setdefault(worker, now)
                if how is None and now - since < _GONE_SECONDS:
                    continue
                del running[future]
                future.cancel()
                yield Outcome(
                    task.key,
                    "died",
                    None,
                    f"its worker process {how} while running it; the worker was restarted"
                    if how
                    else f"its worker left the cluster while running it (gone for "
                    f"{_GONE_SECONDS:g} s, no exit status reported)",
                    now - start,
                )
            busy = {worker for _, worker, _ in running.values()}
            idle = sorted(workers - busy)
            if notices is not None and idle:
                new = [worker for worker in idle if worker not in pids]
                if new:
                    pids.update(client.run(os.getpid, workers=new))
            while idle and pending:
                task = pending.pop()
                worker = idle.pop()
                future = client.submit(
                    _call,
                    task,
                    key=f"zoo-{task.key}-{time.monotonic_ns()}",
                    workers=[worker],
                    allow_other_workers=False,
                    pure=False,
                )
                running[future] = (task, worker, time.monotonic())
            if not running:
                # Every worker is gone (restarting, or a remote cluster shrank): wait.
                try:
                    client.wait_for_workers(1, timeout=_RETURN_SECONDS)
                except TimeoutError as error:  # distributed's, or asyncio's
                    raise WorkersGone(_RETURN_SECONDS) from error
                continue
            # Look again at least every _POLL_SECONDS for workers that died.
            wait_for = _POLL_SECONDS
            if timeout is not None:
                oldest = min(start for _, _, start in running.values())
                wait_for = min(wait_for, max(0.05, oldest + timeout - time.monotonic()))
            try:
                done, _ = wait(list(running), timeout=wait_for, return_when="FIRST_COMPLETED")
            except TimeoutError:  # distributed raises where concurrent.futures returns
                done = set()
            for future in done:
                task, _, _ = running.pop(future)
                try:
                    yield future.result()
                except Exception as error:  # lost worker, unpicklable result...
                    yield Outcome(task.key, "error", None, f"{type(error).__name__}: {error}")
            if timeout is None:
                continue
            now = time.monotonic()
            for future, (task, worker, start) in list(running.items()):
                if now - start < timeout:
                    continue
                del running[future]
                future.cancel()
                _restart(client, worker)
                yield Outcome(
                    task.key,
                    "timeout",
                    None,
                    f"stopped after {timeout:g} s (per-fit timeout); its worker was restarted",
                    now - start,
                )
    finally:
        for future in running:
            future.cancel()


class _Lookahead:
    """An iterator of tasks that says whether another is left before it is taken."""

    def __init__(self, tasks: Iterator[Task]):
        self._tasks = tasks
        self._next: list[Task] = []

    def __bool__(self) -> bool:
        if not self._next:
            self._next.extend(itertools.islice(self._tasks, 1))
        return bool(self._next)

    def pop(self) -> Task:
        return self._next.pop() if self._next else next(self._tasks)


#: Seconds between looks for workers that died while running a fit.
_POLL_SECONDS = 0.5

#: Seconds a worker may be gone, without a word on how its process ended, before its
#: fit is given up as lost.
_GONE_SECONDS = 10.0

#: Seconds to wait for a worker when every worker is gone before giving up the run. A
#: nanny restarts a crashed or timed-out worker in seconds; on a heavily loaded machine
#: (a test run beside other jobs at load 7 on 2 cores) it once took over 120 s.
_RETURN_SECONDS = 600.0


class WorkersGone(RuntimeError):
    """Every worker of the cluster is gone and none came back: the run cannot go on.

    Fits finished before it are kept in a ``--store``; a rerun resumes from them.
    """

    def __init__(self, seconds: float):
        super().__init__(
            f"every Dask worker was lost and none came back within {seconds:g} s "
            "(restarting after a crash or a timeout, or a remote cluster that shrank)"
        )


#: What a signal that ended a worker usually means.
_SIGNAL_CAUSES = {
    signal.SIGSEGV: "a crash in compiled code",
    signal.SIGBUS: "a crash in compiled code",
    signal.SIGABRT: "an abort in compiled code",
    signal.SIGKILL: "often the out-of-memory killer",
}


class _DeathNotices(logging.Handler):
    """How each worker process of a local cluster ended, from its nanny's log records."""

    _ENDED = re.compile(
        r"Worker process (\d+) (?:exited with status (-?\d+)|was killed by signal (\d+))"
    )
    _MEMORY = re.compile(r"\(pid=(\d+)\) exceeded (\d+)% memory budget")

    def __init__(self):
        super().__init__(logging.INFO)
        self._how: dict[int, str] = {}

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if match := self._MEMORY.search(message):
            pid = int(match[1])
            self._how[pid] = f"used more than {match[2]}% of its memory limit and was stopped"
        elif (match := self._ENDED.search(message)) and int(match[1]) not in self._how:
            # A memory stop is said first and is the cause; the signal after it is not.
            pid = int(match[1])
            if match[2] is not None:
                self._how[pid] = f"exited with status {match[2]}"
            else:
                number = int(match[3])
                try:
                    name = signal.Signals(number).name
                except ValueError:
                    name = f"signal {number}"
                cause = _SIGNAL_CAUSES.get(number)
                self._how[pid] = f"was killed by {name}" + (f" ({cause})" if cause else "")

    def how(self, pid: int | None) -> str | None:
        """How the process ``pid`` ended, if its nanny said."""
        return self._how.get(pid) if pid is not None else None


def _restart(client, worker: str) -> None:
    try:
        client.restart_workers([worker], timeout=60, raise_for_error=False)
    except Exception as error:  # a worker without a nanny cannot be restarted
        logging.getLogger(__name__).warning("could not restart worker %s: %s", worker, error)

"""Sample several models at once, one worker process per model (``zoo check --jobs``).

A first ``zoo check`` spends most of its time compiling PyMC programs (PyTensor's Numba
backend: one to two minutes for a Gaussian classifier on a cold cache), and compiling is
single-threaded. The models are independent, so up to ``jobs`` of them are sampled at
once, each in a process of its own, and their runs come back in the order asked for;
judging a run (the exact reference) happens here, while the workers sample the next
models. Every engine draws from its own stream of the seed (:mod:`zoo.core.streams`),
so a model's draws do not depend on where or alongside what it was sampled
(``tests/runs/test_model_pool.py``).

Ctrl-C is the zoo's to handle: a worker leaves the terminal's process group as it
starts, so only this process hears it; this process then interrupts each worker's
group (the worker and its PyMC chain processes, as a terminal would have), collects the
runs they come back with (the draws completed so far, ``interrupted`` set) and stops
the pool. What a worker prints while starting or after an interrupt goes through this
process, which drops it after Ctrl-C (:mod:`zoo.sampling.child_stderr`).
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import sys
import time
import warnings
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from zoo.core.arguments import as_int
from zoo.registry import get
from zoo.runs.model_run import ModelRun, sample_model
from zoo.sampling.child_stderr import ChildStderr
from zoo.sampling.interrupts import deferred, raised_by, send_again
from zoo.sampling.progress import quiet_logs
from zoo.sampling.worker_process import leave_terminal_group

__all__ = ["ModelPool", "WorkerEnded"]

#: Seconds given to interrupted workers to send back what they drew.
_COLLECT_SECONDS = 60.0


class ModelPool:
    """Sample models, up to ``jobs`` at once; hand their runs out in the order given.

    A context manager. Iterate :meth:`runs` for the runs of
    :func:`~zoo.runs.model_run.sample_model`; after a Ctrl-C (wherever it landed),
    :meth:`interrupt` returns those not yet handed out that have draws, each with
    ``interrupted`` set where it was cut short.

    Parameters
    ----------
    names : sequence of str or Model
        Registered names or models.
    jobs : int
        Models sampled at once, each in a worker process; ``1`` samples them in this
        process, one after the other, with progress displays.
    progress : bool, optional
        Progress displays (``jobs=1`` only: two live displays cannot share a terminal).
    status : callable, optional
        Called with a short message at each stage.
    **settings
        ``draws``, ``tune``, ``chains``, ``seed``, ``alpha`` of :func:`sample_model`.

    Examples
    --------
    >>> with ModelPool(["beta-binomial", "gaussian-nb"], jobs=2, draws=200) as pool:
    ...     try:
    ...         runs = list(pool.runs())
    ...     except KeyboardInterrupt:
    ...         runs = pool.interrupt()
    """

    def __init__(
        self,
        names: Sequence[str],
        *,
        jobs: int = 1,
        progress: bool | None = None,
        status=None,
        **settings,
    ):
        self.models = [get(name) for name in names]
        self.names = [model.name for model in self.models]
        self.jobs = min(as_int("jobs", jobs, minimum=1), max(1, len(self.names)))
        if self.jobs > 1 and not all(_travels(model) for model in self.models):
            # A model registered in this process only (its functions closures or defined
            # in __main__) cannot reach a worker process: sample here.
            self.jobs = 1
        self.progress = progress
        self.settings = settings
        self._say = status or (lambda message: None)
        self._status = status
        self._pool = None
        self._futures = []
        self._handed = 0
        self._stderr = ChildStderr()
        self._stopping = None
        self._workers = set()

    def __enter__(self) -> ModelPool:
        if self.jobs > 1:
            self._say(
                f"sampling {len(self.names)} models, {self.jobs} at a time (a worker process each)"
            )
            context = multiprocessing.get_context("spawn")
            # Set on Ctrl-C: a model a worker has not begun is not begun (the pool hands
            # a worker its next task before it has finished the current one).
            self._stopping = context.Event()
            self._pool = ProcessPoolExecutor(
                max_workers=self.jobs,
                mp_context=context,
                initializer=_start_worker,
                initargs=(self._stopping,),
            )
            earlier = set(multiprocessing.active_children())
            try:
                # The workers start as the tasks are submitted: with their standard
                # error through this process, muted on Ctrl-C.
                with self._stderr.spawning():
                    self._futures = [
                        self._pool.submit(_sample_quietly, model, self.settings)
                        for model in self.models
                    ]
            except BaseException:
                self._workers = set(multiprocessing.active_children()) - earlier
                self.interrupt()
                raise
            # This pool's processes, and no other child of this process.
            self._workers = set(multiprocessing.active_children()) - earlier
        return self

    def __exit__(self, exc_type=None, *exc) -> None:
        if self._pool is not None:
            if exc_type is not None:
                # Leaving on an error (a model that raised, a report that failed): the
                # other workers' models are not waited for.
                self.interrupt()
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def runs(self) -> Iterator[ModelRun]:
        """Each model's run, in the order given, as soon as it and those before it are done.

        In this process (``jobs=1``), an interrupted run is handed out and then
        ``KeyboardInterrupt`` raised, as when a worker's run is cut short.
        """
        while self._handed < len(self.names):
            name = self.names[self._handed]
            if self._pool is None:
                run = sample_model(
                    self.models[self._handed],
                    progress=self.progress,
                    status=self._status,
                    **self.settings,
                )
            else:
                started = time.perf_counter()
                try:
                    run = self._futures[self._handed].result()
                except BrokenProcessPool:
                    raise WorkerEnded(name, self.names[self._handed + 1 :]) from None
                self._say(f"{name}: sampled (waited {time.perf_counter() - started:.0f} s)")
            self._handed += 1
            yield run
            if run.interrupted:
                raise KeyboardInterrupt

    def interrupt(self) -> list[ModelRun]:
        """Stop every worker as a terminal's Ctrl-C would; the runs not yet handed out."""
        if self._pool is None:
            return []
        self._stderr.mute()
        self._stopping.set()
        for child in self._workers:
            try:
                os.killpg(child.pid, signal.SIGINT)  # the worker and its PyMC chains
            except (ProcessLookupError, PermissionError):  # not yet its own group leader
                try:
                    os.kill(child.pid, signal.SIGINT)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + _COLLECT_SECONDS
        kept = []
        for future in self._futures[self._handed :]:
            if future.cancel():  # not started: nothing drawn
                continue
            try:
                run = future.result(timeout=max(0.0, deadline - time.monotonic()))
            except (BrokenProcessPool, TimeoutError):
                # A worker interrupted between tasks ends with the pool; one that does
                # not answer in time is stopped below. Neither drew anything to keep.
                continue
            if run is not None and run.trees:
                kept.append(run)
        self._handed = len(self.names)
        for child in self._workers:
            if child.is_alive():
                child.terminate()
        return kept


#: The pool's stop flag, in a worker process (set by :func:`_start_worker`).
_stopping = None


def _start_worker(stopping) -> None:
    """Worker set-up: Ctrl-C reaches the zoo only, which passes it on (see the module)."""
    global _stopping
    _stopping = stopping
    leave_terminal_group()
    _hear_interrupts()


def _hear_interrupts() -> None:
    """Set the worker's SIGINT handler, and Python's hook for exceptions it cannot pass on."""
    # SIGINT is how the zoo stops this worker, so the worker must hear it whatever it
    # inherited: a zoo started in the background by a shell without job control (a
    # script's `zoo check --jobs 2 &`, a CI runner) has SIGINT ignored, its workers too,
    # and they then drew to the end of their runs after being told to stop.
    signal.signal(signal.SIGINT, _interrupted)
    sys.unraisablehook = _unraisable


def _unraisable(unraisable) -> None:
    """The interrupt's ``KeyboardInterrupt``, dropped by Python: sent again, quietly.

    A worker compiling its kernel frees many objects whose ``__del__`` runs Python code
    (llvmlite's ``ObjectRef``); an interrupt landing in one is printed as "Exception
    ignored in ..." and dropped, and the worker draws to the end of its run. CI saw that
    end once (the interrupt test's Gaussian naive Bayes run came back whole after 45 s,
    on a cold cache, its stderr muted); this is the way to it that the tests reproduce.
    """
    if raised_by(unraisable.exc_traceback, _interrupted):
        send_again(signal.SIGINT)
        return
    sys.__unraisablehook__(unraisable)


def _interrupted(number, frame) -> None:
    """Python's SIGINT handler, but never inside numba's conversion of arguments.

    Raised there, the interrupt crashed the worker (zoo.sampling.interrupts), and the
    draws it held were lost with it.
    """
    if deferred(number, frame):
        return
    raise KeyboardInterrupt


def _travels(model) -> bool:
    """Whether ``model`` can be sent to a fresh process (by its location, or pickled)."""
    try:
        pickle.dumps(model)
    except Exception:  # a closure, a lambda, a class defined in a function: anything
        return False
    return True


def _sample_quietly(model, settings: dict) -> ModelRun | None:
    """One model's run in a worker, without progress display; None if none was drawn.

    None once the run is stopping (a task not begun), or when the interrupt came before
    the run began.
    """
    if _stopping is not None and _stopping.is_set():
        return None
    try:
        with quiet_logs(True), warnings.catch_warnings():
            # Said by the zoo once for the whole run, not by each worker.
            warnings.filterwarnings("ignore", message="interrupted:", category=RuntimeWarning)
            # The pool is the parallelism: PyMC's chains run one after the other in the
            # worker, which spares a process (and its imports) per chain.
            return sample_model(model, progress=False, status=None, cores=1, **settings)
    except KeyboardInterrupt:
        # Interrupted before the run began (loading the model's data, compiling): nothing
        # drawn. Raised, it would reach the pool as this task's exception and then the
        # zoo from the future, as if the zoo's own process had been interrupted again.
        return None


class WorkerEnded(RuntimeError):
    """A worker process ended while it sampled a model (killed, or crashed in compiled code).

    The process pool breaks with it: the models after it have no run either. Raised on,
    ``concurrent.futures`` printed some 40 lines of traceback for a ``kill -9`` of a
    worker (a probe), or the out-of-memory killer's.
    """

    def __init__(self, model: str, after: Sequence[str]):
        unrun = f"; not sampled either: {', '.join(after)}" if after else ""
        super().__init__(
            f"the worker process sampling {model} ended abruptly (killed by a signal, such "
            f"as the out-of-memory killer's, or a crash in compiled code){unrun}"
        )

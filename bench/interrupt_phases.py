"""Ctrl-C at several moments of one command: exit status and what reaches standard error.

A terminal's Ctrl-C sends SIGINT to the whole foreground process group (the command,
its PyMC chains and its Dask workers alike). Each run here starts the command in a
session of its own and sends SIGINT to that group after a delay, then prints the exit
status, the seconds it took to stop and the lines of standard error (one line, exit 130,
is what the zoo promises; more lines mean a traceback or worker noise). The delays
land in different phases (imports, the exact check, SBC, Geweke) depending on the
machine, so the table says what was seen, not which phase was hit.

Usage::

    python -m bench.interrupt_phases --delays 1.5 2.5 6 20 40 -- zoo validate naive-bayes
    python -m bench.interrupt_phases --signal TERM --delays 0.05 3 -- zoo check beta-binomial

``--signal TERM`` sends SIGTERM to the command's process alone, as ``kill`` does. After
each run the folder it ran in is searched for what an interrupted run must not leave
(lock files, staging folders ``.zoo-partial-*``); the table counts them.

Records: one per delay in ``bench/results/interrupt_phases/records.jsonl`` (the command,
delay, exit status, seconds to stop and standard error's lines) through
``bench.records`` (host, commit, date and command inside each). ``table.md`` beside them
is an earlier run's printed table.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import time
from pathlib import Path

from bench import records


def interrupted_at(
    command: list[str], delay: float, number: int = signal.SIGINT
) -> tuple[int, float, list[str]]:
    """Run ``command``, signal it after ``delay`` s; status, stop s, stderr.

    SIGINT goes to its process group (a terminal's Ctrl-C), SIGTERM to the process.
    """
    process = subprocess.Popen(
        command,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(delay)
    sent = time.monotonic()
    try:
        if number == signal.SIGINT:
            os.killpg(process.pid, number)
        else:
            process.send_signal(number)
    except ProcessLookupError:  # it had already finished
        pass
    _, err = process.communicate(timeout=600)
    return process.returncode, time.monotonic() - sent, err.splitlines()


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--delays", type=float, nargs="+", default=[1.5, 2.5, 6.0, 20.0])
    parser.add_argument("--signal", choices=["INT", "TERM"], default="INT")
    parser.add_argument("command", nargs="+", help="the command, after --")
    args = parser.parse_args(argv)
    # Started in the background of a shell without job control, this process has SIGINT
    # ignored, and so would the command (which keeps it so, as it should): every SIGINT
    # then met a run that went on to its end. Handled here, it is at its default in the
    # command, as in a terminal's foreground job.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    number = signal.Signals[f"SIG{args.signal}"]
    print(f"| SIG{args.signal} after s | exit | stopped in s | stderr lines | left | last line |")
    print("|---|---|---|---|---|---|")
    for delay in args.delays:
        status, stopped, lines = interrupted_at(args.command, delay, number)
        last = lines[-1] if lines else ""
        left = sorted(str(p) for p in Path().glob("**/*.lock")) + sorted(
            str(p) for p in Path().glob("**/.zoo-partial-*")
        )
        records.append(
            "interrupt_phases",
            {
                "interrupted": args.command,
                "signal": f"SIG{args.signal}",
                "delay_seconds": delay,
                "exit": status,
                "stopped_seconds": stopped,
                "stderr": lines,
                "left": left,
            },
        )
        print(f"| {delay:g} | {status} | {stopped:.1f} | {len(lines)} | {len(left)} | {last} |")


if __name__ == "__main__":
    main()

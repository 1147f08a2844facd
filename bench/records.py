"""The benchmarks' records: one folder per study, one JSON object per measurement.

Every bench script writes what it measured through this module, and every table is
generated from what it reads back (``python -m bench.tables``). A study is a folder
``bench/results/<study>/``; its records are JSON lines in ``*.jsonl`` files (a script
that runs in several processes at once may give each its own file), and a ``*.json``
file in the folder is read as one record. Tables derived from the records are ``.md``
files beside them, written by ``bench/tables.py``.

What a record says about where and when it was taken is inside it, never in a file
name. :func:`append` adds these fields to the caller's own (the caller's win where
both have one, so a migrated record keeps what it said):

``host``
    ``{"cpu": ..., "cores": ...}``: the processor's model name (``bench/host.py``) and
    ``os.cpu_count()``. The project's 2-core machine is not the same processor from one
    day to the next, so a timing means nothing without it.
``commit``, ``dirty``
    ``git rev-parse HEAD`` of the tree that ran, and whether tracked files outside
    ``bench/results/`` differed from it (``git status --porcelain --untracked-files=no``),
    both read once when the process first writes; ``None`` outside git. Records are
    not the code that ran: a study's earlier records, written but not yet committed,
    do not make its later ones dirty.
``date``
    When the record was written: UTC, ISO 8601, to the second.
``command``
    How the script was invoked: ``python -m bench.NAME`` and its arguments.

The API, kept small and stable so that studies added on other branches merge in:

``provenance()``
    The fields above, as of now.
``append(study, record, file="records")``
    Add the provenance to a copy of ``record`` and append it as one line to
    ``bench/results/<study>/<file>.jsonl``; return the line's object.
``read(study, file=None)``
    The records of a study (every ``*.jsonl`` line and ``*.json`` file of the folder,
    files in name order, lines in file order, but :data:`SUPERSEDED`), or of one
    ``file`` in it.
``append_to(path, record)``, ``read_file(path)``
    The same for a JSON-lines file named by its path, for scripts whose ``--out``
    option names one (``bench/results/<study>/<file>.jsonl``).
``folder(study)``
    ``bench/results/<study>`` (created).
``dirty(repository=REPOSITORY)``
    The ``dirty`` field's value for a repository (tests give a throwaway one).

``RESULTS`` is the results folder; ``root`` arguments let tests use another one.
"""

from __future__ import annotations

import datetime
import functools
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from bench.host import cpu_name

RESULTS = Path(__file__).resolve().parent / "results"
REPOSITORY = RESULTS.parent.parent

#: The file of a study's records that a re-run after a change to the code they measured
#: replaced: kept for the history (each says why in its ``superseded`` field), read by
#: no table (:func:`read` of the whole study skips it; ``read(study, "superseded")``
#: reads it).
SUPERSEDED = "superseded.jsonl"

# A study's name is a folder name a shell needs no quoting for, and never a path.
_STUDY = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _checked(name: str, what: str) -> str:
    if not isinstance(name, str) or not _STUDY.match(name) or name in {".", ".."}:
        raise ValueError(f"{what} {name!r}: must be letters, digits, '_', '.' or '-', not a path")
    return name


def folder(study: str, root: Path | None = None) -> Path:
    """The folder of ``study`` under ``root`` (default ``RESULTS``), created if missing."""
    path = (RESULTS if root is None else Path(root)) / _checked(study, "study")
    path.mkdir(parents=True, exist_ok=True)
    return path


def _git(*args: str, repository: Path = REPOSITORY) -> str | None:
    try:
        done = subprocess.run(
            ["git", *args], cwd=repository, capture_output=True, text=True, check=True
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return done.stdout


def _command() -> str:
    # ``python -m bench.x`` leaves the module's file in argv[0]; say it as it was typed.
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    head = f"python -m {spec.name}" if spec is not None else f"python {sys.argv[0]}"
    return " ".join([head, *sys.argv[1:]])


@functools.cache
def _process() -> tuple:
    # Read once: a long study's records all name the tree and host it started on.
    commit = _git("rev-parse", "HEAD")
    return (
        cpu_name(),
        os.cpu_count(),
        None if commit is None else commit.strip(),
        dirty(),
        _command(),
    )


def dirty(repository: Path = REPOSITORY) -> bool | None:
    """Whether tracked files outside ``bench/results/`` differ from the commit (docstring)."""
    status = _git(
        "status",
        "--porcelain",
        "--untracked-files=no",
        "--",
        ".",
        ":(exclude)bench/results",
        repository=repository,
    )
    return None if status is None else bool(status.strip())


def provenance() -> dict:
    """Host, commit, dirty flag, date and command, as of now (module docstring)."""
    cpu, cores, commit, dirty, command = _process()
    return {
        "host": {"cpu": cpu, "cores": cores},
        "commit": commit,
        "dirty": dirty,
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "command": command,
    }


def append_to(path: Path, record: dict) -> dict:
    """Append ``record`` with its provenance to the JSON-lines file ``path``; return it.

    The record's own fields win over the provenance's, so a record that already says
    its host or commit (a migrated one, a subprocess's) keeps them.
    """
    if not isinstance(record, dict):
        raise TypeError(f"record: must be a dict, got {type(record).__name__}")
    line = {**provenance(), **record}
    text = json.dumps(line)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        handle.write(text + "\n")
    return line


def append(study: str, record: dict, file: str = "records", root: Path | None = None) -> dict:
    """Append ``record`` with its provenance to ``<study>/<file>.jsonl``; return it."""
    return append_to(folder(study, root) / f"{_checked(file, 'file')}.jsonl", record)


def read_file(path: Path) -> list[dict]:
    """The records of one JSON-lines file (none where it does not exist yet)."""
    path = Path(path)
    if not path.exists():
        return []
    records = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.strip():
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as error:
                raise ValueError(f"{path}:{number}: not a JSON record ({error.msg})") from None
    return records


def read(study: str, file: str | None = None, root: Path | None = None) -> list[dict]:
    """The records of ``study``, or of one ``file`` of it.

    A whole study is every ``*.jsonl`` line and ``*.json`` file of its folder but those
    of :data:`SUPERSEDED`.
    """
    base = (RESULTS if root is None else Path(root)) / _checked(study, "study")
    if file is not None:
        return read_file(base / f"{_checked(file, 'file')}.jsonl")
    if not base.is_dir():
        raise FileNotFoundError(f"study {study!r}: no folder {base}")
    records: list[dict] = []
    for path in sorted(base.iterdir()):
        if path.name == SUPERSEDED:
            continue
        if path.suffix == ".jsonl":
            records.extend(read_file(path))
        elif path.suffix == ".json":
            records.append(json.loads(path.read_text()))
    return records

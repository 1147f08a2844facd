"""The SBC result store: an append-only JSON-lines file, so that an interrupted run resumes.

The first line is a header holding the run's settings; every further line is one
result, written and flushed as it arrives. Reopening the file with the same settings
returns the results already there (the caller skips those tasks); different settings
are refused rather than mixed. A line cut short by a crash is ignored.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["ResultStore"]


class ResultStore:
    """Results of one run, keyed by ``record["key"]``.

    Parameters
    ----------
    path : str or Path, optional
        The file. ``None`` keeps results in memory only.
    settings : mapping
        What defines the run (JSON-serialisable); must match the file's header.
    """

    def __init__(self, path, settings: Mapping):
        self.path = None if path is None else Path(path)
        self.settings = json.loads(json.dumps(dict(settings)))
        self.records: dict[str, dict] = {}
        if self.path is None:
            return
        if self.path.exists() and self.path.stat().st_size:
            self._load()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("w") as handle:
                handle.write(json.dumps({"header": self.settings}) + "\n")

    def _load(self) -> None:
        with self.path.open() as handle:
            lines = handle.read().splitlines()
        try:
            header = json.loads(lines[0])["header"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError(
                f"store: {self.path} is not a zoo results file (no header line)"
            ) from None
        if header != self.settings:
            keys = set(header) | set(self.settings)
            changed = sorted(k for k in keys if header.get(k) != self.settings.get(k))
            raise ValueError(
                f"store: {self.path} holds a run with different settings ({', '.join(changed)});"
                " use another file or delete it to start afresh"
            )
        for line in lines[1:]:
            try:
                record = json.loads(line)
            except ValueError:  # a line cut short by a crash: that task runs again
                continue
            self.records[record["key"]] = record

    def __contains__(self, key: str) -> bool:
        return key in self.records

    def add(self, record: Mapping) -> None:
        """Keep ``record`` and append it to the file at once."""
        record = json.loads(json.dumps(dict(record)))
        self.records[record["key"]] = record
        if self.path is not None:
            with self.path.open("a") as handle:
                handle.write(json.dumps(record) + "\n")
                handle.flush()
                os.fsync(handle.fileno())

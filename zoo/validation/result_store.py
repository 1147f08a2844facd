"""The SBC result store: an append-only JSON-lines file, so that an interrupted run resumes.

The first line is a header holding the run's settings; every further line is one
result, written and flushed as it arrives. Reopening the file with the same settings
returns the results already there (the caller skips those tasks); different settings
are refused rather than mixed. A last line without its newline is a write cut short (a
crash, Ctrl-C): it is dropped from the file with one warning, and that task runs again.
Anything else that is not a record (a line that is not JSON, a record missing a field
or with one of the wrong type) is refused, naming the line: the file was damaged or
edited, and its records can no longer be trusted.
"""

from __future__ import annotations

import json
import os
import warnings
from collections.abc import Callable, Mapping
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
    check : callable, optional
        ``check(record)`` raises ``ValueError`` saying what is wrong with a stored
        record (a field missing or of the wrong type); the store adds the line number.

    Raises
    ------
    ValueError
        Starting with ``store:``, when the file cannot be written to, is not a results
        file, holds a run with other settings, or holds a line that is not a record.
    """

    def __init__(self, path, settings: Mapping, *, check: Callable[[dict], None] | None = None):
        self.path = None if path is None else Path(path)
        self.settings = json.loads(json.dumps(dict(settings)))
        self.check = check
        self.records: dict[str, dict] = {}
        if self.path is None:
            return
        if self.path.exists() and not self.path.is_file():
            # A device or a pipe: reading /dev/zero would never end.
            raise ValueError(f"store: {self.path} is not a regular file")
        try:
            if self.path.exists() and self._kept_lines():
                self._load()
                # Appending is what the run will do: find out now that it cannot.
                self.path.open("a").close()
            else:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._append({"header": self.settings}, mode="w")
        except OSError as error:
            raise ValueError(
                f"store: cannot write to {self.path}: {error.strerror or error}"
            ) from None

    def _kept_lines(self) -> int:
        """Bytes of the file up to its last newline, after dropping a line cut short."""
        data = self.path.read_bytes()
        kept = data.rfind(b"\n") + 1
        if kept < len(data):
            warnings.warn(
                f"store: {self.path}: its last line was cut short (a write interrupted by a "
                "crash or Ctrl-C); dropped, that task runs again",
                RuntimeWarning,
                stacklevel=3,
            )
            with self.path.open("r+b") as handle:
                handle.truncate(kept)
        return kept

    def _load(self) -> None:
        lines = self.path.read_text().splitlines()
        try:
            header = json.loads(lines[0])["header"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ValueError(
                f"store: {self.path} is not a zoo results file (no header line)"
            ) from None
        records = [self._record(number, line) for number, line in enumerate(lines[1:], 2)]
        if header != self.settings:
            keys = set(header) | set(self.settings)
            changed = sorted(k for k in keys if header.get(k) != self.settings.get(k))
            raise ValueError(
                f"store: {self.path} holds a run with different settings ({', '.join(changed)});"
                " use another file or delete it to start afresh"
            )
        for record in records:
            self.records[record["key"]] = record

    def _record(self, number: int, line: str) -> dict:
        """Line ``number`` of the file as a record, or a ValueError naming it."""
        where = f"store: {self.path}, line {number}"
        try:
            record = json.loads(line)
        except ValueError as error:
            raise ValueError(
                f"{where}: not JSON ({error.msg}); the file is damaged: move it away to start "
                "afresh"
            ) from None
        if not isinstance(record, dict) or not isinstance(record.get("key"), str):
            raise ValueError(f"{where}: a record must be a JSON object with a text 'key'")
        if self.check is not None:
            try:
                self.check(record)
            except ValueError as error:
                raise ValueError(f"{where}: {error}") from None
        return record

    def __contains__(self, key: str) -> bool:
        return key in self.records

    def add(self, record: Mapping) -> None:
        """Keep ``record`` and append it to the file at once."""
        record = json.loads(json.dumps(dict(record)))
        self.records[record["key"]] = record
        if self.path is not None:
            try:
                self._append(record)
            except OSError as error:
                raise ValueError(
                    f"store: cannot write to {self.path}: {error.strerror or error}"
                ) from None

    def _append(self, line: Mapping, *, mode: str = "a") -> None:
        # One write of the line and its newline, flushed to disk: a crash leaves at most
        # the last line cut short, which the next run drops.
        with self.path.open(mode) as handle:
            handle.write(json.dumps(line) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

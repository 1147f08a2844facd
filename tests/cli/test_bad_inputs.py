"""Bad input at the command line: one line on stderr, exit status 2, before any work.

The table is the page docs/bad-inputs.md, one table per command: each row a command line
(``{file}``, ``{dir}``, ``{module}``, ``{port}`` and ``{long}`` are filled in per test), its
exit status and a part of the message it must print; the page and the command cannot
disagree. A row that reached sampling would take seconds to minutes: these take
milliseconds, which is itself part of the rule ("before any work").
"""

from __future__ import annotations

import shlex
import socket
from pathlib import Path

import pytest

from zoo.cli import main
from zoo.cli.output_paths import claimed_outputs

#: Modules a user might name with --sampler, each broken in its own way on import.
BROKEN_MODULES = {
    "syntax_error": "def sampler(:\n",
    "raises_on_import": "raise RuntimeError('no data file')\n",
    "exits_on_import": "import sys\nsys.exit(3)\n",
}

#: The page holding the table of bad inputs, one table per command.
PAGE = Path(__file__).resolve().parents[2] / "docs" / "bad-inputs.md"


def _rows() -> list[tuple[list[str], int, str]]:
    """(command line after ``zoo``, exit status, message fragment) of every row of the page."""
    rows = []
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `zoo"):
            continue
        command, status, message = (
            cell.strip().strip("`") for cell in line.strip("|").split(" | ")
        )
        rows.append((shlex.split(command)[1:], int(status), message))
    return rows


ROWS = _rows()


def test_the_page_lists_every_command_and_only_refusals():
    commands = {command[0] for command, _, _ in ROWS if command}
    assert commands == {"check", "report", "validate"} and len(ROWS) > 60
    assert {status for _, status, _ in ROWS} == {2}


@pytest.fixture
def places(tmp_path, monkeypatch, request):
    """Paths and names for the placeholders; the user's modules in the working folder."""
    file, folder = tmp_path / "a-file", tmp_path / "a-folder"
    file.write_text("not a folder")
    folder.mkdir()
    (folder / "x.nc").mkdir()
    # Module names unique to the test: a module imported once stays imported.
    prefix = f"m{abs(hash(request.node.name)) % 10**8}_"
    for name, source in BROKEN_MODULES.items():
        (tmp_path / f"{prefix}{name}.py").write_text(source)
    monkeypatch.chdir(tmp_path)
    with socket.socket() as probe:  # a port nothing listens at once it is closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return {"file": file, "dir": folder, "module": prefix, "port": port, "long": "r" * 253}


def _refused(command, expected, message, places, capsys):
    args = [a.format(**places) for a in command]
    # The "held" paths are held by another run for the whole call.
    held = {
        "out": next((a for a in args if a.endswith("held.nc")), None),
        "report": next((a for a in args if a.endswith("held-report")), None),
    }
    claims = {k: (v, k == "report") for k, v in held.items()}
    with claimed_outputs("another run", **claims) as claimed:
        assert claimed
        status = main(args)
    err = capsys.readouterr().err
    assert status == expected, err
    assert message.format(**places) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("command", "status", "message"), ROWS, ids=[" ".join(c) or "(none)" for c, _, _ in ROWS]
)
def test_a_bad_input_is_refused_in_one_line(command, status, message, places, capsys):
    _refused(command, status, message, places, capsys)


def test_a_claim_ends_with_its_run(tmp_path):
    out = tmp_path / "run.nc"
    with claimed_outputs("first", out=(out, False)) as first:
        assert first and (tmp_path / "run.nc.lock").exists()
    assert not (tmp_path / "run.nc.lock").exists()
    with claimed_outputs("second", out=(out, False)) as second:
        assert second

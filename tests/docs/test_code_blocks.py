"""Every code block of the README and of the pages in ``docs/`` is run or parsed.

A Python block (```` ```python ````) runs as a script of its own, in a fresh interpreter
and an empty folder, and must exit 0: a page that shows code a user cannot run fails
here. A shell block's ``zoo ...`` lines are parsed by the command line's own parser
(without running them): an option a page names must exist. The README's quick start is
also validated end to end, with its planted twin, by ``tests/cli/test_readme_own_model.py``.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from zoo.cli.parser import build_parser

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(\w*)\n(.*?)^```", flags=re.M | re.S)


def _blocks(language: str) -> list[tuple[str, str]]:
    found = []
    for page in PAGES:
        for number, match in enumerate(FENCE.finditer(page.read_text())):
            if match.group(1) == language:
                found.append((f"{page.relative_to(ROOT)}#{number}", match.group(2)))
    return found


PYTHON = _blocks("python")
SHELL = [
    (f"{where}: {line}", line)
    for where, block in _blocks("")
    for line in (raw.split("#")[0].strip() for raw in block.splitlines())
    if line.startswith("zoo ")
]


def test_the_pages_hold_code_blocks():
    # The fence pattern must keep finding them: an empty parametrisation passes silently.
    assert len(PYTHON) >= 3
    assert len(SHELL) >= 10


@pytest.mark.pymc
@pytest.mark.parametrize(("where", "source"), PYTHON, ids=[where for where, _ in PYTHON])
def test_every_python_block_runs(where, source, tmp_path):
    script = tmp_path / "block.py"
    script.write_text(source)
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, f"{where} failed:\n{done.stderr[-3000:]}"


@pytest.mark.parametrize(("where", "line"), SHELL, ids=[where for where, _ in SHELL])
def test_every_zoo_command_parses(where, line):
    words = shlex.split(line)[1:]
    # Placeholders of the pages (MODEL, M:F, ...) stand for a user's values.
    try:
        build_parser().parse_args(words)
    except SystemExit as stop:
        pytest.fail(f"{where}: the parser refused it (exit {stop.code})")

"""Bad input at the command line: one line on stderr, exit status 2, before any work.

One table per command; each row is a command line (``{file}``, ``{dir}``, ``{module}``
and ``{port}`` are filled in per test) and a part of the message it must print. A row
that reached sampling would take seconds to minutes: these take milliseconds, which is
itself part of the rule ("before any work").
"""

from __future__ import annotations

import socket

import pytest

from zoo.cli import main
from zoo.cli.output_paths import claimed_outputs

#: Modules a user might name with --sampler, each broken in its own way on import.
BROKEN_MODULES = {
    "syntax_error": "def sampler(:\n",
    "raises_on_import": "raise RuntimeError('no data file')\n",
    "exits_on_import": "import sys\nsys.exit(3)\n",
}

CHECK = [
    (["check", "nonsense"], "unknown model(s) nonsense"),
    (["check", "beta-binomial", "beta-binomial"], "named more than once"),
    (["check", "--seed", "-1"], "--seed: must be an integer >= 0"),
    (["check", "--chains", "0"], "--chains: must be an integer >= 1"),
    (["check", "--jobs", "0"], "--jobs: must be an integer >= 1"),
    (["check", "--alpha", "2"], "--alpha: must be a probability in (0, 1)"),
    (["check", "--draws", "10000000000"], "--draws: 4 chain(s) x 10000000000 draws"),
    (["check", "--out", "{dir}"], "--out must end in .nc"),
    (["check", "--out", "{file}/run.nc"], "is a file, not a folder"),
    (["check", "--out", "{dir}/x.nc/"], "is a folder"),
    (["check", "--report", "{file}"], "exists and is not a folder"),
    (["check", "--out", "{dir}/held.nc"], "another run is writing it"),
    (["check", "--report", "{dir}/held-report"], "another run is writing it"),
]

VALIDATE = [
    (["validate", "nonsense"], "unknown model 'nonsense'"),
    (["validate"], "give a zoo model"),
    (["validate", "beta-binomial", "--reference", "m:r"], "--reference: only with --model"),
    (["validate", "beta-binomial", "--seed", "-1"], "seed: must be an integer >= 0"),
    (["validate", "beta-binomial", "--checks", ","], "checks: choose at least one"),
    (["validate", "beta-binomial", "--checks", "exact,exact"], "named more than once"),
    (["validate", "beta-binomial", "--checks", "psis"], "checks: unknown"),
    (["validate", "beta-binomial", "--draws", "0"], "--draws: must be an integer >= 1"),
    (["validate", "beta-binomial", "--draws", "10000000000"], "--draws: 4 chain(s) x"),
    (["validate", "beta-binomial", "--sbc-draws", "0"], "--sbc-draws: must be an integer >= 1"),
    (["validate", "beta-binomial", "--sbc-draws", "10000000000"], "--sbc-draws: 2 chain(s) x"),
    (["validate", "beta-binomial", "--simulations", "0"], "--simulations: must be an integer"),
    (
        ["validate", "beta-binomial", "--geweke-iterations", "100"],
        "--geweke-iterations: must be an integer >= 200",
    ),
    (["validate", "beta-binomial", "--workers", "0", "--timeout", "5"], "cannot be stopped"),
    (["validate", "beta-binomial", "--fault", "nope"], "has no fault 'nope'"),
    (["validate", "beta-binomial", "--sbc-prior", "nope"], "sbc_prior"),
    (["validate", "beta-binomial", "--problems", "nope"], "problems"),
    (["validate", "beta-binomial", "--sampler", "nodots"], "expected 'package.module:name'"),
    (["validate", "beta-binomial", "--sampler", "no_such_module:f"], "cannot import module"),
    (
        ["validate", "beta-binomial", "--sampler", "{module}syntax_error:sampler"],
        "has a syntax error at {module}syntax_error.py:1",
    ),
    (
        ["validate", "beta-binomial", "--sampler", "{module}raises_on_import:sampler"],
        "raised RuntimeError: no data file ({module}raises_on_import.py:1)",
    ),
    (
        ["validate", "beta-binomial", "--sampler", "{module}exits_on_import:sampler"],
        "called sys.exit(3) when imported",
    ),
    (["validate", "beta-binomial", "--scheduler", "tcp://127.0.0.1:{port}"], "nothing listens"),
    (["validate", "beta-binomial", "--scheduler", "nonsense"], "expected tcp://host:port"),
    (["validate", "beta-binomial", "--report", "{file}"], "exists and is not a folder"),
    (["validate", "beta-binomial", "--store", "{dir}"], "is a folder; give a file"),
    (["validate", "beta-binomial", "--report", "{dir}/held-report"], "another run is writing"),
]


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
    return {"file": file, "dir": folder, "module": prefix, "port": port}


def _refused(command, message, places, capsys):
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
    assert status == 2, err
    assert message.format(**places) in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(("command", "message"), CHECK, ids=[" ".join(c) for c, _ in CHECK])
def test_zoo_check_refuses(command, message, places, capsys):
    _refused(command, message, places, capsys)


@pytest.mark.parametrize(("command", "message"), VALIDATE, ids=[" ".join(c) for c, _ in VALIDATE])
def test_zoo_validate_refuses(command, message, places, capsys):
    _refused(command, message, places, capsys)


def test_a_claim_ends_with_its_run(tmp_path):
    out = tmp_path / "run.nc"
    with claimed_outputs("first", out=(out, False)) as first:
        assert first and (tmp_path / "run.nc.lock").exists()
    assert not (tmp_path / "run.nc.lock").exists()
    with claimed_outputs("second", out=(out, False)) as second:
        assert second

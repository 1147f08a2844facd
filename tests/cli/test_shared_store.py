"""Two ``zoo validate`` runs on one ``--store`` at once: each simulation fitted once.

Issue 32: both runs fitted all the simulations and the file held every record twice.
Each simulation is now claimed before it is fitted (zoo.validation.result_store); the
sampler here writes a line per fit to a log, so the fits of both runs are counted.
"""

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SIMULATIONS = 20

#: The user's sampler: the conjugate one, noting each fit (its seed) in a shared log.
COUNTED = """
import os
from tests.support.user_samplers import beta_binomial_conjugate

def sampler(data, prior, *, draws, chains, seed):
    handle = os.open(os.environ["FIT_LOG"], os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    os.write(handle, f"{os.getppid()} {os.getpid()} {seed}\\n".encode())
    os.close(handle)
    return beta_binomial_conjugate(data, prior, draws=draws, chains=chains, seed=seed)
"""


@pytest.mark.parametrize(
    "workers",
    [("0", "0"), pytest.param(("0", "2"), marks=pytest.mark.slow)],  # a cluster: ~60 s
    ids=["in-process-twice", "in-process-and-a-cluster"],
)
def test_two_runs_on_one_store_fit_each_simulation_once_and_agree(workers, tmp_path):
    (tmp_path / "counted.py").write_text(COUNTED)
    log, store = tmp_path / "fits.log", tmp_path / "sbc.jsonl"
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)]),
        "FIT_LOG": str(log),
    }
    command = [
        sys.executable, "-m", "zoo.cli", "validate", "beta-binomial",
        "--sampler", "counted:sampler", "--sbc-prior", "informative-fixed",
        "--checks", "sbc", "--simulations", str(SIMULATIONS), "--sbc-draws", "40",
        "--store", str(store), "--json", "--quiet",
    ]  # fmt: skip
    options = {"cwd": tmp_path, "env": env, "text": True}
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    runs = [subprocess.Popen([*command, "--workers", w], **options, **pipes) for w in workers]
    done = [(run.communicate(timeout=600), run.returncode) for run in runs]
    for (_, err), status in done:
        assert status in (0, 1), err
    assert done[0][1] == done[1][1]
    verdicts = [json.loads(out) for (out, _), _ in done]
    assert verdicts[0]["verdict"] == verdicts[1]["verdict"]
    (first,), (second,) = (v["checks"] for v in verdicts)
    assert first["details"]["quantities"] == second["details"]["quantities"]  # same ranks
    seeds = Counter(line.split()[2] for line in log.read_text().splitlines())
    assert len(seeds) == SIMULATIONS and set(seeds.values()) == {1}, seeds
    records = [json.loads(line) for line in store.read_text().splitlines()[1:]]
    assert sorted(r["index"] for r in records) == list(range(SIMULATIONS))

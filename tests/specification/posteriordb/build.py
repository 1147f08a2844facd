"""Write the test data of ``test_posteriordb.py`` from a checkout of stan-dev/posteriordb.

    python tests/specification/posteriordb/build.py PATH_TO_POSTERIORDB_GIT_DIR

For each posterior, ``<posterior>.json`` here holds the data values its model reads
(only those) and, per parameter of posteriordb's reference draws, the mean, the sd and
their Monte Carlo standard errors (ArviZ's ``mcse``, ``method="mean"`` and ``"sd"``,
over the 10 chains of 1,000 thinned draws), with the number of draws and chains and the
commit read. The draws themselves are not kept. The files are read from git (``git
show COMMIT:path``) and unzipped in memory, so the checkout may be a bare mirror.
"""

import argparse
import io
import json
import subprocess
import zipfile
from pathlib import Path

import arviz as az
import numpy as np

HERE = Path(__file__).resolve().parent
#: posterior name -> (data set, the data fields its Stan program reads).
POSTERIORS = {
    "eight_schools-eight_schools_noncentered": ("eight_schools", ("J", "y", "sigma")),
    "earnings-earn_height": ("earnings", ("N", "earn", "height")),
    "sblrc-blr": ("sblrc", ("N", "D", "X", "y")),
    "kidiq_with_mom_work-kidscore_mom_work": (
        "kidiq_with_mom_work",
        ("N", "kid_score", "mom_work"),
    ),
}
ROOT = "posterior_database"


def _zipped_json(git_dir, commit, path):
    """The one JSON file inside the zip at ``path`` of ``commit``."""
    blob = subprocess.run(
        ["git", "-C", str(git_dir), "show", f"{commit}:{path}"], capture_output=True, check=True
    ).stdout
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        (name,) = archive.namelist()
        return json.loads(archive.read(name))


def summarise(chains):
    """Mean, sd and their MCSEs per parameter of posteriordb's draws (a list of chains)."""
    names = list(chains[0])
    arrays = {name: np.array([chain[name] for chain in chains]) for name in names}
    posterior = az.from_dict({"posterior": arrays})["posterior"].dataset
    mcse_mean = az.mcse(posterior, method="mean")
    mcse_sd = az.mcse(posterior, method="sd")
    out = {}
    for name in names:
        values = posterior[name].values
        out[name] = {
            "mean": float(values.mean()),
            "sd": float(values.std(ddof=1)),
            "mcse_mean": float(mcse_mean[name]),
            "mcse_sd": float(mcse_sd[name]),
        }
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", type=Path)
    parser.add_argument("--commit", default="HEAD")
    args = parser.parse_args()
    commit = subprocess.run(
        ["git", "-C", str(args.git_dir), "rev-parse", args.commit],
        capture_output=True,
        check=True,
        text=True,
    ).stdout.strip()
    for posterior, (data_name, fields) in POSTERIORS.items():
        data_path = f"{ROOT}/data/data/{data_name}.json.zip"
        draws_path = f"{ROOT}/reference_posteriors/draws/draws/{posterior}.json.zip"
        data = _zipped_json(args.git_dir, commit, data_path)
        chains = _zipped_json(args.git_dir, commit, draws_path)
        record = {
            "posterior": posterior,
            "source": {
                "repository": "stan-dev/posteriordb",
                "commit": commit,
                "data": data_path,
                "draws": draws_path,
                "model": f"{ROOT}/models/stan/{posterior.split('-', 1)[1]}.stan",
            },
            "data": {field: data[field] for field in fields},
            "chains": len(chains),
            "draws": sum(len(next(iter(chain.values()))) for chain in chains),
            "reference": summarise(chains),
        }
        (HERE / f"{posterior}.json").write_text(json.dumps(record, indent=1) + "\n")
        print(posterior, record["draws"], "draws")


if __name__ == "__main__":
    main()

"""``zoo validate --store FILE`` with a store it cannot use: one table, one test per row.

Every row is refused before any fit, in one line naming the file (and the line, for a
damaged one), with exit status 2. A last line cut short by an interrupted writer is not
here: it is tolerated (tests/validation/test_result_store.py).
"""

import json
import os
import shutil
import subprocess

import pytest

from zoo.cli import main
from zoo.cli.output_paths import unusable_output
from zoo.validation.sbc_check import STORE_KIND

HEADER = json.dumps({"header": {"kind": STORE_KIND, "model": "beta-binomial"}})
OK = {"key": "sbc-0", "index": 0, "status": "ok", "ranks": {"theta[0]": 0.4}, "thinned": 50}


def _lines(*records) -> str:
    return "\n".join([HEADER, *(r if isinstance(r, str) else json.dumps(r) for r in records)])


#: (id, the file's text, what the message must say).
BAD_STORES = [
    ("no-header", json.dumps(OK) + "\n", "is not a zoo results file (no header line)"),
    ("not-json-in-the-middle", _lines(OK, "{'key': oops}", OK) + "\n", "line 3: not JSON"),
    ("truncated-in-the-middle", _lines('{"key": "sbc-1", "ind', OK) + "\n", "line 2: not JSON"),
    ("a-list-not-a-record", _lines([1, 2]) + "\n", "line 2: a record must be a JSON object"),
    ("no-key", _lines({"index": 0, "status": "ok"}) + "\n", "line 2: a record must be"),
    ("index-as-text", _lines({**OK, "index": "0"}) + "\n", "line 2: index: must be an integer"),
    ("key-of-another-index", _lines({**OK, "key": "sbc-7"}) + "\n", "line 2: key: must be"),
    ("rank-above-1", _lines({**OK, "ranks": {"theta[0]": 1.5}}) + "\n", "line 2: ranks"),
    ("ranks-a-list", _lines({**OK, "ranks": [0.4]}) + "\n", "line 2: ranks"),
    ("thinned-missing", _lines({k: v for k, v in OK.items() if k != "thinned"}) + "\n", "thinned"),
    ("seconds-negative", _lines({**OK, "seconds": -1}) + "\n", "line 2: seconds"),
    ("redraws-negative", _lines({**OK, "redraws": -1}) + "\n", "line 2: redraws"),
    ("failure-without-status", _lines({"key": "sbc-0", "index": 0, "status": 3}) + "\n", "status"),
]


def _validate(store) -> int:
    return main(["validate", "beta-binomial", "--checks", "sbc", "--store", str(store)])


@pytest.mark.parametrize(
    ("text", "message"), [row[1:] for row in BAD_STORES], ids=[row[0] for row in BAD_STORES]
)
def test_a_damaged_store_is_refused_before_any_fit_in_one_line(text, message, tmp_path, capsys):
    store = tmp_path / "sbc.jsonl"
    store.write_text(text)
    assert _validate(store) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert err.startswith(f"zoo validate: store: {store}") and message in err, err
    assert store.read_text() == text  # left as it was found


def test_a_store_that_is_a_device_is_refused(capsys):
    # /dev/zero exists and is not a folder; reading it as a store would never end.
    assert _validate("/dev/zero") == 2
    assert "store: /dev/zero is not a regular file" in capsys.readouterr().err


@pytest.fixture
def read_only(tmp_path):
    """A store file nobody may write to (for root: the immutable attribute)."""
    path = tmp_path / "sbc.jsonl"
    path.write_text(HEADER + "\n")
    path.chmod(0o444)
    if os.geteuid() == 0:
        if shutil.which("chattr") is None:
            pytest.skip("root ignores file permissions and chattr is not installed")
        made = subprocess.run(["chattr", "+i", str(path)], capture_output=True, check=False)
        if made.returncode:
            pytest.skip(f"root ignores file permissions and chattr +i failed: {made.stderr}")
    yield path
    if os.geteuid() == 0:
        subprocess.run(["chattr", "-i", str(path)], check=False)


def test_a_store_that_cannot_be_written_is_refused_before_any_fit(read_only, capsys):
    # Found when the first simulation's record was appended, it lost that fit.
    assert _validate(read_only) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"zoo validate: --store {read_only}: cannot write to it"


def test_an_existing_store_or_saved_run_is_usable_as_an_output(tmp_path):
    # The check of output paths once refused every existing --store file ("is a file,
    # not a folder"), so a run could not be resumed from the command line.
    existing = tmp_path / "sbc.jsonl"
    existing.write_text(HEADER + "\n")
    assert unusable_output("--store", existing, folder=False) is None
    assert "is a file, not a folder" in unusable_output("--out", existing / "x.nc", folder=False)

"""Lock files beside ``--out`` and ``--report``: never through a link, never a stranger's file.

Each test plants what an attacker with write access to the folder could (a symbolic link
to the victim's file, a hard link to it, a FIFO) at the lock's path, and checks that the
run stops at its start in one line, exit status 2, with the victim's file as it was.
"""

import os

import pytest

from zoo.cli import main
from zoo.cli.output_paths import claimed_outputs


@pytest.fixture
def victim(tmp_path):
    path = tmp_path / "victim.txt"
    path.write_text("the victim's own text\n")
    return path


def _refused(command, capsys) -> str:
    assert main(command) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    return err


def test_a_lock_planted_as_a_symbolic_link_is_refused_and_the_victim_kept(
    tmp_path, victim, capsys
):
    # Issue 32: `rep.lock -> ~/victim.txt` had the victim's file replaced by "pid 20488".
    (tmp_path / "rep.lock").symlink_to(victim)
    err = _refused(["validate", "beta-binomial", "--report", str(tmp_path / "rep")], capsys)
    assert "rep.lock is a symbolic link; remove it" in err
    assert victim.read_text() == "the victim's own text\n"
    assert (tmp_path / "rep.lock").is_symlink() and not (tmp_path / "rep").exists()


def test_a_lock_planted_as_a_hard_link_is_refused_and_the_victim_kept(tmp_path, victim, capsys):
    os.link(victim, tmp_path / "run.nc.lock")
    err = _refused(["check", "--out", str(tmp_path / "run.nc")], capsys)
    assert "is a hard link to another file (2 links); remove it" in err
    assert victim.read_text() == "the victim's own text\n"


def test_a_lock_planted_as_a_fifo_is_refused_without_waiting(tmp_path, capsys):
    os.mkfifo(tmp_path / "rep.lock")
    err = _refused(["check", "--report", str(tmp_path / "rep")], capsys)
    assert "rep.lock exists and is not a regular file" in err


def test_a_lock_left_by_a_run_that_died_is_taken_over(tmp_path):
    # A regular file of one link whose holder is gone (kill -9): not a planted file.
    (tmp_path / "run.nc.lock").write_text("pid 1")
    with claimed_outputs("zoo check", out=(tmp_path / "run.nc", False)) as claimed:
        assert claimed
        assert (tmp_path / "run.nc.lock").read_text() == f"pid {os.getpid()}"
    assert not (tmp_path / "run.nc.lock").exists()


@pytest.mark.parametrize(
    ("option", "path", "message"),
    [
        ("--out", "/proc/nope/run.nc", "cannot create its lock file /proc/nope/run.nc.lock"),
        ("--report", "/proc/nope", "cannot create its lock file /proc/nope.lock"),
    ],
)
def test_a_lock_that_cannot_be_created_is_one_line(option, path, message, capsys):
    err = _refused(["check", option, path], capsys)
    assert err.startswith(f"zoo check: {option} {path}: ") and message in err, err


@pytest.mark.parametrize(
    ("command", "option", "kind"),
    [
        (["validate", "beta-binomial"], "--report", "folder"),
        (["check"], "--report", "folder"),
        (["check"], "--out", "file"),
    ],
)
def test_an_output_planted_as_a_symbolic_link_is_refused_and_the_victim_kept(
    tmp_path, command, option, kind, capsys
):
    # `rep -> ~/www` planted in a shared folder: the report's index.html replaced the
    # victim's own (written through the link, status 0).
    victim = tmp_path / "www"
    victim.mkdir()
    (victim / "index.html").write_text("the victim's page")
    planted = tmp_path / ("rep" if kind == "folder" else "run.nc")
    planted.symlink_to(victim if kind == "folder" else victim / "index.html")
    err = _refused([*command, option, str(planted)], capsys)
    assert f"{planted}: is a symbolic link; give the {kind} itself" in err
    assert [p.name for p in victim.iterdir()] == ["index.html"]
    assert (victim / "index.html").read_text() == "the victim's page"
    assert planted.is_symlink() and not list(tmp_path.glob("*.lock"))

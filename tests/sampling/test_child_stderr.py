"""The forwarding of child processes' standard error (zoo.sampling.child_stderr)."""

import os
import subprocess
import sys
import time

from zoo.sampling.child_stderr import ChildStderr


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code])


def _err_until(capfd, text: str, timeout: float = 10.0) -> str:
    """Standard error as captured, once ``text`` is in it or ``timeout`` s have passed."""
    seen, deadline = "", time.monotonic() + timeout
    while text not in seen and time.monotonic() < deadline:
        time.sleep(0.05)
        seen += capfd.readouterr().err
    return seen


def test_a_child_started_in_the_block_writes_through_the_forwarder(capfd):
    forwarded = ChildStderr()
    before = os.fstat(2)
    with forwarded.spawning():
        assert os.fstat(2).st_ino != before.st_ino  # descriptor 2 is the pipe meanwhile
        child = _child("import sys, time; time.sleep(0.3); sys.stderr.write('child says hi\\n')")
    assert os.fstat(2).st_ino == before.st_ino  # given back at once, child still running
    assert child.wait(timeout=30) == 0
    assert "child says hi" in _err_until(capfd, "child says hi")


def test_what_this_process_writes_in_the_block_is_not_lost(capfd):
    with ChildStderr().spawning():
        print("parent meanwhile", file=sys.stderr)
    assert "parent meanwhile" in _err_until(capfd, "parent meanwhile")


def test_after_mute_what_the_children_write_is_dropped(capfd):
    forwarded = ChildStderr()
    with forwarded.spawning():
        child = _child("import sys, time; time.sleep(0.5); sys.stderr.write('Traceback ...\\n')")
    forwarded.mute()
    assert child.wait(timeout=30) == 0
    time.sleep(0.5)  # the forwarder's hold
    assert "Traceback" not in capfd.readouterr().err


def test_words_just_before_the_mute_are_held_and_dropped(capfd):
    # A Ctrl-C reaches the children and this process at once: what they write in the
    # moment before this process calls mute() is held, then dropped.
    forwarded = ChildStderr()
    with forwarded.spawning():
        child = _child("import sys; sys.stderr.write('KeyboardInterrupt\\n')")
    assert child.wait(timeout=30) == 0
    forwarded.mute()
    time.sleep(0.5)
    assert "KeyboardInterrupt" not in capfd.readouterr().err

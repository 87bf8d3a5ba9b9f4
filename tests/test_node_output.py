"""The Node bridge adds no blank lines and no colour codes to what a user or a test sees."""

from __future__ import annotations

import subprocess
import sys

import pytest

NOISY = r"""
import io, sys
if sys.argv[1] == "captured":
    sys.stdout = io.StringIO()          # as under pytest's capture: JSPyBridge then copies Node's stdout
from blockpact.bridge.runtime import runtime
r = runtime()
proc = r.require("node:process")
proc.stdout.write("\n\x1b[31mred on stdout\x1b[0m\n\n\n")
proc.stderr.write("\x1b[1mnot a bridge message\x1b[0m\n\n")
r.require("node:util").inspect({"a": 1})
r.close()
sys.__stdout__.write("done\n")
"""


@pytest.mark.parametrize("stdout", ["terminal", "captured"])
def test_node_output_reaches_stderr_as_plain_non_empty_lines(stdout: str) -> None:
    done = subprocess.run([sys.executable, "-c", NOISY, stdout], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "done\n"  # nothing from Node on stdout, no blank lines
    assert "\x1b" not in done.stderr
    lines = done.stderr.splitlines()
    assert "node: red on stdout" in lines and "node: not a bridge message" in lines, lines
    assert all(line.strip() for line in lines), lines


SLOW_CALL = r"""
import threading, time
from blockpact.bridge.runtime import runtime
r = runtime()
vm = r.require("node:vm")
def call():
    try:  # Node is busy for 3 s; the call gives up after 1 s, when the runtime is already closed
        vm.runInThisContext("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000)", timeout=1)
    except Exception as exc:
        print("raised:", exc)
caller = threading.Thread(target=call)
caller.start()
time.sleep(0.3)
r.close()
caller.join()
"""


def test_a_call_that_times_out_raises_without_a_crash_notice() -> None:
    """JSPyBridge prints "** The Node process has crashed ... **" when a call times out, even when Node is
    merely slow; the exception is what the caller reports, so the notice is not shown."""
    done = subprocess.run([sys.executable, "-c", SLOW_CALL], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "raised: " in done.stdout
    assert "crashed" not in done.stdout + done.stderr, (done.stdout, done.stderr)
